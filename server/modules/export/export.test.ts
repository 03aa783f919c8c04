/**
 * Exports of the order lists: the file holds exactly the list's rows for the same filters (CSV parsed
 * back with csv-parse, XLSX read back with exceljs), in keyset batches; headers in the caller's
 * language; tenancy; the one-week and 60-day limits as 422 envelopes; the operation log's record.
 * And the lists' filter by several whole numbers (`nos`) in list, totals and export.
 */
import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { and, eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { operationLog, payinOrders } from '../../db/schema.ts';
import { t } from '../../http/i18n.ts';
import { docsPage, openApiDocument } from '../../http/openapi.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { payinList } from '../orders/kinds.ts';
import { createOrder, expectBalanced, type Merchant, merchantOn, simPay } from '../payin/testkit.ts';
import { drainQueue, payoutBody, seedPayoutBalance, simulatorMerchant } from '../payout/testkit.ts';
import { builtinRoles } from '../role/builtin.ts';
import { moneyCell } from './cells.ts';
import { payinColumns, payinSource, payoutColumns } from './routes.ts';
import { type Column, exportBatchSize, exportStream, guardFormula, xlsxBacklog } from './stream.ts';

const day = 86_400_000;

describe.each(engines)('order exports on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  let a: Merchant;
  let b: Merchant;
  let ownerA: string;
  let start: Date;
  const bOrders: string[] = [];

  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
    start = s.clock.now();
    a = await merchantOn(s, undefined, { collectionRatePpm: 20_000 });
    b = await merchantOn(s, undefined, { collectionRatePpm: 20_000 });
    ownerA = await s.login(a.ownerUsername, a.ownerPassword);
    // Pay-ins of A in every common state, some at the same instant (the id breaks the tie).
    for (let i = 0; i < 9; i++) {
      const o = await createOrder(s, a, { amount: `${100 + i}.5${i}`, merchantOrderNo: `EXP-A-${i}` });
      if (i % 3 === 1) await simPay(s, admin, o.orderNo, 'success');
      if (i % 3 === 2) await simPay(s, admin, o.orderNo, 'fail');
      if (i % 2) s.clock.advance(1_000);
    }
    for (let i = 0; i < 3; i++)
      bOrders.push((await createOrder(s, b, { merchantOrderNo: `EXP-B-${i}` })).orderNo);
  });
  afterEach(() => expectBalanced(s));
  afterAll(() => s.close());

  const period = () => ({
    from: new Date(start.getTime() - 60_000).toISOString(),
    to: new Date(s.clock.now().getTime() + 60_000).toISOString(),
  });

  /** Every row of a list for these filters, following its cursors. */
  async function listAll(
    ep: typeof endpoints.merchantOrder.list | typeof endpoints.merchantPayout.list,
    token: string,
    filters: Record<string, unknown>,
  ) {
    const rows: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    do {
      const res = await s.call(ep, { ...filters, pageSize: 2, cursor }, token);
      expect(res.errno, res.errmsg).toBe(0);
      rows.push(...res.data.list);
      cursor = res.data.nextCursor ?? undefined;
    } while (cursor);
    return rows;
  }

  /** The raw answer of an export (bytes, headers). */
  async function download(path: string, token: string, query: Record<string, unknown>, lang = 'en') {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) for (const item of [v].flat()) qs.append(k, String(item));
    const res = await s.app.request(`http://localhost/api${path}?${qs}`, {
      headers: { 'admin-token': token, 'accept-language': lang, 'x-forwarded-for': '10.0.0.1' },
    });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  }

  const csvRecords = (body: Buffer) => parse(body, { bom: true, relax_column_count: false }) as string[][];
  /** The list's rows as the file should hold them: each column is the list row's field of the same name. */
  const expected = (columns: readonly Column<unknown>[], rows: Record<string, unknown>[]) =>
    rows.map((r) => columns.map((c) => (r[c.key] ?? '') as string));

  it('exports the pay-in list as CSV: the same rows, newest first, headers in English, amounts and UTC times as the list has them', async () => {
    const filters = { ...period(), merchantId: a.id };
    const rows = await listAll(endpoints.merchantOrder.list, admin, filters);
    expect(rows.length).toBe(9);
    const res = await download('/merchantOrder/export', admin, { ...filters, format: 'csv' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="collection-orders_\d{8}T\d{4}Z_\d{8}T\d{4}Z\.csv"$/,
    );
    expect([...res.body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [header, ...body] = csvRecords(res.body);
    expect(header).toEqual(payinColumns.map((c) => t('en', `export.columns.${c.key}`)));
    expect(header).toContain('Created at (UTC)');
    expect(body).toEqual(expected(payinColumns, rows));
    const amountAt = header!.indexOf('Amount');
    expect(body.map((r) => r[amountAt])).toContain('108.58');
    expect(body[0]![header!.indexOf('Created at (UTC)')]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('applies the same filters as the list (status, several numbers), and answers Chinese headers to zh-CN', async () => {
    const paid = await listAll(endpoints.merchantOrder.list, admin, { ...period(), status: 'paid' });
    const some = paid.slice(0, 2).map((r) => r.merchantOrderNo as string);
    const utr = paid[2]!.utr as string;
    const filters = { ...period(), status: ['paid', 'failed'], nos: [...some, utr, 'NO-SUCH-NUMBER'] };
    const rows = await listAll(endpoints.merchantOrder.list, admin, filters);
    expect(rows.map((r) => r.status)).toEqual(['paid', 'paid', 'paid']);
    const res = await download(
      '/merchantOrder/export',
      admin,
      { ...filters, format: 'csv' },
      'zh-CN,zh;q=0.9',
    );
    const [header, ...body] = csvRecords(res.body);
    expect(header).toEqual(payinColumns.map((c) => t('zh_CN', `export.columns.${c.key}`)));
    expect(header![0]).toBe('系统订单号');
    expect(body).toEqual(expected(payinColumns, rows));
  });

  it('exports XLSX with the same rows (read back with exceljs)', async () => {
    const filters = { ...period(), merchantId: a.id, status: ['pending', 'paid'] };
    const rows = await listAll(endpoints.merchantOrder.list, admin, filters);
    const res = await download('/merchantOrder/export', admin, { ...filters, format: 'xlsx' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(res.body as never);
    const sheet = book.worksheets[0]!;
    expect(sheet.name).toBe('Orders');
    const values: string[][] = [];
    sheet.eachRow((row) => {
      values.push(
        Array.from(row.values as unknown[])
          .slice(1)
          .map((v) => (v == null ? '' : String(v))),
      );
    });
    const [header, ...body] = values;
    expect(header).toEqual(payinColumns.map((c) => t('en', `export.columns.${c.key}`)));
    // Trailing empty cells are not stored in a sheet row.
    const trimmed = (r: string[]) => {
      const out = [...r];
      while (out.length && out.at(-1) === '') out.pop();
      return out;
    };
    expect(body.map(trimmed)).toEqual(expected(payinColumns, rows).map(trimmed));
    expect(body.length).toBe(6);
  });

  it('reads keyset batches until the set ends: every order once, in the list order', async () => {
    const { where, to } = payinList.filters(
      s.deps,
      { kind: 'platform', id: 1, merchantId: null } as never,
      { ...period(), merchantId: a.id },
      'en',
    );
    const source = payinSource(s.db, where, to);
    const first = await source.batch(null, 2);
    const chunks: Buffer[] = [];
    for await (const chunk of exportStream(
      source,
      first,
      'csv',
      'en',
      (err) => {
        throw err;
      },
      2,
    ))
      chunks.push(chunk as Buffer);
    const body = csvRecords(Buffer.concat(chunks)).slice(1);
    const rows = await listAll(endpoints.merchantOrder.list, admin, { ...period(), merchantId: a.id });
    expect(rows.length).toBe(9);
    expect(body).toEqual(expected(payinColumns, rows));
  });

  it('keeps a merchant user to its own orders; naming another merchant is not found, its numbers find nothing', async () => {
    const res = await download('/merchantOrder/export', ownerA, { ...period(), format: 'csv' });
    expect(res.status).toBe(200);
    const body = csvRecords(res.body).slice(1);
    expect(body.length).toBe(9);
    const merchantAt = payinColumns.findIndex((c) => c.key === 'merchantCode');
    expect(new Set(body.map((r) => r[merchantAt]))).toEqual(new Set([a.code]));
    const byNumber = await download('/merchantOrder/export', ownerA, {
      ...period(),
      nos: bOrders,
      format: 'csv',
    });
    expect(csvRecords(byNumber.body).slice(1)).toEqual([]);
    // Both exports answer another merchant's id as their lists do: not found.
    for (const path of ['/merchantOrder/export', '/merchantPayout/export']) {
      const named = await download(path, ownerA, { ...period(), merchantId: b.id, format: 'csv' });
      expect(named.headers.get('content-type'), path).toMatch(/application\/json/);
      expect(JSON.parse(named.body.toString()).errno, path).toBe(errno.notFound);
    }
  });

  it('refuses more than one week, and a period older than 60 days, with the 422 envelope before any file', async () => {
    const now = s.clock.now().getTime();
    const week = await download('/merchantOrder/export', admin, {
      from: new Date(now - 8 * day).toISOString(),
      to: new Date(now).toISOString(),
      format: 'csv',
    });
    expect(week.headers.get('content-type')).toMatch(/application\/json/);
    expect(week.headers.get('content-disposition')).toBeNull();
    const env = JSON.parse(week.body.toString());
    expect(env.errno).toBe(errno.invalid);
    expect(env.data.fields[0]).toMatchObject({ path: 'to', message: t('en', 'validation.periodWeek') });
    const old = await download('/merchantPayout/export', admin, {
      from: new Date(now - 62 * day).toISOString(),
      to: new Date(now - 57 * day).toISOString(),
      format: 'xlsx',
    });
    expect(JSON.parse(old.body.toString())).toMatchObject({ errno: errno.invalid });
    const format = await download('/merchantOrder/export', admin, { ...period(), format: 'pdf' });
    expect(JSON.parse(format.body.toString()).errno).toBe(errno.invalid);
  });

  it('documents a file answer in OpenAPI (and the envelope for refusals)', () => {
    const doc = openApiDocument() as {
      paths: Record<string, { get: { responses: Record<string, { content?: object; $ref?: string }> } }>;
    };
    for (const path of ['/api/merchantOrder/export', '/api/merchantPayout/export']) {
      const responses = doc.paths[path]!.get.responses;
      expect(Object.keys(responses['200']!.content!), path).toEqual([
        'text/csv',
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      ]);
      // A refusal is the envelope with its own status (422 for a period over a week).
      expect(responses['422']!.$ref, path).toBe('#/components/responses/422');
    }
    expect(docsPage(doc)).toContain('merchantOrder.export');
  });

  it('records who exported which filters in the operation log', async () => {
    const requestId = `export-${Date.now()}`;
    const qs = new URLSearchParams({ ...period(), format: 'csv', status: 'paid' });
    const res = await s.app.request(`http://localhost/api/merchantOrder/export?${qs}`, {
      headers: { 'admin-token': ownerA, 'x-request-id': requestId },
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const [row] = await s.db
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.requestId, requestId), eq(operationLog.action, 'merchantOrder.export')));
    expect(row).toMatchObject({
      outcome: 'ok',
      merchantId: a.id,
      target: 'export:collection-orders',
      detail: { format: 'csv', status: 'paid', merchantId: a.id },
    });
  });

  describe('several numbers at once (nos)', () => {
    it('finds pay-ins whose system, merchant, channel number or UTR equals one given, in list, totals and export', async () => {
      const paid = await listAll(endpoints.merchantOrder.list, admin, {
        ...period(),
        merchantId: a.id,
        status: 'paid',
      });
      const [x, y, z] = paid as {
        id: number;
        orderNo: string;
        merchantOrderNo: string;
        channelOrderId: string;
        utr: string;
        amount: string;
      }[];
      const pending = (
        await listAll(endpoints.merchantOrder.list, admin, {
          ...period(),
          merchantId: a.id,
          status: 'pending',
        })
      )[0] as { id: number; channelOrderId: string };
      const ids = async (nos: string | string[], token = admin) =>
        (await listAll(endpoints.merchantOrder.list, token, { ...period(), nos })).map((r) => r.id);
      expect(await ids(x!.orderNo)).toEqual([x!.id]);
      expect(await ids([x!.merchantOrderNo, y!.utr, pending.channelOrderId])).toEqual(
        [x!.id, y!.id, pending.id].sort((p, q) => q - p),
      );
      expect(await ids([z!.channelOrderId, z!.utr])).toEqual([z!.id]);
      // Whole numbers only: a prefix is the search box's job (`q`), not this filter's.
      expect(await ids(x!.orderNo.slice(0, 12))).toEqual([]);
      expect(await ids([`${x!.utr}0`, 'nothing'])).toEqual([]);
      // Combined with the other filters, and confined to the caller's merchant.
      expect(await ids([x!.orderNo, bOrders[0]!], ownerA)).toEqual([x!.id]);
      const totals = await s.call(
        endpoints.merchantOrder.totals,
        { ...period(), nos: [x!.orderNo, y!.merchantOrderNo] },
        admin,
      );
      const sum = (Number(x!.amount) + Number(y!.amount)).toFixed(2);
      expect(totals.data).toEqual({ count: 2, amount: sum, countCapped: false });
      const file = await download('/merchantOrder/export', admin, {
        ...period(),
        nos: [x!.utr, z!.orderNo],
        format: 'csv',
      });
      expect(
        csvRecords(file.body)
          .slice(1)
          .map((r) => r[0]),
      ).toEqual([z!.orderNo, x!.orderNo].sort().reverse());
      const tooMany = await s.call(
        endpoints.merchantOrder.list,
        { ...period(), nos: Array.from({ length: 101 }, (_, i) => `N${i}`) },
        admin,
      );
      expect(tooMany.errno).toBe(errno.invalid);
    });
  });

  describe('payouts', () => {
    let m: Merchant;
    beforeAll(async () => {
      m = await simulatorMerchant(s, { payoutIpWhitelist: ['203.0.113.0/24'], payoutRatePpm: 10_000 });
      await seedPayoutBalance(s, m.id, 10_000_000);
      for (let i = 0; i < 5; i++) {
        s.clock.advance(1_000);
        const body = payoutBody({
          amount: `${20 + i}.25`,
          // A name a spreadsheet would run as a formula: the CSV cell is defused.
          accountName: i === 0 ? '=HYPERLINK("http://evil.example","x")' : `Payee ${i}`,
        });
        const res = await s.gateway(m, 'POST', '/gateway/v1/payout', body);
        expect(res.status).toBe(201);
      }
      await drainQueue(s);
      const owner = await s.login(m.ownerUsername, m.ownerPassword);
      const rows = await listAll(endpoints.merchantPayout.list, owner, period());
      await s.call(endpoints.simulator.payout, { orderNo: rows[0]!.orderNo, result: 'success' }, admin);
      await s.call(endpoints.simulator.payout, { orderNo: rows[1]!.orderNo, result: 'fail' }, admin);
    });

    it('finds payouts by several whole numbers in list, totals and export', async () => {
      const owner = await s.login(m.ownerUsername, m.ownerPassword);
      const rows = (await listAll(endpoints.merchantPayout.list, owner, period())) as {
        id: number;
        orderNo: string;
        merchantOrderNo: string;
        channelOrderId: string;
        amount: string;
      }[];
      const [p, q, r] = rows;
      const nos = [p!.orderNo, q!.merchantOrderNo, r!.channelOrderId, 'NOT-A-NUMBER'];
      const found = await listAll(endpoints.merchantPayout.list, owner, { ...period(), nos });
      expect(found.map((x) => x.id)).toEqual([p!.id, q!.id, r!.id]);
      expect(
        (await listAll(endpoints.merchantPayout.list, owner, { ...period(), nos: p!.orderNo.slice(0, 10) }))
          .length,
      ).toBe(0);
      const totals = await s.call(endpoints.merchantPayout.totals, { ...period(), nos }, owner);
      const sum = (Number(p!.amount) + Number(q!.amount) + Number(r!.amount)).toFixed(2);
      expect(totals.data).toEqual({ count: 3, amount: sum, countCapped: false });
      const file = await download('/merchantPayout/export', owner, { ...period(), nos, format: 'csv' });
      expect(
        csvRecords(file.body)
          .slice(1)
          .map((x) => x[0]),
      ).toEqual([p!.orderNo, q!.orderNo, r!.orderNo]);
      // Another merchant's user finds none of them.
      expect((await listAll(endpoints.merchantPayout.list, ownerA, { ...period(), nos })).length).toBe(0);
    });

    it('exports the payout list as CSV and XLSX with the same rows, formulas defused in both', async () => {
      const owner = await s.login(m.ownerUsername, m.ownerPassword);
      const rows = await listAll(endpoints.merchantPayout.list, owner, period());
      expect(rows.length).toBe(5);
      const csv = await download('/merchantPayout/export', owner, { ...period(), format: 'csv' });
      expect(csv.headers.get('content-disposition')).toMatch(/filename="payout-orders_.*\.csv"/);
      const [header, ...body] = csvRecords(csv.body);
      expect(header).toEqual(payoutColumns.map((c) => t('en', `export.columns.${c.key}`)));
      const defused = expected(payoutColumns, rows).map((r) =>
        r.map((v, i) => (payoutColumns[i]!.text ? guardFormula(v) : v)),
      );
      expect(body).toEqual(defused);
      const nameAt = payoutColumns.findIndex((c) => c.key === 'accountName');
      expect(body.map((r) => r[nameAt])).toContain(`'=HYPERLINK("http://evil.example","x")`);

      const xlsx = await download('/merchantPayout/export', owner, { ...period(), format: 'xlsx' });
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(xlsx.body as never);
      const names: string[] = [];
      book.worksheets[0]!.eachRow((row, n) => {
        if (n > 1) names.push(String(row.getCell(nameAt + 1).value));
      });
      // A string cell is no formula, but a person who edits it makes it one: defused as in CSV.
      expect(names).toEqual(rows.map((r) => guardFormula(r.accountName as string)));
      expect(names).toContain(`'=HYPERLINK("http://evil.example","x")`);
    });
  });

  it('defuses a formula in every text cell, UTR and channel order id included, in CSV and XLSX', async () => {
    const c = await merchantOn(s);
    const o = await createOrder(s, c, { amount: '12.50', merchantOrderNo: '-2-3' });
    // What a channel reports is not held to the console's UTR rules: anything may arrive.
    const evil = (n: string) => `=HYPERLINK("http://evil.example","${n}")`;
    await s.db
      .update(payinOrders)
      .set({ utr: evil('utr'), channelOrderId: '@SUM(1)' })
      .where(eq(payinOrders.id, o.id));
    const filters = { ...period(), merchantId: c.id };
    const csv = await download('/merchantOrder/export', admin, { ...filters, format: 'csv' });
    const [header, row] = csvRecords(csv.body);
    const cell = (cells: string[], key: string) => cells[payinColumns.findIndex((col) => col.key === key)];
    expect(header).toHaveLength(payinColumns.length);
    const defused = { merchantOrderNo: "'-2-3", utr: `'${evil('utr')}`, channelOrderId: "'@SUM(1)" };
    for (const [key, value] of Object.entries(defused)) expect(cell(row!, key), key).toBe(value);
    expect(cell(row!, 'amount')).toBe('12.50');

    const xlsx = await download('/merchantOrder/export', admin, { ...filters, format: 'xlsx' });
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.body as never);
    const values = (book.worksheets[0]!.getRow(2).values as unknown[]).slice(1).map((v) => String(v ?? ''));
    for (const [key, value] of Object.entries(defused)) expect(cell(values, key), key).toBe(value);
  });
});

describe('the formula guard', () => {
  const row = ['2026-11-21 23:44:04+00', '1', '-1250', '=HYPERLINK("http://evil.example","x")', '-5'];
  const columns: Column<string[]>[] = [
    { key: 'amount', value: (r) => moneyCell(r[2]!) },
    { key: 'accountName', value: (r) => r[3]!, text: true },
    { key: 'merchantOrderNo', value: (r) => r[4]!, text: true },
  ];
  const source = { columns, batch: async () => ({ rows: [], last: null }) };
  const read = async (format: 'csv' | 'xlsx') => {
    const chunks: Buffer[] = [];
    for await (const chunk of exportStream(source, { rows: [row], last: null }, format, 'en', () => {}))
      chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks);
  };

  it('defuses text in CSV and XLSX and leaves a negative amount as it is', async () => {
    const [, csv] = parse(await read('csv'), { bom: true }) as string[][];
    expect(csv).toEqual(['-12.50', `'=HYPERLINK("http://evil.example","x")`, "'-5"]);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await read('xlsx')) as never);
    expect((book.worksheets[0]!.getRow(2).values as unknown[]).slice(1)).toEqual(csv);
  });

  it('marks every column of both exports as text but money and times', () => {
    for (const columns of [payinColumns, payoutColumns]) {
      const plain = columns.filter((c) => !c.text).map((c) => c.key);
      expect(
        plain.every((k) => /amount|fee|At$/i.test(k)),
        plain.join(),
      ).toBe(true);
      expect(columns.find((c) => c.key === 'utr')?.text).toBe(true);
      expect(columns.find((c) => c.key === 'channelOrderId')?.text).toBe(true);
    }
  });
});

describe('streaming in constant memory', () => {
  /** A source of `batches` batches of made-up rows that counts how many were read. */
  function counted(batches: number) {
    const read = { batches: 0 };
    const columns: Column<number>[] = [
      { key: 'orderNo', value: (n) => `PI${String(n).padStart(20, '0')}` },
      // Hardly compressible, as real names and numbers are: the zip holds bytes, not rows.
      { key: 'accountName', value: (n) => createHash('sha256').update(String(n)).digest('hex'), text: true },
      { key: 'amount', value: (n) => `${n}.50` },
    ];
    const source = {
      columns,
      async batch(after: { at: string; id: string } | null, limit: number) {
        const from = after ? Number(after.id) + 1 : 0;
        if (from >= batches * limit) return { rows: [], last: null };
        read.batches++;
        const rows = Array.from({ length: limit }, (_, i) => from + i);
        return { rows, last: { at: '1970-01-01T00:00:00Z', id: String(rows.at(-1)!) } };
      },
    };
    return { source, read };
  }

  for (const format of ['csv', 'xlsx'] as const) {
    it(`reads no further ahead than the client takes (${format})`, async () => {
      const { source, read } = counted(200);
      const stream = exportStream(source, await source.batch(null, exportBatchSize), format, 'en', (err) => {
        throw err;
      });
      // Nobody reads for a while: the export must stop after a few batches, not load all 400,000 rows.
      stream.pause();
      stream.on('data', () => {});
      stream.pause();
      // Held back, not merely slow: after seconds without a reader it has read well under half the set
      // (the CSV about one batch ahead, the XLSX what fits in its 4 MiB on the way to the client).
      await new Promise((r) => setTimeout(r, 3_000));
      const stalled = read.batches;
      await new Promise((r) => setTimeout(r, 1_000));
      expect(read.batches).toBeLessThan(60);
      expect(stalled).toBeLessThan(60);
      let bytes = 0;
      let lines = 0;
      let expectNo = 0;
      let tail = '';
      // The first line out of order, checked after the end: an `expect` a line is most of the test's time
      // for 400,000 lines (past a minute on a busy machine).
      let outOfOrder: string | undefined;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (format !== 'csv') return;
        const text = tail + chunk.toString('utf8');
        const parts = text.split('\r\n');
        tail = parts.pop()!;
        for (const line of parts) {
          if (lines++ === 0) continue;
          if (!line.startsWith(`PI${String(expectNo++).padStart(20, '0')},`)) outOfOrder ??= line;
        }
      });
      stream.resume();
      await new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject));
      expect(read.batches).toBe(200);
      expect(stalled).toBeLessThan(read.batches);
      // Every row once, in order: 400,000 lines after the header.
      expect(outOfOrder).toBeUndefined();
      if (format === 'csv') expect(lines).toBe(200 * exportBatchSize + 1);
      expect(bytes).toBeGreaterThan(0);
    }, 60_000);
  }

  for (const format of ['csv', 'xlsx'] as const) {
    it(`stops reading when the client goes away (${format})`, async () => {
      const { source, read } = counted(200);
      const stream = exportStream(source, await source.batch(null, exportBatchSize), format, 'en', (err) => {
        throw err;
      });
      await new Promise<void>((resolve) => stream.once('data', () => resolve()));
      stream.destroy();
      // It notices at its next step (a busy machine may take a moment), then reads nothing more.
      let atClose = -1;
      for (let i = 0; i < 40 && read.batches !== atClose; i++) {
        atClose = read.batches;
        await new Promise((r) => setTimeout(r, 250));
      }
      await new Promise((r) => setTimeout(r, 1_000));
      expect(read.batches).toBe(atClose);
      expect(atClose).toBeLessThan(60);
    });
  }

  it('measures what the XLSX writer holds on the way to the client (its backpressure signal)', async () => {
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({
      stream: new PassThrough(),
      useStyles: false,
      useSharedStrings: false,
    });
    const sheet = book.addWorksheet('Orders');
    for (let i = 0; i < 20_000; i++) sheet.addRow([`PI${i}`, `Payee ${i * 7919}`, `${i}.00`]).commit();
    // Nobody reads `out`: about 2 MB of XML are held somewhere between the sheet and the client.
    expect(xlsxBacklog(sheet)).toBeGreaterThan(200_000);
  });
});

describe('built-in roles', () => {
  it('hold each export where they hold its list, and the dashboard where they list orders', () => {
    const ep = endpoints;
    for (const [kind, roles] of Object.entries(builtinRoles)) {
      for (const role of roles) {
        const perms = role.perms();
        if (perms.includes('*')) continue;
        const name = `${kind} ${role.key}`;
        const lists = [ep.merchantOrder.list, ep.merchantPayout.list].map((e) =>
          perms.includes(e.permission),
        );
        expect(perms.includes(ep.merchantOrder.export.permission), name).toBe(lists[0]);
        expect(perms.includes(ep.merchantPayout.export.permission), name).toBe(lists[1]);
        expect(perms.includes(ep.dashboard.summary.permission), name).toBe(lists.some(Boolean));
      }
    }
  });
});
