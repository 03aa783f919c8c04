/**
 * The pay-in state machine (declared once in contract/machines.ts; PRODUCT.md section 6 tells it) as
 * compare-and-set updates, and what entering a state does: entering `paid` posts one journal entry (and
 * adds to the merchant's reserve line and, under T+N, its settlement line of the day), entering an announced state queues the
 * merchant callback, all in the same transaction.
 */
import { and, eq, getTableColumns, inArray, lt, lte, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { type CallbackType, callbackTypes } from '../../../contract/gateway.ts';
import { type PayinAction, type PayinStatus, payin } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { ledgerAccounts, merchants, payinOrders } from '../../db/schema.ts';
import { guardStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { t } from '../../http/i18n.ts';
import { type CallbackEvent, enqueueCallback, enqueueCallbacks } from '../../jobs/webhooks.ts';
import {
  agentAccount,
  type Entry,
  type EntryLine,
  LedgerBatch,
  merchantAccount,
  platformAccount,
  post,
  recoveryOf,
} from '../../ledger/index.ts';
import { cancelPendingApproval, cancelPendingApprovals } from '../approval/service.ts';
import { recordOrderMoves, statusMove } from '../dashboard/stats.ts';
import { recordCapacityMoves } from '../receiving/capacity.ts';
import { addToReserveLines, type ReserveTerms, reservePaymentOf } from '../settlement/reserve.ts';
import { addToTnLines, tnPaymentOf, withholdOnTnLines } from '../settlement/tn.ts';
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
        guardStates(payinOrders.status, from),
        action === 'expire' ? lte(payinOrders.expiresAt, now) : undefined,
      ),
    )
    .returning();
  const order = rows[0];
  if (!order) return null;
  // A forced supplement waiting for a second person is moot once the order cannot be forced (paid).
  if (!payin.can('force', order.status)) await cancelPendingApproval(deps, tx, 'payin', order.id);
  await entered(deps, tx, order, userId, async () => {
    await recordOrderMoves(tx, [statusMove('payin', order, left ?? null)]);
    await recordCapacityMoves(tx, [{ order, left }]);
  });
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
        guardStates(payinOrders.status, from),
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
  await enteredMany(deps, tx, orders, userId, async () => {
    await recordOrderMoves(
      tx,
      orders.map((o) => statusMove('payin', o, left.get(o.id) ?? null)),
    );
    await recordCapacityMoves(
      tx,
      orders.map((o) => ({ order: o, left: left.get(o.id) })),
    );
  });
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

/**
 * Rows that other transactions of the same merchant wait for, each held from its statement to the commit:
 * a move's order stats and capacity (`held`, given by the caller), a payment's reserve and T+N lines and
 * ledger accounts. They are taken last, in that order (every writer's), after what only reads or inserts
 * (the callback, the payment's terms and debts): at 200 events a second, 10 to 34 payments of the large
 * merchant queued on its order-stats row while its holder went back to the server for five more
 * statements (issue 31).
 */
type Held = () => Promise<void>;
const nothingHeld: Held = async () => {};

/** The effects of entering a state: the journal entry of a payment, and the merchant callback. */
export async function entered(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  order: PayinOrder,
  userId: number | null,
  held: Held = nothingHeld,
): Promise<void> {
  const event = callbackEvent(order);
  if (event) await enqueueCallback(deps, tx, event);
  await postPayments(deps, tx, payin.is('succeeded', order.status) ? [order] : [], userId, held);
}

