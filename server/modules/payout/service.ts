/**
 * Payout orders: creation with idempotency and an immediate freeze of amount plus fee, and the actions
 * of the `payout` state machine (declared in contract/machines.ts: its states, and where each action may
 * start and leads). Every transition is a compare-and-set on the states its action starts from (and on
 * `hold_open` where a hold is opened or resolved), so each hold is resolved exactly once however many
 * notifications race. A payout is handed to a channel outside any transaction of ours (see Submission).
 *
 * Ledger entries (refType `payout`, refId = the order id):
 * - `payout_freeze_<n>`:  payout_available −(amount+fee), frozen +(amount+fee)   (hold n opens)
 * - `payout_success`:     frozen −(amount+fee), payout_clearing +amount, fee_income +fee
 * - `payout_release_<n>`: frozen −(amount+fee), payout_available +(amount+fee)   (hold n released)
 */
import { createHash, randomInt } from 'node:crypto';
import { and, eq, inArray, lte, type SQL, sql } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { payoutRow } from '../../../contract/endpoints/orders.ts';
import { errno } from '../../../contract/errno.ts';
import type { gatewayPayout } from '../../../contract/gateway.ts';
import { heldKind } from '../../../contract/ledgerKinds.ts';
import { type PayoutAction, payout } from '../../../contract/machines.ts';
import { feeOf, formatMinor } from '../../../contract/money.ts';
import { normalUtr } from '../../../contract/schemas.ts';
import { type Channel, type ChannelPayoutState, ChannelRefused } from '../../channels/adapter.ts';
import { adapterFor, adapters } from '../../channels/index.ts';
import { type Db, inTransaction } from '../../db/index.ts';
import { channels, merchants, type PayoutStatus, payoutOrderKeys, payoutOrders } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { enqueueCallback } from '../../jobs/webhooks.ts';
import { type Entry, type EntryLine, merchantAccount, platformAccount, post } from '../../ledger/index.ts';
import { errorForLog } from '../../lib/logger.ts';
import { cancelPendingApproval } from '../approval/service.ts';
import { recordOrderMoves, statusMove } from '../dashboard/stats.ts';
import { routesOf } from '../merchant/service.ts';
import { archivedNumber, byKeyRow } from '../orders/keys.ts';
import { payoutOrderRow } from '../orders/kinds.ts';

export type PayoutOrder = typeof payoutOrders.$inferSelect;
type Merchant = typeof merchants.$inferSelect;
export type GatewayPayout = z.output<typeof gatewayPayout>;
export type PayoutRow = z.output<typeof payoutRow>;

/** Ledger `refType` of every payout entry. */
export const payoutRefType = 'payout';

// ---------------------------------------------------------------------------------------------------
// Views

/**
 * The status a merchant sees: a payout being handed to its channel, or whose hand-over is being looked
 * into, is `processing` to it (GATEWAY.md keeps one status set; those are our internal steps).
 */
export function merchantStatusOf(status: PayoutStatus): GatewayPayout['status'] {
  return payout.is('shownAsProcessing', status) ? payout.state.processing : status;
}

/**
 * What a merchant is told of why a payout failed: a note on a hand-over under way or under review is the
 * operators' (channel codes, adapter errors), not a failure the merchant should act on.
 */
export function merchantFailureReason(o: Pick<PayoutOrder, 'status' | 'failureReason'>): string | null {
  return payout.is('shownAsProcessing', o.status) ? null : o.failureReason;
}

/** The order as the gateway query answers it (and as callbacks carry it). */
export function gatewayViewOf(o: PayoutOrder): GatewayPayout {
  const status = merchantStatusOf(o.status);
  return {
    orderNo: o.orderNo,
    merchantOrderNo: o.merchantOrderNo,
    status,
    currency: o.currency,
    amount: formatMinor(o.amount),
    fee: formatMinor(o.fee),
    utr: o.utr,
    failureReason: merchantFailureReason(o),
    createdAt: o.createdAt.toISOString(),
    completedAt: o.completedAt?.toISOString() ?? null,
  };
}

