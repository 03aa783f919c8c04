import type { Endpoint, Input } from '../contract/index.ts';
import type { ActionOf, AnyMachine } from '../contract/machine.ts';
import {
  type ActionCommand,
  action,
  type ContextName,
  type Contexts,
  type DialogLoader,
  type IconName,
  type RunContext,
  rowAction,
  type ScreenCommand,
  screen,
} from './types.ts';

/**
 * The shapes most commands share, so a declaration says only what differs: a form or decision dialog
 * that refreshes the list when it ends with a result, a call that says it is done, the create, edit,
 * delete and disable / enable actions of a resource (their icons and keys the same on every list),
 * screens and actions named after the endpoint they call, a record's machine steps, and links from a
 * row to another list.
 */

/**
 * Opens a dialog with what the row (and the run context) gives it; when it ends with a result the list
 * is refreshed, then `then` (a screen's route) is opened when named.
 */
export function openDialog<P extends object, T = undefined>(
  load: DialogLoader<P>,
  props?: (target: T, c: RunContext) => P,
  then?: string,
) {
  return async (c: RunContext, target?: T): Promise<void> => {
    if (!(await c.dialog(load, props ? props(target as T, c) : ({} as P)))) return;
    c.refresh();
    if (then) c.navigate(then);
  };
}

/** An action's own reverse, offered as its undo: what to call with the row as it was before. */
export type Reverse<T> = (c: RunContext, target: T) => Promise<unknown>;

/** The reverse that calls `endpoint` again with the row's earlier values (a status back, a pin back). */
export const callAgain =
  <E extends Endpoint, T>(endpoint: E, input: (target: T) => Input<E>): Reverse<T> =>
  (c, target) =>
    c.call(endpoint, input(target));

/** What a call says when it is done, and how it is taken back. */
export interface Said<T> {
  /** The message key (its `params` from the row); none: "Done: <the action's title>". */
  message?: string;
  params?: (target: T) => Record<string, unknown>;
  /** Offered in the saying for a few seconds (src/lib/undo.ts). */
  undo?: Reverse<T>;
}

/** "Done: Pause account": what an action says that has nothing more to say. */
export const doneText = (c: RunContext) => c.t('app.doneWhat', { what: c.title });

/**
 * Calls the endpoint with what the row gives, says so (`said.message`, else "Done: <title>") and refreshes
 * the list; with `said.undo`, the saying offers it for a few seconds.
 */
export function callThenRefresh<E extends Endpoint, T>(
  endpoint: E,
  input: (target: T) => Input<E>,
  said: Said<T> = {},
) {
  return async (c: RunContext, target: T): Promise<void> => {
    await c.call(endpoint, input(target));
    const { message, params, undo } = said;
    const text = message ? c.t(message, params?.(target)) : doneText(c);
    if (undo) c.offerUndo(text, () => undo(c, target));
    else c.toast('success', text);
    c.refresh();
  };
}

/**
 * An action named after the one endpoint it calls: its id is the endpoint's (`merchantPayout.bulkCreate`),
 * so the command, the permission it needs and its messages share one name that cannot drift apart.
 */
export const endpointAction = (
  endpoint: Endpoint,
  def: Omit<ActionCommand<undefined>, 'kind' | 'context' | 'id' | 'needs'>,
) => action({ id: endpoint.id, needs: [endpoint], ...def });

/** A row action named after the one endpoint it calls, as `endpointAction`. */
export const endpointRowAction = <K extends ContextName>(
  context: K,
  endpoint: Endpoint,
  def: Omit<ActionCommand<K>, 'kind' | 'context' | 'id' | 'needs'>,
) =>
  rowAction(context, { id: endpoint.id, needs: [endpoint], ...def } as Omit<
    ActionCommand<K>,
    'kind' | 'context'
  >);

/**
 * A screen named after the endpoint that fills it, the first it needs: its id is that endpoint's
 * (`merchantOrder.list`), the rest are what its own actions call.
 */
export const endpointScreen = (
  needs: readonly [Endpoint, ...Endpoint[]],
  def: Omit<ScreenCommand, 'kind' | 'id' | 'needs'>,
) => screen({ id: needs[0].id, needs, ...def });

/** A row action's fields with the row's type spelled out, for the builders generic in the context. */
interface RowDef<K extends ContextName> {
  id: string;
  icon: IconName;
  shortcut: string;
  needs: readonly Endpoint[];
  when?: (target: Contexts[K]) => boolean;
  confirm?: { danger?: boolean };
  run: (c: RunContext, target: Contexts[K]) => unknown;
}
const row = <K extends ContextName>(context: K, def: RowDef<K>) =>
  rowAction(context, def as unknown as Omit<ActionCommand<K>, 'kind' | 'context'>);

/** What a builder's caller may add or change: a state predicate, a confirmation, another key. */
type Extra<K extends ContextName> = Partial<Pick<RowDef<K>, 'when' | 'confirm' | 'shortcut' | 'icon'>>;

/**
 * A list's create action (a plus), global: it runs from anywhere the user may create. It is named after
 * the endpoint it creates with, the first it needs, unless `id` says otherwise.
 */
