/** The wire form of the daily reports' cursors; each report's decoder checks its own key's parts. */
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';

/** A report's cursor: the parts of the key a page continues after, joined by `|`, opaque and URL-safe. */
export const reportCursor = (...parts: readonly (string | number)[]): string =>
  Buffer.from(parts.join('|')).toString('base64url');

/** The `n` parts of a report's cursor (an absent one empty), for its decoder to check. */
export function cursorParts(cursor: string, n: number): string[] {
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  return Array.from({ length: n }, (_, i) => parts[i] ?? '');
}

/** A cursor its decoder refuses: 422 on `cursor`. */
export const badCursor = (lang: Lang) => invalidField(lang, 'cursor', 'validation.invalid');
