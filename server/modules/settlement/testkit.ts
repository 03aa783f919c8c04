/** What the settlement tests share: merchants with money and a Google key, platform deciders, snapshots. */
import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { inTransaction } from '../../db/index.ts';
import { approvals, journalEntries, ledgerAccounts, settlements, webhookEvents } from '../../db/schema.ts';
import { merchantAccount, merchantBalances, platformAccount, post } from '../../ledger/index.ts';
import type { TestServer } from '../../test/harness.ts';
import { codeAt } from '../auth/totp.ts';
import { expectLedgerBalanced } from '../payin/testkit.ts';
import { checkSettlementHolds } from './invariants.ts';
import { type SettlementWallet, walletAccountKind } from './service.ts';

export const cur = 'INR';
export const { settlementPayment, settlementPayout, settlementQuery } = endpoints;
export const endpointsOf = { collection: settlementPayment, payout: settlementPayout } as const;

export const bank = {
  type: 'bank',
  accountName: 'Asha Traders',
  cardNumber: '123456789012',
  ifsc: 'HDFC0001234',
} as const;
export const usdt = { type: 'usdt', returnAddress: `T${'A'.repeat(33)}` } as const;

/** Puts `amount` (minor units) on a merchant's wallet, as money that came in through a channel. */
export function fund(s: TestServer, merchantId: number, wallet: SettlementWallet, amount: number) {
  return inTransaction(s.db, (tx) =>
    post(tx, {
      kind: 'test_funding',
      refType: 'test_funding',
      refId: randomUUID(),
      at: s.clock.now(),
      lines: [
        { account: platformAccount('channel_clearing', cur), amount: -amount },
        { account: merchantAccount(merchantId, walletAccountKind[wallet], cur), amount },
      ],
    }),
  );
}

/**
 * A merchant (settlement terms 1 % + 5.00 unless told) with `funds` on its wallets, its owner signed in
 * with a bound Google key: `code()` is a fresh code each time.
 */
export async function merchantWithOwner(
  s: TestServer,
  terms: Parameters<TestServer['makeMerchant']>[0] = {},
  funds: Partial<Record<SettlementWallet, number>> = { collection: 10_000_000, payout: 10_000_000 },
) {
  const m = await s.makeMerchant({ settlementRatePpm: 10_000, settlementFee: 500, ...terms });
  for (const [wallet, amount] of Object.entries(funds)) {
    if (amount) await fund(s, m.id, wallet as SettlementWallet, amount);
  }
  const token = await s.login(m.ownerUsername, m.ownerPassword);
  const secret = await s.bindGoogle(token);
  const code = () => {
    s.clock.advance(30_000);
    return codeAt(secret, s.clock.now());
  };
  return { m, token, code };
}
export type Owner = Awaited<ReturnType<typeof merchantWithOwner>>;

/** A platform user holding every settlement endpoint, with a bound Google key. */
export function decider(s: TestServer) {
  return s.makeKeyHolder(
    [
      ...Object.values(settlementPayment),
      ...Object.values(settlementPayout),
      ...Object.values(settlementQuery),
    ].map((e) => e.permission),
  );
}
export type Decider = Awaited<ReturnType<typeof decider>>;

/** A platform account's balance (zero when it does not exist yet). */
/** A platform account's balance: the sum over its shards. */
export async function platformBalance(s: TestServer, kind: 'settlement_clearing' | 'fee_income') {
  const [row] = await s.db
    .select({ balance: sql<number>`coalesce(sum(${ledgerAccounts.balance}), 0)`.mapWith(Number) })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.ownerType, 'platform'),
        eq(ledgerAccounts.kind, kind),
        eq(ledgerAccounts.currency, cur),
      ),
    );
  return row?.balance ?? 0;
}

/** Everything a refused action must leave as it was. */
export async function snapshot(s: TestServer, id: number) {
  const [row] = await s.db.select().from(settlements).where(eq(settlements.id, id));
  return {
    row,
    balances: await merchantBalances(s.db, row!.merchantId, cur),
    clearing: await platformBalance(s, 'settlement_clearing'),
    feeIncome: await platformBalance(s, 'fee_income'),
    entries: await entriesOf(s, id),
    approvals: await s.db
      .select()
      .from(approvals)
      .where(and(eq(approvals.refType, 'settlement'), eq(approvals.refId, String(id))))
      .orderBy(asc(approvals.id)),
    callbacks: await callbacksOf(s, id),
  };
}

export const entriesOf = (s: TestServer, id: number) =>
  s.db
    .select()
    .from(journalEntries)
    .where(and(eq(journalEntries.refType, 'settlement'), eq(journalEntries.refId, String(id))))
    .orderBy(asc(journalEntries.id));

export const callbacksOf = (s: TestServer, id: number) =>
  s.db
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.orderType, 'settlement'), eq(webhookEvents.orderId, id)))
    .orderBy(asc(webhookEvents.id));

/** The books balance and every settlement's hold is what its state says. */
export async function expectBooks(s: TestServer) {
  await expectLedgerBalanced(s);
  expect(await checkSettlementHolds(s.db)).toEqual([]);
}
