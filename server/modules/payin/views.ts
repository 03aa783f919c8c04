/** How a pay-in order looks on the wire: to the merchant's system (gateway, callbacks) and to the console. */
import { eq } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { payinRow } from '../../../contract/endpoints/orders.ts';
import { gatewayPayin } from '../../../contract/gateway.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { channels, merchants, payinOrders } from '../../db/schema.ts';
import { isoOf } from '../../lib/isoTime.ts';

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
