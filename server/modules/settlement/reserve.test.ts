/**
 * The rolling reserve and the merchant's debt (docs/MONEY-BACK.md sections 2 and 4): a paid pay-in's
 * reserve share (rounded down) goes to `reserve` under D0 and T+N and is released by the settlement run
 * of its day, once; a debt is repaid first from the net after the reserve, never more than is owed, also
 * by concurrent payments; the merchant's reserve terms are validated both or neither. After every test
 * the books balance, `reserve` equals the held reserve lines, `collection_pending` the pending T+N lines,
 * and no debt is above zero.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { reserveLine } from '../../../contract/machines.ts';
import { inTransaction } from '../../db/index.ts';
import { journalEntries, merchants, reserveLines, tnLines } from '../../db/schema.ts';
import { checkLedger } from '../../ledger/check.ts';
import {
  checkMerchantDebt,
  merchantBalances,
  platformAccount,
  recordMerchantDebt,
} from '../../ledger/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { sweep } from '../../test/sweep.ts';
import { notifyPayin } from '../payin/notifications.ts';
import { transitionMany } from '../payin/state.ts';
import { createOrder, type Merchant, simPay } from '../payin/testkit.ts';
import { d0Totals } from '../stat/d0.ts';
import { checkReserveLines, reserveShare } from './reserve.ts';
import { checkTnLines, runTnSettlement } from './tn.ts';

/** 10:00 in Kolkata (UTC+05:30, the default business zone) on business day `d` of March 2026. */
const morningOf = (d: number) => new Date(Date.UTC(2026, 2, d, 4, 30));
const march = (d: number) => `2026-03-${String(d).padStart(2, '0')}`;

