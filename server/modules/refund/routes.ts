/**
 * Refunds from the console (`refund.*`) and the gateway (`/gateway/v1/refund`), docs/MONEY-BACK.md
 * section 1. Both go through `checkRefund` and `placeRefund` (service.ts): the console's user with its
 * Google code, the merchant's server by its signature, each counted in the day's sums of the `refund.create`
 * door. A merchant user refunds its own merchant's orders only (the pay-in list's rule: another's is 404).
 */
import { and, eq, inArray, or, type SQL } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { refundRow } from '../../../contract/endpoints/refund.ts';
import { errno } from '../../../contract/errno.ts';
import { refundGatewayEndpoints } from '../../../contract/gateway.ts';
import { endpoints } from '../../../contract/index.ts';
import { payout } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { merchants, payinOrders, payoutOrders, refunds, users } from '../../db/schema.ts';
import { type GatewayRoute, gatewayRoute } from '../../gateway/app.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import type { SessionUser } from '../../http/session.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { createdPlace, keysetList } from '../../list/engine.ts';
import { merchantScope, tenantOf } from '../../list/scope.ts';
import { approvalRequested, onApproved, onRejected } from '../approval/service.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { loadMerchant } from '../merchant/scope.ts';
import { payinNumbered } from '../orders/keys.ts';
import { orderFor } from '../payin/access.ts';
import type { PayinOrder } from '../payin/views.ts';
import {
  byMerchantRefundNo,
  checkRefund,
  disputedOf,
  endRequested,
  gatewayRefundView,
  type Payee,
  payoutOf,
  placeRefund,
  type Refund,
  refundable,
  refundRequestHash,
  startRefund,
} from './service.ts';

type RefundRow = z.output<typeof refundRow>;

/** Console rows: merchant codes, the payouts' numbers, states and UTRs, and (for the platform) usernames. */
async function rowsOf(tx: Db, rows: readonly Refund[], withNames: boolean): Promise<RefundRow[]> {
  if (!rows.length) return [];
  const codes = new Map(
    (
      await tx
        .select({ id: merchants.id, code: merchants.code })
        .from(merchants)
        .where(inArray(merchants.id, [...new Set(rows.map((r) => r.merchantId))]))
    ).map((m) => [m.id, m.code]),
  );
  const payoutIds = rows.flatMap((r) => (r.payoutId === null ? [] : [r.payoutId]));
  const payouts = new Map(
    payoutIds.length
      ? (
          await tx
            .select({
              id: payoutOrders.id,
              orderNo: payoutOrders.orderNo,
              status: payoutOrders.status,
              utr: payoutOrders.utr,
            })
            .from(payoutOrders)
            .where(inArray(payoutOrders.id, payoutIds))
        ).map((p) => [p.id, p])
      : [],
  );
  const userIds = [...new Set(rows.flatMap((r) => (r.requestedBy === null ? [] : [r.requestedBy])))];
  const names = new Map(
    withNames && userIds.length
      ? (
          await tx
            .select({ id: users.id, username: users.username })
            .from(users)
            .where(inArray(users.id, userIds))
        ).map((u) => [u.id, u.username])
      : [],
  );
  return rows.map((r) => {
    const p = r.payoutId === null ? undefined : payouts.get(r.payoutId);
    return {
      id: r.id,
      refundNo: r.refundNo,
      merchantRefundNo: r.merchantRefundNo,
      merchantId: r.merchantId,
      merchantCode: codes.get(r.merchantId) ?? '',
      payinId: r.payinId,
      orderNo: r.orderNo,
      merchantOrderNo: r.merchantOrderNo,
      currency: r.currency,
      amount: formatMinor(r.amount),
      status: r.status,
      reason: r.reason,
      accountName: r.accountName,
      accountNumber: r.accountNumber,
      ifsc: r.ifsc,
      source: r.source,
      payoutId: r.payoutId,
      payoutNo: p?.orderNo ?? null,
      // A merchant sees our internal hand-over steps as `processing`, as on its payouts.
      payoutStatus: p
        ? !withNames && payout.is('shownAsProcessing', p.status)
          ? 'processing'
          : p.status
        : null,
      utr: p?.utr ?? null,
      failureReason: r.failureReason,
      requestedBy: (r.requestedBy !== null && names.get(r.requestedBy)) || null,
      approvalId: r.approvalId,
      createdAt: r.createdAt.toISOString(),
      completedAt: r.completedAt?.toISOString() ?? null,
    };
  });
}

