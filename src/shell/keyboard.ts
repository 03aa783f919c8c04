import { type AnyAction, type Command, commands, shortcutsOf } from '../../commands/index.ts';
import { allows } from '../../contract/index.ts';
import { $grants } from '../lib/session.ts';
import { selectedRows } from '../ui/selection.ts';
import { $paletteDraft, $paletteOpen } from './paletteState.ts';
import { actionApplies, activeTable, runCommand } from './runtime.ts';

/** The key of an event in the registry's notation: `mod+k`, `?`, `j`, `Enter`, `ArrowDown`. */
export function keyOf(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey'>): string {
  return e.ctrlKey || e.metaKey ? `mod+${e.key.toLowerCase()}` : e.key;
}

/** True when the event comes from a place where keys are text: inputs, text areas, editors. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (target instanceof HTMLInputElement) {
    return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'].includes(
      target.type,
    );
  }
  return false;
}

/** Enter or Space on a focused link or button is that control's (the skip link, a toolbar's button). */
function pressesControl(e: KeyboardEvent): boolean {
  if (e.key !== 'Enter' && e.key !== ' ') return false;
  return (
    e.target instanceof Element && e.target.closest('a[href], button, summary, [role="button"]') !== null
  );
}

/** An open dialog, alert or menu owns the keyboard. */
function overlayOpen(): boolean {
  return document.querySelector('[role="dialog"], [role="alertdialog"], [role="menu"]') !== null;
}

const sequenceWindowMs = 1500;
const modifierKeys = new Set(['Shift', 'Control', 'Alt', 'AltGraph', 'Meta', 'CapsLock']);
let pending: { key: string; at: number } | null = null;

function matches(command: Command, key: string): boolean {
  return shortcutsOf(command).includes(key);
}

function visible(command: Command): boolean {
  if (command.kind === 'screen' && command.access === 'public') return false;
  return allows($grants.get(), command.needs);
}

const sequenceStarters = new Set(
  commands.flatMap((c) =>
    shortcutsOf(c)
      .filter((k) => k.includes(' '))
      .map((k) => k.split(' ')[0] ?? ''),
  ),
);

/**
 * The one keyboard dispatcher: mod+k everywhere; other shortcuts only when nothing is typed into and
 * no overlay is open; `g` then a letter goes to a screen; the active list gets its keys first.
 */
export function handleKey(e: KeyboardEvent): void {
  if (e.defaultPrevented || e.isComposing) return;
  // A modifier's own keydown (Shift before the `P` of `g P`) is not a key of a sequence.
  if (modifierKeys.has(e.key)) return;
  const key = keyOf(e);
  const run = (command: Command, target?: unknown) => {
    e.preventDefault();
    void runCommand(command, target);
  };

  if (key.startsWith('mod+')) {
    if (document.querySelector('[role="alertdialog"]')) return;
    // In a field, Ctrl-Z and its kin are the field's own; only the palette's key reaches the console.
    if (key !== 'mod+k' && isTyping(e.target)) return;
    const command = commands.find((c) => c.kind === 'action' && matches(c, key) && visible(c));
    if (command) run(command);
    return;
  }
  // Between Ctrl-K and the palette's input taking focus (a render, or a chunk load under load) keys
  // land on the page: they belong to the palette's query, not to shortcuts.
  if ($paletteOpen.get() && !isTyping(e.target)) {
    pending = null;
    if (e.key.length === 1 && !e.altKey) {
      e.preventDefault();
      $paletteDraft.set($paletteDraft.get() + e.key);
    }
    return;
  }
  if (e.altKey || isTyping(e.target) || overlayOpen() || pressesControl(e)) {
    pending = null;
    return;
  }

  // Measured between the keys' own times, not when they are handled: on a busy page the second key of
  // a sequence typed in time may be handled after the window.
  if (pending && e.timeStamp - pending.at < sequenceWindowMs) {
    const sequence = `${pending.key} ${key}`;
    pending = null;
    const command = commands.find((c) => matches(c, sequence) && visible(c));
    if (command) run(command);
    return;
  }
  pending = null;
  if (sequenceStarters.has(key)) {
    pending = { key, at: e.timeStamp };
    return;
  }

  const table = activeTable();
  if (table) {
    const tableKey = commands.find((c) => c.kind === 'action' && c.scope === 'table' && matches(c, key));
    if (tableKey) {
      run(tableKey);
      return;
    }
    // No row focused but rows checked (X checks the page): the row keys act on the checked rows.
    const target = table.focused() ?? selectedRows(table.context)[0];
    if (target !== undefined) {
      const rowAction = commands.find(
        (c): c is AnyAction =>
          c.kind === 'action' && c.context === table.context && matches(c, key) && actionApplies(c, target),
      );
      if (rowAction) {
        run(rowAction, target);
        return;
      }
    }
  }

  const global = commands.find(
    (c) => matches(c, key) && visible(c) && (c.kind === 'screen' || (!c.context && !c.scope)),
  );
  if (global) run(global);
}
