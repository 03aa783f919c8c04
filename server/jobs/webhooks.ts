/**
 * Merchant callbacks (Standard Webhooks). An event is queued in the same transaction as the state
 * change that causes it, so it never fires for a rolled-back change and survives a restart; a worker
 * delivers due events on the schedule of the `callback_schedule` parameter and records every attempt.
 * Deliveries go through `postOutbound`, which refuses internal addresses (SSRF) and caps the reply; a
 * receiver's 410 Gone ends the event and its `Retry-After` can lengthen (never shorten) the wait.
 */
import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import type { CallbackType } from '../../contract/gateway.ts';
import { type CallbackStatus, callback } from '../../contract/machines.ts';
import { parameterDefs } from '../../contract/parameters.ts';
import { privateCallbacksAllowed } from '../config.ts';
import { type Db, inTransaction, isDatabaseUnavailable, retrying } from '../db/index.ts';
import { merchants, payinOrders, payoutOrders, webhookAttempts, webhookEvents } from '../db/schema.ts';
import { guardStates, inStates } from '../db/states.ts';
import type { Deps } from '../deps.ts';
import { randomToken } from '../lib/crypto.ts';
import { FeedKept } from '../lib/feedKept.ts';
import { errorForLog } from '../lib/logger.ts';
import { postOutbound, RefusedTarget, urlForLog } from '../lib/outbound.ts';
import { keptParameter, readParameter } from '../lib/parameters.ts';
import { alertCallbackGaveUp } from '../modules/telegram/service.ts';

/** Seconds to wait after each failed attempt (Standard Webhooks' example): 10 attempts over about 3 days. */
export const defaultSchedule: readonly number[] = parameterDefs.callback_schedule.default;
const attemptTimeoutMs = 15_000;
/** A claimed event is retried by another worker if this one dies mid-delivery. */
export const claimMs = 60_000;

type Event = typeof webhookEvents.$inferSelect;

/** The events the schedule still works on: where a failed attempt is rescheduled or gives up. */
const scheduled = callback.from('reschedule');
/** Where an attempt's outcome leaves its event (both actions lead somewhere). */
const into = (action: 'deliver' | 'giveUp'): CallbackStatus => callback.to(action)!;

export async function callbackSchedule(db: Db): Promise<number[]> {
  return readParameter(db, 'callback_schedule');
}

/** What a callback is about (`webhook_events.order_type`): an order, or a settlement application. */
export type CallbackObject = 'payin' | 'payout' | 'settlement' | 'refund' | 'dispute';

/** An order's callbacks with every delivery attempt, oldest first, as the order's detail shows them. */
export async function callbacksOf(tx: Db, orderType: CallbackObject, orderId: number) {
  const events = await tx
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.orderType, orderType), eq(webhookEvents.orderId, orderId)))
    .orderBy(asc(webhookEvents.id));
  const attempts = events.length
    ? await tx
        .select()
        .from(webhookAttempts)
        .where(
          inArray(
            webhookAttempts.eventId,
            events.map((e) => e.id),
          ),
        )
        .orderBy(asc(webhookAttempts.at), asc(webhookAttempts.id))
    : [];
  return events.map((e) => ({
    messageId: e.messageId,
    type: e.type,
    url: e.url,
    status: e.status,
    attempts: attempts
      .filter((a) => a.eventId === e.id)
      .map((a) => ({
        at: a.at.toISOString(),
        manual: a.manual,
        httpStatus: a.httpStatus,
        response: a.response,
        durationMs: a.durationMs,
      })),
    nextAttemptAt: e.nextAttemptAt?.toISOString() ?? null,
  }));
}

/** A callback to queue: an order's state change (`enqueueCallback`). */
export interface CallbackEvent {
  merchantId: number;
  orderType: CallbackObject;
  orderId: number;
  type: CallbackType;
  url: string;
  data: unknown;
  /** The occurrence of this type for the order (a retried payout's second failure is round 2). */
  round?: number;
}

/**
 * Queues the callback for an order's state change, in the caller's transaction. One event per
 * (order, type, round): a duplicate notification queues nothing new.
 */
export async function enqueueCallback(deps: Pick<Deps, 'clock'>, tx: Db, e: CallbackEvent): Promise<void> {
  await enqueueCallbacks(deps, tx, [e]);
}

/** Queues many callbacks as `enqueueCallback` would each, in one insert (a statement import's batch). */
export async function enqueueCallbacks(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  events: readonly CallbackEvent[],
): Promise<void> {
  const rows = events
    .filter((e) => e.url)
    .map((e) => ({
      message_id: `msg_${randomToken(18)}`,
      merchant_id: e.merchantId,
      order_type: e.orderType,
      order_id: e.orderId,
      type: e.type,
      round: e.round ?? 1,
      url: e.url,
      payload: { type: e.type, data: e.data },
    }));
  if (!rows.length) return;
  const now = deps.clock.now().toISOString();
  // One JSON parameter: an import's hundreds of events built by the query builder cost more than the insert.
  await tx.execute(sql`
    insert into ${webhookEvents} (message_id, merchant_id, order_type, order_id, type, round, url, payload,
      next_attempt_at, created_at)
    select v.*, ${now}::timestamptz, ${now}::timestamptz
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as v(message_id text, merchant_id int, order_type text, order_id bigint, type text, round int, url text,
        payload jsonb)
    on conflict do nothing`);
}

