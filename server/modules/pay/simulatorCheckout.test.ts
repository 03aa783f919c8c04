/**
 * The simulator's checkout at a pay-in's payUrl: the payer pays or fails the order once, the callback is
 * queued as a channel's would be, a second payment changes nothing, and with the simulator off (or for
 * another channel's order) there is no page.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationLog, payinOrders, webhookEvents } from '../../db/schema.ts';
import { engines, startTestServer, type TestServer } from '../../test/harness.ts';
import { createOrder } from '../payin/testkit.ts';

const form = (result: string) => ({
  rawBody: new URLSearchParams({ result }).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

describe.each(engines)('the simulator checkout on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterAll(() => s.close());

  it('shows the order at its payUrl and pays it once; the merchant is told as by a channel', async () => {
    const m = await s.makeMerchant();
    const order = await createOrder(s, m, { amount: '123456.50' });
    const path = new URL(order.payUrl!, 'http://x').pathname;
    expect(path).toBe(`/sim/pay/${order.orderNo}`);

    const shown = await s.request('GET', path, { headers: { 'accept-language': 'zh-CN,zh;q=0.9' } });
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('<html lang="zh-CN">');
    expect(shown.text).toContain('₹123,456.50');
    // In English, the rupee in Indian grouping (lakh).
    expect((await s.request('GET', path)).text).toContain('₹1,23,456.50');
    expect(shown.text).toContain('name="result" value="success"');

    const paid = await s.request('POST', path, form('success'));
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(path);
    const after = await status(s, order.orderNo);
    expect(after.status).toBe('paid');
    expect(after.utr).toMatch(/^\d{12}$/);
    const events = await s.db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.orderType, 'payin'), eq(webhookEvents.orderId, order.id)));
    expect(events.map((e) => e.type)).toContain('payin.paid');
    const [logged] = await s.db
      .select()
      .from(operationLog)
      .where(
        and(eq(operationLog.action, 'simulator.checkout'), eq(operationLog.target, `payin:${order.orderNo}`)),
      );
    expect(logged).toMatchObject({ ip: '10.0.0.1', userId: null, detail: { result: 'success' } });

    // The page now says so, and neither a second payment nor a failure changes the order.
    const again = await s.request('GET', path);
    expect(again.text).toContain(`UTR ••••${after.utr!.slice(-4)}`);
    expect(again.text).not.toContain('name="result"');
    expect((await s.request('POST', path, form('fail'))).status).toBe(303);
    expect(await status(s, order.orderNo)).toMatchObject({
      status: 'paid',
      utr: after.utr,
      paidAt: after.paidAt,
    });
  });

  it('fails an order when the payer fails it, and refuses anything but pay or fail', async () => {
    const m = await s.makeMerchant();
    const order = await createOrder(s, m);
    const path = `/sim/pay/${order.orderNo}`;
    const bad = await s.request('POST', path, form('maybe'));
    expect(bad.status).toBe(422);
    expect((await status(s, order.orderNo)).status).toBe('pending');
    expect((await s.request('POST', path, form('fail'))).status).toBe(303);
    expect((await status(s, order.orderNo)).status).toBe('failed');
  });

  it('has no page for an unknown number or a malformed one', async () => {
    expect((await s.request('GET', '/sim/pay/PI00000000000000000000')).status).toBe(404);
    expect((await s.request('GET', '/sim/pay/%3Cscript%3E')).status).toBe(404);
    expect((await s.request('POST', '/sim/pay/PI00000000000000000000', form('success'))).status).toBe(404);
    expect((await s.request('POST', '/sim/pay/%3Cscript%3E', form('success'))).status).toBe(404);
    // A body past its 1 KB is no choice at all.
    const huge = { ...form('success'), rawBody: `result=success&x=${'a'.repeat(5000)}` };
    expect((await s.request('POST', '/sim/pay/PI00000000000000000000', huge)).status).toBe(422);
  });
});

describe('the simulator checkout with the simulator off', () => {
  it('answers 404 and pays nothing', async () => {
    const s = await startTestServer('pglite');
    try {
      const m = await s.makeMerchant();
      const order = await createOrder(s, m);
      s.deps.config.simulator = false;
      expect((await s.request('GET', `/sim/pay/${order.orderNo}`)).status).toBe(404);
      expect((await s.request('POST', `/sim/pay/${order.orderNo}`, form('success'))).status).toBe(404);
      expect((await status(s, order.orderNo)).status).toBe('pending');
    } finally {
      await s.close();
    }
  });
});

async function status(s: TestServer, orderNo: string) {
  return (await s.db.select().from(payinOrders).where(eq(payinOrders.orderNo, orderNo)))[0]!;
}
