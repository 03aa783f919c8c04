/**
 * A forced supplement: a pay-in marked paid on a platform user's word (with a Google code), or on a second
 * user's approval above the maker–checker threshold.
 */
import { eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { payinOrders } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { type Context, handle } from '../../http/handle.ts';
import { invalidField } from '../../http/validation.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { aloneOrApprovalOnMerchant } from '../approval/doors.ts';
import { approvalRequested, onApproved, pendingApproval } from '../approval/service.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { allowed, auditTarget, orderFor } from './access.ts';
import { transition } from './state.ts';
import { orderUsingUtr, withUtrGuard } from './utr.ts';
import { loadRow, type PayinOrder } from './views.ts';

/** What a forced supplement records: why, the UTR if any, and the amount paid (minor units). */
interface Forced {
  reason: string;
  utr: string | null;
  paidAmount: number;
}

/** The ledger's and the approvals' name for a pay-in. */
const forceRef = 'payin';

/** Refuses a forced supplement the order's state or the UTR no longer allows. */
async function mayForce(tx: Db, order: PayinOrder, force: Forced): Promise<void> {
  allowed(order, 'force');
  if (force.utr && (await orderUsingUtr(tx, force.utr))) throw new AppError(errno.utrUsed);
}

/** The order paid on `userId`'s word (the `force` transition), or 409 when it moved meanwhile. */
async function forcePaid(
  deps: Deps,
  tx: Db,
  order: PayinOrder,
  force: Forced,
  userId: number,
): Promise<PayinOrder> {
  const paid = await withUtrGuard(() =>
    transition(
      deps,
      tx,
      order.id,
      'force',
      {
        utr: force.utr ?? order.utr,
        paidAmount: force.paidAmount,
        paidBy: 'force',
        paidAt: deps.clock.now(),
        failureReason: order.failureReason,
      },
      userId,
    ),
  );
  if (!paid) throw new AppError(errno.conflict, null, 'moved meanwhile');
  return paid;
}

// A forced supplement above the maker–checker threshold runs when a second platform user approves it:
// the same checks and transition, in the approver's name.
onApproved('payin.force', async (deps, tx, request, approverId) => {
  const [order] = await tx
    .select()
    .from(payinOrders)
    .where(eq(payinOrders.id, Number(request.refId)));
  if (!order) throw new AppError(errno.notFound);
  const force = request.payload as unknown as Forced;
  await mayForce(tx, order, force);
  const paid = await forcePaid(deps, tx, order, force, approverId);
  return {
    changes: { orderStatus: { before: order.status, after: paid.status } },
    detail: { order: auditTarget(order), paidAmount: formatMinor(force.paidAmount), utr: force.utr },
  };
});

async function forceSupplement(ctx: Context<typeof endpoints.merchantOrder.forceSupplement>) {
  const { input, user, tx, deps, req, audit, afterCommit } = ctx;
  const order = await orderFor(tx, user, { id: input.id }, req.lang);
  const detail = {
    reason: input.reason,
    utr: input.utr ?? null,
    paidAmount: input.paidAmount === undefined ? null : formatMinor(input.paidAmount),
  };
  audit({ target: auditTarget(order), detail });
  const paidAmount = input.paidAmount ?? order.amount;
  // A payment above the order's amount is a separate adjustment, never a forced supplement.
  if (paidAmount > order.amount) {
    throw invalidField(req.lang, 'paidAmount', 'validation.paidAboveAmount', {
      amount: formatMinor(order.amount),
    });
  }
  if (paidAmount < order.fee) {
    throw invalidField(req.lang, 'paidAmount', 'validation.paidBelowFee', {
      fee: formatMinor(order.fee),
    });
  }
  // The code before the order's state, so a wrong one is counted (committed) whatever that state.
  const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
  if (refused) return refused;
  const force: Forced = { reason: input.reason, utr: input.utr ?? null, paidAmount };
  await mayForce(tx, order, force);
  // While a second person is asked about this order, nobody forces it by hand meanwhile.
  if (await pendingApproval(tx, forceRef, order.id)) throw new AppError(errno.approvalPending);
  const request = await aloneOrApprovalOnMerchant(deps, tx, 'payin.force', user.id, {
    merchantId: order.merchantId,
    currency: order.currency,
    wallet: 'collection',
    amount: paidAmount,
    ref: auditTarget(order),
    refType: forceRef,
    refId: order.id,
    payload: { id: order.id, ...force },
    reason: input.reason,
  });
  if (request) return approvalRequested(audit, request, detail);
  const paid = await forcePaid(deps, tx, order, force, user.id);
  afterCommit(wakeWebhookWorkers);
  return loadRow(tx, paid.id);
}

/** The forced supplement, mounted by `payin/routes.ts`. */
export const forceRoutes = [handle(endpoints.merchantOrder.forceSupplement, forceSupplement)];
