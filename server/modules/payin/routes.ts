/**
 * The console's collection-order endpoints (`merchantOrder.*`) and the simulator's pay control. Merchant
 * users are confined to their merchant: the merchant id comes from the session, never from the request,
 * and another merchant's order answers 404 as if it did not exist.
 */
import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { callback, type PayinAction, payin } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Channel } from '../../channels/adapter.ts';
import type { Db } from '../../db/index.ts';
import {
  channels,
  journalEntries,
  orderImages,
  payinOrders,
  webhookAttempts,
  webhookEvents,
} from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError, refuse } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { withReader } from '../../http/reader.ts';
import { invalidField } from '../../http/validation.ts';
import { callbacksOf, pushNow, wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { orderPostings } from '../../ledger/index.ts';
import { changes } from '../../lib/redact.ts';
import { aloneOrApproval, merchantWallet } from '../approval/doors.ts';
import { onApproved, pendingApproval } from '../approval/service.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { recordOrderMoves } from '../dashboard/stats.ts';
import { loadMerchant } from '../merchant/scope.ts';
import { routesOf } from '../merchant/service.ts';
import { payinList } from '../orders/kinds.ts';
import { tenantOf } from '../orders/list.ts';
import { createPayin, newOrderNo } from './creation.ts';
import {
  decodeImage,
  type ImageMime,
  maxImagesPerOrder,
  readImage,
  removeOrderImages,
  storeImage,
} from './images.ts';
import { settleSimulatorPayin } from './simulator.ts';
import { transition } from './state.ts';
import { findPayment, orderUsingUtr, statementLinePaid, utrSourcesFor, withUtrGuard } from './utr.ts';
import { loadRow, loadWithCodes, type PayinOrder, payinOrderRow } from './views.ts';

/** A pay-in the user may see, by id or order number, or 404 (the list engine's rule for every kind). */
const orderFor = payinList.orderFor;

async function channelOf(tx: Db, id: number | null): Promise<Channel | undefined> {
  if (id === null) return undefined;
  const [c] = await tx.select().from(channels).where(eq(channels.id, id));
  return c;
}

/** Refuses early, with the clear 409, an action the order's state does not allow (contract/machines.ts). */
function allowed(order: PayinOrder, action: PayinAction) {
  if (!payin.can(action, order.status)) {
    throw new AppError(errno.conflict, null, `${action} from ${order.status}`);
  }
}

const auditTarget = (o: PayinOrder) => `payin:${o.orderNo}`;

/** What a forced supplement records: why, the UTR if any, and the amount paid (minor units). */
interface Forced {
  reason: string;
  utr: string | null;
  paidAmount: number;
}

/** The ledger's and the approvals' name for a pay-in. */
const forceRef = 'payin';

/** Refuses a forced supplement the order's state or the UTR no longer allows. */
async function mayForce(tx: Db, order: PayinOrder, force: Forced): Promise<void> {
  allowed(order, 'force');
  if (force.utr && (await orderUsingUtr(tx, force.utr))) throw new AppError(errno.utrUsed);
}

/** The order paid on `userId`'s word (the `force` transition), or 409 when it moved meanwhile. */
async function forcePaid(
  deps: Deps,
  tx: Db,
  order: PayinOrder,
  force: Forced,
  userId: number,
): Promise<PayinOrder> {
  const paid = await withUtrGuard(() =>
    transition(
      deps,
      tx,
      order.id,
      'force',
      {
        utr: force.utr ?? order.utr,
        paidAmount: force.paidAmount,
        paidBy: 'force',
        paidAt: deps.clock.now(),
        failureReason: order.failureReason,
      },
      userId,
    ),
  );
  if (!paid) throw new AppError(errno.conflict, null, 'moved meanwhile');
  return paid;
}

// A forced supplement above the maker–checker threshold runs when a second platform user approves it:
// the same checks and transition, in the approver's name.
onApproved('payin.force', async (deps, tx, request, approverId) => {
  const [order] = await tx
    .select()
    .from(payinOrders)
    .where(eq(payinOrders.id, Number(request.refId)));
  if (!order) throw new AppError(errno.notFound);
  const force = request.payload as unknown as Forced;
  await mayForce(tx, order, force);
  const paid = await forcePaid(deps, tx, order, force, approverId);
  return {
    changes: { orderStatus: { before: order.status, after: paid.status } },
    detail: { order: auditTarget(order), paidAmount: formatMinor(force.paidAmount), utr: force.utr },
  };
});

export const payinRoutes = [
  handle(endpoints.merchantOrder.list, ({ input, user, tx, deps, req }) =>
    payinList.list(deps, tx, user, input, req.lang),
  ),

  // Totals may read a moment behind (the read replica, `withReader`); the page itself stays on the primary.
  handle(endpoints.merchantOrder.totals, ({ input, user, deps, req }) =>
    withReader({ deps, req }, (db) => payinList.totals(deps, db, user, input, req.lang)),
  ),

  handle(endpoints.merchantOrder.info, async ({ input, user, tx, req }) => {
    const order = await orderFor(tx, user, input, req.lang);
    const withCodes = await loadWithCodes(tx, order.id);
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
      callbacks: await callbacksOf(tx, 'payin', order.id),
      postings: lines,
      images: images.map((i) => ({
        id: i.id,
        url: `/api${endpoints.merchantOrder.image.path}?id=${i.id}`,
        mime: i.mime,
        size: i.size,
        createdAt: i.createdAt.toISOString(),
      })),
    };
  }),

  handle(endpoints.merchantOrder.create, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const merchant = await loadMerchant(tx, user.merchantId!);
    if (merchant.status !== 'active') throw new AppError(errno.forbidden, null, 'merchant frozen');
    const notifyUrl = input.notifyUrl?.trim() || merchant.callbackUrl;
    if (notifyUrl && !/^https?:\/\/\S+$/.test(notifyUrl))
      throw invalidField(req.lang, 'notifyUrl', 'validation.url');
    const result = await createPayin(
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
    audit({
      target: auditTarget(result.order),
      detail: { amount: formatMinor(input.amount), replayed: result.replayed },
    });
    afterCommit(wakeWebhookWorkers);
    return loadRow(tx, result.order.id);
  }),

  handle(endpoints.merchantOrder.update, async ({ input, user, tx, deps, req, audit }) => {
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
  }),

  handle(endpoints.merchantOrder.delete, async ({ input, user, tx, req, audit, afterCommit, deps }) => {
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
  }),

  handle(
    endpoints.merchantOrder.utrCheck,
    async ({ input, user, tx, deps, req, audit }) => {
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
              .where(eq(payinOrders.orderNo, hit.orderNo))
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
    },
    // A UTR check may ask a channel over the network: no transaction is held open meanwhile.
    { outsideTransaction: true },
  ),

  handle(endpoints.merchantOrder.supplement, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
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
    const hit = await findPayment(
      deps,
      tx,
      input.utr,
      channel ? [channel] : [],
      utrSourcesFor(tenantOf(user)),
    );
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
  }),

  handle(
    endpoints.merchantOrder.forceSupplement,
    async ({ input, user, tx, deps, req, audit, afterCommit }) => {
      const order = await orderFor(tx, user, { id: input.id }, req.lang);
      const detail = {
        reason: input.reason,
        utr: input.utr ?? null,
        paidAmount: input.paidAmount === undefined ? null : formatMinor(input.paidAmount),
      };
      audit({ target: auditTarget(order), detail });
      const paidAmount = input.paidAmount ?? order.amount;
      // A payment above the order's amount is a separate adjustment, never a forced supplement.
      if (paidAmount > order.amount) {
        throw invalidField(req.lang, 'paidAmount', 'validation.paidAboveAmount', {
          amount: formatMinor(order.amount),
        });
      }
      if (paidAmount < order.fee) {
        throw invalidField(req.lang, 'paidAmount', 'validation.paidBelowFee', {
          fee: formatMinor(order.fee),
        });
      }
      // The code before the order's state, so a wrong one is counted (committed) whatever that state.
      const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
      if (refused) return refused;
      const force: Forced = { reason: input.reason, utr: input.utr ?? null, paidAmount };
      await mayForce(tx, order, force);
      // While a second person is asked about this order, nobody forces it by hand meanwhile.
      if (await pendingApproval(tx, forceRef, order.id)) throw new AppError(errno.approvalPending);
      const request = await aloneOrApproval(
        deps,
        tx,
        'payin.force',
        user.id,
        {
          amount: paidAmount,
          wallet: merchantWallet(order.merchantId, 'collection', order.currency),
          ref: auditTarget(order),
        },
        {
          refType: forceRef,
          refId: order.id,
          merchantId: order.merchantId,
          currency: order.currency,
          payload: { id: order.id, ...force },
          reason: input.reason,
        },
      );
      if (request) {
        audit({ detail: { ...detail, approvalId: request.id } });
        return refuse(errno.approvalRequested, { approvalId: request.id });
      }
      const paid = await forcePaid(deps, tx, order, force, user.id);
      afterCommit(wakeWebhookWorkers);
      return loadRow(tx, paid.id);
    },
  ),

  handle(endpoints.merchantOrder.uploadImage, async ({ input, user, tx, deps, req, audit }) => {
    const order = await orderFor(tx, user, { id: input.id }, req.lang);
    audit({ target: auditTarget(order), detail: { filename: input.filename, mime: input.mime } });
    allowed(order, 'uploadImage');
    const bytes = decodeImage(input.mime, input.dataBase64);
    if (typeof bytes === 'string') throw invalidField(req.lang, 'dataBase64', bytes);
    const [{ n } = { n: 0 }] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(orderImages)
      .where(eq(orderImages.orderId, order.id));
    if (Number(n) >= maxImagesPerOrder) {
      throw invalidField(req.lang, 'id', 'validation.imageCount', { max: maxImagesPerOrder });
    }
    const path = await storeImage(deps, order.id, input.mime as ImageMime, bytes);
    const [row] = await tx
      .insert(orderImages)
      .values({
        orderId: order.id,
        path,
        mime: input.mime,
        size: bytes.length,
        userId: user.id,
        createdAt: deps.clock.now(),
      })
      .returning({ id: orderImages.id });
    return { imageId: row!.id };
  }),

  handle(endpoints.merchantOrder.image, async ({ input, user, tx, deps }) => {
    const tenant = tenantOf(user);
    const [row] = await tx
      .select({ image: orderImages })
      .from(orderImages)
      .innerJoin(payinOrders, eq(payinOrders.id, orderImages.orderId))
      .where(
        and(eq(orderImages.id, input.id), tenant === null ? undefined : eq(payinOrders.merchantId, tenant)),
      );
    if (!row) throw new AppError(errno.notFound);
    const bytes = await readImage(deps, row.image.path).catch(() => null);
    if (!bytes) throw new AppError(errno.notFound, null, `image file ${row.image.path} missing`);
    return {
      id: row.image.id,
      orderId: row.image.orderId,
      mime: row.image.mime,
      size: row.image.size,
      dataBase64: bytes.toString('base64'),
    };
  }),

  handle(
    endpoints.merchantOrder.push,
    async ({ input, user, tx, deps, req, audit }) => {
      const order = await orderFor(tx, user, { id: input.id }, req.lang);
      audit({ target: auditTarget(order) });
      allowed(order, 'push');
      const attempt = await pushNow(deps, 'payin', order.id, user.id);
      if (!attempt) return refuse(errno.noCallback);
      return {
        at: attempt.at.toISOString(),
        manual: true,
        httpStatus: attempt.httpStatus,
        response: attempt.response,
        durationMs: attempt.durationMs,
      };
    },
    // The push waits for the merchant's server (up to 15 s): no transaction is held open meanwhile.
    { outsideTransaction: true },
  ),

  handle(endpoints.simulator.pay, async ({ input, tx, deps, audit, afterCommit }) => {
    const [order] = await tx.select().from(payinOrders).where(eq(payinOrders.orderNo, input.orderNo));
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
  }),
];
