/**
 * Merchant callbacks (GATEWAY.md, RELIABILITY P14–P16): delivered to a real HTTP receiver and verified
 * with the `standardwebhooks` library; retried on the schedule with the same webhook-id and a new
 * timestamp; 3xx is a failure; given up after the schedule; re-pushed by hand; delivered by the worker;
 * and the background jobs start and stop cleanly.
 */
import { and, count, eq, lt } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { endpoints } from '../../contract/index.ts';
import {
  channels,
  gatewayNonces,
  parameters,
  payinOrders,
  webhookAttempts,
  webhookEvents,
} from '../db/schema.ts';
import {
  createOrder,
  expectBalanced,
  type Merchant,
  makeChannel,
  merchantOn,
  orderById,
  simPay,
  startReceiver,
  verifyCallback,
} from '../modules/payin/testkit.ts';
import { engines, startTestServer, type TestServer } from '../test/harness.ts';
import { periodicJobs, startJobs } from './index.ts';
import { defaultSchedule, deliverDue, pushNow, startWebhookWorker, wakeWebhookWorkers } from './webhooks.ts';

const seconds = (n: number) => n * 1000;

async function until(check: () => Promise<boolean>, timeoutMs = 5000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not met in time');
}

describe.each(engines)('merchant callbacks on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  let m: Merchant;
  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
    m = await merchantOn(s, undefined, { collectionRatePpm: 15_000 });
  });
  // Tests move the clock by hours: sign in afresh each time (sessions expire after 30 idle minutes).
  beforeEach(async () => {
    admin = await s.adminToken();
  });
  afterEach(() => expectBalanced(s));
  afterAll(() => s.close());

  const eventOf = async (orderId: number) => {
    const [e] = await s.db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.orderType, 'payin'), eq(webhookEvents.orderId, orderId)));
    return e!;
  };
  /** Delivers every due callback (failures are rescheduled into the future, so this ends). */
  const drain = async () => {
    while ((await deliverDue(s.deps)) > 0) {}
  };

  it('delivers a signed payin.paid that the standardwebhooks library verifies', async () => {
    const r = await startReceiver();
    try {
      const o = await createOrder(s, m, { notifyUrl: r.url, amount: '500.00' });
      await simPay(s, admin, o.orderNo, 'success');
      await drain();
      expect(r.received).toHaveLength(1);
      const got = r.received[0]!;
      const event = await eventOf(o.id);
      expect(got.headers['webhook-id']).toBe(event.messageId);
      expect(got.headers['content-type']).toBe('application/json');
      expect(Number(got.headers['webhook-timestamp'])).toBe(Math.floor(s.clock.now().getTime() / 1000));
      const payload = verifyCallback(m.webhookSecret, got, s.clock.now().getTime());
      expect(payload.type).toBe('payin.paid');
      const query = await s.gateway(m, 'GET', `/gateway/v1/payin/${o.orderNo}`);
      expect(payload.data).toEqual(query.json.data);
      expect(payload.data).toMatchObject({
        status: 'paid',
        amount: '500.00',
        fee: '7.50',
        paidAmount: '500.00',
      });
      expect(event).toMatchObject({ status: 'delivered', attempts: 1, nextAttemptAt: null });
      expect(await orderById(s, o.id)).toMatchObject({ pushStatus: 'pushed', callbackAt: s.clock.now() });

      // What a merchant's verifier must refuse: another body, another id, a stale or early timestamp.
      const now = s.clock.now().getTime();
      const tampered = { ...got, body: got.body.replace('"paid"', '"paid "') };
      expect(() => verifyCallback(m.webhookSecret, tampered, now)).toThrow();
      const otherId = { ...got, headers: { ...got.headers, 'webhook-id': 'msg_other' } };
      expect(() => verifyCallback(m.webhookSecret, otherId, now)).toThrow();
      expect(() => verifyCallback(m.webhookSecret, got, now + seconds(301))).toThrow(/too old/);
      expect(() => verifyCallback(m.webhookSecret, got, now - seconds(301))).toThrow(/too new/);
    } finally {
      await r.close();
    }
  });

  it('retries a failing receiver on the schedule with the same webhook-id and a new timestamp', async () => {
    const r = await startReceiver((n) => (n <= 3 ? 500 : 200));
    try {
      const o = await createOrder(s, m, { notifyUrl: r.url });
      await simPay(s, admin, o.orderNo, 'fail');
      const t0 = s.clock.now().getTime();
      await drain();
      expect(r.received).toHaveLength(1);
      // Each gap of the schedule: nothing a moment before it is due, one attempt when it is.
      for (const [i, gap] of [defaultSchedule[1]!, defaultSchedule[2]!, defaultSchedule[3]!].entries()) {
        s.clock.advance(seconds(gap) - 1);
        await drain();
        expect(r.received).toHaveLength(i + 1);
        s.clock.advance(1);
        await drain();
        expect(r.received).toHaveLength(i + 2);
      }
      const ids = new Set(r.received.map((x) => x.headers['webhook-id']));
      expect(ids.size).toBe(1);
      const stamps = r.received.map((x) => Number(x.headers['webhook-timestamp']));
      const expected = [0, 5, 305, 2105].map((off) => Math.floor((t0 + seconds(off)) / 1000));
      expect(stamps).toEqual(expected);
      for (const [i, x] of r.received.entries()) {
        expect(verifyCallback(m.webhookSecret, x, stamps[i]! * 1000).type).toBe('payin.failed');
      }
      const event = await eventOf(o.id);
      expect(event).toMatchObject({ status: 'delivered', attempts: 4 });
      const attempts = await s.db
        .select()
        .from(webhookAttempts)
        .where(eq(webhookAttempts.eventId, event.id))
        .orderBy(webhookAttempts.id);
      expect(attempts.map((a) => [a.httpStatus, a.manual])).toEqual([
        [500, false],
        [500, false],
        [500, false],
        [200, false],
      ]);
      expect(attempts[0]!.response).toBe('no (500)');
      expect((await orderById(s, o.id)).pushStatus).toBe('pushed');
    } finally {
      await r.close();
    }
  });

  it('counts a redirect as a failure and does not follow it', async () => {
    const r = await startReceiver(() => 302);
    try {
      const o = await createOrder(s, m, { notifyUrl: r.url });
      await simPay(s, admin, o.orderNo, 'success');
      await drain();
      expect(r.received).toHaveLength(1);
      const event = await eventOf(o.id);
      expect(event).toMatchObject({ status: 'pending', attempts: 1 });
      const [attempt] = await s.db
        .select()
        .from(webhookAttempts)
        .where(eq(webhookAttempts.eventId, event.id));
      expect(attempt).toMatchObject({ httpStatus: 302, manual: false });
      expect((await orderById(s, o.id)).pushStatus).toBe('unpushed');
    } finally {
      await r.close();
    }
  });

  it('records an unreachable receiver as a failed attempt without a status', async () => {
    const o = await createOrder(s, m, { notifyUrl: 'http://127.0.0.1:9/closed' });
    await simPay(s, admin, o.orderNo, 'fail');
    await drain();
    const event = await eventOf(o.id);
    const [attempt] = await s.db.select().from(webhookAttempts).where(eq(webhookAttempts.eventId, event.id));
    expect(attempt).toMatchObject({ httpStatus: null, manual: false });
    expect(attempt!.response).not.toBe('');
  });

  it('gives up after the last attempt of the schedule, then a manual push delivers', async () => {
    let healthy = false;
    const r = await startReceiver(() => (healthy ? 200 : 503));
    try {
      const o = await createOrder(s, m, { notifyUrl: r.url });
      await simPay(s, admin, o.orderNo, 'success');
      await drain();
      for (const gap of defaultSchedule.slice(1)) {
        s.clock.advance(seconds(gap));
        await drain();
      }
      expect(r.received).toHaveLength(defaultSchedule.length);
      const event = await eventOf(o.id);
      expect(event).toMatchObject({ status: 'gave_up', attempts: 10, nextAttemptAt: null });
      s.clock.advance(seconds(7 * 86_400));
      await drain();
      expect(r.received).toHaveLength(10);

      healthy = true;
      const attempt = await pushNow(s.deps, 'payin', o.id, null);
      expect(attempt).toMatchObject({ ok: true, httpStatus: 200 });
      expect(r.received).toHaveLength(11);
      expect(r.received[10]!.headers['webhook-id']).toBe(event.messageId);
      expect(await eventOf(o.id)).toMatchObject({ status: 'delivered', attempts: 11 });
      expect((await orderById(s, o.id)).pushStatus).toBe('pushed');
    } finally {
      await r.close();
    }
  });

  it('follows the callback_schedule parameter', async () => {
    await s.db.insert(parameters).values({ key: 'callback_schedule', value: [0, 60] });
    const r = await startReceiver(() => 500);
    try {
      const o = await createOrder(s, m, { notifyUrl: r.url });
      await simPay(s, admin, o.orderNo, 'success');
      await drain();
      s.clock.advance(seconds(60));
      await drain();
      expect(r.received).toHaveLength(2);
      expect(await eventOf(o.id)).toMatchObject({ status: 'gave_up', attempts: 2 });
    } finally {
      await s.db.delete(parameters).where(eq(parameters.key, 'callback_schedule'));
      await r.close();
    }
  });

  it('queues nothing for an order without a notify URL, and a push answers 1034', async () => {
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    const res = await s.call(endpoints.merchantOrder.create, { amount: '10.00' }, owner);
    expect(res.errno).toBe(0);
    await simPay(s, admin, res.data.orderNo, 'success');
    const [e] = await s.db.select().from(webhookEvents).where(eq(webhookEvents.orderId, res.data.id));
    expect(e).toBeUndefined();
    expect(await pushNow(s.deps, 'payin', res.data.id, null)).toBeNull();
  });

  it('delivers from the background worker, woken right after a commit', async () => {
    const r = await startReceiver();
    const worker = startWebhookWorker(s.deps, { pollMs: 60_000 });
    try {
      await drain();
      const o = await createOrder(s, m, { notifyUrl: r.url });
      await simPay(s, admin, o.orderNo, 'success');
      // The simulator's handler wakes the workers after its commit: no poll needed.
      await until(async () => r.received.length === 1);
      await until(async () => (await eventOf(o.id)).status === 'delivered');
      wakeWebhookWorkers();
    } finally {
      const t = Date.now();
      await worker.stop();
      expect(Date.now() - t).toBeLessThan(2000);
      await r.close();
    }
  });

  it('runs the jobs: expiry with callbacks, the simulator in automatic mode, and stops cleanly', async () => {
    const r = await startReceiver();
    const expiring = await createOrder(s, m, { notifyUrl: r.url });
    const autoChannel = await makeChannel(s, {
      settings: { auto: true, successRate: 100, delayMs: 2000, lostCallbackRate: 0 },
    });
    const auto = await merchantOn(s, [{ channelId: autoChannel.id, weight: 1 }]);
    const jobs = startJobs(s.deps, {
      webhookPollMs: 20,
      jobs: periodicJobs.map((j) => ({ ...j, everyMs: 50 })),
    });
    try {
      const paidLater = await createOrder(s, auto, { notifyUrl: r.url });
      s.clock.advance(31 * 60_000);
      const fresh = await createOrder(s, auto, { notifyUrl: r.url });
      await until(async () => (await orderById(s, expiring.id)).status === 'unpaid', 10_000);
      // Older than the delay when the clock moved: paid by the simulator (or expired first: both are final).
      await until(async () => ['paid', 'unpaid'].includes((await orderById(s, paidLater.id)).status), 10_000);
      await until(async () => r.received.some((x) => x.body.includes(expiring.orderNo)), 10_000);
      expect((await orderById(s, fresh.id)).status).toBe('pending');
      s.clock.advance(2000);
      await until(async () => (await orderById(s, fresh.id)).status === 'paid', 10_000);
      await until(async () => (await eventOf(fresh.id)).status === 'delivered', 10_000);
      // Nonces older than the signing window are pruned.
      const stale = () =>
        s.db.select({ n: count() }).from(gatewayNonces).where(lt(gatewayNonces.expiresAt, s.clock.now()));
      await until(async () => (await stale())[0]!.n === 0, 10_000);
      expect((await s.db.select({ n: count() }).from(gatewayNonces))[0]!.n).toBeGreaterThan(0);
    } finally {
      const t = Date.now();
      await jobs.stop();
      expect(Date.now() - t).toBeLessThan(5000);
      await s.db.update(channels).set({ status: 'disabled' }).where(eq(channels.id, autoChannel.id));
      await r.close();
    }
    const stillPending = await s.db.select().from(payinOrders).where(eq(payinOrders.id, expiring.id));
    expect(stillPending[0]!.status).toBe('unpaid');
  });

  it.runIf(engine === 'postgres')('lets concurrent workers deliver each event once', async () => {
    const r = await startReceiver();
    try {
      const made = [];
      for (let i = 0; i < 10; i++) {
        const o = await createOrder(s, m, { notifyUrl: r.url });
        await simPay(s, admin, o.orderNo, 'success');
        made.push(o);
      }
      await Promise.all([
        deliverDue(s.deps, 5),
        deliverDue(s.deps, 5),
        deliverDue(s.deps, 5),
        deliverDue(s.deps, 5),
      ]);
      await drain();
      expect(r.received).toHaveLength(10);
      expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(10);
    } finally {
      await r.close();
    }
  });
});
