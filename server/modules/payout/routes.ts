/**
 * Payout orders in the console (`merchantPayout.*`) and the simulator's payout control. Merchant users
 * are confined to their own merchant: another merchant's order is simply not found (404).
 */
import { and, eq, inArray } from 'drizzle-orm';
import { type Errno, errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { payout } from '../../../contract/machines.ts';
import { feeOf, formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { channels, payoutOrders } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError, refuse } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { t } from '../../http/i18n.ts';
import { withReader } from '../../http/reader.ts';
import { callbacksOf, wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { merchantBalances, orderPostings } from '../../ledger/index.ts';
import { aloneOrApprovalOnMerchant } from '../approval/doors.ts';
import { approvalRequested, onApproved, pendingApproval } from '../approval/service.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { loadMerchant } from '../merchant/scope.ts';
import { payoutNumbered } from '../orders/keys.ts';
import { payoutList } from '../orders/kinds.ts';
import { pushByHand } from '../orders/push.ts';
import { refuseWhileOnSlip } from '../slip/live.ts';
import { type BulkError, readBulkFile } from './bulk.ts';
import {
  completePayout,
  createPayout,
  payoutRefType,
  payoutRowById,
  payoutRowsOf,
  retryPayout,
} from './service.ts';
import { settleSimulatorPayout } from './simulator.ts';

/** A payout the user may see, by id or order number, or 404 (the list engine's rule for every kind). */
const findOrder = payoutList.orderFor;

/** What a person's mark of success records: why, and the bank's UTR if they have it. */
interface Marked {
  reason: string;
  utr: string | null;
}

/** `markSuccess` in `userId`'s name: the hold is spent and the merchant told (409 when it moved on). */
const markPaid = (deps: Deps, tx: Db, orderId: number, mark: Marked, userId: number) =>
  completePayout(deps, tx, { orderId, result: 'success', ...mark, by: 'manual', userId });

// A mark of success above the maker–checker threshold runs when a second platform user approves it.
onApproved('payout.markSuccess', async (deps, tx, request, approverId) => {
  // Put on a withdrawal slip since it was asked: the slip settles it now.
  await refuseWhileOnSlip(tx, 'payout', Number(request.refId));
  const [before] = await tx
    .select({ status: payoutOrders.status })
    .from(payoutOrders)
    .where(eq(payoutOrders.id, Number(request.refId)));
  const o = await markPaid(deps, tx, Number(request.refId), request.payload as unknown as Marked, approverId);
  return {
    changes: { orderStatus: { before: before?.status ?? null, after: o.status } },
    detail: { order: `payout:${o.orderNo}` },
  };
});

export const payoutRoutes = [
  handle(endpoints.merchantPayout.list, ({ input, user, tx, deps, req }) =>
    payoutList.list(deps, tx, user, input, req.lang),
  ),

  // Totals may read a moment behind (the read replica, `withReader`); the page itself stays on the primary.
  handle(endpoints.merchantPayout.totals, ({ input, user, deps, req }) =>
    withReader({ deps, req }, (db) => payoutList.totals(deps, db, user, input, req.lang)),
  ),

  handle(endpoints.merchantPayout.info, async ({ input, user, tx, req }) => {
    // The callbacks before the order shown (as the pay-in's drawer reads them): a delivery marks its event
    // and the order pushed in one statement, so the order read after its events is never behind them.
    const { id } = await findOrder(tx, user, input, req.lang);
    const callbacks = await callbacksOf(tx, 'payout', id);
    const o = await findOrder(tx, user, input, req.lang);
    const [row] = await payoutRowsOf(tx, [o], user.kind);
    return {
      ...row!,
      notifyUrl: o.notifyUrl,
      requestSnapshot: o.requestSnapshot ?? null,
      responseSnapshot: o.responseSnapshot ?? null,
      callbacks,
      postings: await orderPostings(tx, payoutRefType, o.id, user.kind === 'merchant' ? o.merchantId : null),
    };
  }),

  handle(endpoints.merchantPayout.create, async ({ input, user, tx, deps, req, audit }) => {
    const m = await loadMerchant(tx, user.merchantId!);
    const { code, ...request } = input;
    audit({
      target: `merchant:${m.id}`,
      detail: { amount: formatMinor(input.amount), merchantOrderNo: input.merchantOrderNo ?? null },
    });
    const refused = await checkGoogleCode(tx, deps, user, req.ip, code);
    if (refused) return refused;
    const made = await createPayout(deps, tx, m, request, {
      source: 'console',
      lang: req.lang,
      userId: user.id,
      snapshot: request,
    });
    audit({ target: `payout:${made.order.orderNo}`, detail: { replayed: made.replayed } });
    return (await payoutRowsOf(tx, [made.order]))[0]!;
  }),

  handle(endpoints.merchantPayout.bulkCreate, async ({ input, user, tx, deps, req, audit }) => {
    const m = await loadMerchant(tx, user.merchantId!);
    audit({
      target: `merchant:${m.id}`,
      detail: { filename: input.filename, dryRun: input.dryRun === true },
    });
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code, !input.dryRun);
    if (refused) return refused;
    const { rows, errors, rowCount } = await readBulkFile(
      input.filename,
      Buffer.from(input.dataBase64, 'base64'),
      req.lang,
      { min: m.minAmount, max: m.maxAmount },
    );
    // Business checks that need the database: numbers used before, and the balance.
    let total = 0;
    let fees = 0;
    for (const r of rows) {
      total += r.amount;
      fees += feeOf(r.amount, m.payoutRatePpm, m.payoutFee);
    }
    const numbers = rows.map((r) => r.merchantOrderNo).filter((n): n is string => !!n);
    if (numbers.length) {
      const used = await tx
        .select({ no: payoutOrders.merchantOrderNo })
        .from(payoutOrders)
        .where(and(eq(payoutOrders.merchantId, m.id), inArray(payoutOrders.merchantOrderNo, numbers)));
      const taken = new Set(used.map((u) => u.no));
      for (const r of rows) {
        if (r.merchantOrderNo && taken.has(r.merchantOrderNo))
          errors.push({
            row: r.row,
            field: 'merchantOrderNo',
            message: t(req.lang, 'validation.orderNoUsed'),
          });
      }
    }
    let failure: Errno = errno.invalid;
    if (!errors.length) {
      const balance = await merchantBalances(tx, m.id, m.currency);
      if (total + fees > balance.payout_available) {
        failure = errno.insufficientBalance;
        errors.push({ row: 0, field: 'amount', message: t(req.lang, `errno.${errno.insufficientBalance}`) });
      }
    }
    errors.sort((a: BulkError, b: BulkError) => a.row - b.row);
    const preview = {
      valid: errors.length === 0,
      rows: rowCount,
      total: formatMinor(total),
      fees: formatMinor(fees),
      errors: errors.slice(0, 500),
      created: [] as string[],
    };
    audit({
      detail: { filename: input.filename, rows: rowCount, total: preview.total, errors: errors.length },
    });
    if (input.dryRun) return preview;
    // All or nothing: a refusal rolls everything back, the Google code's use included.
    if (errors.length) throw new AppError(failure, preview);
    for (const r of rows) {
      const made = await createPayout(
        deps,
        tx,
        m,
        {
          amount: r.amount,
          accountName: r.accountName,
          accountNumber: r.accountNumber,
          ifsc: r.ifsc,
          merchantOrderNo: r.merchantOrderNo,
        },
        { source: 'bulk', lang: req.lang, userId: user.id, snapshot: { file: input.filename, row: r.row } },
      );
      // A number taken meanwhile by a concurrent create: the file is not applied at all.
      if (made.replayed) throw new AppError(errno.conflict, { ...preview, valid: false });
      preview.created.push(made.order.orderNo);
    }
    return preview;
  }),

  // Hand actions on money: the order first (404), then the acting user's Google code (a refusal is
  // returned, so its counted failure commits), then the service's compare-and-set transition, which
  // refuses (409) a state the action may not start from (`payout` in contract/machines.ts).
  handle(endpoints.merchantPayout.retry, async ({ input, user, tx, deps, req, audit }) => {
    const before = await findOrder(tx, user, { id: input.id }, req.lang);
    audit({ target: `payout:${before.orderNo}`, detail: { reason: input.reason } });
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const o = await retryPayout(deps, tx, input.id, user.id);
    audit({ changes: { status: { before: before.status, after: o.status } } });
    return payoutRowById(tx, o.id);
  }),

  handle(endpoints.merchantPayout.markSuccess, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const before = await findOrder(tx, user, { id: input.id }, req.lang);
    const mark: Marked = { reason: input.reason, utr: input.utr ?? null };
    audit({ target: `payout:${before.orderNo}`, detail: { ...mark } });
    // On a live withdrawal slip the bank may still send it: its slip line settles it, or is dropped first.
    await refuseWhileOnSlip(tx, 'payout', before.id);
    if (!payout.can('markSuccess', before.status)) {
      throw new AppError(errno.conflict, null, `markSuccess: not from ${before.status}`);
    }
    // While a second person is asked about this payout, nobody marks it paid by hand meanwhile.
    if (await pendingApproval(tx, payoutRefType, before.id)) throw new AppError(errno.approvalPending);
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const request = await aloneOrApprovalOnMerchant(deps, tx, 'payout.markSuccess', user.id, {
      merchantId: before.merchantId,
      currency: before.currency,
      wallet: 'payout',
      amount: before.amount,
      ref: `payout:${before.orderNo}`,
      refType: payoutRefType,
      refId: before.id,
      payload: { id: before.id, ...mark },
      reason: input.reason,
    });
    if (request) return approvalRequested(audit, request, { ...mark });
    const o = await markPaid(deps, tx, before.id, mark, user.id);
    audit({ changes: { status: { before: before.status, after: o.status } }, detail: { ...mark } });
    afterCommit(wakeWebhookWorkers);
    return payoutRowById(tx, o.id);
  }),

  handle(endpoints.merchantPayout.markFailed, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const before = await findOrder(tx, user, { id: input.id }, req.lang);
    audit({ target: `payout:${before.orderNo}`, detail: { reason: input.reason } });
    await refuseWhileOnSlip(tx, 'payout', before.id);
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const o = await completePayout(deps, tx, {
      orderId: input.id,
      result: 'fail',
      reason: input.reason,
      by: 'manual',
      userId: user.id,
    });
    audit({ changes: { status: { before: before.status, after: o.status } } });
    afterCommit(wakeWebhookWorkers);
    return payoutRowById(tx, o.id);
  }),

  handle(
    endpoints.merchantPayout.push,
    async ({ input, user, tx, deps, req, audit }) => {
      const o = await findOrder(tx, user, { id: input.id }, req.lang);
      audit({ target: `payout:${o.orderNo}` });
      // Only an outcome is pushed: a retried order under way again has none yet (its last is old news).
      if (!payout.can('push', o.status)) return refuse(errno.noCallback);
      return pushByHand(deps, 'payout', o.id, user.id);
    },
    // The push waits for the merchant's server (up to 15 s): no transaction is held open meanwhile.
    { outsideTransaction: true },
  ),

  handle(endpoints.simulator.payout, async ({ input, user, tx, deps, audit, afterCommit }) => {
    const [row] = await tx
      .select({ o: payoutOrders, adapter: channels.adapter })
      .from(payoutOrders)
      .leftJoin(channels, eq(channels.id, payoutOrders.channelId))
      .where(payoutNumbered(input.orderNo))
      .for('update', { of: payoutOrders });
    // Only orders that the simulator carries can be settled by it.
    if (row?.adapter !== 'simulator') throw new AppError(errno.notFound);
    audit({ target: `payout:${row.o.orderNo}`, detail: { result: input.result } });
    const o = await settleSimulatorPayout(deps, tx, row.o, input.result, user.id);
    afterCommit(wakeWebhookWorkers);
    return { orderNo: o.orderNo, status: o.status };
  }),
];
