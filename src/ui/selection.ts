import { atom } from 'nanostores';
import type { ContextName, Contexts } from '../../commands/types.ts';

/**
 * The rows checked (x or the checkbox) in the list on screen, by context. Bulk commands read it in
 * their `when` and `run`; it is kept tiny and free of React so the command registry can import it.
 */
export const $selection = atom<{ context: ContextName; rows: readonly unknown[] } | null>(null);

/** The checked rows of `context` (empty when another list, or none, is on screen). */
export function selectedRows<K extends ContextName>(context: K): readonly Contexts[K][] {
  const s = $selection.get();
  return s && s.context === context ? (s.rows as readonly Contexts[K][]) : [];
}

/** True when at least two rows of `context` are checked: what a bulk command acts on. */
export function hasBulkSelection(context: ContextName): boolean {
  return selectedRows(context).length >= 2;
}
