/**
 * What every part of the demo seed shares: its moment (`now`, 30 days back to `start`), the clock that
 * walks those days, the seeded generator, the bulk writer, the timeline of steps run in time order,
 * numbers unique across the seed, and the operation log's rows.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { channels, users } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { callbackSchedule } from '../jobs/webhooks.ts';
import { manualClock } from '../lib/clock.ts';
import { defaultExpiryMinutes } from '../modules/payin/creation.ts';
import { day, generator, hour, ist, minute } from './business.ts';
import { demoCallbackUrls } from './callbacks.ts';
import { BulkWriter } from './writer.ts';

/** Who an operation-log row names. */
export interface Actor {
  id: number | null;
  username: string;
  kind: 'platform' | 'merchant';
  merchantId?: number | null;
}

interface Step {
  at: number;
  n: number;
  run: () => Promise<void>;
}

export type Seed = Awaited<ReturnType<typeof openSeed>>;

export async function openSeed(deps: Deps, tx: Db, seedNumber: number) {
  const rnd = generator(seedNumber);
  const now = deps.clock.now().getTime();
  const start = now - 30 * day;
  const clock = manualClock(new Date(start));
  /** The services' deps, on the clock that walks the 30 days. */
  const walking: Deps = { ...deps, clock };
  const writer = new BulkWriter(tx);

  const [admin] = await tx.select({ id: users.id }).from(users).where(eq(users.username, 'admin'));
  const [sim] = await tx.select().from(channels).where(eq(channels.code, 'simulator'));
  if (!sim) throw new Error('demo: the simulator channel is missing');
  // What the provider charges (1.2 % a pay-in; 0.5 % + ₹5 a payout): the channel statistics' cost and margin.
  await tx
    .update(channels)
    .set({ payinCostPpm: 12_000, payoutCostPpm: 5_000, payoutCostFixed: 500 })
    .where(eq(channels.id, sim.id));

  // ---- the timeline: steps in time order, each run with the clock at its moment ----
  const steps: Step[] = [];
  const at = (t: number, run: () => Promise<void>) => {
    if (t <= now) steps.push({ at: t, n: steps.length, run });
  };
  /**
   * A call of the real services. One that posts to the ledger reads and locks the accounts in the
   * database: everything buffered is written first, and the next bulk entry reads the accounts again.
   * One that moves no money (`money: false`) needs neither.
   */
  const real = (t: number, run: () => Promise<void>, money = true) =>
    at(t, async () => {
      if (money) await writer.flush();
      try {
        await run();
      } finally {
        if (money) writer.stale();
      }
    });
  const run = async () => {
    steps.sort((x, y) => x.at - y.at || x.n - y.n);
    for (const s of steps) {
      clock.set(new Date(s.at));
      await s.run();
    }
    await writer.flush();
    clock.set(new Date(now));
  };

  // ---- numbers that must be unique across the seed ----
  const takenNos = new Set<string>();
  const uniqueNo = (make: () => string) => {
    for (;;) {
      const no = make();
      if (!takenNos.has(no)) {
        takenNos.add(no);
        return no;
      }
    }
  };

  const adminWho: Actor = { id: admin?.id ?? null, username: 'admin', kind: 'platform' };

  return {
    tx,
    rnd,
    now,
    start,
    /** Midnight of today in India. */
    todayIst: Math.floor((now + ist) / day) * day - ist,
    clock,
    deps: walking,
    /** The payout hand-over runs its own short transactions on `database.db`: here, savepoints of the seed's. */
    depsInSeed: { ...walking, database: { ...deps.database, db: tx } },
    urls: demoCallbackUrls(deps.config),
    writer,
    callbackSchedule: await callbackSchedule(tx),
    expiryMs: defaultExpiryMinutes * minute,
    admin: adminWho,
    sim,
    /** What the first-start banner and the log tell. */
    counts: { transfers: 0, realPayins: 0, realPayouts: 0 },

    at,
    real,
    run,
    /** A moment of the day that begins at `dayStart`, its hour drawn by `weights` (one per hour). */
    inHours: (dayStart: number, weights: readonly number[]) =>
      dayStart + rnd.weighted(weights) * hour + Math.floor(rnd.random() * hour),
    later: (t: number, minMs: number, maxMs: number) => Math.round(t + rnd.between(minMs, maxMs)),
    /** How long a payer takes to pay. */
    payDelay: () =>
      Math.round(Math.min(20 * minute, Math.max(15_000, 75_000 * Math.exp(0.8 * rnd.normal())))),
    /** The next moment in office hours (IST 09:30–19:30) at or after `t`. */
    officeHours: (t: number) => {
      const h = ((t + ist) % day) / hour;
      if (h >= 9.5 && h < 19.5) return t;
      const dayStart = Math.floor((t + ist) / day) * day - ist + (h >= 19.5 ? day : 0);
      return dayStart + 9.5 * hour + Math.floor(rnd.random() * 3 * hour);
    },

    takenNos,
    uniqueNo,
    newUtr: () => uniqueNo(() => rnd.digits(12)),
    /** A channel order id as the simulator adapter makes them: prefix, time in base 36, 8 hex digits. */
    simId: (prefix: string, t: number) =>
      `${prefix}${Math.floor(t).toString(36).toUpperCase()}${randomBytes(4).toString('hex').toUpperCase()}`,
    /** `yymmdd` of the Indian day of `t`. */
    istDay: (t: number) => {
      const x = new Date(t + ist);
      return `${String(x.getUTCFullYear() % 100).padStart(2, '0')}${String(x.getUTCMonth() + 1).padStart(2, '0')}${String(x.getUTCDate()).padStart(2, '0')}`;
    },

    /** An operation-log row, as the admin API would have written it for this action. */
    opLog: (
      t: number,
      who: Actor,
      action: string,
      target: string,
      detail: Record<string, unknown> | null = null,
    ) =>
      writer.log({
        at: new Date(t),
        userId: who.id,
        username: who.username,
        userKind: who.kind,
        merchantId: who.merchantId ?? null,
        ip: who.kind === 'platform' ? '10.20.0.15' : '203.0.113.200',
        requestId: randomUUID(),
        action,
        target,
        outcome: 'ok',
        errno: 0,
        detail,
      }),
  };
}
