/** Helpers shared by the payout tests (not a test file itself). */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { type ChannelAdapter, ChannelRefused } from '../../channels/adapter.ts';
import { adapters } from '../../channels/index.ts';
import { inTransaction } from '../../db/index.ts';
import { channels, merchantChannels, payoutOrders } from '../../db/schema.ts';
import { merchantAccount, merchantBalances, platformAccount, post } from '../../ledger/index.ts';
import type { TestServer } from '../../test/harness.ts';
import { checkOrderStats } from '../dashboard/stats.ts';
import { expectLedgerBalanced } from '../payin/testkit.ts';
import { checkPayoutInvariants } from './invariants.ts';
import { submitDuePayouts } from './jobs.ts';

export type Merchant = Awaited<ReturnType<TestServer['makeMerchant']>>;

/** Credits a merchant's payout wallet as a confirmed recharge would (settlement clearing → payout available). */
export function seedPayoutBalance(s: TestServer, merchantId: number, amount: number, currency = 'INR') {
  return inTransaction(s.db, (tx) =>
    post(tx, {
      kind: 'recharge_confirmed',
      refType: 'test_recharge',
      refId: randomUUID(),
      at: s.clock.now(),
      lines: [
        { account: platformAccount('settlement_clearing', currency), amount: -amount },
        { account: merchantAccount(merchantId, 'payout_available', currency), amount },
      ],
    }),
  );
}

let counter = 0;
/** A valid gateway payout body; `amount` as a decimal string. */
export function payoutBody(over: Partial<Record<string, string>> = {}) {
  return {
    merchantOrderNo: `MO-${Date.now().toString(36)}-${++counter}`,
    amount: '100.00',
    accountName: 'Asha Verma',
    accountNumber: '123456789012',
    ifsc: 'HDFC0001234',
    notifyUrl: 'http://127.0.0.1:9/hook',
    ...over,
  };
}

export async function balances(s: TestServer, merchantId: number) {
  return merchantBalances(s.db, merchantId, 'INR');
}

/** Submits every due queued payout (the worker's job), as many rounds as it takes. */
export async function drainQueue(s: TestServer) {
  while ((await submitDuePayouts(s.deps)) > 0) {}
}

export async function orderByNo(s: TestServer, orderNo: string) {
  const [o] = await s.db.select().from(payoutOrders).where(eq(payoutOrders.orderNo, orderNo));
  return o!;
}

/** The ledger and the payout invariants both hold. */
export async function expectBooksBalanced(s: TestServer) {
  await expectLedgerBalanced(s);
  const payouts = await checkPayoutInvariants(s.db);
  expect(payouts).toEqual({ ok: true, frozenMismatches: [], holdMismatches: [], amountMismatches: [] });
  // The dashboard's order stats equal a GROUP BY over the orders.
  expect(await checkOrderStats(s.db)).toEqual({ ok: true, mismatches: [] });
}

/** A simulator channel of its own (e.g. one that declines everything) routed for one merchant only. */
export async function ownSimulatorChannel(
  s: TestServer,
  merchantId: number,
  settings: Record<string, unknown>,
  limits: { minAmount?: number; maxAmount?: number } = {},
) {
  const [ch] = await s.db
    .insert(channels)
    .values({
      code: `sim-${randomUUID().slice(0, 8)}`,
      name: 'Test simulator',
      adapter: 'simulator',
      settings,
      ...limits,
    })
    .returning();
  await s.db.delete(merchantChannels).where(eq(merchantChannels.merchantId, merchantId));
  await s.db.insert(merchantChannels).values({ merchantId, channelId: ch!.id, weight: 100 });
  return ch!;
}

/** A merchant routed to the built-in simulator only (test channels made later never carry its payouts). */
export async function simulatorMerchant(
  s: TestServer,
  terms: Parameters<TestServer['makeMerchant']>[0] = {},
) {
  const [sim] = await s.db.select().from(channels).where(eq(channels.code, 'simulator'));
  return s.makeMerchant({ channels: [{ channelId: sim!.id, weight: 100 }], ...terms });
}

/** One payout a fake channel holds in its books. */
export interface FakeChannelPayout {
  idempotencyKey: string | undefined;
  orderNo: string;
  amount: number;
  channelOrderId: string;
  status: 'pending' | 'success' | 'failed';
}

