/**
 * Holding a merchant's money for a cause (docs/MONEY-BACK.md, "Holds" and "Where a hold is taken from"):
 * an account freeze now, a dispute later. A hold moves what the merchant's wallets can give, in the
 * common order, into its `frozen` wallet as one journal entry of the cause; what they cannot give is the
 * shortfall, which the caller records. The hold is then resolved once: released back to the wallets it
 * came from, or spent to a platform account.
 *
 * `collection_pending` is not taken yet: the T+N run releases a merchant's pending lines by their sums
 * (pending → available) and `collection_pending` must equal those sums (`checkTnLines`), so a hold taken
 * from it would make the next run refuse the merchant. It joins `holdOrder` when a T+N line can carry a
 * hold (MONEY-BACK.md section 3).
 */
import type { Db } from '../db/index.ts';
import { type Entry, merchantAccount, type PostedLine, platformAccount } from './accounts.ts';
import { post, postForEntryId } from './index.ts';
import { keyOf, lockAccounts } from './postings.ts';

/** The wallets a hold takes from, in this order; a release gives back in the reverse order. */
export const holdOrder = ['collection_available', 'payout_available'] as const;
export type HoldWallet = (typeof holdOrder)[number];

/** What a hold took from each wallet (minor units). */
export type HeldFrom = Record<HoldWallet, number>;

/** What caused a movement: the journal entry's `(refType, refId, kind)`, posted once. */
export interface HoldCause {
  refType: string;
  refId: string | number;
  kind: string;
  memo?: string;
  userId?: number | null;
  at: Date;
}

export interface MerchantHold {
  held: HeldFrom;
  /** The sum of `held`. */
  total: number;
  /** What the wallets could not cover. */
  shortfall: number;
  /** The hold's journal entry; null when nothing could be held. */
  entryId: number | null;
}

const none = (): HeldFrom => ({ collection_available: 0, payout_available: 0 });
const sumOf = (h: HeldFrom) => holdOrder.reduce((n, w) => n + h[w], 0);

/**
 * Holds `amount` of `merchantId`'s money in `currency` for `cause`: the wallets and `frozen` locked by the
 * ledger's own locking, their balances read under the lock, then one entry moving what each can give, in
 * `holdOrder`, so concurrent holds never take the same money twice (and the database refuses a negative
 * wallet behind it). Nothing posted when nothing can be held.
 */
export async function holdFromMerchant(
  tx: Db,
  cause: HoldCause,
  merchantId: number,
  currency: string,
  amount: number,
): Promise<MerchantHold> {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new Error(`ledger: bad hold ${amount}`);
  const wallets = holdOrder.map((w) => merchantAccount(merchantId, w, currency));
  const frozen = merchantAccount(merchantId, 'frozen', currency);
  const locked = await lockAccounts(tx, [...wallets, frozen]);
  const held = none();
  let left = amount;
  for (const [i, w] of holdOrder.entries()) {
    const take = Math.min(left, Math.max(0, locked.get(keyOf(wallets[i]!))!.balance));
    held[w] = take;
    left -= take;
  }
  const total = amount - left;
  if (!total) return { held, total, shortfall: left, entryId: null };
  const entryId = await postForEntryId(tx, {
    ...cause,
    lines: [
      ...holdOrder.flatMap((w, i) => (held[w] ? [{ account: wallets[i]!, amount: -held[w] }] : [])),
      { account: frozen, amount: total },
    ],
  });
  return { held, total, shortfall: left, entryId };
}

/**
 * How much of `amount` goes back to each wallet of a recorded hold: the reverse of `holdOrder`, so what
 * was taken last is given back first.
 */
export function releaseSplit(held: HeldFrom, amount: number): HeldFrom {
  if (!Number.isSafeInteger(amount) || amount < 0 || amount > sumOf(held))
    throw new Error(`ledger: cannot release ${amount} of a hold of ${sumOf(held)}`);
  const back = none();
  let left = amount;
  for (const w of [...holdOrder].reverse()) {
    back[w] = Math.min(left, held[w]);
    left -= back[w];
  }
  return back;
}

/**
 * Gives `amount` of a recorded hold (`held`, as `holdFromMerchant` answered it) back from `frozen` to the
 * wallets it came from, in the reverse order. Nothing posted for zero.
 */
export async function releaseMerchantHold(
  tx: Db,
  cause: HoldCause,
  merchantId: number,
  currency: string,
  held: HeldFrom,
  amount: number,
): Promise<PostedLine[]> {
  const back = releaseSplit(held, amount);
  if (!amount) return [];
  return await post(tx, {
    ...cause,
    lines: [
      { account: merchantAccount(merchantId, 'frozen', currency), amount: -amount },
      ...holdOrder.flatMap((w) =>
        back[w] ? [{ account: merchantAccount(merchantId, w, currency), amount: back[w] }] : [],
      ),
    ],
  });
}

/**
 * Spends `amount` of a merchant's hold from `frozen` to the platform account `to` (a freeze written off,
 * a chargeback lost: `channel_clearing`). Nothing posted for zero.
 */
export async function spendMerchantHold(
  tx: Db,
  cause: HoldCause,
  merchantId: number,
  currency: string,
  amount: number,
  to: Parameters<typeof platformAccount>[0],
): Promise<PostedLine[]> {
  if (!amount) return [];
  const entry: Entry = {
    ...cause,
    lines: [
      { account: merchantAccount(merchantId, 'frozen', currency), amount: -amount },
      { account: platformAccount(to, currency), amount },
    ],
  };
  return await post(tx, entry);
}
