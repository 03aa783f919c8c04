/**
 * The reports of OPERATIONS.md section 3 on both engines:
 * (a) for random pay-ins and payouts (fast-check) made through the gateway and the simulator across days,
 *     merchants, channels and end states, each merchant's order statistics over a period (whole, and by
 *     channel) equal the order lists' totals with the same filters;
 * (b) the settlement statistics: opening + every movement = closing = the ledger's balance, after real
 *     pay-ins, recharges, payouts, a settlement application and a transfer;
 * (c) the channel statistics worked by hand for one channel and day, the median time to pay included;
 * (d) tenancy, refused periods, cursor paging; (e) each export equals the JSON rows and totals.
 */
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payTimeBounds } from '../../../contract/endpoints/stat.ts';
import { endpoints } from '../../../contract/index.ts';
import { inTransaction } from '../../db/index.ts';
import { channels, merchants } from '../../db/schema.ts';
import { merchantBalances, rowsOf } from '../../ledger/index.ts';
import { engines, startTestServer, type TestServer } from '../../test/harness.ts';
import { codeAt } from '../auth/totp.ts';
import {
  createOrder,
  expectBalanced,
  type Merchant,
  makeChannel,
  setRoutes,
  simPay,
} from '../payin/testkit.ts';
import { drainQueue, orderByNo, payoutBody, seedPayoutBalance } from '../payout/testkit.ts';
import { applySettlement } from '../settlement/service.ts';
import { medianOf } from './channels.ts';

const ep = endpoints.statOrder;
/** 10:00 in Kolkata (UTC+05:30) on day `d` of March 2026. */
const morningOf = (d: number) => new Date(Date.UTC(2026, 2, d, 4, 30));
/** The instant business day `d` of March 2026 begins in Kolkata. */
const startOf = (d: number) => new Date(Date.UTC(2026, 2, d - 1, 18, 30));
const dayOf = (d: number) => `2026-03-${String(d).padStart(2, '0')}`;
const inside = '203.0.113.7';
const payoutTerms = { payoutRatePpm: 10_000, payoutFee: 500, payoutIpWhitelist: ['203.0.113.0/24'] };

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read field by field, as the harness gives them.
type Json = Record<string, any>;

describe('median time to pay (no database)', () => {
  it('interpolates inside the middle bucket; the open last bucket answers its lower bound', () => {
    expect(medianOf([])).toBeNull();
    // 1 in [15, 30), 1 in [90, 120), 1 in [600, 900): the middle (1.5th) order is halfway through [90, 120).
    expect(medianOf([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1])).toBe(105);
    // Four in [0, 15): the 2nd of 4 is at half the bucket.
    expect(medianOf([4])).toBe(8);
    const open: number[] = [];
    open[payTimeBounds.length] = 3;
    expect(medianOf(open)).toBe(payTimeBounds.at(-1));
  });
});