export interface AttemptResult {
  at: Date;
  ok: boolean;
  httpStatus: number | null;
  response: string;
  durationMs: number;
  /** How long the receiver asked us to wait (`Retry-After` on 429 or 503), capped; null if it did not. */
  retryAfterMs: number | null;
}

/** The longest wait a receiver's `Retry-After` can impose: beyond it the schedule (or a person) decides. */
const maxRetryAfterMs = 24 * 3600_000;

/** `Retry-After` as delay-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: Date): number | null {
  const v = value?.trim();
  if (!v) return null;
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v) - now.getTime();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), maxRetryAfterMs) : null;
}

/** One signed POST of an event; redirects are not followed and anything but 2xx is a failure. */
async function send(deps: Deps, event: Event, secret: string): Promise<AttemptResult> {
  const at = deps.clock.now();
  const body = JSON.stringify(event.payload);
  const signature = new Webhook(secret).sign(event.messageId, at, body);
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    const res = await postOutbound(event.url, {
      body,
      timeoutMs: attemptTimeoutMs,
      // 500 characters of the reply are kept: 2 KB holds them in any UTF-8.
      maxReplyBytes: 2048,
      allowPrivate: privateCallbacksAllowed(deps.config, deps.database.engine),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Paygate-Webhooks/1',
        'webhook-id': event.messageId,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signature,
      },
    });
    const header = res.headers['retry-after'];
    return {
      at,
      ok: res.status >= 200 && res.status < 300,
      httpStatus: res.status,
      response: res.body.slice(0, 500),
      durationMs: took(),
      retryAfterMs: res.status === 429 || res.status === 503 ? retryAfterMs(header, at) : null,
    };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if (err instanceof RefusedTarget)
      deps.logger.warn({ event: event.messageId, url: urlForLog(event.url), reason }, 'callback refused');
    return {
      at,
      ok: false,
      httpStatus: null,
      response: reason.slice(0, 500),
      durationMs: took(),
      retryAfterMs: null,
    };
  }
}

/** Merchants' webhook secrets, unsealed, while the change feed shows no change to a merchant. */
const secrets = new FeedKept<number, string>(10_000);

async function secretOf(deps: Deps, merchantId: number): Promise<string> {
  const hit = secrets.get(deps.database, merchantId);
  if (hit) return hit;
  const read = secrets.mark(deps.database);
  const [m] = await deps.database.db
    .select({ s: merchants.webhookSecret })
    .from(merchants)
    .where(eq(merchants.id, merchantId));
  const secret = deps.sealer.open(m!.s);
  secrets.keep(deps.database, merchantId, secret, read);
  return secret;
}

/**
 * A delivered callback in one statement (most attempts are): the attempt recorded, the event delivered,
 * and its order marked pushed (orders show whether their merchant heard of them; a settlement's,
 * refund's or dispute's callbacks are their own record, their ids are not orders' ids).
 */
async function recordDelivered(
  deps: Deps,
  event: Event,
  result: AttemptResult,
  opts: { manual: boolean; userId?: number | null },
) {
  const at = result.at.toISOString();
  const order =
    event.orderType === 'payin' ? payinOrders : event.orderType === 'payout' ? payoutOrders : undefined;
  await retrying(() =>
    deps.database.db.execute(sql`
      with attempt as (
        insert into ${webhookAttempts} (event_id, at, manual, http_status, response, duration_ms, user_id)
        values (${event.id}, ${at}::timestamptz, ${opts.manual}, ${result.httpStatus}::int, ${result.response},
          ${result.durationMs}::int, ${opts.userId ?? null}::int)
      ), delivered as (
        update ${webhookEvents} set status = ${into('deliver')}, delivered_at = ${at}::timestamptz,
          next_attempt_at = null, locked_until = null, attempts = attempts + 1
        where id = ${event.id}
      )
      ${
        order
          ? sql`update ${order} set push_status = 'pushed', callback_at = ${at}::timestamptz where id = ${event.orderId}`
          : sql`select 1`
      }`),
  );
}