describe.each(engines)('rolling reserve and merchant debt on %s', (engine) => {
  let s: TestServer;
  let operatorId: number;

  beforeAll(async () => {
    s = await startTestServer(engine);
    operatorId = (await s.makeUser({ perms: [] })).id;
  });
  afterEach(async () => {
    expect(await checkReserveLines(s.db)).toEqual({ ok: true, mismatches: [] });
    expect(await checkTnLines(s.db)).toEqual({ ok: true, mismatches: [] });
    expect(await checkMerchantDebt(s.db)).toEqual({ ok: true, mismatches: [] });
    const ledger = await checkLedger(s.db);
    expect(ledger.balanced).toBe(true);
    expect(ledger.totals.every((t) => t.total === 0)).toBe(true);
  });
  afterAll(() => s.close());

  /** A merchant with a 2 % fee, on T+`days`, keeping `reserveBp` for `reserveDays`. */
  const merchantWith = (opts: { days?: number; reserveBp?: number | null; reserveDays?: number | null }) =>
    s.makeMerchant({
      collectionRatePpm: 20_000,
      platformFee: 0,
      settlementDays: opts.days ?? 0,
      reserveBp: opts.reserveBp ?? null,
      reserveDays: opts.reserveDays ?? null,
    });
  const pay = async (m: Merchant, amount = '1000.00') => {
    const o = await createOrder(s, m, { amount });
    const res = await simPay(s, await s.adminToken(), o.orderNo, 'success');
    expect(res.errno, res.errmsg).toBe(0);
    return o;
  };
  const linesOf = (merchantId: number) =>
    s.db.select().from(reserveLines).where(eq(reserveLines.merchantId, merchantId)).orderBy(reserveLines.id);
  const releasesOf = (merchantId: number) =>
    s.db
      .select()
      .from(journalEntries)
      .where(
        and(
          eq(journalEntries.kind, 'reserve_release'),
          sql`${journalEntries.refId} like ${`%:${merchantId}:%`}`,
        ),
      );
  const balances = (m: { id: number }) => merchantBalances(s.db, m.id, 'INR');
  const run = (day: number) => runTnSettlement(s.deps, s.db, march(day), operatorId);
  const owe = (m: { id: number }, amount: number, ref: string) =>
    inTransaction(s.db, (tx) =>
      recordMerchantDebt(tx, {
        merchantId: m.id,
        currency: 'INR',
        amount,
        refType: 'test_debt',
        refId: ref,
        against: platformAccount('channel_clearing', 'INR'),
        at: s.clock.now(),
      }),
    );

  it('releases the reserve on its day: not the day before, once', async () => {
    s.clock.set(morningOf(10));
    const m = await merchantWith({ reserveBp: 1_000, reserveDays: 7 });
    await pay(m, '1000.00');
    // Net 980.00; 10 % reserved, the rest available at once (D0).
    expect(await balances(m)).toMatchObject({ reserve: 9_800, collection_available: 88_200 });
    expect(await linesOf(m.id)).toMatchObject([
      { releaseDay: march(17), orders: 1, amount: 9_800, status: reserveLine.initial, runId: null },
    ]);
    await run(16);
    expect(await releasesOf(m.id)).toEqual([]);
    expect((await balances(m)).reserve).toBe(9_800);
    const due = await run(17);
    expect(await linesOf(m.id)).toMatchObject([{ status: reserveLine.to('release'), runId: due!.id }]);
    expect(await balances(m)).toMatchObject({ reserve: 0, collection_available: 98_000 });
    expect(await releasesOf(m.id)).toHaveLength(1);
    await run(17);
    await run(18);
    expect(await releasesOf(m.id)).toHaveLength(1);
    expect((await balances(m)).collection_available).toBe(98_000);
    // The D0 summary ties: the payment credited its net less the reserve, the run released the reserve.
    const [totals] = (await d0Totals(s.db, { from: march(10), to: march(18), merchantId: m.id })).totals;
    expect(totals).toMatchObject({
      netCredited: '882.00',
      reserveReleased: '98.00',
      closing: '980.00',
      mismatch: false,
    });
  });

  it('reserves under T+N from the pending share: the T+N line carries only what went to pending', async () => {
    s.clock.set(morningOf(10));
    const m = await merchantWith({ days: 2, reserveBp: 1_000, reserveDays: 7 });
    await pay(m, '1000.00');
    await pay(m, '500.00');
    expect(await balances(m)).toMatchObject({ reserve: 14_700, collection_pending: 132_300 });
    const [line] = await s.db.select().from(tnLines).where(eq(tnLines.merchantId, m.id));
    expect(line).toMatchObject({ gross: 150_000, fee: 3_000, withheld: 14_700, net: 132_300 });
    expect(await linesOf(m.id)).toMatchObject([{ releaseDay: march(17), orders: 2, amount: 14_700 }]);
    await run(12);
    expect(await balances(m)).toMatchObject({
      reserve: 14_700,
      collection_pending: 0,
      collection_available: 132_300,
    });
    await run(17);
    expect(await balances(m)).toMatchObject({ reserve: 0, collection_available: 147_000 });
  });

  it('rounds the reserve share down to the paisa; a merchant without a reserve keeps none', async () => {
    expect(reserveShare(9_999, { reserveBp: 1_000, reserveDays: 7 })).toBe(999);
    expect(reserveShare(9_999, { reserveBp: 1, reserveDays: 7 })).toBe(0);
    expect(reserveShare(9_999, { reserveBp: null, reserveDays: null })).toBe(0);
    s.clock.set(morningOf(10));
    const m = await merchantWith({ reserveBp: 1_050, reserveDays: 3 });
    // 101.00 less its 2 % fee (2.02) is 98.98; 10.5 % of it is 10.3929: 10.39 reserved.
    await pay(m, '101.00');
    expect(await balances(m)).toMatchObject({ reserve: 1_039, collection_available: 9_898 - 1_039 });
    const none = await merchantWith({});
    await pay(none, '101.00');
    expect(await balances(none)).toMatchObject({ reserve: 0, collection_available: 9_898 });
    expect(await linesOf(none.id)).toEqual([]);
  });

  it('repays a debt first: 300.00 owed, a net of 200.00 repays 200.00, the next 100.00 and credits the rest', async () => {
    s.clock.set(morningOf(10));
    const m = await s.makeMerchant({ collectionRatePpm: 0, platformFee: 0, settlementDays: 0 });
    await owe(m, 30_000, `debt-${m.id}`);
    expect((await balances(m)).merchant_debt).toBe(-30_000);
    await pay(m, '200.00');
    expect(await balances(m)).toMatchObject({ merchant_debt: -10_000, collection_available: 0 });
    await pay(m, '200.00');
    expect(await balances(m)).toMatchObject({ merchant_debt: 0, collection_available: 10_000 });
    await pay(m, '50.00');
    expect(await balances(m)).toMatchObject({ merchant_debt: 0, collection_available: 15_000 });
    const wallet = await s.call(endpoints.merchantWallet.info, { merchantId: m.id }, await s.adminToken());
    expect(wallet.data).toMatchObject({ owed: '0.00', reserve: '0.00' });
  });

  it('repays from what is left after the reserve, under T+N out of the pending line', async () => {
    s.clock.set(morningOf(10));
    const m = await s.makeMerchant({
      collectionRatePpm: 0,
      platformFee: 0,
      settlementDays: 1,
      reserveBp: 1_000,
      reserveDays: 7,
    });
    await owe(m, 15_000, `debt-${m.id}`);
    const wallet = await s.call(endpoints.merchantWallet.info, { merchantId: m.id }, await s.adminToken());
    expect(wallet.data).toMatchObject({ owed: '150.00' });
    // Net 200.00: 20.00 reserved, 150.00 repays the debt, 30.00 pending.
    await pay(m, '200.00');
    expect(await balances(m)).toMatchObject({ reserve: 2_000, merchant_debt: 0, collection_pending: 3_000 });
    const [line] = await s.db.select().from(tnLines).where(eq(tnLines.merchantId, m.id));
    expect(line).toMatchObject({ gross: 20_000, withheld: 17_000, net: 3_000 });
    await run(11);
    expect(await balances(m)).toMatchObject({ collection_pending: 0, collection_available: 3_000 });
  });

  it('repays order by order in a batch of payments (a statement import), with the reserve', async () => {
    s.clock.set(morningOf(10));
    const m = await s.makeMerchant({
      collectionRatePpm: 0,
      platformFee: 0,
      settlementDays: 0,
      reserveBp: 1_000,
      reserveDays: 2,
    });
    await owe(m, 25_000, `debt-${m.id}`);
    const orders: Awaited<ReturnType<typeof createOrder>>[] = [];
    for (let i = 0; i < 3; i++) orders.push(await createOrder(s, m, { amount: '100.00' }));
    const paid = await inTransaction(s.db, (tx) =>
      transitionMany(
        s.deps,
        tx,
        'supplement',
        orders.map((o, i) => ({ id: o.id, set: { utr: `UTRBATCH${m.id}X${i}`, paidAt: s.clock.now() } })),
        null,
      ),
    );
    expect(paid).toHaveLength(3);
    // Each net 100.00: 10.00 reserved, 90.00 repays; the third repays the last 70.00 and credits 20.00.
    expect(await balances(m)).toMatchObject({
      reserve: 3_000,
      merchant_debt: 0,
      collection_available: 2_000,
    });
    expect(await linesOf(m.id)).toMatchObject([{ releaseDay: march(12), orders: 3, amount: 3_000 }]);
  });

  it.runIf(engine === 'postgres')(
    'never repays more than is owed when payments of one merchant commit at the same time',
    async () => {
      s.clock.set(morningOf(10));
      const m = await s.makeMerchant({ collectionRatePpm: 0, platformFee: 0, settlementDays: 0 });
      await owe(m, 30_000, `debt-${m.id}`);
      const orders: Awaited<ReturnType<typeof createOrder>>[] = [];
      for (let i = 0; i < 12; i++) orders.push(await createOrder(s, m, { amount: '70.00' }));
      const outcomes = await Promise.all(
        orders.map((o, i) =>
          notifyPayin(s.deps, {
            orderNo: o.orderNo,
            channelId: o.channelId!,
            channelOrderId: o.channelOrderId!,
            result: 'success',
            utr: `UTRDEBT${m.id}X${i}`,
            amount: o.amount,
          }),
        ),
      );
      expect(outcomes.filter((r) => r.applied)).toHaveLength(12);
      // 12 × 70.00 = 840.00 collected: 300.00 repaid, exactly, and 540.00 credited.
      expect(await balances(m)).toMatchObject({ merchant_debt: 0, collection_available: 54_000 });
    },
  );

  it('validates the reserve terms: both or neither, in range; a refused change changes nothing', async () => {
    const admin = await s.adminToken();
    const m = await merchantWith({});
    const update = (input: Record<string, unknown>) =>
      s.call(endpoints.merchant.update, { id: m.id, ...input }, admin);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ reservePercent: '10' }, 'reserveDays'],
      [{ reserveDays: 7 }, 'reservePercent'],
      [{ reservePercent: '50.01', reserveDays: 7 }, 'reservePercent'],
      [{ reservePercent: '1.234', reserveDays: 7 }, 'reservePercent'],
      [{ reservePercent: '-1', reserveDays: 7 }, 'reservePercent'],
      [{ reservePercent: '10', reserveDays: 0 }, 'reserveDays'],
      [{ reservePercent: '10', reserveDays: 181 }, 'reserveDays'],
      [{ reservePercent: '10', reserveDays: 1.5 }, 'reserveDays'],
    ];
    const [before] = await s.db.select().from(merchants).where(eq(merchants.id, m.id));
    for (const [input, path] of cases) {
      const res = await update(input);
      expect(res.errno, `${JSON.stringify(input)}: ${res.errmsg}`).toBe(errno.invalid);
      expect(res.data.fields.map((f: { path: string }) => f.path)).toContain(path);
    }
    const [after] = await s.db.select().from(merchants).where(eq(merchants.id, m.id));
    expect(after).toEqual(before);

    expect((await update({ reservePercent: '12.5', reserveDays: 30 })).errno).toBe(0);
    const info = await s.call(endpoints.merchant.info, { id: m.id }, admin);
    expect(info.data).toMatchObject({ reservePercent: '12.50', reserveDays: 30 });
    // Clearing the share alone leaves days without a share: refused, the share named.
    expect((await update({ reservePercent: null })).data.fields[0].path).toBe('reservePercent');
    expect((await update({ reservePercent: '0', reserveDays: null })).errno).toBe(0);
    expect((await s.call(endpoints.merchant.info, { id: m.id }, admin)).data).toMatchObject({
      reservePercent: null,
      reserveDays: null,
    });
    const created = await s.call(
      endpoints.merchant.create,
      {
        name: 'Reserve Co',
        owner: { username: `reserve_${m.id}`, password: 'Owner1234!x' },
        reservePercent: '5',
      },
      admin,
    );
    expect(created.errno).toBe(errno.invalid);
    expect(created.data.fields[0].path).toBe('reserveDays');
  });

  describe('the reserveLine machine', () => {
    for (const c of sweep(reserveLine)) {
      it(c.name, async () => {
        s.clock.set(morningOf(19));
        const m = await merchantWith({ reserveBp: 1_000, reserveDays: 1 });
        await pay(m, '100.00');
        // A run is what releases: into `released` by the run of the release day.
        if (c.state === reserveLine.to('release')) await run(20);
        const [before] = await linesOf(m.id);
        expect(before!.status).toBe(c.state);
        const entries = await releasesOf(m.id);
        const done = await run(20);
        const [after] = await linesOf(m.id);
        expect(after!.status).toBe(c.after);
        if (c.allowed) {
          expect(after).toMatchObject({ runId: done!.id });
          expect(await releasesOf(m.id)).toHaveLength(entries.length + 1);
        } else {
          expect(after).toEqual(before);
          expect(await releasesOf(m.id)).toEqual(entries);
        }
      });
    }
  });
});
