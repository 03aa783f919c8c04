/** How a pay-in order looks on the wire: to the merchant's system (gateway, callbacks) and to the console. */
import { eq } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { payinRow } from '../../../contract/endpoints/orders.ts';
import { gatewayPayin } from '../../../contract/gateway.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { channels, merchants, payinOrders } from '../../db/schema.ts';
import { isoOf, isoOfMs } from '../../lib/isoTime.ts';

export type PayinOrder = typeof payinOrders.$inferSelect;
export type GatewayPayin = z.output<typeof gatewayPayin>;
export type PayinRow = z.output<typeof payinRow>;

const iso = (d: Date | null) => (d ? isoOf(d) : null);

/**
 * The order as the gateway query answers it and as callbacks carry it. Parsing through the contract's
 * schema fixes the key order, so a replay rebuilt from a stored (jsonb) snapshot is byte-identical.
 */
export function gatewayView(o: PayinOrder): GatewayPayin {
  return gatewayPayin.parse({
    orderNo: o.orderNo,
    merchantOrderNo: o.merchantOrderNo,
    status: o.status,
    currency: o.currency,
    amount: formatMinor(o.amount),
    paidAmount: o.paidAmount === null ? null : formatMinor(o.paidAmount),
    fee: formatMinor(o.fee),
    utr: o.utr,
    payUrl: o.payUrl,
    createdAt: o.createdAt.toISOString(),
    expiresAt: o.expiresAt.toISOString(),
    paidAt: iso(o.paidAt),
  });
}

/** A stored answer in the contract's key order. */
export const storedGatewayView = (snapshot: unknown): GatewayPayin => gatewayPayin.parse(snapshot);

/**
 * The columns a console list row shows: the list reads only these (not the request and response
 * snapshots, which are most of a row's bytes).
 */
export const rowColumns = {
  id: payinOrders.id,
  orderNo: payinOrders.orderNo,
  merchantOrderNo: payinOrders.merchantOrderNo,
  merchantId: payinOrders.merchantId,
  channelId: payinOrders.channelId,
  channelOrderId: payinOrders.channelOrderId,
  currency: payinOrders.currency,
  amount: payinOrders.amount,
  paidAmount: payinOrders.paidAmount,
  fee: payinOrders.fee,
  status: payinOrders.status,
  pushStatus: payinOrders.pushStatus,
  utr: payinOrders.utr,
  paidBy: payinOrders.paidBy,
  createdAt: payinOrders.createdAt,
  expiresAt: payinOrders.expiresAt,
  paidAt: payinOrders.paidAt,
  callbackAt: payinOrders.callbackAt,
};
export type RowOrder = Pick<PayinOrder, keyof typeof rowColumns>;
/** The row's times: a list page reads them as epoch milliseconds (see `PageRow`). */
export const rowTimes: ReadonlySet<keyof typeof rowColumns> = new Set([
  'createdAt',
  'expiresAt',
  'paidAt',
  'callbackAt',
] as const);

/** A console list row. */
export function rowView(o: RowOrder, merchantCode: string, channelCode: string | null): PayinRow {
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
    paidAmount: o.paidAmount === null ? null : formatMinor(o.paidAmount),
    fee: formatMinor(o.fee),
    status: o.status,
    pushStatus: o.pushStatus,
    utr: o.utr,
    paidBy: o.paidBy,
    createdAt: isoOf(o.createdAt),
    expiresAt: isoOf(o.expiresAt),
    paidAt: iso(o.paidAt),
    callbackAt: iso(o.callbackAt),
  };
}

/**
 * A list page's row as the page statement reads it: the `rowColumns` values in their order (times as
 * epoch milliseconds), with the codes of the order's merchant and channel.
 */
export interface PageRow {
  values: readonly unknown[];
  merchantCode: string;
  channelCode: string | null;
}

/** Where each of `rowColumns` sits in a `PageRow`'s values. */
export const rowIndex = Object.fromEntries(Object.keys(rowColumns).map((key, i) => [key, i])) as Record<
  keyof typeof rowColumns,
  number
>;

/**
 * A text value as JSON: quoted as it is unless it holds a quote, a backslash or a control character (text
 * read from the database holds no lone surrogates), which is most values and half the cost of stringify.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON must escape.
const needsEscaping = /["\\\u0000-\u001f]/;
const text = (v: unknown) =>
  v === null || v === undefined ? 'null' : needsEscaping.test(v as string) ? JSON.stringify(v) : `"${v}"`;
const money = (v: unknown) => `"${formatMinor(v as number)}"`;
const time = (v: unknown) => (v === null ? 'null' : `"${isoOfMs(v as number)}"`);

/**
 * `rowView` of a page row, written as JSON text straight from its values: a list page would otherwise
 * build twenty objects only to serialise them again (a test keeps the two byte for byte the same).
 */
export function rowJson({ values: v, merchantCode, channelCode }: PageRow): string {
  const i = rowIndex;
  return `{"id":${v[i.id]},"orderNo":${text(v[i.orderNo])},"merchantOrderNo":${text(v[i.merchantOrderNo])},"merchantId":${v[i.merchantId]},"merchantCode":${text(merchantCode)},"channelId":${v[i.channelId]},"channelCode":${text(channelCode)},"channelOrderId":${text(v[i.channelOrderId])},"currency":${text(v[i.currency])},"amount":${money(v[i.amount])},"paidAmount":${v[i.paidAmount] === null ? 'null' : money(v[i.paidAmount])},"fee":${money(v[i.fee])},"status":${text(v[i.status])},"pushStatus":${text(v[i.pushStatus])},"utr":${text(v[i.utr])},"paidBy":${text(v[i.paidBy])},"createdAt":${time(v[i.createdAt])},"expiresAt":${time(v[i.expiresAt])},"paidAt":${time(v[i.paidAt])},"callbackAt":${time(v[i.callbackAt])}}`;
}

/** Page rows as row views (tests and benchmarks; the list itself writes `rowJson`). */
export const pageViews = (rows: readonly PageRow[]): PayinRow[] =>
  JSON.parse(`[${rows.map(rowJson).join(',')}]`) as PayinRow[];

/** An order with its merchant's and channel's codes, or undefined. */
export async function loadWithCodes(db: Db, id: number) {
  const [r] = await db
    .select({ order: payinOrders, merchantCode: merchants.code, channelCode: channels.code })
    .from(payinOrders)
    .innerJoin(merchants, eq(merchants.id, payinOrders.merchantId))
    .leftJoin(channels, eq(channels.id, payinOrders.channelId))
    .where(eq(payinOrders.id, id));
  return r;
}

export async function loadRow(db: Db, id: number): Promise<PayinRow> {
  const r = await loadWithCodes(db, id);
  if (!r) throw new Error(`pay-in ${id} vanished`);
  return rowView(r.order, r.merchantCode, r.channelCode);
}