const described = (order: PayinOrder, amount: number, reason: string, payee: Payee) => ({
  orderNo: order.orderNo,
  amount: formatMinor(amount),
  currency: order.currency,
  reason,
  account: payee.accountNumber,
});

// Above the day's sums the refund starts when a second platform user approves it, in their name.
onApproved('refund.create', async (deps, tx, request, approverId) => {
  const [r] = await tx
    .select()
    .from(refunds)
    .where(eq(refunds.id, Number(request.refId)));
  if (!r) throw new AppError(errno.notFound);
  const started = await startRefund(deps, tx, r, await loadMerchant(tx, r.merchantId), approverId);
  return { detail: { refund: started.refundNo, amount: formatMinor(started.amount) } };
});
onRejected('refund.create', async (deps, tx, request) => {
  await endRequested(deps, tx, Number(request.refId), 'reject', request.decisionNote);
});

/** A refund the user may see, or 404. */
async function refundFor(tx: Db, user: SessionUser, id: number): Promise<Refund> {
  const [r] = await tx.select().from(refunds).where(eq(refunds.id, id));
  const tenant = tenantOf(user);
  if (!r || (tenant !== null && r.merchantId !== tenant)) throw new AppError(errno.notFound);
  return r;
}

export const refundRoutes = [
  handle(endpoints.refund.list, async ({ input, user, tx, req }) => {
    const merchantId = merchantScope(user, input.merchantId, 'ignored');
    const search = input.search;
    const where: SQL | undefined = and(
      merchantId === undefined ? undefined : eq(refunds.merchantId, merchantId),
      input.status ? eq(refunds.status, input.status) : undefined,
      search
        ? or(
            eq(refunds.refundNo, search),
            eq(refunds.merchantRefundNo, search),
            eq(refunds.orderNo, search),
            eq(refunds.merchantOrderNo, search),
          )
        : undefined,
    );
    const { page, ...rest } = await keysetList(
      tx,
      {
        query: tx.select().from(refunds).$dynamic(),
        table: refunds,
        where,
        keyset: { at: refunds.createdAt, id: refunds.id, serialId: true, placeOf: createdPlace },
      },
      input,
      req.lang,
    );
    return { list: await rowsOf(tx, page, user.kind === 'platform'), ...rest };
  }),

  handle(endpoints.refund.ofOrder, async ({ input, user, tx, req }) => {
    const order = await orderFor(tx, user, { id: input.payinId }, req.lang);
    const list = await tx.select().from(refunds).where(eq(refunds.payinId, order.id)).orderBy(refunds.id);
    return {
      paidAmount: order.paidAmount === null ? null : formatMinor(order.paidAmount),
      refundedAmount: formatMinor(order.refundedAmount),
      refundable: formatMinor(Math.max(0, refundable(order) - (await disputedOf(tx, order.id)))),
      list: await rowsOf(tx, list, user.kind === 'platform'),
    };
  }),

  handle(endpoints.refund.create, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const order = await orderFor(tx, user, { id: input.payinId }, req.lang);
    const merchant = await loadMerchant(tx, order.merchantId);
    const ask = {
      amount: input.amount,
      reason: input.reason,
      payee: input.payee,
      source: 'console' as const,
    };
    audit({
      target: `payin:${order.orderNo}`,
      detail: { amount: formatMinor(input.amount), reason: input.reason },
    });
    const payee = await checkRefund(tx, order, merchant, ask, req.lang);
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const placed = await placeRefund(deps, tx, order, merchant, ask, payee, { userId: user.id }, req.lang);
    const detail = { ...described(order, input.amount, input.reason, payee), refund: placed.refund.refundNo };
    if (placed.approval) return approvalRequested(audit, placed.approval, detail);
    audit({ target: `refund:${placed.refund.refundNo}`, detail });
    afterCommit(wakeWebhookWorkers);
    return (await rowsOf(tx, [placed.refund], user.kind === 'platform'))[0]!;
  }),

  handle(endpoints.refund.cancel, async ({ input, user, tx, deps, audit }) => {
    const r = await refundFor(tx, user, input.id);
    audit({ target: `refund:${r.refundNo}`, detail: { amount: formatMinor(r.amount), status: r.status } });
    const ended = await endRequested(deps, tx, r.id, 'cancel', null);
    return (await rowsOf(tx, [ended], user.kind === 'platform'))[0]!;
  }),
];

