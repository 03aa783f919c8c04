import type { Endpoint, Input } from '../contract/index.ts';
import {
  type ActionCommand,
  action,
  type ContextName,
  type Contexts,
  type DialogLoader,
  type IconName,
  type RunContext,
  rowAction,
} from './types.ts';

/**
 * The shapes most commands share, so a declaration says only what differs: a form or decision dialog
 * that refreshes the list when it ends with a result, a call that says it is done, and the create, edit,
 * delete and disable / enable actions of a resource (their icons and keys the same on every list).
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

/** Calls the endpoint with what the row gives, says so (`app.done` unless named) and refreshes the list. */
export function callThenRefresh<E extends Endpoint, T>(
  endpoint: E,
  input: (target: T) => Input<E>,
  message = 'app.done',
  params?: (target: T) => Record<string, unknown>,
) {
  return async (c: RunContext, target: T): Promise<void> => {
    await c.call(endpoint, input(target));
    c.toast('success', c.t(message, params?.(target)));
    c.refresh();
  };
}

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

/** A list's create action (a plus), global: it runs from anywhere the user may create. */
export const createAction = (
  id: string,
  needs: readonly Endpoint[],
  run: (c: RunContext) => unknown,
  shortcut?: string,
) => action({ id, icon: 'plus', needs, run, ...(shortcut ? { shortcut } : {}) });

/** A row's edit action (`e`), which needs the resource's update endpoint. */
export const editAction = <K extends ContextName>(
  context: K,
  id: string,
  update: Endpoint,
  run: (c: RunContext, target: Contexts[K]) => unknown,
  extra: Extra<K> = {},
) => row(context, { id, icon: 'edit', shortcut: 'e', needs: [update], run, ...extra });

/** A record with an id: what delete and status endpoints name. */
type WithId = { [C in ContextName]: Contexts[C] extends { id: number } ? C : never }[ContextName];

/** A row's delete action (the Delete key), asked first in red, then `message` (`app.done` unless named). */
export const deleteAction = <K extends WithId, E extends Endpoint>(
  context: K,
  id: string,
  endpoint: E,
  extra: Extra<K> & { message?: string; params?: (target: Contexts[K]) => Record<string, unknown> } = {},
) => {
  const { message, params, ...rest } = extra;
  const input = (target: Contexts[K]) => ({ id: target.id }) as Input<E>;
  const run = callThenRefresh(endpoint, input, message, params);
  return row(context, {
    id,
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
  const to = (status: Status) => callThenRefresh(endpoint, (t: Contexts[K]) => input(t, status));
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
