import type * as z from 'zod/mini';
import { errno } from '../../contract/errno.ts';
import { AppError } from './errors.ts';
import { hasKey, type Lang, t } from './i18n.ts';

export interface FieldError {
  path: string;
  code: string;
  message: string;
}

type Issue = z.core.$ZodIssue;

/** One issue in the caller's language; a custom message that is a locale key is translated as such. */
function message(issue: Issue, lang: Lang): string {
  if (issue.message?.startsWith('validation.')) return t(lang, issue.message);
  // A refinement's own key (`statement.utrPatternInvalid`): its words, not a bare "not valid".
  if (issue.code === 'custom' && issue.message && hasKey(lang, issue.message)) return t(lang, issue.message);
  switch (issue.code) {
    case 'invalid_type':
      return t(
        lang,
        (issue as { input?: unknown }).input === undefined ? 'validation.required' : 'validation.invalidType',
      );
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string')
        return t(lang, min <= 1 ? 'validation.required' : 'validation.tooShort', { min });
      return t(lang, 'validation.tooSmall', { min });
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return t(lang, 'validation.tooLong', { max });
      if (issue.origin === 'array') return t(lang, 'validation.tooManyItems', { max });
      return t(lang, 'validation.tooBig', { max });
    }
    case 'invalid_value':
      return t(lang, 'validation.oneOf', { values: issue.values.map(String).join(', ') });
    case 'unrecognized_keys':
      return t(lang, 'validation.unknownField', { field: issue.keys.join(', ') });
    default:
      return t(lang, 'validation.invalid');
  }
}

export function fieldErrors(issues: readonly Issue[], lang: Lang): FieldError[] {
  return issues.slice(0, 20).map((issue) => ({
    path: issue.path.map(String).join('.'),
    code: issue.code,
    message: message(issue, lang),
  }));
}

/**
 * PostgreSQL text cannot hold U+0000: a string (or key) carrying one is refused as invalid input,
 * rather than failing in the database as a server error. `data` is already schema-shaped.
 */
export function nulFields(data: unknown, lang: Lang, path: string[] = []): FieldError[] {
  // Nearly every input has none: answered without building a path for each field.
  if (path.length === 0 && !hasNul(data, 0)) return [];
  const found = (at: string[]) => [
    { path: at.join('.'), code: 'invalid_format', message: t(lang, 'validation.invalid') },
  ];
  if (typeof data === 'string') return data.includes('\u0000') ? found(path) : [];
  if (data === null || typeof data !== 'object' || path.length > 32) return [];
  return Object.entries(data)
    .flatMap(([k, v]) => (k.includes('\u0000') ? found([...path, k]) : nulFields(v, lang, [...path, k])))
    .slice(0, 20);
}

/** Whether a NUL is anywhere in a value's strings or keys (as deep as `nulFields` looks). */
function hasNul(data: unknown, depth: number): boolean {
  if (typeof data === 'string') return data.includes('\u0000');
  if (data === null || typeof data !== 'object' || depth > 32) return false;
  for (const k in data) {
    if (k.includes('\u0000') || hasNul((data as Record<string, unknown>)[k], depth + 1)) return true;
  }
  return false;
}

/** A 422 naming one field, its message (a locale key with its values) in the caller's language. */
export function invalidField(
  lang: Lang,
  path: string,
  key: string,
  params?: Record<string, unknown>,
  code = 'custom',
): AppError {
  return new AppError(errno.invalid, { fields: [{ path, code, message: t(lang, key, params) }] });
}
