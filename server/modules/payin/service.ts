/**
 * Pay-in orders: creation (idempotent on the merchant order number, routed among the merchant's
 * channels), and the state machine of PRODUCT.md section 6 as compare-and-set updates. Entering `paid`
 * posts one journal entry; entering `paid`, `failed` or `unpaid` queues the merchant callback, in the
 * same transaction.
 */
import { createHash, randomInt } from 'node:crypto';
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import type { CallbackType } from '../../../contract/gateway.ts';
import { feeOf, formatMinor } from '../../../contract/money.ts';
import { normalUtr } from '../../../contract/schemas.ts';
import { type Channel, ChannelRefused } from '../../channels/adapter.ts';
import { adapterFor } from '../../channels/index.ts';
import { type Db, inTransaction, RetryTransaction, sqlState } from '../../db/index.ts';
import { merchants, type PayinStatus, payinOrders } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { enqueueCallback } from '../../jobs/webhooks.ts';
import { agentAccount, type EntryLine, merchantAccount, platformAccount, post } from '../../ledger/index.ts';
import { recordOrderMoves, statusMove } from '../dashboard/stats.ts';
import { creationTerms, routesFor, weightedOrder } from './routing.ts';
import { type GatewayPayin, gatewayView, type PayinOrder, storedGatewayView } from './views.ts';

type Merchant = typeof merchants.$inferSelect;

// ---- parameters --------------------------------------------------------------------------------

/** A parameter's value when it is a positive integer, else the fallback. */
export const positiveInt = (v: unknown, fallback: number): number =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : fallback;

/** Minutes a payer has to pay before the order turns `unpaid` (parameter `payin_expiry_minutes`). */
export const defaultExpiryMinutes = 30;

/** Where payers reach this server: PUBLIC_URL, else the listening address. */
export function publicUrl(deps: Pick<Deps, 'config'>): string {
  const base = process.env.PUBLIC_URL || `http://${deps.config.host}:${deps.config.port}`;
  return base.replace(/\/+$/, '');
}

// ---- the state machine -------------------------------------------------------------------------

/** What can happen to an existing order; creation (`creating → pending | creation_failed`) is internal. */
export const payinActions = ['channelPaid', 'channelFailed', 'expire', 'supplement', 'force'] as const;
export type PayinAction = (typeof payinActions)[number];

/** The allowed transitions: from these states, to that one. Everything else is refused (409). */
export const transitions: Record<PayinAction, { from: readonly PayinStatus[]; to: PayinStatus }> = {
  channelPaid: { from: ['pending'], to: 'paid' },
  channelFailed: { from: ['pending'], to: 'failed' },
  expire: { from: ['pending'], to: 'unpaid' },
  supplement: { from: ['pending', 'unpaid', 'failed'], to: 'paid' },
  force: { from: ['pending', 'unpaid', 'failed'], to: 'paid' },
};

const callbackOf: Partial<Record<PayinStatus, CallbackType>> = {
  paid: 'payin.paid',
  failed: 'payin.failed',
  unpaid: 'payin.unpaid',
};

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
  const { from, to } = transitions[action];
  const now = deps.clock.now();
  // The order stats need the state it leaves: known when only one is allowed, else read under lock.
  const left = from.length === 1 ? from[0]! : await lockedStatus(tx, id);
  const rows = await tx
    .update(payinOrders)
    .set({ ...set, status: to, pushStatus: 'unpushed', callbackAt: null, updatedAt: now })
    .where(
      and(
        eq(payinOrders.id, id),
        inArray(payinOrders.status, [...from]),
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

/** The effects of entering a state: the journal entry of a payment, and the merchant callback. */
async function entered(deps: Pick<Deps, 'clock'>, tx: Db, order: PayinOrder, userId: number | null) {
  if (order.status === 'paid') await postPayment(deps, tx, order, userId);
  const type = callbackOf[order.status];
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
  await post(tx, {
    kind: 'payin_paid',
    refType: 'payin',
    refId: order.id,
    memo: order.orderNo,
    userId,
    at: deps.clock.now(),
    lines: paymentLines(order, m),
  });
}

// ---- creation ----------------------------------------------------------------------------------

export interface PayinRequest {
  merchantOrderNo: string;
  amount: number;
  notifyUrl: string;
  returnUrl?: string | undefined;
  payer?: { name?: string | undefined; email?: string | undefined; phone?: string | undefined } | undefined;
  /** A channel code instead of routing. */
  channel?: string | undefined;
}

export interface CreateResult {
  order: PayinOrder;
  /** True when this repeated an earlier create: `answer` is the original answer. */
  replayed: boolean;
  answer: GatewayPayin;
}

/** JSON with sorted keys and no undefined values: equal requests hash equal whatever their key order. */
function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v ?? null);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
}

