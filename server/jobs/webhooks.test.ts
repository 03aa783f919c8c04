/**
 * Merchant callbacks (GATEWAY.md, RELIABILITY P14–P16): delivered to a real HTTP receiver and verified
 * with the `standardwebhooks` library; retried on the schedule with the same webhook-id and a new
 * timestamp; 3xx is a failure and never followed; a huge reply is cut; 410 gives up and `Retry-After`
 * waits; given up after the schedule; re-pushed by hand; delivered by the worker; every (state, action)
 * pair of the callback machine, swept from its declaration; the background jobs start and stop cleanly;
 * and with private targets off, loopback receivers (by address, by name, as IPv4-mapped IPv6) are
 * refused and logged without the URL's query string.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, count, eq, lt } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { endpoints } from '../../contract/index.ts';
import type { ActionOf } from '../../contract/machine.ts';
import { callback } from '../../contract/machines.ts';
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
import { sweep } from '../test/sweep.ts';
import { periodicJobs, startJobs } from './index.ts';
import { defaultSchedule, deliverDue, pushNow, startWebhookWorker, wakeWebhookWorkers } from './webhooks.ts';

const seconds = (n: number) => n * 1000;

/** A receiver whose answer a test writes by hand (headers, streamed bodies); counts the requests it got. */
async function startRawReceiver(answer: (res: ServerResponse, n: number, req: IncomingMessage) => void) {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res, ++n, req));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    count: () => n,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

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
  const attemptsOf = (eventId: number) =>
    s.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.eventId, eventId))
      .orderBy(webhookAttempts.id);
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

  it('does not follow a redirect, not even to another receiver it could reach', async () => {
    const target = await startReceiver();
    const r = await startRawReceiver((res) => {
      res.writeHead(307, { location: target.url }).end();
    });
    try {
      const o = await createOrder(s, m, { notifyUrl: r.url });
      await simPay(s, admin, o.orderNo, 'success');
      await drain();
      expect(r.count()).toBe(1);
      expect(target.received).toHaveLength(0);
      const event = await eventOf(o.id);
      expect(event).toMatchObject({ status: 'pending', attempts: 1 });
      expect(await attemptsOf(event.id)).toMatchObject([{ httpStatus: 307 }]);
    } finally {
      await r.close();
      await target.close();
    }
  });

  it('reads a huge reply only up to the cap, then cuts the connection', async () => {
    const total = 128 * 1024 * 1024;
    let sent = 0;
    let cut = false;
    const r = await startRawReceiver((res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      res.on('close', () => {
        cut = !res.writableFinished;
      });
      const pump = () => {
        while (sent < total && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    });
    try {
      const o = await createOrder(s, m, { notifyUrl: r.url });
      await simPay(s, admin, o.orderNo, 'success');
      const started = Date.now();
      await drain();
      expect(Date.now() - started).toBeLessThan(3000);
      await until(async () => cut);
      // The socket's buffers hold a few megabytes at most: the rest was never sent.
      expect(sent).toBeLessThan(total / 4);
      const event = await eventOf(o.id);
      expect(event).toMatchObject({ status: 'delivered', attempts: 1 });
      const [attempt] = await attemptsOf(event.id);
      expect(attempt).toMatchObject({ httpStatus: 200 });
      expect(attempt!.response).toBe('x'.repeat(500));
    } finally {
      await r.close();
    }
  });

  it('gives up at once on 410 Gone, from the schedule or a manual push', async () => {
    const r = await startRawReceiver((res) => {
      res.writeHead(410, { 'content-type': 'text/plain' }).end('endpoint removed');
    });
    try {
      const o = await createOrder(s, m, { notifyUrl: r.url });
      await simPay(s, admin, o.orderNo, 'success');
      await drain();
      const event = await eventOf(o.id);
      expect(event).toMatchObject({ status: 'gave_up', attempts: 1, nextAttemptAt: null });
      s.clock.advance(seconds(4 * 86_400));
      await drain();
      expect(r.count()).toBe(1);
      expect(await attemptsOf(event.id)).toMatchObject([{ httpStatus: 410, response: 'endpoint removed' }]);

      // A manual push that hears 410 stops the schedule of a pending event too.
      admin = await s.adminToken();
      const second = await createOrder(s, m, { notifyUrl: r.url });
      await simPay(s, admin, second.orderNo, 'success');
      expect(await pushNow(s.deps, 'payin', second.id, null)).toMatchObject({ ok: false, httpStatus: 410 });
      expect(await eventOf(second.id)).toMatchObject({ status: 'gave_up', nextAttemptAt: null });
      await drain();
      expect(r.count()).toBe(2);
    } finally {
      await r.close();
    }
  });

  it('honours Retry-After on 429 and 503: seconds or a date, capped at a day, never before the schedule', async () => {
    const t0 = s.clock.now().getTime();
    const answers: [number, string | undefined][] = [
      [503, new Date(t0 + seconds(7200)).toUTCString()],
      [429, '1'],
      [503, String(10 * 86_400)],
      [429, 'soon'],
      [500, '90000'],
      [200, undefined],
    ];
    const r = await startRawReceiver((res, n) => {
      const [status, retryAfter] = answers[n - 1]!;
      res
        .writeHead(status, retryAfter === undefined ? {} : { 'retry-after': retryAfter })
        .end(`no (${status})`);
    });
    try {
      const o = await createOrder(s, m, { notifyUrl: r.url });
      await simPay(s, admin, o.orderNo, 'fail');
      const nextIn = async () =>
        ((await eventOf(o.id)).nextAttemptAt!.getTime() - s.clock.now().getTime()) / 1000;
      const step = async (expectedSeconds: number) => {
        await drain();
        const wait = await nextIn();
        // An HTTP date has whole seconds.
        expect(Math.abs(wait - expectedSeconds)).toBeLessThan(1);
        const before = r.count();
        s.clock.advance(seconds(wait) - 1000);
        await drain();
        expect(r.count()).toBe(before);
        s.clock.advance(1000);
      };
      await step(7200); // the receiver's date, past the schedule's 5 s
      await step(defaultSchedule[2]!); // 1 s asked, the schedule's 300 s kept
      await step(86_400); // ten days asked, one day at most
      await step(defaultSchedule[4]!); // an unreadable value is ignored
      await step(defaultSchedule[5]!); // only 429 and 503 carry a wait
      await drain();
      expect(r.count()).toBe(6);
      expect(await eventOf(o.id)).toMatchObject({ status: 'delivered', attempts: 6 });
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

  describe('every (state, action) pair of a callback, swept from the declaration', () => {
    // `deliver`: a manual push the receiver answers 200 (a push may deliver from any state).
    // `reschedule` and `giveUp`: a due scheduled attempt answered 500 or 410 Gone, which the schedule
    // makes only of the events it still works on.
    type CallbackAction = ActionOf<typeof callback>;
    const answers: Record<CallbackAction, number> = { deliver: 200, reschedule: 500, giveUp: 410 };
    const receivers = new Map<CallbackAction, Awaited<ReturnType<typeof startRawReceiver>>>();
    beforeAll(async () => {
      for (const [action, status] of Object.entries(answers) as [CallbackAction, number][])
        receivers.set(action, await startRawReceiver((res) => res.writeHead(status).end(`answer ${status}`)));
    });
    afterAll(async () => {
      for (const r of receivers.values()) await r.close();
    });

    it.each(sweep(callback))('$name', async ({ state, action, allowed, after: want }) => {
      const receiver = receivers.get(action)!;
      const o = await createOrder(s, m, { notifyUrl: receiver.url });
      await simPay(s, admin, o.orderNo, 'success');
      const queued = await eventOf(o.id);
      // The event in `state`, due now, at the receiver that answers for `action`.
      await s.db
        .update(webhookEvents)
        .set({ status: state, url: receiver.url, nextAttemptAt: s.clock.now(), lockedUntil: null })
        .where(eq(webhookEvents.id, queued.id));
      const before = await eventOf(o.id);
      const heard = receiver.count();
      if (action === 'deliver') await pushNow(s.deps, 'payin', o.id, null);
      else await drain();
      const after = await eventOf(o.id);
      if (!allowed) {
        expect(after).toEqual(before);
        expect(receiver.count()).toBe(heard);
        expect(await attemptsOf(before.id)).toEqual([]);
        return;
      }
      expect(receiver.count()).toBe(heard + 1);
      expect(after).toMatchObject({ status: want, attempts: before.attempts + 1 });
      if (action === 'reschedule')
        expect(after.nextAttemptAt!.getTime()).toBeGreaterThan(s.clock.now().getTime());
      else expect(after.nextAttemptAt).toBeNull();
    });
  });
});

describe.each(engines)('callback targets with private addresses refused, on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  let m: Merchant;
  const log: string[] = [];
  beforeAll(async () => {
    s = await startTestServer(engine, { config: { callbackAllowPrivate: false }, logSink: log });
    admin = await s.adminToken();
    m = await merchantOn(s);
  });
  afterEach(() => expectBalanced(s));
  afterAll(() => s.close());

  /** Pays an order whose callback goes to `url`, runs the due deliveries, answers the event's attempts. */
  const deliverTo = async (url: string) => {
    const o = await createOrder(s, m, { notifyUrl: url });
    await simPay(s, admin, o.orderNo, 'success');
    while ((await deliverDue(s.deps)) > 0) {}
    const [event] = await s.db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.orderType, 'payin'), eq(webhookEvents.orderId, o.id)));
    const attempts = await s.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.eventId, event!.id))
      .orderBy(webhookAttempts.id);
    return { order: o, event: event!, attempts };
  };

  it('refuses a receiver on a loopback address, on the schedule and by hand', async () => {
    const r = await startReceiver();
    try {
      const { order, event, attempts } = await deliverTo(r.url);
      expect(r.received).toHaveLength(0);
      expect(attempts).toMatchObject([{ httpStatus: null, response: 'refused: loopback address 127.0.0.1' }]);
      // A refusal is a failed attempt like any other: the schedule goes on (DNS answers can change).
      expect(event).toMatchObject({ status: 'pending', attempts: 1 });
      expect(event.nextAttemptAt!.getTime() - attempts[0]!.at.getTime()).toBe(seconds(defaultSchedule[1]!));
      expect(await pushNow(s.deps, 'payin', order.id, null)).toMatchObject({
        ok: false,
        httpStatus: null,
        response: 'refused: loopback address 127.0.0.1',
      });
      expect(r.received).toHaveLength(0);
    } finally {
      await r.close();
    }
  });

  it('refuses a host name that resolves to a loopback address', async () => {
    const r = await startReceiver();
    try {
      const { attempts } = await deliverTo(r.url.replace('127.0.0.1', 'localhost'));
      expect(r.received).toHaveLength(0);
      expect(attempts).toHaveLength(1);
      expect(attempts[0]!.response).toMatch(/^refused: loopback address (127\.0\.0\.1|::1)$/);
    } finally {
      await r.close();
    }
  });

  it('refuses an IPv4-mapped IPv6 loopback address', async () => {
    const r = await startReceiver();
    try {
      const { attempts } = await deliverTo(r.url.replace('127.0.0.1', '[::ffff:127.0.0.1]'));
      expect(r.received).toHaveLength(0);
      expect(attempts).toMatchObject([{ httpStatus: null, response: 'refused: loopback address 127.0.0.1' }]);
    } finally {
      await r.close();
    }
  });

  it('logs a refused callback without the query string of its URL', async () => {
    const r = await startReceiver();
    try {
      log.length = 0;
      const { event } = await deliverTo(`${r.url}?token=s3cr3t-t0ken&merchant=7`);
      const lines = log.filter((l) => l.includes(event.messageId));
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).toContain(`${r.url}?[redacted]`);
      expect(log.join('\n')).not.toContain('s3cr3t-t0ken');
    } finally {
      await r.close();
    }
  });
});
