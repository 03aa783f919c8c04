/**
 * The D0 settlement summary: over three business days a D0 and a T+1 merchant are paid (one order
 * created before midnight and paid after it), the D0 merchant's settlements are applied, confirmed lower
 * and completed, rejected, left open, and it moves money to its payout wallet; a T+N run releases the
 * T+1 merchant's pending. Every column is worked out by hand and the closing agrees with the ledger; a
 * posting of a cause the summary does not know is flagged. Tenancy, paging and refused input too.
 */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { inTransaction } from '../../db/index.ts';
import { merchants } from '../../db/schema.ts';
import { checkLedger } from '../../ledger/check.ts';
import { merchantAccount, platformAccount, post } from '../../ledger/index.ts';
import { engines, startTestServer, type TestServer } from '../../test/harness.ts';
import { codeAt } from '../auth/totp.ts';
import { createOrder, expectBalanced, type Merchant, simPay } from '../payin/testkit.ts';
import {
  applySettlement,
  completeSettlement,
  confirmSettlement,
  loadSettlement,
  rejectSettlement,
} from '../settlement/service.ts';
import { runTnSettlement } from '../settlement/tn.ts';

const { balance } = endpoints.statOrder;
const minute = 60_000;
/** 10:00 in Kolkata (UTC+05:30) on business day `d` of March 2026. */
const morningOf = (d: number) => new Date(Date.UTC(2026, 2, d, 4, 30));
const bank = {
  type: 'bank',
  accountName: 'Asha Traders',
  cardNumber: '123456789012',
  ifsc: 'HDFC0001234',
} as const;

type Row = {
  day: string;
  merchantId: number;
  merchantCode: string;
  currency: string;
  opening: string;
  paidCount: number;
  gross: string;
  fees: string;
  netCredited: string;
  reserveReleased: string;
  settledOut: string;
  transferred: string;
  adjustments: string;
  frozen: string;
  writtenOff: string;
  closing: string;
  ledgerClosing: string;
  mismatch: boolean;
};

/** A row with nothing but its balance: flows zero, closing the opening. */
const still = (balanceNow: string) => ({
  opening: balanceNow,
  paidCount: 0,
  gross: '0.00',
  fees: '0.00',
  netCredited: '0.00',
  reserveReleased: '0.00',
  settledOut: '0.00',
  transferred: '0.00',
  adjustments: '0.00',
  frozen: '0.00',
  writtenOff: '0.00',
  closing: balanceNow,
  ledgerClosing: balanceNow,
  mismatch: false,
});

