/**
 * The gateway API for merchant systems (GATEWAY.md): HMAC-signed requests with a timestamp window and
 * single-use nonces, payout IP whitelists, the `{errno, errmsg, data}` envelope with an HTTP status that
 * tells the outcome. Routes are declared in contract/gateway.ts and bound here with `gatewayRoute`.
 */
import { lt } from 'drizzle-orm';
import type { Context, Hono } from 'hono';
import { errno } from '../../contract/errno.ts';
import {
  allGatewayEndpoints,
  canonicalString,
  type GatewayEndpoint,
  signing,
} from '../../contract/gateway.ts';
import { type Db, inTransaction, isDatabaseUnavailable, retrying } from '../db/index.ts';
import { gatewayNonces } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { envelope, envelopeAnswer, jsonAnswer, unavailableAnswer, unmatchedAnswer } from '../http/answer.ts';
import { readBodyText } from '../http/body.ts';
import { clientIp } from '../http/clientIp.ts';
import { AppError } from '../http/errors.ts';
import { type Lang, langFrom, t } from '../http/i18n.ts';
import { docsPage } from '../http/openapi.ts';
import { fieldErrors, nulFields } from '../http/validation.ts';
import { hmacHex, safeEqual } from '../lib/crypto.ts';
import { errorForLog } from '../lib/logger.ts';
import { ipAllowed } from './ip.ts';
import { gatewayMerchant, type Merchant } from './merchants.ts';
import { gatewayOpenApi } from './openapi.ts';

export type { Merchant };

export interface GatewayContext<E extends GatewayEndpoint> {
  merchant: Merchant;
  input: ReturnType<E['input']['parse']>;
  /** A POST's `probe` value, read in the statement that spent its nonce (text as the driver gave it). */
  probed: string | null;
  params: Record<string, string>;
  /** A transaction for POSTs, the plain handle for GETs. */
  tx: Db;
  deps: Deps;
  req: { ip: string; requestId: string; lang: Lang; rawBody: string };
  afterCommit(fn: () => Promise<void> | void): void;
}

export interface GatewayAnswer {
  status?: number;
  data: unknown;
  headers?: Record<string, string>;
}

/** One value a POST reads in the statement that spends its nonce: a scalar query on `$1` … `$n`. */
export interface Probe {
  text: string;
  params: unknown[];
}

export interface GatewayRoute {
  endpoint: GatewayEndpoint;
  /** Refuse callers outside the merchant's payout IP whitelist (403). */
  payoutWhitelist?: boolean;
  /** What a POST reads first (say, whether its merchant order number exists), one round trip fewer. */
  probe?(merchant: Merchant, input: unknown): Probe;
  /**
   * A POST whose writes are each one statement that stands alone (a pay-in's creation: the order is one
   * insert) runs without a transaction: the nonce is spent on its own first, and `tx` is the database.
   */
  outsideTransaction?: boolean;
  run(ctx: GatewayContext<GatewayEndpoint>): Promise<GatewayAnswer>;
}

export function gatewayRoute<E extends GatewayEndpoint>(
  endpoint: E,
  run: (ctx: GatewayContext<E>) => Promise<GatewayAnswer>,
  opts: {
    payoutWhitelist?: boolean;
    probe?: (merchant: Merchant, input: ReturnType<E['input']['parse']>) => Probe;
    outsideTransaction?: boolean;
  } = {},
): GatewayRoute {
  return { endpoint, run: run as GatewayRoute['run'], ...(opts as Omit<GatewayRoute, 'endpoint' | 'run'>) };
}

/** The largest gateway request body, in bytes: an order or a payout is a few hundred. */
const gatewayBodyLimit = 64 * 1024;

interface Signed {
  merchant: Merchant;
  nonce: string;
  /** When the nonce may be forgotten: a replay after that fails the timestamp check. */
  nonceExpiresAt: Date;
}

