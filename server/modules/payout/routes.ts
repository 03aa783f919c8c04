/**
 * Payout orders in the console (`merchantPayout.*`) and the simulator's payout control. Merchant users
 * are confined to their own merchant: another merchant's order is simply not found (404).
 */
import { and, eq, gte, inArray, lte, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { type Errno, errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { feeOf, formatMinor } from '../../../contract/money.ts';
import { normalUtr } from '../../../contract/schemas.ts';
import type { Db } from '../../db/index.ts';
import { channels, payoutOrders } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError, refuse } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { type Lang, t } from '../../http/i18n.ts';
import type { SessionUser } from '../../http/session.ts';
import { invalidField } from '../../http/validation.ts';
import { callbacksOf, pushNow, wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { merchantBalances, orderPostings } from '../../ledger/index.ts';
import { type NumberSearch, withNumberSearch } from '../../lib/numberSearch.ts';
import { cappedCount, dbTime, decodeCursor, encodeCursor, totalCap } from '../../lib/paging.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { loadMerchant } from '../merchant/scope.ts';
import { type BulkError, readBulkFile } from './bulk.ts';
import {
  completePayout,
  createPayout,
  type PayoutOrder,
  payoutRefType,
  payoutRowById,
  payoutRowsOf,
  retryPayout,
} from './service.ts';
import { settleSimulatorPayout } from './simulator.ts';

/** Order queries look at most this far back (PRODUCT.md section 2). */
export const lookbackMs = 60 * 24 * 3600 * 1000;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

interface ListInput {
  from: string;
  to: string;
  merchantId?: number;
  channelId?: number;
  pushStatus?: 'unpushed' | 'pushed';
  status?: PayoutOrder['status'] | PayoutOrder['status'][];
  q?: string;
  /** Whole numbers (system, merchant, channel, UTR): orders matching any of them. */
  nos?: string | string[];
}

/**
 * The filters of a list or totals request as SQL, and the period's end. A merchant user's own merchant
 * is always applied; naming another merchant is answered 404.
 */
export function filtersOf(
  input: ListInput,
  user: SessionUser,
  deps: Deps,
  lang: Lang,
  search?: NumberSearch,
) {
  const from = dbTime(input.from, 'from');
  const to = dbTime(input.to, 'to');
  if (from.getTime() < deps.clock.now().getTime() - lookbackMs)
    throw invalidField(lang, 'from', 'validation.range60');
  let merchantId = input.merchantId;
  if (user.kind === 'merchant') {
    if (merchantId !== undefined && merchantId !== user.merchantId) throw new AppError(errno.notFound);
    merchantId = user.merchantId!;
  }
  const statuses =
    input.status === undefined ? undefined : Array.isArray(input.status) ? input.status : [input.status];
  const q = input.q?.trim();
  const prefix = q ? `${escapeLike(q)}%` : '';
  const nos = input.nos === undefined ? [] : [...new Set([input.nos].flat())];
  const exact = (col: AnyPgColumn, values = nos) => inArray(sql`${col} collate "C"`, values);
  const where = and(
    // Any of several whole numbers, by equality through the same `COLLATE "C"` indexes; UTRs are
    // stored upper case, so they are compared with the numbers upper-cased.
    nos.length
      ? or(
          exact(payoutOrders.orderNo),
          exact(payoutOrders.merchantOrderNo),
          exact(payoutOrders.channelOrderId),
          exact(payoutOrders.utr, [...new Set(nos.map(normalUtr))]),
        )
      : undefined,
    merchantId !== undefined ? eq(payoutOrders.merchantId, merchantId) : undefined,
    gte(payoutOrders.createdAt, from),
    statuses?.length ? inArray(payoutOrders.status, statuses) : undefined,
    input.pushStatus ? eq(payoutOrders.pushStatus, input.pushStatus) : undefined,
    input.channelId !== undefined ? eq(payoutOrders.channelId, input.channelId) : undefined,
    // Whole numbers and prefixes, through the `COLLATE "C"` btree indexes of each number column; the
    // lists' bounded search (`searchedFilters`) reads from its own source instead.
    q && !search
      ? or(
          sql`${payoutOrders.orderNo} collate "C" like ${prefix}`,
          sql`${payoutOrders.merchantOrderNo} collate "C" like ${prefix}`,
          sql`${payoutOrders.channelOrderId} collate "C" like ${prefix}`,
          sql`${payoutOrders.utr} collate "C" like ${normalUtr(prefix)}`,
        )
      : undefined,
  );
  return { where, to, search };
}

const payoutNumbers = {
  table: payoutOrders,
  id: payoutOrders.id,
  columns: [
    payoutOrders.orderNo,
    payoutOrders.merchantOrderNo,
    payoutOrders.channelOrderId,
    payoutOrders.utr,
  ],
  upperCased: [payoutOrders.utr],
};

/** `filtersOf` with the number search bounded (`withNumberSearch`): lists and their totals; exports not. */
const searchedFilters = (input: ListInput, user: SessionUser, deps: Deps, tx: Db, lang: Lang) =>
  withNumberSearch(deps.database, tx, payoutNumbers, input.q, (search) =>
    filtersOf(input, user, deps, lang, search),
  );

/** Newest first, in the order of the `(created_at DESC, id DESC)` indexes, so pages are index reads. */
const newestFirst = [sql`${payoutOrders.createdAt} desc`, sql`${payoutOrders.id} desc`];

/**
 * One page of the list, newest first. The next page carries only the cursor bound, not the period's
 * end again: it is tighter, and with both bounds PGlite's planner starts from the wrong end.
 */
export function pageQuery(
  tx: Db,
  where: SQL | undefined,
  bound: { at: Date; id: number } | { to: Date },
  limit: number,
  search?: NumberSearch,
) {
  const b: SQL =
    'at' in bound
      ? sql`(${payoutOrders.createdAt}, ${payoutOrders.id}) < (${bound.at}, ${bound.id})`
      : lte(payoutOrders.createdAt, bound.to);
  // A number search's orders under the table's own name (see `NumberSearch.source`).
  const from = search
    ? tx.select().from(payoutOrders).where(search.matches).offset(0).as('payout_orders')
    : payoutOrders;
  return tx
    .select()
    .from(from)
    .where(and(where, b))
    .orderBy(...newestFirst)
    .limit(limit);
}

/** One order the caller may see, by id or system order number; anything else is 404. */
async function findOrder(
  tx: Db,
  user: SessionUser,
  by: { id?: number; orderNo?: string },
  lang: Lang,
  lock = false,
): Promise<PayoutOrder> {
  if (by.id === undefined && !by.orderNo)
    throw invalidField(lang, 'id', 'validation.required', undefined, 'required');
  const q = tx
    .select()
    .from(payoutOrders)
    .where(
      and(
        by.id !== undefined ? eq(payoutOrders.id, by.id) : eq(payoutOrders.orderNo, by.orderNo!),
        user.kind === 'merchant' ? eq(payoutOrders.merchantId, user.merchantId!) : undefined,
      ),
    );
  const [o] = lock ? await q.for('update') : await q;
  if (!o) throw new AppError(errno.notFound);
  return o;
}

export const payoutRoutes = [
  handle(endpoints.merchantPayout.list, async ({ input, user, tx, deps, req }) => {
    const { where, to, search, broad } = await searchedFilters(input, user, deps, tx, req.lang);
    const c = input.cursor ? decodeCursor(input.cursor) : undefined;
    const rows = await pageQuery(tx, where, c ? c : { to }, input.pageSize + 1, search);
    const more = rows.length > input.pageSize;
    const page = rows.slice(0, input.pageSize);
    const last = page.at(-1);
    const counted = await cappedCount(
      tx,
      search?.source ?? sql`${payoutOrders}`,
      and(where, lte(payoutOrders.createdAt, to)),
    );
    // A broad search found some of its orders, not all: its count is a floor.
    if (broad) counted.totalCapped = true;
    return {
      list: await payoutRowsOf(tx, page, user.kind),
      ...counted,
      nextCursor: more && last ? encodeCursor(last.createdAt, last.id) : null,
    };
  }),

  handle(endpoints.merchantPayout.totals, async ({ input, user, tx, deps, req }) => {
    const { where, to, search, broad } = await searchedFilters(input, user, deps, tx, req.lang);
    const source = search?.source ?? sql`${payoutOrders}`;
    // Capped like list totals: the newest `totalCap` orders of the filter are counted and summed.
    const rows = await tx.execute<{ n: number; amount: string }>(sql`
      select count(*)::int as n, coalesce(sum(amount), 0)::text as amount from (
        select ${payoutOrders.amount} as amount from ${source}
        where ${and(where, lte(payoutOrders.createdAt, to))}
        order by ${payoutOrders.createdAt} desc, ${payoutOrders.id} desc
        limit ${totalCap + 1}
      ) t`);
    const list = ((rows as unknown as { rows?: unknown[] }).rows ?? rows) as { n: number; amount: string }[];
    const n = Number(list[0]?.n ?? 0);
    if (n > totalCap) {
      const [capped] = (
        (await tx.execute(sql`
          select coalesce(sum(amount), 0)::text as amount from (
            select ${payoutOrders.amount} as amount from ${source}
            where ${and(where, lte(payoutOrders.createdAt, to))}
            order by ${payoutOrders.createdAt} desc, ${payoutOrders.id} desc
            limit ${totalCap}
          ) t`)) as unknown as { rows: { amount: string }[] }
      ).rows;
      return { count: totalCap, amount: formatMinor(BigInt(capped?.amount ?? '0')), countCapped: true };
    }
    return { count: n, amount: formatMinor(BigInt(list[0]?.amount ?? '0')), countCapped: broad };
  }),

  handle(endpoints.merchantPayout.info, async ({ input, user, tx, req }) => {
    const o = await findOrder(tx, user, input, req.lang);
    const [row] = await payoutRowsOf(tx, [o], user.kind);
    return {
      ...row!,
      notifyUrl: o.notifyUrl,
      requestSnapshot: o.requestSnapshot ?? null,
      responseSnapshot: o.responseSnapshot ?? null,
      callbacks: await callbacksOf(tx, 'payout', o.id),
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
  // returned, so its counted failure commits), then the service's compare-and-set transition.
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
    const detail = { reason: input.reason, utr: input.utr ?? null };
    audit({ target: `payout:${before.orderNo}`, detail });
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const o = await completePayout(deps, tx, {
      orderId: input.id,
      result: 'success',
      utr: input.utr ?? null,
      reason: input.reason,
      by: 'manual',
      userId: user.id,
    });
    audit({ changes: { status: { before: before.status, after: o.status } }, detail });
    afterCommit(wakeWebhookWorkers);
    return payoutRowById(tx, o.id);
  }),

  handle(endpoints.merchantPayout.markFailed, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const before = await findOrder(tx, user, { id: input.id }, req.lang);
    audit({ target: `payout:${before.orderNo}`, detail: { reason: input.reason } });
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
      const result = await pushNow(deps, 'payout', o.id, user.id);
      if (!result) return refuse(errno.noCallback);
      return {
        at: result.at.toISOString(),
        manual: true,
        httpStatus: result.httpStatus,
        response: result.response,
        durationMs: result.durationMs,
      };
    },
    // The push waits for the merchant's server (up to 15 s): no transaction is held open meanwhile.
    { outsideTransaction: true },
  ),

  handle(endpoints.simulator.payout, async ({ input, user, tx, deps, audit, afterCommit }) => {
    const [row] = await tx
      .select({ o: payoutOrders, adapter: channels.adapter })
      .from(payoutOrders)
      .leftJoin(channels, eq(channels.id, payoutOrders.channelId))
      .where(eq(payoutOrders.orderNo, input.orderNo))
      .for('update', { of: payoutOrders });
    // Only orders that the simulator carries can be settled by it.
    if (row?.adapter !== 'simulator') throw new AppError(errno.notFound);
    audit({ target: `payout:${row.o.orderNo}`, detail: { result: input.result } });
    const o = await settleSimulatorPayout(deps, tx, row.o, input.result, user.id);
    afterCommit(wakeWebhookWorkers);
    return { orderNo: o.orderNo, status: o.status };
  }),
];
