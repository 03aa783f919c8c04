/**
 * Payouts in the console on every engine: the list (keyset pages, filters, any number by prefix, the
 * 60-day window), totals, the detail, single transfers and bulk files confirmed by the Google code,
 * the manual push, and the tenancy sweep: merchant A's user and API key get nothing of merchant B.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, count, eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { payoutGatewayEndpoints } from '../../../contract/gateway.ts';
import { endpoints } from '../../../contract/index.ts';
import { inTransaction } from '../../db/index.ts';
import { journalEntries, operationLog, payoutOrders } from '../../db/schema.ts';
import type { SessionUser } from '../../http/session.ts';
import { searchWidth } from '../../lib/numberSearch.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { xlsxParts, zipOf } from '../../test/zip.ts';
import { codeAt } from '../auth/totp.ts';
import { payoutList } from '../orders/kinds.ts';
import { completePayout } from './service.ts';
import {
  balances,
  drainQueue,
  expectBooksBalanced,
  type Merchant,
  orderByNo,
  payoutBody,
  seedPayoutBalance,
  simulatorMerchant,
} from './testkit.ts';

const day = 24 * 3600 * 1000;

describe.each(engines)('payouts in the console on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
  });
  afterEach(async () => {
    await expectBooksBalanced(s);
  });
  afterAll(() => s.close());

  /** A funded merchant, its owner signed in with a bound Google key, and a fresh code per call. */
  async function owner(seed = 10_000_000, terms: Parameters<TestServer['makeMerchant']>[0] = {}) {
    const m = await simulatorMerchant(s, {
      payoutRatePpm: 10_000,
      payoutFee: 500,
      payoutIpWhitelist: ['203.0.113.0/24'],
      ...terms,
    });
    if (seed) await seedPayoutBalance(s, m.id, seed);
    const token = await s.login(m.ownerUsername, m.ownerPassword);
    const secret = await s.bindGoogle(token);
    return {
      m,
      token,
      secret,
      /** The next time step's code (each code is accepted once). */
      code() {
        s.clock.advance(30_000);
        return codeAt(secret, s.clock.now());
      },
    };
  }
  const period = () => ({
    from: new Date(s.clock.now().getTime() - day).toISOString(),
    to: new Date(s.clock.now().getTime() + day).toISOString(),
  });
  const gatewayCreate = (m: Merchant, over: Record<string, string> = {}) =>
    s.gateway(m, 'POST', '/gateway/v1/payout', payoutBody(over));
  const ordersOf = async (merchantId: number) =>
    (await s.db.select({ n: count() }).from(payoutOrders).where(eq(payoutOrders.merchantId, merchantId)))[0]!
      .n;

  describe('list and totals', () => {
    let a: Merchant;
    let b: Merchant;
    let made: string[];
    beforeAll(async () => {
      a = await simulatorMerchant(s, { payoutIpWhitelist: ['203.0.113.0/24'] });
      b = await simulatorMerchant(s, { payoutIpWhitelist: ['203.0.113.0/24'] });
      await seedPayoutBalance(s, a.id, 10_000_000);
      await seedPayoutBalance(s, b.id, 10_000_000);
      made = [];
      for (let i = 0; i < 7; i++) {
        s.clock.advance(1_000);
        made.push(
          (await gatewayCreate(a, { amount: `${10 + i}.00`, merchantOrderNo: `LIST-A-${i}` })).json.data
            .orderNo,
        );
      }
      await gatewayCreate(b, { merchantOrderNo: 'LIST-B-0' });
    });

    it('pages through keyset cursors, newest first, without repeats', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: {
          errno: number;
          data: { list: { orderNo: string }[]; nextCursor: string | null; total: number };
        } = await s.call(
          endpoints.merchantPayout.list,
          { ...period(), merchantId: a.id, pageSize: 3, ...(cursor ? { cursor } : {}) },
          admin,
        );
        expect(res.errno).toBe(0);
        expect(res.data.total).toBe(7);
        seen.push(...res.data.list.map((r) => r.orderNo));
        cursor = res.data.nextCursor;
      } while (cursor);
      expect(seen).toEqual([...made].reverse());
    });

    it('filters by status (one or many), push status, channel and any number by prefix', async () => {
      await drainQueue(s);
      const a0 = await orderByNo(s, made[0]!);
      await inTransaction(s.db, (tx) =>
        completePayout(s.deps, tx, { orderId: a0.id, result: 'success', utr: 'UTRPREFIX123', by: 'manual' }),
      );
      const q = async (filter: Record<string, unknown>) => {
        const res = await s.call(
          endpoints.merchantPayout.list,
          { ...period(), merchantId: a.id, ...filter },
          admin,
        );
        expect(res.errno, JSON.stringify(res)).toBe(0);
        return (res.data.list as { orderNo: string }[]).map((r) => r.orderNo);
      };
      expect(await q({ status: 'success' })).toEqual([made[0]]);
      expect((await q({ status: ['success', 'processing'] })).length).toBe(7);
      expect(await q({ status: 'queued' })).toEqual([]);
      expect((await q({ pushStatus: 'unpushed' })).length).toBe(7);
      expect(await q({ pushStatus: 'pushed' })).toEqual([]);
      expect((await q({ channelId: a0.channelId ?? 0 })).length).toBe(7);
      expect(await q({ channelId: 999_999 })).toEqual([]);
      // Any of the four numbers, whole or by prefix.
      expect(await q({ q: made[3] })).toEqual([made[3]]);
      expect(await q({ q: 'LIST-A-5' })).toEqual([made[5]]);
      expect((await q({ q: 'LIST-A-' })).length).toBe(7);
      expect(await q({ q: 'UTRPREFIX' })).toEqual([made[0]]);
      const a2 = await orderByNo(s, made[2]!);
      expect(await q({ q: a2.channelOrderId!.slice(0, 10) })).toContain(made[2]);
      expect(await q({ q: 'LIST_A%' })).toEqual([]); // LIKE wildcards are literal
      // Without a merchant, a platform user sees all merchants.
      const all = await s.call(endpoints.merchantPayout.list, { ...period(), q: 'LIST-' }, admin);
      expect(all.data.list).toHaveLength(8);
    });

    it('reads under 50 shared buffers for a deep next page over 20,000 orders (PERFORMANCE rule 1)', async () => {
      const base = Math.floor((s.clock.now().getTime() - 2 * 3600_000) / 1000);
      await s.db.execute(sql`
        insert into payout_orders (order_no, merchant_id, merchant_order_no, currency, amount, fee, status,
          account_name, account_number, ifsc, notify_url, source, request_hash, holds, hold_open,
          created_at, updated_at)
        select 'PB' || m || lpad(g::text, 17, '0'), m, 'BULK' || g, 'INR', 1000, 0, 'failed',
          'x', '123456', 'HDFC0001234', '', 'api', 'x', 0, false,
          to_timestamp(${base}::bigint + g / 4), to_timestamp(${base}::bigint + g / 4)
        from generate_series(1, 10000) g, (values (${a.id}::int), (${b.id}::int)) v(m)`);
      await s.db.execute(sql`analyze payout_orders`);
      try {
        const owner = await s.login(a.ownerUsername, a.ownerPassword);
        const wide = { from: new Date((base - 10) * 1000).toISOString(), to: period().to };
        let cursor = (
          await s.call(
            endpoints.merchantPayout.list,
            { ...wide, pageSize: 100, status: ['failed', 'success'] },
            owner,
          )
        ).data.nextCursor as string;
        for (let i = 0; i < 30; i++) {
          const page = await s.call(
            endpoints.merchantPayout.list,
            { ...wide, pageSize: 100, cursor, status: ['failed', 'success'] },
            owner,
          );
          expect(page.data.list).toHaveLength(100);
          cursor = page.data.nextCursor;
        }
        const user = { kind: 'merchant', merchantId: a.id } as SessionUser;
        const { where } = payoutList.filters(s.deps, user, { ...wide, status: ['failed', 'success'] }, 'en');
        const q = payoutList.pageQuery(s.db, where, payoutList.pageBound(new Date(), cursor), 21);
        const plan = await s.db.execute(sql`explain (analyze, buffers, format json) ${q}`);
        const rows = ((plan as { rows?: unknown[] }).rows ?? plan) as Record<string, unknown>[];
        const json = Object.values(rows[0]!)[0];
        const top = (typeof json === 'string' ? JSON.parse(json) : json)[0].Plan;
        const buffers = Number(top['Shared Hit Blocks'] ?? 0) + Number(top['Shared Read Blocks'] ?? 0);
        expect(buffers, JSON.stringify(top).slice(0, 1500)).toBeLessThan(50);
      } finally {
        await s.db.execute(sql`delete from payout_orders where order_no like 'PB%'`);
      }
    });

    it('bounds a broad number search: the highest numbers, newest first, and a total marked as a floor', async () => {
      const base = Math.floor((s.clock.now().getTime() - 3600_000) / 1000);
      // 600 orders numbered in time order, as real numbers grow: more than `searchWidth` share `WIDE`.
      await s.db.execute(sql`
        insert into payout_orders (order_no, merchant_id, merchant_order_no, currency, amount, fee, status,
          account_name, account_number, ifsc, notify_url, source, request_hash, holds, hold_open,
          created_at, updated_at)
        select 'PW' || lpad(g::text, 18, '0'), ${a.id}, 'WIDE' || lpad(g::text, 5, '0'), 'INR', 100, 0,
          'failed', 'x', '123456', 'HDFC0001234', '', 'api', 'x', 0, false,
          to_timestamp(${base}::bigint + g), to_timestamp(${base}::bigint + g)
        from generate_series(1, 600) g`);
      try {
        const list = (q: string, cursor?: string) =>
          s.call(endpoints.merchantPayout.list, { ...period(), q, pageSize: 100, cursor }, admin);
        const broad = await list('WIDE');
        expect(broad.errno).toBe(0);
        expect(broad.data.list[0].merchantOrderNo).toBe('WIDE00600');
        expect(broad.data.list[99].merchantOrderNo).toBe('WIDE00501');
        expect(broad.data).toMatchObject({ total: searchWidth, totalCapped: true });
        // Its pages stay within what the search read: the 500 highest numbers, then no more.
        let cursor = broad.data.nextCursor;
        const seen = broad.data.list.length;
        let pages = 1;
        let total = seen;
        while (cursor) {
          const next = await list('WIDE', cursor);
          total += next.data.list.length;
          cursor = next.data.nextCursor;
          pages++;
        }
        expect([total, pages]).toEqual([searchWidth, 5]);
        const totals = await s.call(endpoints.merchantPayout.totals, { ...period(), q: 'WIDE' }, admin);
        expect(totals.data).toEqual({ count: searchWidth, amount: '500.00', countCapped: true });
        // A narrower prefix is exact again, wherever its orders sit in time.
        const narrow = await list('WIDE0001');
        expect(narrow.data.list.map((r: { merchantOrderNo: string }) => r.merchantOrderNo)).toEqual(
          Array.from({ length: 10 }, (_, i) => `WIDE0001${9 - i}`),
        );
        expect(narrow.data).toMatchObject({ total: 10, totalCapped: false });
        const exact = await s.call(endpoints.merchantPayout.totals, { ...period(), q: 'WIDE0001' }, admin);
        expect(exact.data).toEqual({ count: 10, amount: '10.00', countCapped: false });
      } finally {
        await s.db.execute(sql`delete from payout_orders where order_no like 'PW%'`);
      }
    });

    it('answers totals of the filtered set', async () => {
      const res = await s.call(endpoints.merchantPayout.totals, { ...period(), merchantId: a.id }, admin);
      expect(res).toEqual({ errno: 0, errmsg: '', data: { count: 7, amount: '91.00', countCapped: false } });
    });

    it('refuses a period outside the last 60 days and a missing period (422)', async () => {
      const now = s.clock.now().getTime();
      const old = await s.call(
        endpoints.merchantPayout.list,
        { from: new Date(now - 62 * day).toISOString(), to: new Date(now).toISOString() },
        admin,
        { 'accept-language': 'zh-CN' },
      );
      expect(old.errno).toBe(errno.invalid);
      expect(old.data.fields[0]).toMatchObject({
        path: 'from',
        message: '只能查看最近 60 天的数据，请在此范围内选择时间段',
      });
      const totals = await s.call(
        endpoints.merchantPayout.totals,
        { from: new Date(now - 62 * day).toISOString(), to: new Date(now).toISOString() },
        admin,
      );
      expect(totals.errno).toBe(errno.invalid);
      expect((await s.call(endpoints.merchantPayout.list, {}, admin)).errno).toBe(errno.invalid);
      const backwards = await s.call(
        endpoints.merchantPayout.list,
        { from: new Date(now).toISOString(), to: new Date(now - day).toISOString() },
        admin,
      );
      expect(backwards.errno).toBe(errno.invalid);
    });

    it("confines a merchant user to its merchant: its own list, and 404 for another's id", async () => {
      const token = await s.login(a.ownerUsername, a.ownerPassword);
      const own = await s.call(endpoints.merchantPayout.list, { ...period(), q: 'LIST-' }, token);
      expect((own.data.list as { merchantId: number }[]).every((r) => r.merchantId === a.id)).toBe(true);
      expect(own.data.list).toHaveLength(7);
      expect(
        (await s.call(endpoints.merchantPayout.list, { ...period(), merchantId: b.id }, token)).errno,
      ).toBe(errno.notFound);
      expect(
        (await s.call(endpoints.merchantPayout.totals, { ...period(), merchantId: b.id }, token)).errno,
      ).toBe(errno.notFound);
    });
  });

  it('opens a payout with its snapshots, callbacks with attempts and ledger postings', async () => {
    const { m, token } = await owner();
    const res = await gatewayCreate(m, { amount: '100.00', notifyUrl: 'http://127.0.0.1:9/hook' });
    await drainQueue(s);
    const o = await orderByNo(s, res.json.data.orderNo);
    expect(
      (await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'success' }, admin)).errno,
    ).toBe(0);
    // A manual push to an address nobody listens on is recorded as an attempt without an HTTP status.
    const pushed = await s.call(endpoints.merchantPayout.push, { id: o.id }, token);
    expect(pushed).toMatchObject({ errno: 0, data: { manual: true, httpStatus: null } });
    const asPlatform = await s.call(endpoints.merchantPayout.info, { id: o.id }, admin);
    expect(asPlatform.errno).toBe(0);
    expect(asPlatform.data).toMatchObject({
      orderNo: o.orderNo,
      merchantCode: m.code,
      channelCode: 'simulator',
      status: 'success',
      source: 'api',
      notifyUrl: 'http://127.0.0.1:9/hook',
      requestSnapshot: { merchantOrderNo: o.merchantOrderNo, amount: '100.00' },
      responseSnapshot: { orderNo: o.orderNo, status: 'queued' },
    });
    expect(asPlatform.data.callbacks).toHaveLength(1);
    expect(asPlatform.data.callbacks[0]).toMatchObject({ type: 'payout.success', status: 'pending' });
    expect(asPlatform.data.callbacks[0].attempts).toEqual([
      expect.objectContaining({ manual: true, httpStatus: null }),
    ]);
    const kinds = (asPlatform.data.postings as { entryKind: string; account: string }[]).map(
      (p) => `${p.entryKind}:${p.account}`,
    );
    expect(kinds.sort()).toEqual(
      [
        'payout_freeze_1:frozen',
        'payout_freeze_1:payout_available',
        'payout_success:fee_income',
        'payout_success:frozen',
        'payout_success:payout_clearing',
      ].sort(),
    );
    // The merchant sees the lines on its own wallets only, not the platform's books.
    const asMerchant = await s.call(endpoints.merchantPayout.info, { orderNo: o.orderNo }, token);
    expect((asMerchant.data.postings as { ownerType: string }[]).map((p) => p.ownerType)).toEqual([
      'merchant',
      'merchant',
      'merchant',
    ]);
    expect((await s.call(endpoints.merchantPayout.info, {}, admin)).errno).toBe(errno.invalid);
    expect((await s.call(endpoints.merchantPayout.info, { id: 987_654 }, admin)).errno).toBe(errno.notFound);
  });

  it('pushes a callback again on demand and records the attempt', async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(String(req.headers['webhook-id']));
      req.resume();
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { m, token } = await owner();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
      const res = await gatewayCreate(m, { notifyUrl: url });
      const o = await orderByNo(s, res.json.data.orderNo);
      expect((await s.call(endpoints.merchantPayout.push, { id: o.id }, token)).errno).toBe(errno.noCallback);
      await drainQueue(s);
      expect(
        (await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'fail' }, admin)).errno,
      ).toBe(0);
      const pushed = await s.call(endpoints.merchantPayout.push, { id: o.id }, token);
      expect(pushed).toMatchObject({ errno: 0, data: { manual: true, httpStatus: 204 } });
      expect(hits).toHaveLength(1);
      expect(await orderByNo(s, o.orderNo)).toMatchObject({ pushStatus: 'pushed' });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  describe('single transfer from the console', () => {
    it('requires a bound Google key and a valid, unused code', async () => {
      const m = await simulatorMerchant(s);
      await seedPayoutBalance(s, m.id, 1_000_000);
      const token = await s.login(m.ownerUsername, m.ownerPassword);
      const input = {
        amount: '100.00',
        accountName: 'Ravi K',
        accountNumber: '12345678',
        ifsc: 'SBIN0000001',
      };
      expect((await s.call(endpoints.merchantPayout.create, { ...input, code: '123456' }, token)).errno).toBe(
        errno.googleNotBound,
      );
      const secret = await s.bindGoogle(token);
      s.clock.advance(30_000);
      const wrong = String((Number(codeAt(secret, s.clock.now())) + 1) % 1_000_000).padStart(6, '0');
      expect((await s.call(endpoints.merchantPayout.create, { ...input, code: wrong }, token)).errno).toBe(
        errno.badCode,
      );
      const code = codeAt(secret, s.clock.now());
      const ok = await s.call(endpoints.merchantPayout.create, { ...input, code }, token);
      expect(ok).toMatchObject({
        errno: 0,
        data: { status: 'queued', amount: '100.00', fee: '0.00', source: 'console', merchantId: m.id },
      });
      expect(ok.data.merchantOrderNo).toBe(ok.data.orderNo);
      // The same code again is refused, whatever it is for.
      expect((await s.call(endpoints.merchantPayout.create, { ...input, code }, token)).errno).toBe(
        errno.badCode,
      );
      expect(await ordersOf(m.id)).toBe(1);
      expect(await balances(s, m.id)).toMatchObject({ payout_available: 990_000, frozen: 10_000 });
    });

    it('refuses a transfer the balance does not cover (1019); the code it took stays spent', async () => {
      const { m, token, code } = await owner(5_000);
      const c = code();
      const input = {
        amount: '100.00',
        accountName: 'Ravi K',
        accountNumber: '12345678',
        ifsc: 'SBIN0000001',
      };
      expect((await s.call(endpoints.merchantPayout.create, { ...input, code: c }, token)).errno).toBe(
        errno.insufficientBalance,
      );
      expect(await ordersOf(m.id)).toBe(0);
      await seedPayoutBalance(s, m.id, 100_000);
      expect((await s.call(endpoints.merchantPayout.create, { ...input, code: c }, token)).errno).toBe(
        errno.badCode,
      );
      const ok = await s.call(
        endpoints.merchantPayout.create,
        { ...input, code: code(), merchantOrderNo: 'CONSOLE-1' },
        token,
      );
      expect(ok).toMatchObject({ errno: 0, data: { merchantOrderNo: 'CONSOLE-1', fee: '6.00' } });
      // The same merchant order number with the same content answers the order; other content is 409.
      const again = await s.call(
        endpoints.merchantPayout.create,
        { ...input, code: code(), merchantOrderNo: 'CONSOLE-1' },
        token,
      );
      expect(again).toMatchObject({ errno: 0, data: { orderNo: ok.data.orderNo } });
      const other = await s.call(
        endpoints.merchantPayout.create,
        { ...input, amount: '100.01', code: code(), merchantOrderNo: 'CONSOLE-1' },
        token,
      );
      expect(other.errno).toBe(errno.conflict);
      expect(await ordersOf(m.id)).toBe(1);
    });
  });

  describe('bulk payouts', () => {
    const csv = (lines: string[]) => Buffer.from(`${lines.join('\n')}\n`).toString('base64');
    async function xlsx(rows: (string | number)[][]) {
      const wb = new ExcelJS.Workbook();
      const ws = wb.addWorksheet('payouts');
      for (const r of rows) ws.addRow(r);
      return Buffer.from(await wb.xlsx.writeBuffer()).toString('base64');
    }
    const bulk = (token: string, input: Record<string, unknown>, lang?: string) =>
      s.call(
        endpoints.merchantPayout.bulkCreate,
        input,
        token,
        lang ? { 'accept-language': lang } : undefined,
      );

    it('creates every row of a valid CSV file, generating missing merchant order numbers', async () => {
      const { m, token, code } = await owner(1_000_000);
      const file = csv([
        'accountName,accountNumber,ifsc,amount,merchantOrderNo',
        'Asha Verma,123456789,HDFC0001234,100.00,BULK-1',
        '"Verma, Ravi",987654321,ICIC0000001,250.50,',
        'Meera Nair,1122334455,SBIN0000456,1000,BULK-3',
      ]);
      const preview = await bulk(token, { filename: 'p.csv', dataBase64: file, code: code(), dryRun: true });
      expect(preview).toMatchObject({
        errno: 0,
        data: { valid: true, rows: 3, total: '1350.50', errors: [], created: [] },
      });
      expect(await ordersOf(m.id)).toBe(0);
      const res = await bulk(token, { filename: 'p.csv', dataBase64: file, code: code() });
      expect(res).toMatchObject({
        errno: 0,
        data: { valid: true, rows: 3, total: '1350.50', fees: '28.51' },
      });
      expect(res.data.created).toHaveLength(3);
      const rows = await s.db.select().from(payoutOrders).where(eq(payoutOrders.merchantId, m.id));
      expect(rows.map((r) => r.source)).toEqual(['bulk', 'bulk', 'bulk']);
      expect(rows.find((r) => r.accountName === 'Verma, Ravi')!.merchantOrderNo).toMatch(/^PO\d{20}$/);
      expect(await balances(s, m.id)).toMatchObject({ frozen: 135_050 + 2_851 });
    });

    it('creates none when one row is bad, and reports each bad row in the caller’s language', async () => {
      const { m, token, code } = await owner(1_000_000, { minAmount: 1_000 });
      const file = csv([
        'accountName,accountNumber,ifsc,amount',
        'Asha Verma,123456789,HDFC0001234,100.00',
        'Ravi,12x,HDFC0001234,100.00',
        'Meera,1122334455,hdfc123,5.00',
        'Kiran,1122334455,HDFC0001234,-3',
      ]);
      const res = await bulk(token, { filename: 'bad.csv', dataBase64: file, code: code() }, 'zh-CN');
      expect(res.errno).toBe(errno.invalid);
      expect(res.data.valid).toBe(false);
      expect(res.data.created).toEqual([]);
      expect(res.data.errors).toEqual([
        { row: 3, field: 'accountNumber', message: '6 到 20 位数字' },
        { row: 4, field: 'ifsc', message: expect.stringContaining('IFSC') },
        { row: 4, field: 'amount', message: '金额须在 10.00 到 1000000.00 之间' },
        { row: 5, field: 'amount', message: expect.any(String) },
      ]);
      expect(await ordersOf(m.id)).toBe(0);
      expect(await balances(s, m.id)).toMatchObject({ payout_available: 1_000_000, frozen: 0 });
    });

    it('reads Chinese headers, and XLSX files', async () => {
      const { m, token, code } = await owner(1_000_000);
      const zh = csv(['户名,账号,IFSC代码,金额,商户订单号', '王伟,123456789,HDFC0001234,10.00,ZH-1']);
      expect((await bulk(token, { filename: 'zh.csv', dataBase64: zh, code: code() })).data).toMatchObject({
        valid: true,
        created: [expect.any(String)],
      });
      const file = await xlsx([
        ['收款人姓名', '银行账号', 'IFSC', '代付金额'],
        ['Asha', '123456789', 'HDFC0001234', 12.5],
        ['Ravi', '987654321', 'SBIN0000001', '20'],
      ]);
      const res = await bulk(token, { filename: 'p.XLSX', dataBase64: file, code: code() });
      expect(res).toMatchObject({ errno: 0, data: { valid: true, rows: 2, total: '32.50' } });
      expect(await ordersOf(m.id)).toBe(3);
    });

    it('refuses a file whose total the balance does not cover, a missing column, repeats and too many rows', async () => {
      const { m, token, code } = await owner(10_000);
      const costly = csv([
        'accountName,accountNumber,ifsc,amount',
        'A,123456789,HDFC0001234,60',
        'B,123456789,HDFC0001234,60',
      ]);
      const short = await bulk(token, { filename: 'c.csv', dataBase64: costly, code: code() });
      expect(short.errno).toBe(errno.insufficientBalance);
      expect(short.data.errors).toEqual([{ row: 0, field: 'amount', message: expect.any(String) }]);
      const missing = await bulk(token, {
        filename: 'm.csv',
        dataBase64: csv(['accountName,ifsc,amount', 'A,HDFC0001234,1']),
        code: code(),
        dryRun: true,
      });
      expect(missing.data).toMatchObject({ valid: false, errors: [{ row: 1, field: 'accountNumber' }] });
      const repeated = await bulk(token, {
        filename: 'r.csv',
        dataBase64: csv([
          'accountName,accountNumber,ifsc,amount,merchantOrderNo',
          'A,123456789,HDFC0001234,1,X1',
          'B,123456789,HDFC0001234,1,X1',
        ]),
        code: code(),
        dryRun: true,
      });
      expect(repeated.data.errors).toEqual([
        { row: 3, field: 'merchantOrderNo', message: expect.stringContaining('2') },
      ]);
      const lines = ['accountName,accountNumber,ifsc,amount'];
      for (let i = 0; i < 5001; i++) lines.push(`A,123456789,HDFC0001234,1`);
      const tooMany = await bulk(token, {
        filename: 'big.csv',
        dataBase64: csv(lines),
        code: code(),
        dryRun: true,
      });
      expect(tooMany.data).toMatchObject({ valid: false, errors: [{ row: 0, field: 'file' }] });
      expect(await ordersOf(m.id)).toBe(0);
    });

    it('needs the Google code: a dry run checks it without spending it; a bad one is refused', async () => {
      const { token, code } = await owner(1_000_000);
      const file = csv(['accountName,accountNumber,ifsc,amount', 'A,123456789,HDFC0001234,1']);
      expect(
        (await bulk(token, { filename: 'a.csv', dataBase64: file, code: '000000', dryRun: true })).errno,
      ).toBe(errno.badCode);
      const c = code();
      expect((await bulk(token, { filename: 'a.csv', dataBase64: file, code: c, dryRun: true })).errno).toBe(
        0,
      );
      expect((await bulk(token, { filename: 'a.csv', dataBase64: file, code: c })).errno).toBe(0);
      expect((await bulk(token, { filename: 'a.csv', dataBase64: file, code: c })).errno).toBe(errno.badCode);
    });

    it('refuses an XLSX that inflates past the cap, whether its zip states the size or lies about it', async () => {
      const { m, token, code } = await owner(1_000_000);
      const rows = [
        ['accountName', 'accountNumber', 'ifsc', 'amount'],
        ['Asha Verma', '123456789', 'HDFC0001234', '10.00'],
      ];
      // The same small workbook is fine; padded with 25 MB of blanks it deflates to about 25 KB.
      const fine = zipOf(xlsxParts(rows)).toString('base64');
      const ok = await bulk(token, { filename: 'ok.xlsx', dataBase64: fine, code: code(), dryRun: true });
      expect(ok.data).toMatchObject({ valid: true, rows: 1 });
      const bomb = xlsxParts(rows, 25_000_000);
      const honest = zipOf(bomb);
      const lying = zipOf(bomb.map((p) => (p.name.endsWith('sheet1.xml') ? { ...p, declared: 1_000 } : p)));
      expect(honest.length).toBeLessThan(100_000);
      for (const [name, file] of [
        ['honest.xlsx', honest],
        ['lying.xlsx', lying],
      ] as const) {
        const dataBase64 = file.toString('base64');
        const preview = await bulk(token, { filename: name, dataBase64, code: code(), dryRun: true });
        expect(preview.data, name).toMatchObject({
          valid: false,
          errors: [{ row: 0, field: 'file', message: 'An XLSX file may unpack to at most 20 MB' }],
        });
        const real = await bulk(token, { filename: name, dataBase64, code: code() });
        expect(real.errno, name).toBe(errno.invalid);
        expect(real.data.errors[0].message, name).toBe('An XLSX file may unpack to at most 20 MB');
      }
      expect(await ordersOf(m.id)).toBe(0);
    });
  });

  describe('hand actions: the Google code and a reason', () => {
    const ep = endpoints.merchantPayout;
    let op: { token: string; code(): string };
    beforeAll(async () => {
      const u = await s.makeUser({
        perms: [ep.retry.permission, ep.markSuccess.permission, ep.markFailed.permission],
      });
      const secret = await s.bindGoogle(u.token);
      op = {
        token: u.token,
        code() {
          s.clock.advance(30_000);
          return codeAt(secret, s.clock.now());
        },
      };
    });
    /** A payout the channel has taken (processing). */
    async function processing() {
      const { m } = await owner(1_000_000);
      const orderNo = (await gatewayCreate(m)).json.data.orderNo as string;
      await drainQueue(s);
      return orderByNo(s, orderNo);
    }
    const logOf = async (action: string, target: string) =>
      (
        await s.db
          .select()
          .from(operationLog)
          .where(and(eq(operationLog.action, action), eq(operationLog.target, target)))
      ).filter((l) => l.outcome === 'ok');

    it('mark success and mark failed refuse a missing code or reason and a wrong code, and keep the reason', async () => {
      const o = await processing();
      for (const name of ['markSuccess', 'markFailed'] as const) {
        const bare = await s.call(ep[name], { id: o.id }, op.token);
        expect(bare.errno, name).toBe(errno.invalid);
        expect(bare.data.fields.map((f: { path: string }) => f.path).sort(), name).toEqual([
          'code',
          'reason',
        ]);
        const blank = await s.call(ep[name], { id: o.id, code: op.code(), reason: '  ' }, op.token);
        expect(blank.errno, name).toBe(errno.invalid);
        const long = await s.call(ep[name], { id: o.id, code: op.code(), reason: 'r'.repeat(201) }, op.token);
        expect(long.errno, name).toBe(errno.invalid);
        const wrong = await s.call(ep[name], { id: o.id, code: '000000', reason: 'bank said so' }, op.token);
        expect(wrong.errno, name).toBe(errno.badCode);
      }
      expect((await orderByNo(s, o.orderNo)).status).toBe('processing');
      const done = await s.call(
        ep.markSuccess,
        { id: o.id, code: op.code(), reason: ' paid, per the bank ', utr: ' abc123def456 ' },
        op.token,
      );
      expect(done.errno, done.errmsg).toBe(0);
      expect(done.data).toMatchObject({ status: 'success', utr: 'ABC123DEF456' });
      const [logged] = await logOf('merchantPayout.markSuccess', `payout:${o.orderNo}`);
      expect(logged!.detail).toMatchObject({ reason: 'paid, per the bank', utr: 'ABC123DEF456' });
      // The UTR as anyone types it finds the order, whole or by prefix.
      for (const filter of [{ nos: 'abc123def456' }, { q: ' abc123de' }, { q: 'ABC123DEF456' }]) {
        const found = await s.call(ep.list, { ...period(), ...filter }, admin);
        expect(
          found.data.list.map((r: { orderNo: string }) => r.orderNo),
          JSON.stringify(filter),
        ).toEqual([o.orderNo]);
      }

      const f = await processing();
      const failed = await s.call(
        ep.markFailed,
        { id: f.id, code: op.code(), reason: ' account closed ' },
        op.token,
      );
      expect(failed.errno, failed.errmsg).toBe(0);
      expect(failed.data).toMatchObject({ status: 'failed', failureReason: 'account closed' });
      const [failLog] = await logOf('merchantPayout.markFailed', `payout:${f.orderNo}`);
      expect(failLog!.detail).toMatchObject({ reason: 'account closed' });
    });

    it('retry refuses a missing code or reason and a wrong code, and logs the reason', async () => {
      const o = await processing();
      expect(
        (await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'fail' }, admin)).errno,
      ).toBe(0);
      const bare = await s.call(ep.retry, { id: o.id }, op.token);
      expect(bare.errno).toBe(errno.invalid);
      expect(bare.data.fields.map((f: { path: string }) => f.path).sort()).toEqual(['code', 'reason']);
      const wrong = await s.call(ep.retry, { id: o.id, code: '000000', reason: 'bank back up' }, op.token);
      expect(wrong.errno).toBe(errno.badCode);
      expect((await orderByNo(s, o.orderNo)).status).toBe('failed');
      const unbound = await s.makeUser({ perms: [ep.retry.permission] });
      expect(
        (await s.call(ep.retry, { id: o.id, code: '123456', reason: 'bank back up' }, unbound.token)).errno,
      ).toBe(errno.googleNotBound);
      const ok = await s.call(ep.retry, { id: o.id, code: op.code(), reason: ' bank back up ' }, op.token);
      expect(ok.errno, ok.errmsg).toBe(0);
      expect(ok.data.status).toBe('queued');
      const [logged] = await logOf('merchantPayout.retry', `payout:${o.orderNo}`);
      expect(logged!.detail).toMatchObject({ reason: 'bank back up' });
    });
  });

  it("gives merchant A's user and API key nothing of merchant B's payouts (403/404)", async () => {
    const a = await owner(1_000_000);
    const b = await owner(1_000_000);
    const theirs = (await gatewayCreate(b.m, { merchantOrderNo: 'SECRET-B' })).json.data;
    const bOrder = await orderByNo(s, theirs.orderNo);
    await drainQueue(s);
    const entriesBefore = (await s.db.select({ n: count() }).from(journalEntries))[0]!.n;
    const covered = new Set<string>();
    const expectDenied = (
      id: string,
      res: { errno: number; data: unknown },
      allowed = [errno.notFound, errno.forbidden],
    ) => {
      covered.add(id);
      expect(allowed, `${id}: ${JSON.stringify(res)}`).toContain(res.errno);
      expect(JSON.stringify(res.data ?? null)).not.toContain(theirs.orderNo);
    };
    const ep = endpoints.merchantPayout;
    expectDenied('merchantPayout.list', await s.call(ep.list, { ...period(), merchantId: b.m.id }, a.token));
    const ownList = await s.call(ep.list, { ...period(), q: theirs.orderNo }, a.token);
    expect(ownList.data.list).toEqual([]);
    expectDenied(
      'merchantPayout.totals',
      await s.call(ep.totals, { ...period(), merchantId: b.m.id }, a.token),
    );
    expectDenied(
      'merchantPayout.export',
      await s.call(ep.export, { ...period(), merchantId: b.m.id, format: 'csv' }, a.token),
    );
    expectDenied('merchantPayout.info', await s.call(ep.info, { id: bOrder.id }, a.token));
    expectDenied('merchantPayout.info', await s.call(ep.info, { orderNo: bOrder.orderNo }, a.token));
    expectDenied('merchantPayout.push', await s.call(ep.push, { id: bOrder.id }, a.token));
    for (const name of ['retry', 'markSuccess', 'markFailed'] as const) {
      expectDenied(
        `merchantPayout.${name}`,
        await s.call(ep[name], { id: bOrder.id, reason: 'x' }, a.token),
        [errno.forbidden],
      );
    }
    expectDenied(
      'simulator.payout',
      await s.call(endpoints.simulator.payout, { orderNo: bOrder.orderNo, result: 'fail' }, a.token),
      [errno.forbidden],
    );
    // Creation takes no merchant id: whatever A sends is A's own, even B's merchant order number.
    const input = { amount: '10.00', accountName: 'A', accountNumber: '12345678', ifsc: 'SBIN0000001' };
    const mine = await s.call(ep.create, { ...input, merchantOrderNo: 'SECRET-B', code: a.code() }, a.token);
    expect(mine).toMatchObject({ errno: 0, data: { merchantId: a.m.id, merchantOrderNo: 'SECRET-B' } });
    expect(mine.data.orderNo).not.toBe(theirs.orderNo);
    covered.add('merchantPayout.create');
    const file = Buffer.from(
      'accountName,accountNumber,ifsc,amount,merchantOrderNo\nA,123456789,HDFC0001234,1,SECRET-B2\n',
    ).toString('base64');
    const bulkRes = await s.call(
      ep.bulkCreate,
      { filename: 'a.csv', dataBase64: file, code: a.code() },
      a.token,
    );
    expect(bulkRes.errno).toBe(0);
    expect((await orderByNo(s, bulkRes.data.created[0])).merchantId).toBe(a.m.id);
    covered.add('merchantPayout.bulkCreate');
    // The gateway with A's key.
    for (const path of [
      `/gateway/v1/payout/${theirs.orderNo}`,
      `/gateway/v1/payout?merchantOrderNo=SECRET-B-missing`,
    ]) {
      const res = await s.gateway(a.m, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(JSON.stringify(res.json)).not.toContain(theirs.orderNo);
    }
    const found = await s.gateway(a.m, 'GET', '/gateway/v1/payout?merchantOrderNo=SECRET-B');
    expect(found.json.data.orderNo).toBe(mine.data.orderNo);
    const created = await s.gateway(
      a.m,
      'POST',
      '/gateway/v1/payout',
      payoutBody({ merchantOrderNo: 'SECRET-B3' }),
    );
    expect(created.status).toBe(201);
    // B's order is untouched.
    const bAfter = await orderByNo(s, theirs.orderNo);
    expect(bAfter).toMatchObject({ status: 'processing', merchantId: b.m.id, pushStatus: 'unpushed' });
    expect(
      (
        await s.db
          .select({ n: count() })
          .from(journalEntries)
          .where(and(eq(journalEntries.refType, 'payout'), eq(journalEntries.refId, String(bOrder.id))))
      )[0]!.n,
    ).toBe(1);
    expect((await s.db.select({ n: count() }).from(journalEntries))[0]!.n).toBeGreaterThan(entriesBefore);
    // Every payout endpoint of the console and the gateway was swept.
    expect([...covered].sort()).toEqual(
      [...Object.values(endpoints.merchantPayout), endpoints.simulator.payout].map((e) => e.id).sort(),
    );
    expect(Object.keys(payoutGatewayEndpoints).sort()).toEqual(['payoutCreate', 'payoutFind', 'payoutGet']);
  });
});
