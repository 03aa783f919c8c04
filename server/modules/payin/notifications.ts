/** What a channel says about a pay-in: its callback, or the simulator's. */
import { eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { normalUtr } from '../../../contract/schemas.ts';
import { type Db, inTransaction } from '../../db/index.ts';
import { payinOrders } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { payinNumbered, payinWithUtr } from '../orders/keys.ts';
import { transition } from './state.ts';
import type { PayinOrder } from './views.ts';

export interface ChannelNotification {
  orderNo: string;
  channelId: number;
  channelOrderId?: string;
  result: 'success' | 'fail';
  utr?: string | null;
  /** What the payer paid, per the channel (default: the order's amount). */
  amount?: number;
  reason?: string;
  /** The order as the caller read it in this transaction (a simulator's settlement), so it is not read again. */
  read?: PayinOrder;
}

export type NotificationOutcome =
  | { applied: true; order: PayinOrder }
  | { applied: false; order: PayinOrder | null; errno: number };

/**
 * A channel's word on a pay-in: the declared `channelPaid` (with its UTR) or `channelFailed`. What the
 * order's state does not allow is refused without effect and answered, not thrown, so a caller can
 * record the channel's side anyway.
 */
export async function applyChannelResult(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  n: ChannelNotification,
): Promise<NotificationOutcome> {
  const [order] =
    n.read?.orderNo === n.orderNo
      ? [n.read]
      : await tx.select().from(payinOrders).where(payinNumbered(n.orderNo));
  if (
    !order ||
    order.channelId !== n.channelId ||
    (n.channelOrderId !== undefined && order.channelOrderId !== n.channelOrderId)
  ) {
    return { applied: false, order: null, errno: errno.notFound };
  }
  let moved: PayinOrder | null;
  if (n.result === 'success') {
    // Stored in the one normal form, so a UTR typed by a person later matches the channel's.
    const utr = n.utr ? normalUtr(n.utr) : '';
    if (!utr) return { applied: false, order, errno: errno.invalid };
    const used = await payinWithUtr(tx, utr);
    if (used !== undefined && used !== order.id) return { applied: false, order, errno: errno.utrUsed };
    moved = await transition(deps, tx, order.id, 'channelPaid', {
      paidAmount: n.amount ?? order.amount,
      utr,
      paidBy: 'channel',
      paidAt: deps.clock.now(),
    });
  } else {
    moved = await transition(deps, tx, order.id, 'channelFailed', {
      failureReason: (n.reason ?? 'failed at the channel').slice(0, 500),
    });
  }
  if (moved) return { applied: true, order: moved };
  const [now] = await tx.select().from(payinOrders).where(eq(payinOrders.id, order.id));
  return { applied: false, order: now ?? order, errno: errno.conflict };
}

/** A channel notification in its own transaction: the entry point for a channel's callback. */
export function notifyPayin(deps: Deps, n: ChannelNotification): Promise<NotificationOutcome> {
  return inTransaction(deps.database.db, (tx) => applyChannelResult(deps, tx, n));
}
