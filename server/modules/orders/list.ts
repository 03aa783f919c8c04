/**
 * The order lists' engine, one for both kinds (pay-in and payout), each kind being its table and its row
 * declaration (`orderList`): the period and how far back it may reach, tenancy, the filters, the bounded
 * search by any number (`filters.ts`), keyset pages written as JSON by the database (`pages.ts`), capped
 * totals, the totals of the amount, and one order by id or number. Exports read the same filters
 * (server/modules/export). The other lists read through the general engine (`server/list/`), whose
 * tenancy, lookback and cursors these are.
 *
 * Tenancy: a merchant user sees its own merchant's orders only; the merchant comes from the session, and
 * naming another merchant (`merchantId`) or another merchant's order answers 404, as if it did not exist.
 */
import { and, eq, lte, sql } from 'drizzle-orm';
import { type AnyPgColumn, PgDialect } from 'drizzle-orm/pg-core';
import { errno } from '../../../contract/errno.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { RowFields } from '../../../contract/orderRow.ts';
import type { Db } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { JsonText } from '../../http/handle.ts';
import type { Lang } from '../../http/i18n.ts';
import type { SessionUser } from '../../http/session.ts';
import { invalidField } from '../../http/validation.ts';
import { totalCap } from '../../lib/paging.ts';
import { tenantOf } from '../../list/scope.ts';
import { columnsOf, type ListInput, type OrderKind, orderFilters } from './filters.ts';
import { orderPages } from './pages.ts';
import type { OrderTable } from './row.ts';

export { lookbackMs, tenantOf } from '../../list/scope.ts';
export type { ListInput, OrderKind, Viewer } from './filters.ts';

const dialect = new PgDialect();

/** Totals stop summing with the count (`totalCap`): the amount of a capped total is its newest orders'. */
const totalsRow = (n: unknown, total: unknown, oldest: unknown) => {
  const count = Number(n);
  const capped = count > totalCap;
  const amount = BigInt(String(total)) - (capped ? BigInt(String(oldest)) : 0n);
  return { count: Math.min(count, totalCap), amount: formatMinor(amount), countCapped: capped };
};

export function orderList<T extends OrderTable, F extends RowFields>(kind: OrderKind<T, F>) {
  const { table, row } = kind;
  const t = columnsOf(table);
  const createdAt = t.createdAt as AnyPgColumn;
  const id = t.id as AnyPgColumn;
  const { numbers, filters, searchedFilters } = orderFilters(kind);
  const pages = orderPages(kind);
  const { newestFirst, listPage, listTotal, cursorAfter } = pages;

  /** The list endpoint's answer: a page, its (capped) total and the next cursor, written as JSON text. */
  async function list(
    deps: Deps,
    tx: Db,
    user: SessionUser,
    input: ListInput & { pageSize: number; cursor?: string | undefined },
    lang: Lang,
  ): Promise<JsonText> {
    const f = await searchedFilters(deps, tx, user, input, lang);
    const rows = await listPage(deps.database, tx, f, input.cursor, input.pageSize + 1);
    const page = rows.slice(0, input.pageSize);
    // A first page that holds the whole filtered set is its own count.
    const counted =
      !input.cursor && rows.length <= input.pageSize
        ? { total: rows.length, totalCapped: false }
        : await listTotal(tx, f);
    // A broad search found some of its orders, not all: its count is a floor.
    if (f.broad) counted.totalCapped = true;
    const rest = {
      ...counted,
      nextCursor: rows.length > input.pageSize ? cursorAfter(page.at(-1)!) : null,
    };
    // The rows written as JSON in the contract's shape (`row.json`), not built as objects and serialised.
    return new JsonText(`{"list":[${page.map(row.json).join(',')}],${JSON.stringify(rest).slice(1)}`);
  }

  /**
   * Count and amount of the filtered set, capped like the list's total: past `totalCap` orders, the
   * count says so and the amount is the newest `totalCap` orders' (one statement: the sum of the
   * `totalCap + 1` newest less the oldest of them).
   */
  async function totals(deps: Deps, tx: Db, user: SessionUser, input: ListInput, lang: Lang) {
    const { where, to, broad, source } = await searchedFilters(deps, tx, user, input, lang);
    const newest = sql`select ${t.amount} as amount, ${createdAt} as at, ${id} as id from ${source ?? table}
      where ${and(where, lte(createdAt, to))} order by ${newestFirst} limit ${totalCap + 1}`;
    const q = dialect.sqlToQuery(sql`select count(*)::int, coalesce(sum(amount), 0)::text,
        ((array_agg(amount order by at, id))[1])::text from (${newest}) t`);
    const [r] = await deps.database.raw(tx, q.sql, q.params);
    const out = totalsRow(r?.[0] ?? 0, r?.[1] ?? '0', r?.[2] ?? '0');
    if (broad) out.countCapped = true;
    return out;
  }

  /** An order the user may see, by id or order number (both: the order must have both), or 404. */
  async function orderFor(
    tx: Db,
    user: SessionUser,
    ref: { id?: number | undefined; orderNo?: string | undefined },
    lang: Lang,
  ): Promise<T['$inferSelect']> {
    if (ref.id === undefined && !ref.orderNo) throw invalidField(lang, 'id', 'validation.orderRef');
    const tenant = tenantOf(user);
    const [order] = await tx
      .select()
      .from(table as OrderTable)
      .where(
        and(
          ref.id !== undefined ? eq(id, ref.id) : undefined,
          ref.orderNo ? eq(t.orderNo, ref.orderNo) : undefined,
          tenant === null ? undefined : eq(t.merchantId, tenant),
        ),
      );
    if (!order) throw new AppError(errno.notFound);
    return order as T['$inferSelect'];
  }

  return { kind, numbers, filters, searchedFilters, ...pages, list, totals, orderFor };
}

export type OrderList<T extends OrderTable = OrderTable, F extends RowFields = RowFields> = ReturnType<
  typeof orderList<T, F>
>;