export const createAction = (
  needs: readonly [Endpoint, ...Endpoint[]],
  run: (c: RunContext) => unknown,
  { shortcut, id = needs[0].id }: { shortcut?: string; id?: string } = {},
) => action({ id, icon: 'plus', needs, run, ...(shortcut ? { shortcut } : {}) });

/** A row's edit action (`e`), which needs the resource's update endpoint: `<its group>.edit` unless named. */
export const editAction = <K extends ContextName>(
  context: K,
  update: Endpoint,
  run: (c: RunContext, target: Contexts[K]) => unknown,
  { id = `${update.group}.edit`, ...extra }: Extra<K> & { id?: string } = {},
) => row(context, { id, icon: 'edit', shortcut: 'e', needs: [update], run, ...extra });

/** A record with an id: what delete and status endpoints name. */
type WithId = { [C in ContextName]: Contexts[C] extends { id: number } ? C : never }[ContextName];

/**
 * A row's delete action (the Delete key), named after its endpoint, asked first in red, then `message`
 * (`app.done` unless named).
 */
export const deleteAction = <K extends WithId, E extends Endpoint>(
  context: K,
  endpoint: E,
  /** `undo`: writes the record again (a notice: it holds nothing that points at it). */
  extra: Extra<K> & Said<Contexts[K]> = {},
) => {
  const { message, params, undo, ...rest } = extra;
  const input = (target: Contexts[K]) => ({ id: target.id }) as Input<E>;
  const run = callThenRefresh(endpoint, input, { message, params, undo });
  return row(context, {
    id: endpoint.id,
    icon: 'trash',
    shortcut: 'Delete',
    needs: [endpoint],
    confirm: { danger: true },
    run,
    ...rest,
  });
};

type Status = 'active' | 'disabled';
/** A record that is active or disabled. */
type Switchable = { [C in WithId]: Contexts[C] extends { status: Status } ? C : never }[WithId];

/**
 * `prefix.disable` (asked first, in red) and `prefix.enable`, both on `s` and each offered only from the
 * other state; the endpoint takes the row's id and the new status unless `input` says otherwise.
 */
export function statusToggle<K extends Switchable, E extends Endpoint>(
  context: K,
  prefix: string,
  endpoint: E,
  input: (target: Contexts[K], status: Status) => Input<E> = (target, status) =>
    ({ id: target.id, status }) as Input<E>,
) {
  // Undone by the status it had: a disabled record enabled again, and the other way.
  const back = callAgain(endpoint, (t: Contexts[K]) => input(t, (t as { status: Status }).status));
  const to = (status: Status) =>
    callThenRefresh(endpoint, (t: Contexts[K]) => input(t, status), { undo: back });
  const isIn = (status: Status) => (t: Contexts[K]) => (t as { status: Status }).status === status;
  const common = { icon: 'power', shortcut: 's', needs: [endpoint] } as const;
  return [
    row(context, {
      id: `${prefix}.disable`,
      ...common,
      when: isIn('active'),
      confirm: { danger: true },
      run: to('disabled'),
    }),
    row(context, { id: `${prefix}.enable`, ...common, when: isIn('disabled'), run: to('active') }),
  ];
}

/** A record a state machine drives (contract/machines.ts): its status says what may be done to it. */
type Driven = { [C in WithId]: Contexts[C] extends { status: string } ? C : never }[WithId];

/**
 * The row actions that take `context`'s records one step of `machine`: each is named after the endpoint
 * it calls (its id is the endpoint's, `merchantPayout.retry`) and is offered while the machine lets its
 * step start from the row's status.
 */
export function machineSteps<K extends Driven, M extends AnyMachine>(context: K, machine: M) {
  return (
    step: ActionOf<M>,
    endpoint: Endpoint,
    def: Pick<RowDef<K>, 'icon' | 'shortcut' | 'run'> & Omit<Extra<K>, 'when'>,
  ) =>
    row(context, {
      id: endpoint.id,
      needs: [endpoint],
      when: (target) => machine.can(step, (target as { status: string }).status),
      ...def,
    });
}

/**
 * A row action that opens another list at what concerns the row (a merchant's pay-ins, an import's
 * lines): it needs the endpoint that fills that list and goes to `to(row)`.
 */
export const listLink = <K extends ContextName>(
  context: K,
  id: string,
  list: Endpoint,
  def: Pick<RowDef<K>, 'icon' | 'shortcut'> & Extra<K>,
  to: (target: Contexts[K]) => string,
) => row(context, { id, needs: [list], ...def, run: (c, target) => c.navigate(to(target)) });

/**
 * A resource made and changed in one form: its create action opens the form blank, its edit action opens
 * it on the row (`props` names what the form takes it as). `shortcut` is the create action's own key where
 * the screen holds several lists; `editId` names the edit action after its endpoint instead of the group.
 */
export const formActions = <K extends ContextName, P extends object>(
  context: K,
  create: Endpoint,
  update: Endpoint,
  form: DialogLoader<P>,
  props: (target: Contexts[K]) => P,
  { shortcut, editId }: { shortcut?: string; editId?: string } = {},
) => [
  createAction([create], openDialog(form), { shortcut }),
  editAction(context, update, openDialog(form, props), { id: editId }),
];
