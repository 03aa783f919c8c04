/** Helpers shared by the payout tests (not a test file itself). */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { inTransaction } from '../../db/index.ts';
import { channels, merchantChannels, payoutOrders } from '../../db/schema.ts';
import { checkLedger } from '../../ledger/check.ts';
import { merchantAccount, merchantBalances, platformAccount, post } from '../../ledger/index.ts';
import type { TestServer } from '../../test/harness.ts';
import { checkOrderStats } from '../dashboard/stats.ts';
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
  const ledger = await checkLedger(s.db);
  expect(ledger).toMatchObject({
    balanced: true,
    unbalancedEntries: [],
    brokenChains: [],
    accountMismatches: [],
  });
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
