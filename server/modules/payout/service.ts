/**
 * Payout orders: creation with idempotency and an immediate freeze of amount plus fee, and the state
 * machine `queued → processing → success | failed`, `queued → creation_failed`, `failed → queued`
 * (retry). Every transition is a compare-and-set on the status (and on `hold_open` where a hold is
 * opened or resolved), so each hold is resolved exactly once however many notifications race.
 *
 * Ledger entries (refType `payout`, refId = the order id):
 * - `payout_freeze_<n>`:  payout_available −(amount+fee), frozen +(amount+fee)   (hold n opens)
 * - `payout_success`:     frozen −(amount+fee), payout_clearing +amount, fee_income +fee
 * - `payout_release_<n>`: frozen −(amount+fee), payout_available +(amount+fee)   (hold n released)
 */
import { createHash, randomInt } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { payoutRow } from '../../../contract/endpoints/orders.ts';
import { errno } from '../../../contract/errno.ts';
import type { gatewayPayout } from '../../../contract/gateway.ts';
import { feeOf, formatMinor } from '../../../contract/money.ts';
import { ChannelRefused } from '../../channels/adapter.ts';
import { adapterFor } from '../../channels/index.ts';
import type { Db } from '../../db/index.ts';
import { channels, merchants, payoutOrders } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { enqueueCallback } from '../../jobs/webhooks.ts';
import { type EntryLine, merchantAccount, platformAccount, post } from '../../ledger/index.ts';
import { recordOrderMoves, statusMove } from '../dashboard/stats.ts';
import { routesOf } from '../merchant/service.ts';

export type PayoutOrder = typeof payoutOrders.$inferSelect;
type Merchant = typeof merchants.$inferSelect;
export type GatewayPayout = z.output<typeof gatewayPayout>;
export type PayoutRow = z.output<typeof payoutRow>;

/** Ledger `refType` of every payout entry. */
export const payoutRefType = 'payout';

// ---------------------------------------------------------------------------------------------------
// Views

/** The order as the gateway query answers it (and as callbacks carry it). */
export function gatewayViewOf(o: PayoutOrder): GatewayPayout {
  return {
    orderNo: o.orderNo,
    merchantOrderNo: o.merchantOrderNo,
    status: o.status,
    currency: o.currency,
    amount: formatMinor(o.amount),
    fee: formatMinor(o.fee),
    utr: o.utr,
    failureReason: o.failureReason,
    createdAt: o.createdAt.toISOString(),
    completedAt: o.completedAt?.toISOString() ?? null,
  };
}

export function payoutRowOf(o: PayoutOrder, merchantCode: string, channelCode: string | null): PayoutRow {
  return {
    id: o.id,
    orderNo: o.orderNo,
    merchantOrderNo: o.merchantOrderNo,
    merchantId: o.merchantId,
    merchantCode,
    channelId: o.channelId,
    channelCode,
    channelOrderId: o.channelOrderId,
    currency: o.currency,
    amount: formatMinor(o.amount),
    fee: formatMinor(o.fee),
    status: o.status,
    pushStatus: o.pushStatus,
    accountName: o.accountName,
    accountNumber: o.accountNumber,
    ifsc: o.ifsc,
    utr: o.utr,
    source: o.source,
    failureReason: o.failureReason,
    createdAt: o.createdAt.toISOString(),
    completedAt: o.completedAt?.toISOString() ?? null,
    callbackAt: o.callbackAt?.toISOString() ?? null,
  };
}