/** Checks the four signing headers and the signature; answers the merchant and its nonce, or throws 401. */
async function authenticate(deps: Deps, c: Context, rawBody: string): Promise<Signed> {
  const code = c.req.header('x-merchant-id') ?? '';
  const timestamp = c.req.header('x-timestamp') ?? '';
  const nonce = c.req.header('x-nonce') ?? '';
  // Lowercase hex only (GATEWAY.md): an upper-case signature is refused, not folded.
  const signature = c.req.header('x-signature') ?? '';
  if (
    !code ||
    code.length > 64 ||
    !/^\d{1,12}$/.test(timestamp) ||
    !signing.nonce.test(nonce) ||
    !signing.signature.test(signature)
  ) {
    throw new AppError(errno.unauthenticated);
  }
  const now = deps.clock.now().getTime();
  if (Math.abs(now / 1000 - Number(timestamp)) > signing.windowSeconds)
    throw new AppError(errno.unauthenticated, null, 'timestamp');
  const known = await gatewayMerchant(deps, code);
  if (!known) throw new AppError(errno.unauthenticated, null, 'merchant');
  const url = new URL(c.req.url);
  const expected = hmacHex(
    known.secret,
    canonicalString(timestamp, nonce, c.req.method, url.pathname + url.search, rawBody),
  );
  if (!safeEqual(expected, signature)) throw new AppError(errno.unauthenticated, null, 'signature');
  return {
    merchant: known.merchant,
    nonce,
    nonceExpiresAt: new Date(now + 2 * signing.windowSeconds * 1000),
  };
}

const spendSql = (first: number) =>
  `insert into gateway_nonces (merchant_id, nonce, expires_at) values ($${first}, $${first + 1}, $${first + 2})
   on conflict do nothing returning 1`;
const spendAloneSql = spendSql(1);
/** The spend with a probe whose parameters come first ($1 … $n), statement text per n. */
const spendWithProbeSql = new Map<string, string>();

/**
 * Uses up a signed call's nonce, or throws 401 when it was used before; with a probe, answers its value,
 * read in the same statement.
 */
async function spendNonce(deps: Deps, on: Db, signed: Signed, probe?: Probe): Promise<string | null> {
  const nonce = [signed.merchant.id, signed.nonce, signed.nonceExpiresAt];
  if (!probe) {
    const rows = await deps.database.raw(on, spendAloneSql, nonce, { name: true });
    if (!rows.length) throw new AppError(errno.unauthenticated, null, 'nonce replayed');
    return null;
  }
  const key = `${probe.params.length}\n${probe.text}`;
  let text = spendWithProbeSql.get(key);
  if (!text) {
    text = `with spent as (${spendSql(probe.params.length + 1)})
      select (select count(*) from spent), (${probe.text})`;
    spendWithProbeSql.set(key, text);
  }
  const [row] = await deps.database.raw(on, text, [...probe.params, ...nonce], { name: true });
  if (row?.[0] !== '1') throw new AppError(errno.unauthenticated, null, 'nonce replayed');
  return row[1] ?? null;
}

/** Forgets nonces older than twice the signing window (a replay of those fails the timestamp check). */
export async function pruneNonces(deps: Deps): Promise<void> {
  await deps.database.db.delete(gatewayNonces).where(lt(gatewayNonces.expiresAt, deps.clock.now()));
}

