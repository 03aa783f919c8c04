/**
 * Creating a pay-in: idempotent on the merchant order number, routed among the merchant's channels in
 * weighted order, and written once as the channel left it (`creating` ends in the declared `created` or
 * `creationFailed` within the one insert).
 */
import { createHash, randomInt } from 'node:crypto';
import { getTableColumns } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { payin } from '../../../contract/machines.ts';
import { feeOf, formatMinor } from '../../../contract/money.ts';
import { parameterDefs } from '../../../contract/parameters.ts';
import { type Channel, ChannelRefused } from '../../channels/adapter.ts';
import { bankAdapterName } from '../../channels/bank.ts';
import { adapterFor } from '../../channels/index.ts';
import { type Db, inTransaction, RetryTransaction } from '../../db/index.ts';
import { type merchants, payinOrderKeys, payinOrders } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { parameterOf } from '../../lib/parameters.ts';
import { recordOrderMoves, statusMove } from '../dashboard/stats.ts';
import { archivedNumber, byMerchantNumber } from '../orders/keys.ts';
import { checkCreation, payerKeyOf } from '../risk/rules.ts';
import { creationTerms, routesFor, weightedOrder } from './routing.ts';
import { destination } from './state.ts';
import { type GatewayPayin, gatewayView, type PayinOrder, storedGatewayView } from './views.ts';

type Merchant = typeof merchants.$inferSelect;

// ---- parameters --------------------------------------------------------------------------------

/** Minutes a payer has to pay before the order turns `unpaid` (parameter `payin_expiry_minutes`). */
export const defaultExpiryMinutes = parameterDefs.payin_expiry_minutes.default;

/** Where payers reach this server: PUBLIC_URL, else the listening address. */
export function publicUrl(deps: Pick<Deps, 'config'>): string {
  const base = process.env.PUBLIC_URL || `http://${deps.config.host}:${deps.config.port}`;
  return base.replace(/\/+$/, '');
}

// ---- creation ----------------------------------------------------------------------------------

