/**
 * Whose money a frozen account holds (docs/MONEY-BACK.md section 3, decided): the pay-ins paid into the
 * account, newest first going back from the moment it was frozen, until their amounts cover the frozen
 * amount; the last order is cut to fit. Each merchant's share is the sum of its orders in that window;
 * what the account's orders cannot cover is the platform's (`unattributed`). Reads only.
 */
import { sql } from 'drizzle-orm';
import { payin } from '../../../contract/machines.ts';
import type { Db } from '../../db/index.ts';
import { statesSql } from '../../db/states.ts';
import { rowsOf } from '../../ledger/index.ts';

export interface AttributedShare {
  merchantId: number;
  amount: number;
  /** The orders that made it, newest first. */
  orderIds: number[];
}

export interface Attribution {
  /** By merchant id, ascending: the order holds are taken in, so concurrent writers lock alike. */
  shares: AttributedShare[];
  unattributed: number;
}

/**
 * The window of `accountId`'s paid pay-ins in `currency` up to `frozenAt` that covers `amount`, newest
 * first (the payment time, then the id), summed per merchant. The running sum stops the read at the order
 * that covers the amount.
 */
export async function attribute(
  tx: Db,
  accountId: number,
  currency: string,
  frozenAt: Date,
  amount: number,
): Promise<Attribution> {
  const rows = rowsOf<{ id: string; merchant_id: number; paid: string; before: string }>(
    await tx.execute(sql`
      select id, merchant_id, paid, running - paid as before from (
        select o.id, o.merchant_id, coalesce(o.paid_amount, o.amount) as paid,
          sum(coalesce(o.paid_amount, o.amount)) over (order by o.paid_at desc, o.id desc) as running
        from payin_orders o
        where o.receiving_account_id = ${accountId} and o.currency = ${currency}
          and o.status = ${statesSql([payin.state.paid])} and o.paid_at <= ${frozenAt.toISOString()}::timestamptz
      ) w
      where running - paid < ${amount}
      order by running`),
  );
  const byMerchant = new Map<number, AttributedShare>();
  let covered = 0;
  for (const r of rows) {
    const take = Math.min(Number(r.paid), amount - Number(r.before));
    if (take <= 0) continue;
    const merchantId = Number(r.merchant_id);
    const share = byMerchant.get(merchantId) ?? { merchantId, amount: 0, orderIds: [] };
    share.amount += take;
    share.orderIds.push(Number(r.id));
    byMerchant.set(merchantId, share);
    covered += take;
  }
  return {
    shares: [...byMerchant.values()].sort((a, b) => a.merchantId - b.merchantId),
    unattributed: amount - covered,
  };
}