export function requestHash(r: PayinRequest): string {
  const canonical = canonicalJson({
    merchantOrderNo: r.merchantOrderNo,
    amount: r.amount,
    notifyUrl: r.notifyUrl,
    returnUrl: r.returnUrl ?? null,
    payer: r.payer ?? null,
    channel: r.channel ?? null,
  });
  return createHash('sha256').update(canonical).digest('hex');
}

/** `PI` + yyMMddHHmmss (UTC) + 8 random digits: sortable by time, unique in practice, checked by the database. */
export function newOrderNo(now: Date, prefix = 'PI'): string {
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(2, 14);
  return `${prefix}${stamp}${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
}

async function byMerchantOrderNo(tx: Db, merchantId: number, merchantOrderNo: string) {
  const [row] = await tx
    .select()
    .from(payinOrders)
    .where(and(eq(payinOrders.merchantId, merchantId), eq(payinOrders.merchantOrderNo, merchantOrderNo)));
  return row;
}

/** The same content answers the original; other content under the same number is a conflict. */
function replayOf(existing: PayinOrder, hash: string): CreateResult {
  if (existing.requestHash !== hash) throw new AppError(errno.conflict, null, 'merchantOrderNo reused');
  const answer = existing.responseSnapshot
    ? storedGatewayView(existing.responseSnapshot)
    : gatewayView(existing);
  return { order: existing, replayed: true, answer };
}

/** The columns a creation writes, in the order of `insertOrderSql`'s parameters. */
const insertColumns = [
  'order_no',
  'merchant_id',
  'merchant_order_no',
  'channel_id',
  'channel_order_id',
  'currency',
  'amount',
  'fee',
  'agent_commission',
  'status',
  'push_status',
  'notify_url',
  'return_url',
  'pay_url',
  'payer',
  'request_hash',
  'request_snapshot',
  'response_snapshot',
  'failure_reason',
  'expires_at',
  'created_at',
  'updated_at',
] as const;
/** The order as the channel left it, in one statement; nothing when either unique number is taken. */
const insertOrderSql = `insert into payin_orders (${insertColumns.join(', ')})
  values (${insertColumns.map((_, i) => `$${i + 1}`).join(', ')})
  on conflict do nothing returning id`;

/**
 * The order's insert with a channel's booking (`book`, its own parameters numbered from $1) in the same
 * statement. The booking runs whether or not the order goes in: a loser of a concurrent duplicate leaves
 * its channel order unused, as at any channel.
 */
const withBooking = (booking: string) =>
  `with o as (${insertOrderSql}), b as (${booking.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + insertColumns.length}`)})
  select id from o`;

/**
 * Creates a pay-in, or answers the original of a repeated create. Runs inside the caller's transaction,
 * or on the database itself (the gateway: a pending order is one insert that stands alone, and a
 * `creation_failed` one gets a transaction of its own for its insert and its stats).
 *
 * A repeat is answered before anything else is judged (limits may have changed since the original): the
 * gateway learns whether the merchant order number exists in the statement that spends the nonce
 * (`exists`); other callers ask here. A new order goes to its channels in weighted order first, and is
 * then written once, as the channel left it (`pending`, or `creation_failed` when every channel
 * refused): one insert instead of an insert and an update, which rewrote every index of the row.
 * Two concurrent creates of one number both reach a channel; the unique key lets one insert, and the
 * other throws `RetryTransaction`: its caller runs it again (a transaction from the start, the gateway
 * its creation), when it finds the first and replays it. The channel order the loser made is left at
 * the channel, unused: nobody got its pay link, and the channel expires it (outside a transaction the
 * simulator keeps its row too, as a real channel would).
 */
export async function createPayin(
  deps: Deps,
  tx: Db,
  merchant: Merchant,
  req: PayinRequest,
  meta: {
    source: 'api' | 'console';
    ip: string;
    lang: Lang;
    userId?: number | null;
    /** Whether an order with this merchant order number exists (read by the caller), if known. */
    exists?: boolean;
  },
): Promise<CreateResult> {
  const hash = requestHash(req);
  if (meta.exists !== false) {
    const existing = await byMerchantOrderNo(tx, merchant.id, req.merchantOrderNo);
    if (existing) return replayOf(existing, hash);
  }
  if (req.amount < merchant.minAmount || req.amount > merchant.maxAmount) {
    throw invalidField(meta.lang, 'amount', 'validation.amountLimits', {
      min: formatMinor(merchant.minAmount),
      max: formatMinor(merchant.maxAmount),
    });
  }
  const terms = await creationTerms(deps, tx, merchant);
  const routes = routesFor(terms.routes, req.amount, req.channel);
  if (!routes.length) throw new AppError(errno.noChannel, null, `no channel for ${req.amount}`);

  const now = deps.clock.now();
  const minutes = positiveInt(terms.expiryParameter, defaultExpiryMinutes);
  const expiresAt = new Date(now.getTime() + minutes * 60_000);
  const fee = Math.min(feeOf(req.amount, merchant.collectionRatePpm, merchant.platformFee), req.amount);
  const commission =
    terms.agentCommissionPpm === null ? 0 : Math.min(feeOf(req.amount, terms.agentCommissionPpm), fee);
  const orderNo = newOrderNo(now);

  let made:
    | { channel: Channel; channelOrderId: string; payUrl: string; book?: { text: string; params: unknown[] } }
    | undefined;
  const refusals: string[] = [];
  for (const route of weightedOrder(routes)) {
    try {
      const at = await adapterFor(route.channel.adapter).createPayin(
        { deps, tx, channel: route.channel },
        { orderNo, amount: req.amount, currency: merchant.currency, expiresAt },
      );
      const payUrl = at.payUrl.startsWith('/') ? `${publicUrl(deps)}${at.payUrl}` : at.payUrl;
      made = {
        channel: route.channel,
        channelOrderId: at.channelOrderId,
        payUrl,
        ...(at.book ? { book: at.book } : {}),
      };
      break;
    } catch (err) {
      if (!(err instanceof ChannelRefused)) throw err;
      refusals.push(`${route.channel.code}: ${err.message}`);
    }
  }

  const draft: Omit<PayinOrder, 'id'> = {
    orderNo,
    merchantId: merchant.id,
    merchantOrderNo: req.merchantOrderNo,
    channelId: made?.channel.id ?? null,
    channelOrderId: made?.channelOrderId ?? null,
    currency: merchant.currency,
    amount: req.amount,
    paidAmount: null,
    fee,
    agentCommission: commission,
    status: made ? 'pending' : 'creation_failed',
    pushStatus: 'unpushed',
    utr: null,
    notifyUrl: req.notifyUrl,
    returnUrl: req.returnUrl ?? null,
    payUrl: made?.payUrl ?? null,
    payer: req.payer ?? null,
    requestHash: hash,
    requestSnapshot: {
      source: meta.source,
      ip: meta.ip,
      userId: meta.userId ?? null,
      request: { ...req, amount: formatMinor(req.amount) },
    },
    responseSnapshot: null,
    paidBy: null,
    failureReason: made ? null : refusals.join('; ').slice(0, 500),
    expiresAt,
    paidAt: null,
    callbackAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const answer = gatewayView({ id: 0, ...draft });
  const params = [
    draft.orderNo,
    draft.merchantId,
    draft.merchantOrderNo,
    draft.channelId,
    draft.channelOrderId,
    draft.currency,
    draft.amount,
    draft.fee,
    draft.agentCommission,
    draft.status,
    draft.pushStatus,
    draft.notifyUrl,
    draft.returnUrl,
    draft.payUrl,
    draft.payer,
    draft.requestHash,
    draft.requestSnapshot,
    answer,
    draft.failureReason,
    draft.expiresAt,
    draft.createdAt,
    draft.updatedAt,
  ];
  // Refused at creation is an end state, so it counts in the order stats (a `pending` order does not),
  // in the insert's own transaction: the caller's, or one of its own when the caller runs without (the
  // gateway's creation: a pending order is one insert that stands alone).
  const book = made?.book;
  const write = async (on: Db): Promise<PayinOrder | null> => {
    const [row] = book
      ? await deps.database.raw(on, withBooking(book.text), [...params, ...book.params], { name: true })
      : await deps.database.raw(on, insertOrderSql, params, { name: true });
    if (!row) return null;
    const order: PayinOrder = { id: Number(row[0]), ...draft, responseSnapshot: answer };
    if (order.status === 'creation_failed') await recordOrderMoves(on, [statusMove('payin', order, null)]);
    return order;
  };
  const order =
    draft.status === 'creation_failed' && tx === deps.database.db
      ? await inTransaction(tx, write)
      : await write(tx);
  // Taken: by a concurrent create of the same merchant order number that committed first (the retry
  // replays it), or, rarely, the random order number (the retry draws another).
  if (!order) throw new RetryTransaction('pay-in number taken');
  return { order, replayed: false, answer };
}

// ---- channel notifications ---------------------------------------------------------------------

export interface ChannelNotification {
  orderNo: string;
  channelId: number;
  channelOrderId?: string;
  result: 'success' | 'fail';
  utr?: string | null;
  /** What the payer paid, per the channel (default: the order's amount). */
  amount?: number;
  reason?: string;
}

export type NotificationOutcome =
  | { applied: true; order: PayinOrder }
  | { applied: false; order: PayinOrder | null; errno: number };

/**
 * A channel's word on a pay-in: `pending → paid` (with its UTR) or `pending → failed`. Anything else is
 * refused without effect and answered, not thrown, so a caller can record the channel's side anyway.
 */
export async function applyChannelResult(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  n: ChannelNotification,
): Promise<NotificationOutcome> {
  const [order] = await tx.select().from(payinOrders).where(eq(payinOrders.orderNo, n.orderNo));
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
    const [used] = await tx.select({ id: payinOrders.id }).from(payinOrders).where(eq(payinOrders.utr, utr));
    if (used && used.id !== order.id) return { applied: false, order, errno: errno.utrUsed };
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

// ---- supplements -------------------------------------------------------------------------------

/** Sets a UTR on an order; the unique index settles a race for the same UTR. */
export async function withUtrGuard<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (sqlState(err) === '23505') throw new AppError(errno.utrUsed);
    throw err;
  }
}

// ---- expiry ------------------------------------------------------------------------------------

/**
 * Turns pending orders past their expiry into `unpaid` (with the callback), in batches, each batch one
 * transaction that skips rows another worker holds. Answers how many expired.
 */
export async function expireDuePayins(deps: Deps, batch = 200, maxBatches = 50): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const n = await inTransaction(deps.database.db, async (tx) => {
      const now = deps.clock.now();
      const due = await tx
        .select({ id: payinOrders.id })
        .from(payinOrders)
        .where(and(eq(payinOrders.status, 'pending'), lte(payinOrders.expiresAt, now)))
        .orderBy(asc(payinOrders.expiresAt))
        .limit(batch)
        .for('update', { skipLocked: true });
      if (!due.length) return 0;
      const expired = await tx
        .update(payinOrders)
        .set({ status: 'unpaid', pushStatus: 'unpushed', callbackAt: null, updatedAt: now })
        .where(
          and(
            inArray(
              payinOrders.id,
              due.map((d) => d.id),
            ),
            eq(payinOrders.status, 'pending'),
            lte(payinOrders.expiresAt, now),
          ),
        )
        .returning();
      for (const order of expired) await entered(deps, tx, order, null);
      await recordOrderMoves(
        tx,
        expired.map((o) => statusMove('payin', o, 'pending')),
      );
      total += expired.length;
      return due.length;
    });
    if (n < batch) break;
  }
  return total;
}
