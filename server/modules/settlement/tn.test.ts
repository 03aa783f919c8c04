/**
 * T+N settlement: paid T+N orders tag their merchant's line of the business day; a run releases the
 * lines due by its day, one merchant at a time, once (a second run for the day releases nothing); a
 * merchant whose transaction fails stays wholly pending while the others are released; the daily job
 * runs a day once, from the configured time; the lines list keeps a merchant to its own; a payment
 * racing the run past midnight credits available. After every test each merchant's collection_pending
 * equals the sum of its pending lines and the books balance.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { tnLine } from '../../../contract/machines.ts';
import { journalEntries, merchants, tnLines, tnRunMerchants, tnRuns } from '../../db/schema.ts';
import { checkLedger } from '../../ledger/check.ts';
import { merchantBalances } from '../../ledger/index.ts';
import { writeParameter } from '../../lib/parameters.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { sweep } from '../../test/sweep.ts';
import { createOrder, type Merchant, simPay } from '../payin/testkit.ts';
import { checkTnLines, runDailyTnSettlement, runTnSettlement } from './tn.ts';

const { merchantSettlementtn, settlementtnLog } = endpoints;
/** 10:00 in Kolkata (UTC+05:30, the default business zone) on business day `d` of March 2026. */
const morningOf = (d: number) => new Date(Date.UTC(2026, 2, d, 4, 30));
const march = (d: number) => `2026-03-${String(d).padStart(2, '0')}`;

