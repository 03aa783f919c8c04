/**
 * The orders' unique numbers live in key tables of their own (`payin_order_keys`, `payout_order_keys`,
 * migration 0020), since the orders tables are partitioned by month and a unique index there would have
 * to hold the creation time.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { payinOrderKeys, payinOrders, payoutOrderKeys, payoutOrders } from '../../db/schema.ts';
import { rowsOf } from '../../ledger/index.ts';

/**
 * The order whose key row matches `where`: its id and creation time pick the one monthly partition to read
 * (pruned when the statement runs), instead of a probe of every month's index.
 */
export const byKeyRow = (
  orders: typeof payinOrders | typeof payoutOrders,
  keys: typeof payinOrderKeys | typeof payoutOrderKeys,
  where: SQL | undefined,
): SQL => sql`(${orders.id}, ${orders.createdAt}) = (select id, created_at from ${keys} where ${where})`;

/** The pay-in of an order number, through its key row (`byKeyRow`). */
export const payinNumbered = (orderNo: string): SQL =>
  byKeyRow(payinOrders, payinOrderKeys, eq(payinOrderKeys.orderNo, orderNo));

/** The payout of an order number, through its key row (`byKeyRow`). */
export const payoutNumbered = (orderNo: string): SQL =>
  byKeyRow(payoutOrders, payoutOrderKeys, eq(payoutOrderKeys.orderNo, orderNo));

/**
 * The id of the pay-in holding `utr`, from the key rows' unique index (one probe, where the orders table
 * has one index a month); an archived month's UTRs stay taken, as their numbers do.
 */
export async function payinWithUtr(tx: Db, utr: string): Promise<number | undefined> {
  const [row] = await tx
    .select({ id: payinOrderKeys.id })
    .from(payinOrderKeys)
    .where(eq(payinOrderKeys.utr, utr));
  return row?.id;
}

/** The order holding a merchant's order number, through its key row (`byKeyRow`). */
export const byMerchantNumber = (
  orders: typeof payinOrders | typeof payoutOrders,
  keys: typeof payinOrderKeys | typeof payoutOrderKeys,
  merchantId: number,
  merchantOrderNo: string,
): SQL =>
  byKeyRow(orders, keys, and(eq(keys.merchantId, merchantId), eq(keys.merchantOrderNo, merchantOrderNo)));

/**
 * Whether a merchant order number is held by an order no longer in the tables (its month detached for
 * archive, migration 0020): the number stays taken, and a create with it is a conflict.
 */
export async function archivedNumber(
  tx: Db,
  keys: typeof payinOrderKeys | typeof payoutOrderKeys,
  orders: typeof payinOrders | typeof payoutOrders,
  merchantId: number,
  merchantOrderNo: string,
): Promise<boolean> {
  const [row] = await tx
    .select({ id: keys.id })
    .from(keys)
    .where(
      and(
        eq(keys.merchantId, merchantId),
        eq(keys.merchantOrderNo, merchantOrderNo),
        sql`not exists (select 1 from ${orders} o where o.id = ${keys.id} and o.created_at = ${keys.createdAt})`,
      ),
    );
  return !!row;
}

export interface OrderKeysReport {
  ok: boolean;
  /** Pay-ins whose key row is missing or disagrees with the order (number, merchant number, UTR, time). */
  payins: number[];
  /** The same for payouts. */
  payouts: number[];
  /** Payment proof images whose pay-in has no key row (the foreign key the partitioning dropped). */
  images: number[];
}

/**
 * What the triggers of migration 0020 keep, checked against the tables (tests and invariant checks): every
 * order has its key row, equal to it; every image names a pay-in that exists or was archived.
 */
export async function checkOrderKeys(db: Db): Promise<OrderKeysReport> {
  const ids = async (q: ReturnType<typeof sql>) =>
    rowsOf<{ id: string }>(await db.execute(q)).map((r) => Number(r.id));
  const payins = await ids(sql`select o.id from payin_orders o left join payin_order_keys k on k.id = o.id
    where (k.created_at, k.order_no, k.merchant_id, k.merchant_order_no, k.utr)
      is distinct from (o.created_at, o.order_no, o.merchant_id, o.merchant_order_no, o.utr)
    limit 100`);
  const payouts = await ids(sql`select o.id from payout_orders o left join payout_order_keys k on k.id = o.id
    where (k.created_at, k.order_no, k.merchant_id, k.merchant_order_no)
      is distinct from (o.created_at, o.order_no, o.merchant_id, o.merchant_order_no)
    limit 100`);
  const images = await ids(sql`select i.id from order_images i
    where not exists (select 1 from payin_order_keys k where k.id = i.order_id) limit 100`);
  return { ok: !payins.length && !payouts.length && !images.length, payins, payouts, images };
}
