/**
 * Field errors keyed by their whole dotted path (`owner.username`, `channels.1.weight`), for forms with
 * nested objects and lists; `form.tsx`'s `validate` keys by the first segment only.
 */
import type * as z from 'zod/mini';
import type { Endpoint, Input, Output } from '../../contract/endpoint.ts';
import { errno } from '../../contract/errno.ts';
import { ApiError, api, type FieldError } from '../lib/api.ts';
import { issueText } from './form.tsx';

export type PathErrors = Record<string, string>;

/** Checks `values` with a contract schema: the parsed data, or one message per dotted path. */
export function validatePaths<S extends z.ZodMiniType>(
  schema: S,
  values: unknown,
): { ok: true; data: z.output<S> } | { ok: false; errors: PathErrors } {
  const result = schema.safeParse(values);
  if (result.success) return { ok: true, data: result.data as z.output<S> };
  const errors: PathErrors = {};
  for (const issue of result.error.issues) {
    errors[issue.path.map(String).join('.')] ??= issueText(issue as Parameters<typeof issueText>[0]);
  }
  return { ok: false, errors };
}

/** The field errors of a 422 answer by dotted path, or null for any other error. */
export function apiPathErrors(error: unknown): PathErrors | null {
  if (!(error instanceof ApiError) || error.errno !== errno.invalid) return null;
  const list = (error.data as { fields?: FieldError[] } | null)?.fields;
  if (!Array.isArray(list) || list.length === 0) return null;
  const errors: PathErrors = {};
  for (const f of list) errors[String(f.path)] ??= f.message;
  return errors;
}

/** The message for `path` or for anything under it (`channels` finds `channels.1.weight`). */
export function errorAt(errors: PathErrors, path: string): string | undefined {
  if (errors[path]) return errors[path];
  const prefix = `${path}.`;
  for (const [key, message] of Object.entries(errors)) if (key.startsWith(prefix)) return message;
  return undefined;
}

/**
 * `useForm().send` for a form with nested fields: checks `input` against the endpoint's declared input
 * (with `also`, what the form's own rules found), then calls it. Answers `{ answer }`, or undefined when
 * a field was refused, here or by a 422 (handed to `setErrors`), or the call failed (`api` said so).
 */
export async function sendWithPaths<E extends Endpoint>(
  endpoint: E,
  input: Input<E>,
  form: { setErrors(errors: PathErrors): void; setBusy(busy: boolean): void },
  also: PathErrors = {},
): Promise<{ answer: Output<E> } | undefined> {
  const checked = validatePaths(endpoint.input, input);
  const refused = { ...(checked.ok ? {} : checked.errors), ...also };
  if (Object.keys(refused).length) {
    form.setErrors(refused);
    return undefined;
  }
  form.setBusy(true);
  try {
    return { answer: await api(endpoint, input, { quiet: [errno.invalid] }) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const fields = apiPathErrors(error);
    if (fields) form.setErrors(fields);
    return undefined;
  } finally {
    form.setBusy(false);
  }
}
