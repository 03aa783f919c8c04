/** A UTR checked against the channels and statements, and a pay-in supplemented with the payment it proves. */
import { eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Channel } from '../../channels/adapter.ts';
import { channels, payinOrders } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { type Context, handle } from '../../http/handle.ts';
import { invalidField } from '../../http/validation.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { tenantOf } from '../../list/scope.ts';
import { routesOf } from '../merchant/service.ts';
import { payinNumbered } from '../orders/keys.ts';
import { allowed, auditTarget, channelOf, orderFor } from './access.ts';
import { transition } from './state.ts';
import { findPayment, orderUsingUtr, statementLinePaid, utrSourcesFor, withUtrGuard } from './utr.ts';
import { loadRow } from './views.ts';

async function checkUtr(ctx: Context<typeof endpoints.merchantOrder.utrCheck>) {
  const { input, user, tx, deps, req, audit } = ctx;
  const tenant = tenantOf(user);
  const order = input.id === undefined ? undefined : await orderFor(tx, user, { id: input.id }, req.lang);
  audit({ target: order ? auditTarget(order) : `utr:${input.utr}` });
  if (order) allowed(order, 'utrCheck');
  let asked: Channel[];
  if (order) {
    const c = await channelOf(tx, order.channelId);
    asked = c ? [c] : [];
  } else if (tenant !== null) {
    asked = (await routesOf(deps, tx, tenant)).map((r) => r.channel).filter((c) => c.supportsPayin);
  } else {
    asked = await tx.select().from(channels).where(eq(channels.supportsPayin, true));
  }
  const hit = await findPayment(deps, tx, input.utr, asked, utrSourcesFor(tenant));
  const used = await orderUsingUtr(tx, input.utr);
  const payingOrder = hit?.orderNo
    ? (
        await tx
          .select({ id: payinOrders.id, merchantId: payinOrders.merchantId })
          .from(payinOrders)
          .where(payinNumbered(hit.orderNo))
      )[0]
    : undefined;
  // A merchant learns nothing of a payment or an order that belongs to another merchant.
  const foreign =
    tenant !== null &&
    ((payingOrder && payingOrder.merchantId !== tenant) || (used && used.merchantId !== tenant));
  if (!hit || foreign) {
    return {
      found: false,
      source: null,
      amount: null,
      at: null,
      account: null,
      channelOrderId: null,
      usedBy: foreign ? null : (used?.orderNo ?? null),
      matchesOrder: order ? false : null,
    };
  }
  return {
    found: true,
    source: hit.source,
    amount: formatMinor(hit.amount),
    at: hit.at.toISOString(),
    account: hit.account,
    channelOrderId: hit.channelOrderId ?? null,
    usedBy: used?.orderNo ?? null,
    matchesOrder: order ? !used && (hit.orderNo === undefined || hit.orderNo === order.orderNo) : null,
  };
}

async function supplementOrder(ctx: Context<typeof endpoints.merchantOrder.supplement>) {
  const { input, user, tx, deps, req, audit, afterCommit } = ctx;
  const order = await orderFor(tx, user, { id: input.id }, req.lang);
  audit({
    target: auditTarget(order),
    detail: {
      utr: input.utr,
      paidAmount: input.paidAmount === undefined ? null : formatMinor(input.paidAmount),
    },
  });
  allowed(order, 'supplement');
  const channel = await channelOf(tx, order.channelId);
  const hit = await findPayment(deps, tx, input.utr, channel ? [channel] : [], utrSourcesFor(tenantOf(user)));
  if (!hit) throw new AppError(errno.utrNotFound);
  if (await orderUsingUtr(tx, input.utr)) throw new AppError(errno.utrUsed);
  if (hit.orderNo !== undefined && hit.orderNo !== order.orderNo) {
    throw new AppError(errno.utrMismatch, null, `UTR paid ${hit.orderNo}`);
  }
  // A statement line proves only an order routed to its own account (the reconciliation sets them
  // side by side): money that reached another account is that account's exception.
  if (hit.source === 'statement' && hit.accountId !== order.receivingAccountId) {
    throw new AppError(errno.utrMismatch, null, `statement of account ${hit.accountId}`);
  }
  // A person's statement proves nothing by itself: paying with its line is posting it, a money door
  // with its own controls (contract/doors.ts `statement.pay`), not a supplement.
  if (hit.source === 'statement' && !hit.paysByItself) {
    throw new AppError(errno.statementNeedsPosting, { lineId: hit.statementLineId });
  }
  if (input.paidAmount !== undefined && input.paidAmount !== hit.amount) {
    throw new AppError(errno.utrMismatch, null, `amount ${input.paidAmount} vs ${hit.amount}`);
  }
  if (hit.amount < order.fee) {
    throw invalidField(req.lang, 'paidAmount', 'validation.paidBelowFee', { fee: formatMinor(order.fee) });
  }
  const paid = await withUtrGuard(() =>
    transition(
      deps,
      tx,
      order.id,
      'supplement',
      {
        utr: input.utr,
        paidAmount: hit.amount,
        paidBy: hit.source === 'statement' ? 'statement' : 'supplement',
        paidAt: deps.clock.now(),
      },
      user.id,
    ),
  );
  if (!paid) throw new AppError(errno.conflict, null, 'moved meanwhile');
  await statementLinePaid(deps, tx, hit, paid.id, user.id);
  afterCommit(wakeWebhookWorkers);
  return loadRow(tx, paid.id);
}

/** The UTR check and the supplement, mounted by `payin/routes.ts`. */
export const supplementRoutes = [
  // A UTR check may ask a channel over the network: no transaction is held open meanwhile.
  handle(endpoints.merchantOrder.utrCheck, checkUtr, { outsideTransaction: true }),
  handle(endpoints.merchantOrder.supplement, supplementOrder),
];
