/** Field names whose values never reach a log, the operation log or an error answer. */
const secretKeys =
  /^(password|oldPassword|newPassword|confirmPassword|passwordHash|code|secret|token|deviceToken|ticket|totpSecret|apiSecret|webhookSecret|credentials|privateKey|privateKeySealed|otpauthUrl|qr|authorization|admin-token|cookie)$/i;

/** A secret field's value, replaced; a before/after pair (see `changes`) keeps its shape. */
function hidden(value: unknown): unknown {
  const isChange =
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.keys(value).sort().join() === 'after,before';
  return isChange ? { before: '[redacted]', after: '[redacted]' } : '[redacted]';
}

/** Query parameters whose values are secrets wherever a URL is written down (`?token=…`). */
const secretQuery =
  /([?&](?:token|admin-token|access_token|refresh_token|api_?key|key|secret|signature|sig|password|code|ticket)=)[^&#\s"'<>]*/gi;

/** A text with the values of secret query parameters of any URL in it replaced: `?token=[redacted]`. */
export function redactUrlSecrets(text: string): string {
  return text.includes('=') ? text.replace(secretQuery, '$1[redacted]') : text;
}

/** A deep copy with secrets in URLs' query strings replaced, and with `keys` secret fields too. */
function copyWithout(value: unknown, keys: boolean, depth: number): unknown {
  if (typeof value === 'string') return redactUrlSecrets(value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => copyWithout(v, keys, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = keys && secretKeys.test(k) ? hidden(v) : copyWithout(v, keys, depth + 1);
  return out;
}

/** A deep copy with secret fields (and secrets in URLs' query strings) replaced, for anything written down. */
export const redact = (value: unknown): unknown => copyWithout(value, true, 0);

/**
 * A deep copy with only the secrets in URLs' query strings replaced: for log lines, whose field names
 * pino's own redaction covers (an error's `code` there is an SQLSTATE, not a secret).
 */
export const withoutUrlSecrets = (value: unknown): unknown => copyWithout(value, false, 0);

/** Before/after of the fields that changed, secrets redacted. */
export function changes(before: Record<string, unknown>, after: Record<string, unknown>) {
  const diff: Record<string, { before: unknown; after: unknown }> = {};
  for (const key of Object.keys(after)) {
    if (after[key] === undefined) continue;
    if (JSON.stringify(before[key]) === JSON.stringify(after[key])) continue;
    diff[key] = secretKeys.test(key)
      ? { before: '[redacted]', after: '[redacted]' }
      : { before: before[key] ?? null, after: after[key] };
  }
  return diff;
}
