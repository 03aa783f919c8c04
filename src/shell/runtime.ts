import { atom } from 'nanostores';
import { navigate } from 'wouter/use-browser-location';
import {
  type AnyAction,
  applies,
  type Command,
  type ContextName,
  confirmKey,
  type DialogLoader,
  type RunContext,
  type SearchContext,
  type ShellControls,
  type TableControls,
  titleKey,
} from '../../commands/index.ts';
import { allows } from '../../contract/index.ts';
import { api } from '../lib/api.ts';
import { thousands } from '../lib/format.ts';
import { hasKey, t } from '../lib/i18n.ts';
import { confirm, toast } from '../lib/notify.ts';
import { queryClient } from '../lib/query.ts';
import { $grants, $user } from '../lib/session.ts';
import { actingAs } from '../lib/sessionLog.ts';
import { offerUndo, undoLast } from '../lib/undo.ts';
import { merchantIdInView } from '../ui/merchantInView.ts';
import { selectedRows } from '../ui/selection.ts';
import { endOfDay, lookbackDays, startOfDay } from '../ui/timeRange.ts';
import { $paletteOpen } from './paletteState.ts';

/** The list that owns j/k, Enter, x, / and the row-action keys while it is on screen. */
export interface ActiveTable {
  context: ContextName;
  controls: TableControls;
  /** The focused row, the target of row actions. */
  focused(): unknown;
}

/** The lists on screen, each with the element that holds it. */
const tables = new Map<ActiveTable, () => Element | null>();
/** The element of the list the person last moved the focus into. */
let lastUsed: Element | null = null;
if (typeof document !== 'undefined') {
  document.addEventListener('focusin', (e) => {
    for (const element of tables.values()) {
      const el = element();
      if (el?.contains(e.target as Node)) lastUsed = el;
    }
  });
}

/** A list puts itself on screen while mounted; the returned function takes it off. */
export function registerTable(table: ActiveTable, element: () => Element | null): () => void {
  tables.set(table, element);
  return () => {
    tables.delete(table);
  };
}

/** The contexts of the lists on screen, top to bottom: the `?` sheet shows their keys first. */
export function contextsOnScreen(): ContextName[] {
  const placed = [...tables].flatMap(([table, element]) => {
    const el = element();
    return el ? [{ context: table.context, el }] : [];
  });
  placed.sort((a, b) => (a.el.compareDocumentPosition(b.el) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  return [...new Set(placed.map((p) => p.context))];
}

/**
 * The list the keys go to: the one the person last focused, else the first on the page. A page with
 * several lists (imports above their lines) must not hand the keys to whichever list loaded last, and
 * the palette (which takes the focus) must still act on the list it was opened from.
 */
export function activeTable(): ActiveTable | null {
  let first: [ActiveTable, Element] | null = null;
  for (const [table, element] of tables) {
    const el = element();
    if (!el) continue;
    if (el === lastUsed) return table;
    if (!first || first[1].compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING)
      first = [table, el];
  }
  return first?.[0] ?? null;
}
export const $cheatSheetOpen = atom(false);

interface OpenDialog {
  id: number;
  load: DialogLoader<object>;
  props: object;
  resolve: (result: unknown) => void;
}
export const $dialogs = atom<OpenDialog[]>([]);
let dialogId = 1;

let shell: ShellControls | null = null;
/** The shell hands its controls over when it mounts. */
export function provideShell(controls: ShellControls): void {
  shell = controls;
}

const noShell: ShellControls = {
  openPalette: () => $paletteOpen.set(true),
  openCheatSheet: () => $cheatSheetOpen.set(true),
  toggleSidebar: () => {},
  toggleFullscreen: () => {},
  setLanguage: () => {},
  setSize: () => {},
  logout: () => {},
};

export function runContext(command?: Command): RunContext {
  return {
    navigate: (to) => navigate(to),
    t,
    call: (endpoint, input) => api(endpoint, input),
    dialog: (load, props) =>
      new Promise((resolve) => {
        $dialogs.set([
          ...$dialogs.get(),
          { id: dialogId++, load: load as DialogLoader<object>, props, resolve },
        ]);
      }),
    confirm: (o) => confirm({ ...o, danger: o.danger ?? false, confirmLabel: t('app.confirm') }),
    toast: (tone, text) => toast(tone, text),
    title: command ? commandTitle(command) : '',
    offerUndo: (text, undo) => offerUndo(text, undo),
    undo: () => undoLast(),
    refresh: () => void queryClient.invalidateQueries(),
    shell: shell ?? noShell,
    table: activeTable()?.controls,
    selection: selectedRows,
    userKind: $user.get()?.kind ?? null,
    merchantInView: merchantIdInView(),
  };
}

/** What the palette hands a search provider: calls cancelled with `signal`, their errors left to it. */
export function searchContext(signal: AbortSignal): SearchContext {
  const now = new Date();
  return {
    call: (endpoint, input) => api(endpoint, input, { signal, quiet: [403, 422] }),
    t,
    thousands,
    lookback: { from: startOfDay(now, lookbackDays - 1).toISOString(), to: endOfDay(now).toISOString() },
    userKind: $user.get()?.kind ?? null,
  };
}

export function closeDialog(id: number, result: unknown): void {
  const found = $dialogs.get().find((d) => d.id === id);
  $dialogs.set($dialogs.get().filter((d) => d.id !== id));
  found?.resolve(result);
}

/** The command's title in the current language. */
export function commandTitle(command: Command): string {
  return t(titleKey(command.id));
}

/** True when the action may run on the target now: permission held, state and selection fitting. */
export function actionApplies(action: AnyAction, target?: unknown): boolean {
  if (!allows($grants.get(), action.needs)) return false;
  if (action.context && target === undefined) return false;
  return applies(action, target, action.context ? selectedRows(action.context).length : 0);
}

/** Runs a command: a screen navigates; an action asks its confirmation first, then runs. */
export async function runCommand(command: Command, target?: unknown): Promise<void> {
  if (command.kind === 'screen') {
    navigate(command.route);
    rememberRecent(command.id);
    return;
  }
  if (!actionApplies(command, target)) return;
  if (command.confirm) {
    const key = confirmKey(command.id);
    const ok = await confirm({
      title: commandTitle(command),
      text: hasKey(key) ? t(key, target as Record<string, unknown>) : t('app.confirmText'),
      danger: command.confirm.danger ?? false,
      confirmLabel: commandTitle(command),
    });
    if (!ok) return;
  }
  if (!command.scope) rememberRecent(command.id);
  // The writes it makes are logged under its name in this session's log (src/lib/sessionLog.ts).
  const before = actingAs({ action: command.id });
  try {
    await (command.run as (ctx: RunContext, target?: unknown) => unknown)(runContext(command), target);
  } catch {
    // api() has already told the user; nothing else to do here.
  } finally {
    actingAs(before);
  }
}

const recentKey = 'console-recent';

/** Recently run commands, newest first, for the palette. */
export function recentIds(): string[] {
  try {
    const value = JSON.parse(localStorage.getItem(recentKey) ?? '[]') as unknown;
    return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function rememberRecent(id: string): void {
  if (id.startsWith('table.') || id === 'app.palette') return;
  localStorage.setItem(recentKey, JSON.stringify([id, ...recentIds().filter((x) => x !== id)].slice(0, 6)));
}