/** Console rows for orders, with merchant and channel codes fetched in two small queries. */
export async function payoutRowsOf(tx: Db, orders: readonly PayoutOrder[]): Promise<PayoutRow[]> {
  if (!orders.length) return [];
  const merchantIds = [...new Set(orders.map((o) => o.merchantId))];
  const channelIds = [...new Set(orders.map((o) => o.channelId).filter((id): id is number => id !== null))];
  const ms = await tx
    .select({ id: merchants.id, code: merchants.code })
    .from(merchants)
    .where(inArray(merchants.id, merchantIds));
  const cs = channelIds.length
    ? await tx
        .select({ id: channels.id, code: channels.code })
        .from(channels)
        .where(inArray(channels.id, channelIds))
    : [];
  const mCode = new Map(ms.map((m) => [m.id, m.code]));
  const cCode = new Map(cs.map((c) => [c.id, c.code]));
  return orders.map((o) =>
    payoutRowOf(
      o,
      mCode.get(o.merchantId) ?? '',
      o.channelId === null ? null : (cCode.get(o.channelId) ?? null),
    ),
  );
}

export async function payoutRowById(tx: Db, id: number): Promise<PayoutRow> {
  const [o] = await tx.select().from(payoutOrders).where(eq(payoutOrders.id, id));
  if (!o) throw new AppError(errno.notFound);
  return (await payoutRowsOf(tx, [o]))[0]!;
}

// ---------------------------------------------------------------------------------------------------
// Creation