type CreateInput = { orderNo: string; refundNo: string; amount: number; reason?: string; payee?: Payee };

/** The merchant's own pay-in by our order number, or 404. */
async function payinOfMerchant(tx: Db, merchantId: number, orderNo: string): Promise<PayinOrder> {
  const [o] = await tx
    .select()
    .from(payinOrders)
    .where(and(eq(payinOrders.merchantId, merchantId), payinNumbered(orderNo)));
  if (!o) throw new AppError(errno.notFound);
  return o;
}

/** The gateway answer of a stored refund: the first answer for a replay, else as it is now. */
async function answerOf(tx: Db, r: Refund) {
  const [order] = await tx
    .select()
    .from(payinOrders)
    .where(and(eq(payinOrders.id, r.payinId), eq(payinOrders.createdAt, r.payinCreatedAt)));
  return gatewayRefundView(r, order!, (await payoutOf(tx, r))?.utr ?? null);
}

export const refundGatewayRoutes: GatewayRoute[] = [
  gatewayRoute(
    refundGatewayEndpoints.refundCreate,
    async ({ merchant, input, tx, deps, req }) => {
      const body = input as CreateInput;
      const ask = {
        amount: body.amount,
        reason: body.reason ?? 'Refund asked by the merchant',
        payee: body.payee,
        merchantRefundNo: body.refundNo,
        source: 'api' as const,
      };
      const replay = async (existing: Refund) => {
        if (existing.requestHash !== refundRequestHash(body.orderNo, ask))
          throw new AppError(errno.conflict, {
            fields: [{ path: 'refundNo', code: 'conflict', message: body.refundNo }],
          });
        const now = await answerOf(tx, existing);
        const snap = (existing.responseSnapshot ?? now) as Record<string, unknown>;
        // jsonb keeps keys in its own order: put them back in the answer's, so a replay is byte-identical.
        const data = Object.fromEntries(Object.keys(now).map((k) => [k, snap[k] ?? null]));
        return { status: 200 as const, data, headers: { 'Idempotent-Replayed': 'true' } };
      };
      const existing = await byMerchantRefundNo(tx, merchant.id, body.refundNo);
      if (existing) return replay(existing);
      const order = await payinOfMerchant(tx, merchant.id, body.orderNo);
      const payee = await checkRefund(tx, order, merchant, ask, req.lang);
      const placed = await placeRefund(
        deps,
        tx,
        order,
        merchant,
        ask,
        payee,
        { gatewayOf: merchant.id },
        req.lang,
      );
      // A concurrent repeat committed first: answer it as any repeat.
      if (placed.replayOf) return replay(placed.replayOf);
      const answer = await answerOf(tx, placed.refund);
      await tx.update(refunds).set({ responseSnapshot: answer }).where(eq(refunds.id, placed.refund.id));
      return { data: answer };
    }, // Money out to an account the request may name: only from the addresses payouts come from.
    { payoutWhitelist: true },
  ),

  gatewayRoute(refundGatewayEndpoints.refundGet, async ({ merchant, params, tx }) => {
    const r = await byMerchantRefundNo(tx, merchant.id, params.refundNo ?? '');
    if (!r) throw new AppError(errno.notFound);
    return { data: await answerOf(tx, r) };
  }),
];
