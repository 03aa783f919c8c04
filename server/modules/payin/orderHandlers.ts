/** A pay-in read, made, corrected or removed from the console, its callback pushed, and the simulator's pay control. */
import { and, asc, eq, inArray, ne } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { callback, payin } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import { journalEntries, orderImages, payinOrders, webhookAttempts, webhookEvents } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import { AppError, refuse } from '../../http/errors.ts';
import { type Context, handle } from '../../http/handle.ts';
import { invalidField } from '../../http/validation.ts';
import { callbacksOf, wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { orderPostings } from '../../ledger/index.ts';
import { changes } from '../../lib/redact.ts';
import { tenantOf } from '../../list/scope.ts';
import { recordOrderMoves } from '../dashboard/stats.ts';
import { loadMerchant } from '../merchant/scope.ts';
import { payinNumbered } from '../orders/keys.ts';
import { pushByHand } from '../orders/push.ts';
import { RiskRefusal } from '../risk/rules.ts';
import { allowed, auditTarget, channelOf, orderFor } from './access.ts';
import { createPayin, newOrderNo } from './creation.ts';
import { removeOrderImages } from './images.ts';
import { settleSimulatorPayin } from './simulator.ts';
import { loadRow, loadWithCodes, payinOrderRow } from './views.ts';

async function orderInfo({ input, user, tx, req }: Context<typeof endpoints.merchantOrder.info>) {
  const { id } = await orderFor(tx, user, input, req.lang);
  // The callbacks before the order: a delivery marks its event and the order pushed in one statement, and
  // a read's statements are not one snapshot, so the order read after its events is never behind them.
  const callbacks = await callbacksOf(tx, 'payin', id);
  const withCodes = await loadWithCodes(tx, id);
  const order = withCodes!.order;
  const tenant = tenantOf(user);
  // A merchant sees its own accounts' lines; the platform's and the agent's balances are not its business.
  const lines = await orderPostings(tx, 'payin', order.id, tenant);
  const images = await tx
    .select()
    .from(orderImages)
    .where(eq(orderImages.orderId, order.id))
    .orderBy(asc(orderImages.id));
  return {
    ...payinOrderRow.view(order, withCodes!.merchantCode, withCodes!.channelCode),
    agentCommission: tenant === null ? formatMinor(order.agentCommission) : '0.00',
    payerUtr: order.payerUtr,
    notifyUrl: order.notifyUrl,
    returnUrl: order.returnUrl,
    payUrl: order.payUrl,
    failureReason: order.failureReason,
    requestSnapshot: order.requestSnapshot,
    responseSnapshot: order.responseSnapshot,
    callbacks,
    postings: lines,
    images: images.map((i) => ({
      id: i.id,
      url: `/api${endpoints.merchantOrder.image.path}?id=${i.id}`,
      mime: i.mime,
      size: i.size,
      createdAt: i.createdAt.toISOString(),
    })),
  };
}

async function createOrder(ctx: Context<typeof endpoints.merchantOrder.create>) {
  const { input, user, tx, deps, req, audit, afterCommit } = ctx;
  const merchant = await loadMerchant(tx, user.merchantId!);
  if (merchant.status !== 'active') throw new AppError(errno.forbidden, null, 'merchant frozen');
  const notifyUrl = input.notifyUrl?.trim() || merchant.callbackUrl;
  if (notifyUrl && !/^https?:\/\/\S+$/.test(notifyUrl))
    throw invalidField(req.lang, 'notifyUrl', 'validation.url');
  let result: Awaited<ReturnType<typeof createPayin>>;
  try {
    result = await createPayin(
      deps,
      tx,
      merchant,
      {
        merchantOrderNo: input.merchantOrderNo ?? newOrderNo(deps.clock.now(), 'CO'),
        amount: input.amount,
        notifyUrl,
      },
      { source: 'console', ip: req.ip, lang: req.lang, userId: user.id },
    );
  } catch (err) {
    // Answered as a refusal so that its record commits: nothing else was written before the rules refused.
    if (err instanceof RiskRefusal) {
      audit({
        target: `merchant:${merchant.id}`,
        detail: { amount: formatMinor(input.amount), rule: err.rule },
      });
      return refuse(err.errno, err.data);
    }
    throw err;
  }
  audit({
    target: auditTarget(result.order),
    detail: { amount: formatMinor(input.amount), replayed: result.replayed },
  });
  afterCommit(wakeWebhookWorkers);
  return loadRow(tx, result.order.id);
}

async function updateOrder(ctx: Context<typeof endpoints.merchantOrder.update>) {
  const { input, user, tx, deps, req, audit } = ctx;
  const order = await orderFor(tx, user, { id: input.id }, req.lang);
  audit({ target: auditTarget(order), changes: changes({ notifyUrl: order.notifyUrl }, input) });
  allowed(order, 'update');
  const [updated] = await tx
    .update(payinOrders)
    .set({ notifyUrl: input.notifyUrl, updatedAt: deps.clock.now() })
    .where(and(eq(payinOrders.id, order.id), inStates(payinOrders.status, payin.from('update'))))
    .returning({ id: payinOrders.id });
  if (!updated) throw new AppError(errno.conflict, null, `update of a ${order.status} order`);
  // Callbacks not delivered yet go to the corrected address.
  await tx
    .update(webhookEvents)
    .set({ url: input.notifyUrl })
    .where(
      and(
        eq(webhookEvents.orderType, 'payin'),
        eq(webhookEvents.orderId, order.id),
        ne(webhookEvents.status, callback.state.delivered),
      ),
    );
  return { ok: true as const };
}

async function deleteOrder(ctx: Context<typeof endpoints.merchantOrder.delete>) {
  const { input, user, tx, req, audit, afterCommit, deps } = ctx;
  const order = await orderFor(tx, user, { id: input.id }, req.lang);
  audit({
    target: auditTarget(order),
    detail: { status: order.status, amount: formatMinor(order.amount) },
  });
  allowed(order, 'delete');
  const [entry] = await tx
    .select({ id: journalEntries.id })
    .from(journalEntries)
    .where(and(eq(journalEntries.refType, 'payin'), eq(journalEntries.refId, String(order.id))))
    .limit(1);
  // Never an order money reached, whatever its state says: its ledger lines must keep their order.
  if (entry || order.paidAt) throw new AppError(errno.conflict, null, `delete of a ${order.status} order`);
  const events = await tx
    .select({ id: webhookEvents.id })
    .from(webhookEvents)
    .where(and(eq(webhookEvents.orderType, 'payin'), eq(webhookEvents.orderId, order.id)));
  if (events.length) {
    const ids = events.map((e) => e.id);
    await tx.delete(webhookAttempts).where(inArray(webhookAttempts.eventId, ids));
    await tx.delete(webhookEvents).where(inArray(webhookEvents.id, ids));
  }
  await tx.delete(orderImages).where(eq(orderImages.orderId, order.id));
  const [gone] = await tx
    .delete(payinOrders)
    .where(and(eq(payinOrders.id, order.id), inStates(payinOrders.status, payin.from('delete'))))
    .returning({ id: payinOrders.id, status: payinOrders.status });
  if (!gone) throw new AppError(errno.conflict, null, `delete of a ${order.status} order`);
  // It finished (refused, unpaid or failed): it leaves its day's order stats.
  await recordOrderMoves(tx, [{ kind: 'payin', before: { ...order, status: gone.status }, after: null }]);
  afterCommit(() => removeOrderImages(deps, order.id));
  return { ok: true as const };
}

async function pushCallback(ctx: Context<typeof endpoints.merchantOrder.push>) {
  const { input, user, tx, deps, req, audit } = ctx;
  const order = await orderFor(tx, user, { id: input.id }, req.lang);
  audit({ target: auditTarget(order) });
  allowed(order, 'push');
  return pushByHand(deps, 'payin', order.id, user.id);
}

async function simulatorPay(ctx: Context<typeof endpoints.simulator.pay>) {
  const { input, tx, deps, audit, afterCommit } = ctx;
  const [order] = await tx.select().from(payinOrders).where(payinNumbered(input.orderNo));
  if (!order) throw new AppError(errno.notFound);
  audit({ target: auditTarget(order), detail: { result: input.result, notify: input.notify ?? true } });
  const channel = await channelOf(tx, order.channelId);
  if (!channel) throw new AppError(errno.notFound);
  const out = await settleSimulatorPayin(deps, tx, order, channel, {
    result: input.result,
    utr: input.utr,
    notify: input.notify !== false,
  });
  afterCommit(wakeWebhookWorkers);
  return out;
}

/** A handler of this file is mounted here, beside it (a new order action is its function and its line). */
export const orderRoutes = [
  handle(endpoints.merchantOrder.info, orderInfo),
  handle(endpoints.merchantOrder.create, createOrder),
  handle(endpoints.merchantOrder.update, updateOrder),
  handle(endpoints.merchantOrder.delete, deleteOrder),
  // The push waits for the merchant's server (up to 15 s): no transaction is held open meanwhile.
  handle(endpoints.merchantOrder.push, pushCallback, { outsideTransaction: true }),
  handle(endpoints.simulator.pay, simulatorPay),
];
