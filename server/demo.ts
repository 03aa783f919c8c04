/**
 * The demo workspace (first start with the embedded database, or DEMO=1): an agent, three merchants with
 * their owners, recharges, wallet transfers, and about 30 days of pay-ins and payouts in every state, so
 * a newcomer signs in to a business that looks alive.
 *
 * Everything happens in one transaction on an empty workspace (no merchant yet): the seed is all or
 * nothing, and a second start finds the merchants and does nothing. Time is a copy of the deps whose
 * clock walks the 30 days step by step, so every created, paid and completed time is where a live
 * system would have written it.
 *
 * A representative part of the orders (every special case, the last hours, and a sample of the rest)
 * goes through the real services: `createPayin`, the simulator's settlement, expiry, supplement and
 * forced supplement transitions, `createPayout`, `submitPayout`, `completePayout`, `retryPayout`,
 * `failCreation`. The bulk of ordinary orders is written by `BulkWriter` in batched inserts that keep
 * the same invariants (see server/demo/writer.ts). Callback history is written as the worker would have
 * left it: delivered, given up, or still retrying on the schedule, plus a few from the last minutes that
 * the worker delivers right after the start.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Hono } from 'hono';
import { endpoints } from '../contract/index.ts';
import { feeOf, formatMinor } from '../contract/money.ts';
import type { Config } from './config.ts';
import { type Db, inTransaction } from './db/index.ts';
import {
  agents,
  channels,
  merchants,
  payinOrders,
  payoutOrders,
  recharges,
  users,
  webhookAttempts,
  webhookEvents,
} from './db/schema.ts';
import {
  banks,
  day,
  demoAgent,
  demoMerchantSpecs,
  demoUsernames,
  firstNames,
  forceReasons,
  generator,
  hour,
  ist,
  lastNames,
  type MerchantSpec,
  manualFailReasons,
  minute,
  payinHours,
  payoutHours,
  rupees,
  vendors,
  weekdayFactor,
} from './demo/business.ts';
import {
  type BulkEntry,
  BulkWriter,
  type CallbackOutcome,
  callbackHistory,
  type Pending,
  type Ref,
  sinkAnswers,
} from './demo/writer.ts';
import type { Deps } from './deps.ts';
import { callbackSchedule } from './jobs/webhooks.ts';
import { agentAccount, ensureAccounts, merchantAccount, platformAccount } from './ledger/index.ts';
import { manualClock } from './lib/clock.ts';
import { randomToken } from './lib/crypto.ts';
import { businessTimeZoneOf, rebuildOrderStats } from './modules/dashboard/stats.ts';
import { createMerchant } from './modules/merchant/service.ts';
import {
  createPayin,
  defaultExpiryMinutes,
  newOrderNo,
  type PayinRequest,
  paymentLines,
  publicUrl,
  requestHash,
  transition,
  withUtrGuard,
} from './modules/payin/service.ts';
import { settleSimulatorPayin } from './modules/payin/simulator.ts';
import { findPayment, orderUsingUtr } from './modules/payin/utr.ts';
import { gatewayView, type PayinOrder } from './modules/payin/views.ts';
import {
  completePayout,
  createPayout,
  failCreation,
  gatewayViewOf,
  newPayoutOrderNo,
  type PayoutOrder,
  type PayoutRequest,
  payoutRefType,
  payoutRequestHash,
  retryPayout,
  submitPayout,
} from './modules/payout/service.ts';
import { settleSimulatorPayout } from './modules/payout/simulator.ts';

// ---- switches and the sink ------------------------------------------------------------------------

/** Where the demo merchants' callbacks go: this server's own sink (see `mountDemoSink`). */
export function demoCallbackUrls(config: Pick<Config, 'host' | 'port'>): { ok: string; down: string } {
  const h = config.host;
  const host = h === '0.0.0.0' || h === '::' || h === '' ? '127.0.0.1' : h.includes(':') ? `[${h}]` : h;
  const base = `http://${host}:${config.port}/demo/callback`;
  return { ok: base, down: `${base}/down` };
}

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

// ---- what is seeded -------------------------------------------------------------------------------

export { demoAgent, demoMerchantSpecs, demoUsernames };

export interface DemoAccount {
  merchant: string;
  name: string;
  username: string;
  password: string;
  /** What is particular about this merchant, for the first-start banner. */
  note: string;
}

export interface DemoSeed {
  accounts: DemoAccount[];
  /** Payments the simulator recorded whose callback was lost: try UTR check, then Supplement. */
  lostCallbacks: { merchant: string; orderNo: string; utr: string; status: string }[];
  counts: {
    payins: Record<string, number>;
    payouts: Record<string, number>;
    recharges: Record<string, number>;
    transfers: number;
    callbacks: Record<string, number>;
    realPayins: number;
    realPayouts: number;
  };
  ms: number;
}

// ---- the seed -------------------------------------------------------------------------------------

interface MerchantState {
  spec: MerchantSpec;
  row: typeof merchants.$inferSelect;
  ownerId: number;
  healthyUntil: number;
  beneficiaries: { accountName: string; accountNumber: string; ifsc: string }[];
  payinSeq: number;
  payoutSeq: number;
}

type PayinKind =
  | 'paid'
  | 'failed'
  | 'unpaid'
  | 'creationFailed'
  | 'pending'
  | 'lostSupplement'
  | 'lostOpen'
  | 'forceFromFailed'
  | 'forceFromUnpaid';

interface Arrival {
  m: MerchantState;
  t: number;
  amount: number;
  kind: PayinKind;
  real: boolean;
  payer: PayinRequest['payer'];
}

type PayoutKind =
  | 'success'
  | 'failed'
  | 'processing'
  | 'queued'
  | 'manualSuccess'
  | 'manualFailed'
  | 'creationFailed'
  | 'retrySuccess'
  | 'retryFailedAgain'
  | 'retryQueued';

interface PayoutPlan {
  m: MerchantState;
  t: number;
  amount: number;
  kind: PayoutKind;
  real: boolean;
  source: 'api' | 'console' | 'bulk';
  file?: { name: string; row: number };
}

interface Step {
  at: number;
  n: number;
  run: () => Promise<void>;
}

/**
 * Seeds the demo workspace if the workspace is empty (no merchant, none of the demo usernames); answers
 * what it made, or null when there was something already. One transaction: all or nothing.
 */