describe.each(engines)('T+N settlement on %s', (engine) => {
  let s: TestServer;
  let finance: Awaited<ReturnType<TestServer['makeKeyHolder']>>;
  /** A platform user a run "by hand" is recorded for when a test calls the service directly. */
  let operatorId: number;

  beforeAll(async () => {
    s = await startTestServer(engine);
    s.clock.set(morningOf(10));
    finance = await s.makeKeyHolder([
      settlementtnLog.run.permission,
      settlementtnLog.list.permission,
      settlementtnLog.info.permission,
      merchantSettlementtn.list.permission,
    ]);
    operatorId = (await s.makeUser({ perms: [] })).id;
  });
  afterEach(async () => {
    expect(await checkTnLines(s.db)).toEqual({ ok: true, mismatches: [] });
    const ledger = await checkLedger(s.db);
    expect(ledger.balanced).toBe(true);
    expect(ledger.totals.every((t) => t.total === 0)).toBe(true);
  });
  afterAll(() => s.close());

  /** A merchant on T+`days` with a 2 % fee and nothing fixed. */
  const merchantOn = (days: number) =>
    s.makeMerchant({ collectionRatePpm: 20_000, platformFee: 0, settlementDays: days });
  const pay = async (m: Merchant, amount = '1000.00') => {
    const o = await createOrder(s, m, { amount });
    const res = await simPay(s, await s.adminToken(), o.orderNo, 'success');
    expect(res.errno, res.errmsg).toBe(0);
    return o;
  };
  const linesOf = (merchantId: number) =>
    s.db.select().from(tnLines).where(eq(tnLines.merchantId, merchantId)).orderBy(tnLines.orderDay);
  const releasesOf = (merchantId: number) =>
    s.db
      .select()
      .from(journalEntries)
      .where(
        and(eq(journalEntries.kind, 'tn_release'), sql`${journalEntries.refId} like ${`%:${merchantId}:%`}`),
      );
  /** The finance user signed in afresh (the clock moves days between tests) and a code for its next action. */
  const financeCall = async <E extends (typeof settlementtnLog)[keyof typeof settlementtnLog]>(
    ep: E,
    input: Record<string, unknown>,
  ) => {
    const token = await s.login(finance.username, finance.password, finance.code());
    return s.call(ep, ep.method === 'POST' ? { ...input, code: finance.code() } : input, token);
  };

  it('backfills the lines of a database paid under T+N before they existed (the migration)', async () => {
    const two = await merchantOn(2);
    const three = await merchantOn(3);
    const d0 = await merchantOn(0);
    await pay(two, '1000.00');
    await pay(two, '500.00');
    await pay(three, '200.00');
    await pay(d0);
    const before = await s.db.select().from(tnLines).orderBy(tnLines.merchantId);
    // The T+3 merchant has moved to D0 since: its waiting money falls due the day after.
    await s.db.update(merchants).set({ settlementDays: 0 }).where(eq(merchants.id, three.id));
    await s.db.delete(tnLines);
    const migration = readFileSync(
      join(import.meta.dirname, '../../db/migrations/0013_tn_lines_backfill.sql'),
      'utf8',
    );
    await s.db.execute(sql.raw(migration));
    const after = await s.db.select().from(tnLines).orderBy(tnLines.merchantId);
    const shape = (l: typeof tnLines.$inferSelect) => ({ ...l, id: 0 });
    expect(after.map(shape)).toEqual(
      before.map((l) => shape(l.merchantId === three.id ? { ...l, dueDay: march(11) } : l)),
    );
    expect(after.find((l) => l.merchantId === two.id)).toMatchObject({
      orderDay: march(10),
      dueDay: march(12),
      orders: 2,
      gross: 150_000,
      fee: 3_000,
      net: 147_000,
    });
  });

  it('tags each paid T+N order to its business day, due N days later; D0 has no lines', async () => {
    const t1 = await merchantOn(1);
    const d0 = await merchantOn(0);
    await pay(t1, '1000.00');
    await pay(t1, '250.00');
    await pay(d0);
    const [line, ...more] = await linesOf(t1.id);
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      currency: 'INR',
      orderDay: march(10),
      dueDay: march(11),
      orders: 2,
      gross: 125_000,
      fee: 2_500,
      net: 122_500,
      status: tnLine.initial,
      runId: null,
    });
    expect((await merchantBalances(s.db, t1.id, 'INR')).collection_pending).toBe(122_500);
    expect(await linesOf(d0.id)).toEqual([]);
  });

  it('releases what is due by the day once: a second run for the day releases nothing', async () => {
    s.clock.set(morningOf(11));
    const t1 = await merchantOn(1);
    const t2 = await merchantOn(2);
    await pay(t1, '1000.00');
    await pay(t2, '500.00');
    s.clock.set(morningOf(12));
    const first = await financeCall(settlementtnLog.run, { day: march(12) });
    expect(first.errno, first.errmsg).toBe(0);
    expect(first.data).toMatchObject({ day: march(12), outcome: 'succeeded', startedBy: finance.username });
    expect(first.data.lines).toBeGreaterThanOrEqual(1);
    // Due on the 12th: released whole, in one entry.
    expect(await linesOf(t1.id)).toMatchObject([
      { status: tnLine.to('release'), runId: first.data.id, dueDay: march(12) },
    ]);
    expect(await merchantBalances(s.db, t1.id, 'INR')).toMatchObject({
      collection_pending: 0,
      collection_available: 98_000,
    });
    const entries = await releasesOf(t1.id);
    expect(entries).toMatchObject([{ refType: 'tn_run', refId: `${first.data.id}:${t1.id}:INR` }]);
    // Due on the 13th: not yet.
    expect(await linesOf(t2.id)).toMatchObject([{ status: tnLine.initial, runId: null, dueDay: march(13) }]);
    expect((await merchantBalances(s.db, t2.id, 'INR')).collection_pending).toBe(49_000);

    const second = await financeCall(settlementtnLog.run, { day: march(12) });
    expect(second.errno, second.errmsg).toBe(0);
    expect(second.data).toMatchObject({
      merchants: 0,
      lines: 0,
      amountReleased: '0.00',
      outcome: 'succeeded',
    });
    expect(await releasesOf(t1.id)).toEqual(entries);
    expect((await merchantBalances(s.db, t1.id, 'INR')).collection_available).toBe(98_000);

    // The log lists both, newest first, and tells the first one's merchants.
    const log = await financeCall(settlementtnLog.list, { pageSize: 2 });
    expect(log.data.list.map((r: { id: number }) => r.id)).toEqual([second.data.id, first.data.id]);
    const info = await financeCall(settlementtnLog.info, { id: first.data.id });
    expect(info.data.merchantOutcomes).toContainEqual({
      merchantId: t1.id,
      merchantCode: t1.code,
      currency: 'INR',
      lines: 1,
      amount: '980.00',
      outcome: 'released',
      error: null,
    });
  });

  it('leaves a merchant whose transaction fails wholly pending, releases the others: partial', async () => {
    s.clock.set(morningOf(13));
    const x = await merchantOn(1);
    const y = await merchantOn(1);
    await pay(x, '1000.00');
    await pay(x, '300.00');
    await pay(y, '400.00');
    // The journal refuses X's release entry, after its lines were marked in the same transaction.
    await s.db.execute(
      sql.raw(`create function tn_test_refuse() returns trigger language plpgsql as $$
        begin raise exception 'refused by the test'; end $$`),
    );
    await s.db.execute(
      sql.raw(`create trigger tn_test_refuse before insert on journal_entries for each row
        when (new.ref_type = 'tn_run' and new.ref_id like '%:${x.id}:%') execute function tn_test_refuse()`),
    );
    s.clock.set(morningOf(14));
    let run: Awaited<ReturnType<typeof runTnSettlement>>;
    try {
      run = await runTnSettlement(s.deps, s.db, march(14), operatorId);
    } finally {
      await s.db.execute(sql.raw('drop trigger tn_test_refuse on journal_entries'));
      await s.db.execute(sql.raw('drop function tn_test_refuse()'));
    }
    expect(run).toMatchObject({ outcome: 'partial' });
    expect(await linesOf(x.id)).toMatchObject([{ status: tnLine.initial, runId: null, releasedAt: null }]);
    expect((await merchantBalances(s.db, x.id, 'INR')).collection_pending).toBe(127_400);
    expect(await releasesOf(x.id)).toEqual([]);
    expect(await linesOf(y.id)).toMatchObject([{ status: tnLine.to('release'), runId: run!.id }]);
    expect((await merchantBalances(s.db, y.id, 'INR')).collection_available).toBe(39_200);
    const outcomes = await s.db.select().from(tnRunMerchants).where(eq(tnRunMerchants.runId, run!.id));
    expect(outcomes.find((o) => o.merchantId === x.id)).toMatchObject({ outcome: 'failed' });
    expect(outcomes.find((o) => o.merchantId === x.id)?.error).toContain('refused by the test');
    expect(outcomes.find((o) => o.merchantId === y.id)).toMatchObject({
      outcome: 'released',
      lines: 1,
      amount: 39_200,
    });
    // The next run takes it.
    const again = await runTnSettlement(s.deps, s.db, march(14), operatorId);
    expect(again).toMatchObject({ outcome: 'succeeded', merchants: 1, lines: 1, amountReleased: 127_400 });
    expect((await merchantBalances(s.db, x.id, 'INR')).collection_available).toBe(127_400);
  });

  it('refuses a run for a day after today (business time)', async () => {
    // 01:30 on the 15th in Kolkata, still the 14th in UTC.
    s.clock.set(new Date(Date.UTC(2026, 2, 14, 20, 0)));
    const today = await financeCall(settlementtnLog.run, { day: march(15) });
    expect(today.errno, today.errmsg).toBe(0);
    const tomorrow = await financeCall(settlementtnLog.run, { day: march(16) });
    expect(tomorrow.errno).toBe(errno.invalid);
    expect(tomorrow.data.fields).toMatchObject([{ path: 'day' }]);
    const [{ n }] = (await s.db
      .select({ n: sql<number>`count(*)::int` })
      .from(tnRuns)
      .where(eq(tnRuns.day, march(16)))) as [{ n: number }];
    expect(n).toBe(0);
  });

  it('runs the daily job once a day, from the configured time', async () => {
    await writeParameter(s.db, 'tn_run_time', '09:00');
    try {
      const t1 = await merchantOn(1);
      s.clock.set(new Date(Date.UTC(2026, 2, 15, 4, 30)));
      await pay(t1, '100.00');
      const jobRuns = async (day: string) =>
        s.db
          .select()
          .from(tnRuns)
          .where(and(eq(tnRuns.day, day), sql`${tnRuns.startedBy} is null`));
      // 08:59 on the 16th: not yet.
      s.clock.set(new Date(Date.UTC(2026, 2, 16, 3, 29)));
      expect(await runDailyTnSettlement(s.deps)).toBeNull();
      expect(await jobRuns(march(16))).toEqual([]);
      // 09:00: the run of the 16th releases the 15th's line (due the 16th).
      s.clock.set(new Date(Date.UTC(2026, 2, 16, 3, 30)));
      const run = await runDailyTnSettlement(s.deps);
      expect(run).toMatchObject({ day: march(16), startedBy: null, outcome: 'succeeded' });
      expect(await linesOf(t1.id)).toMatchObject([{ status: tnLine.to('release'), runId: run!.id }]);
      s.clock.set(new Date(Date.UTC(2026, 2, 16, 12, 0)));
      expect(await runDailyTnSettlement(s.deps)).toBeNull();
      expect(await jobRuns(march(16))).toHaveLength(1);
      // The 17th: three processes wake at once; one runs it.
      s.clock.set(morningOf(17));
      const started = await Promise.all([1, 2, 3].map(() => runDailyTnSettlement(s.deps)));
      expect(started.filter((r) => r !== null)).toHaveLength(1);
      expect(await jobRuns(march(17))).toHaveLength(1);
    } finally {
      await writeParameter(s.db, 'tn_run_time', '00:30');
    }
  });

  it('lists a merchant user its own lines only, with totals, in pages, over at most 62 days', async () => {
    s.clock.set(morningOf(17));
    const p = await merchantOn(1);
    const q = await merchantOn(1);
    await pay(p, '1000.00');
    await pay(q, '700.00');
    s.clock.set(morningOf(18));
    await pay(p, '500.00');
    await pay(p, '100.00');
    const owner = await s.login(p.ownerUsername, p.ownerPassword);
    const mine = await s.call(merchantSettlementtn.list, { merchantId: q.id }, owner);
    expect(mine.errno, mine.errmsg).toBe(0);
    expect(mine.data.list.map((l: { merchantId: number }) => l.merchantId)).toEqual([p.id, p.id]);
    expect(mine.data).toMatchObject({
      total: 2,
      from: '2026-01-16',
      to: march(18),
      totals: [{ currency: 'INR', orders: 3, gross: '1600.00', fee: '32.00', net: '1568.00' }],
    });
    expect(mine.data.list[0]).toMatchObject({
      merchantCode: p.code,
      orderDay: march(18),
      dueDay: march(19),
      orders: 2,
      gross: '600.00',
      fee: '12.00',
      net: '588.00',
      status: 'pending',
      runId: null,
    });
    // Keyset pages: newest order day first.
    const first = await s.call(merchantSettlementtn.list, { pageSize: 1 }, owner);
    expect(first.data.list).toMatchObject([{ orderDay: march(18) }]);
    const second = await s.call(
      merchantSettlementtn.list,
      { pageSize: 1, cursor: first.data.nextCursor },
      owner,
    );
    expect(second.data.list).toMatchObject([{ orderDay: march(17) }]);
    expect(second.data.nextCursor).toBeNull();
    // The platform sees any merchant's, filtered.
    const platform = await s.login(finance.username, finance.password, finance.code());
    const theirs = await s.call(
      merchantSettlementtn.list,
      { merchantId: q.id, status: 'pending', from: march(17), to: march(17) },
      platform,
    );
    expect(theirs.data.list).toMatchObject([{ merchantId: q.id, net: '686.00' }]);
    // At most 62 order days.
    const wide = await s.call(merchantSettlementtn.list, { from: '2026-01-01', to: march(18) }, owner);
    expect(wide.errno).toBe(errno.invalid);
    const openEnded = await s.call(merchantSettlementtn.list, { from: '2026-01-01' }, owner);
    expect(openEnded.data).toMatchObject({ from: '2026-01-01', to: '2026-03-03' });
  });

  it('credits available when the line was released before the payment committed (past midnight)', async () => {
    s.clock.set(morningOf(18));
    const t1 = await merchantOn(1);
    await pay(t1, '1000.00');
    // The run of the 19th released the 18th's line while a payment of the 18th was still under way.
    const run = await runTnSettlement(s.deps, s.db, march(19), operatorId);
    expect(run).toMatchObject({ outcome: 'succeeded' });
    s.clock.advance(60_000);
    await pay(t1, '500.00');
    expect(await linesOf(t1.id)).toMatchObject([
      { orderDay: march(18), orders: 1, net: 98_000, status: tnLine.to('release') },
    ]);
    expect(await merchantBalances(s.db, t1.id, 'INR')).toMatchObject({
      collection_pending: 0,
      collection_available: 98_000 + 49_000,
    });
  });

  it.runIf(engine === 'postgres')(
    'keeps pending the sum of pending lines while payments race a run',
    async () => {
      s.clock.set(morningOf(19));
      const t1 = await merchantOn(1);
      await pay(t1, '100.00');
      const orders = [];
      for (let i = 0; i < 12; i++) orders.push(await createOrder(s, t1, { amount: '100.00' }));
      const admin = await s.adminToken();
      const [run] = await Promise.all([
        runTnSettlement(s.deps, s.db, march(20), operatorId),
        ...orders.map((o) => simPay(s, admin, o.orderNo, 'success')),
      ]);
      expect(run).toMatchObject({ outcome: 'succeeded' });
      // Every payment landed on the line before the run released it, or straight in available after.
      const [line] = await linesOf(t1.id);
      expect(line).toMatchObject({ status: tnLine.to('release') });
      expect(await merchantBalances(s.db, t1.id, 'INR')).toMatchObject({
        collection_pending: 0,
        collection_available: 13 * 9_800,
      });
    },
  );

  describe('the tnLine machine', () => {
    for (const c of sweep(tnLine)) {
      it(c.name, async () => {
        s.clock.set(morningOf(19));
        const t1 = await merchantOn(1);
        await pay(t1, '100.00');
        // A run is what releases: into `released` by the run of the due day.
        if (c.state === tnLine.to('release')) await runTnSettlement(s.deps, s.db, march(20), operatorId);
        const [before] = await linesOf(t1.id);
        expect(before!.status).toBe(c.state);
        const entries = await releasesOf(t1.id);
        const run = await runTnSettlement(s.deps, s.db, march(20), operatorId);
        const [after] = await linesOf(t1.id);
        expect(after!.status).toBe(c.after);
        if (c.allowed) {
          expect(after).toMatchObject({ runId: run!.id });
          expect(await releasesOf(t1.id)).toHaveLength(entries.length + 1);
        } else {
          expect(after).toEqual(before);
          expect(await releasesOf(t1.id)).toEqual(entries);
        }
      });
    }
  });
});
