/**
 * The merchant SDK (issue 29) against the real server over real HTTP, on every engine: pay-ins and
 * payouts created and queried by both numbers, idempotent creates replayed (and refused with other
 * content), refusals as typed errors, callbacks delivered to a local receiver and verified (a tampered one
 * refused). The 503 retry runs against a small stub, since the real server answers 503 only when its
 * database is down.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../contract/index.ts';
import { refunds } from '../../server/db/schema.ts';
import { inTransaction } from '../../server/db/transaction.ts';
import { deliverDue } from '../../server/jobs/webhooks.ts';
import { hmacHex } from '../../server/lib/crypto.ts';
import { expectBalanced, simPay, startReceiver } from '../../server/modules/payin/testkit.ts';
import { drainQueue, seedPayoutBalance, simulatorMerchant } from '../../server/modules/payout/testkit.ts';
import { completePayout } from '../../server/modules/payout/transitions.ts';
import { engines, startTestServer, type TestServer } from '../../server/test/harness.ts';
import {
  type Callback,
  PaygateClient,
  PaygateError,
  verifyCallback,
  WebhookVerificationError,
} from '../src/index.ts';

let seq = 0;
const orderNo = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

/** What a call threw (a test of a refusal fails when nothing was thrown). */
async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a refusal');
}

