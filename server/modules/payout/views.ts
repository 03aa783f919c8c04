/** A payout as the merchant's gateway and the console see it. */

import { eq } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { payoutRow } from '../../../contract/endpoints/orders.ts';
import { errno } from '../../../contract/errno.ts';
import type { gatewayPayout } from '../../../contract/gateway.ts';
import { payout } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { type merchants, type PayoutStatus, payoutOrders } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { channelCodes, labelsOf, merchantCodes } from '../../list/labels.ts';
import { payoutOrderRow } from '../orders/kinds.ts';

export type PayoutOrder = typeof payoutOrders.$inferSelect;
export type Merchant = typeof merchants.$inferSelect;
export type GatewayPayout = z.output<typeof gatewayPayout>;
export type PayoutRow = z.output<typeof payoutRow>;

/** Ledger `refType` of every payout entry. */
export const payoutRefType = 'payout';

/**
 * The status a merchant sees: a payout being handed to its channel, or whose hand-over is being looked
 * into, is `processing` to it (GATEWAY.md keeps one status set; those are our internal steps).
 */
export function merchantStatusOf(status: PayoutStatus): GatewayPayout['status'] {
  return payout.is('shownAsProcessing', status) ? payout.state.processing : status;
}

/**
 * What a merchant is told of why a payout failed: a note on a hand-over under way or under review is the
 * operators' (channel codes, adapter errors), not a failure the merchant should act on.
 */
export function merchantFailureReason(o: Pick<PayoutOrder, 'status' | 'failureReason'>): string | null {
  return payout.is('shownAsProcessing', o.status) ? null : o.failureReason;
}

/** The order as the gateway query answers it (and as callbacks carry it). */
export function gatewayViewOf(o: PayoutOrder): GatewayPayout {
  const status = merchantStatusOf(o.status);
  return {
    orderNo: o.orderNo,
    merchantOrderNo: o.merchantOrderNo,
    status,
    currency: o.currency,
    amount: formatMinor(o.amount),
    fee: formatMinor(o.fee),
    utr: o.utr,
    failureReason: merchantFailureReason(o),
    createdAt: o.createdAt.toISOString(),
    completedAt: o.completedAt?.toISOString() ?? null,
  };
}

/**
 * Console rows for orders, with merchant and channel codes fetched in two small queries; a merchant
 * `viewer` is told the failure reason a merchant is told (`merchantFailureReason`).
 */
export async function payoutRowsOf(
  tx: Db,
  orders: readonly PayoutOrder[],
  viewer: 'platform' | 'merchant' = 'platform',
): Promise<PayoutRow[]> {
  if (!orders.length) return [];
  const mCode = await labelsOf(
    tx,
    merchantCodes,
    orders.map((o) => o.merchantId),
  );
  const cCode = await labelsOf(
    tx,
    channelCodes,
    orders.map((o) => o.channelId),
  );
  return orders.map((o) =>
    payoutOrderRow.view(
      viewer === 'merchant' ? { ...o, failureReason: merchantFailureReason(o) } : o,
      mCode.get(o.merchantId) ?? '',
      o.channelId === null ? null : (cCode.get(o.channelId) ?? null),
    ),
  );
}

export async function payoutRowById(tx: Db, id: number): Promise<PayoutRow> {
  const [o] = await tx.select().from(payoutOrders).where(eq(payoutOrders.id, id));
  if (!o) throw new AppError(errno.notFound);
  return (await payoutRowsOf(tx, [o]))[0]!;
}
