/**
 * The dashboard: its figures equal the list's totals for the same period (so each can link into the
 * filtered list), orders are bucketed by their creation day in the business time zone, merchant users
 * see their own merchant only, the order stats equal a GROUP BY over the orders after every test, and
 * a change of time zone rebuilds them.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { payoutQueueStates } from '../../../contract/endpoints/dashboard.ts';
import { endpoints } from '../../../contract/index.ts';
import { payin, payout as payoutMachine } from '../../../contract/machines.ts';
import { agents, payinOrders, payoutOrders, webhookEvents } from '../../db/schema.ts';
import { engines, startTestServer, type TestServer } from '../../test/harness.ts';
import { expireDuePayins } from '../payin/expiry.ts';
import {
  createOrder,
  expectBalanced,
  type Merchant,
  makeChannel,
  merchantOn,
  simPay,
} from '../payin/testkit.ts';
import { drainQueue, payoutBody, payoutOperator, seedPayoutBalance } from '../payout/testkit.ts';
import { checkOrderStats, rebuildOrderStats, syncOrderStatsZone } from './stats.ts';

const minute = 60_000;
const day = 86_400_000;

type Period = { from: string; to: string; payin: Figures[]; payout: Figures[] };
type Figures = {
  currency: string;
  count: number;
  successCount: number;
  finishedCount: number;
  amount: string;
  fee: string;
  successRatePpm: number | null;
};

describe.each(engines)('dashboard on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  let a: Merchant;
  let b: Merchant;
  let c: Merchant;
  let ownerA: string;
  let ownerB: string;
  /** 23:50 in Kolkata (18:20 UTC) of a day near now: the last minutes of a business day. */
  let lateEvening: Date;

  beforeAll(async () => {
    s = await startTestServer(engine);
    const d = new Date(s.clock.now().getTime() + day);
    lateEvening = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 18, 20));
    // Three days before: a paid and a failed pay-in of A, a successful payout of A.
    s.clock.set(new Date(lateEvening.getTime() - 3 * day));
    admin = await s.adminToken();
    const [agent] = await s.db
      .insert(agents)
      .values({ code: `AG${Date.now().toString(36)}`, name: 'Agent', commissionPpm: 5_000 })
      .returning();
    const whitelist = { payoutIpWhitelist: ['203.0.113.0/24'] };
    a = await merchantOn(s, undefined, {
      collectionRatePpm: 20_000,
      agentId: agent!.id,
      payoutFee: 300,
      ...whitelist,
    });
    b = await merchantOn(s, undefined, { collectionRatePpm: 10_000, ...whitelist });
    const refusing = await makeChannel(s, { settings: { refuseRate: 100 } });
    c = await merchantOn(s, [{ channelId: refusing.id, weight: 100 }], whitelist);
    ownerA = await s.login(a.ownerUsername, a.ownerPassword);
    ownerB = await s.login(b.ownerUsername, b.ownerPassword);
    for (const m of [a, b, c]) await seedPayoutBalance(s, m.id, 50_000_000);

    const early = await createOrder(s, a, { amount: '500.00' });
    await simPay(s, admin, early.orderNo, 'success');
    await simPay(s, admin, (await createOrder(s, a, { amount: '70.00' })).orderNo, 'fail');
    await payout(a, '250.00');
    await drainQueue(s);
    await settlePayouts(a, ['success']);

    // 23:50 in Kolkata: paid, and one left pending that expires (unpaid) and is then supplemented.
    s.clock.set(lateEvening);
    // Sessions end after 30 idle minutes: sign in again three days later.
    admin = await s.adminToken();
    ownerA = await s.login(a.ownerUsername, a.ownerPassword);
    ownerB = await s.login(b.ownerUsername, b.ownerPassword);
    await simPay(s, admin, (await createOrder(s, a, { amount: '123.45' })).orderNo, 'success');
    const toExpire = await createOrder(s, a, { amount: '99.00' });
    await simPay(s, admin, toExpire.orderNo, 'success', { notify: false });

    // 00:10 the next business day, although still the same UTC day.
    s.clock.advance(20 * minute);
    await simPay(s, admin, (await createOrder(s, a, { amount: '1000.00' })).orderNo, 'success');
    await simPay(s, admin, (await createOrder(s, a, { amount: '10.50' })).orderNo, 'fail');
    await createOrder(s, a, { amount: '42.00' }); // pending: counted live
    await createOrder(s, b, { amount: '300.00' });
    await simPay(s, admin, (await createOrder(s, b, { amount: '301.00' })).orderNo, 'success');
    await createOrder(s, c, { amount: '55.00' }); // refused at creation
    for (const amount of ['10.00', '20.00', '30.00', '40.00']) await payout(a, amount);
    await payout(c, '15.00');
    await drainQueue(s); // A's four are processing, C's was refused by every channel
    await settlePayouts(a, ['success', 'fail', 'fail']);
    await payout(a, '5.00'); // queued
    // Expire the 23:50 order now, then supplement it with the UTR the simulator kept.
    s.clock.advance(25 * minute); // the 23:50 order is overdue, those of 00:10 not yet
    expect(await expireDuePayins(s.deps)).toBeGreaterThan(0);
    admin = await s.adminToken();
    ownerA = await s.login(a.ownerUsername, a.ownerPassword);
    ownerB = await s.login(b.ownerUsername, b.ownerPassword);
    const utr = (await s.db.execute(
      sql`select utr from simulator_transactions where order_no = ${toExpire.orderNo}`,
    )) as unknown as { rows: { utr: string }[] };
    const supplemented = await s.call(
      endpoints.merchantOrder.supplement,
      { id: toExpire.id, utr: utr.rows[0]!.utr },
      ownerA,
    );
    expect(supplemented.errno, supplemented.errmsg).toBe(0);
    // A failed payout retried: back under way, out of the finished ones.
    const failed = await s.call(
      endpoints.merchantPayout.list,
      { ...recent(), status: 'failed', merchantId: a.id },
      admin,
    );
    const retried = await (await payoutOperator(s)).act('retry', failed.data.list[0].id);
    expect(retried.errno, retried.errmsg).toBe(0);
  });
  afterEach(() => expectBalanced(s));
  afterAll(() => s.close());

  const recent = () => ({
    from: new Date(s.clock.now().getTime() - 5 * day).toISOString(),
    to: new Date(s.clock.now().getTime() + day).toISOString(),
  });
  async function payout(m: Merchant, amount: string) {
    const res = await s.gateway(m, 'POST', '/gateway/v1/payout', payoutBody({ amount }));
    expect(res.status, JSON.stringify(res.json)).toBe(201);
  }
  /** Settles A's processing payouts, oldest first, with the given results. */
  async function settlePayouts(m: Merchant, results: ('success' | 'fail')[]) {
    const res = await s.call(
      endpoints.merchantPayout.list,
      { ...recent(), status: 'processing', merchantId: m.id },
      admin,
    );
    expect(res.errno, res.errmsg).toBe(0);
    const oldestFirst = [...res.data.list].reverse();
    for (const [i, result] of results.entries()) {
      const r = await s.call(endpoints.simulator.payout, { orderNo: oldestFirst[i].orderNo, result }, admin);
      expect(r.errno, r.errmsg).toBe(0);
    }
  }
  const summary = async (token: string) => {
    const res = await s.call(endpoints.dashboard.summary, {}, token);
    expect(res.errno, res.errmsg).toBe(0);
    return res.data as {
      businessTimeZone: string;
      today: Period;
      last7Days: Period;
      last30Days: Period;
      daily: Record<string, unknown>[];
      channels: Record<string, unknown>[];
      queues: Record<string, number | null>;
    };
  };
  const totals = async (
    kind: 'payin' | 'payout',
    token: string,
    p: { from: string; to: string },
    status?: readonly string[],
  ) => {
    const ep = kind === 'payin' ? endpoints.merchantOrder.totals : endpoints.merchantPayout.totals;
    const res = await s.call(ep, { from: p.from, to: p.to, ...(status ? { status } : {}) }, token);
    expect(res.errno, res.errmsg).toBe(0);
    return res.data as { count: number; amount: string };
  };
  const ends = { payin: payin.sets.ended, payout: payoutMachine.sets.ended };
  const successes = { payin: payin.sets.succeeded, payout: payoutMachine.sets.succeeded };

  /** Every figure of every period equals the list totals of the same period and statuses. */
  async function expectFiguresMatchLists(token: string) {
    const d = await summary(token);
    for (const p of [d.today, d.last7Days, d.last30Days]) {
      for (const kind of ['payin', 'payout'] as const) {
        const f = p[kind].find((x) => x.currency === 'INR')!;
        const all = await totals(kind, token, p);
        const won = await totals(kind, token, p, successes[kind]);
        const finished = await totals(kind, token, p, ends[kind]);
        const where = `${kind} ${p.from}`;
        expect(f.count, where).toBe(all.count);
        expect(f.successCount, where).toBe(won.count);
        expect(f.amount, where).toBe(won.amount);
        expect(f.finishedCount, where).toBe(finished.count);
        expect(f.successRatePpm, where).toBe(
          finished.count ? Math.round((won.count * 1_000_000) / finished.count) : null,
        );
      }
    }
    return d;
  }

  it('answers figures equal to the list totals of the same periods, for the platform and for a merchant', async () => {
    const platform = await expectFiguresMatchLists(admin);
    const merchant = await expectFiguresMatchLists(ownerA);
    // The data above: the figures are not trivially zero.
    expect(platform.today.payin[0]).toMatchObject({ count: 6, successCount: 2, finishedCount: 4 });
    expect(merchant.today.payin[0]).toMatchObject({ count: 3, successCount: 1, finishedCount: 2 });
    expect(merchant.last7Days.payin[0]).toMatchObject({ count: 7, successCount: 4, finishedCount: 6 });
    expect(merchant.last7Days.payout[0]).toMatchObject({ count: 6, successCount: 2, finishedCount: 3 });
  });

  it('cuts days at midnight in Kolkata: 23:50 belongs to the day before, 00:10 to today', async () => {
    const d = await summary(admin);
    expect(d.businessTimeZone).toBe('Asia/Kolkata');
    expect(d.today.from).toBe(new Date(lateEvening.getTime() + 10 * minute).toISOString());
    expect(new Date(d.today.to).getTime() - new Date(d.today.from).getTime()).toBe(day);
    expect(new Date(d.today.from).getTime() - new Date(d.last7Days.from).getTime()).toBe(6 * day);
    expect(new Date(d.today.from).getTime() - new Date(d.last30Days.from).getTime()).toBe(29 * day);
    expect(d.daily).toHaveLength(30);
    const [yesterday, today] = d.daily.slice(-2);
    expect(yesterday).toMatchObject({ payinCount: 2, payinSuccessCount: 2, payinAmount: '222.45' });
    expect(today).toMatchObject({ payinCount: 6, payinSuccessCount: 2, payinAmount: '1301.00' });
    const summed = d.daily.reduce((n, r) => n + (r.payinCount as number), 0);
    expect(summed).toBe(d.last30Days.payin[0]!.count);
  });

  it('shows a merchant the fees it paid and the platform its fee income net of the agent commission', async () => {
    const rows = (await s.db.execute(sql`
      select coalesce(sum(fee), 0)::text as fee, coalesce(sum(fee - agent_commission), 0)::text as income
      from payin_orders where merchant_id = ${a.id} and status = 'paid'`)) as unknown as {
      rows: { fee: string; income: string }[];
    };
    const payoutFees = (await s.db.execute(sql`
      select coalesce(sum(fee), 0)::text as fee from payout_orders where merchant_id = ${a.id} and status = 'success'`)) as unknown as {
      rows: { fee: string }[];
    };
    const merchant = await summary(ownerA);
    const minor = (s: string) => Math.round(Number(s) * 100);
    expect(minor(merchant.last7Days.payin[0]!.fee)).toBe(Number(rows.rows[0]!.fee));
    expect(minor(merchant.last7Days.payout[0]!.fee)).toBe(Number(payoutFees.rows[0]!.fee));
    expect(Number(rows.rows[0]!.income)).toBeLessThan(Number(rows.rows[0]!.fee));
    const platform = await s.call(endpoints.dashboard.summary, {}, admin);
    const platformFee = minor(platform.data.last7Days.payin[0].fee);
    // The platform's income covers every merchant; A's part of it is its fees less the commission.
    const others = (await s.db.execute(sql`
      select coalesce(sum(fee - agent_commission), 0)::text as income from payin_orders
      where merchant_id <> ${a.id} and status = 'paid'`)) as unknown as { rows: { income: string }[] };
    expect(platformFee).toBe(Number(rows.rows[0]!.income) + Number(others.rows[0]!.income));
  });

  it("keeps a merchant user to its own merchant's figures", async () => {
    const d = await summary(ownerB);
    expect(d.today.payin[0]).toMatchObject({ count: 2, successCount: 1, finishedCount: 1, amount: '301.00' });
    expect(d.last30Days.payout[0]).toMatchObject({ count: 0, successCount: 0 });
    expect(d.queues).toMatchObject({ payoutsQueued: 0, payoutsProcessing: 0, callbacksGaveUp: 0 });
  });

  it("shows a platform user one merchant's figures when it names one, without the platform's own queues", async () => {
    const own = await summary(ownerB);
    const named = await s.call(endpoints.dashboard.summary, { merchantId: b.id }, admin);
    expect(named.errno, named.errmsg).toBe(0);
    const picked = named.data as typeof own;
    const counts = (f: Figures[]) =>
      f.map(({ currency, count, successCount, finishedCount, amount }) => ({
        currency,
        count,
        successCount,
        finishedCount,
        amount,
      }));
    for (const p of ['today', 'last7Days', 'last30Days'] as const) {
      expect(counts(picked[p].payin), p).toEqual(counts(own[p].payin));
      expect(counts(picked[p].payout), p).toEqual(counts(own[p].payout));
    }
    expect(picked.daily).toHaveLength(own.daily.length);
    expect(picked.queues).toMatchObject({
      approvalsPending: null,
      statementExceptions: null,
      slipsToWithdraw: null,
    });
    expect(picked.queues.payoutsQueued).toBe(0);
    // The whole platform's figures are more than B's.
    expect((await summary(admin)).today.payin[0]!.count).toBeGreaterThan(picked.today.payin[0]!.count);
    // A merchant user names only its own merchant.
    expect((await s.call(endpoints.dashboard.summary, { merchantId: a.id }, ownerB)).errno).toBe(404);
    expect((await s.call(endpoints.dashboard.summary, { merchantId: b.id }, ownerB)).errno).toBe(0);
  });

  it('rates each channel over the last 7 days', async () => {
    const d = await summary(admin);
    const sim = d.channels.find((ch) => ch.channelCode === 'simulator')!;
    // Through the simulator: A's 6 finished (4 paid) and 1 pending, B's 1 paid and 1 pending.
    expect(sim).toMatchObject({
      payinCount: 9,
      payinSuccessCount: 5,
      payinFinishedCount: 7,
      successRatePpm: 714_286,
    });
    // The refusing channel never got an order: refusals have no channel.
    expect(d.channels.every((ch) => (ch.payinCount as number) > 0)).toBe(true);
  });

  it('counts the queues, and hides recharges from a user who may not list them', async () => {
    const [event] = await s.db
      .select({ id: webhookEvents.id })
      .from(webhookEvents)
      .where(eq(webhookEvents.merchantId, a.id))
      .limit(1);
    await s.db.update(webhookEvents).set({ status: 'gave_up' }).where(eq(webhookEvents.id, event!.id));
    const d = await summary(ownerA);
    expect(d.queues).toEqual({
      callbacksGaveUp: 1,
      payoutsQueued: 2,
      payoutsProcessing: 1,
      payoutsNeedReview: 0,
      rechargesPending: 0,
      // The platform's queues (their lists are platform-only).
      settlementsToConfirm: null,
      settlementsToComplete: null,
      approvalsPending: null,
      statementExceptions: null,
      slipsToWithdraw: null,
      // The merchant's own disputes: none here.
      disputesOpen: 0,
      disputesOverdue: 0,
    });
    expect((await summary(admin)).queues).toMatchObject({ callbacksGaveUp: 1, payoutsQueued: 2 });
    const viewer = await s.makeUser({
      kind: 'merchant',
      merchantId: a.id,
      perms: ['GET /dashboard/summary'],
    });
    expect((await summary(viewer.token)).queues.rechargesPending).toBeNull();
    await s.db.update(webhookEvents).set({ status: 'delivered' }).where(eq(webhookEvents.id, event!.id));
  });

  it('counts each payout under way in exactly one queue', () => {
    const queued = Object.values(payoutQueueStates).flat();
    expect([...queued].sort()).toEqual([...payoutMachine.sets.underWay].sort());
  });

  it('counts a payout being handed to its channel as processing, and one whose hand-over is unclear in the review queue', async () => {
    const before = await expectFiguresMatchLists(ownerA);
    const [o] = await s.db
      .select()
      .from(payoutOrders)
      .where(and(eq(payoutOrders.merchantId, a.id), eq(payoutOrders.status, 'processing')))
      .limit(1);
    try {
      for (const status of ['submitting', 'needs_review'] as const) {
        await s.db.update(payoutOrders).set({ status }).where(eq(payoutOrders.id, o!.id));
        const d = await expectFiguresMatchLists(ownerA);
        expect(d.today.payout, status).toEqual(before.today.payout);
        // Being handed over (`submitting`) is under way with the channel: the processing queue.
        expect(d.queues, status).toMatchObject({
          payoutsProcessing: status === 'submitting' ? 1 : 0,
          payoutsNeedReview: status === 'needs_review' ? 1 : 0,
        });
      }
      expect((await summary(admin)).queues).toMatchObject({ payoutsNeedReview: 1 });
      expect((await summary(ownerB)).queues).toMatchObject({ payoutsNeedReview: 0 });
    } finally {
      await s.db.update(payoutOrders).set({ status: 'processing' }).where(eq(payoutOrders.id, o!.id));
    }
  });

  it('notices stats that differ from the orders', async () => {
    await s.db.execute(sql`update order_stats_daily set success_count = success_count + 1
      where (kind, merchant_id) = ('payin', ${a.id}) and success_count > 0`);
    const report = await checkOrderStats(s.db);
    expect(report.ok).toBe(false);
    expect(report.mismatches[0]).toMatchObject({ kind: 'payin', merchantId: a.id });
    await rebuildOrderStats(s.db, 'Asia/Kolkata');
    expect((await checkOrderStats(s.db)).ok).toBe(true);
  });

  it('rebuilds the stats for another business time zone, and back at start-up', async () => {
    await rebuildOrderStats(s.db, 'UTC');
    expect((await checkOrderStats(s.db)).ok).toBe(true);
    const d = await expectFiguresMatchLists(ownerA);
    expect(d.businessTimeZone).toBe('UTC');
    // In UTC, 23:50 and 00:10 in Kolkata are the same day.
    expect(d.today.payin[0]).toMatchObject({ count: 5, successCount: 3 });
    const [pending] = await s.db
      .select({ id: payinOrders.id })
      .from(payinOrders)
      .where(eq(payinOrders.status, 'pending'))
      .limit(1);
    expect(pending).toBeDefined();
    expect(await syncOrderStatsZone(s.deps)).toBe(true);
    expect(await syncOrderStatsZone(s.deps)).toBe(false);
    expect((await summary(admin)).businessTimeZone).toBe('Asia/Kolkata');
  });
});
