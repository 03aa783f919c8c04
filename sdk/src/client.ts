/**
 * A typed client of the Paygate gateway: every request signed as the gateway asks (HMAC-SHA256 under the
 * API secret over `timestamp\nnonce\nMETHOD\npathWithQuery\nrawBody`), answers unwrapped from the
 * `{errno, errmsg, data}` envelope, refusals thrown as `PaygateError`, 503s retried.
 */
import { createHmac, randomBytes } from 'node:crypto';
import {
  type BalanceData,
  operations,
  type PayinCreateBody,
  type PayinCreateData,
  type PayinFindData,
  type PayinGetData,
  type PayoutCreateBody,
  type PayoutCreateData,
  type PayoutFindData,
  type PayoutGetData,
  type RefundCreateBody,
  type RefundCreateData,
  type RefundGetData,
} from './types.js';

export type OperationId = keyof typeof operations;

export interface RetryOptions {
  /** Attempts after the first (default 2). 0 turns retrying off. */
  max?: number;
  /** The longest wait between attempts, in seconds, whatever `Retry-After` asks (default 30). */
  maxWaitSeconds?: number;
  /** The wait when the answer names none (no `Retry-After`, or a network error): doubled each time (default 1). */
  baseWaitSeconds?: number;
}

export interface PaygateClientOptions {
  /** Where the gateway is served, e.g. `https://pay.example.com` (requests go to `/gateway/v1/…` below it). */
  baseUrl: string;
  /** The merchant's code (`X-Merchant-Id`). */
  merchantId: string;
  /** The API secret, as answered once when the merchant was made or its secrets were reset. */
  apiSecret: string;
  /** A `fetch` of your own (a proxy agent, a test double); default: the global one. */
  fetch?: typeof fetch;
  /** The clock the signature's timestamp is read from; default: the system's. Must be within 300 s of the gateway's. */
  now?: () => Date | number;
  /** Retrying 503s (and 429s that say when), and network errors; see README. */
  retries?: RetryOptions;
  /** Give up on one attempt after this many milliseconds (default 30 000); counts as a network error. */
  timeoutMs?: number;
  /** `Accept-Language` of the requests: the language of `errmsg`. */
  language?: string;
}

/** A create's answer: the order, and whether the gateway answered an order made before (idempotency). */
export interface Created<T> {
  order: T;
  /** True when this `merchantOrderNo` was created before with the same content (`Idempotent-Replayed: true`, HTTP 200). */
  replayed: boolean;
}

/** A refusal from the gateway: HTTP status, the envelope's `errno`, `errmsg` and `data`. */
export class PaygateError extends Error {
  override readonly name = 'PaygateError';
  constructor(
    /** HTTP status: 400 malformed, 401 signature, 403 not allowed, 404 unknown order, 409 other content, 422 validation, 429, 5xx. */
    readonly status: number,
    /** The envelope's error number (the HTTP status for most refusals); -1 when the answer was not an envelope. */
    readonly errno: number,
    /** The gateway's message, in the requested language. */
    readonly errmsg: string,
    /** Details, such as `{ fields: [{ path, code, message }] }` on 422; null when there are none. */
    readonly data: unknown,
    /** The gateway's `X-Request-Id`, to quote when asking support. */
    readonly requestId?: string,
  ) {
    super(`${status} ${errmsg || 'refused'}${requestId ? ` (request ${requestId})` : ''}`);
  }
}

const defaults = { max: 2, maxWaitSeconds: 30, baseWaitSeconds: 1 };

