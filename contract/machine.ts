/**
 * The form every state machine of the product is declared in, once, as data: its states, where an
 * object begins, which states are final, each action with the states it may start from and the state
 * it leads to, and the named sets of states the product speaks of (under way, needs a person…).
 *
 * The server's compare-and-set updates, the console's `when` predicates, the dashboard's sets, the
 * state labels (`status.<machine>.<state>` in the locales) and the (state, action) sweep tests all read
 * the declaration; nothing restates a machine's rules. `machine()` checks the declaration when the module
 * loads, so a typo or an unreachable state fails every test at once.
 */

/** One action: where it may start, and where it leads (absent: the state stays as it is). */
export interface Step<S extends string> {
  readonly from: readonly S[];
  readonly to?: S;
}

export interface MachineDeclaration<S extends string, A extends string, G extends string> {
  /** The machine's name: its locale keys are `status.<name>.<state>`. */
  readonly name: string;
  readonly states: readonly S[];
  /** Where a new object begins. */
  readonly initial: S;
  /** States no action moves out of (an action without `to` may still start there: a push, a deletion). */
  readonly final: readonly S[];
  readonly actions: { readonly [K in A]: Step<S> };
  /** Named sets of states, in the business's words. */
  readonly sets: { readonly [K in G]: readonly S[] };
}

export interface Machine<S extends string, A extends string, G extends string>
  extends MachineDeclaration<S, A, G> {
  /** Each state by name (`payin.state.paid`), so that code names a state without spelling it. */
  readonly state: { readonly [K in S]: K };
  /** The action names, in declaration order. */
  readonly actionNames: readonly A[];
  /** The action may start from this state. */
  can(action: A, state: S): boolean;
  /** The states the action may start from. */
  from(action: A): readonly S[];
  /** The state the action leads to; undefined when it leaves the state as it is. */
  to(action: A): S | undefined;
  /** The state is in the named set. */
  is(set: G, state: S): boolean;
  isFinal(state: S): boolean;
}

export type StateOf<M> = M extends Machine<infer S, string, string> ? S : never;
export type ActionOf<M> = M extends Machine<string, infer A, string> ? A : never;
export type AnyMachine = Machine<string, string, string>;

/**
 * A state's label in the reader's language: the locale key `status.<machine>.<state>` (machine.test.ts
 * checks every state has one in both languages), translated by the caller's `t`.
 */
export function stateLabel<M extends AnyMachine>(
  t: (key: string) => string,
  m: M,
  state: StateOf<M>,
): string {
  return t(`status.${m.name}.${state}`);
}

/** Declares a machine, after checking that it is well formed (throws at load otherwise). */
export function machine<const S extends string, const A extends string, const G extends string>(
  d: MachineDeclaration<S, A, G>,
): Machine<S, A, G> {
  const known = new Set<string>(d.states);
  const fail = (why: string) => {
    throw new Error(`state machine ${d.name}: ${why}`);
  };
  const check = (where: string, states: readonly string[]) => {
    for (const s of states) if (!known.has(s)) fail(`${where} names unknown state ${s}`);
  };
  if (known.size !== d.states.length) fail('a state is declared twice');
  check('initial', [d.initial]);
  check('final', d.final);
  const steps = Object.entries(d.actions) as [A, Step<S>][];
  for (const [a, step] of steps) {
    if (!step.from.length) fail(`${a} starts from no state`);
    check(a, [...step.from, ...(step.to ? [step.to] : [])]);
    if (step.to) for (const f of step.from) if (d.final.includes(f)) fail(`${a} moves out of final ${f}`);
  }
  for (const [g, states] of Object.entries(d.sets) as [G, readonly S[]][]) check(`set ${g}`, states);
  // Every state can be reached from where an object begins.
  const reached = new Set<string>([d.initial]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [, step] of steps)
      if (step.to && !reached.has(step.to) && step.from.some((f) => reached.has(f))) {
        reached.add(step.to);
        grew = true;
      }
  }
  for (const s of d.states) if (!reached.has(s)) fail(`${s} cannot be reached from ${d.initial}`);

  const sets = new Map<string, ReadonlySet<string>>(
    Object.entries(d.sets).map(([g, s]) => [g, new Set(s as S[])]),
  );
  return {
    ...d,
    state: Object.fromEntries(d.states.map((s) => [s, s])) as { [K in S]: K },
    actionNames: steps.map(([a]) => a),
    can: (action, state) => d.actions[action].from.includes(state),
    from: (action) => d.actions[action].from,
    to: (action) => d.actions[action].to,
    is: (set, state) => sets.get(set)!.has(state),
    isFinal: (state) => d.final.includes(state),
  };
}