describe.each(engines)('the merchant SDK against the server on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  let base: string;
  let close: () => Promise<void>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let m: Awaited<ReturnType<typeof simulatorMerchant>>;
  let client: PaygateClient;

  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
    const server = serve({ fetch: s.app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    receiver = await startReceiver();
    // Payouts are taken only from the whitelist: the SDK calls from loopback.
    m = await simulatorMerchant(s, {
      payoutIpWhitelist: ['127.0.0.1'],
      payoutRatePpm: 10_000,
      payoutFee: 500,
    });
    await seedPayoutBalance(s, m.id, 1_000_000);
    // The server runs on the tests' clock: the signatures' timestamps are read from it.
    client = new PaygateClient({
      baseUrl: base,
      merchantId: m.code,
      apiSecret: m.apiSecret,
      now: () => s.clock.now(),
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await close?.();
    await s?.close();
  });

  /** Delivers every due callback, as the server's worker would. */
  const deliver = async () => {
    while ((await deliverDue(s.deps)) > 0) {}
  };
  /** The one delivery of the order `no`, verified as the merchant's endpoint would verify it. */
  const callbackOf = (no: string): Callback => {
    const got = receiver.received.filter((r) => r.body.includes(`"orderNo":"${no}"`));
    expect(got).toHaveLength(1);
    return verifyCallback(m.webhookSecret, got[0]!.headers, got[0]!.body);
  };

  it('creates a pay-in, finds it by either number, and verifies its callback', async () => {
    const before = await client.balance();
    const merchantOrderNo = orderNo('PI');
    const { order, replayed } = await client.createPayin({
      merchantOrderNo,
      amount: '250.00',
      notifyUrl: receiver.url,
      payer: { name: 'Asha Verma' },
    });
    expect(replayed).toBe(false);
    expect(order).toMatchObject({ merchantOrderNo, amount: '250.00', status: 'pending', currency: 'INR' });
    expect(order.payUrl).toMatch(/^https?:\/\//);
    expect(await client.getPayin(order.orderNo)).toEqual(order);
    expect(await client.findPayin(merchantOrderNo)).toEqual(order);

    await simPay(s, admin, order.orderNo, 'success');
    await deliver();
    const callback = callbackOf(order.orderNo);
    expect(callback.type).toBe('payin.paid');
    if (callback.type !== 'payin.paid') return;
    // Typed as the pay-in the query answers: the same order, now paid.
    expect(callback.data).toEqual(await client.getPayin(order.orderNo));
    expect(callback.data.status).toBe('paid');
    // The merchant's collection balance grew by what was paid less the fee.
    const after = await client.balance();
    const collected = (b: typeof after) => Number(b.collection.available) + Number(b.collection.pending);
    expect(collected(after) - collected(before)).toBeCloseTo(250 - Number(callback.data.fee), 2);
    await expectBalanced(s);
  });

  it('refunds part of a paid pay-in, replays the refund, and verifies its callback', async () => {
    const { order } = await client.createPayin({
      merchantOrderNo: orderNo('PI'),
      amount: '300.00',
      notifyUrl: receiver.url,
    });
    await simPay(s, admin, order.orderNo, 'success');
    const body = {
      orderNo: order.orderNo,
      refundNo: orderNo('RF'),
      amount: '120.00',
      payee: { accountName: 'Asha Verma', accountNumber: '50100200300', ifsc: 'HDFC0001234' },
    };
    const made = await client.createRefund(body);
    expect(made.replayed).toBe(false);
    expect(made.order).toMatchObject({
      refundNo: body.refundNo,
      status: 'processing',
      refundedAmount: '120.00',
    });
    const again = await client.createRefund(body);
    expect(again).toEqual({ order: made.order, replayed: true });
    // The refund's payout is handed to the simulator and paid; the merchant hears `payin.refunded`.
    await drainQueue(s);
    const [r] = await s.db.select().from(refunds).where(eq(refunds.merchantRefundNo, body.refundNo));
    await inTransaction(s.db, (tx) =>
      completePayout(s.deps, tx, {
        orderId: r!.payoutId!,
        result: 'success',
        by: 'channel',
        utr: 'SDKRF0001',
      }),
    );
    await deliver();
    const got = receiver.received.filter((x) => x.body.includes(`"refundNo":"${body.refundNo}"`));
    expect(got).toHaveLength(1);
    const callback = verifyCallback(m.webhookSecret, got[0]!.headers, got[0]!.body);
    expect(callback.type).toBe('payin.refunded');
    if (callback.type !== 'payin.refunded') return;
    expect(callback.data).toEqual(await client.getRefund(body.refundNo));
    expect(callback.data).toMatchObject({ status: 'success', utr: 'SDKRF0001' });
    await expectBalanced(s);
  });

  it('refuses a tampered callback, another secret, and missing headers', async () => {
    const merchantOrderNo = orderNo('PI');
    const { order } = await client.createPayin({ merchantOrderNo, amount: '75.50', notifyUrl: receiver.url });
    await simPay(s, admin, order.orderNo, 'fail');
    await deliver();
    const got = receiver.received.find((r) => r.body.includes(`"orderNo":"${order.orderNo}"`))!;
    expect(verifyCallback(m.webhookSecret, got.headers, Buffer.from(got.body)).type).toBe('payin.failed');
    // Headers as the Fetch API holds them are read too.
    const fetchHeaders = new Headers(got.headers as Record<string, string>);
    expect(verifyCallback(m.webhookSecret, fetchHeaders, got.body).type).toBe('payin.failed');

    const tampered = got.body.replace('"amount":"75.50"', '"amount":"7550.00"');
    expect(tampered).not.toBe(got.body);
    expect(() => verifyCallback(m.webhookSecret, got.headers, tampered)).toThrow(WebhookVerificationError);
    const other = await s.makeMerchant();
    expect(() => verifyCallback(other.webhookSecret, got.headers, got.body)).toThrow(
      WebhookVerificationError,
    );
    const { 'webhook-signature': _, ...unsigned } = got.headers;
    expect(() => verifyCallback(m.webhookSecret, unsigned, got.body)).toThrow(WebhookVerificationError);
  });

  it('creates a payout, finds it by either number, and verifies its callback', async () => {
    const before = await client.balance();
    const merchantOrderNo = orderNo('PO');
    const { order, replayed } = await client.createPayout({
      merchantOrderNo,
      amount: '100.00',
      accountName: 'Asha Verma',
      accountNumber: '123456789012',
      ifsc: 'HDFC0001234',
      notifyUrl: receiver.url,
    });
    expect(replayed).toBe(false);
    // 1 % + 5.00.
    expect(order).toMatchObject({ merchantOrderNo, status: 'queued', amount: '100.00', fee: '6.00' });
    expect(await client.getPayout(order.orderNo)).toEqual(order);
    expect(await client.findPayout(merchantOrderNo)).toEqual(order);
    const after = await client.balance();
    expect(Number(after.payout.frozen) - Number(before.payout.frozen)).toBeCloseTo(106, 2);

    await drainQueue(s);
    expect((await client.getPayout(order.orderNo)).status).toBe('processing');
    await s.call(endpoints.simulator.payout, { orderNo: order.orderNo, result: 'success' }, admin);
    await deliver();
    const callback = callbackOf(order.orderNo);
    expect(callback.type).toBe('payout.success');
    if (callback.type !== 'payout.success') return;
    expect(callback.data.status).toBe('success');
    expect(callback.data).toEqual(await client.findPayout(merchantOrderNo));
    await expectBalanced(s);
  });

  it('replays an idempotent create, and refuses the number with other content (409)', async () => {
    const body = { merchantOrderNo: orderNo('PI'), amount: '120.00', notifyUrl: receiver.url };
    const first = await client.createPayin(body);
    const again = await client.createPayin({ ...body });
    expect(again.replayed).toBe(true);
    expect(again.order).toEqual(first.order);

    const err = await thrown(client.createPayin({ ...body, amount: '121.00' }));
    expect(err).toBeInstanceOf(PaygateError);
    expect(err).toMatchObject({ status: 409, errno: 409 });
    expect((await client.findPayin(body.merchantOrderNo)).amount).toBe('120.00');

    const payout = {
      merchantOrderNo: orderNo('PO'),
      amount: '10.00',
      accountName: 'Ravi Kumar',
      accountNumber: '987654321',
      ifsc: 'ICIC0000001',
      notifyUrl: receiver.url,
    };
    const made = await client.createPayout(payout);
    const repeated = await client.createPayout(payout);
    expect(repeated).toEqual({ order: made.order, replayed: true });
    expect(await thrown(client.createPayout({ ...payout, ifsc: 'ICIC0000002' }))).toMatchObject({
      status: 409,
    });
  });

  it('throws typed refusals: a wrong secret (401), an unknown order (404), invalid fields (422)', async () => {
    const wrong = new PaygateClient({
      baseUrl: base,
      merchantId: m.code,
      apiSecret: 'not-the-secret',
      now: () => s.clock.now(),
    });
    const unauthenticated = await thrown(wrong.balance());
    expect(unauthenticated).toBeInstanceOf(PaygateError);
    expect(unauthenticated).toMatchObject({ status: 401, errno: 401 });
    expect((unauthenticated as PaygateError).requestId).toBeTruthy();

    // A clock more than 300 s off the server's is refused the same way.
    const late = new PaygateClient({
      baseUrl: base,
      merchantId: m.code,
      apiSecret: m.apiSecret,
      now: () => s.clock.now().getTime() - 301_000,
    });
    expect(await thrown(late.balance())).toMatchObject({ status: 401 });

    expect(await thrown(client.getPayin('P-NOSUCHORDER'))).toMatchObject({ status: 404, errno: 404 });
    expect(await thrown(client.findPayout('no-such-order'))).toMatchObject({ status: 404 });

    const invalid = await thrown(
      client.createPayin({ merchantOrderNo: orderNo('PI'), amount: '1.234', notifyUrl: 'ftp://x' }),
    );
    expect(invalid).toMatchObject({ status: 422, errno: 422 });
    const fields = (invalid as PaygateError).data as { fields: { path: string }[] };
    expect(fields.fields.map((f) => f.path).sort()).toEqual(['amount', 'notifyUrl']);
  });
});

/** A stand-in gateway: `answer` writes the n-th response; every request is kept with its body. */
async function stub(answer: (res: ServerResponse, n: number, req: IncomingMessage) => void) {
  const requests: { req: IncomingMessage; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ req, body: Buffer.concat(chunks).toString('utf8') });
      answer(res, requests.length, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

const unavailable = { errno: 503, errmsg: 'Service unavailable', data: null };
const balance = {
  currency: 'INR',
  collection: { available: '0.00', pending: '0.00', frozen: '0.00' },
  payout: { available: '0.00', frozen: '0.00' },
};

describe('the merchant SDK retries', () => {
  const secret = 'sk_test_secret';
  const clientOf = (base: string, retries = {}) =>
    new PaygateClient({ baseUrl: base, merchantId: 'M1', apiSecret: secret, retries });

  it('waits out a 503 with Retry-After and signs the next attempt afresh', async () => {
    const gw = await stub((res, n) =>
      n === 1
        ? json(res, 503, unavailable, { 'retry-after': '0' })
        : json(res, 201, { errno: 0, errmsg: '', data: { orderNo: 'P1', merchantOrderNo: 'MO-1' } }),
    );
    try {
      const body = { merchantOrderNo: 'MO-1', amount: '10.00', notifyUrl: 'https://merchant.example/hook' };
      const made = await clientOf(gw.base).createPayin(body);
      expect(made).toMatchObject({ order: { orderNo: 'P1' }, replayed: false });
      expect(gw.requests).toHaveLength(2);
      const [a, b] = gw.requests.map(({ req, body: raw }) => {
        const h = req.headers as Record<string, string>;
        // Each attempt carries a signature the gateway accepts: its own nonce, over the same body.
        const canonical = `${h['x-timestamp']}\n${h['x-nonce']}\nPOST\n${req.url}\n${raw}`;
        expect(h['x-signature']).toBe(hmacHex(secret, canonical));
        expect(JSON.parse(raw)).toEqual(body);
        return h;
      });
      expect(a!['x-nonce']).not.toBe(b!['x-nonce']);
      expect(a!['x-nonce']).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
      expect(a!['x-merchant-id']).toBe('M1');
    } finally {
      await gw.close();
    }
  });

  it('gives up after its retries with the 503 as a PaygateError; none with retries off', async () => {
    const gw = await stub((res) => json(res, 503, unavailable, { 'retry-after': '0' }));
    try {
      const err = await thrown(clientOf(gw.base, { max: 2 }).balance());
      expect(err).toBeInstanceOf(PaygateError);
      expect(err).toMatchObject({ status: 503, errno: 503 });
      expect(gw.requests).toHaveLength(3);
      await thrown(clientOf(gw.base, { max: 0 }).balance());
      expect(gw.requests).toHaveLength(4);
    } finally {
      await gw.close();
    }
  });

  it('caps the wait a Retry-After asks for', async () => {
    const gw = await stub((res, n) =>
      n === 1
        ? json(res, 503, unavailable, { 'retry-after': '3600' })
        : json(res, 200, { errno: 0, errmsg: '', data: balance }),
    );
    try {
      const started = Date.now();
      expect(await clientOf(gw.base, { maxWaitSeconds: 0.05 }).balance()).toEqual(balance);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await gw.close();
    }
  });

  it('sends again after a network error', async () => {
    const gw = await stub((res, n, req) => {
      if (n === 1) req.socket.destroy();
      else json(res, 200, { errno: 0, errmsg: '', data: balance });
    });
    try {
      expect(await clientOf(gw.base, { baseWaitSeconds: 0.01 }).balance()).toEqual(balance);
      expect(gw.requests).toHaveLength(2);
      const refused = await thrown(clientOf(gw.base.replace(/:\d+$/, ':9'), { max: 0 }).balance());
      expect(refused).toBeInstanceOf(TypeError);
    } finally {
      await gw.close();
    }
  });

  it('does not retry a refusal, and reads a non-envelope answer as one', async () => {
    const gw = await stub((res, n) => {
      if (n === 1) return json(res, 422, { errno: 422, errmsg: 'Invalid', data: { fields: [] } });
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<h1>Bad gateway</h1>');
    });
    try {
      expect(await thrown(clientOf(gw.base).balance())).toMatchObject({ status: 422, errmsg: 'Invalid' });
      expect(gw.requests).toHaveLength(1);
      expect(await thrown(clientOf(gw.base).balance())).toMatchObject({
        status: 502,
        errno: -1,
        data: '<h1>Bad gateway</h1>',
      });
    } finally {
      await gw.close();
    }
  });
});
