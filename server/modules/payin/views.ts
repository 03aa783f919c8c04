/** How a pay-in order looks on the wire: to the merchant's system (gateway, callbacks) and to the console. */
import { eq } from 'drizzle-orm';
import type * as z from 'zod/mini';
import { type payinRow, payinRowFields } from '../../../contract/endpoints/orders.ts';
import { gatewayPayin } from '../../../contract/gateway.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { channels, merchants, payinOrders } from '../../db/schema.ts';
import { isoOf } from '../../lib/isoTime.ts';
import { orderRow, type PageRow } from '../orders/row.ts';

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
 * The pay-in row (`payinRowFields`, declared once in the contract) as the server reads and writes it:
 * the columns a list reads, the row `view` of an order, and `json`, the same written from a page row.
 */
export const payinOrderRow = orderRow(payinOrders, payinRowFields);
export type RowOrder = Parameters<typeof payinOrderRow.view>[0];

/** Page rows as row views (tests and benchmarks; the list itself writes their `json`). */
export const pageViews = (rows: readonly PageRow[]): PayinRow[] =>
  JSON.parse(`[${rows.map(payinOrderRow.json).join(',')}]`) as PayinRow[];

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
  return payinOrderRow.view(r.order, r.merchantCode, r.channelCode);
}
