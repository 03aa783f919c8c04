/**
 * `GET /statOrder/balance`: the balance views of the reports. `view=d0` is the D0 settlement summary
 * (`d0.ts`): a merchant user sees its own merchant only; naming another answers 404, as if it did not
 * exist. `view=merchant` is the settlement statistics (`merchant.ts`), with the same tenancy.
 * `view=account` is reconciliation (`account.ts`), the platform's alone: a merchant user gets 403.
 * `GET /statOrder/unproved` lists the paid orders behind a reconciliation row's `unproved` figure.
 * `GET /statOrder/list` (order statistics) and `GET /statOrder/channel` (channel statistics) are
 * `orders.ts`; channels are the platform's business, so a merchant user asking by channel gets 403.
 * The three `…/export` endpoints answer a report's rows and totals as a CSV or XLSX file (`exports.ts`).
 */
import { unprovedLimit } from '../../../contract/endpoints/stat.ts';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import type { Db } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import {
  type AuditEntry,
  FileAnswer,
  type HandlerContext,
  handle,
  type RequestMeta,
} from '../../http/handle.ts';
import { withReader } from '../../http/reader.ts';
import type { SessionUser } from '../../http/session.ts';
import { errorForLog } from '../../lib/logger.ts';
import { contentTypes, type ExportFormat, exportBatchSize, exportStream } from '../export/stream.ts';
import { accountPage, accountTotals, decodeAccountCursor, unprovedOrders } from './account.ts';
import { channelStats, decodeChannelCursor } from './channels.ts';
import { d0Page, d0Totals, decodeD0Cursor } from './d0.ts';
import {
  channelStatFields,
  merchantViewFields,
  orderStatFields,
  type ReportRow,
  reportColumns,
  reportSource,
} from './exports.ts';
import { decodeMerchantCursor, merchantViewPage, merchantViewTotals } from './merchant.ts';
import { decodeStatCursor, orderStats } from './orders.ts';
import { periodOf } from './period.ts';

/**
 * The merchant a report is confined to: a merchant user's own (naming another answers 404, as if it did
 * not exist), else the one asked for, if any.
 */
function merchantOf(user: SessionUser, merchantId: number | undefined): number | null {
  if (user.kind !== 'merchant') return merchantId ?? null;
  if (merchantId !== undefined && merchantId !== user.merchantId) throw new AppError(errno.notFound);
  return user.merchantId!;
}

/** Order statistics' filters: a merchant user sees no channel (403 when it asks by one). */
function orderStatFilters(
  user: SessionUser,
  input: { merchantId?: number | undefined; channelId?: number | undefined; byChannel?: boolean | undefined },
  period: { from: string; to: string },
) {
  const merchantId = merchantOf(user, input.merchantId);
  if (user.kind === 'merchant' && (input.byChannel || input.channelId !== undefined))
    throw new AppError(errno.forbidden);
  return { ...period, merchantId, channelId: input.channelId ?? null, byChannel: input.byChannel ?? false };
}

/**
 * Answers a report's file, the export written in the operation log like the order lists'. The first batch
 * is read before the answer starts, so a failure there is still an error answer, not a cut-off file.
 */
async function reportFile(
  deps: Deps,
  req: RequestMeta,
  audit: (entry: AuditEntry) => void,
  name: string,
  filters: { from: string; to: string; format: ExportFormat } & Record<string, unknown>,
  source: ReturnType<typeof reportSource>,
) {
  const first = await source.batch(null, exportBatchSize);
  audit({ target: `export:${name}`, detail: filters });
  const body = exportStream(source, first, filters.format, req.lang, (err) =>
    deps.logger.error({ rid: req.requestId, export: name, err: errorForLog(err) }, 'export ended early'),
  );
  return new FileAnswer(
    `${name}_${filters.from}_${filters.to}.${filters.format}`,
    contentTypes[filters.format],
    body,
  );
}