/** `entered` for many orders: one payment batch, one callback insert. */
async function enteredMany(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  orders: readonly PayinOrder[],
  userId: number | null,
  held: Held,
): Promise<void> {
  await enqueueCallbacks(
    deps,
    tx,
    orders.flatMap((o) => callbackEvent(o) ?? []),
  );
  await postPayments(
    deps,
    tx,
    orders.filter((o) => payin.is('succeeded', o.status)),
    userId,
    held,
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
 * What of a paid order's net does not go to its collection wallet: the rolling reserve's share, then
 * what repays the merchant's debt (from the rest).
 */
export interface PaymentSplit {
  reserve: number;
  recovery: number;
}
const noSplit: PaymentSplit = { reserve: 0, recovery: 0 };

/**
 * One entry per paid order: the channel's clearing account gives what the payer paid; the merchant gets
 * it net of the fee (pending under T+N, available under D0, or `wallet` when the caller knows better),
 * less the reserve's share (to `reserve`) and the debt it repays (to `merchant_debt`); the platform keeps
 * the fee less the agent's commission; the agent's commission becomes payable. Zero lines are left out.
 */
export function paymentLines(
  order: Pick<PayinOrder, 'merchantId' | 'currency' | 'paidAmount' | 'amount' | 'fee' | 'agentCommission'>,
  terms: { settlementDays: number; agentId: number | null },
  wallet: PaymentWallet = walletOf(terms),
  split: PaymentSplit = noSplit,
): EntryLine[] {
  const paid = order.paidAmount ?? order.amount;
  const cur = order.currency;
  const commission = terms.agentId === null ? 0 : order.agentCommission;
  const net = paid - order.fee;
  const lines: EntryLine[] = [
    { account: platformAccount('channel_clearing', cur), amount: -paid },
    { account: merchantAccount(order.merchantId, wallet, cur), amount: net - split.reserve - split.recovery },
    { account: merchantAccount(order.merchantId, 'reserve', cur), amount: split.reserve },
    { account: merchantAccount(order.merchantId, 'merchant_debt', cur), amount: split.recovery },
    { account: platformAccount('fee_income', cur), amount: order.fee - commission },
  ];
  if (terms.agentId !== null) lines.push({ account: agentAccount(terms.agentId, cur), amount: commission });
  return lines.filter((l) => l.amount !== 0);
}

type PaymentTerms = { settlementDays: number; agentId: number | null } & ReserveTerms;

/**
 * The money of paid orders, in the caller's transaction: their terms and who owes read first, then the
 * caller's `held` rows, then per order its reserve share (added to its reserve line), its T+N line (under
 * T+N), then, with the ledger's accounts locked (in id order, after the lines as every payment and the
 * settlement run take them), the debt it repays, read under the debt account's lock and order by order, so
 * concurrent payments never repay more than is owed; then one ledger batch (one statement for one order
 * that repays nothing).
 */
async function postPayments(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  orders: readonly PayinOrder[],
  userId: number | null,
  held: Held,
) {
  if (!orders.length) return held();
  const merchantIds = [...new Set(orders.map((o) => o.merchantId))];
  const terms = new Map<number, PaymentTerms>(
    (
      await tx
        .select({
          id: merchants.id,
          settlementDays: merchants.settlementDays,
          agentId: merchants.agentId,
          reserveBp: merchants.reserveBp,
          reserveDays: merchants.reserveDays,
        })
        .from(merchants)
        .where(inArray(merchants.id, merchantIds))
    ).map((m) => [m.id, m]),
  );
  const termsOf = (o: PayinOrder) => {
    const m = terms.get(o.merchantId);
    if (!m) throw new Error(`merchant ${o.merchantId} of pay-in ${o.id} is missing`);
    return m;
  };
  for (const o of orders) checkCoversFee(o);
  const at = deps.clock.now();
  const netOf = (o: PayinOrder) => (o.paidAmount ?? o.amount) - o.fee;
  const keyOf = (o: { merchantId: number; currency: string }) => `${o.merchantId}:${o.currency}`;
  // Who owes: read without a lock first, so that only their debt accounts are locked (and none created).
  const owing = new Set(
    (
      await tx
        .select({ merchantId: ledgerAccounts.ownerId, currency: ledgerAccounts.currency })
        .from(ledgerAccounts)
        .where(
          and(
            eq(ledgerAccounts.ownerType, 'merchant'),
            eq(ledgerAccounts.kind, 'merchant_debt'),
            inArray(ledgerAccounts.ownerId, merchantIds),
            lt(ledgerAccounts.balance, 0),
          ),
        )
    ).map(keyOf),
  );
  await held();
  // Every payment of the batch has the same instant, so one business day: a merchant's line of that day
  // in a currency is the one released already, when it is.
  const reserves = orders.map((o) => reservePaymentOf(o, termsOf(o), at));
  const reserveMissed = new Set(
    (
      await addToReserveLines(
        tx,
        reserves.flatMap((r) => r ?? []),
      )
    ).map(keyOf),
  );
  const reserveOf = orders.map((o, i) => (reserveMissed.has(keyOf(o)) ? 0 : (reserves[i]?.amount ?? 0)));
  const tn = orders.map((o, i) => tnPaymentOf(o, termsOf(o), at, reserveOf[i]));
  const tnMissed = new Set(
    (
      await addToTnLines(
        tx,
        tn.flatMap((p) => p ?? []),
      )
    ).map(keyOf),
  );
  const walletOfOrder = orders.map((o, i) =>
    tn[i] !== null && tnMissed.has(keyOf(o)) ? ('collection_available' as const) : undefined,
  );
  // A payment as it comes (one order, no debt to repay): one statement.
  if (orders.length === 1 && !owing.size) {
    const o = orders[0]!;
    const split = { reserve: reserveOf[0]!, recovery: 0 };
    await post(tx, paymentEntry(o, termsOf(o), userId, at, walletOfOrder[0], split));
    return;
  }
  const debtOf = (o: PayinOrder) => merchantAccount(o.merchantId, 'merchant_debt', o.currency);
  const batch = new LedgerBatch(tx);
  await batch.hold(
    orders.flatMap((o, i) => [
      ...paymentLines(o, termsOf(o), walletOfOrder[i], { reserve: reserveOf[i]!, recovery: 0 }).map(
        (l) => l.account,
      ),
      ...(owing.has(keyOf(o)) ? [debtOf(o)] : []),
    ]),
  );
  const withheld: Parameters<typeof withholdOnTnLines>[1][number][] = [];
  for (const [i, o] of orders.entries()) {
    const reserve = reserveOf[i]!;
    // The debt as this batch has it: the locked balance less what earlier orders of the batch repaid.
    const owed = owing.has(keyOf(o)) ? -(await batch.balance(debtOf(o))) : 0;
    const recovery = recoveryOf(netOf(o) - reserve, owed);
    const p = tn[i];
    if (recovery > 0 && p && !walletOfOrder[i]) withheld.push({ ...p, amount: recovery });
    await batch.post(paymentEntry(o, termsOf(o), userId, at, walletOfOrder[i], { reserve, recovery }));
  }
  await withholdOnTnLines(tx, withheld);
  await batch.write();
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

/**
 * The journal entry of a paid order (its lines: `paymentLines`); the demo seed posts the same in bulk.
 * `split`: its reserve share and debt recovery (`postPayments` works them out).
 */
export function paymentEntry(
  order: Parameters<typeof paymentLines>[0] & Pick<PayinOrder, 'id' | 'orderNo'>,
  terms: Parameters<typeof paymentLines>[1],
  userId: number | null,
  at: Date,
  wallet?: PaymentWallet,
  split?: PaymentSplit,
): Entry {
  const lines = paymentLines(order, terms, wallet, split);
  return { kind: 'payin_paid', refType: 'payin', refId: order.id, memo: order.orderNo, userId, at, lines };
}
