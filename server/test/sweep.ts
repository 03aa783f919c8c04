/**
 * The (state, action) sweep of a state machine, generated from its declaration (contract/machines.ts):
 * every pair of a state and an action, with what the declaration says must happen. A machine's test
 * puts an object in `state`, runs `action` through the real code, and checks the outcome:
 * `allowed` → it lands in `to` (or stays, for an action without one); refused → the clear refusal and
 * nothing changed. Written once here so that a new state or action is swept without touching a test.
 */
import type { ActionOf, AnyMachine, Machine, StateOf } from '../../contract/machine.ts';

export interface SweepCase<S extends string, A extends string> {
  state: S;
  action: A;
  allowed: boolean;
  /** Where the object must be afterwards: the action's `to` when allowed, else where it was. */
  after: S;
  /** `state --action-->` for test names. */
  name: string;
}

/** Every (state, action) pair of `m`, optionally only the actions `only` names. */
export function sweep<M extends AnyMachine>(
  m: M,
  only?: readonly ActionOf<M>[],
): SweepCase<StateOf<M>, ActionOf<M>>[] {
  const mm = m as unknown as Machine<StateOf<M>, ActionOf<M>, string>;
  const actions = (only ?? mm.actionNames) as readonly ActionOf<M>[];
  return mm.states.flatMap((state) =>
    actions.map((action) => {
      const allowed = mm.can(action, state);
      return {
        state,
        action,
        allowed,
        after: allowed ? (mm.to(action) ?? state) : state,
        name: `${m.name}: ${state} --${action}--> ${allowed ? (mm.to(action) ?? state) : 'refused'}`,
      };
    }),
  );
}