export const statRoutes = [
  handle(endpoints.statOrder.balance, (ctx) => withReader(ctx, (tx) => balance(ctx, tx))),
  handle(endpoints.statOrder.unproved, (ctx) =>
    withReader(ctx, (tx) => unprovedOrders(tx, ctx.input, unprovedLimit)),
  ),

  handle(endpoints.statOrder.list, ({ input, user, deps, req }) =>
    withReader({ deps, req }, async (tx) => {
      const filters = orderStatFilters(user, input, await periodOf(tx, deps, input, req));
      const after = input.cursor ? decodeStatCursor(input.cursor, req.lang) : null;
      return {
        from: filters.from,
        to: filters.to,
        ...(await orderStats(tx, filters, after, input.pageSize)),
      };
    }),
  ),

  handle(endpoints.statOrder.listExport, ({ input, user, deps, req, audit }) =>
    withReader({ deps, req }, async (tx) => {
      const filters = orderStatFilters(user, input, await periodOf(tx, deps, input, req));
      const source = reportSource(
        reportColumns(orderStatFields(filters.byChannel), req.lang),
        (cursor, size) =>
          orderStats(tx, filters, cursor ? decodeStatCursor(cursor, req.lang) : null, size, false),
        async () => (await orderStats(tx, filters, null, 1)).totals as ReportRow[],
        req.lang,
      );
      return reportFile(deps, req, audit, 'order-statistics', { ...filters, format: input.format }, source);
    }),
  ),

  handle(endpoints.statOrder.channel, ({ input, deps, req }) =>
    withReader({ deps, req }, async (tx) => {
      const { from, to } = await periodOf(tx, deps, input, req);
      const after = input.cursor ? decodeChannelCursor(input.cursor, req.lang) : null;
      const stats = await channelStats(
        tx,
        { from, to, channelId: input.channelId ?? null },
        after,
        input.pageSize,
      );
      return { from, to, ...stats };
    }),
  ),

  handle(endpoints.statOrder.channelExport, ({ input, deps, req, audit }) =>
    withReader({ deps, req }, async (tx) => {
      const filters = { ...(await periodOf(tx, deps, input, req)), channelId: input.channelId ?? null };
      const source = reportSource(
        reportColumns(channelStatFields, req.lang),
        (cursor, size) =>
          channelStats(tx, filters, cursor ? decodeChannelCursor(cursor, req.lang) : null, size),
        async () => (await channelStats(tx, filters, null, 1)).totals as ReportRow[],
        req.lang,
      );
      return reportFile(deps, req, audit, 'channel-statistics', { ...filters, format: input.format }, source);
    }),
  ),

  handle(endpoints.statOrder.balanceExport, ({ input, user, deps, req, audit }) =>
    withReader({ deps, req }, async (tx) => {
      const filters = {
        ...(await periodOf(tx, deps, input, req)),
        merchantId: merchantOf(user, input.merchantId),
      };
      const source = reportSource(
        reportColumns(merchantViewFields, req.lang),
        (cursor, size) =>
          merchantViewPage(tx, filters, cursor ? decodeMerchantCursor(cursor, req.lang) : null, size),
        async () => (await merchantViewTotals(tx, filters)).totals as ReportRow[],
        req.lang,
      );
      return reportFile(
        deps,
        req,
        audit,
        'settlement-statistics',
        { ...filters, format: input.format },
        source,
      );
    }),
  ),
];

/** `GET /statOrder/balance`'s three views, on the handle `withReader` chose. */
async function balance(
  { input, user, deps, req }: HandlerContext<typeof endpoints.statOrder.balance, SessionUser>,
  tx: Db,
) {
  const tenant = user.kind === 'merchant' ? user.merchantId! : null;
  // Reconciliation is the platform's: its accounts and statements are no merchant's business.
  if (input.view === 'account' && tenant !== null) throw new AppError(errno.forbidden);
  const merchantId = merchantOf(user, input.merchantId);
  const { from, to } = await periodOf(tx, deps, input, req);
  if (input.view === 'account') {
    const filters = {
      from,
      to,
      by: input.by ?? 'account',
      accountId: input.accountId ?? null,
      channelId: input.channelId ?? null,
    };
    const after = input.cursor ? decodeAccountCursor(input.cursor, req.lang) : null;
    const page = await accountPage(tx, filters, after, input.pageSize);
    const { businessTimeZone, totals } = await accountTotals(tx, filters);
    return { view: 'account' as const, by: filters.by, from, to, businessTimeZone, ...page, totals };
  }
  const filters = { from, to, merchantId };
  if (input.view === 'merchant') {
    const after = input.cursor ? decodeMerchantCursor(input.cursor, req.lang) : null;
    const page = await merchantViewPage(tx, filters, after, input.pageSize);
    const { businessTimeZone, totals } = await merchantViewTotals(tx, filters);
    return { view: 'merchant' as const, from, to, businessTimeZone, ...page, totals };
  }
  const after = input.cursor ? decodeD0Cursor(input.cursor, req.lang) : null;
  const page = await d0Page(tx, filters, after, input.pageSize);
  const { businessTimeZone, totals } = await d0Totals(tx, filters);
  return { view: 'd0' as const, from, to, businessTimeZone, ...page, totals };
}
