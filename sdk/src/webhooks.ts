/**
 * Callbacks: the gateway POSTs `{type, data}` to the order's `notifyUrl`, signed per Standard Webhooks
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with the merchant's webhook secret. Verified
 * here with the official `standardwebhooks` library.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type {
  AnyCallback,
  PayinFailedCallback,
  PayinPaidCallback,
  PayinUnpaidCallback,
  PayoutFailedCallback,
  PayoutSuccessCallback,
  SettlementUpdatedCallback,
} from './types.js';

export { WebhookVerificationError };

/** A pay-in reached an end state; `data` is the order as `getPayin` answers it. */
export type PayinCallback = PayinPaidCallback | PayinFailedCallback | PayinUnpaidCallback;

/** A payout reached an end state; `data` is the order as `getPayout` answers it. */
export type PayoutCallback = PayoutSuccessCallback | PayoutFailedCallback;

/** A settlement application entered a status (applied, confirmed, settled, failed). */
export type SettlementCallback = SettlementUpdatedCallback;

/** Any callback, as the gateway's document declares them (its `webhooks`): switch on `type`. */
export type Callback = AnyCallback;

/** Request headers as Node (`req.headers`), the Fetch API (`Headers`) or a plain object hold them. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

const names = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function header(headers: HeadersLike, name: string): string {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? '';
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(', ') : (value ?? '');
  }
  return '';
}

/**
 * Verifies a callback and answers its `{type, data}`; throws `WebhookVerificationError` when a signature
 * header is missing, no signature matches the exact raw body, or the timestamp is more than five
 * minutes from this machine's clock. Pass the body as received (bytes or text), before any JSON parsing.
 *
 * The same event may arrive more than once (a retry after a lost answer carries the same `webhook-id`):
 * act on it once, and answer 2xx within 15 s. A type added later arrives as it is: keep a default branch.
 */
export function verifyCallback(
  webhookSecret: string,
  headers: HeadersLike,
  rawBody: string | Buffer,
): Callback {
  const signed = Object.fromEntries(names.map((name) => [name, header(headers, name)]));
  const body = new Webhook(webhookSecret).verify(rawBody, signed);
  if (
    typeof body !== 'object' ||
    body === null ||
    typeof (body as { type?: unknown }).type !== 'string' ||
    typeof (body as { data?: unknown }).data !== 'object'
  ) {
    throw new WebhookVerificationError('Signed, but not a callback: expected {type, data}');
  }
  return body as Callback;
}