/**
 * Console rows for orders, with merchant and channel codes fetched in two small queries; a merchant
 * `viewer` is told the failure reason a merchant is told (`merchantFailureReason`).
 */
export async function payoutRowsOf(
  tx: Db,
  orders: readonly PayoutOrder[],
  viewer: 'platform' | 'merchant' = 'platform',
): Promise<PayoutRow[]> {
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
    payoutOrderRow.view(
      viewer === 'merchant' ? { ...o, failureReason: merchantFailureReason(o) } : o,
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

/** The order of a merchant order number, through its key row (its id and time pick the partition). */
async function byMerchantOrderNo(tx: Db, merchantId: number, merchantOrderNo: string) {
  const [row] = await tx
    .select()
    .from(payoutOrders)
    .where(
      byKeyRow(
        payoutOrders,
        payoutOrderKeys,
        and(eq(payoutOrderKeys.merchantId, merchantId), eq(payoutOrderKeys.merchantOrderNo, merchantOrderNo)),
      ),
    );
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

/**
 * The journal entry of a step of the order's open hold (the header lists them): the freeze moves amount +
 * fee from the payout wallet to frozen, the release moves it back, the spend sends the amount out and
 * gives the fee to the platform. The demo seed posts the same entries in bulk.
 */
export function holdEntry(
  o: Pick<PayoutOrder, 'id' | 'merchantId' | 'currency' | 'amount' | 'fee' | 'holds'>,
  step: 'freeze' | 'release' | 'spend',
  memo: string,
  userId: number | null,
  at: Date,
): Entry {
  const total = o.amount + o.fee;
  const available = merchantAccount(o.merchantId, 'payout_available', o.currency);
  const frozen = merchantAccount(o.merchantId, 'frozen', o.currency);
  const lines: EntryLine[] =
    step === 'freeze'
      ? [
          { account: available, amount: -total },
          { account: frozen, amount: total },
        ]
      : step === 'release'
        ? [
            { account: frozen, amount: -total },
            { account: available, amount: total },
          ]
        : [
            { account: frozen, amount: -total },
            { account: platformAccount('payout_clearing', o.currency), amount: o.amount },
            ...(o.fee > 0 ? [{ account: platformAccount('fee_income', o.currency), amount: o.fee }] : []),
          ];
  const kind = step === 'spend' ? 'payout_success' : heldKind(`payout_${step}`, o.holds);
  return { kind, refType: payoutRefType, refId: o.id, memo, userId, at, lines };
}

/** The freeze of a hold: moves amount + fee from the payout wallet to frozen (1019 when short). */
async function freeze(deps: Pick<Deps, 'clock'>, tx: Db, o: PayoutOrder, userId: number | null) {
  await post(tx, holdEntry(o, 'freeze', o.orderNo, userId, deps.clock.now()));
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
      status: payout.initial,
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
    // The numbers are claimed first in their key table (unique across the monthly partitions, migration
    // 0020), with the id the order then takes: nothing is written when either is taken.
    const [claimed] = await tx
      .insert(payoutOrderKeys)
      .values({
        id: sql`nextval('payout_orders_id_seq')`,
        createdAt: now,
        orderNo,
        merchantId: merchant.id,
        merchantOrderNo,
      })
      .onConflictDoNothing()
      .returning({ id: payoutOrderKeys.id });
    if (claimed) {
      const [order] = await tx
        .insert(payoutOrders)
        .values({ ...values, id: claimed.id, responseSnapshot: answer })
        .returning();
      if (!order) throw new Error('payout: insert returned nothing');
      await freeze(deps, tx, order, opts.userId ?? null);
      return { order, replayed: false, answer };
    }
    // Either a concurrent create with this merchant order number committed first, or (rarely) the
    // random order number was taken: replay the former, draw a new number for the latter.
    const existing = await byMerchantOrderNo(tx, merchant.id, merchantOrderNo);
    if (existing) return replayOf(existing, hash);
    if (await archivedNumber(tx, payoutOrderKeys, payoutOrders, merchant.id, merchantOrderNo)) {
      throw new AppError(errno.conflict, {
        fields: [{ path: 'merchantOrderNo', code: 'conflict', message: merchantOrderNo }],
      });
    }
  }
  throw new Error('payout: could not draw a free order number');
}

// ---------------------------------------------------------------------------------------------------
// Transitions: each names its action of the declaration (contract/machines.ts), which gives the states
// its compare-and-set starts from and the state it writes.

const conflict = (note: string) => new AppError(errno.conflict, null, note);

/** The order is in a state `action` may start from: the compare of the action's compare-and-set. */
const startsFrom = (action: PayoutAction) => inStates(payoutOrders.status, payout.from(action));

/** The state `action` leads to (every transition run here has one). */
const into = (action: PayoutAction): PayoutStatus => payout.to(action)!;

async function refuseMissingOr409(tx: Db, orderId: number, note: string): Promise<never> {
  const [row] = await tx
    .select({ id: payoutOrders.id })
    .from(payoutOrders)
    .where(eq(payoutOrders.id, orderId));
  throw row ? conflict(note) : new AppError(errno.notFound);
}

/** Queues the outcome's callback in the caller's transaction; `round` tells a retried order's outcomes apart. */
async function notify(deps: Pick<Deps, 'clock'>, tx: Db, o: PayoutOrder) {
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
      and(eq(payoutOrders.id, c.orderId), eq(payoutOrders.status, from), eq(payoutOrders.holdOpen, true)),
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
async function failCreationWhere(
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
        eq(payoutOrders.status, from),
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
    .where(and(eq(payoutOrders.id, orderId), startsFrom('retry'), eq(payoutOrders.holdOpen, false)))
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

// ---------------------------------------------------------------------------------------------------
// Submission: claim, call the channel, record the outcome
//
// A channel may book a payout and then fail to answer, and a process may die between the channel's
// answer and our commit. So the hand-over is three steps, none of which holds a transaction across the
// call: the claim (`queued → submitting`, committed), the call (outside any transaction, with the
// order's idempotency key), and the outcome (a compare-and-set from `submitting` on the claim). An
// unclear outcome is asked of the channel; what the channel cannot answer is left to a person
// (`needs_review`) with the hold open. A claim whose worker vanished is taken over after a lease.

/** How long a claim is left to its worker before another asks the channel what became of the payout. */
export const submitLeaseMs = 2 * 60_000;

/** After this many sends the channel definitively never received, the order gives up (creation_failed). */
export const maxSubmitAttempts = 8;

/** Seconds before the next send after `attempts` sends the channel never received: 5 s doubling, at most 10 minutes. */
export const submitBackoffSeconds = (attempts: number) => Math.min(5 * 2 ** Math.max(0, attempts - 1), 600);

/**
 * The key a channel books the payout once by: the order number, and after a retry (a new hold, sent
 * again on purpose after a definitive failure) the order number with the hold's number.
 */
export function payoutIdempotencyKey(o: Pick<PayoutOrder, 'orderNo' | 'holds'>): string {
  return o.holds > 1 ? `${o.orderNo}-${o.holds}` : o.orderNo;
}

/** The state of a claimed order (`submitting`): a worker is handing it to a channel. */
export const claimed = into('claim');

/** A worker's hold on a claimed order: the order as claimed, and the channel it is sent to. */
interface Claim {
  order: PayoutOrder;
  channel: Channel;
}

/** The claim is still the order's: same step, same channel, same attempt. */
const stillClaimed = (c: Claim): SQL =>
  and(
    eq(payoutOrders.id, c.order.id),
    inStates(payoutOrders.status, [claimed]),
    eq(payoutOrders.channelId, c.channel.id),
    eq(payoutOrders.attempts, c.order.attempts),
  )!;

async function orderById(db: Db, orderId: number): Promise<PayoutOrder> {
  const [o] = await db.select().from(payoutOrders).where(eq(payoutOrders.id, orderId));
  if (!o) throw new AppError(errno.notFound);
  return o;
}

/**
 * The claim on `channel`: `claim` (`queued → submitting`, a new attempt), or, after `previous` was
 * refused, the same claim moved to the next channel. Null when another worker got there first.
 */
async function claim(
  deps: Pick<Deps, 'clock' | 'database'>,
  o: PayoutOrder,
  channel: Channel,
  previous: Claim | null,
): Promise<Claim | null> {
  const now = deps.clock.now();
  const [order] = await inTransaction(deps.database.db, (tx) =>
    tx
      .update(payoutOrders)
      .set({
        status: claimed,
        channelId: channel.id,
        attempts: previous ? previous.order.attempts : sql`${payoutOrders.attempts} + 1`,
        nextAttemptAt: null,
        updatedAt: now,
      })
      .where(previous ? stillClaimed(previous) : and(eq(payoutOrders.id, o.id), startsFrom('claim')))
      .returning(),
  );
  return order ? { order, channel } : null;
}

/** The order the outcome could not be recorded on any more: another worker resolved the claim. */
const lostClaim = (deps: Pick<Deps, 'database'>, c: Claim) => orderById(deps.database.db, c.order.id);

/** `accepted` (`submitting → processing`), then completed at once when the channel already reports the end. */
async function recordAccepted(
  deps: Deps,
  c: Claim,
  found: {
    channelOrderId: string;
    status?: 'pending' | 'success' | 'failed';
    utr?: string | null;
    reason?: string | null;
  },
): Promise<PayoutOrder> {
  const now = deps.clock.now();
  const done = await inTransaction(deps.database.db, async (tx) => {
    const [moved] = await tx
      .update(payoutOrders)
      .set({
        status: into('accepted'),
        channelOrderId: found.channelOrderId,
        failureReason: null,
        updatedAt: now,
      })
      .where(and(stillClaimed(c), startsFrom('accepted')))
      .returning();
    if (!moved || !found.status || found.status === 'pending') return moved ?? null;
    return completePayout(deps, tx, {
      orderId: moved.id,
      result: found.status === 'success' ? 'success' : 'fail',
      utr: found.utr ?? null,
      reason: found.reason ?? null,
      by: 'channel',
    });
  });
  return done ?? lostClaim(deps, c);
}

/**
 * An unclear outcome (the call failed after it may have reached the channel, or the worker vanished):
 * the channel is asked. Found: recorded as it says. Definitively never received: back to `queued` for
 * another send (the same idempotency key, so a late booking is answered, not doubled), or after the
 * last attempt `creation_failed` with the hold released. Anything else: `needs_review`, hold open.
 */
async function resolveUnclear(deps: Deps, c: Claim, cause: unknown): Promise<PayoutOrder> {
  const key = payoutIdempotencyKey(c.order);
  let state: ChannelPayoutState | null = null;
  try {
    state = await adapterFor(c.channel.adapter).queryPayout({ deps, channel: c.channel }, key);
  } catch (err) {
    deps.logger.warn(
      { payout: c.order.orderNo, channel: c.channel.code, err: errorForLog(err) },
      'payout query failed',
    );
  }
  if (state?.found) return recordAccepted(deps, c, state);
  const now = deps.clock.now();
  const db = deps.database.db;
  if (state?.definitive) {
    const done = await inTransaction(db, async (tx) => {
      if (c.order.attempts >= maxSubmitAttempts)
        return failCreationWhere(deps, tx, stillClaimed(c), claimed, 'The channel could not be reached');
      const [queued] = await tx
        .update(payoutOrders)
        .set({
          // The channel stays: the next send goes there first (see submitPayout).
          status: into('requeue'),
          nextAttemptAt: new Date(now.getTime() + submitBackoffSeconds(c.order.attempts) * 1000),
          updatedAt: now,
        })
        .where(and(stillClaimed(c), startsFrom('requeue')))
        .returning();
      return queued ?? null;
    });
    return done ?? lostClaim(deps, c);
  }
  const note = `Unclear outcome at ${c.channel.code}: ${messageOf(cause)}; ${
    state ? 'the channel cannot tell whether it received it' : 'the channel could not be asked'
  }`.slice(0, 500);
  const [review] = await inTransaction(db, (tx) =>
    tx
      .update(payoutOrders)
      .set({ status: into('unclear'), failureReason: note, updatedAt: now })
      .where(and(stillClaimed(c), startsFrom('unclear')))
      .returning(),
  );
  if (!review) return lostClaim(deps, c);
  deps.logger.warn({ payout: c.order.orderNo, channel: c.channel.code, note }, 'payout needs review');
  return review;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Hands a queued order to the first channel (weighted) that accepts it, claim by claim: accepted →
 * `processing`; refused → the next channel, and when every channel refused (or none can carry it)
 * `creation_failed` with the hold released; anything unclear → see `resolveUnclear`. Runs its own
 * short transactions on `deps.database.db` and calls the channel between them: never call it inside a
 * transaction. 409 when the order is not queued (another worker claimed it).
 */
export async function submitPayout(deps: Deps, orderId: number): Promise<PayoutOrder> {
  const db = deps.database.db;
  const o = await orderById(db, orderId);
  if (!payout.can('claim', o.status)) throw conflict(`claim: not from ${o.status}`);
  const candidates = await payoutCandidates(deps, db, o);
  // Sent before to a channel that said it never received it: that channel first, so that a late
  // arrival of the first send meets the same idempotency key there instead of a second payout elsewhere.
  const before = candidates.findIndex((r) => r.channel.id === o.channelId);
  if (before > 0) candidates.unshift(...candidates.splice(before, 1));
  let held: Claim | null = null;
  for (const { channel } of candidates) {
    const adapter = adapters[channel.adapter];
    if (!adapter) {
      // Nothing can be sent through it: as good as a refusal.
      deps.logger.error({ channel: channel.code, adapter: channel.adapter }, 'no channel adapter');
      continue;
    }
    const next = await claim(deps, o, channel, held);
    if (!next) {
      if (!held) throw conflict('submit: claimed by another worker');
      return lostClaim(deps, held);
    }
    held = next;
    let channelOrderId: string;
    try {
      ({ channelOrderId } = await adapter.createPayout(
        { deps, channel },
        {
          idempotencyKey: payoutIdempotencyKey(held.order),
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
      deps.logger.warn(
        { payout: o.orderNo, channel: channel.code, err: errorForLog(err) },
        'payout submission unclear',
      );
      return resolveUnclear(deps, held, err);
    }
    return recordAccepted(deps, held, { channelOrderId });
  }
  const reason = candidates.length ? 'Every channel declined the payout' : 'No channel can carry this payout';
  const where = held ? stillClaimed(held) : eq(payoutOrders.id, o.id);
  const failed = await inTransaction(db, (tx) =>
    failCreationWhere(deps, tx, where, held ? claimed : o.status, reason),
  );
  if (failed) return failed;
  if (held) return lostClaim(deps, held);
  return refuseMissingOr409(db, o.id, `creationFailed: not from ${o.status} any more`);
}

/**
 * Takes over a claim whose worker is gone (the lease is over) and asks the channel what became of the
 * payout; never sends it again blindly. Null when the claim is not stale any more (resolved, or taken
 * over by another worker).
 */
export async function recoverSubmission(deps: Deps, orderId: number): Promise<PayoutOrder | null> {
  const now = deps.clock.now();
  const db = deps.database.db;
  const [taken] = await inTransaction(db, (tx) =>
    tx
      .update(payoutOrders)
      .set({ updatedAt: now })
      .where(
        and(
          eq(payoutOrders.id, orderId),
          inStates(payoutOrders.status, [claimed]),
          lte(payoutOrders.updatedAt, new Date(now.getTime() - submitLeaseMs)),
        ),
      )
      .returning(),
  );
  if (!taken) return null;
  const [channel] = taken.channelId
    ? await db.select().from(channels).where(eq(channels.id, taken.channelId))
    : [];
  if (!channel) throw new Error(`payout ${taken.orderNo}: submitting without a channel`);
  return resolveUnclear(deps, { order: taken, channel }, new Error('the submission was interrupted'));
}
