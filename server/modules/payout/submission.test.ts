/**
 * A payout is sent to its channel once (issue 11 item 8): the channel is called outside any database
 * transaction with the order's idempotency key, and an unclear outcome (the answer lost after the
 * channel booked it, a crash between claim and outcome) is asked of the channel or left for a person in
 * `needs_review`, never sent again blindly and never released by guess. On every engine, with a fake
 * channel whose books live outside our database, as a real provider's do.
 */
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../db/index.ts';
import { journalEntries, payoutOrders, webhookEvents } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { submitDuePayouts } from './jobs.ts';
import { completePayout, retryPayout, submitLeaseMs } from './service.ts';
import {
  balances,
  expectBooksBalanced,
  type FakeChannelBehaviour,
  fakeChannel,
  type Merchant,
  orderByNo,
  payoutBody,
  seedPayoutBalance,
  simulatorMerchant,
} from './testkit.ts';

describe.each(engines)('a payout is sent once on %s', (engine) => {
  let s: TestServer;
  let fakes: Awaited<ReturnType<typeof fakeChannel>>[] = [];
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterEach(async () => {
    await expectBooksBalanced(s);
    for (const f of fakes) await f.remove();
    fakes = [];
  });
  afterAll(() => s.close());

  /** A funded merchant routed to a fake channel only, and one queued payout of 100.00 (fee 6.00). */
  async function queuedPayout(behaviour: Partial<FakeChannelBehaviour> = {}) {
    const m: Merchant = await simulatorMerchant(s, {
      payoutRatePpm: 10_000,
      payoutFee: 500,
      payoutIpWhitelist: ['203.0.113.0/24'],
    });
    await seedPayoutBalance(s, m.id, 1_000_000);
    const fake = await fakeChannel(s, m.id, behaviour);
    fakes.push(fake);
    const res = await s.gateway(m, 'POST', '/gateway/v1/payout', payoutBody({ amount: '100.00' }));
    expect(res.status).toBe(201);
    return { m, fake, o: await orderByNo(s, res.json.data.orderNo) };
  }
  const entryKinds = async (orderId: number) =>
    (
      await s.db
        .select({ kind: journalEntries.kind })
        .from(journalEntries)
        .where(and(eq(journalEntries.refType, 'payout'), eq(journalEntries.refId, String(orderId))))
        .orderBy(asc(journalEntries.id))
    ).map((e) => e.kind);
  /** The worker's runs, an hour apart: long past any backoff or lease. */
  async function workerRuns(n: number) {
    for (let i = 0; i < n; i++) {
      await submitDuePayouts(s.deps);
      s.clock.advance(3_600_000);
    }
  }
  const asErrno = (p: Promise<unknown>) =>
    p.then(
      () => 0,
      (e) => (e instanceof AppError ? e.errno : Promise.reject(e)),
    );

  it('books one payout when the channel accepts it and the answer is lost; the query finds it: processing, hold open', async () => {
    const { m, fake, o } = await queuedPayout({ loseAnswer: true });
    await workerRuns(4);
    expect(fake.callsFor(o.orderNo)).toBe(1);
    expect(fake.bookedFor(o.orderNo)).toHaveLength(1);
    expect(fake.bookedFor(o.orderNo)[0]!.idempotencyKey).toBe(o.orderNo);
    const now = await orderByNo(s, o.orderNo);
    expect(now).toMatchObject({
      status: 'processing',
      channelId: fake.channel.id,
      channelOrderId: fake.bookedFor(o.orderNo)[0]!.channelOrderId,
      holdOpen: true,
      holds: 1,
    });
    expect(await entryKinds(o.id)).toEqual(['payout_freeze_1']);
    expect(await balances(s, m.id)).toMatchObject({ frozen: 10_600, payout_available: 989_400 });
    // The channel's notification completes it as usual.
    await inTransaction(s.db, (tx) =>
      completePayout(s.deps, tx, { orderId: o.id, result: 'success', by: 'channel' }),
    );
    expect(await entryKinds(o.id)).toEqual(['payout_freeze_1', 'payout_success']);
  });

  for (const [result, status, kinds] of [
    ['success', 'success', ['payout_freeze_1', 'payout_success']],
    ['failed', 'failed', ['payout_freeze_1', 'payout_release_1']],
  ] as const) {
    it(`takes the outcome the channel reports when asked: a payout it ${result === 'success' ? 'paid' : 'failed'} completes as ${status}, once`, async () => {
      const { fake, o } = await queuedPayout();
      await s.db
        .update(payoutOrders)
        .set({ status: 'submitting', channelId: fake.channel.id, attempts: 1, updatedAt: s.clock.now() })
        .where(eq(payoutOrders.id, o.id));
      fake.books.push({
        idempotencyKey: o.orderNo,
        orderNo: o.orderNo,
        amount: o.amount,
        channelOrderId: 'FAKE-DONE',
        status: result,
      });
      s.clock.advance(submitLeaseMs + 1_000);
      await workerRuns(2);
      expect(await orderByNo(s, o.orderNo)).toMatchObject({
        status,
        holdOpen: false,
        channelOrderId: 'FAKE-DONE',
      });
      expect(await entryKinds(o.id)).toEqual(kinds);
      expect(fake.calls).toEqual([]);
    });
  }

  for (const query of ['unreachable', 'unsure'] as const) {
    it(`leaves the payout for a person when the channel ${query === 'unreachable' ? 'cannot be asked' : 'cannot tell'}: needs_review, hold open, never sent again`, async () => {
      // Cannot be asked: the channel booked it and the answer was lost. Cannot tell: nothing was booked,
      // but the channel will not say it never received it.
      const { m, fake, o } = await queuedPayout(
        query === 'unreachable' ? { loseAnswer: true, query } : { failBeforeBooking: true, query },
      );
      await workerRuns(4);
      expect(fake.callsFor(o.orderNo)).toBe(1);
      const now = await orderByNo(s, o.orderNo);
      expect(now).toMatchObject({
        status: 'needs_review',
        holdOpen: true,
        holds: 1,
        channelId: fake.channel.id,
      });
      expect(await entryKinds(o.id)).toEqual(['payout_freeze_1']);
      expect(await balances(s, m.id)).toMatchObject({ frozen: 10_600 });
      // The merchant sees processing, as GATEWAY.md documents, with no reason yet.
      const seen = await s.gateway(m, 'GET', `/gateway/v1/payout/${o.orderNo}`);
      expect(seen.json.data).toMatchObject({ status: 'processing', failureReason: null, completedAt: null });
      // A retry would send it again, a channel notification has nothing to match: both refused.
      expect(await asErrno(inTransaction(s.db, (tx) => retryPayout(s.deps, tx, o.id, null)))).toBe(
        errno.conflict,
      );
      expect(
        await asErrno(
          inTransaction(s.db, (tx) =>
            completePayout(s.deps, tx, { orderId: o.id, result: 'fail', by: 'channel' }),
          ),
        ),
      ).toBe(errno.conflict);
      // A person resolves it, exactly once.
      const failed = await inTransaction(s.db, (tx) =>
        completePayout(s.deps, tx, {
          orderId: o.id,
          result: 'fail',
          reason: 'not at the bank',
          by: 'manual',
        }),
      );
      expect(failed).toMatchObject({ status: 'failed', holdOpen: false });
      expect(
        await asErrno(
          inTransaction(s.db, (tx) =>
            completePayout(s.deps, tx, { orderId: o.id, result: 'success', reason: 'twice', by: 'manual' }),
          ),
        ),
      ).toBe(errno.conflict);
      expect(await entryKinds(o.id)).toEqual(['payout_freeze_1', 'payout_release_1']);
      expect(await balances(s, m.id)).toMatchObject({ frozen: 0, payout_available: 1_000_000 });
      const events = await s.db
        .select({ type: webhookEvents.type })
        .from(webhookEvents)
        .where(and(eq(webhookEvents.orderType, 'payout'), eq(webhookEvents.orderId, o.id)));
      expect(events.map((e) => e.type)).toEqual(['payout.failed']);
    });
  }

  it('after a crash between claim and outcome, asks the channel once the lease is over and does not send again', async () => {
    const { fake, o } = await queuedPayout();
    // The process claimed the order, the channel booked it, and the process died before recording it.
    await s.db
      .update(payoutOrders)
      .set({ status: 'submitting', channelId: fake.channel.id, attempts: 1, updatedAt: s.clock.now() })
      .where(eq(payoutOrders.id, o.id));
    fake.books.push({
      idempotencyKey: o.orderNo,
      orderNo: o.orderNo,
      amount: o.amount,
      channelOrderId: 'FAKE-CRASHED',
      status: 'pending',
    });
    await submitDuePayouts(s.deps);
    expect((await orderByNo(s, o.orderNo)).status).toBe('submitting');
    s.clock.advance(submitLeaseMs + 1_000);
    await submitDuePayouts(s.deps);
    expect(await orderByNo(s, o.orderNo)).toMatchObject({
      status: 'processing',
      channelOrderId: 'FAKE-CRASHED',
      holdOpen: true,
    });
    expect(fake.calls).toEqual([]);
    await inTransaction(s.db, (tx) =>
      completePayout(s.deps, tx, { orderId: o.id, result: 'fail', by: 'channel' }),
    );
  });

  it('after a crash before the channel saw the order, sends it once the channel says it never saw it', async () => {
    const { fake, o } = await queuedPayout();
    await s.db
      .update(payoutOrders)
      .set({ status: 'submitting', channelId: fake.channel.id, attempts: 1, updatedAt: s.clock.now() })
      .where(eq(payoutOrders.id, o.id));
    s.clock.advance(submitLeaseMs + 1_000);
    await workerRuns(3);
    expect(fake.callsFor(o.orderNo)).toBe(1);
    expect(await orderByNo(s, o.orderNo)).toMatchObject({ status: 'processing', holdOpen: true });
    await inTransaction(s.db, (tx) =>
      completePayout(s.deps, tx, { orderId: o.id, result: 'success', by: 'channel' }),
    );
  });

  it('releases the hold exactly once when the channel refuses before booking anything', async () => {
    const { m, fake, o } = await queuedPayout({ refuse: true });
    await workerRuns(3);
    expect(fake.books).toEqual([]);
    expect(await orderByNo(s, o.orderNo)).toMatchObject({ status: 'creation_failed', holdOpen: false });
    expect(await entryKinds(o.id)).toEqual(['payout_freeze_1', 'payout_release_1']);
    expect(await balances(s, m.id)).toMatchObject({ frozen: 0, payout_available: 1_000_000 });
  });
});
