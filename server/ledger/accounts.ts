/** The ledger's accounts and entries as its callers name them (index.ts posts them). */
import type { Db } from '../db/index.ts';
import { type AccountKind, ledgerAccounts } from '../db/schema.ts';

export interface AccountRef {
  ownerType: 'merchant' | 'agent' | 'platform';
  ownerId: number;
  kind: AccountKind;
  currency: string;
}

/**
 * Clearing accounts mirror money held by channels and banks; they may go below zero. So may the
 * platform's balance adjustments: crediting a merchant by hand must not wait for fee income. A merchant's
 * debt is below zero by nature (what it owes); it never goes above (`checkMerchantDebt`).
 */
const mayBeNegative = new Set<AccountKind>([
  'channel_clearing',
  'settlement_clearing',
  'payout_clearing',
  'balance_adjustment',
  'merchant_debt',
]);

export const merchantAccount = (merchantId: number, kind: AccountKind, currency: string): AccountRef => ({
  ownerType: 'merchant',
  ownerId: merchantId,
  kind,
  currency,
});
export const agentAccount = (agentId: number, currency: string): AccountRef => ({
  ownerType: 'agent',
  ownerId: agentId,
  kind: 'agent_commission_payable',
  currency,
});
export const platformAccount = (kind: AccountKind, currency: string): AccountRef => ({
  ownerType: 'platform',
  ownerId: 0,
  kind,
  currency,
});

/**
 * The platform accounts every payment, payout or settlement posts to, each kept in `platformShards`
 * rows (`owner_id` 0 … 7): one entry posts to one of them, so concurrent entries stop queueing on one
 * row's lock, held to their commit (issue 31). The account is the sum of its rows; readers sum them
 * (the trial balance, the channel clearing's movement). Only these kinds: the clearing accounts may go
 * below zero, and fee income is only ever credited, so no shard refuses what the whole would allow.
 * Batches (`LedgerBatch`, the demo's writer) post to row 0.
 */
export const platformShards = 8;
const shardedKinds = new Set<AccountKind>([
  'channel_clearing',
  'payout_clearing',
  'settlement_clearing',
  'fee_income',
]);

/** `ref` on shard `shard` when it names a sharded platform account, else `ref` itself. */
export const onShard = (ref: AccountRef, shard: number): AccountRef =>
  ref.ownerType === 'platform' && shardedKinds.has(ref.kind) ? { ...ref, ownerId: shard } : ref;

export const merchantWalletKinds = [
  'collection_available',
  'collection_pending',
  'payout_available',
  'frozen',
] as const;

/**
 * Every merchant account a merchant's balances and log show: the wallets, the rolling reserve and the
 * debt. The reserve and the debt are created when first posted to (a merchant without them reads zero).
 */
export const merchantAccountKinds = [...merchantWalletKinds, 'reserve', 'merchant_debt'] as const;
export type MerchantAccountKind = (typeof merchantAccountKinds)[number];

/** An account's identity as a string, to key maps by. */
export const accountKey = (a: AccountRef) => `${a.ownerType}:${a.ownerId}:${a.kind}:${a.currency}`;

export interface EntryLine {
  account: AccountRef;
  /** Signed minor units: what the account's balance changes by. */
  amount: number;
}

export interface Entry {
  /** A declared kind (contract/ledgerKinds.ts: `heldKind` numbers a hold), or a test's own. */
  kind: string;
  /** What caused it; `(refType, refId, kind)` can be posted once only. */
  refType: string;
  refId: string | number;
  memo?: string;
  userId?: number | null;
  at: Date;
  lines: EntryLine[];
}

export interface PostedLine {
  accountId: number;
  account: AccountRef;
  amount: number;
  balanceBefore: number;
  balanceAfter: number;
  seq: number;
}

/** Creates accounts that do not exist yet (merchants get theirs at creation; this is the safety net). */
export async function ensureAccounts(tx: Db, refs: readonly AccountRef[]): Promise<void> {
  if (!refs.length) return;
  await tx
    .insert(ledgerAccounts)
    .values(refs.map((a) => ({ ...a, mayBeNegative: mayBeNegative.has(a.kind) })))
    .onConflictDoNothing();
}