describe.each(engines)('D0 settlement summary on %s', (engine) => {
  let s: TestServer;
  let d0: Merchant;
  let t1: Merchant;
  let platform: string;
  let d0Finance: string;

  const pay = async (m: Merchant, amount: string) => {
    const o = await createOrder(s, m, { amount });
    expect((await simPay(s, await s.adminToken(), o.orderNo, 'success')).errno).toBe(0);
    return o;
  };
  const merchantRow = async (id: number) =>
    (await s.db.select().from(merchants).where(eq(merchants.id, id)))[0]!;
  const query = async (token: string, input: Record<string, unknown>) =>
    s.call(balance, { view: 'd0', from: '2026-03-10', to: '2026-03-12', ...input }, token);
  const rowsOf = async (token: string, input: Record<string, unknown> = {}) => {
    const res = await query(token, input);
    expect(res.errno, res.errmsg).toBe(0);
    return res.data as {
      list: Row[];
      total: number;
      nextCursor: string | null;
      totals: Record<string, unknown>[];
    };
  };

  beforeAll(async () => {
    s = await startTestServer(engine);
    s.clock.set(morningOf(10));
    d0 = await s.makeMerchant({
      collectionRatePpm: 20_000,
      platformFee: 0,
      settlementDays: 0,
      settlementRatePpm: 10_000,
      settlementFee: 500,
    });
    t1 = await s.makeMerchant({ collectionRatePpm: 30_000, platformFee: 0, settlementDays: 1 });
    const confirmer = await s.makeUser({ perms: [] });
    const completer = await s.makeUser({ perms: [] });
    // 10 March: the D0 merchant is paid 100.00 and 250.00 (2 % fees), the T+1 merchant 500.00 (3 %).
    const first = await pay(d0, '100.00');
    expect(first.fee).toBe(200);
    await pay(d0, '250.00');
    await pay(t1, '500.00');
    // 23:55: an order of 200.00 created on the 10th, paid at 00:05 on the 11th.
    s.clock.set(new Date(Date.UTC(2026, 2, 10, 18, 25)));
    const late = await createOrder(s, d0, { amount: '200.00' });
    s.clock.advance(10 * minute);
    expect((await simPay(s, await s.adminToken(), late.orderNo, 'success')).errno).toBe(0);

    // 11 March: a settlement of 100.00 (fee 1 % + 5.00 = 6.00) confirmed at 80.00 and completed; one
    // of 120.00 (fee 6.20) rejected; 30.00 moved to the payout wallet.
    s.clock.set(morningOf(11));
    const m = await merchantRow(d0.id);
    await inTransaction(s.db, async (tx) => {
      const one = await applySettlement(s.deps, tx, m, 'collection', { ...bank, amount: 10_000 }, null, 'en');
      expect(one.fee).toBe(600);
      const locked = await loadSettlement(tx, { id: one.id }, {}, true);
      await confirmSettlement(s.deps, tx, locked, { auditAmount: 8_000 }, confirmer.id, 'en');
      await completeSettlement(s.deps, tx, one.id, { reference: 'UTR123456' }, completer.id);
      const two = await applySettlement(s.deps, tx, m, 'collection', { ...bank, amount: 12_000 }, null, 'en');
      await rejectSettlement(
        s.deps,
        tx,
        await loadSettlement(tx, { id: two.id }, {}, true),
        'no',
        confirmer.id,
      );
    });
    const owner = await s.login(d0.ownerUsername, d0.ownerPassword);
    const secret = await s.bindGoogle(owner);
    s.clock.advance(30_000);
    const moved = await s.call(
      endpoints.merchantWallet.transfer,
      { amount: '30.00', code: codeAt(secret, s.clock.now()) },
      owner,
    );
    expect(moved.errno, moved.errmsg).toBe(0);

    // 12 March: the run releases the T+1 merchant's 10 March (due the 11th); the D0 merchant applies for
    // 100.00 more (held 106.00, still open).
    s.clock.set(morningOf(12));
    const run = await runTnSettlement(s.deps, s.db, '2026-03-11', confirmer.id);
    expect(run).toMatchObject({ outcome: 'succeeded', amountReleased: 48_500 });
    await inTransaction(s.db, (tx) =>
      applySettlement(s.deps, tx, m, 'collection', { ...bank, amount: 10_000 }, null, 'en'),
    );
    // Signed in now: a session of the 10th has expired by the 12th.
    platform = (await s.makeUser({ perms: [balance.permission] })).token;
    d0Finance = (await s.makeUser({ kind: 'merchant', merchantId: d0.id, perms: [balance.permission] }))
      .token;
  });
  afterAll(() => s.close());

  it('works out every column by hand, each closing the ledger’s', async () => {
    const { list, nextCursor, totals } = await rowsOf(platform);
    expect(nextCursor).toBeNull();
    const key = (r: Row) => `${r.day} ${r.merchantId === d0.id ? 'D0' : 'T1'}`;
    expect(list.map(key)).toEqual([
      '2026-03-12 D0',
      '2026-03-12 T1',
      '2026-03-11 D0',
      '2026-03-10 D0',
      '2026-03-10 T1',
    ]);
    const [d0Day12, t1Day12, d0Day11, d0Day10, t1Day10] = list;
    // Three orders created on the 10th (100 + 250 + 200, fees 2 + 5 + 4); the 200.00 was credited on the 11th.
    expect(d0Day10).toMatchObject({
      merchantCode: d0.code,
      currency: 'INR',
      ...still('0.00'),
      paidCount: 3,
      gross: '550.00',
      fees: '11.00',
      netCredited: '343.00',
      closing: '343.00',
      ledgerClosing: '343.00',
    });
    expect(t1Day10).toMatchObject({
      ...still('0.00'),
      paidCount: 1,
      gross: '500.00',
      fees: '15.00',
      netCredited: '485.00',
      closing: '485.00',
      ledgerClosing: '485.00',
    });
    // 343 + 196 − (106 − 20, the first hold lowered at confirmation; the second held and released) − 30.
    expect(d0Day11).toMatchObject({
      ...still('343.00'),
      netCredited: '196.00',
      settledOut: '86.00',
      transferred: '30.00',
      closing: '423.00',
      ledgerClosing: '423.00',
    });
    // The release moved pending to available: the wallet is as it was.
    expect(t1Day12).toMatchObject(still('485.00'));
    expect(d0Day12).toMatchObject({
      ...still('423.00'),
      settledOut: '106.00',
      closing: '317.00',
      ledgerClosing: '317.00',
    });
    expect(totals).toEqual([
      {
        merchants: 2,
        currency: 'INR',
        opening: '0.00',
        paidCount: 4,
        gross: '1050.00',
        fees: '26.00',
        netCredited: '1024.00',
        reserveReleased: '0.00',
        settledOut: '192.00',
        transferred: '30.00',
        adjustments: '0.00',
        frozen: '0.00',
        writtenOff: '0.00',
        closing: '802.00',
        ledgerClosing: '802.00',
        mismatch: false,
      },
    ]);
    // One merchant over a period that starts after its first day: the opening is the ledger's then.
    const later = await rowsOf(platform, { merchantId: d0.id, from: '2026-03-11' });
    expect(later.list.map((r) => r.day)).toEqual(['2026-03-12', '2026-03-11']);
    expect(later.totals).toEqual([
      expect.objectContaining({
        merchants: 1,
        opening: '343.00',
        paidCount: 0,
        closing: '317.00',
        mismatch: false,
      }),
    ]);
    await expectBalanced(s);
  });

  it('answers the week up to today without a period', async () => {
    const res = await s.call(balance, { view: 'd0' }, platform);
    expect(res.data).toMatchObject({
      from: '2026-03-06',
      to: '2026-03-12',
      businessTimeZone: 'Asia/Kolkata',
    });
    expect(res.data.list.length).toBe(5);
    expect(res.data.total).toBe(5);
  });

  it('answers a quiet period with no rows and the wallets as they stood', async () => {
    const res = await rowsOf(platform, { from: '2026-02-01', to: '2026-02-28' });
    expect(res).toMatchObject({ list: [], total: 0, nextCursor: null });
    expect(res.totals).toEqual([expect.objectContaining({ merchants: 2, ...still('0.00') })]);
    const after = await rowsOf(platform, { from: '2026-03-13', to: '2026-03-20' });
    expect(after.totals).toEqual([expect.objectContaining({ merchants: 2, ...still('802.00') })]);
  });

  it('pages newest day first, then by merchant, each page bounded', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await rowsOf(platform, { pageSize: 2, ...(cursor ? { cursor } : {}) });
      expect(page.list.length).toBeLessThanOrEqual(2);
      seen.push(...page.list.map((r) => `${r.day}/${r.merchantId}`));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual((await rowsOf(platform)).list.map((r) => `${r.day}/${r.merchantId}`));
  });

  it('shows a merchant user its own rows only, and another merchant as not found', async () => {
    const own = await rowsOf(d0Finance);
    expect(own.list.length).toBe(3);
    expect(own.list.every((r) => r.merchantId === d0.id)).toBe(true);
    expect(own.totals).toEqual([expect.objectContaining({ merchants: 1, closing: '317.00' })]);
    expect((await rowsOf(d0Finance, { merchantId: d0.id })).list.length).toBe(3);
    expect((await query(d0Finance, { merchantId: t1.id })).errno).toBe(404);
  });

  it('refuses bad input (422)', async () => {
    for (const input of [
      { view: 'weekly' },
      { from: '2026-03-13' },
      { from: '2026-02-30' },
      { from: '10/03/2026' },
      { from: '2026-01-01', to: '2026-03-04' },
      { cursor: 'bm90LWEtY3Vyc29y' },
      // A day the calendar lacks, and year 0: the database would refuse them (a 500 before).
      { cursor: Buffer.from('2026-02-30|1|INR').toString('base64url') },
      { cursor: Buffer.from('0000-01-01|1|INR').toString('base64url') },
      { pageSize: 0 },
    ]) {
      expect((await query(platform, input)).errno, JSON.stringify(input)).toBe(422);
    }
    // A bad cursor names its field in words, not as a bare key.
    const bad = await query(platform, { cursor: 'bm90LWEtY3Vyc29y' });
    expect((bad.data as { fields: { path: string; message: string }[] }).fields[0]).toMatchObject({
      path: 'cursor',
      message: 'Not valid',
    });
    // A period completed with today (the 12th) must fit too.
    expect((await s.call(balance, { view: 'd0', from: '2026-01-01' }, platform)).errno).toBe(422);
    expect((await s.call(balance, { view: 'd0', from: '2026-03-13' }, platform)).errno).toBe(422);
    // 62 days is the widest period.
    expect((await query(platform, { from: '2026-01-10', to: '2026-03-12' })).errno).toBe(0);
  });

  it('flags a day on which the wallet moved for a cause no column accounts for', async () => {
    await inTransaction(s.db, (tx) =>
      post(tx, {
        kind: 'mystery',
        refType: 'test',
        refId: randomUUID(),
        at: s.clock.now(),
        lines: [
          { account: platformAccount('channel_clearing', 'INR'), amount: -1_000 },
          { account: merchantAccount(d0.id, 'collection_available', 'INR'), amount: 1_000 },
        ],
      }),
    );
    const { list, totals } = await rowsOf(platform, { merchantId: d0.id });
    expect(list.map((r) => [r.day, r.mismatch])).toEqual([
      ['2026-03-12', true],
      ['2026-03-11', false],
      ['2026-03-10', false],
    ]);
    expect(list[0]).toMatchObject({ closing: '317.00', ledgerClosing: '327.00' });
    expect(totals).toEqual([
      expect.objectContaining({ closing: '317.00', ledgerClosing: '327.00', mismatch: true }),
    ]);
    // The books themselves are whole: the daily movements hold the posting too.
    expect((await checkLedger(s.db)).balanced).toBe(true);
  });
});
