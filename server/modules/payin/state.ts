/**
 * The pay-in state machine (declared once in contract/machines.ts; PRODUCT.md section 6 tells it) as
 * compare-and-set updates, and what entering a state does: entering `paid` posts one journal entry,
 * entering an announced state queues the merchant callback, both in the same transaction.
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
import { recordOrderMoves, statusMove } from '../dashboard/stats.ts';
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
  await entered(deps, tx, order, userId);
  await recordOrderMoves(tx, [statusMove('payin', order, left ?? null)]);
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

/**
 * One entry per paid order: the channel's clearing account gives what the payer paid; the merchant gets
 * it net of the fee (pending under T+N, available under D0); the platform keeps the fee less the agent's
 * commission; the agent's commission becomes payable. Zero lines are left out.
 */
export function paymentLines(
  order: Pick<PayinOrder, 'merchantId' | 'currency' | 'paidAmount' | 'amount' | 'fee' | 'agentCommission'>,
  terms: { settlementDays: number; agentId: number | null },
): EntryLine[] {
  const paid = order.paidAmount ?? order.amount;
  const cur = order.currency;
  const commission = terms.agentId === null ? 0 : order.agentCommission;
  const lines: EntryLine[] = [
    { account: platformAccount('channel_clearing', cur), amount: -paid },
    {
      account: merchantAccount(
        order.merchantId,
        terms.settlementDays > 0 ? 'collection_pending' : 'collection_available',
        cur,
      ),
      amount: paid - order.fee,
    },
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
  await post(tx, paymentEntry(order, m, userId, deps.clock.now()));
}

/** The journal entry of a paid order (its lines: `paymentLines`); the demo seed posts the same in bulk. */
export function paymentEntry(
  order: Parameters<typeof paymentLines>[0] & Pick<PayinOrder, 'id' | 'orderNo'>,
  terms: Parameters<typeof paymentLines>[1],
  userId: number | null,
  at: Date,
): Entry {
  const lines = paymentLines(order, terms);
  return { kind: 'payin_paid', refType: 'payin', refId: order.id, memo: order.orderNo, userId, at, lines };
}