describe.each(engines)('reports on %s', (engine) => {
  let s: TestServer;
  let platform: string;

  type Ep = Parameters<TestServer['call']>[0];
  const ok = async (endpoint: Ep, input: Json, token = platform) => {
    const res = await s.call(endpoint, input, token);
    expect(res.errno, `${res.errmsg} ${JSON.stringify(input)}`).toBe(0);
    return res.data as Json;
  };
  /** Every row of a report, page after page. */
  const allRows = async (endpoint: Ep, input: Json, token = platform) => {
    const rows: Json[] = [];
    let cursor: string | null = null;
    do {
      const page = await ok(endpoint, { ...input, ...(cursor ? { cursor } : {}) }, token);
      rows.push(...page.list);
      cursor = page.nextCursor;
    } while (cursor);
    return rows;
  };
  const pay = async (m: Merchant, amount: string, result: 'success' | 'fail' | null, afterMs = 0) => {
    const o = await createOrder(s, m, { amount });
    s.clock.advance(afterMs);
    // Signed in afresh: the clock moves across days, past a session's life.
    if (result) expect((await simPay(s, await s.adminToken(), o.orderNo, result)).errno).toBe(0);
    return o;
  };
  /** A payout through the gateway: left queued, or submitted and settled by the simulator. */
  const payOut = async (m: Merchant, amount: string, result: 'success' | 'fail' | null) => {
    const res = await s.gateway(m, 'POST', '/gateway/v1/payout', payoutBody({ amount }), { ip: inside });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    if (!result) return;
    await drainQueue(s);
    const o = await orderByNo(s, res.json.data.orderNo);
    const done = await s.call(
      endpoints.simulator.payout,
      { orderNo: o.orderNo, result },
      await s.adminToken(),
    );
    expect(done.errno, done.errmsg).toBe(0);
  };

  beforeAll(async () => {
    s = await startTestServer(engine);
    s.clock.set(morningOf(10));
  });
  afterAll(() => s.close());

  it('keeps the pay-time buckets of the contract in the database', async () => {
    const [row] = rowsOf<{ b: number[] }>(await s.db.execute(sql`select pay_time_bounds() as b`));
    expect(row!.b.map(Number)).toEqual([...payTimeBounds]);
  });

  it('(a) equals the order lists’ totals for each merchant, period and channel (fast-check)', async () => {
    const [sim] = await s.db.select().from(channels).where(eq(channels.code, 'simulator'));
    const other = await makeChannel(s);
    const channelIds = [sim!.id, other.id];
    const payinArb = fc.record({
      merchant: fc.integer({ min: 0, max: 1 }),
      channel: fc.integer({ min: 0, max: 1 }),
      day: fc.integer({ min: 0, max: 2 }),
      end: fc.constantFrom('success', 'fail', null),
      amount: fc.integer({ min: 100, max: 500_000 }),
      delay: fc.integer({ min: 0, max: 4_000 }),
    });
    const payoutArb = fc.record({
      merchant: fc.integer({ min: 0, max: 1 }),
      day: fc.integer({ min: 0, max: 2 }),
      end: fc.constantFrom('success', 'fail', null),
      amount: fc.integer({ min: 100, max: 500_000 }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(payinArb, { minLength: 1, maxLength: 8 }),
        fc.array(payoutArb, { maxLength: 4 }),
        fc.integer({ min: 0, max: 2 }),
        async (payins, payouts, firstDay) => {
          // Each run on three days of its own, with merchants of its own.
          const base = 2 + 4 * run++;
          s.clock.set(morningOf(base));
          const ms = [
            await s.makeMerchant({ collectionRatePpm: 25_000, ...payoutTerms }),
            await s.makeMerchant({ collectionRatePpm: 15_000, platformFee: 0, ...payoutTerms }),
          ];
          for (const m of ms) await seedPayoutBalance(s, m.id, 100_000_000);
          for (let day = 0; day < 3; day++) {
            s.clock.set(morningOf(base + day));
            for (const p of payins.filter((x) => x.day === day)) {
              await setRoutes(s, ms[p.merchant]!.id, [{ channelId: channelIds[p.channel]!, weight: 100 }]);
              await pay(ms[p.merchant]!, (p.amount / 100).toFixed(2), p.end, p.delay * 1000);
            }
            await setRoutes(s, ms[0]!.id, [{ channelId: sim!.id, weight: 100 }]);
            await setRoutes(s, ms[1]!.id, [{ channelId: sim!.id, weight: 100 }]);
            for (const p of payouts.filter((x) => x.day === day))
              await payOut(ms[p.merchant]!, (p.amount / 100).toFixed(2), p.end);
          }
          s.clock.set(morningOf(base + 3));
          const token = (
            await s.makeUser({
              perms: [
                ep.list.permission,
                endpoints.merchantOrder.totals.permission,
                endpoints.merchantPayout.totals.permission,
              ],
            })
          ).token;
          const from = base + firstDay;
          const to = base + 2;
          const listPeriod = {
            from: startOf(from).toISOString(),
            to: new Date(startOf(to + 1).getTime() - 1).toISOString(),
          };
          for (const m of ms) {
            for (const channelId of [undefined, ...channelIds]) {
              const filter = { merchantId: m.id, ...(channelId ? { channelId } : {}) };
              const report = await ok(ep.list, { from: dayOf(from), to: dayOf(to), ...filter }, token);
              const totals = report.totals[0] ?? {
                payinCreated: 0,
                payinPaid: 0,
                payinPaidAmount: '0.00',
                payoutCreated: 0,
                payoutSucceeded: 0,
                payoutAmount: '0.00',
              };
              const count = async (e: Ep, status?: string) =>
                ok(e, { ...listPeriod, ...filter, ...(status ? { status } : {}) }, token);
              const created = await count(endpoints.merchantOrder.totals);
              const paid = await count(endpoints.merchantOrder.totals, 'paid');
              expect([totals.payinCreated, totals.payinPaid, totals.payinPaidAmount]).toEqual([
                created.count,
                paid.count,
                paid.amount,
              ]);
              const outs = await count(endpoints.merchantPayout.totals);
              const succeeded = await count(endpoints.merchantPayout.totals, 'success');
              expect([totals.payoutCreated, totals.payoutSucceeded, totals.payoutAmount]).toEqual([
                outs.count,
                succeeded.count,
                succeeded.amount,
              ]);
              // The rows add up to the totals.
              const rows = await allRows(ep.list, { from: dayOf(from), to: dayOf(to), ...filter }, token);
              expect(rows.reduce((n, r) => n + r.payinCreated, 0)).toBe(created.count);
            }
          }
        },
      ),
      { numRuns: 6 },
    );
    await expectBalanced(s);
  }, 240_000);

  describe('a small hand-worked case', () => {
    let m: Merchant;
    let n: Merchant;
    let chan: { id: number; code: string };
    let finance: string;

    beforeAll(async () => {
      s.clock.set(morningOf(26));
      chan = await makeChannel(s);
      await s.db
        .update(channels)
        .set({ payinCostPpm: 12_345, payoutCostPpm: 5_000, payoutCostFixed: 300 })
        .where(eq(channels.id, chan.id));
      m = await s.makeMerchant({
        collectionRatePpm: 20_000,
        platformFee: 0,
        ...payoutTerms,
        channels: [{ channelId: chan.id, weight: 100 }],
      });
      n = await s.makeMerchant({ collectionRatePpm: 20_000, platformFee: 0, ...payoutTerms });
      await seedPayoutBalance(s, m.id, 1_000_000);
      // 26 March through the channel: paid after 20 s, 100 s and 700 s; one failed, one still pending.
      await pay(m, '100.00', 'success', 20_000);
      await pay(m, '250.00', 'success', 100_000);
      await pay(m, '50.00', 'success', 700_000);
      await pay(m, '80.00', 'fail');
      await pay(m, '60.00', null);
      // Payouts of 1000.00 (fee 15.00) succeeded, 200.00 failed, 300.00 still queued.
      await payOut(m, '1000.00', 'success');
      await payOut(m, '200.00', 'fail');
      await payOut(m, '300.00', null);
      // The other merchant on the simulator, on the 27th.
      s.clock.set(morningOf(27));
      await pay(n, '10.00', 'success', 5_000);
      finance = (
        await s.makeUser({
          kind: 'merchant',
          merchantId: m.id,
          perms: [ep.list.permission, ep.listExport.permission, ep.balance.permission, ep.channel.permission],
        })
      ).token;
      platform = (await s.makeUser({ perms: Object.values(ep).map((e) => e.permission) })).token;
    });

    it('(c) works out the channel statistics by hand', async () => {
      const report = await ok(ep.channel, { from: dayOf(26), to: dayOf(27), channelId: chan.id });
      const figures = {
        payinCreated: 5,
        payinPaid: 3,
        payinSuccessRate: 0.75,
        payinAmount: '400.00',
        // Buckets [15, 30), [90, 120), [600, 900): the middle order halfway through [90, 120).
        medianPaySeconds: 105,
        // The queued payout has no channel yet: it counts under none (the order statistics' null row).
        payoutCreated: 2,
        payoutSucceeded: 1,
        payoutSuccessRate: 0.5,
        payoutAmount: '1000.00',
        // 400.00 × 1.2345 % = 4.938 → 4.94; 1000.00 × 0.5 % + 3.00 = 8.00.
        channelCost: '12.94',
        // Pay-in fees 2 % (8.00) and the payout's 15.00.
        feeIncome: '23.00',
        margin: '10.06',
      };
      expect(report.list).toEqual([
        {
          day: dayOf(26),
          channelId: chan.id,
          channelCode: chan.code,
          channelName: 'Test channel',
          currency: 'INR',
          ...figures,
        },
      ]);
      expect(report.totals).toEqual([{ currency: 'INR', ...figures }]);
      expect(report.series).toEqual([{ day: dayOf(26), currency: 'INR', ...figures }]);
      expect(report.businessTimeZone).toBe('Asia/Kolkata');
      // The order statistics of the same day, by channel.
      const orders = await ok(ep.list, {
        from: dayOf(26),
        to: dayOf(26),
        merchantId: m.id,
        byChannel: 'true',
      });
      expect(orders.list).toEqual([
        {
          day: dayOf(26),
          merchantId: m.id,
          merchantCode: m.code,
          channelId: null,
          channelName: null,
          currency: 'INR',
          payinCreated: 0,
          payinPaid: 0,
          payinSuccessRate: null,
          payinPaidAmount: '0.00',
          payinFee: '0.00',
          payinNet: '0.00',
          payoutCreated: 1,
          payoutSucceeded: 0,
          payoutAmount: '0.00',
          payoutFee: '0.00',
        },
        {
          day: dayOf(26),
          merchantId: m.id,
          merchantCode: m.code,
          channelId: chan.id,
          channelName: 'Test channel',
          currency: 'INR',
          payinCreated: 5,
          payinPaid: 3,
          payinSuccessRate: 0.75,
          payinPaidAmount: '400.00',
          payinFee: '8.00',
          payinNet: '392.00',
          payoutCreated: 2,
          payoutSucceeded: 1,
          payoutAmount: '1000.00',
          payoutFee: '15.00',
        },
      ]);
      await expectBalanced(s);
    });

    it('(d) confines a merchant user to its own rows and keeps channels from it', async () => {
      const own = await ok(ep.list, { from: dayOf(26), to: dayOf(27) }, finance);
      expect(own.list.map((r: Json) => r.merchantId)).toEqual([m.id]);
      expect(own.list[0].channelId).toBeNull();
      const mine = await ok(ep.list, { from: dayOf(26), to: dayOf(27), merchantId: m.id }, finance);
      expect(mine.list).toEqual(own.list);
      expect((await s.call(ep.list, { merchantId: n.id }, finance)).errno).toBe(404);
      for (const input of [{ byChannel: 'true' }, { channelId: chan.id }])
        expect((await s.call(ep.list, input, finance)).errno).toBe(403);
      expect((await s.call(ep.channel, {}, finance)).errno).toBe(403);
      const wallets = await ok(ep.balance, { view: 'merchant', from: dayOf(26), to: dayOf(27) }, finance);
      expect(new Set(wallets.list.map((r: Json) => r.merchantId))).toEqual(new Set([m.id]));
      expect((await s.call(ep.balance, { view: 'merchant', merchantId: n.id }, finance)).errno).toBe(404);
      // The platform sees both merchants.
      const both = await ok(ep.list, { from: dayOf(26), to: dayOf(27) });
      expect(both.list.map((r: Json) => [r.day, r.merchantId])).toEqual([
        [dayOf(27), n.id],
        [dayOf(26), m.id],
      ]);
    });

    it('(d) refuses a bad period or cursor and pages by cursor', async () => {
      for (const e of [ep.list, ep.channel]) {
        for (const period of [
          { from: dayOf(27), to: dayOf(26) },
          { from: '2026-01-01', to: dayOf(26) },
          { from: '2026-02-30' },
        ]) {
          const res = await s.call(e, period, platform);
          expect(res.errno, JSON.stringify(period)).toBe(422);
        }
        expect((await s.call(e, { cursor: 'bm9wZQ' }, platform)).errno).toBe(422);
      }
      // A `from` alone more than 62 days before today (the default `to`) is refused.
      expect((await s.call(ep.list, { from: '2026-01-01' }, platform)).errno).toBe(422);
      const whole = await ok(ep.list, { from: dayOf(1), to: dayOf(27), byChannel: 'true' });
      expect(whole.total).toBeGreaterThan(2);
      const paged = await allRows(ep.list, { from: dayOf(1), to: dayOf(27), byChannel: 'true', pageSize: 2 });
      expect(paged).toEqual(
        (await ok(ep.list, { from: dayOf(1), to: dayOf(27), byChannel: 'true', pageSize: 100 })).list,
      );
      expect(paged).toHaveLength(whole.total);
      const channelsPaged = await allRows(ep.channel, { from: dayOf(1), to: dayOf(27), pageSize: 1 });
      expect(channelsPaged).toEqual(
        (await ok(ep.channel, { from: dayOf(1), to: dayOf(27), pageSize: 100 })).list,
      );
      const walletsPaged = await allRows(ep.balance, {
        view: 'merchant',
        from: dayOf(1),
        to: dayOf(27),
        pageSize: 3,
      });
      expect(walletsPaged).toEqual(
        (await ok(ep.balance, { view: 'merchant', from: dayOf(1), to: dayOf(27), pageSize: 100 })).list,
      );
    });

    /** The raw answer of an export. */
    const download = async (path: string, query: Json, token = platform) => {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) qs.append(k, String(v));
      const res = await s.app.request(`http://localhost/api${path}?${qs}`, {
        headers: { 'admin-token': token, 'accept-language': 'en', 'x-forwarded-for': '10.0.0.1' },
      });
      return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
    };
    const cell = (k: string, v: unknown) =>
      v === null || v === undefined ? '' : k.endsWith('SuccessRate') ? (v as number).toFixed(4) : String(v);

    it('(e) exports equal the JSON rows, then the totals', async () => {
      const cases = [
        {
          path: '/statOrder/list/export',
          endpoint: ep.list,
          query: { from: dayOf(1), to: dayOf(27), byChannel: 'true' },
          columns: [
            'day',
            'merchantCode',
            'channelName',
            'currency',
            'payinCreated',
            'payinPaid',
            'payinSuccessRate',
            'payinPaidAmount',
            'payinFee',
            'payinNet',
            'payoutCreated',
            'payoutSucceeded',
            'payoutAmount',
            'payoutFee',
          ],
        },
        {
          path: '/statOrder/channel/export',
          endpoint: ep.channel,
          query: { from: dayOf(1), to: dayOf(27) },
          columns: [
            'day',
            'channelCode',
            'channelName',
            'currency',
            'payinCreated',
            'payinPaid',
            'payinSuccessRate',
            'payinAmount',
            'medianPaySeconds',
            'payoutCreated',
            'payoutSucceeded',
            'payoutSuccessRate',
            'payoutAmount',
            'channelCost',
            'feeIncome',
            'margin',
          ],
        },
        {
          path: '/statOrder/balance/export',
          endpoint: ep.balance,
          query: { from: dayOf(1), to: dayOf(27) },
          view: 'merchant',
          columns: [
            'merchantCode',
            'merchantName',
            'wallet',
            'currency',
            'opening',
            'collected',
            'payouts',
            'settlements',
            'recharges',
            'transfers',
            'adjustments',
            'other',
            'closing',
            'ledgerClosing',
            'mismatch',
          ],
        },
      ];
      for (const c of cases) {
        const input = { ...c.query, ...(c.view ? { view: c.view } : {}), pageSize: 100 };
        const json = await ok(c.endpoint, input);
        const asCells = (r: Json, total: boolean) =>
          c.columns.map((k, i) =>
            i === 0 && total
              ? 'Total'
              : k === 'wallet'
                ? r[k] === 'collection'
                  ? 'Collection wallet'
                  : 'Payout wallet'
                : k === 'mismatch'
                  ? r[k]
                    ? 'Yes'
                    : 'No'
                  : cell(k, r[k]),
          );
        const expected = [
          ...json.list.map((r: Json) => asCells(r, false)),
          ...json.totals.map((r: Json) => asCells(r, true)),
        ];
        const csv = await download(c.path, { ...c.query, format: 'csv' });
        expect(csv.status).toBe(200);
        expect(csv.headers.get('content-disposition')).toContain('.csv');
        const records = parse(csv.body, { bom: true }) as string[][];
        expect(records[0]).toHaveLength(c.columns.length);
        expect(records.slice(1)).toEqual(expected);
        const xlsx = await download(c.path, { ...c.query, format: 'xlsx' });
        expect(xlsx.status).toBe(200);
        const book = new ExcelJS.Workbook();
        await book.xlsx.load(xlsx.body as never);
        const values: string[][] = [];
        book.worksheets[0]!.eachRow((row) => {
          values.push(
            Array.from({ length: c.columns.length }, (_, i) => {
              const v = (row.values as unknown[])[i + 1];
              return v == null ? '' : String(v);
            }),
          );
        });
        expect(values).toEqual(records);
      }
      // A merchant user's file is its own rows; by channel it is refused.
      const own = await download(
        '/statOrder/list/export',
        { from: dayOf(26), to: dayOf(27), format: 'csv' },
        finance,
      );
      expect((parse(own.body, { bom: true }) as string[][]).slice(1).map((r) => r[1])).toEqual([m.code, '']);
      const refused = await download('/statOrder/list/export', { byChannel: 'true', format: 'csv' }, finance);
      expect(JSON.parse(refused.body.toString('utf8')).errno).toBe(403);
    });
  });

  it('(b) settlement statistics: opening + movements = closing = the ledger', async () => {
    s.clock.set(morningOf(29));
    const m = await s.makeMerchant({
      collectionRatePpm: 20_000,
      platformFee: 0,
      settlementDays: 0,
      ...payoutTerms,
    });
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    const ownerKey = await s.bindGoogle(owner);
    const confirmer = await s.makeKeyHolder([endpoints.merchantRechargeLog.confirm.permission]);
    const recharge = async (amount: string) => {
      const made = await s.call(
        endpoints.merchantRechargeLog.create,
        { amount, reference: randomUUID() },
        owner,
      );
      expect(made.errno, made.errmsg).toBe(0);
      const done = await s.call(
        endpoints.merchantRechargeLog.confirm,
        { id: made.data.id, code: confirmer.code(), reason: 'seen in the bank' },
        confirmer.token,
      );
      expect(done.errno, done.errmsg).toBe(0);
    };
    // 29 March: paid 500.00 (fee 10.00), recharged 2000.00, a payout of 300.00 (fee 8.00) succeeded.
    await pay(m, '500.00', 'success', 30_000);
    await recharge('2000.00');
    await payOut(m, '300.00', 'success');
    // 30 March: paid 100.00 (2.00), a payout of 100.00 failed, 50.00 moved to the payout wallet, a
    // settlement of 200.00 applied (held with its fee).
    s.clock.set(morningOf(30));
    const owner30 = await s.login(m.ownerUsername, m.ownerPassword, codeAt(ownerKey, s.clock.now()));
    await pay(m, '100.00', 'success', 10_000);
    await payOut(m, '100.00', 'fail');
    s.clock.advance(30_000);
    const moved = await s.call(
      endpoints.merchantWallet.transfer,
      { amount: '50.00', code: codeAt(ownerKey, s.clock.now()) },
      owner30,
    );
    expect(moved.errno, moved.errmsg).toBe(0);
    const [row] = await s.db.select().from(merchants).where(eq(merchants.id, m.id));
    const applied = await inTransaction(s.db, (tx) =>
      applySettlement(
        s.deps,
        tx,
        row!,
        'collection',
        {
          type: 'bank',
          accountName: 'Asha Traders',
          cardNumber: '123456789012',
          ifsc: 'HDFC0001234',
          amount: 20_000,
        },
        null,
        'en',
      ),
    );
    const held = (20_000 + applied.fee) / 100;
    const token = (await s.makeUser({ perms: [ep.balance.permission] })).token;
    const view = async (from: number, to: number) =>
      ok(ep.balance, { view: 'merchant', from: dayOf(from), to: dayOf(to), merchantId: m.id }, token);
    const money = (v: string) => Number(v);
    const tie = (r: Json) => {
      const moved = [
        'collected',
        'payouts',
        'settlements',
        'recharges',
        'transfers',
        'adjustments',
        'other',
      ].reduce((n, k) => n + money(r[k]), 0);
      expect(money(r.opening) + moved).toBeCloseTo(money(r.closing), 6);
      expect(r.closing).toBe(r.ledgerClosing);
      expect(r.mismatch).toBe(false);
    };
    const whole = await view(29, 30);
    const [collection, payoutWallet] = whole.list;
    expect(collection).toMatchObject({
      merchantId: m.id,
      merchantCode: m.code,
      wallet: 'collection',
      opening: '0.00',
      collected: '588.00',
      payouts: '0.00',
      settlements: (-held).toFixed(2),
      transfers: '-50.00',
      other: '0.00',
    });
    expect(payoutWallet).toMatchObject({
      wallet: 'payout',
      opening: '0.00',
      recharges: '2000.00',
      payouts: '-308.00',
      transfers: '50.00',
      settlements: '0.00',
    });
    whole.list.forEach(tie);
    whole.totals.forEach(tie);
    // The closing is the ledger's balance now.
    const now = await merchantBalances(s.db, m.id, 'INR');
    expect(money(collection.closing) * 100).toBe(now.collection_available + now.collection_pending);
    expect(money(payoutWallet.closing) * 100).toBe(now.payout_available);
    // A period that begins on the 30th opens with the 29th's closing.
    const second = await view(30, 30);
    const first = await view(29, 29);
    expect(second.list.map((r: Json) => r.opening)).toEqual(first.list.map((r: Json) => r.closing));
    second.list.forEach(tie);
    await expectBalanced(s);
  });
});