export async function seedDemo(deps: Deps, opts: { seed?: number } = {}): Promise<DemoSeed | null> {
  const started = performance.now();
  const result = await inTransaction(deps.database.db, async (tx) => {
    const [anyMerchant] = await tx.select({ id: merchants.id }).from(merchants).limit(1);
    if (anyMerchant) return null;
    const [taken] = await tx
      .select({ id: users.id })
      .from(users)
      .where(inArray(users.username, demoUsernames))
      .limit(1);
    if (taken) return null;
    const seeded = await seedInto(deps, tx as unknown as Db, opts.seed ?? 20_260_105);
    // Most orders were written in bulk past the services: the order stats are made from them once.
    await rebuildOrderStats(tx as unknown as Db, businessTimeZoneOf(deps.config));
    return seeded;
  });
  if (!result) return null;
  result.ms = Math.round(performance.now() - started);
  deps.logger.info(
    {
      ms: result.ms,
      payins: Object.values(result.counts.payins).reduce((s, n) => s + n, 0),
      payouts: Object.values(result.counts.payouts).reduce((s, n) => s + n, 0),
    },
    'demo workspace seeded',
  );
  return result;
}

async function seedInto(deps: Deps, tx: Db, seed: number): Promise<DemoSeed> {
  const rnd = generator(seed);
  const now = deps.clock.now().getTime();
  const start = now - 30 * day;
  const clock = manualClock(new Date(start));
  const d: Deps = { ...deps, clock };
  // The payout hand-over runs its own short transactions on `database.db`: here, savepoints of the seed's.
  const inSeed: Deps = { ...d, database: { ...deps.database, db: tx } };
  const urls = demoCallbackUrls(deps.config);
  const w = new BulkWriter(tx);
  const schedule = await callbackSchedule(tx);
  const expiryMs = defaultExpiryMinutes * minute;

  const [admin] = await tx.select({ id: users.id }).from(users).where(eq(users.username, 'admin'));
  const adminId = admin?.id ?? null;
  const [sim] = await tx.select().from(channels).where(eq(channels.code, 'simulator'));
  if (!sim) throw new Error('demo: the simulator channel is missing');

  const opLog = (
    at: number,
    who: { id: number | null; username: string; kind: 'platform' | 'merchant'; merchantId?: number | null },
    action: string,
    target: string,
    detail: Record<string, unknown> | null = null,
  ) =>
    w.log({
      at: new Date(at),
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
    });
  const adminWho = { id: adminId, username: 'admin', kind: 'platform' as const };
  const ownerWho = (m: MerchantState) => ({
    id: m.ownerId,
    username: m.spec.owner.username,
    kind: 'merchant' as const,
    merchantId: m.row.id,
  });

  // ---- the agent and the merchants, through the real services ----
  const [agent] = await tx
    .insert(agents)
    .values({
      code: demoAgent.code,
      name: demoAgent.name,
      commissionPpm: demoAgent.commissionPpm,
      createdAt: new Date(start - 2 * day),
      updatedAt: new Date(start - 2 * day),
    })
    .returning();
  await ensureAccounts(tx, [agentAccount(agent!.id, 'INR')]);
  opLog(start - 2 * day, adminWho, endpoints.agent.create.id, `agent:${agent!.id}`, {
    changes: { agentCode: { before: null, after: demoAgent.code } },
  });

  const ms: MerchantState[] = [];
  for (const [i, spec] of demoMerchantSpecs.entries()) {
    const createdAt = start - 2 * day + (i + 1) * hour;
    clock.set(new Date(createdAt));
    const made = await createMerchant(d, tx, {
      ...spec.terms,
      code: spec.code,
      name: spec.name,
      owner: spec.owner,
      agentId: spec.withAgent ? agent!.id : null,
      callbackUrl: urls.ok,
      // A merchant routes only where it is told: the demo's through the simulator.
      channels: [{ channelId: sim.id, weight: sim.weight }],
    });
    // The service stamps database time; the demo business started before the 30 days it shows.
    await tx
      .update(merchants)
      .set({ createdAt: new Date(createdAt), updatedAt: new Date(createdAt) })
      .where(eq(merchants.id, made.merchant.id));
    await tx
      .update(users)
      .set({ createdAt: new Date(createdAt), updatedAt: new Date(createdAt) })
      .where(eq(users.merchantId, made.merchant.id));
    opLog(createdAt, adminWho, endpoints.merchant.create.id, `merchant:${made.merchant.id}`, {
      changes: { code: { before: null, after: spec.code }, name: { before: null, after: spec.name } },
    });
    const beneficiaries = Array.from({ length: 24 }, (_, k) => ({
      accountName: k < 8 ? rnd.pick(vendors) : `${rnd.pick(firstNames)} ${rnd.pick(lastNames)}`,
      accountNumber: rnd.digits(9 + Math.floor(rnd.random() * 8)),
      ifsc: `${rnd.pick(banks)}0${rnd.digits(6)}`,
    }));
    ms.push({
      spec,
      row: { ...made.merchant, createdAt: new Date(createdAt), updatedAt: new Date(createdAt) },
      ownerId: made.ownerId,
      healthyUntil: spec.callbacksDownDays ? now - spec.callbacksDownDays * day + 2 * hour : Infinity,
      beneficiaries,
      payinSeq: 0,
      payoutSeq: 0,
    });
  }
  const byCode = new Map(ms.map((m) => [m.spec.code, m]));

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
  const newUtr = () => uniqueNo(() => rnd.digits(12));
  /** A channel order id as the simulator adapter makes them: prefix, time in base 36, 8 hex digits. */
  const simId = (prefix: string, at: number) =>
    `${prefix}${Math.floor(at).toString(36).toUpperCase()}${randomBytes(4).toString('hex').toUpperCase()}`;
  const istDay = (t: number) => {
    const x = new Date(t + ist);
    return `${String(x.getUTCFullYear() % 100).padStart(2, '0')}${String(x.getUTCMonth() + 1).padStart(2, '0')}${String(x.getUTCDate()).padStart(2, '0')}`;
  };
  const merchantOrderNoOf = (m: MerchantState, t: number) => {
    m.payinSeq++;
    if (m.spec.code === 'M10001') return `ORD${istDay(t)}${String(m.payinSeq).padStart(5, '0')}`;
    if (m.spec.code === 'M10002') return `BE${String(4_200_000 + m.payinSeq)}`;
    return `mm_${t.toString(36)}${m.payinSeq.toString(36)}`;
  };
  const payoutOrderNoOf = (m: MerchantState, t: number) => {
    m.payoutSeq++;
    if (m.spec.code === 'M10001') return `WD${istDay(t)}${String(m.payoutSeq).padStart(4, '0')}`;
    if (m.spec.code === 'M10002') return `BEPO${String(90_000 + m.payoutSeq)}`;
    return `mmpay_${m.payoutSeq}`;
  };
  const notifyUrlAt = (m: MerchantState, t: number) => (t < m.healthyUntil ? urls.ok : urls.down);

  // ---- the plan: when things happen, drawn from the seeded generator ----
  const todayIst = Math.floor((now + ist) / day) * day - ist;
  const inHours = (dayStart: number, weights: readonly number[]) =>
    dayStart + rnd.weighted(weights) * hour + Math.floor(rnd.random() * hour);

  const payinAmount = (m: MerchantState) => {
    const { median, sigma, points } = m.spec.payin;
    let a: number;
    const x0 = rnd.random();
    if (x0 < 0.025) {
      // The few large ones: between ten times the usual and most of the merchant's limit.
      const lo = Math.log(median * 10);
      const hi = Math.log(m.row.maxAmount * 0.8);
      a = Math.round(Math.exp(lo + rnd.random() * Math.max(0, hi - lo)) / 10_000) * 10_000;
    } else if (x0 < 0.36) a = rnd.pick(points);
    else {
      const x = median * Math.exp(sigma * rnd.normal());
      a = x < rupees(1_000) ? Math.round(x / 100) * 100 : Math.round(x / 1_000) * 1_000;
      if (rnd.random() < 0.1) a += Math.floor(rnd.random() * 100);
    }
    return Math.min(Math.max(a, m.row.minAmount), m.row.maxAmount);
  };
  const payer = (): PayinRequest['payer'] => {
    if (rnd.random() < 0.3) return undefined;
    const first = rnd.pick(firstNames);
    const last = rnd.pick(lastNames);
    return {
      name: `${first} ${last}`,
      email: `${first.toLowerCase()}.${last.toLowerCase()}${Math.floor(rnd.random() * 90 + 10)}@example.in`,
      phone: `+91${rnd.pick(['9', '8', '7'])}${rnd.digits(9)}`,
    };
  };

  const arrivals: Arrival[] = [];
  for (const m of ms) {
    for (let k = 30; k >= 0; k--) {
      const dayStart = todayIst - k * day;
      const weekday = new Date(dayStart + ist).getUTCDay();
      const trend = 0.85 + (0.15 * (30 - k)) / 30;
      const n = Math.round(m.spec.payinsPerDay * weekdayFactor[weekday]! * trend * rnd.between(0.85, 1.15));
      for (let i = 0; i < n; i++) {
        const t = inHours(dayStart, payinHours);
        if (t < start || t > now - 20_000) continue;
        arrivals.push({ m, t, amount: payinAmount(m), kind: 'paid', real: false, payer: payer() });
      }
    }
  }
  // A few that are certainly waiting right now, whatever the hour: for their payer, or (the lost
  // callback) for someone to find the payment the simulator recorded.
  const explicit: [string, number, PayinKind][] = [
    ['M10001', 2, 'pending'],
    ['M10001', 6, 'pending'],
    ['M10001', 14, 'pending'],
    ['M10001', 11, 'lostOpen'],
    ['M10002', 9, 'pending'],
    ['M10003', 4, 'pending'],
  ];
  for (const [code, agoMin, kind] of explicit) {
    const m = byCode.get(code)!;
    const t = now - agoMin * minute - Math.floor(rnd.random() * 50_000);
    arrivals.push({ m, t, amount: payinAmount(m), kind, real: true, payer: payer() });
  }
  arrivals.sort((a, b) => a.t - b.t);

  // Outcomes: recent orders may still be waiting; older ones paid, expired, failed, rarely refused.
  for (const a of arrivals) {
    if (a.real) continue;
    const age = now - a.t;
    const x = rnd.random();
    if (age < expiryMs + 5 * minute) {
      a.real = true;
      a.kind = x < 0.6 ? 'paid' : x < 0.66 ? 'failed' : 'pending';
    } else {
      a.kind = x < 0.81 ? 'paid' : x < 0.935 ? 'unpaid' : x < 0.995 ? 'failed' : 'creationFailed';
      a.real = a.kind !== 'creationFailed' && (age < 3 * hour || rnd.random() < 0.05);
    }
  }
  // The special cases, all through the real services.
  const ordinary = (a: Arrival, minAge: number, maxAge = Infinity) =>
    (a.kind === 'paid' || a.kind === 'unpaid' || a.kind === 'failed') &&
    now - a.t >= minAge &&
    now - a.t <= maxAge;
  const choose = (pred: (a: Arrival) => boolean, count: number, kinds: PayinKind[]) => {
    const pool = arrivals.filter(pred);
    for (let i = 0; i < count && pool.length; i++) {
      const a = pool.splice(Math.floor(rnd.random() * pool.length), 1)[0]!;
      a.kind = kinds[i % kinds.length]!;
      a.real = true;
    }
  };
  choose((a) => ordinary(a, 30 * hour), 24, ['lostSupplement']);
  choose((a) => ordinary(a, 40 * hour), 8, ['forceFromFailed', 'forceFromUnpaid']);
  choose((a) => a.m.spec.code === 'M10001' && ordinary(a, hour, 2 * day), 4, ['lostOpen']);
  choose((a) => a.m.spec.code === 'M10003' && ordinary(a, hour, 2 * day), 1, ['lostOpen']);

  // Payouts: office hours, a weekly bulk file, a few special cases.
  const payoutAmount = (m: MerchantState) => {
    const { median, sigma, min, max } = m.spec.payout;
    const x = median * Math.exp(sigma * rnd.normal());
    const a = x < rupees(10_000) ? Math.round(x / 1_000) * 1_000 : Math.round(x / 10_000) * 10_000;
    return Math.min(Math.max(a, min, m.row.minAmount), max, m.row.maxAmount);
  };
  const payouts: PayoutPlan[] = [];
  for (const m of ms) {
    for (let k = 30; k >= 0; k--) {
      const dayStart = todayIst - k * day;
      const weekday = new Date(dayStart + ist).getUTCDay();
      const n = Math.round(m.spec.payoutsPerDay * weekdayFactor[weekday]! * rnd.between(0.6, 1.4));
      for (let i = 0; i < n; i++) {
        const t = inHours(dayStart, payoutHours);
        if (t < start + 6 * hour || t > now - 3 * minute) continue;
        payouts.push({
          m,
          t,
          amount: payoutAmount(m),
          kind: 'success',
          real: false,
          source: rnd.random() < 0.65 ? 'api' : 'console',
        });
      }
      // Fridays at six: the demo merchant uploads its weekly vendor payouts.
      if (m.spec.code === 'M10001' && weekday === 5) {
        const t = dayStart + 18 * hour + Math.floor(rnd.random() * 20 * minute);
        if (t < start + 6 * hour || t > now - hour) continue;
        const name = `vendors-${istDay(t)}.xlsx`;
        for (let row = 2; row < 10; row++) {
          payouts.push({
            m,
            t: t + row,
            amount: payoutAmount(m),
            kind: 'success',
            real: false,
            source: 'bulk',
            file: { name, row },
          });
        }
      }
    }
  }
  for (const [code, agoMin, kind] of [
    ['M10001', 25, 'processing'],
    ['M10001', 48, 'processing'],
    ['M10003', 12, 'processing'],
    ['M10002', 1.5, 'queued'],
    ['M10001', 0.7, 'queued'],
    ['M10001', 190, 'retryQueued'],
  ] as const) {
    const m = byCode.get(code)!;
    payouts.push({
      m,
      t: now - agoMin * minute - Math.floor(rnd.random() * 30_000),
      amount: payoutAmount(m),
      kind,
      real: true,
      source: 'console',
    });
  }
  payouts.sort((a, b) => a.t - b.t);
  for (const p of payouts) {
    if (p.kind !== 'success') continue;
    const age = now - p.t;
    p.kind = rnd.random() < 0.91 ? 'success' : 'failed';
    p.real = age < 6 * hour || rnd.random() < 0.12;
    if (age < 40 * minute && rnd.random() < 0.5) p.kind = 'processing';
  }
  const choosePayouts = (count: number, kinds: PayoutKind[], minAge: number) => {
    const pool = payouts.filter(
      (p) => (p.kind === 'success' || p.kind === 'failed') && p.source !== 'bulk' && now - p.t >= minAge,
    );
    for (let i = 0; i < count && pool.length; i++) {
      const p = pool.splice(Math.floor(rnd.random() * pool.length), 1)[0]!;
      p.kind = kinds[i % kinds.length]!;
      p.real = true;
    }
  };
  choosePayouts(5, ['retrySuccess'], day);
  choosePayouts(2, ['retryFailedAgain'], day);
  choosePayouts(3, ['manualSuccess'], day);
  choosePayouts(3, ['manualFailed'], day);
  choosePayouts(3, ['creationFailed'], 2 * hour);

  // ---- steps, in time order ----
  const steps: Step[] = [];
  let stepNo = 0;
  const at = (t: number, run: () => Promise<void>) => {
    if (t <= now) steps.push({ at: t, n: stepNo++, run });
  };
  /**
   * A call of the real services. One that posts to the ledger reads and locks the accounts in the
   * database: everything buffered is written first, and the in-memory accounts are read again after.
   * One that moves no money (`money: false`) needs neither.
   */
  const real = (t: number, run: () => Promise<void>, money = true) =>
    at(t, async () => {
      if (money) await w.flush();
      try {
        await run();
      } finally {
        if (money) w.stale();
      }
    });
  const later = (t: number, minMs: number, maxMs: number) => Math.round(t + rnd.between(minMs, maxMs));
  const payDelay = () =>
    Math.round(Math.min(20 * minute, Math.max(15_000, 75_000 * Math.exp(0.8 * rnd.normal()))));
  /** The next moment in office hours (IST 09:30–19:30) at or after `t`. */
  const officeHours = (t: number) => {
    const h = ((t + ist) % day) / hour;
    if (h >= 9.5 && h < 19.5) return t;
    const dayStart = Math.floor((t + ist) / day) * day - ist + (h >= 19.5 ? day : 0);
    return dayStart + 9.5 * hour + Math.floor(rnd.random() * 3 * hour);
  };

  const lost: DemoSeed['lostCallbacks'] = [];
  let realPayins = 0;
  let realPayouts = 0;

  // Recharges: the merchant submits, the platform confirms or rejects within the hour.
  for (const m of ms) {
    for (const r of m.spec.recharges) {
      const submitted =
        r.day === 0 ? now - 2 * hour : todayIst - r.day * day + 10.5 * hour + Math.floor(rnd.random() * hour);
      if (submitted < start - day) continue;
      const state: { id?: number } = {};
      at(Math.max(submitted, start), async () => {
        const [row] = await tx
          .insert(recharges)
          .values({
            merchantId: m.row.id,
            currency: m.row.currency,
            amount: r.amount,
            reference: r.reference,
            note: r.outcome === 'rejected' ? 'Top-up for the month end' : 'Payout wallet top-up',
            createdBy: m.ownerId,
            createdAt: clock.now(),
          })
          .returning({ id: recharges.id });
        state.id = row!.id;
        opLog(
          clock.now().getTime(),
          ownerWho(m),
          endpoints.merchantRechargeLog.create.id,
          `recharge:${row!.id}`,
          {
            changes: {
              amount: { before: null, after: formatMinor(r.amount) },
              reference: { before: null, after: r.reference },
            },
          },
        );
      });
      if (r.outcome === 'pending') continue;
      at(later(Math.max(submitted, start), 15 * minute, 70 * minute), async () => {
        const decidedAt = clock.now();
        if (r.outcome === 'rejected') {
          await tx
            .update(recharges)
            .set({
              status: 'rejected',
              decidedBy: adminId,
              decidedAt,
              rejectReason: 'Reference not found on the bank statement',
            })
            .where(eq(recharges.id, state.id!));
          opLog(
            decidedAt.getTime(),
            adminWho,
            endpoints.merchantRechargeLog.reject.id,
            `recharge:${state.id}`,
            {
              changes: { status: { before: 'pending', after: 'rejected' } },
            },
          );
          return;
        }
        await tx
          .update(recharges)
          .set({ status: 'confirmed', decidedBy: adminId, decidedAt })
          .where(eq(recharges.id, state.id!));
        const wallet = merchantAccount(m.row.id, 'payout_available', m.row.currency);
        const before = await w.balance(wallet);
        await w.post({
          kind: 'recharge',
          refType: 'recharge',
          ref: state.id!,
          userId: adminId,
          at: decidedAt,
          lines: [
            { account: platformAccount('settlement_clearing', m.row.currency), amount: -r.amount },
            { account: wallet, amount: r.amount },
          ],
        });
        opLog(
          decidedAt.getTime(),
          adminWho,
          endpoints.merchantRechargeLog.confirm.id,
          `recharge:${state.id}`,
          {
            merchantId: m.row.id,
            amount: formatMinor(r.amount),
            changes: {
              status: { before: 'pending', after: 'confirmed' },
              payoutAvailable: { before: formatMinor(before), after: formatMinor(before + r.amount) },
            },
          },
        );
      });
    }
  }

  // Evening wallet transfers of the D0 merchants: most of the day's collection to the payout balance.
  let transfers = 0;
  for (const m of ms.filter((x) => x.spec.transfers)) {
    for (let k = 30; k >= 1; k--) {
      const t = todayIst - k * day + 21 * hour + Math.floor(rnd.random() * 45 * minute);
      if (t < start) continue;
      at(t, async () => {
        const from = merchantAccount(m.row.id, 'collection_available', m.row.currency);
        const to = merchantAccount(m.row.id, 'payout_available', m.row.currency);
        const available = await w.balance(from);
        const amount = Math.floor((available * 0.85) / rupees(1_000)) * rupees(1_000);
        if (amount <= 0) return;
        const toBefore = await w.balance(to);
        await w.post({
          kind: 'wallet_transfer',
          refType: 'wallet_transfer',
          ref: randomUUID(),
          memo: 'collection_available → payout_available',
          userId: m.ownerId,
          at: clock.now(),
          lines: [
            { account: from, amount: -amount },
            { account: to, amount },
          ],
        });
        transfers++;
        opLog(
          clock.now().getTime(),
          ownerWho(m),
          endpoints.merchantWallet.transfer.id,
          `merchant:${m.row.id}`,
          {
            amount: formatMinor(amount),
            changes: {
              collection_available: {
                before: formatMinor(available),
                after: formatMinor(available - amount),
              },
              payout_available: { before: formatMinor(toBefore), after: formatMinor(toBefore + amount) },
            },
          },
        );
      });
    }
  }

  // Masala Mart moved its callback receiver to a server that fails.
  for (const m of ms.filter((x) => x.healthyUntil !== Infinity)) {
    at(m.healthyUntil, async () => {
      await tx
        .update(merchants)
        .set({ callbackUrl: urls.down, updatedAt: clock.now() })
        .where(eq(merchants.id, m.row.id));
      m.row = { ...m.row, callbackUrl: urls.down, updatedAt: clock.now() };
      opLog(clock.now().getTime(), ownerWho(m), endpoints.merchant.update.id, `merchant:${m.row.id}`, {
        changes: { callbackUrl: { before: urls.ok, after: urls.down } },
      });
    });
  }

  // ---- pay-ins ----
  const requestOf = (a: Arrival): PayinRequest => ({
    merchantOrderNo: merchantOrderNoOf(a.m, a.t),
    amount: a.amount,
    notifyUrl: notifyUrlAt(a.m, a.t),
    ...(a.m.spec.payin.returnUrl ? { returnUrl: a.m.spec.payin.returnUrl } : {}),
    ...(a.payer ? { payer: a.payer } : {}),
  });
  const payinMeta = (a: Arrival) => ({ source: 'api' as const, ip: a.m.spec.serverIp, lang: 'en' as const });

  for (const a of arrivals) {
    if (!a.real) {
      bulkPayin(a);
      continue;
    }
    realPayins++;
    const st: { order?: PayinOrder; utr?: string | null } = {};
    const req = requestOf(a);
    real(
      a.t,
      async () => {
        st.order = (await createPayin(d, tx, a.m.row, req, payinMeta(a))).order;
        takenNos.add(st.order.orderNo);
      },
      false,
    );
    // Only a payment the channel reports moves money; a failure or a lost callback does not.
    const settle = (t: number, result: 'success' | 'fail', notify: boolean) =>
      real(
        t,
        async () => {
          const out = await settleSimulatorPayin(d, tx, st.order!, sim, { result, notify });
          st.utr = out.utr;
          if (out.utr) takenNos.add(out.utr);
        },
        result === 'success' && notify,
      );
    const expire = (t: number) =>
      real(
        t,
        async () => {
          if (!(await transition(d, tx, st.order!.id, 'expire'))) throw new Error('demo: expiry refused');
        },
        false,
      );
    const expiresAt = a.t + expiryMs;
    const afterExpiry = () => later(expiresAt, 500, 5_000);
    switch (a.kind) {
      case 'paid':
        settle(a.t + payDelay(), 'success', true);
        break;
      case 'failed':
        settle(later(a.t, 30_000, 12 * minute), 'fail', true);
        break;
      case 'unpaid':
        expire(afterExpiry());
        break;
      case 'pending':
        break;
      case 'lostOpen': {
        settle(a.t + payDelay(), 'success', false);
        if (expiresAt < now) expire(afterExpiry());
        at(now, async () => {
          if (!st.utr) return;
          const [o] = await tx.select().from(payinOrders).where(eq(payinOrders.id, st.order!.id));
          lost.push({ merchant: a.m.spec.code, orderNo: o!.orderNo, utr: st.utr, status: o!.status });
        });
        break;
      }
      case 'lostSupplement': {
        const paidAt = a.t + payDelay();
        settle(paidAt, 'success', false);
        let supplementAt = later(paidAt, 6 * minute, 20 * minute);
        if (rnd.random() < 0.65 || supplementAt >= expiresAt) {
          expire(afterExpiry());
          supplementAt = officeHours(later(expiresAt, 40 * minute, 20 * hour));
        }
        real(supplementAt, async () => {
          const [o] = await tx.select().from(payinOrders).where(eq(payinOrders.id, st.order!.id));
          const utr = st.utr!;
          // The checks of POST /merchantOrder/supplement, with the same pieces.
          const hit = await findPayment(d, tx, utr, [sim]);
          if (!hit || hit.orderNo !== o!.orderNo || (await orderUsingUtr(tx, utr)))
            throw new Error(`demo: UTR ${utr} does not confirm ${o!.orderNo}`);
          const paid = await withUtrGuard(() =>
            transition(
              d,
              tx,
              o!.id,
              'supplement',
              { utr, paidAmount: hit.amount, paidBy: 'supplement', paidAt: clock.now() },
              adminId,
            ),
          );
          if (!paid) throw new Error('demo: supplement refused');
          opLog(
            clock.now().getTime(),
            adminWho,
            endpoints.merchantOrder.supplement.id,
            `payin:${o!.orderNo}`,
            { utr, paidAmount: null },
          );
        });
        break;
      }
      case 'forceFromFailed':
      case 'forceFromUnpaid': {
        let t: number;
        if (a.kind === 'forceFromFailed') {
          t = later(a.t, 30_000, 10 * minute);
          settle(t, 'fail', true);
        } else {
          t = afterExpiry();
          expire(t);
        }
        const forcedUtr = rnd.random() < 0.5 ? newUtr() : undefined;
        const reason = rnd.pick(forceReasons);
        real(officeHours(later(t, 3 * hour, 40 * hour)), async () => {
          const [o] = await tx.select().from(payinOrders).where(eq(payinOrders.id, st.order!.id));
          const paid = await withUtrGuard(() =>
            transition(
              d,
              tx,
              o!.id,
              'force',
              {
                utr: forcedUtr ?? o!.utr,
                paidAmount: o!.amount,
                paidBy: 'force',
                paidAt: clock.now(),
                failureReason: o!.failureReason,
              },
              adminId,
            ),
          );
          if (!paid) throw new Error('demo: forced supplement refused');
          opLog(
            clock.now().getTime(),
            adminWho,
            endpoints.merchantOrder.forceSupplement.id,
            `payin:${o!.orderNo}`,
            {
              reason,
              utr: forcedUtr ?? null,
              paidAmount: formatMinor(o!.amount),
            },
          );
        });
        break;
      }
      case 'creationFailed':
        throw new Error('demo: a refused creation is written in bulk');
    }
  }

  /** An ordinary pay-in written whole at the moment of its outcome, as the real services leave it. */
  function bulkPayin(a: Arrival) {
    const m = a.m;
    const req = requestOf(a);
    const createdAt = new Date(a.t);
    const refused = a.kind === 'creationFailed';
    const fee = Math.min(feeOf(a.amount, m.row.collectionRatePpm, m.row.platformFee), a.amount);
    const commission = m.row.agentId === null ? 0 : Math.min(feeOf(a.amount, demoAgent.commissionPpm), fee);
    const orderNo = uniqueNo(() => newOrderNo(createdAt));
    const channelOrderId = refused ? null : simId('SIMP', a.t);
    const order: PayinOrder = {
      id: 0,
      orderNo,
      merchantId: m.row.id,
      merchantOrderNo: req.merchantOrderNo,
      channelId: refused ? null : sim!.id,
      channelOrderId,
      currency: m.row.currency,
      amount: a.amount,
      paidAmount: null,
      fee,
      agentCommission: commission,
      status: refused ? 'creation_failed' : 'pending',
      pushStatus: 'unpushed',
      utr: null,
      notifyUrl: req.notifyUrl,
      returnUrl: req.returnUrl ?? null,
      payUrl: refused ? null : `${publicUrl(d)}/sim/pay/${orderNo}`,
      payer: (req.payer as Record<string, unknown> | undefined) ?? null,
      requestHash: requestHash(req),
      requestSnapshot: {
        source: 'api',
        ip: m.spec.serverIp,
        userId: null,
        request: { ...req, amount: formatMinor(req.amount) },
      },
      responseSnapshot: null,
      paidBy: null,
      failureReason: refused ? `${sim!.code}: simulator declined` : null,
      expiresAt: new Date(a.t + expiryMs),
      paidAt: null,
      callbackAt: null,
      createdAt,
      updatedAt: createdAt,
    };
    order.responseSnapshot = gatewayView(order);
    let outcomeAt: number;
    let simRow: { status: 'pending' | 'success' | 'fail'; utr: string | null; settledAt: Date | null };
    if (a.kind === 'paid') {
      outcomeAt = a.t + payDelay();
      const utr = newUtr();
      order.status = 'paid';
      order.paidAmount = a.amount;
      order.utr = utr;
      order.paidBy = 'channel';
      order.paidAt = new Date(outcomeAt);
      simRow = { status: 'success', utr, settledAt: new Date(outcomeAt) };
    } else if (a.kind === 'failed') {
      outcomeAt = later(a.t, 30_000, 12 * minute);
      order.status = 'failed';
      order.failureReason = 'the payer did not pay (simulator)';
      simRow = { status: 'fail', utr: null, settledAt: new Date(outcomeAt) };
    } else if (a.kind === 'unpaid') {
      outcomeAt = later(a.t + expiryMs, 500, 5_000);
      order.status = 'unpaid';
      simRow = { status: 'pending', utr: null, settledAt: null };
    } else {
      outcomeAt = a.t;
      simRow = { status: 'pending', utr: null, settledAt: null };
    }
    order.updatedAt = new Date(outcomeAt);
    const type =
      order.status === 'paid' ? 'payin.paid' : order.status === 'failed' ? 'payin.failed' : 'payin.unpaid';
    at(outcomeAt, async () => {
      const history = refused
        ? null
        : callbackHistory(
            new Date(outcomeAt),
            req.notifyUrl !== urls.down,
            new Date(now),
            schedule,
            rnd.random,
          );
      if (history?.status === 'delivered') {
        order.pushStatus = 'pushed';
        order.callbackAt = history.deliveredAt;
      }
      const { id: _id, ...values } = order;
      const row = w.payin(values);
      if (channelOrderId)
        w.sim({
          channelOrderId,
          kind: 'payin',
          orderNo,
          amount: a.amount,
          status: simRow.status,
          utr: simRow.utr,
          notified: simRow.status !== 'pending',
          createdAt,
          settledAt: simRow.settledAt,
        });
      if (order.status === 'paid') {
        await w.post({
          kind: 'payin_paid',
          refType: 'payin',
          ref: row,
          memo: orderNo,
          at: new Date(outcomeAt),
          lines: paymentLines(order, { settlementDays: m.row.settlementDays, agentId: m.row.agentId }),
        });
      }
      if (history)
        w.callback(
          {
            messageId: `msg_${randomToken(18)}`,
            merchantId: m.row.id,
            orderType: 'payin',
            type,
            round: 1,
            url: req.notifyUrl,
            payload: { type, data: gatewayView(order) },
            status: history.status,
            attempts: history.attempts.length,
            nextAttemptAt: history.nextAttemptAt,
            deliveredAt: history.deliveredAt,
            createdAt: new Date(outcomeAt),
          },
          row,
          history.attempts,
        );
    });
  }

  // ---- payouts ----
  const payoutRequestOf = (p: PayoutPlan): PayoutRequest => {
    const b = rnd.pick(p.m.beneficiaries);
    if (p.source !== 'api') return { amount: p.amount, ...b };
    return {
      merchantOrderNo: payoutOrderNoOf(p.m, p.t),
      amount: p.amount,
      ...b,
      notifyUrl: notifyUrlAt(p.m, p.t),
    };
  };
  /** What each entry point stores as the request: the signed body, the console's input, the file's row. */
  const snapshotOf = (p: PayoutPlan, req: PayoutRequest): unknown =>
    p.source === 'api'
      ? { ...req, amount: formatMinor(req.amount) }
      : p.source === 'bulk'
        ? { file: p.file!.name, row: p.file!.row }
        : req;
  /** The amount shrunk to what the payout balance covers now (null: too little to pay anything). */
  const affordable = async (m: MerchantState, amount: number): Promise<number | null> => {
    const available = await w.balance(merchantAccount(m.row.id, 'payout_available', m.row.currency));
    const covered = (a: number) => a + feeOf(a, m.row.payoutRatePpm, m.row.payoutFee) <= available;
    if (covered(amount)) return amount;
    const a = Math.floor((available * 0.6) / rupees(100)) * rupees(100);
    return a >= Math.max(m.spec.payout.min, m.row.minAmount) && covered(a) ? a : null;
  };
  const bulkFiles = new Set<string>();

  for (const p of payouts) {
    if (p.file && !bulkFiles.has(p.file.name)) {
      bulkFiles.add(p.file.name);
      const file = p.file.name;
      at(p.t - 1, async () => {
        opLog(
          clock.now().getTime(),
          ownerWho(p.m),
          endpoints.merchantPayout.bulkCreate.id,
          `merchant:${p.m.row.id}`,
          {
            filename: file,
            dryRun: false,
          },
        );
      });
    }
    if (!p.real) {
      bulkPayout(p);
      continue;
    }
    realPayouts++;
    const st: { order?: PayoutOrder; stop?: boolean } = {};
    const planned = payoutRequestOf(p);
    const go = (t: number, run: (o: PayoutOrder) => Promise<PayoutOrder | undefined>) =>
      real(t, async () => {
        if (!st.order || st.stop) return;
        st.order = (await run(st.order)) ?? st.order;
      });
    real(p.t, async () => {
      const amount = await affordable(p.m, planned.amount);
      if (amount === null) return;
      const req = { ...planned, amount };
      const made = await createPayout(d, tx, p.m.row, req, {
        source: p.source,
        lang: 'en',
        userId: p.source === 'api' ? null : p.m.ownerId,
        snapshot: snapshotOf(p, req),
      });
      st.order = made.order;
      if (p.source === 'console')
        opLog(
          clock.now().getTime(),
          ownerWho(p.m),
          endpoints.merchantPayout.create.id,
          `payout:${made.order.orderNo}`,
          {
            amount: formatMinor(amount),
            merchantOrderNo: null,
            replayed: false,
          },
        );
    });
    const submit = (t: number) => go(t, (o) => submitPayout(inSeed, o.id));
    const channel = (t: number, result: 'success' | 'fail') =>
      go(t, (o) => settleSimulatorPayout(d, tx, o, result));
    const retry = (t: number) =>
      go(t, async (o) => {
        const need = o.amount + o.fee;
        if ((await w.balance(merchantAccount(o.merchantId, 'payout_available', o.currency))) < need) {
          st.stop = true;
          return undefined;
        }
        const r = await retryPayout(d, tx, o.id, p.m.ownerId);
        opLog(
          clock.now().getTime(),
          ownerWho(p.m),
          endpoints.merchantPayout.retry.id,
          `payout:${o.orderNo}`,
          {
            changes: { status: { before: 'failed', after: 'queued' } },
          },
        );
        return r;
      });
    const manual = (t: number, result: 'success' | 'fail') =>
      go(t, async (o) => {
        const reason = result === 'success' ? 'Confirmed on the bank statement' : rnd.pick(manualFailReasons);
        const utr = result === 'success' ? newUtr() : null;
        const r = await completePayout(d, tx, {
          orderId: o.id,
          result,
          utr,
          reason,
          by: 'manual',
          userId: adminId,
        });
        opLog(
          clock.now().getTime(),
          adminWho,
          result === 'success'
            ? endpoints.merchantPayout.markSuccess.id
            : endpoints.merchantPayout.markFailed.id,
          `payout:${o.orderNo}`,
          {
            reason,
            ...(utr ? { utr } : {}),
            changes: { status: { before: 'processing', after: result === 'success' ? 'success' : 'failed' } },
          },
        );
        return r;
      });
    const submitAt = later(p.t, 800, 2_500);
    const doneAt = () =>
      submitAt + Math.round(Math.min(45 * minute, Math.max(20_000, 3 * minute * Math.exp(rnd.normal()))));
    switch (p.kind) {
      case 'queued':
        break;
      case 'processing':
        submit(submitAt);
        break;
      case 'success':
      case 'failed':
        submit(submitAt);
        channel(doneAt(), p.kind === 'success' ? 'success' : 'fail');
        break;
      case 'creationFailed':
        go(submitAt, (o) => failCreation(d, tx, o.id, 'Every channel declined the payout'));
        break;
      case 'manualSuccess':
      case 'manualFailed':
        submit(submitAt);
        manual(
          officeHours(later(submitAt, 2 * hour, 6 * hour)),
          p.kind === 'manualSuccess' ? 'success' : 'fail',
        );
        break;
      case 'retrySuccess':
      case 'retryFailedAgain':
      case 'retryQueued': {
        submit(submitAt);
        const failedAt = doneAt();
        channel(failedAt, 'fail');
        const retryAt =
          p.kind === 'retryQueued' ? now - 40_000 : officeHours(later(failedAt, 30 * minute, 5 * hour));
        retry(retryAt);
        if (p.kind === 'retryQueued') break;
        const resubmit = later(retryAt, 800, 2_500);
        submit(resubmit);
        channel(later(resubmit, 40_000, 15 * minute), p.kind === 'retrySuccess' ? 'success' : 'fail');
        break;
      }
    }
  }

  /** An ordinary completed payout: frozen at creation, spent or released at completion. */
  function bulkPayout(p: PayoutPlan) {
    const m = p.m;
    const planned = payoutRequestOf(p);
    const state: { row?: Pending<unknown>; order?: PayoutOrder; history?: CallbackOutcome } = {};
    const submitAt = later(p.t, 800, 2_500);
    const completedAt =
      submitAt + Math.round(Math.min(45 * minute, Math.max(20_000, 3 * minute * Math.exp(rnd.normal()))));
    const success = p.kind === 'success';
    at(p.t, async () => {
      const amount = await affordable(m, planned.amount);
      if (amount === null) return;
      const req = { ...planned, amount };
      const createdAt = new Date(p.t);
      const fee = feeOf(amount, m.row.payoutRatePpm, m.row.payoutFee);
      const orderNo = uniqueNo(() => newPayoutOrderNo(createdAt));
      const merchantOrderNo = req.merchantOrderNo || orderNo;
      const userId = p.source === 'api' ? null : m.ownerId;
      const created: PayoutOrder = {
        id: 0,
        orderNo,
        merchantId: m.row.id,
        merchantOrderNo,
        channelId: null,
        channelOrderId: null,
        currency: m.row.currency,
        amount,
        fee,
        status: 'queued',
        pushStatus: 'unpushed',
        accountName: req.accountName,
        accountNumber: req.accountNumber,
        ifsc: req.ifsc,
        utr: null,
        notifyUrl: req.notifyUrl ?? m.row.callbackUrl,
        source: p.source,
        requestHash: payoutRequestHash(merchantOrderNo, req),
        requestSnapshot: snapshotOf(p, req),
        responseSnapshot: null,
        failureReason: null,
        holds: 1,
        holdOpen: true,
        attempts: 0,
        nextAttemptAt: createdAt,
        completedAt: null,
        callbackAt: null,
        createdBy: userId,
        createdAt,
        updatedAt: createdAt,
      };
      created.responseSnapshot = gatewayViewOf(created);
      const channelOrderId = simId('SIMO', submitAt);
      const utr = success ? newUtr() : null;
      const done: PayoutOrder = {
        ...created,
        status: success ? 'success' : 'failed',
        channelId: sim!.id,
        channelOrderId,
        holdOpen: false,
        utr,
        failureReason: success ? null : 'Declined by the simulator bank',
        attempts: 1,
        nextAttemptAt: null,
        completedAt: new Date(completedAt),
        updatedAt: new Date(completedAt),
      };
      const history = callbackHistory(
        new Date(completedAt),
        done.notifyUrl !== urls.down,
        new Date(now),
        schedule,
        rnd.random,
      );
      if (history.status === 'delivered') {
        done.pushStatus = 'pushed';
        done.callbackAt = history.deliveredAt;
      }
      const { id: _id, ...values } = done;
      const row = w.payout(values);
      Object.assign(state, { order: done, row, history });
      w.sim({
        channelOrderId,
        kind: 'payout',
        orderNo,
        amount,
        status: success ? 'success' : 'fail',
        utr,
        account: `${req.accountName} ${req.accountNumber} ${req.ifsc}`,
        notified: true,
        createdAt,
        settledAt: new Date(completedAt),
      });
      await w.post(payoutEntry(done, row, 'freeze', createdAt, userId));
      if (p.source === 'console')
        opLog(p.t, ownerWho(m), endpoints.merchantPayout.create.id, `payout:${orderNo}`, {
          amount: formatMinor(amount),
          merchantOrderNo: null,
          replayed: false,
        });
    });
    at(completedAt, async () => {
      const { order, row, history } = state;
      if (!order || !row || !history) return;
      await w.post(payoutEntry(order, row, success ? 'spend' : 'release', new Date(completedAt), null));
      const type = success ? 'payout.success' : 'payout.failed';
      w.callback(
        {
          messageId: `msg_${randomToken(18)}`,
          merchantId: m.row.id,
          orderType: 'payout',
          type,
          round: 1,
          url: order.notifyUrl,
          payload: { type, data: gatewayViewOf(order) },
          status: history.status,
          attempts: history.attempts.length,
          nextAttemptAt: history.nextAttemptAt,
          deliveredAt: history.deliveredAt,
          createdAt: new Date(completedAt),
        },
        row,
        history.attempts,
      );
    });
  }

  // ---- run ----
  steps.sort((x, y) => x.at - y.at || x.n - y.n);
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    clock.set(new Date(s.at));
    await s.run();
  }
  await w.flush();
  clock.set(new Date(now));

  // Callbacks the real services queued: their history, as the worker would have left it by now. Those
  // of the last two minutes stay pending: the worker delivers them right after the start.
  const queued = await tx
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.status, 'pending'), eq(webhookEvents.attempts, 0)));
  const latest = new Map<string, (typeof queued)[number]>();
  for (const e of queued) {
    const key = `${e.orderType}:${e.orderId}`;
    const seen = latest.get(key);
    if (!seen || seen.id < e.id) latest.set(key, e);
  }
  const settled: {
    id: number;
    status: string;
    attempts: number;
    next: Date | null;
    delivered: Date | null;
  }[] = [];
  const attemptRows: (typeof webhookAttempts.$inferInsert)[] = [];
  const pushed: { orderType: string; orderId: number; at: Date }[] = [];
  for (const e of queued) {
    if (e.createdAt.getTime() > now - 2 * minute) continue;
    const h = callbackHistory(e.createdAt, e.url !== urls.down, new Date(now), schedule, rnd.random);
    settled.push({
      id: e.id,
      status: h.status,
      attempts: h.attempts.length,
      next: h.nextAttemptAt,
      delivered: h.deliveredAt,
    });
    for (const a of h.attempts) attemptRows.push({ ...a, eventId: e.id });
    if (h.status === 'delivered' && latest.get(`${e.orderType}:${e.orderId}`)?.id === e.id)
      pushed.push({ orderType: e.orderType, orderId: e.orderId, at: h.deliveredAt! });
  }
  for (let i = 0; i < attemptRows.length; i += 1000)
    await tx.insert(webhookAttempts).values(attemptRows.slice(i, i + 1000));
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
  // The simulator adapter stamps its books with database time; give them the time of their orders.
  await tx.execute(sql`
    update simulator_transactions s set created_at = o.created_at
    from payin_orders o where s.kind = 'payin' and o.channel_order_id = s.channel_order_id
      and s.created_at > o.created_at`);
  await tx.execute(sql`
    update simulator_transactions s set created_at = o.created_at
    from payout_orders o where s.kind = 'payout' and o.channel_order_id = s.channel_order_id
      and s.created_at > o.created_at`);

  // ---- what was made ----
  const countBy = async (q: Promise<{ k: string; n: number }[]>) =>
    Object.fromEntries((await q).map((r) => [r.k, Number(r.n)]));
  const n = sql<number>`count(*)::int`;
  const counts: DemoSeed['counts'] = {
    payins: await countBy(
      tx.select({ k: payinOrders.status, n }).from(payinOrders).groupBy(payinOrders.status),
    ),
    payouts: await countBy(
      tx.select({ k: payoutOrders.status, n }).from(payoutOrders).groupBy(payoutOrders.status),
    ),
    recharges: await countBy(tx.select({ k: recharges.status, n }).from(recharges).groupBy(recharges.status)),
    transfers,
    callbacks: await countBy(
      tx.select({ k: webhookEvents.status, n }).from(webhookEvents).groupBy(webhookEvents.status),
    ),
    realPayins,
    realPayouts,
  };
  // Lost callbacks of the demo merchant first: its owner can try them.
  lost.sort((x, y) => (x.merchant === y.merchant ? 0 : x.merchant === 'M10001' ? -1 : 1));
  return {
    accounts: ms.map((m) => ({
      merchant: m.spec.code,
      name: m.spec.name,
      username: m.spec.owner.username,
      password: m.spec.owner.password,
      note: m.spec.note,
    })),
    lostCallbacks: lost,
    counts,
    ms: 0,
  };
}