/** Mounts the gateway on `app`; refuses to start when a declared gateway endpoint has no route. */
export function mountGateway(
  app: Hono<{ Variables: { requestId: string } }>,
  deps: Deps,
  routes: readonly GatewayRoute[],
) {
  const byId = new Map(routes.map((r) => [r.endpoint.id, r]));
  const missing = allGatewayEndpoints.filter((e) => !byId.has(e.id)).map((e) => e.id);
  if (missing.length) throw new Error(`gateway endpoints without a route: ${missing.join(', ')}`);

  app.get('/gateway/openapi.json', (c) => c.json(gatewayOpenApi()));
  app.get('/gateway/docs', (c) => c.html(docsPage(gatewayOpenApi())));

  for (const route of routes) {
    const ep = route.endpoint;
    app.on(ep.method, ep.path, async (c) => {
      const lang = langFrom(c.req.header('accept-language'));
      const requestId = c.get('requestId');
      // Every call whose signature holds uses up its nonce, whatever its outcome. A POST spends it as the
      // first statement of its transaction (one round trip and one commit fewer); when that transaction
      // does not commit, or the call ends before it, the nonce is spent on its own. A replayed nonce
      // answers 401 before any other refusal.
      let signed: Signed | undefined;
      let spent = false;
      const spendAlone = async () => {
        if (!signed || spent) return;
        spent = true;
        await spendNonce(deps, deps.database.db, signed);
      };
      try {
        // Read first, before the signature or JSON: counted as it streams and refused (413) past the limit.
        const rawBody = ep.method === 'GET' ? '' : await readBodyText(c.req.raw, gatewayBodyLimit);
        signed = await authenticate(deps, c, rawBody);
        const { merchant } = signed;
        if (ep.method === 'GET') await spendAlone();
        if (merchant.status !== 'active') throw new AppError(errno.forbidden, null, 'merchant frozen');
        const ip = clientIp(c, deps.config.trustProxy);
        if (route.payoutWhitelist && !ipAllowed(ip, merchant.payoutIpWhitelist))
          throw new AppError(errno.forbidden, null, `ip ${ip}`);
        let raw: unknown;
        if (ep.method === 'GET') {
          raw = Object.fromEntries(
            Object.entries(c.req.queries()).map(([k, v]) => [k, v.length === 1 ? v[0] : v]),
          );
        } else {
          if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json'))
            throw new AppError(errno.badRequest);
          try {
            raw = JSON.parse(rawBody);
          } catch {
            throw new AppError(errno.badRequest);
          }
        }
        const parsed = ep.input.safeParse(raw, { reportInput: true });
        const nul = parsed.success ? nulFields(parsed.data, lang) : [];
        if (!parsed.success || nul.length) {
          await spendAlone();
          const fields = parsed.success ? nul : fieldErrors(parsed.error.issues, lang);
          const first = fields[0];
          return envelopeAnswer(
            c,
            lang,
            errno.invalid,
            { fields },
            `${t(lang, `errno.${errno.invalid}`)}${first ? `: ${first.path}: ${first.message}` : ''}`,
          );
        }
        const after: Array<() => Promise<void> | void> = [];
        const ctx = (tx: Db, probed: string | null = null): GatewayContext<GatewayEndpoint> => ({
          merchant,
          input: parsed.data as never,
          probed,
          params: c.req.param() as Record<string, string>,
          tx,
          deps,
          req: { ip, requestId, lang, rawBody },
          afterCommit: (fn) => {
            after.push(fn);
          },
        });
        const db = deps.database.db;
        const answer =
          ep.method === 'GET'
            ? await route.run(ctx(db))
            : route.outsideTransaction
              ? await (async () => {
                  const probed = await spendNonce(deps, db, signed!, route.probe?.(merchant, parsed.data));
                  spent = true;
                  // A write that lost a race to a concurrent one runs again, without what the probe read.
                  return retrying((attempt) => route.run(ctx(db, attempt === 1 ? probed : null)));
                })()
              : await inTransaction(db, async (tx) => {
                  after.length = 0;
                  const probed = await spendNonce(deps, tx, signed!, route.probe?.(merchant, parsed.data));
                  return route.run(ctx(tx, probed));
                });
        spent = true;
        for (const fn of after) {
          Promise.resolve()
            .then(fn)
            .catch((err) =>
              deps.logger.error({ rid: requestId, err: errorForLog(err) }, 'after-commit task failed'),
            );
        }
        return jsonAnswer(
          c,
          envelope(lang, errno.ok, answer.data),
          answer.status ?? ep.status,
          answer.headers,
        );
      } catch (caught) {
        // The database is down past the retries: 503 at once (spending the nonce would wait again).
        if (isDatabaseUnavailable(caught)) {
          deps.logger.warn(
            { rid: requestId, endpoint: ep.id, err: errorForLog(caught) },
            'database unavailable',
          );
          return unavailableAnswer(c, lang);
        }
        let err = caught;
        try {
          await spendAlone();
        } catch (replayed) {
          err = replayed;
        }
        if (err instanceof AppError) return envelopeAnswer(c, lang, err.errno, err.data);
        if (isDatabaseUnavailable(err)) return unavailableAnswer(c, lang);
        deps.logger.error(
          { rid: requestId, endpoint: ep.id, err: errorForLog(err) },
          'gateway handler failed',
        );
        return envelopeAnswer(c, lang, errno.internal);
      }
    });
  }
  app.all(
    '/gateway/*',
    unmatchedAnswer([
      ...allGatewayEndpoints,
      { method: 'GET', path: '/gateway/openapi.json' },
      { method: 'GET', path: '/gateway/docs' },
    ]),
  );
}