/** How a fake channel behaves on its next calls; the test changes it between steps. */
export interface FakeChannelBehaviour {
  /** After booking the payout, the answer is lost: the call throws as a timeout would. */
  loseAnswer: boolean;
  /** The call fails before the channel books anything (a reset connection), and not as a refusal. */
  failBeforeBooking: boolean;
  /** Refuses before booking anything. */
  refuse: boolean;
  /** The query: answers from the books, cannot be reached, or cannot tell (no definitive "never seen"). */
  query: 'answer' | 'unreachable' | 'unsure';
  /** Milliseconds each creation takes (to widen races). */
  delayMs: number;
}

/**
 * A channel outside this database, as a real provider is: its books live in memory, out of reach of
 * our transactions, and it books a payout once per idempotency key (every call when none is given, as a
 * provider without one would). Registered in `adapters` under a test-only name and routed for one
 * merchant; `remove` unregisters it and disables its channel row.
 */
export async function fakeChannel(
  s: TestServer,
  merchantId: number,
  behaviour: Partial<FakeChannelBehaviour> = {},
) {
  const name = `fake-${randomUUID().slice(0, 8)}`;
  const books: FakeChannelPayout[] = [];
  /** The order number of every creation call that reached the channel, refused or not. */
  const calls: string[] = [];
  const now: FakeChannelBehaviour = {
    loseAnswer: false,
    failBeforeBooking: false,
    refuse: false,
    query: 'answer',
    delayMs: 0,
    ...behaviour,
  };
  let n = 0;
  const adapter: ChannelAdapter = {
    ...adapters.simulator!,
    async createPayout(_ctx, p) {
      calls.push(p.orderNo);
      if (now.delayMs) await new Promise((r) => setTimeout(r, now.delayMs));
      if (now.refuse) throw new ChannelRefused('fake channel declined');
      if (now.failBeforeBooking) throw new Error('connection reset');
      let booked =
        p.idempotencyKey === undefined ? undefined : books.find((b) => b.idempotencyKey === p.idempotencyKey);
      if (!booked) {
        booked = {
          idempotencyKey: p.idempotencyKey,
          orderNo: p.orderNo,
          amount: p.amount,
          channelOrderId: `FAKE${++n}`,
          status: 'pending',
        };
        books.push(booked);
      }
      if (now.loseAnswer) throw new Error('timeout: no answer from the channel');
      return { channelOrderId: booked.channelOrderId };
    },
    async queryPayout(_ctx, idempotencyKey) {
      if (now.query === 'unreachable') throw new Error('connection refused');
      const booked = books.find((b) => b.idempotencyKey === idempotencyKey);
      if (booked)
        return { found: true, channelOrderId: booked.channelOrderId, status: booked.status, utr: null };
      return { found: false, definitive: now.query === 'answer' };
    },
  };
  adapters[name] = adapter;
  const [ch] = await s.db
    .insert(channels)
    .values({ code: name, name: 'Fake channel', adapter: name })
    .returning();
  await s.db.delete(merchantChannels).where(eq(merchantChannels.merchantId, merchantId));
  await s.db.insert(merchantChannels).values({ merchantId, channelId: ch!.id, weight: 100 });
  return {
    channel: ch!,
    books,
    calls,
    behaviour: now,
    /** Payouts booked for one of our orders. */
    bookedFor: (orderNo: string) => books.filter((b) => b.orderNo === orderNo),
    /** Creation calls made for one of our orders. */
    callsFor: (orderNo: string) => calls.filter((c) => c === orderNo).length,
    async remove() {
      delete adapters[name];
      await s.db.update(channels).set({ status: 'disabled' }).where(eq(channels.id, ch!.id));
    },
  };
}

/**
 * A platform operator allowed the hand actions on payouts (retry, mark success, mark failed), with a
 * Google key bound: `code()` gives a fresh code (half a minute later each, so none is reused) and
 * `act` calls one of those actions with a code and a reason.
 */
export async function payoutOperator(s: TestServer) {
  const ep = endpoints.merchantPayout;
  const { token, code } = await s.makeKeyHolder([
    ep.retry.permission,
    ep.markSuccess.permission,
    ep.markFailed.permission,
  ]);
  return {
    token,
    code,
    act(
      action: 'retry' | 'markSuccess' | 'markFailed',
      id: number,
      more: { reason?: string; utr?: string } = {},
    ) {
      return s.call(
        ep[action],
        {
          id,
          code: code(),
          reason: more.reason ?? 'checked with the bank',
          ...(more.utr ? { utr: more.utr } : {}),
        },
        token,
      );
    },
  };
}
