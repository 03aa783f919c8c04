/**
 * The pay-in state machine (declared once in contract/machines.ts; PRODUCT.md section 6 tells it) as
 * compare-and-set updates, and what entering a state does: entering `paid` posts one journal entry (and,
 * under T+N, adds to the merchant's settlement line of the day), entering an announced state queues the
 * merchant callback, all in the same transaction.
 */
import { and, eq, getTableColumns, inArray, lte, sql } from 'drizzle-orm';
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
import { type CallbackEvent, enqueueCallback, enqueueCallbacks } from '../../jobs/webhooks.ts';
import {
  agentAccount,
  type Entry,
  type EntryLine,
  merchantAccount,
  platformAccount,
  post,
  postMany,
} from '../../ledger/index.ts';
import { cancelPendingApproval, cancelPendingApprovals } from '../approval/service.ts';
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

/** One order of a batched move (`transitionMany`) and what it sets besides the state. */
export interface OrderMoveItem {
  id: number;
  set: OrderSet;
}

/**
 * Moves many orders by `action` as `transition` would one by one, leaving the same rows, with each step
 * done once for the whole batch (a statement import pays hundreds of orders per transaction): one
 * compare-and-set update, then the effects of entering the state, batched. Answers the orders that moved,
 * in `items` order; the others had moved already or are final. A refusal refuses the whole batch (a UTR
 * in use: 23505 from the unique index, or a payment below its fee).
 */
export async function transitionMany(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  action: PayinAction,
  items: readonly OrderMoveItem[],
  userId: number | null = null,
): Promise<PayinOrder[]> {
  if (!items.length) return [];
  const from = payin.from(action);
  const to = destination(action);
  const now = deps.clock.now();
  const ids = items.map((i) => i.id);
  if (new Set(ids).size < ids.length) throw new Error(`pay-in ${action}: an order named twice in one batch`);
  const left = new Map<number, PayinStatus>();
  if (from.length === 1) for (const id of ids) left.set(id, from[0]!);
  else for (const r of await lockedStatuses(tx, ids)) left.set(r.id, r.status);
  // One JSON parameter holds every order's values (typed by the table's row type); a column an item
  // does not set keeps its value, as `transition` with that item's `set` would.
  const columns = getTableColumns(payinOrders);
  const keys = [...new Set(items.flatMap((i) => Object.keys(i.set)))] as (keyof OrderSet)[];
  // In id order, as the rows are locked: two batches never wait on each other crosswise.
  const json = JSON.stringify(
    [...items]
      .sort((a, b) => a.id - b.id)
      .map((i) => {
        const row: Record<string, unknown> = { id: i.id };
        for (const [k, v] of Object.entries(i.set)) row[columns[k as keyof OrderSet].name] = v;
        return row;
      }),
  );
  const assigned = Object.fromEntries(
    keys.map((k) => {
      const name = columns[k].name;
      const column = sql.identifier(name);
      return [k, sql`case when j.v ? ${name} then r.${column} else ${columns[k]} end`];
    }),
  );
  const rows = await tx
    .update(payinOrders)
    .set({ ...assigned, status: to, pushStatus: 'unpushed', callbackAt: null, updatedAt: now })
    .from(
      sql`jsonb_array_elements(${json}::jsonb) as j(v), jsonb_populate_record(null::payin_orders, j.v) as r`,
    )
    .where(
      and(
        sql`${payinOrders.id} = r.id`,
        inStates(payinOrders.status, from),
        action === 'expire' ? lte(payinOrders.expiresAt, now) : undefined,
      ),
    )
    .returning(columns);
  const byId = new Map(rows.map((o) => [o.id, o]));
  const orders = ids.flatMap((id) => byId.get(id) ?? []);
  // As `transition`: a forced supplement waiting for a second person is moot once the order is paid.
  await cancelPendingApprovals(
    deps,
    tx,
    'payin',
    orders.filter((o) => !payin.can('force', o.status)).map((o) => o.id),
  );
  await enteredMany(deps, tx, orders, userId);
  await recordOrderMoves(
    tx,
    orders.map((o) => statusMove('payin', o, left.get(o.id) ?? null)),
  );
  await recordCapacityMoves(
    tx,
    orders.map((o) => ({ order: o, left: left.get(o.id) })),
  );
  return orders;
}

/** The orders' states, read under lock in id order. */
async function lockedStatuses(tx: Db, ids: readonly number[]) {
  return tx
    .select({ id: payinOrders.id, status: payinOrders.status })
    .from(payinOrders)
    .where(inArray(payinOrders.id, [...ids]))
    .orderBy(payinOrders.id)
    .for('update');
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
  const event = callbackEvent(order);
  if (event) await enqueueCallback(deps, tx, event);
}

/** `entered` for many orders: one payment batch, one callback insert. */
async function enteredMany(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  orders: readonly PayinOrder[],
  userId: number | null,
): Promise<void> {
  await postPayments(
    deps,
    tx,
    orders.filter((o) => payin.is('succeeded', o.status)),
    userId,
  );
  await enqueueCallbacks(
    deps,
    tx,
    orders.flatMap((o) => callbackEvent(o) ?? []),
  );
}

/** The callback of the order's state, if it is announced. */
function callbackEvent(order: PayinOrder): CallbackEvent | undefined {
  const type = callbackOf(order.status);
  if (!type) return undefined;
  return {
    merchantId: order.merchantId,
    orderType: 'payin',
    orderId: order.id,
    type,
    url: order.notifyUrl,
    data: gatewayView(order),
  };
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
  checkCoversFee(order);
  const at = deps.clock.now();
  // Under T+N the payment joins its business day's line. When the run has released that line already (a
  // payment committing past midnight after the run), its money is due: straight to available, so that
  // pending stays the sum of the pending lines.
  const tn = tnPaymentOf(order, m, at);
  const due = tn !== null && (await addToTnLines(tx, [tn])).length > 0;
  await post(tx, paymentEntry(order, m, userId, at, due ? 'collection_available' : undefined));
}

/** `postPayment` for many orders: one terms read, one T+N statement, one ledger batch (`postMany`). */
async function postPayments(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  orders: readonly PayinOrder[],
  userId: number | null,
) {
  if (!orders.length) return;
  const terms = new Map(
    (
      await tx
        .select({ id: merchants.id, settlementDays: merchants.settlementDays, agentId: merchants.agentId })
        .from(merchants)
        .where(inArray(merchants.id, [...new Set(orders.map((o) => o.merchantId))]))
    ).map((m) => [m.id, m]),
  );
  const termsOf = (o: PayinOrder) => {
    const m = terms.get(o.merchantId);
    if (!m) throw new Error(`merchant ${o.merchantId} of pay-in ${o.id} is missing`);
    return m;
  };
  for (const o of orders) checkCoversFee(o);
  const at = deps.clock.now();
  const tn = orders.map((o) => tnPaymentOf(o, termsOf(o), at));
  const missed = await addToTnLines(
    tx,
    tn.flatMap((p) => p ?? []),
  );
  // Every payment of the batch has the same instant, so one business day: a merchant's line of that day
  // in a currency is the one released already, when it is.
  const released = new Set(missed.map((k) => `${k.merchantId}:${k.currency}`));
  await postMany(
    tx,
    orders.map((o, i) => {
      const due = tn[i] !== null && released.has(`${o.merchantId}:${o.currency}`);
      return paymentEntry(o, termsOf(o), userId, at, due ? 'collection_available' : undefined);
    }),
  );
}

/** A payment below its fee cannot be posted: the merchant's net would be negative. */
function checkCoversFee(order: PayinOrder): void {
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
