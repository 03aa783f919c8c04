/**
 * Transitions of a payout: each names its action of the declaration (contract/machines.ts), which gives the
 * states its compare-and-set starts from and the state it writes.
 */
import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { type PayoutAction, payout } from '../../../contract/machines.ts';
import { normalUtr } from '../../../contract/schemas.ts';
import type { Db } from '../../db/index.ts';
import { type PayoutStatus, payoutOrders } from '../../db/schema.ts';
import { guardStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { enqueueCallback } from '../../jobs/webhooks.ts';
import { post } from '../../ledger/index.ts';
import { cancelPendingApproval } from '../approval/service.ts';
import { recordOrderMoves, statusMove } from '../dashboard/stats.ts';
import { routesOf } from '../merchant/service.ts';
import { weightedOrder } from '../payin/routing.ts';
import { followPayout } from '../refund/service.ts';
import { freeze, holdEntry } from './create.ts';
import { gatewayViewOf, type PayoutOrder, payoutRefType } from './views.ts';

export const conflict = (note: string) => new AppError(errno.conflict, null, note);

/** The order is in a state `action` may start from: the compare of the action's compare-and-set. */
export const startsFrom = (action: PayoutAction) => guardStates(payoutOrders.status, payout.from(action));

/** The state `action` leads to (every transition run here has one). */
export const into = (action: PayoutAction): PayoutStatus => payout.to(action)!;

export async function refuseMissingOr409(tx: Db, orderId: number, note: string): Promise<never> {
  const [row] = await tx
    .select({ id: payoutOrders.id })
    .from(payoutOrders)
    .where(eq(payoutOrders.id, orderId));
  throw row ? conflict(note) : new AppError(errno.notFound);
}

/**
 * Queues the outcome's callback in the caller's transaction; `round` tells a retried order's outcomes
 * apart. A refund's payout is not the merchant's payout: its refund follows it and is what they hear of.
 */
async function notify(deps: Pick<Deps, 'clock'>, tx: Db, o: PayoutOrder) {
  if (o.refundId !== null) return followPayout(deps, tx, o);
  const type = payout.is('succeeded', o.status) ? 'payout.success' : 'payout.failed';
  await enqueueCallback(deps, tx, {
    merchantId: o.merchantId,
    orderType: 'payout',
    orderId: o.id,
    type,
    url: o.notifyUrl,
    data: gatewayViewOf(o),
    round: type === 'payout.success' ? 1 : o.holds,
  });
}

/** Releases the open hold of an order that just ended without paying (failed or creation failed). */
async function release(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  o: PayoutOrder,
  memo: string,
  userId: number | null,
) {
  await post(tx, holdEntry(o, 'release', memo, userId, deps.clock.now()));
}

/** Spends the open hold of an order that just succeeded: the amount leaves, the fee is the platform's. */
async function spend(deps: Pick<Deps, 'clock'>, tx: Db, o: PayoutOrder, memo: string, userId: number | null) {
  await post(tx, holdEntry(o, 'spend', memo, userId, deps.clock.now()));
}

export interface Completion {
  orderId: number;
  result: 'success' | 'fail';
  utr?: string | null;
  reason?: string | null;
  /** A channel's notification (simulator, real callbacks) or an operator's mark. */
  by: 'channel' | 'manual';
  userId?: number | null;
}

/** The action each completion is, by who completes the order and how. */
const completionAction = {
  channel: { success: 'channelSuccess', fail: 'channelFailed' },
  manual: { success: 'markSuccess', fail: 'markFailed' },
} as const satisfies Record<Completion['by'], Record<Completion['result'], PayoutAction>>;

/**
 * The channel's notification (`channelSuccess`, `channelFailed`) or a person's mark (`markSuccess`,
 * `markFailed`, which may also settle an order whose hand-over was unclear): resolves the open hold
 * exactly once (spent or released) and queues the callback, all in the caller's transaction. From any
 * state the action may not start from it is a conflict (409): a duplicate or late notification changes
 * nothing, and a channel's notification cannot settle an order whose hand-over is under review.
 */
export async function completePayout(deps: Pick<Deps, 'clock'>, tx: Db, c: Completion): Promise<PayoutOrder> {
  const now = deps.clock.now();
  const success = c.result === 'success';
  const action = completionAction[c.by][c.result];
  // The row is locked first so that the state it leaves is known (for the stats and the operation log).
  const [current] = await tx
    .select({ status: payoutOrders.status })
    .from(payoutOrders)
    .where(eq(payoutOrders.id, c.orderId))
    .for('update');
  if (!current) throw new AppError(errno.notFound);
  const from = current.status;
  if (!payout.can(action, from)) throw conflict(`${action}: not from ${from}`);
  const [o] = await tx
    .update(payoutOrders)
    .set({
      status: into(action),
      holdOpen: false,
      // A channel's UTR in the one normal form (trimmed, upper case), as the lists search it.
      utr: success && c.utr ? normalUtr(c.utr) : null,
      failureReason: success ? null : c.reason || 'Failed at the channel',
      completedAt: now,
      updatedAt: now,
      pushStatus: 'unpushed',
      nextAttemptAt: null,
    })
    .where(
      and(
        eq(payoutOrders.id, c.orderId),
        guardStates(payoutOrders.status, [from]),
        eq(payoutOrders.holdOpen, true),
      ),
    )
    .returning();
  if (!o) throw conflict(`complete ${c.result}: hold already resolved`);
  const memo = [c.by, c.reason].filter(Boolean).join(': ');
  if (success) await spend(deps, tx, o, memo, c.userId ?? null);
  else await release(deps, tx, o, memo, c.userId ?? null);
  // A mark of success waiting for a second person is moot once the order is settled either way.
  await cancelPendingApproval(deps, tx, payoutRefType, o.id);
  await notify(deps, tx, o);
  await recordOrderMoves(tx, [statusMove('payout', o, from)]);
  return o;
}

/**
 * `creationFailed` for the order `where` selects, in state `from` (with its hold open): no channel took
 * it, so its hold is released and the merchant told. Answers null when `where` matched nothing.
 */
export async function failCreationWhere(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  where: SQL,
  from: PayoutStatus,
  reason: string,
): Promise<PayoutOrder | null> {
  const now = deps.clock.now();
  const [o] = await tx
    .update(payoutOrders)
    .set({
      status: into('creationFailed'),
      holdOpen: false,
      failureReason: reason,
      completedAt: now,
      updatedAt: now,
      nextAttemptAt: null,
      pushStatus: 'unpushed',
    })
    .where(
      and(
        where,
        startsFrom('creationFailed'),
        guardStates(payoutOrders.status, [from]),
        eq(payoutOrders.holdOpen, true),
      ),
    )
    .returning();
  if (!o) return null;
  await release(deps, tx, o, `creation_failed: ${reason}`, null);
  await notify(deps, tx, o);
  await recordOrderMoves(tx, [statusMove('payout', o, from)]);
  return o;
}

/** `creationFailed` of a queued order: no channel can take it; its hold is released and the merchant told. */
export async function failCreation(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  orderId: number,
  reason: string,
): Promise<PayoutOrder> {
  const o = await failCreationWhere(deps, tx, eq(payoutOrders.id, orderId), payout.initial, reason);
  return o ?? refuseMissingOr409(tx, orderId, `creationFailed: not ${payout.initial}`);
}
/** `retry` (`failed → queued`): a new hold is frozen (1019 when the balance no longer covers it). */
export async function retryPayout(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  orderId: number,
  userId: number | null,
): Promise<PayoutOrder> {
  const now = deps.clock.now();
  // The order stats count the failure on the channel it failed at, which the retry clears: read it first.
  const [failed] = await tx
    .select({ channelId: payoutOrders.channelId, status: payoutOrders.status })
    .from(payoutOrders)
    .where(eq(payoutOrders.id, orderId))
    .for('update');
  const [o] = await tx
    .update(payoutOrders)
    .set({
      status: into('retry'),
      holdOpen: true,
      holds: sql`${payoutOrders.holds} + 1`,
      channelId: null,
      channelOrderId: null,
      utr: null,
      failureReason: null,
      completedAt: null,
      attempts: 0,
      nextAttemptAt: now,
      updatedAt: now,
    })
    // A refund's payout is not retried: its refund failed, and a new refund is asked instead.
    .where(
      and(
        eq(payoutOrders.id, orderId),
        startsFrom('retry'),
        eq(payoutOrders.holdOpen, false),
        isNull(payoutOrders.refundId),
      ),
    )
    .returning();
  if (!o) return refuseMissingOr409(tx, orderId, `retry: not from ${failed?.status}`);
  await freeze(deps, tx, o, userId);
  // Back under way: it leaves the finished orders of its day (counted live again while queued).
  await recordOrderMoves(tx, [
    { kind: 'payout', before: { ...o, channelId: failed!.channelId, status: failed!.status }, after: o },
  ]);
  return o;
}

/** Channels that may carry this payout, in a weighted random order (weight 0 never). */
export async function payoutCandidates(deps: Deps, tx: Db, o: PayoutOrder) {
  const routes = (await routesOf(deps, tx, o.merchantId)).filter(
    (r) =>
      r.channel.supportsPayout &&
      r.weight > 0 &&
      r.channel.weight > 0 &&
      o.amount >= r.channel.minAmount &&
      o.amount <= r.channel.maxAmount,
  );
  return weightedOrder(routes);
}
