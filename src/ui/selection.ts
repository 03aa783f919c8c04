import { atom } from 'nanostores';
import type { ContextName, Contexts } from '../../commands/types.ts';

/**
 * The rows checked (x or the checkbox) in the list on screen, by context. The shell hands them to bulk
 * commands (`RunContext.selection`) and counts them to offer those commands.
 */
export const $selection = atom<{ context: ContextName; rows: readonly unknown[] } | null>(null);

/** The checked rows of `context` (empty when another list, or none, is on screen). */
export function selectedRows<K extends ContextName>(context: K): readonly Contexts[K][] {
  const s = $selection.get();
  return s && s.context === context ? (s.rows as readonly Contexts[K][]) : [];
}