/**
 * The payout entries of server/modules/payout/service.ts (its header lists them): a hold's freeze, and
 * its spend on success or release on failure, each moving amount + fee on the merchant's frozen wallet.
 */
function payoutEntry(
  o: PayoutOrder,
  ref: Ref,
  what: 'freeze' | 'spend' | 'release',
  at: Date,
  userId: number | null,
): BulkEntry {
  const total = o.amount + o.fee;
  const frozen = merchantAccount(o.merchantId, 'frozen', o.currency);
  const available = merchantAccount(o.merchantId, 'payout_available', o.currency);
  if (what === 'freeze')
    return {
      kind: `payout_freeze_${o.holds}`,
      refType: payoutRefType,
      ref,
      memo: o.orderNo,
      userId,
      at,
      lines: [
        { account: available, amount: -total },
        { account: frozen, amount: total },
      ],
    };
  if (what === 'release')
    return {
      kind: `payout_release_${o.holds}`,
      refType: payoutRefType,
      ref,
      memo: `channel: ${o.failureReason}`,
      userId,
      at,
      lines: [
        { account: frozen, amount: -total },
        { account: available, amount: total },
      ],
    };
  const lines = [
    { account: frozen, amount: -total },
    { account: platformAccount('payout_clearing', o.currency), amount: o.amount },
  ];
  if (o.fee > 0) lines.push({ account: platformAccount('fee_income', o.currency), amount: o.fee });
  return { kind: 'payout_success', refType: payoutRefType, ref, memo: 'channel', userId, at, lines };
}
