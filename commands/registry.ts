import { allows, type Grants } from '../contract/index.ts';
import { accountActions, accountScreens, publicScreens } from './account.ts';
import { accountFreezeCommands } from './accountFreeze.ts';
import { adjustmentCommands } from './adjustment.ts';
import { appCommands, tableCommands } from './app.ts';
import { approvalCommands } from './approval.ts';
import { businessCommands } from './business.ts';
import { disputeCommands } from './dispute.ts';
import { fundCommands } from './funds.ts';
import { memoCommands } from './memo.ts';
import { merchantUserCommands } from './merchantUser.ts';
import { orderCommands } from './orders.ts';
import { parameterCommands } from './parameter.ts';
import { payoutCommands } from './payouts.ts';
import { receivingCommands } from './receiving.ts';
import { refundCommands } from './refund.ts';
import { riskCommands } from './risk.ts';
import { settingCommands } from './settings.ts';
import { settlementCommands } from './settlement.ts';
import { slipCommands } from './slip.ts';
import { statCommands } from './stat.ts';
import { statementCommands } from './statement.ts';
import { systemCommands } from './system.ts';
import { telegramCommands } from './telegram.ts';
import { tnCommands } from './tn.ts';
import {
  type AnyAction,
  type Command,
  type ContextName,
  type Contexts,
  type MenuGroup,
  menuGroups,
  type ScreenCommand,
} from './types.ts';

/** Every command of the console, checked once: ids, routes and shortcuts are unique. */
export function assemble(list: readonly Command[]): readonly Command[] {
  const ids = new Set<string>();
  const routes = new Set<string>();
  const keys = new Map<string, Command>();
  for (const command of list) {
    if (ids.has(command.id)) throw new Error(`command id ${command.id} is declared twice`);
    ids.add(command.id);
    if (command.kind === 'screen') {
      if (routes.has(command.route)) throw new Error(`route ${command.route} is declared twice`);
      routes.add(command.route);
    }
    for (const key of shortcutsOf(command)) {
      const scope = command.kind === 'action' ? (command.context ?? command.scope ?? 'global') : 'global';
      const other = keys.get(`${scope}:${key}`);
      if (other && !(conditional(other) && conditional(command)))
        throw new Error(`shortcut ${key} of ${command.id} repeats ${other.id}`);
      keys.set(`${scope}:${key}`, command);
    }
  }
  return list;
}

/** Offered only in some states or selections: two such actions may share a key. */
const conditional = (command: Command) => command.kind === 'action' && (!!command.when || !!command.bulk);

export function shortcutsOf(command: Command): readonly string[] {
  if (!command.shortcut) return [];
  return typeof command.shortcut === 'string' ? [command.shortcut] : command.shortcut;
}

export const commands: readonly Command[] = assemble([
  ...publicScreens,
  ...accountScreens,
  ...accountActions,
  ...orderCommands,
  ...payoutCommands,
  ...refundCommands,
  ...disputeCommands,
  ...fundCommands,
  ...settlementCommands,
  ...approvalCommands,
  ...tnCommands,
  ...slipCommands,
  ...statCommands,
  ...businessCommands,
  ...merchantUserCommands,
  ...receivingCommands,
  ...accountFreezeCommands,
  ...statementCommands,
  ...settingCommands,
  ...systemCommands,
  ...memoCommands,
  ...parameterCommands,
  ...telegramCommands,
  ...adjustmentCommands,
  ...riskCommands,
  ...appCommands,
  ...tableCommands,
]);

export const screens: readonly ScreenCommand[] = commands.filter(
  (c): c is ScreenCommand => c.kind === 'screen',
);
export const actions: readonly AnyAction[] = commands.filter((c): c is AnyAction => c.kind === 'action');

export const homeRoute = '/dashboard';

export function commandById(id: string): Command | undefined {
  return commands.find((c) => c.id === id);
}

/** Screens the user may open (public ones excluded: they are never navigation targets). */
export function visibleScreens(
  grants: Grants | null,
  list: readonly ScreenCommand[] = screens,
): ScreenCommand[] {
  return list.filter((s) => s.access !== 'public' && allows(grants, s.needs));
}

export type MenuEntry =
  | { kind: 'item'; screen: ScreenCommand }
  | { kind: 'group'; group: MenuGroup; items: ScreenCommand[] };