/** `Retry-After` as seconds (delay-seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000);
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

export class PaygateClient {
  readonly #base: string;
  readonly #merchantId: string;
  readonly #secret: string;
  readonly #fetch: typeof fetch;
  readonly #now: () => Date | number;
  readonly #retries: Required<RetryOptions>;
  readonly #timeoutMs: number;
  readonly #language: string | undefined;

  constructor(options: PaygateClientOptions) {
    if (!options.baseUrl || !options.merchantId || !options.apiSecret)
      throw new TypeError('PaygateClient needs baseUrl, merchantId and apiSecret');
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#merchantId = options.merchantId;
    this.#secret = options.apiSecret;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#now = options.now ?? Date.now;
    const r = options.retries;
    this.#retries = {
      max: r?.max ?? defaults.max,
      maxWaitSeconds: r?.maxWaitSeconds ?? defaults.maxWaitSeconds,
      baseWaitSeconds: r?.baseWaitSeconds ?? defaults.baseWaitSeconds,
    };
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#language = options.language;
  }

  /** Creates a pay-in; repeating it with the same `merchantOrderNo` and content answers the same order. */
  async createPayin(body: PayinCreateBody): Promise<Created<PayinCreateData>> {
    const { data, replayed } = await this.request<PayinCreateData>('payinCreate', { body });
    return { order: data, replayed };
  }

  /** A pay-in by the gateway's order number. */
  async getPayin(orderNo: string): Promise<PayinGetData> {
    return (await this.request<PayinGetData>('payinGet', { params: { orderNo } })).data;
  }

  /** A pay-in by your own order number. */
  async findPayin(merchantOrderNo: string): Promise<PayinFindData> {
    return (await this.request<PayinFindData>('payinFind', { query: { merchantOrderNo } })).data;
  }

  /** Creates a payout (its amount and fee are frozen at once); idempotent by `merchantOrderNo` as pay-ins are. */
  async createPayout(body: PayoutCreateBody): Promise<Created<PayoutCreateData>> {
    const { data, replayed } = await this.request<PayoutCreateData>('payoutCreate', { body });
    return { order: data, replayed };
  }

  /** A payout by the gateway's order number. */
  async getPayout(orderNo: string): Promise<PayoutGetData> {
    return (await this.request<PayoutGetData>('payoutGet', { params: { orderNo } })).data;
  }

  /** A payout by your own order number. */
  async findPayout(merchantOrderNo: string): Promise<PayoutFindData> {
    return (await this.request<PayoutFindData>('payoutFind', { query: { merchantOrderNo } })).data;
  }

  /**
   * Refunds a paid pay-in, in full or in part (from the collection balance); idempotent by your own
   * `refundNo`. The outcome comes as a `payin.refunded` or `refund.failed` callback.
   */
  async createRefund(body: RefundCreateBody): Promise<Created<RefundCreateData>> {
    const { data, replayed } = await this.request<RefundCreateData>('refundCreate', { body });
    return { order: data, replayed };
  }

  /** A refund by your own refund number. */
  async getRefund(refundNo: string): Promise<RefundGetData> {
    return (await this.request<RefundGetData>('refundGet', { params: { refundNo } })).data;
  }

  /** The merchant's collection and payout balances. */
  async balance(): Promise<BalanceData> {
    return (await this.request<BalanceData>('balance')).data;
  }

  /**
   * One operation of the document, signed, retried and unwrapped; the typed methods above are built on
   * it. Answers `data`, the HTTP status and whether the answer was an idempotent replay; throws
   * `PaygateError` on a refusal, or the last network error once the retries are spent.
   */
  async request<T>(
    id: OperationId,
    input: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown } = {},
  ): Promise<{ data: T; status: number; replayed: boolean }> {
    const op = operations[id];
    let path: string = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = input.params?.[name];
      if (value === undefined) throw new TypeError(`${id}: path parameter ${name} missing`);
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams(input.query).toString();
    if (query) path += `?${query}`;
    const url = new URL(this.#base + path);
    // Signed as the gateway reads it: the URL's path and query after parsing, the body as sent.
    const pathWithQuery = url.pathname + url.search;
    const rawBody = op.method === 'GET' ? '' : JSON.stringify(input.body ?? {});

    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.#retries.max;
      let res: Response;
      try {
        res = await this.#fetch(url, {
          method: op.method,
          headers: this.#headers(op.method, pathWithQuery, rawBody),
          ...(op.method === 'GET' ? {} : { body: rawBody }),
          signal: AbortSignal.timeout(this.#timeoutMs),
          redirect: 'manual',
        });
      } catch (err) {
        // Every operation may be sent again: queries change nothing, and a create repeated with the same
        // merchantOrderNo and body answers the order the first one made (or makes it, if it never arrived).
        if (last) throw err;
        await sleep(this.#wait(attempt));
        continue;
      }
      const retryable = res.status === 503 || (res.status === 429 && res.headers.has('retry-after'));
      if (retryable && !last) {
        await res.body?.cancel();
        await sleep(this.#wait(attempt, retryAfterSeconds(res.headers.get('retry-after'))));
        continue;
      }
      return this.#answer<T>(res);
    }
  }

  /** Seconds to wait before attempt `attempt + 1`: what the gateway asked, else a doubling wait; capped. */
  #wait(attempt: number, asked?: number): number {
    const wait = asked ?? this.#retries.baseWaitSeconds * 2 ** attempt;
    return Math.min(wait, this.#retries.maxWaitSeconds);
  }

  /** The four signing headers, with a fresh timestamp and nonce (each attempt is signed anew). */
  #headers(method: string, pathWithQuery: string, rawBody: string): Record<string, string> {
    const now = this.#now();
    const timestamp = String(Math.floor((typeof now === 'number' ? now : now.getTime()) / 1000));
    const nonce = randomBytes(24).toString('base64url');
    const canonical = `${timestamp}\n${nonce}\n${method.toUpperCase()}\n${pathWithQuery}\n${rawBody}`;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'x-merchant-id': this.#merchantId,
      'x-timestamp': timestamp,
      'x-nonce': nonce,
      'x-signature': createHmac('sha256', this.#secret).update(canonical).digest('hex'),
    };
    if (method !== 'GET') headers['content-type'] = 'application/json';
    if (this.#language) headers['accept-language'] = this.#language;
    return headers;
  }

  async #answer<T>(res: Response): Promise<{ data: T; status: number; replayed: boolean }> {
    const requestId = res.headers.get('x-request-id') ?? undefined;
    const text = await res.text();
    let envelope: { errno?: unknown; errmsg?: unknown; data?: unknown } | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && 'errno' in parsed) envelope = parsed;
    } catch {
      envelope = undefined;
    }
    if (!envelope || typeof envelope.errno !== 'number') {
      throw new PaygateError(res.status, -1, `not a gateway answer (HTTP ${res.status})`, text, requestId);
    }
    if (!res.ok || envelope.errno !== 0) {
      const errmsg = typeof envelope.errmsg === 'string' ? envelope.errmsg : '';
      throw new PaygateError(res.status, envelope.errno, errmsg, envelope.data ?? null, requestId);
    }
    return {
      data: envelope.data as T,
      status: res.status,
      replayed: res.headers.get('idempotent-replayed')?.toLowerCase() === 'true',
    };
  }
}
