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
import { ChannelRefused } from '../../channels/adapter.ts';
import { adapterFor } from '../../channels/index.ts';
import { type Db, inTransaction, sqlState } from '../../db/index.ts';
import { agents, merchants, type PayinStatus, parameters, payinOrders } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { enqueueCallback } from '../../jobs/webhooks.ts';
import { agentAccount, type EntryLine, merchantAccount, platformAccount, post } from '../../ledger/index.ts';
import { candidateRoutes, weightedOrder } from './routing.ts';
import { type GatewayPayin, gatewayView, type PayinOrder, storedGatewayView } from './views.ts';

type Merchant = typeof merchants.$inferSelect;

// ---- parameters --------------------------------------------------------------------------------

/** A parameter's value when it is a positive integer, else the fallback. */
export const positiveInt = (v: unknown, fallback: number): number =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : fallback;

/** A whole-number platform parameter, or the fallback when it is missing or not a positive integer. */
export async function intParameter(db: Db, key: string, fallback: number): Promise<number> {
  const [row] = await db.select().from(parameters).where(eq(parameters.key, key));
  return positiveInt(row?.value, fallback);
}

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
  return order;
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

const fieldError = (lang: Lang, path: string, key: string, params?: Record<string, unknown>) =>
  new AppError(errno.invalid, { fields: [{ path, code: 'custom', message: t(lang, key, params) }] });

/**
 * Creates a pay-in, or answers the original of a repeated create. Runs inside the caller's transaction:
 * the order is inserted as `creating` (ON CONFLICT DO NOTHING, so concurrent duplicates wait for the
 * first and then replay it), the channels are tried in weighted order, and the order leaves `creating`
 * before the transaction commits, so no one ever sees it there.
 */
export async function createPayin(
  deps: Deps,
  tx: Db,
  merchant: Merchant,
  req: PayinRequest,
  meta: { source: 'api' | 'console'; ip: string; lang: Lang; userId?: number | null },
): Promise<CreateResult> {
  const hash = requestHash(req);
  // A repeat is answered before anything else is judged (limits may have changed since the original);
  // the happy path finds out by its insert instead of asking first.
  const unlessRepeat = async (refusal: AppError): Promise<CreateResult> => {
    const existing = await byMerchantOrderNo(tx, merchant.id, req.merchantOrderNo);
    if (existing) return replayOf(existing, hash);
    throw refusal;
  };
  if (req.amount < merchant.minAmount || req.amount > merchant.maxAmount) {
    return unlessRepeat(
      fieldError(meta.lang, 'amount', 'validation.amountLimits', {
        min: formatMinor(merchant.minAmount),
        max: formatMinor(merchant.maxAmount),
      }),
    );
  }
  const { routes, expiryParameter } = await candidateRoutes(tx, merchant.id, req.amount, req.channel);
  if (!routes.length)
    return unlessRepeat(new AppError(errno.noChannel, null, `no channel for ${req.amount}`));

  const now = deps.clock.now();
  const minutes = positiveInt(expiryParameter, defaultExpiryMinutes);
  const expiresAt = new Date(now.getTime() + minutes * 60_000);
  const fee = Math.min(feeOf(req.amount, merchant.collectionRatePpm, merchant.platformFee), req.amount);
  let commission = 0;
  if (merchant.agentId !== null) {
    const [agent] = await tx.select().from(agents).where(eq(agents.id, merchant.agentId));
    if (agent?.status === 'active') commission = Math.min(feeOf(req.amount, agent.commissionPpm), fee);
  }

  let order: PayinOrder | undefined;
  while (!order) {
    const inserted = await tx
      .insert(payinOrders)
      .values({
        orderNo: newOrderNo(now),
        merchantId: merchant.id,
        merchantOrderNo: req.merchantOrderNo,
        currency: merchant.currency,
        amount: req.amount,
        fee,
        agentCommission: commission,
        status: 'creating',
        notifyUrl: req.notifyUrl,
        returnUrl: req.returnUrl ?? null,
        payer: req.payer ?? null,
        requestHash: hash,
        requestSnapshot: {
          source: meta.source,
          ip: meta.ip,
          userId: meta.userId ?? null,
          request: { ...req, amount: formatMinor(req.amount) },
        },
        expiresAt,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    order = inserted[0];
    if (!order) {
      // Either a concurrent create of the same merchant order number committed first, or (rarely) the
      // random order number was taken: replay the former, draw another number for the latter.
      const raced = await byMerchantOrderNo(tx, merchant.id, req.merchantOrderNo);
      if (raced) return replayOf(raced, hash);
    }
  }

  const refusals: string[] = [];
  for (const route of weightedOrder(routes)) {
    let made: { channelOrderId: string; payUrl: string };
    try {
      made = await adapterFor(route.channel.adapter).createPayin(
        { deps, tx, channel: route.channel },
        { orderNo: order.orderNo, amount: order.amount, currency: order.currency, expiresAt },
      );
    } catch (err) {
      if (!(err instanceof ChannelRefused)) throw err;
      refusals.push(`${route.channel.code}: ${err.message}`);
      continue;
    }
    const payUrl = made.payUrl.startsWith('/') ? `${publicUrl(deps)}${made.payUrl}` : made.payUrl;
    return finishCreation(tx, order, 'pending', {
      channelId: route.channel.id,
      channelOrderId: made.channelOrderId,
      payUrl,
    });
  }
  return finishCreation(tx, order, 'creation_failed', { failureReason: refusals.join('; ').slice(0, 500) });
}

async function finishCreation(
  tx: Db,
  order: PayinOrder,
  status: 'pending' | 'creation_failed',
  set: OrderSet,
): Promise<CreateResult> {
  const draft = { ...order, ...set, status } as PayinOrder;
  const answer = gatewayView(draft);
  const [done] = await tx
    .update(payinOrders)
    .set({ ...set, status, responseSnapshot: answer })
    .where(and(eq(payinOrders.id, order.id), eq(payinOrders.status, 'creating')))
    .returning({ id: payinOrders.id });
  if (!done) throw new Error(`pay-in ${order.id} left creating under our hands`);
  // The row is the draft as written: nothing else changes it inside this transaction.
  return { order: { ...draft, responseSnapshot: answer }, replayed: false, answer };
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
    if (!n.utr) return { applied: false, order, errno: errno.invalid };
    const [used] = await tx
      .select({ id: payinOrders.id })
      .from(payinOrders)
      .where(eq(payinOrders.utr, n.utr));
    if (used && used.id !== order.id) return { applied: false, order, errno: errno.utrUsed };
    moved = await transition(deps, tx, order.id, 'channelPaid', {
      paidAmount: n.amount ?? order.amount,
      utr: n.utr,
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
      total += expired.length;
      return due.length;
    });
    if (n < batch) break;
  }
  return total;
}
