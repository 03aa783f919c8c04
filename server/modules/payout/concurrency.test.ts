/**
 * Payouts under real concurrency (PostgreSQL only: PGlite runs one query at a time, so row locks never
 * contend there). RELIABILITY P3 and P4: no overdraw, each hold resolved once, no 5xx.
 */

import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { feeOf } from '../../../contract/money.ts';
import { inTransaction } from '../../db/index.ts';
import { payoutOrders } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { submitAllDuePayouts, submitDuePayouts } from './jobs.ts';
import { completePayout, submitLeaseMs } from './service.ts';
import {
  balances,
  drainQueue,
  expectBooksBalanced,
  fakeChannel,
  orderByNo,
  payoutBody,
  payoutOperator,
  seedPayoutBalance,
  simulatorMerchant,
} from './testkit.ts';

/** Runs `fn` over `items` with at most `n` in flight (a pool of workers, as a merchant's servers would). */
async function inPool<T, R>(
  items: readonly T[],
  n: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

describe.runIf(engines.includes('postgres'))('payouts under concurrency on postgres', () => {
  let s: TestServer;
  let admin: string;
  let op: Awaited<ReturnType<typeof payoutOperator>>;
  beforeAll(async () => {
    s = await startTestServer('postgres');
    admin = await s.adminToken();
    op = await payoutOperator(s);
  });
  afterEach(async () => {
    await expectBooksBalanced(s);
  });
  afterAll(() => s.close());

  it('never overdraws: 100 payouts of 1..500 against 10,000 through 20 connections, then each resolves, over 20 seeds', async () => {
    const start = 1_000_000; // 10,000.00
    const ratePpm = 10_000;
    const fixed = 50;
    for (let seed = 1; seed <= 20; seed++) {
      const m = await simulatorMerchant(s, {
        payoutRatePpm: ratePpm,
        payoutFee: fixed,
        payoutIpWhitelist: ['203.0.113.7'],
      });
      await seedPayoutBalance(s, m.id, start);
      const amounts = fc.sample(fc.integer({ min: 1, max: 500 }), { numRuns: 100, seed });
      const outcomes = fc.sample(fc.boolean(), { numRuns: 100, seed: seed + 1000 });
      let negative = false;
      let polling = true;
      const poller = (async () => {
        while (polling) {
          const b = await balances(s, m.id);
          if (b.payout_available < 0 || b.frozen < 0) negative = true;
          await new Promise((r) => setTimeout(r, 5));
        }
      })();

      const created = await inPool(amounts, 20, (a) =>
        s.gateway(m, 'POST', '/gateway/v1/payout', payoutBody({ amount: `${a}.00` })),
      );
      for (const r of created) {
        expect(r.status).toBeLessThan(500);
        if (r.status !== 201) expect([r.status, r.json.errno]).toEqual([422, errno.insufficientBalance]);
      }
      const accepted = created
        .map((r, i) => ({ r, amount: amounts[i]! * 100 }))
        .filter(({ r }) => r.status === 201)
        .map(({ r, amount }) => ({
          orderNo: r.json.data.orderNo as string,
          total: amount + feeOf(amount, ratePpm, fixed),
        }));
      const acceptedTotal = accepted.reduce((sum, a) => sum + a.total, 0);
      expect(acceptedTotal).toBeLessThanOrEqual(start);
      expect(accepted.length).toBeGreaterThan(0);
      let b = await balances(s, m.id);
      expect(b).toMatchObject({ frozen: acceptedTotal, payout_available: start - acceptedTotal });

      await drainQueue(s);
      const resolved = await inPool(accepted, 20, async (a, i) => {
        const result = outcomes[i] ? 'success' : 'fail';
        const res = await s.call(endpoints.simulator.payout, { orderNo: a.orderNo, result }, admin);
        expect(res.errno).toBe(0);
        return { ...a, result };
      });
      polling = false;
      await poller;
      expect(negative).toBe(false);
      const spent = resolved.filter((r) => r.result === 'success').reduce((sum, r) => sum + r.total, 0);
      b = await balances(s, m.id);
      expect(b.frozen).toBe(0);
      expect(b.payout_available + b.frozen).toBe(start - spent);
      for (const r of resolved.slice(0, 5))
        expect((await orderByNo(s, r.orderNo)).status).toBe(r.result === 'success' ? 'success' : 'failed');
    }
  }, 240_000);

  it('lets exactly one of success and failure win when they race for the same payout, 50 times', async () => {
    const m = await simulatorMerchant(s, { payoutRatePpm: 5_000, payoutIpWhitelist: ['203.0.113.7'] });
    await seedPayoutBalance(s, m.id, 10_000_000);
    const orders: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await s.gateway(m, 'POST', '/gateway/v1/payout', payoutBody({ amount: `${100 + i}.00` }));
      expect(res.status).toBe(201);
      orders.push(res.json.data.orderNo);
    }
    await drainQueue(s);
    let succeeded = 0;
    for (const orderNo of orders) {
      const o = await orderByNo(s, orderNo);
      expect(o.status).toBe('processing');
      const race = await Promise.all(
        (['success', 'fail'] as const).map((result) =>
          inTransaction(s.db, (tx) =>
            completePayout(s.deps, tx, { orderId: o.id, result, by: 'channel' }),
          ).then(
            (done) => done.status,
            (e) => (e instanceof AppError ? e.errno : Promise.reject(e)),
          ),
        ),
      );
      const winners = race.filter((r) => r === 'success' || r === 'failed');
      expect(winners).toHaveLength(1);
      expect(race.filter((r) => r === errno.conflict)).toHaveLength(1);
      expect((await orderByNo(s, orderNo)).status).toBe(winners[0]);
      if (winners[0] === 'success') succeeded += o.amount + o.fee;
    }
    const b = await balances(s, m.id);
    expect(b.frozen).toBe(0);
    expect(b.payout_available).toBe(10_000_000 - succeeded);
  }, 120_000);

  it('resolves a hold once when the simulator, a manual mark and a duplicate notification all arrive together', async () => {
    const m = await simulatorMerchant(s, { payoutIpWhitelist: ['203.0.113.7'] });
    await seedPayoutBalance(s, m.id, 1_000_000);
    const res = await s.gateway(m, 'POST', '/gateway/v1/payout', payoutBody({ amount: '10.00' }));
    await drainQueue(s);
    const o = await orderByNo(s, res.json.data.orderNo);
    const answers = await Promise.all([
      s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'success' }, admin),
      s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'fail' }, admin),
      op.act('markFailed', o.id, { reason: 'operator' }),
      op.act('markSuccess', o.id, { reason: 'operator' }),
      s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'success' }, admin),
    ]);
    expect(answers.filter((a) => a.errno === 0)).toHaveLength(1);
    expect(answers.filter((a) => a.errno === errno.conflict)).toHaveLength(4);
    expect((await balances(s, m.id)).frozen).toBe(0);
  });

  it('sends each payout once when four workers race to submit the same due payouts, and when they race to take over the same stale claims', async () => {
    const m = await simulatorMerchant(s, { payoutIpWhitelist: ['203.0.113.7'] });
    await seedPayoutBalance(s, m.id, 10_000_000);
    // A channel that takes a few milliseconds per call, so the workers overlap on every order.
    const fake = await fakeChannel(s, m.id, { delayMs: 3 });
    try {
      const orderNos: string[] = [];
      for (let i = 0; i < 40; i++) {
        const res = await s.gateway(m, 'POST', '/gateway/v1/payout', payoutBody({ amount: `${10 + i}.00` }));
        expect(res.status).toBe(201);
        orderNos.push(res.json.data.orderNo);
      }
      const moved = await Promise.all(Array.from({ length: 4 }, () => submitAllDuePayouts(s.deps)));
      expect(moved.reduce((a, b) => a + b, 0)).toBe(40);
      for (const orderNo of orderNos) {
        expect(fake.callsFor(orderNo), orderNo).toBe(1);
        expect((await orderByNo(s, orderNo)).status).toBe('processing');
      }
      // Claims whose worker vanished (the channel lost the answers): four workers take them over at once;
      // each is asked about once and found, and none is sent again.
      fake.behaviour.loseAnswer = true;
      const stale: string[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await s.gateway(m, 'POST', '/gateway/v1/payout', payoutBody({ amount: `${60 + i}.00` }));
        const o = await orderByNo(s, res.json.data.orderNo);
        await s.db
          .update(payoutOrders)
          .set({ status: 'submitting', channelId: fake.channel.id, attempts: 1, updatedAt: s.clock.now() })
          .where(eq(payoutOrders.id, o.id));
        fake.books.push({
          idempotencyKey: o.orderNo,
          orderNo: o.orderNo,
          amount: o.amount,
          channelOrderId: `FAKE-STALE-${i}`,
          status: 'pending',
        });
        stale.push(o.orderNo);
      }
      s.clock.advance(submitLeaseMs + 1_000);
      const recovered = await Promise.all(Array.from({ length: 4 }, () => submitDuePayouts(s.deps)));
      expect(recovered.reduce((a, b) => a + b, 0)).toBe(10);
      for (const orderNo of stale) {
        expect(fake.callsFor(orderNo), orderNo).toBe(0);
        expect((await orderByNo(s, orderNo)).status).toBe('processing');
      }
      for (const orderNo of [...orderNos, ...stale]) {
        const o = await orderByNo(s, orderNo);
        await inTransaction(s.db, (tx) =>
          completePayout(s.deps, tx, { orderId: o.id, result: 'success', by: 'channel' }),
        );
      }
    } finally {
      await fake.remove();
    }
  }, 120_000);
});
