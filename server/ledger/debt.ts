/**
 * A merchant's debt to the platform (docs/MONEY-BACK.md section 2): the merchant account `merchant_debt`,
 * negative by what the merchant owes, never positive. A debt is recorded against a platform account (a
 * lost dispute's unheld part against `channel_clearing`); the merchant's next collections repay it first
 * (the payment entry's recovery line, `paymentSplit` in server/modules/payin/state.ts), under the account's
 * lock, so concurrent payments never repay more than is owed.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { type AccountRef, merchantAccount } from './accounts.ts';
import { postForEntryId } from './index.ts';
import { rowsOf } from './postings.ts';

/** A debt to record: who owes how much, why (the entry's cause), and the platform account it is owed to. */
export interface MerchantDebt {
  merchantId: number;
  currency: string;
  /** Minor units owed, above zero. */
  amount: number;
  /** The cause, posted once per `(refType, refId, kind)`; `kind` defaults to `debt_recorded`. */
  refType: string;
  refId: string | number;
  kind?: string;
  /** The platform account that bore the loss and is now owed it (`channel_clearing` for a chargeback). */
  against: AccountRef;
  userId?: number | null;
  at: Date;
  memo?: string;
}

/**
 * Records a merchant's debt in the caller's transaction: one entry, `merchant_debt −amount` against
 * `against +amount`. Answers the entry's id. The disputes work calls it for a lost case's unheld part.
 */
export async function recordMerchantDebt(tx: Db, debt: MerchantDebt): Promise<number> {
  if (!Number.isSafeInteger(debt.amount) || debt.amount <= 0)
    throw new Error(`ledger: a debt must be above zero (${debt.amount})`);
  return postForEntryId(tx, {
    kind: debt.kind ?? 'debt_recorded',
    refType: debt.refType,
    refId: debt.refId,
    memo: debt.memo ?? '',
    userId: debt.userId ?? null,
    at: debt.at,
    lines: [
      { account: merchantAccount(debt.merchantId, 'merchant_debt', debt.currency), amount: -debt.amount },
      { account: debt.against, amount: debt.amount },
    ],
  });
}

/** What a payment repays of a debt: all of its net when the debt is larger, else the debt. */
export const recoveryOf = (net: number, owed: number): number => Math.max(0, Math.min(net, owed));

/** The invariant: no merchant's `merchant_debt` is above zero (repaying never passes what was owed). */
export async function checkMerchantDebt(db: Db) {
  const rows = rowsOf<{ owner_id: number; currency: string; balance: string }>(
    await db.execute(sql`
      select owner_id, currency, balance::text from ledger_accounts
      where owner_type = 'merchant' and kind = 'merchant_debt' and balance > 0
      order by 1, 2 limit 100`),
  );
  const mismatches = rows.map((r) => ({
    merchantId: Number(r.owner_id),
    currency: r.currency,
    balance: Number(r.balance),
  }));
  return { ok: mismatches.length === 0, mismatches };
}
