/**
 * The demo merchants' callbacks: where they go (this server's own receiver), what it answers, and the
 * delivery history each has by the time the seed ends, as the callback worker (server/jobs/webhooks.ts)
 * would have left it.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Hono } from 'hono';
import { type CallbackStatus, callback } from '../../contract/machines.ts';
import type { Config } from '../config.ts';
import { webhookAttempts, webhookEvents } from '../db/schema.ts';
import { chunks } from '../lib/chunks.ts';
import { minute } from './business.ts';
import type { Seed } from './seed.ts';
import type { AttemptInsert } from './writer.ts';

/** Where the demo merchants' callbacks go: this server's own sink (see `mountDemoSink`). */
export function demoCallbackUrls(config: Pick<Config, 'host' | 'port'>): { ok: string; down: string } {
  const h = config.host;
  const host = h === '0.0.0.0' || h === '::' || h === '' ? '127.0.0.1' : h.includes(':') ? `[${h}]` : h;
  const base = `http://${host}:${config.port}/demo/callback`;
  return { ok: base, down: `${base}/down` };
}

/** What the demo's callback sink answers. */
export const sinkAnswers = {
  ok: { status: 200, body: '{"ok":true}' },
  down: { status: 500, body: '{"ok":false,"error":"maintenance"}' },
} as const;

/**
 * The demo merchants' callback receiver, mounted only when the demo is on: `POST /demo/callback` answers
 * 200 (delivered), `POST /demo/callback/down` answers 500 (a merchant whose server is failing), so both
 * "pushed" and "gave up / retrying" exist and a manual push shows either outcome.
 */
export function mountDemoSink<E extends object>(app: Hono<E>): void {
  app.post('/demo/callback', (c) => c.body(sinkAnswers.ok.body, 200, { 'content-type': 'application/json' }));
  app.post('/demo/callback/down', (c) =>
    c.body(sinkAnswers.down.body, 500, { 'content-type': 'application/json' }),
  );
}

export interface CallbackOutcome {
  status: CallbackStatus;
  attempts: AttemptInsert[];
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

/**
 * The delivery history an event created at `createdAt` has by `now`, as the callback worker would have
 * written it: a healthy receiver takes the first attempt (delivered at the attempt's time); a failing one
 * is tried again `schedule[n]` seconds after the n-th attempt until the schedule runs out (`gave_up`), or
 * is still waiting for its next attempt (`pending`, with `nextAttemptAt` in the future).
 */
export function callbackHistory(
  createdAt: Date,
  healthy: boolean,
  now: Date,
  schedule: readonly number[],
  random: () => number,
): CallbackOutcome {
  const durationMs = () => 3 + Math.floor(random() * (healthy ? 60 : 25));
  let at = createdAt.getTime() + 40 + Math.floor(random() * 400);
  if (healthy) {
    const d = durationMs();
    return {
      status: callback.state.delivered,
      attempts: [
        {
          at: new Date(at),
          manual: false,
          httpStatus: sinkAnswers.ok.status,
          response: sinkAnswers.ok.body,
          durationMs: d,
        },
      ],
      nextAttemptAt: null,
      deliveredAt: new Date(at),
    };
  }
  const attempts: AttemptInsert[] = [];
  for (;;) {
    const d = durationMs();
    attempts.push({
      at: new Date(at),
      manual: false,
      httpStatus: sinkAnswers.down.status,
      response: sinkAnswers.down.body,
      durationMs: d,
    });
    const wait = schedule[attempts.length];
    if (wait === undefined)
      return { status: callback.state.gave_up, attempts, nextAttemptAt: null, deliveredAt: null };
    const next = at + wait * 1000;
    if (next > now.getTime()) {
      return { status: callback.state.pending, attempts, nextAttemptAt: new Date(next), deliveredAt: null };
    }
    at = next;
  }
}

/** The history of `seed`'s callback at `at` to `url`, as the worker would have left it by the seed's end. */
export const historyOf = (seed: Seed, at: Date, url: string): CallbackOutcome =>
  callbackHistory(at, url !== seed.urls.down, new Date(seed.now), seed.callbackSchedule, seed.rnd.random);

/**
 * The callbacks the real services queued during the seed: their history, as the worker would have left
 * it by now. Those of the last two minutes stay pending: the worker delivers them right after the start.
 */
export async function settleQueuedCallbacks(seed: Seed): Promise<void> {
  const { tx, now } = seed;
  const queued = await tx
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.status, callback.state.pending), eq(webhookEvents.attempts, 0)));
  const latest = new Map<string, (typeof queued)[number]>();
  for (const e of queued) {
    const key = `${e.orderType}:${e.orderId}`;
    const seen = latest.get(key);
    if (!seen || seen.id < e.id) latest.set(key, e);
  }
  const settled: {
    id: number;
    status: CallbackStatus;
    attempts: number;
    next: Date | null;
    delivered: Date | null;
  }[] = [];
  const attemptRows: (typeof webhookAttempts.$inferInsert)[] = [];
  const pushed: { orderType: string; orderId: number; at: Date }[] = [];
  for (const e of queued) {
    if (e.createdAt.getTime() > now - 2 * minute) continue;
    const h = historyOf(seed, e.createdAt, e.url);
    settled.push({
      id: e.id,
      status: h.status,
      attempts: h.attempts.length,
      next: h.nextAttemptAt,
      delivered: h.deliveredAt,
    });
    for (const a of h.attempts) attemptRows.push({ ...a, eventId: e.id });
    if (h.status === callback.state.delivered && latest.get(`${e.orderType}:${e.orderId}`)?.id === e.id)
      pushed.push({ orderType: e.orderType, orderId: e.orderId, at: h.deliveredAt! });
  }
  for (const chunk of chunks(attemptRows, 1000)) await tx.insert(webhookAttempts).values(chunk);
  for (let i = 0; i < settled.length; i += 500) {
    const rows = settled
      .slice(i, i + 500)
      .map(
        (s) =>
          sql`(${s.id}::bigint, ${s.status}::text, ${s.attempts}::int, ${s.next?.toISOString() ?? null}::timestamptz, ${s.delivered?.toISOString() ?? null}::timestamptz)`,
      );
    await tx.execute(sql`
      update webhook_events e set status = v.status, attempts = v.attempts, next_attempt_at = v.next,
        delivered_at = v.delivered
      from (values ${sql.join(rows, sql`, `)}) as v(id, status, attempts, next, delivered)
      where e.id = v.id`);
  }
  for (const type of ['payin', 'payout'] as const) {
    const rows = pushed
      .filter((p) => p.orderType === type)
      .map((p) => sql`(${p.orderId}::bigint, ${p.at.toISOString()}::timestamptz)`);
    if (!rows.length) continue;
    const table = type === 'payin' ? sql`payin_orders` : sql`payout_orders`;
    await tx.execute(sql`
      update ${table} o set push_status = 'pushed', callback_at = v.at
      from (values ${sql.join(rows, sql`, `)}) as v(id, at)
      where o.id = v.id`);
  }
}
