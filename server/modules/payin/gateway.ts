/** The pay-in side of the merchant gateway (GATEWAY.md): create, query by either number, balances. */
import { errno } from '../../../contract/errno.ts';
import { payinGatewayEndpoints } from '../../../contract/gateway.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Database, Db } from '../../db/index.ts';
import { type GatewayRoute, gatewayRoute } from '../../gateway/app.ts';
import { AppError } from '../../http/errors.ts';
import { nulFields } from '../../http/validation.ts';
import { merchantBalances } from '../../ledger/index.ts';
import { createPayin, type PayinRequest } from './creation.ts';
import { type GatewayPayin, gatewayView, type PayinOrder } from './views.ts';

/** The columns of the gateway's view of an order, as one JSON array (see `gatewayOrder`). */
const viewColumns = `json_build_array(order_no, merchant_order_no, status, currency, amount, paid_amount, fee, utr,
  pay_url, created_at, expires_at, paid_at)`;
// Through the key table (migration 0020): its row's id and creation time pick the one monthly partition
// to read, instead of a probe of every month's index.
const byOrderNoSql = `select ${viewColumns} from payin_orders
  where (id, created_at) = (select id, created_at from payin_order_keys where order_no = $1) and merchant_id = $2`;
const byMerchantOrderNoSql = `select ${viewColumns} from payin_orders
  where (id, created_at) = (select id, created_at from payin_order_keys where merchant_id = $1 and merchant_order_no = $2)`;

/**
 * A merchant's order as the gateway query answers it, by system or merchant order number (each a unique
 * index of the key table), or undefined: one prepared statement reading only the view's columns, through the driver.
 * Exported for bench/orders.ts, which times the lookups the gateway makes.
 */
export async function gatewayOrder(
  database: Database,
  db: Db,
  merchantId: number,
  by: { orderNo: string } | { merchantOrderNo: string },
): Promise<GatewayPayin | undefined> {
  const [row] =
    'orderNo' in by
      ? await database.raw(db, byOrderNoSql, [by.orderNo, merchantId], { name: true })
      : await database.raw(db, byMerchantOrderNoSql, [merchantId, by.merchantOrderNo], { name: true });
  if (!row?.[0]) return undefined;
  const v = JSON.parse(row[0]) as [
    string,
    string,
    PayinOrder['status'],
    string,
    number,
    number | null,
    number,
    string | null,
    string | null,
    string,
    string,
    string | null,
  ];
  return gatewayView({
    orderNo: v[0],
    merchantOrderNo: v[1],
    status: v[2],
    currency: v[3],
    amount: v[4],
    paidAmount: v[5],
    fee: v[6],
    utr: v[7],
    payUrl: v[8],
    createdAt: new Date(v[9]),
    expiresAt: new Date(v[10]),
    paidAt: v[11] === null ? null : new Date(v[11]),
  } as PayinOrder);
}

export const payinGatewayRoutes: GatewayRoute[] = [
  gatewayRoute(
    payinGatewayEndpoints.payinCreate,
    async ({ merchant, input, probed, tx, deps, req }) => {
      // PostgreSQL text cannot hold U+0000: refuse it as invalid input rather than fail in the database.
      const nul = nulFields(input, req.lang);
      if (nul.length) throw new AppError(errno.invalid, { fields: nul });
      // Outside a transaction (see below): a create that loses the number to a concurrent one throws
      // `RetryTransaction`, and the gateway runs it again, when it finds that order and replays it.
      const result = await createPayin(deps, tx, merchant, input as PayinRequest, {
        source: 'api',
        ip: req.ip,
        lang: req.lang,
        exists: probed !== 'f',
      });
      if (result.replayed) {
        return { status: 200, data: result.answer, headers: { 'Idempotent-Replayed': 'true' } };
      }
      // A new order queues no callback (only its end states do): no worker to wake.
      return { status: 201, data: result.answer };
    },
    {
      // Whether the merchant order number exists, read with the nonce: a repeat is answered before
      // anything else is judged, and a new order needs no read of its own.
      probe: (merchant, input) => ({
        text: 'select exists (select 1 from payin_order_keys where merchant_id = $1 and merchant_order_no = $2)',
        params: [merchant.id, (input as PayinRequest).merchantOrderNo],
      }),
      // A creation writes the channel's order (the simulator's row, or a call out) and then the order in
      // one insert; no statement of it needs another's rollback, so BEGIN and COMMIT are two round trips
      // for nothing (bench/floor.ts, create against create2).
      outsideTransaction: true,
    },
  ),

  gatewayRoute(payinGatewayEndpoints.payinGet, async ({ merchant, params, tx, deps }) => {
    const orderNo = params.orderNo ?? '';
    const order =
      orderNo.length <= 64 ? await gatewayOrder(deps.database, tx, merchant.id, { orderNo }) : undefined;
    if (!order) throw new AppError(errno.notFound);
    return { data: order };
  }),

  gatewayRoute(payinGatewayEndpoints.payinFind, async ({ merchant, input, tx, deps }) => {
    const { merchantOrderNo } = input as { merchantOrderNo: string };
    const order = await gatewayOrder(deps.database, tx, merchant.id, { merchantOrderNo });
    if (!order) throw new AppError(errno.notFound);
    return { data: order };
  }),

  gatewayRoute(payinGatewayEndpoints.balance, async ({ merchant, tx }) => {
    const b = await merchantBalances(tx, merchant.id, merchant.currency);
    return {
      data: {
        currency: merchant.currency,
        // Settlement applications hold nothing of the collection balance yet; the frozen account holds
        // payouts in flight.
        collection: {
          available: formatMinor(b.collection_available),
          pending: formatMinor(b.collection_pending),
          frozen: formatMinor(0),
        },
        payout: { available: formatMinor(b.payout_available), frozen: formatMinor(b.frozen) },
      },
    };
  }),
];
