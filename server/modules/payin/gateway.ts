/** The pay-in side of the merchant gateway (GATEWAY.md): create, query by either number, balances. */
import { and, eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { payinGatewayEndpoints } from '../../../contract/gateway.ts';
import { formatMinor } from '../../../contract/money.ts';
import { payinOrders } from '../../db/schema.ts';
import { type GatewayRoute, gatewayRoute } from '../../gateway/app.ts';
import { AppError } from '../../http/errors.ts';
import { nulFields } from '../../http/validation.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { merchantBalances } from '../../ledger/index.ts';
import { createPayin, type PayinRequest } from './service.ts';
import { gatewayView } from './views.ts';

export const payinGatewayRoutes: GatewayRoute[] = [
  gatewayRoute(payinGatewayEndpoints.payinCreate, async ({ merchant, input, tx, deps, req, afterCommit }) => {
    // PostgreSQL text cannot hold U+0000: refuse it as invalid input rather than fail in the database.
    const nul = nulFields(input, req.lang);
    if (nul.length) throw new AppError(errno.invalid, { fields: nul });
    const result = await createPayin(deps, tx, merchant, input as PayinRequest, {
      source: 'api',
      ip: req.ip,
      lang: req.lang,
    });
    if (result.replayed) {
      return { status: 200, data: result.answer, headers: { 'Idempotent-Replayed': 'true' } };
    }
    afterCommit(wakeWebhookWorkers);
    return { status: 201, data: result.answer };
  }),

  gatewayRoute(payinGatewayEndpoints.payinGet, async ({ merchant, params, tx }) => {
    const orderNo = params.orderNo ?? '';
    const [order] =
      orderNo.length <= 64
        ? await tx
            .select()
            .from(payinOrders)
            .where(and(eq(payinOrders.orderNo, orderNo), eq(payinOrders.merchantId, merchant.id)))
        : [];
    if (!order) throw new AppError(errno.notFound);
    return { data: gatewayView(order) };
  }),

  gatewayRoute(payinGatewayEndpoints.payinFind, async ({ merchant, input, tx }) => {
    const [order] = await tx
      .select()
      .from(payinOrders)
      .where(
        and(
          eq(payinOrders.merchantId, merchant.id),
          eq(payinOrders.merchantOrderNo, (input as { merchantOrderNo: string }).merchantOrderNo),
        ),
      );
    if (!order) throw new AppError(errno.notFound);
    return { data: gatewayView(order) };
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