export interface PayinRequest {
  merchantOrderNo: string;
  amount: number;
  notifyUrl: string;
  returnUrl?: string | undefined;
  payer?:
    | {
        name?: string | undefined;
        email?: string | undefined;
        phone?: string | undefined;
        vpa?: string | undefined;
      }
    | undefined;
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

/**
 * The order of a merchant order number, through its key row (`payin_order_keys`), whose id and creation
 * time pick the one partition to read.
 */
async function byMerchantOrderNo(tx: Db, merchantId: number, merchantOrderNo: string) {
  const [row] = await tx
    .select()
    .from(payinOrders)
    .where(byMerchantNumber(payinOrders, payinOrderKeys, merchantId, merchantOrderNo));
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

/**
 * The columns a creation writes: every column of the table but the id, as the schema declares them (the
 * draft, a whole order, holds a value for each), in the order of `insertOrderSql`'s parameters.
 */
const insertColumns = Object.entries(getTableColumns(payinOrders)).filter(([key]) => key !== 'id') as [
  keyof Omit<PayinOrder, 'id'>,
  { name: string },
][];
const paramOf = (column: string) => `$${insertColumns.findIndex(([, c]) => c.name === column) + 1}`;
/**
 * The order's numbers claimed in `payin_order_keys` (their unique home across the monthly partitions,
 * migration 0020) with the order's id drawn here: nothing when either number is taken, as `on conflict do
 * nothing` on the orders table was before it was partitioned.
 */
const claimSql = `k as (insert into payin_order_keys (id, created_at, order_no, merchant_id, merchant_order_no)
  values (nextval('payin_orders_id_seq'), ${['created_at', 'order_no', 'merchant_id', 'merchant_order_no'].map(paramOf).join(', ')})
  on conflict do nothing returning id)`;
/** The order as the channel left it, inserted only when its numbers were claimed (`k`). */
const insertBodySql = `insert into payin_orders (id, ${insertColumns.map(([, c]) => c.name).join(', ')})
  select k.id, ${insertColumns.map((_, i) => `$${i + 1}`).join(', ')} from k returning id`;
/** The order as the channel left it, in one statement; nothing when either unique number is taken. */
const insertOrderSql = `with ${claimSql} ${insertBodySql}`;

/**
 * The order's insert with a channel's booking (`book`, its own parameters numbered from $1) in the same
 * statement. The booking runs whether or not the order goes in: a loser of a concurrent duplicate leaves
 * its channel order unused, as at any channel.
 */
const withBooking = (booking: string) =>
  `with ${claimSql}, o as (${insertBodySql}), b as (${booking.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + insertColumns.length}`)})
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
    /** The risk rules were met already (a bank channel's retry in a transaction of its own). */
    risked?: boolean;
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
  // The blocklist and the velocity limits refuse before anything is made (RiskRefusal, the refusal
  // written on `tx`): on the database itself for the gateway, so that it stays when nothing else does.
  if (!meta.risked) await checkCreation(tx, merchant, req, deps.clock.now(), deps.database);
  const terms = await creationTerms(deps, tx, merchant);
  const routes = routesFor(terms.routes, req.amount, req.channel);
  if (!routes.length) throw new AppError(errno.noChannel, null, `no channel for ${req.amount}`);
  // A bank channel reserves a receiving account's capacity: the reservation and the order commit together
  // (the gateway creates without a transaction; it gets one when a bank channel may be tried).
  if (tx === deps.database.db && routes.some((r) => r.channel.adapter === bankAdapterName)) {
    // Without `exists`: a retry after losing the number to a concurrent create looks the order up again.
    const { exists: _known, ...asked } = meta;
    return inTransaction(tx, (t) => createPayin(deps, t, merchant, req, { ...asked, risked: true }));
  }

  const now = deps.clock.now();
  const minutes = parameterOf('payin_expiry_minutes', terms.expiryParameter);
  const expiresAt = new Date(now.getTime() + minutes * 60_000);
  const fee = Math.min(feeOf(req.amount, merchant.collectionRatePpm, merchant.platformFee), req.amount);
  const commission =
    terms.agentCommissionPpm === null ? 0 : Math.min(feeOf(req.amount, terms.agentCommissionPpm), fee);
  const orderNo = newOrderNo(now);

  let made:
    | {
        channel: Channel;
        channelOrderId: string;
        payUrl: string;
        receivingAccountId?: number;
        book?: { text: string; params: unknown[] };
      }
    | undefined;
  const refusals: string[] = [];
  for (const route of weightedOrder(routes)) {
    try {
      const at = await adapterFor(route.channel.adapter).createPayin(
        { deps, tx, channel: route.channel },
        { orderNo, merchantId: merchant.id, amount: req.amount, currency: merchant.currency, expiresAt },
      );
      const payUrl = at.payUrl.startsWith('/') ? `${publicUrl(deps)}${at.payUrl}` : at.payUrl;
      made = {
        channel: route.channel,
        channelOrderId: at.channelOrderId,
        payUrl,
        ...(at.receivingAccountId !== undefined ? { receivingAccountId: at.receivingAccountId } : {}),
        ...(at.book ? { book: at.book } : {}),
      };
      break;
    } catch (err) {
      if (!(err instanceof ChannelRefused)) throw err;
      refusals.push(`${route.channel.code}: ${err.message}`);
    }
  }

  const draft: Omit<PayinOrder, 'id'> = {
    refundedAmount: 0,
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
    status: destination(made ? 'created' : 'creationFailed'),
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
    receivingAccountId: made?.receivingAccountId ?? null,
    payerUtr: null,
    payerKey: payerKeyOf(req.payer),
  };
  const answer = gatewayView({ id: 0, ...draft });
  // The response snapshot is the answer, made from the draft itself.
  const params = insertColumns.map(([key]) => (key === 'responseSnapshot' ? answer : draft[key]));
  // Refused at creation is an end state, so it counts in the order stats (an order under way does not),
  // in the insert's own transaction: the caller's, or one of its own when the caller runs without (the
  // gateway's creation: a pending order is one insert that stands alone).
  const book = made?.book;
  const write = async (on: Db): Promise<PayinOrder | null> => {
    const [row] = book
      ? await deps.database.raw(on, withBooking(book.text), [...params, ...book.params], { name: true })
      : await deps.database.raw(on, insertOrderSql, params, { name: true });
    if (!row) return null;
    const order: PayinOrder = { id: Number(row[0]), ...draft, responseSnapshot: answer };
    if (payin.is('ended', order.status)) await recordOrderMoves(on, [statusMove('payin', order, null)]);
    return order;
  };
  const order =
    payin.is('ended', draft.status) && tx === deps.database.db
      ? await inTransaction(tx, write)
      : await write(tx);
  // Taken: by a concurrent create of the same merchant order number that committed first (the retry
  // replays it), or, rarely, the random order number (the retry draws another).
  if (!order) {
    if (await archivedNumber(tx, payinOrderKeys, payinOrders, merchant.id, req.merchantOrderNo)) {
      throw new AppError(errno.conflict, null, 'merchantOrderNo reused (archived order)');
    }
    throw new RetryTransaction('pay-in number taken');
  }
  return { order, replayed: false, answer };
}
