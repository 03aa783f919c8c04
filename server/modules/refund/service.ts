/**
 * Refunds (docs/MONEY-BACK.md section 1). A refund of a paid pay-in reserves its amount in the order's
 * `refunded_amount` by one compare-and-set (the database's check keeps it at or under the paid amount,
 * so concurrent refunds of one order can never pass it), then either moves its money at once or waits
 * `requested` for a second platform user (the day's sums of the `refund.create` door). Its money moves
 * by a payout order of its own (`payout_orders.refund_id`), held from the merchant's collection balance
 * and handed to the channels like any payout; the refund follows that payout's outcome (`followPayout`).
 * A refund that fails, is rejected or cancelled gives its amount back to what is refundable.
 */
import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { refundPayee } from '../../../contract/endpoints/refund.ts';
import { errno } from '../../../contract/errno.ts';
import {
  dispute,
  type PayoutStatus,
  payin,
  payout,
  type RefundStatus,
  refund,
} from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { disputes, payinOrders, payoutOrders, refunds } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { enqueueCallback } from '../../jobs/webhooks.ts';
import { merchantBalances } from '../../ledger/index.ts';
import { aloneOrApprovalOnMerchant } from '../approval/doors.ts';
import { type Approval, cancelPendingApproval } from '../approval/service.ts';
import { newOrderNo } from '../payin/creation.ts';
import type { PayinOrder } from '../payin/views.ts';
import { createPayout } from '../payout/create.ts';
import type { Merchant, PayoutOrder } from '../payout/views.ts';

export type Refund = typeof refunds.$inferSelect;
export type Payee = z.output<typeof refundPayee>;

/** The approval requests' and operation log's name for a refund: `refund:<id>`. */
export const refundRefType = 'refund';

/**
 * Who asks: a console user (its id), or the merchant's own server through the signed gateway. The day's
 * sums count the gateway's refunds of one merchant as one asker of their own (`-merchantId`), so one
 * merchant's server never uses up another's room.
 */
export type Asker = { userId: number } | { gatewayOf: number };
export const askerId = (a: Asker) => ('userId' in a ? a.userId : -a.gatewayOf);

export interface RefundAsk {
  amount: number;
  reason: string;
  payee?: Payee;
  /** The gateway's `refundNo`; a console refund takes ours. */
  merchantRefundNo?: string;
  source: Refund['source'];
}

