/**
 * The pay-in state machine (declared once in contract/machines.ts; PRODUCT.md section 6 tells it) as
 * compare-and-set updates, and what entering a state does: entering `paid` posts one journal entry (and,
 * under T+N, adds to the merchant's settlement line of the day), entering an announced state queues the
 * merchant callback, all in the same transaction.
 */
import { and, eq, lte } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { type CallbackType, callbackTypes } from '../../../contract/gateway.ts';
import { type PayinAction, type PayinStatus, payin } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { merchants, payinOrders } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { t } from '../../http/i18n.ts';
import { enqueueCallback } from '../../jobs/webhooks.ts';
import {
  agentAccount,
  type Entry,
  type EntryLine,
  merchantAccount,
  platformAccount,
  post,
} from '../../ledger/index.ts';
import { cancelPendingApproval } from '../approval/service.ts';
import { recordOrderMoves, statusMove } from '../dashboard/stats.ts';
import { recordCapacityMoves } from '../receiving/capacity.ts';
import { addToTnLines, tnPaymentOf } from '../settlement/tn.ts';
import { gatewayView, type PayinOrder } from './views.ts';

/** Where a state-changing action leads; asking it of an action that changes no state is a programming error. */
export function destination(action: PayinAction): PayinStatus {
  const to = payin.to(action);
  if (!to) throw new Error(`pay-in action ${action} changes no state`);
  return to;
}

type OrderSet = Partial<typeof payinOrders.$inferInsert>;

/**
 * Moves one order by `action` if, at this instant, its state allows it (compare-and-set): answers the
 * updated order, or null when the state did not allow it (someone else moved it first, or it is final).
 */
export async function transition(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  id: number,
  action: PayinAction,
  set: OrderSet = {},
  userId: number | null = null,
): Promise<PayinOrder | null> {
  const from = payin.from(action);
  const to = destination(action);
  const now = deps.clock.now();
  // The order stats need the state it leaves: known when only one is allowed, else read under lock.
  const left = from.length === 1 ? from[0]! : await lockedStatus(tx, id);
  const rows = await tx
    .update(payinOrders)
    .set({ ...set, status: to, pushStatus: 'unpushed', callbackAt: null, updatedAt: now })
    .where(
      and(
        eq(payinOrders.id, id),
        inStates(payinOrders.status, from),
        action === 'expire' ? lte(payinOrders.expiresAt, now) : undefined,
      ),
    )
    .returning();
  const order = rows[0];
  if (!order) return null;
  // A forced supplement waiting for a second person is moot once the order cannot be forced (paid).
  if (!payin.can('force', order.status)) await cancelPendingApproval(deps, tx, 'payin', order.id);
  await entered(deps, tx, order, userId);
  await recordOrderMoves(tx, [statusMove('payin', order, left ?? null)]);
  await recordCapacityMoves(tx, [{ order, left }]);
  return order;
}

async function lockedStatus(tx: Db, id: number): Promise<PayinStatus | undefined> {
  const [row] = await tx
    .select({ status: payinOrders.status })
    .from(payinOrders)
    .where(eq(payinOrders.id, id))
    .for('update');
  return row?.status;
}

/** The merchant callback of an announced state: the event type named after it (`payin.paid`). */
function callbackOf(state: PayinStatus): CallbackType | undefined {
  if (!payin.is('announced', state)) return undefined;
  const type = callbackTypes.find((c) => c === `payin.${state}`);
  if (!type) throw new Error(`announced pay-in state ${state} has no callback type`);
  return type;
}

/** The effects of entering a state: the journal entry of a payment, and the merchant callback. */
export async function entered(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  order: PayinOrder,
  userId: number | null,
): Promise<void> {
  if (payin.is('succeeded', order.status)) await postPayment(deps, tx, order, userId);
  const type = callbackOf(order.status);
  if (type) {
    await enqueueCallback(deps, tx, {
      merchantId: order.merchantId,
      orderType: 'payin',
      orderId: order.id,
      type,
      url: order.notifyUrl,
      data: gatewayView(order),
    });
  }
}

/** Where a paid order's net goes: pending under T+N (until a settlement run), available under D0. */
export type PaymentWallet = 'collection_pending' | 'collection_available';
const walletOf = (terms: { settlementDays: number }): PaymentWallet =>
  terms.settlementDays > 0 ? 'collection_pending' : 'collection_available';

/**
 * One entry per paid order: the channel's clearing account gives what the payer paid; the merchant gets
 * it net of the fee (pending under T+N, available under D0, or `wallet` when the caller knows better);
 * the platform keeps the fee less the agent's commission; the agent's commission becomes payable. Zero
 * lines are left out.
 */
export function paymentLines(
  order: Pick<PayinOrder, 'merchantId' | 'currency' | 'paidAmount' | 'amount' | 'fee' | 'agentCommission'>,
  terms: { settlementDays: number; agentId: number | null },
  wallet: PaymentWallet = walletOf(terms),
): EntryLine[] {
  const paid = order.paidAmount ?? order.amount;
  const cur = order.currency;
  const commission = terms.agentId === null ? 0 : order.agentCommission;
  const lines: EntryLine[] = [
    { account: platformAccount('channel_clearing', cur), amount: -paid },
    { account: merchantAccount(order.merchantId, wallet, cur), amount: paid - order.fee },
    { account: platformAccount('fee_income', cur), amount: order.fee - commission },
  ];
  if (terms.agentId !== null) lines.push({ account: agentAccount(terms.agentId, cur), amount: commission });
  return lines.filter((l) => l.amount !== 0);
}

async function postPayment(deps: Pick<Deps, 'clock'>, tx: Db, order: PayinOrder, userId: number | null) {
  const [m] = await tx
    .select({ settlementDays: merchants.settlementDays, agentId: merchants.agentId })
    .from(merchants)
    .where(eq(merchants.id, order.merchantId));
  if (!m) throw new Error(`merchant ${order.merchantId} of pay-in ${order.id} is missing`);
  const paid = order.paidAmount ?? order.amount;
  if (paid < order.fee) {
    throw new AppError(errno.invalid, {
      fields: [
        {
          path: 'paidAmount',
          code: 'too_small',
          message: t('en', 'validation.paidBelowFee', { fee: formatMinor(order.fee) }),
        },
      ],
    });
  }
  const at = deps.clock.now();
  // Under T+N the payment joins its business day's line. When the run has released that line already (a
  // payment committing past midnight after the run), its money is due: straight to available, so that
  // pending stays the sum of the pending lines.
  const tn = tnPaymentOf(order, m, at);
  const due = tn !== null && (await addToTnLines(tx, [tn])).length > 0;
  await post(tx, paymentEntry(order, m, userId, at, due ? 'collection_available' : undefined));
}

/** The journal entry of a paid order (its lines: `paymentLines`); the demo seed posts the same in bulk. */
export function paymentEntry(
  order: Parameters<typeof paymentLines>[0] & Pick<PayinOrder, 'id' | 'orderNo'>,
  terms: Parameters<typeof paymentLines>[1],
  userId: number | null,
  at: Date,
  wallet?: PaymentWallet,
): Entry {
  const lines = paymentLines(order, terms, wallet);
  return { kind: 'payin_paid', refType: 'payin', refId: order.id, memo: order.orderNo, userId, at, lines };
}