/** Records an attempt and moves the event on: delivered, next attempt scheduled, or given up. */
async function settle(
  deps: Deps,
  event: Event,
  result: AttemptResult,
  opts: { manual: boolean; userId?: number | null },
) {
  if (result.ok) return recordDelivered(deps, event, result, opts);
  const schedule = await keptParameter(deps.database, 'callback_schedule');
  const gaveUp = await inTransaction(deps.database.db, async (tx) => {
    await tx.insert(webhookAttempts).values({
      eventId: event.id,
      at: result.at,
      manual: opts.manual,
      httpStatus: result.httpStatus,
      response: result.response,
      durationMs: result.durationMs,
      userId: opts.userId ?? null,
    });
    // 410 Gone: the receiver says the endpoint no longer exists, so retrying is pointless.
    const gone = result.httpStatus === 410;
    if (opts.manual) {
      // A failed manual push leaves the automatic schedule as it was, unless the endpoint is gone.
      await tx
        .update(webhookEvents)
        .set({ attempts: sql`${webhookEvents.attempts} + 1` })
        .where(eq(webhookEvents.id, event.id));
      if (!gone) return false;
      const stopped = await tx
        .update(webhookEvents)
        .set({ status: into('giveUp'), nextAttemptAt: null })
        .where(
          and(eq(webhookEvents.id, event.id), guardStates(webhookEvents.status, callback.from('giveUp'))),
        )
        .returning({ id: webhookEvents.id });
      if (stopped.length) await alertCallbackGaveUp(deps, tx, event, event.attempts + 1, result.httpStatus);
      return stopped.length > 0;
    }
    const done = event.attempts + 1;
    const next = gone ? undefined : schedule[done];
    // A receiver may ask for a longer wait than the schedule's, never a shorter one.
    const waitMs = next === undefined ? 0 : Math.max(next * 1000, result.retryAfterMs ?? 0);
    await tx
      .update(webhookEvents)
      .set({
        attempts: done,
        lockedUntil: null,
        ...(next === undefined
          ? { status: into('giveUp'), nextAttemptAt: null }
          : { nextAttemptAt: new Date(result.at.getTime() + waitMs) }),
      })
      .where(eq(webhookEvents.id, event.id));
    if (next === undefined) await alertCallbackGaveUp(deps, tx, event, done, result.httpStatus);
    return next === undefined;
  });
  if (gaveUp)
    deps.logger.warn(
      { event: event.messageId, url: urlForLog(event.url), httpStatus: result.httpStatus },
      'callback gave up',
    );
}

/** Claims the due events (skipping those another worker holds) and delivers them; answers how many. */
export async function deliverDue(deps: Deps, limit = 20): Promise<number> {
  const now = deps.clock.now();
  const claimed = await inTransaction(deps.database.db, async (tx) => {
    const due = await tx
      .select({ id: webhookEvents.id })
      .from(webhookEvents)
      .where(
        and(
          inStates(webhookEvents.status, scheduled),
          lte(webhookEvents.nextAttemptAt, now),
          or(isNull(webhookEvents.lockedUntil), lte(webhookEvents.lockedUntil, now)),
        ),
      )
      .orderBy(asc(webhookEvents.nextAttemptAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    if (!due.length) return [];
    return tx
      .update(webhookEvents)
      .set({ lockedUntil: new Date(now.getTime() + claimMs) })
      .where(
        inArray(
          webhookEvents.id,
          due.map((d) => d.id),
        ),
      )
      .returning();
  });
  await Promise.all(
    claimed.map(async (event) => {
      const result = await send(deps, event, await secretOf(deps, event.merchantId));
      await settle(deps, event, result, { manual: false });
    }),
  );
  return claimed.length;
}

/** A manual re-push of an order's latest event, now, whatever its schedule says. */
export async function pushNow(
  deps: Deps,
  orderType: 'payin' | 'payout',
  orderId: number,
  userId: number | null,
) {
  const [event] = await deps.database.db
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.orderType, orderType), eq(webhookEvents.orderId, orderId)))
    .orderBy(sql`${webhookEvents.id} desc`)
    .limit(1);
  if (!event) return null;
  const result = await send(deps, event, await secretOf(deps, event.merchantId));
  await settle(deps, event, result, { manual: true, userId });
  return result;
}

/** Wake-up calls of the running workers, so a handler can say "a callback was queued" after its commit. */
const wakers = new Set<() => void>();

/** Wakes every running worker of this process (after a commit that queued callbacks). */
export function wakeWebhookWorkers(): void {
  for (const wake of wakers) wake();
}

/** The background worker: delivers due events, wakes early when a new event is queued. */
export function startWebhookWorker(deps: Deps, opts: { pollMs?: number } = {}) {
  let stopped = false;
  let woken = false;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    woken = true;
    wake?.();
  };
  wakers.add(wakeUp);
  const loop = async () => {
    while (!stopped) {
      woken = false;
      try {
        while (!stopped && (await deliverDue(deps)) > 0) {}
      } catch (err) {
        // The database restarting or failing over: the next poll delivers what is due.
        if (isDatabaseUnavailable(err))
          deps.logger.warn({ err: errorForLog(err) }, 'webhook worker: database unavailable');
        else deps.logger.error({ err: errorForLog(err) }, 'webhook worker');
      }
      // A wake-up (or stop) that came while delivering must not wait for the next poll.
      if (stopped || woken) continue;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, opts.pollMs ?? 1000);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wake = undefined;
    }
  };
  const running = loop();
  return {
    wake: wakeUp,
    async stop() {
      stopped = true;
      wakers.delete(wakeUp);
      wake?.();
      await running;
    },
  };
}