/** `PO` + yyMMddHHmmss (UTC) + 8 random digits: sortable by time, unguessable enough to not collide. */
export function newPayoutOrderNo(now: Date): string {
  const p2 = (n: number) => String(n).padStart(2, '0');
  const stamp =
    p2(now.getUTCFullYear() % 100) +
    p2(now.getUTCMonth() + 1) +
    p2(now.getUTCDate()) +
    p2(now.getUTCHours()) +
    p2(now.getUTCMinutes()) +
    p2(now.getUTCSeconds());
  return `PO${stamp}${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
}

/** What a create asks for, already validated by the contract (amount in minor units). */
export interface PayoutRequest {
  /** Empty: the system order number is used. */
  merchantOrderNo?: string;
  amount: number;
  accountName: string;
  accountNumber: string;
  ifsc: string;
  /** Gateway requests name one; console and bulk orders notify the merchant's callback URL. */
  notifyUrl?: string;
}

/** SHA-256 of the canonical request: the same merchant order number with other content is a conflict. */
export function payoutRequestHash(merchantOrderNo: string, r: PayoutRequest): string {
  const canonical = JSON.stringify([
    merchantOrderNo,
    r.amount,
    r.accountName,
    r.accountNumber,
    r.ifsc,
    r.notifyUrl ?? '',
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

export interface Created {
  order: PayoutOrder;
  /** True when the merchant order number existed with the same content: nothing was done. */
  replayed: boolean;
  /** The original gateway answer (for a replay: the answer of the first create, unchanged). */
  answer: GatewayPayout;
}

/** The merchant's limits for one payout amount, as a 422 naming `field`. */
export function checkAmountLimits(m: Merchant, amount: number, lang: Lang, field = 'amount'): void {
  if (amount < m.minAmount || amount > m.maxAmount) {
    throw new AppError(errno.invalid, {
      fields: [
        {
          path: field,
          code: 'out_of_range',
          message: t(lang, 'validation.amountLimits', {
            min: formatMinor(m.minAmount),
            max: formatMinor(m.maxAmount),
          }),
        },
      ],
    });
  }
}

async function byMerchantOrderNo(tx: Db, merchantId: number, merchantOrderNo: string) {
  const [row] = await tx
    .select()
    .from(payoutOrders)
    .where(and(eq(payoutOrders.merchantId, merchantId), eq(payoutOrders.merchantOrderNo, merchantOrderNo)));
  return row;
}

function replayOf(existing: PayoutOrder, hash: string): Created {
  if (existing.requestHash !== hash) {
    throw new AppError(errno.conflict, {
      fields: [{ path: 'merchantOrderNo', code: 'conflict', message: existing.merchantOrderNo }],
    });
  }
  const snap = existing.responseSnapshot as GatewayPayout | null;
  // jsonb keeps keys in its own order: put them back in the answer's, so a replay is byte-identical.
  const answer = snap
    ? (Object.fromEntries(
        Object.keys(gatewayViewOf(existing)).map((k) => [k, snap[k as keyof GatewayPayout] ?? null]),
      ) as GatewayPayout)
    : gatewayViewOf(existing);
  return { order: existing, replayed: true, answer };
}

/** The freeze of a hold: moves amount + fee from the payout wallet to frozen (1019 when short). */
async function freeze(deps: Pick<Deps, 'clock'>, tx: Db, o: PayoutOrder, userId: number | null) {
  const total = o.amount + o.fee;
  await post(tx, {
    kind: `payout_freeze_${o.holds}`,
    refType: payoutRefType,
    refId: o.id,
    memo: o.orderNo,
    userId,
    at: deps.clock.now(),
    lines: [
      { account: merchantAccount(o.merchantId, 'payout_available', o.currency), amount: -total },
      { account: merchantAccount(o.merchantId, 'frozen', o.currency), amount: total },
    ],
  });
}

/**
 * Creates a payout for `merchant` in the caller's transaction: checks the merchant's limits, computes
 * the fee, and freezes amount + fee at once (insufficient balance: 1019, nothing written). The merchant
 * order number is the idempotency key: the same content answers the original order and does nothing;
 * other content is a conflict (409). Concurrent duplicates meet at the unique index: the later ones wait
 * for the first to commit and then replay it.
 */
export async function createPayout(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  merchant: Merchant,
  req: PayoutRequest,
  opts: { source: PayoutOrder['source']; lang: Lang; userId?: number | null; snapshot?: unknown },
): Promise<Created> {
  if (merchant.status !== 'active') throw new AppError(errno.forbidden, null, 'merchant frozen');
  const now = deps.clock.now();
  // A replay answers the original even if the merchant's limits changed since.
  if (req.merchantOrderNo) {
    const existing = await byMerchantOrderNo(tx, merchant.id, req.merchantOrderNo);
    if (existing) return replayOf(existing, payoutRequestHash(req.merchantOrderNo, req));
  }
  checkAmountLimits(merchant, req.amount, opts.lang);
  const fee = feeOf(req.amount, merchant.payoutRatePpm, merchant.payoutFee);
  for (let attempt = 0; attempt < 5; attempt++) {
    const orderNo = newPayoutOrderNo(now);
    const merchantOrderNo = req.merchantOrderNo || orderNo;
    const hash = payoutRequestHash(merchantOrderNo, req);
    const values = {
      orderNo,
      merchantId: merchant.id,
      merchantOrderNo,
      currency: merchant.currency,
      amount: req.amount,
      fee,
      status: 'queued' as const,
      accountName: req.accountName,
      accountNumber: req.accountNumber,
      ifsc: req.ifsc,
      notifyUrl: req.notifyUrl ?? merchant.callbackUrl,
      source: opts.source,
      requestHash: hash,
      requestSnapshot: opts.snapshot ?? null,
      holds: 1,
      holdOpen: true,
      attempts: 0,
      nextAttemptAt: now,
      createdBy: opts.userId ?? null,
      createdAt: now,
      updatedAt: now,
    };
    const answer = gatewayViewOf({
      ...values,
      id: 0,
      channelId: null,
      channelOrderId: null,
      pushStatus: 'unpushed',
      utr: null,
      failureReason: null,
      responseSnapshot: null,
      completedAt: null,
      callbackAt: null,
    });
    const [order] = await tx
      .insert(payoutOrders)
      .values({ ...values, responseSnapshot: answer })
      .onConflictDoNothing()
      .returning();
    if (order) {
      await freeze(deps, tx, order, opts.userId ?? null);
      return { order, replayed: false, answer };
    }
    // Either a concurrent create with this merchant order number committed first, or (rarely) the
    // random order number was taken: replay the former, draw a new number for the latter.
    const existing = await byMerchantOrderNo(tx, merchant.id, merchantOrderNo);
    if (existing) return replayOf(existing, hash);
  }
  throw new Error('payout: could not draw a free order number');
}

// ---------------------------------------------------------------------------------------------------
// Transitions

const conflict = (note: string) => new AppError(errno.conflict, null, note);

async function refuseMissingOr409(tx: Db, orderId: number, note: string): Promise<never> {
  const [row] = await tx
    .select({ id: payoutOrders.id })
    .from(payoutOrders)
    .where(eq(payoutOrders.id, orderId));
  throw row ? conflict(note) : new AppError(errno.notFound);
}

/** Queues the outcome's callback in the caller's transaction; `round` tells a retried order's outcomes apart. */
async function notify(deps: Pick<Deps, 'clock'>, tx: Db, o: PayoutOrder) {
  const type = o.status === 'success' ? 'payout.success' : 'payout.failed';
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

/** Releases the open hold of an order that just left `queued`/`processing` without paying. */
async function release(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  o: PayoutOrder,
  memo: string,
  userId: number | null,
) {
  const total = o.amount + o.fee;
  await post(tx, {
    kind: `payout_release_${o.holds}`,
    refType: payoutRefType,
    refId: o.id,
    memo,
    userId,
    at: deps.clock.now(),
    lines: [
      { account: merchantAccount(o.merchantId, 'frozen', o.currency), amount: -total },
      { account: merchantAccount(o.merchantId, 'payout_available', o.currency), amount: total },
    ],
  });
}

/** Spends the open hold of an order that just succeeded: the amount leaves, the fee is the platform's. */
async function spend(deps: Pick<Deps, 'clock'>, tx: Db, o: PayoutOrder, memo: string, userId: number | null) {
  const lines: EntryLine[] = [
    { account: merchantAccount(o.merchantId, 'frozen', o.currency), amount: -(o.amount + o.fee) },
    { account: platformAccount('payout_clearing', o.currency), amount: o.amount },
  ];
  if (o.fee > 0) lines.push({ account: platformAccount('fee_income', o.currency), amount: o.fee });
  await post(tx, {
    kind: 'payout_success',
    refType: payoutRefType,
    refId: o.id,
    memo,
    userId,
    at: deps.clock.now(),
    lines,
  });
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

/**
 * `processing → success | failed`: resolves the open hold exactly once (spent or released) and queues
 * the callback, all in the caller's transaction. Anything but a processing order with its hold open is
 * a conflict (409): a duplicate or late notification changes nothing.
 */
export async function completePayout(deps: Pick<Deps, 'clock'>, tx: Db, c: Completion): Promise<PayoutOrder> {
  const now = deps.clock.now();
  const success = c.result === 'success';
  const [o] = await tx
    .update(payoutOrders)
    .set({
      status: success ? 'success' : 'failed',
      holdOpen: false,
      utr: success ? (c.utr ?? null) : null,
      failureReason: success ? null : c.reason || 'Failed at the channel',
      completedAt: now,
      updatedAt: now,
      pushStatus: 'unpushed',
      nextAttemptAt: null,
    })
    .where(
      and(
        eq(payoutOrders.id, c.orderId),
        eq(payoutOrders.status, 'processing'),
        eq(payoutOrders.holdOpen, true),
      ),
    )
    .returning();
  if (!o) return refuseMissingOr409(tx, c.orderId, `complete ${c.result}: not processing`);
  const memo = [c.by, c.reason].filter(Boolean).join(': ');
  if (success) await spend(deps, tx, o, memo, c.userId ?? null);
  else await release(deps, tx, o, memo, c.userId ?? null);
  await notify(deps, tx, o);
  await recordOrderMoves(tx, [statusMove('payout', o, 'processing')]);
  return o;
}

/** `queued → creation_failed`: no channel took the order; its hold is released and the merchant told. */
export async function failCreation(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  orderId: number,
  reason: string,
): Promise<PayoutOrder> {
  const now = deps.clock.now();
  const [o] = await tx
    .update(payoutOrders)
    .set({
      status: 'creation_failed',
      holdOpen: false,
      failureReason: reason,
      completedAt: now,
      updatedAt: now,
      nextAttemptAt: null,
      pushStatus: 'unpushed',
    })
    .where(
      and(eq(payoutOrders.id, orderId), eq(payoutOrders.status, 'queued'), eq(payoutOrders.holdOpen, true)),
    )
    .returning();
  if (!o) return refuseMissingOr409(tx, orderId, 'creation failed: not queued');
  await release(deps, tx, o, `creation_failed: ${reason}`, null);
  await notify(deps, tx, o);
  await recordOrderMoves(tx, [statusMove('payout', o, 'queued')]);
  return o;
}

/** `failed → queued`: a new hold is frozen (1019 when the balance no longer covers it). */
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
      status: 'queued',
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
    .where(
      and(eq(payoutOrders.id, orderId), eq(payoutOrders.status, 'failed'), eq(payoutOrders.holdOpen, false)),
    )
    .returning();
  if (!o) return refuseMissingOr409(tx, orderId, 'retry: not failed');
  await freeze(deps, tx, o, userId);
  // Back under way: it leaves the finished orders of its day (counted live again while queued).
  await recordOrderMoves(tx, [
    { kind: 'payout', before: { ...o, channelId: failed!.channelId, status: failed!.status }, after: o },
  ]);
  return o;
}

/** Channels that may carry this payout, in a weighted random order (weight 0 never). */
export async function payoutCandidates(tx: Db, o: PayoutOrder) {
  const routes = (await routesOf(tx, o.merchantId)).filter(
    (r) =>
      r.channel.supportsPayout &&
      r.weight > 0 &&
      r.channel.weight > 0 &&
      o.amount >= r.channel.minAmount &&
      o.amount <= r.channel.maxAmount,
  );
  const ordered: typeof routes = [];
  const pool = [...routes];
  while (pool.length) {
    const total = pool.reduce((s, r) => s + r.weight, 0);
    let pick = Math.random() * total;
    let i = 0;
    for (; i < pool.length - 1; i++) {
      pick -= pool[i]!.weight;
      if (pick < 0) break;
    }
    ordered.push(pool.splice(i, 1)[0]!);
  }
  return ordered;
}

/**
 * `queued → processing`: hands the order to the first channel (weighted) that accepts it; when every
 * channel refuses, or none can carry it, `queued → creation_failed` with the hold released. Other
 * adapter errors propagate (the worker schedules another attempt).
 */
export async function submitPayout(deps: Deps, tx: Db, orderId: number): Promise<PayoutOrder> {
  const [o] = await tx.select().from(payoutOrders).where(eq(payoutOrders.id, orderId)).for('update');
  if (!o) throw new AppError(errno.notFound);
  if (o.status !== 'queued') throw conflict('submit: not queued');
  const candidates = await payoutCandidates(tx, o);
  for (const { channel } of candidates) {
    let channelOrderId: string;
    try {
      ({ channelOrderId } = await adapterFor(channel.adapter).createPayout(
        { deps, tx, channel },
        {
          orderNo: o.orderNo,
          amount: o.amount,
          currency: o.currency,
          accountName: o.accountName,
          accountNumber: o.accountNumber,
          ifsc: o.ifsc,
        },
      ));
    } catch (err) {
      if (err instanceof ChannelRefused) continue;
      throw err;
    }
    const now = deps.clock.now();
    const [moved] = await tx
      .update(payoutOrders)
      .set({
        status: 'processing',
        channelId: channel.id,
        channelOrderId,
        attempts: sql`${payoutOrders.attempts} + 1`,
        nextAttemptAt: null,
        updatedAt: now,
      })
      .where(and(eq(payoutOrders.id, o.id), eq(payoutOrders.status, 'queued')))
      .returning();
    if (!moved) throw conflict('submit: not queued');
    return moved;
  }
  return failCreation(
    deps,
    tx,
    o.id,
    candidates.length ? 'Every channel declined the payout' : 'No channel can carry this payout',
  );
}