/** The sidebar: top-level screens and groups in declaration order; a group left empty vanishes. */
export function menuFor(grants: Grants | null, list: readonly ScreenCommand[] = screens): MenuEntry[] {
  const top: MenuEntry[] = [];
  const grouped = new Map<MenuGroup, ScreenCommand[]>();
  for (const s of visibleScreens(grants, list)) {
    if (s.hidden) continue;
    if (!s.group) top.push({ kind: 'item', screen: s });
    else grouped.set(s.group, [...(grouped.get(s.group) ?? []), s]);
  }
  const groups: MenuEntry[] = menuGroups
    .filter((g) => (grouped.get(g)?.length ?? 0) > 0)
    .map((g) => ({ kind: 'group', group: g, items: grouped.get(g) ?? [] }));
  return [...top, ...groups];
}

/** A bulk action needs this many checked rows; with fewer, its key falls to the single-row action. */
const bulkMinimum = 2;

/**
 * True when the action fits `target` and the list around it (`checked`: how many rows of the action's
 * list are checked). Permissions are checked apart (`allows`).
 */
export function applies(action: AnyAction, target: unknown, checked: number): boolean {
  if (action.bulk && checked < bulkMinimum) return false;
  return !action.when || (action.when as (t: unknown) => boolean)(target);
}

/**
 * Actions the user may run on `target` of `context`, in declaration order; bulk actions only with
 * `checked` (the rows checked in its list) at two or more, so a drawer, which passes none, never shows them.
 */
export function actionsFor<K extends ContextName>(
  grants: Grants | null,
  context: K,
  target: Contexts[K],
  checked = 0,
): AnyAction[] {
  return actions.filter(
    (a) => a.context === context && allows(grants, a.needs) && applies(a, target, checked),
  );
}

/** Global actions (no target) the user may run; table keys excluded. */
export function globalActions(grants: Grants | null, list: readonly AnyAction[] = actions): AnyAction[] {
  return list.filter((a) => !a.context && !a.scope && allows(grants, a.needs));
}

/** Splits a pathname into the matching screen, or undefined. Patterns are literal or end in `/*`. */
export function screenForPath(
  pathname: string,
  list: readonly ScreenCommand[] = screens,
): ScreenCommand | undefined {
  return list.find((s) =>
    s.route.endsWith('/*')
      ? pathname.startsWith(s.route.slice(0, -1))
      : s.route === pathname.replace(/\/$/, '') || s.route === pathname,
  );
}

/** A crumb: a title key and, when it can be followed, a path. */
export interface Crumb {
  titleKey: string;
  path?: string;
}

/** Breadcrumb of a path: always starts at home, then the menu group, then the screen. */
export function breadcrumbFor(pathname: string, list: readonly ScreenCommand[] = screens): Crumb[] {
  const home = list.find((s) => s.route === homeRoute);
  const crumbs: Crumb[] = [{ titleKey: home ? `commands.${home.id}.title` : 'app.home', path: homeRoute }];
  const current = screenForPath(pathname, list);
  // An address that leads nowhere is named as what the shell shows there.
  if (!current) return [...crumbs, { titleKey: 'errorPage.404.title' }];
  if (current.route === homeRoute || current.access === 'public') return crumbs;
  if (current.group) crumbs.push({ titleKey: `menu.${current.group}` });
  crumbs.push({ titleKey: `commands.${current.id}.title` });
  return crumbs;
}

/** The message that titles a section of the shortcut sheet. */
export const cheatSheetSectionKey = (section: string): string => `app.cheatSheet.sections.${section}`;

/** Keyboard lines of the `?` sheet: every command with a shortcut the user may run. */
export function cheatSheet(
  grants: Grants | null,
): { section: string; command: Command; keys: readonly string[] }[] {
  const out: { section: string; command: Command; keys: readonly string[] }[] = [];
  for (const command of commands) {
    const keys = shortcutsOf(command);
    if (!keys.length) continue;
    if (command.kind === 'screen') {
      if (command.access !== 'public' && allows(grants, command.needs))
        out.push({ section: 'navigation', command, keys });
    } else if (allows(grants, command.needs)) {
      out.push({
        section: command.context ? `context.${command.context}` : (command.scope ?? 'global'),
        command,
        keys,
      });
    }
  }
  return out;
}