/** SHA-256 of what a gateway refund asks: the same `refundNo` with other content is a conflict. */
export function refundRequestHash(orderNo: string, a: RefundAsk): string {
  const p = a.payee;
  const canonical = JSON.stringify([
    orderNo,
    a.amount,
    p?.accountName ?? '',
    p?.accountNumber ?? '',
    p?.ifsc ?? '',
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** What is left to refund of an order now. */
export const refundable = (o: Pick<PayinOrder, 'paidAmount' | 'refundedAmount'>) =>
  Math.max(0, (o.paidAmount ?? 0) - o.refundedAmount);

/** The merchant's earlier refund with the same number, if any. */
export async function byMerchantRefundNo(tx: Db, merchantId: number, merchantRefundNo: string) {
  const [row] = await tx
    .select()
    .from(refunds)
    .where(and(eq(refunds.merchantId, merchantId), eq(refunds.merchantRefundNo, merchantRefundNo)));
  return row;
}

/** Where the money goes: what the request names, else the payee of the order's last refund. */
export async function payeeOf(
  tx: Db,
  order: PayinOrder,
  given: Payee | undefined,
  lang: Lang,
): Promise<Payee> {
  if (given) return given;
  const [last] = await tx
    .select({ accountName: refunds.accountName, accountNumber: refunds.accountNumber, ifsc: refunds.ifsc })
    .from(refunds)
    .where(eq(refunds.payinId, order.id))
    .orderBy(sql`${refunds.id} desc`)
    .limit(1);
  if (last) return last;
  throw invalidField(lang, 'payee', 'validation.refundPayee', undefined, 'required');
}

/**
 * Everything a refund is refused for, checked before the asker's Google code is spent and before anything
 * is written: the order's state (409), the amount against what is left (422), the merchant's collection
 * balance (1019), and the payee. Answers the payee the refund pays.
 */
export async function checkRefund(
  tx: Db,
  order: PayinOrder,
  merchant: Merchant,
  ask: RefundAsk,
  lang: Lang,
): Promise<Payee> {
  if (!payin.can('refund', order.status))
    throw new AppError(errno.conflict, null, `refund from ${order.status}`);
  if (merchant.status !== 'active') throw new AppError(errno.forbidden, null, 'merchant frozen');
  tooMuch(order, ask.amount, lang, await disputedOf(tx, order.id));
  const balance = await merchantBalances(tx, merchant.id, order.currency);
  if (balance.collection_available < ask.amount) throw new AppError(errno.insufficientBalance);
  return payeeOf(tx, order, ask.payee, lang);
}

/**
 * What the order's open disputes hold (docs/MONEY-BACK.md section 2): not refundable while they are open,
 * so that a payer whose chargeback is pending is not also paid back by a refund. A lost complaint's own
 * refund is made once its case has ended.
 */
export async function disputedOf(tx: Db, payinId: number): Promise<number> {
  const [row] = await tx
    .select({ n: sql<string>`coalesce(sum(${disputes.amount}), 0)` })
    .from(disputes)
    .where(and(eq(disputes.payinId, payinId), inStates(disputes.status, dispute.sets.open)));
  return Number(row?.n ?? 0);
}

function tooMuch(
  order: Pick<PayinOrder, 'paidAmount' | 'refundedAmount'>,
  amount: number,
  lang: Lang,
  disputed: number,
) {
  const left = Math.max(0, refundable(order) - disputed);
  if (amount > left)
    throw invalidField(lang, 'amount', 'validation.refundTooMuch', { max: formatMinor(left) }, 'too_big');
}

/**
 * Records the refund and reserves its amount on the order: the order's row locked (twenty concurrent
 * refunds each wait for the one before and see what it left, with what open disputes hold), then one
 * compare-and-set that the database's check backs. Answers the earlier refund of a repeated merchant
 * number as `replayOf`. Runs in the caller's transaction, with nothing decided yet.
 */
export async function recordRefund(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  order: PayinOrder,
  merchant: Merchant,
  ask: RefundAsk,
  payee: Payee,
  asker: Asker,
  lang: Lang,
): Promise<{ row: Refund; replayOf?: Refund }> {
  const now = deps.clock.now();
  // The row first: a concurrent repeat of the merchant's number waits here for the first to commit. A
  // number of ours drawn twice in one second (one in 10^8) is drawn again.
  let row: Refund | undefined;
  for (let draw = 0; !row && draw < 3; draw++) {
    const refundNo = newOrderNo(now, 'RF');
    [row] = await tx
      .insert(refunds)
      .values({
        refundNo,
        merchantId: merchant.id,
        merchantRefundNo: ask.merchantRefundNo ?? refundNo,
        payinId: order.id,
        payinCreatedAt: order.createdAt,
        orderNo: order.orderNo,
        merchantOrderNo: order.merchantOrderNo,
        currency: order.currency,
        amount: ask.amount,
        status: refund.initial,
        reason: ask.reason,
        ...payee,
        source: ask.source,
        requestHash: refundRequestHash(order.orderNo, ask),
        requestedBy: 'userId' in asker ? asker.userId : null,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (row) break;
    const first = ask.merchantRefundNo && (await byMerchantRefundNo(tx, merchant.id, ask.merchantRefundNo));
    if (first) return { row: first, replayOf: first };
  }
  if (!row) throw new AppError(errno.conflict, null, 'refund: no free refund number in three draws');
  // The order locked, what its open disputes hold is read after any opening that locked it first.
  const [locked] = await tx
    .select({ paidAmount: payinOrders.paidAmount, refundedAmount: payinOrders.refundedAmount })
    .from(payinOrders)
    .where(and(eq(payinOrders.id, order.id), eq(payinOrders.createdAt, order.createdAt)))
    .for('update');
  tooMuch(locked ?? { paidAmount: 0, refundedAmount: 0 }, ask.amount, lang, await disputedOf(tx, order.id));
  const [reserved] = await tx
    .update(payinOrders)
    .set({ refundedAmount: sql`${payinOrders.refundedAmount} + ${ask.amount}`, updatedAt: now })
    .where(
      and(
        eq(payinOrders.id, order.id),
        eq(payinOrders.createdAt, order.createdAt),
        inStates(payinOrders.status, payin.from('refund')),
        sql`${payinOrders.refundedAmount} + ${ask.amount} <= ${payinOrders.paidAmount}`,
      ),
    )
    .returning({ refundedAmount: payinOrders.refundedAmount });
  // The amount was judged under the lock just now: only the order's state can refuse it here.
  if (!reserved) throw new AppError(errno.conflict, null, 'refund: the order moved on');
  return { row };
}

/**
 * Records the refund (`recordRefund`), then lets the door decide: alone within the day's sums (the payout
 * is made and the hold taken now), or an approval request for a second platform user (the refund stays
 * `requested`). Runs in the caller's transaction after `checkRefund`.
 */
export async function placeRefund(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  order: PayinOrder,
  merchant: Merchant,
  ask: RefundAsk,
  payee: Payee,
  asker: Asker,
  lang: Lang,
): Promise<{ refund: Refund; approval: Approval | null; replayOf?: Refund }> {
  const { row, replayOf } = await recordRefund(deps, tx, order, merchant, ask, payee, asker, lang);
  if (replayOf) return { refund: replayOf, approval: null, replayOf };
  const request = await aloneOrApprovalOnMerchant(deps, tx, 'refund.create', askerId(asker), {
    merchantId: merchant.id,
    currency: order.currency,
    wallet: 'collection',
    amount: ask.amount,
    ref: `refund:${row.id}`,
    refType: refundRefType,
    refId: row.id,
    payload: {
      orderNo: order.orderNo,
      refundNo: row.refundNo,
      amount: ask.amount,
      account: payee.accountNumber,
    },
    reason: ask.reason,
  });
  if (request) {
    const [waiting] = await tx
      .update(refunds)
      .set({ approvalId: request.id })
      .where(eq(refunds.id, row.id))
      .returning();
    return { refund: waiting!, approval: request };
  }
  return { refund: await startRefund(deps, tx, row, merchant, askerId(asker), order), approval: null };
}

/**
 * `approve` (or a refund decided alone): the refund goes `processing` and its payout is made, holding the
 * amount from the merchant's collection balance (1019 when it no longer covers it: nothing changes).
 */
export async function startRefund(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  r: Refund,
  merchant: Merchant,
  userId: number,
  /** The pay-in, when the caller holds it (an approval reads it here). */
  held?: Pick<PayinOrder, 'notifyUrl'>,
): Promise<Refund> {
  const now = deps.clock.now();
  const [order] = held
    ? [held]
    : await tx
        .select({ notifyUrl: payinOrders.notifyUrl })
        .from(payinOrders)
        .where(and(eq(payinOrders.id, r.payinId), eq(payinOrders.createdAt, r.payinCreatedAt)));
  const made = await createPayout(
    deps,
    tx,
    merchant,
    {
      merchantOrderNo: r.refundNo,
      amount: r.amount,
      accountName: r.accountName,
      accountNumber: r.accountNumber,
      ifsc: r.ifsc,
      notifyUrl: order?.notifyUrl ?? merchant.callbackUrl,
    },
    { source: r.source, lang: 'en', userId: userId > 0 ? userId : null, refundId: r.id },
  );
  const [started] = await tx
    .update(refunds)
    .set({
      status: refund.to('approve')!,
      payoutId: made.order.id,
      payoutCreatedAt: made.order.createdAt,
      updatedAt: now,
    })
    .where(and(eq(refunds.id, r.id), inStates(refunds.status, refund.from('approve'))))
    .returning();
  if (!started) throw new AppError(errno.conflict, null, `refund ${r.refundNo}: not requested`);
  return started;
}

/** Gives a refund's amount back to what its order may still refund. */
async function unreserve(deps: Pick<Deps, 'clock'>, tx: Db, r: Refund) {
  await tx
    .update(payinOrders)
    .set({ refundedAmount: sql`${payinOrders.refundedAmount} - ${r.amount}`, updatedAt: deps.clock.now() })
    .where(and(eq(payinOrders.id, r.payinId), eq(payinOrders.createdAt, r.payinCreatedAt)));
}

/**
 * A refund that never moved money ends (`reject`, `cancel`): compare-and-set from `requested`, its amount
 * refundable again, a pending approval request cancelled. 409 when it moved on meanwhile.
 */
export async function endRequested(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  id: number,
  action: 'reject' | 'cancel',
  reason: string | null,
): Promise<Refund> {
  const now = deps.clock.now();
  const [r] = await tx
    .update(refunds)
    .set({ status: refund.to(action)!, failureReason: reason, completedAt: now, updatedAt: now })
    .where(and(eq(refunds.id, id), inStates(refunds.status, refund.from(action))))
    .returning();
  if (!r) throw new AppError(errno.conflict, null, `refund ${action}: not requested`);
  await unreserve(deps, tx, r);
  if (action === 'cancel') await cancelPendingApproval(deps, tx, refundRefType, r.id);
  await notify(deps, tx, r);
  return r;
}

/**
 * The refund of a payout that just ended (success, failed, creation failed) follows it, in the same
 * transaction: `paid` or `fail` (its amount refundable again), and the merchant hears of it.
 */
export async function followPayout(deps: Pick<Deps, 'clock'>, tx: Db, o: PayoutOrder): Promise<void> {
  if (o.refundId === null) return;
  const action = payout.is('succeeded', o.status as PayoutStatus) ? 'paid' : 'fail';
  const now = deps.clock.now();
  const [r] = await tx
    .update(refunds)
    .set({
      status: refund.to(action)!,
      failureReason: action === 'fail' ? o.failureReason : null,
      completedAt: now,
      updatedAt: now,
    })
    .where(and(eq(refunds.id, o.refundId), inStates(refunds.status, refund.from(action))))
    .returning();
  // Its payout ended once (the payout's own compare-and-set), so its refund moves once.
  if (!r) throw new AppError(errno.conflict, null, `refund of payout ${o.orderNo}: not processing`);
  if (action === 'fail') await unreserve(deps, tx, r);
  await notify(deps, tx, r, o);
}

/** The callback of a refund that ended: `payin.refunded` when paid, `refund.failed` otherwise. */
async function notify(deps: Pick<Deps, 'clock'>, tx: Db, r: Refund, o?: PayoutOrder) {
  const [order] = await tx
    .select()
    .from(payinOrders)
    .where(and(eq(payinOrders.id, r.payinId), eq(payinOrders.createdAt, r.payinCreatedAt)));
  if (!order) return;
  await enqueueCallback(deps, tx, {
    merchantId: r.merchantId,
    orderType: 'refund',
    orderId: r.id,
    type: r.status === 'success' ? 'payin.refunded' : 'refund.failed',
    url: order.notifyUrl,
    data: gatewayRefundView(r, order, o?.utr ?? null),
  });
}

/** A refund as the gateway answers it and its callbacks carry it. */
export function gatewayRefundView(
  r: Refund,
  order: Pick<PayinOrder, 'paidAmount' | 'refundedAmount'>,
  utr: string | null,
) {
  return {
    refundNo: r.merchantRefundNo,
    platformRefundNo: r.refundNo,
    orderNo: r.orderNo,
    merchantOrderNo: r.merchantOrderNo,
    status: r.status as RefundStatus,
    currency: r.currency,
    amount: formatMinor(r.amount),
    paidAmount: formatMinor(order.paidAmount ?? 0),
    refundedAmount: formatMinor(order.refundedAmount),
    utr,
    failureReason: r.failureReason,
    createdAt: r.createdAt.toISOString(),
    completedAt: r.completedAt?.toISOString() ?? null,
  };
}

/** The payout carrying a refund, for its status and UTR. */
export async function payoutOf(tx: Db, r: Refund): Promise<PayoutOrder | undefined> {
  if (r.payoutId === null || r.payoutCreatedAt === null) return undefined;
  const [o] = await tx
    .select()
    .from(payoutOrders)
    .where(and(eq(payoutOrders.id, r.payoutId), eq(payoutOrders.createdAt, r.payoutCreatedAt)));
  return o;
}
