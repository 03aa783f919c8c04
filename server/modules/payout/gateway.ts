/** The payout part of the gateway API (GATEWAY.md): create with idempotency, query by either number. */
import { and, eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { payoutGatewayEndpoints } from '../../../contract/gateway.ts';
import { payoutOrders } from '../../db/schema.ts';
import { type GatewayRoute, gatewayRoute } from '../../gateway/app.ts';
import { AppError } from '../../http/errors.ts';
import { payoutNumbered } from '../orders/keys.ts';
import { byMerchantOrderNo } from './create.ts';
import { createPayout, gatewayViewOf, type PayoutRequest } from './service.ts';

/** What the contract's schemas answer (the gateway registry keeps schemas untyped). */
type CreateInput = PayoutRequest & { merchantOrderNo: string; notifyUrl: string };
type FindInput = { merchantOrderNo: string };

export const payoutGatewayRoutes: GatewayRoute[] = [
  gatewayRoute(
    payoutGatewayEndpoints.payoutCreate,
    async ({ merchant, input, tx, deps, req }) => {
      const made = await createPayout(deps, tx, merchant, input as CreateInput, {
        source: 'api',
        lang: req.lang,
        snapshot: JSON.parse(req.rawBody),
      });
      if (made.replayed)
        return { status: 200, data: made.answer, headers: { 'Idempotent-Replayed': 'true' } };
      return { data: made.answer };
    },
    { payoutWhitelist: true },
  ),

  gatewayRoute(payoutGatewayEndpoints.payoutGet, async ({ merchant, params, tx }) => {
    const orderNo = params.orderNo ?? '';
    const [o] = await tx
      .select()
      .from(payoutOrders)
      .where(and(eq(payoutOrders.merchantId, merchant.id), payoutNumbered(orderNo)));
    if (!o) throw new AppError(errno.notFound);
    return { data: gatewayViewOf(o) };
  }),

  gatewayRoute(payoutGatewayEndpoints.payoutFind, async ({ merchant, input, tx }) => {
    const o = await byMerchantOrderNo(tx, merchant.id, (input as FindInput).merchantOrderNo);
    if (!o) throw new AppError(errno.notFound);
    return { data: gatewayViewOf(o) };
  }),
];
