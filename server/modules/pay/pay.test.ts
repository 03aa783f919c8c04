/**
 * The pay page's JSON calls on both databases: what `/info` shows of a bank pay-in (exactly what a payer
 * needs: no merchant, fee or internal id), unknown and non-bank orders as 404, the payer's UTR recorded
 * normalised and never trusted (the order stays pending: no ledger entry, no callback), bad UTRs as 422 in
 * both languages with nothing written, a UTR that paid another order refused, expired orders still taking
 * a UTR (a payer who paid late says so), and the per-address limit.
 */
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { journalEntries, operationLog, payinOrders, statementLines, webhookEvents } from '../../db/schema.ts';
import { t } from '../../http/i18n.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { expireDuePayins } from '../payin/expiry.ts';
import { createOrder } from '../payin/testkit.ts';
import { type BankSetup, bankPayin, bankSetup } from '../receiving/testkit.ts';
import { payUtrsPerWindow } from './routes.ts';

let address = 0;
/** A client address of its own, so one test's calls never count against another's limit. */
const fromNewAddress = () => ({ 'x-forwarded-for': `198.51.100.${++address}` });

describe.each(engines)('the pay page on %s', (engine) => {
  let s: TestServer;
  let bank: BankSetup;

  beforeAll(async () => {
    s = await startTestServer(engine);
    bank = await bankSetup(s);
  });
  afterAll(() => s?.close());

  const info = (orderNo: string, headers: Record<string, string> = fromNewAddress()) =>
    s.request('GET', `/pay/${orderNo}/info`, { headers });
  const submit = (orderNo: string, body: unknown, headers: Record<string, string> = fromNewAddress()) =>
    s.request('POST', `/pay/${orderNo}/utr`, { body, headers });
  const stored = async (orderNo: string) =>
    (await s.db.select().from(payinOrders).where(eq(payinOrders.orderNo, orderNo)))[0]!;
  const sizes = async () => ({
    entries: (await s.db.select({ n: count() }).from(journalEntries))[0]!.n,
    events: (await s.db.select({ n: count() }).from(webhookEvents))[0]!.n,
  });
  const utrLog = (orderNo: string) =>
    s.db
      .select()
      .from(operationLog)
      .where(eq(operationLog.target, `payin:${orderNo}`));

  it('shows a pending bank pay-in: amount, account, UPI URI and QR code, nothing more', async () => {
    const { order } = await bankPayin(s, bank.merchant, {
      amount: '1234.50',
      returnUrl: 'https://shop.example.com/back',
    });
    const res = await info(order.orderNo);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.json.errno).toBe(0);
    const data = res.json.data as Record<string, unknown>;
    expect(Object.keys(data).sort()).toEqual(
      [
        'orderNo',
        'status',
        'amount',
        'currency',
        'expiresAt',
        'now',
        'account',
        'upiUri',
        'qrSvg',
        'payerUtr',
        'returnUrl',
        'supportText',
      ].sort(),
    );
    expect(data).toMatchObject({
      orderNo: order.orderNo,
      status: 'pending',
      amount: '1234.50',
      currency: 'INR',
      expiresAt: order.expiresAt.toISOString(),
      now: s.clock.now().toISOString(),
      payerUtr: null,
      // The merchant's return link is for after payment only.
      returnUrl: null,
    });
    expect(data.account).toEqual({
      bankName: 'HDFC Bank',
      accountName: 'Acme Collections Pvt Ltd',
      accountNumber: expect.stringMatching(/^\d+$/),
      ifsc: 'HDFC0001234',
      vpa: 'acme.collect@hdfcbank',
    });
    expect(data.upiUri).toBe(
      `upi://pay?pa=acme.collect%40hdfcbank&pn=Acme%20Collections%20Pvt%20Ltd&am=1234.50&cu=INR&tn=${order.orderNo}`,
    );
    expect(data.qrSvg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"[\s\S]*<\/svg>\s*$/);
    // Nothing of the merchant, the fee or the database leaks.
    for (const secret of [bank.merchant.code, order.merchantOrderNo, order.notifyUrl, '"fee"', '"id"'])
      expect(res.text).not.toContain(secret);
  });

  it('answers 404 for an unknown order, a malformed number and an order of another channel', async () => {
    const simulatorOrder = await createOrder(s, await s.makeMerchant());
    for (const orderNo of ['PI000000000000000000', 'bad%20no', simulatorOrder.orderNo]) {
      const res = await info(orderNo);
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ errno: errno.notFound, errmsg: 'Order not found', data: null });
      const sent = await submit(orderNo, { utr: 'ABC123456789' });
      expect(sent.status).toBe(404);
    }
    const zh = await info('PI000000000000000000', { ...fromNewAddress(), 'accept-language': 'zh-CN' });
    expect(zh.json.errmsg).toBe('订单不存在');
    expect((await stored(simulatorOrder.orderNo)).payerUtr).toBeNull();
  });

  it('records a UTR normalised, leaves the order pending and replaces it on a second submission', async () => {
    const { order } = await bankPayin(s, bank.merchant);
    const before = await sizes();
    const payer = { 'x-forwarded-for': '203.0.113.50' };
    const first = await submit(order.orderNo, { utr: '  abc123def456 ' }, payer);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ errno: 0, errmsg: '', data: { payerUtr: 'ABC123DEF456' } });
    let row = await stored(order.orderNo);
    expect(row.payerUtr).toBe('ABC123DEF456');
    // Never trusted: not paid, no money moved, no callback.
    expect(row.status).toBe('pending');
    expect(row.utr).toBeNull();
    expect(row.paidAt).toBeNull();
    expect(await sizes()).toEqual(before);
    // Whoever holds the order number reads the page: the UTR shows as its last four characters only.
    expect((await info(order.orderNo)).json.data).toMatchObject({
      status: 'pending',
      payerUtr: '••••F456',
    });

    // The same UTR again changes nothing; another one replaces it (a payer correcting a typo).
    expect((await submit(order.orderNo, { utr: 'abc123def456' }, payer)).json.errno).toBe(0);
    expect(
      (await submit(order.orderNo, { utr: 'XYZ987654321' }, { 'x-forwarded-for': '203.0.113.51' })).json.data,
    ).toEqual({
      payerUtr: 'XYZ987654321',
    });
    row = await stored(order.orderNo);
    expect(row.payerUtr).toBe('XYZ987654321');
    expect(row.status).toBe('pending');
    const log = await utrLog(order.orderNo);
    expect(log.map((l) => [l.action, l.outcome, l.userId, l.ip])).toEqual([
      ['pay.utr', 'ok', null, '203.0.113.50'],
      ['pay.utr', 'ok', null, '203.0.113.51'],
    ]);
    expect(log[1]!.detail).toEqual({
      changes: { payerUtr: { before: 'ABC123DEF456', after: 'XYZ987654321' } },
    });
    // The console's order drawer shows it beside the order's own UTR.
    const drawer = await s.call(endpoints.merchantOrder.info, { id: order.id }, bank.root);
    expect(drawer.data).toMatchObject({ payerUtr: 'XYZ987654321', utr: null, status: 'pending' });
  });

  it('refuses a malformed UTR with a clear 422 in English and Chinese, writing nothing', async () => {
    const { order } = await bankPayin(s, bank.merchant);
    for (const [language, lang] of [
      ['en', 'en'],
      ['zh-CN,zh;q=0.9', 'zh_CN'],
    ] as const) {
      for (const utr of ['12345', 'ABC-123456', 'x'.repeat(33), '']) {
        const res = await submit(
          order.orderNo,
          { utr },
          { ...fromNewAddress(), 'accept-language': language },
        );
        expect(res.status).toBe(422);
        expect(res.json.errno).toBe(errno.invalid);
        expect(res.json.errmsg).toBe(t(lang, 'validation.utr'));
      }
    }
    expect(t('en', 'validation.utr')).not.toBe(t('zh_CN', 'validation.utr'));
    // Not a JSON object of `{utr}`: refused the same way.
    expect((await submit(order.orderNo, { utr: 'ABC123456789', amount: '1.00' })).status).toBe(422);
    expect((await submit(order.orderNo, { utr: 123456789 })).status).toBe(422);
    const notJson = await s.request('POST', `/pay/${order.orderNo}/utr`, {
      rawBody: 'utr=ABC123456789',
      headers: { ...fromNewAddress(), 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(notJson.status).toBe(415);
    const broken = await s.request('POST', `/pay/${order.orderNo}/utr`, {
      rawBody: '{"utr":',
      headers: { ...fromNewAddress(), 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    const large = await submit(order.orderNo, { utr: 'ABC123456789', pad: 'x'.repeat(1000) });
    expect(large.status).toBe(413);
    expect((await stored(order.orderNo)).payerUtr).toBeNull();
    expect(await utrLog(order.orderNo)).toEqual([]);
  });

  it('refuses a UTR that paid another order, and any UTR on a paid order', async () => {
    const { order: paid } = await bankPayin(s, bank.merchant, { returnUrl: 'https://shop.example.com/done' });
    // Setup only: the order paid as a statement line would pay it (that path is the statement tests').
    await s.db
      .update(payinOrders)
      .set({ status: 'paid', utr: 'PAIDUTR000001', paidAmount: paid.amount, paidAt: s.clock.now() })
      .where(eq(payinOrders.id, paid.id));
    const { order } = await bankPayin(s, bank.merchant);

    const used = await submit(order.orderNo, { utr: 'paidutr000001' });
    expect(used.status).toBe(409);
    expect(used.json).toEqual({
      errno: errno.utrUsed,
      errmsg: 'This UTR has already paid another order',
      data: null,
    });
    expect((await stored(order.orderNo)).payerUtr).toBeNull();

    const onPaid = await submit(
      paid.orderNo,
      { utr: 'OTHER0000001' },
      { ...fromNewAddress(), 'accept-language': 'zh' },
    );
    expect(onPaid.status).toBe(409);
    expect(onPaid.json.errmsg).toBe('此订单已支付');
    expect((await stored(paid.orderNo)).payerUtr).toBeNull();

    // The paid page: its outcome and the merchant's return link, nothing else of the order.
    expect((await info(paid.orderNo)).json.data).toMatchObject({
      status: 'paid',
      amount: null,
      currency: null,
      expiresAt: null,
      account: null,
      upiUri: null,
      qrSvg: null,
      payerUtr: null,
      returnUrl: 'https://shop.example.com/done',
    });
  });

  it('shows an order past its expiry as expired, without the account, and still takes a late payer’s UTR', async () => {
    const { order } = await bankPayin(s, bank.merchant);
    s.clock.set(new Date(order.expiresAt.getTime() + 1000));
    const expired = (await info(order.orderNo)).json.data;
    expect(expired).toMatchObject({ status: 'expired', account: null, upiUri: null, qrSvg: null });
    expect((await submit(order.orderNo, { utr: 'LATE00000001' })).json.errno).toBe(0);

    // Once the sweeper turned it unpaid: the same page, and a corrected UTR is still taken.
    await expireDuePayins(s.deps);
    expect((await stored(order.orderNo)).status).toBe('unpaid');
    // Of an expired order, its outcome alone: not the UTR a payer named, nor the amount.
    expect((await info(order.orderNo)).json.data).toMatchObject({
      status: 'expired',
      payerUtr: null,
      amount: null,
      expiresAt: null,
    });
    expect((await submit(order.orderNo, { utr: 'LATE00000002' })).json.errno).toBe(0);
    const row = await stored(order.orderNo);
    expect([row.status, row.payerUtr]).toEqual(['unpaid', 'LATE00000002']);
  });

  it('a statement imported before the payer spoke is ready to post as soon as the payer names its UTR', async () => {
    const { order } = await bankPayin(s, bank.merchant, { amount: '642.00' });
    const utr = `7${String(Date.now()).slice(-11)}`;
    const day = new Date(s.clock.now()).toLocaleDateString('en-CA', { timeZone: 'Asia/Kolkata' });
    const imported = await s.call(
      endpoints.statement.import,
      {
        accountId: bank.accountId,
        mapping: {
          headerRow: 1,
          dateColumn: 'Date',
          dateFormat: 'yyyy-MM-dd',
          narrationColumn: 'Narration',
          creditColumn: 'Credit',
          utrPattern: '^UPI-(\\d{12})-',
        },
        text: `Date,Narration,Credit\n${day},UPI-${utr}-A PAYER,642.00\n`,
      },
      await s.adminToken(),
    );
    expect(imported.errno, imported.errmsg + JSON.stringify(imported.data)).toBe(0);
    // Nobody claimed the UTR yet: the credit waits as a proposal (the one open order of its amount).
    expect(imported.data.counts).toMatchObject({ new: 1, matched: 0 });
    expect((await stored(order.orderNo)).status).toBe('pending');

    // The payer names it: the line is ready to post at once (a person's statement pays only when a
    // finance user posts it; a feed's line would pay now).
    expect((await submit(order.orderNo, { utr })).json.errno).toBe(0);
    const [line] = await s.db.select().from(statementLines).where(eq(statementLines.utr, utr));
    expect(line).toMatchObject({ status: 'ready', candidatePayinId: order.id });
    expect((await stored(order.orderNo)).status).toBe('pending');
  });

  it(`limits UTR submissions to ${payUtrsPerWindow} per address in ten minutes`, async () => {
    const { order } = await bankPayin(s, bank.merchant);
    const from = fromNewAddress();
    for (let i = 0; i < payUtrsPerWindow; i++)
      expect((await submit(order.orderNo, { utr: `LIMIT${String(i).padStart(7, '0')}` }, from)).status).toBe(
        200,
      );
    const over = await submit(order.orderNo, { utr: 'LIMIT9999999' }, from);
    expect(over.status).toBe(429);
    expect(over.json.errmsg).toBe('Too many attempts: wait a few minutes and try again');
    expect((await stored(order.orderNo)).payerUtr).toBe(
      `LIMIT${String(payUtrsPerWindow - 1).padStart(7, '0')}`,
    );
    // Another address is not held back.
    expect((await submit(order.orderNo, { utr: 'LIMIT8888888' })).status).toBe(200);
  });
});
