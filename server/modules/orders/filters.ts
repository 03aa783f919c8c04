/**
 * The order lists' filters, shared by a list, its totals and its export: the period and how far back it
 * may reach, tenancy (404 for another merchant), the statuses, and the search by any number (prefix `q`,
 * whole `nos`).
 */
import { and, eq, gte, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { RowFields } from '../../../contract/orderRow.ts';
import { normalUtr } from '../../../contract/schemas.ts';
import type { Db } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import type { Lang } from '../../http/i18n.ts';
import type { SessionUser } from '../../http/session.ts';
import { type Numbered, type NumberSearch, withNumberSearch } from '../../lib/numberSearch.ts';
import { listPeriod, merchantScope, tenantOf } from '../../list/scope.ts';
import type { ColumnKey, OrderRow, OrderTable } from './row.ts';

/** How a list's columns are read: as stored, or as a merchant user is shown them (`OrderKind.merchantSees`). */
export type Viewer = 'platform' | 'merchant';

/** The filters of a list, its totals and its export (the contract's `orderFilters`). */
export interface ListInput {
  from: string;
  to: string;
  merchantId?: number | undefined;
  channelId?: number | undefined;
  /** Pay-ins only: the receiving account the order was routed to. */
  receivingAccountId?: number | undefined;
  pushStatus?: 'unpushed' | 'pushed' | undefined;
  q?: string | undefined;
  /** Whole numbers (system, merchant, channel, UTR): orders matching any of them. */
  nos?: string | string[] | undefined;
  status?: string | readonly string[] | undefined;
}

/** What an order kind is to the engine. */
export interface OrderKind<T extends OrderTable, F extends RowFields> {
  name: 'payin' | 'payout';
  table: T;
  row: OrderRow<T, F>;
  /** Columns a merchant user is shown otherwise than stored, in lists and exports alike. */
  merchantSees?: Partial<Record<ColumnKey<F>, SQL>>;
  /** Row fields the export leaves out (the ids; what the kind's file never had). */
  notExported: readonly (keyof F & string)[];
}

/** Both order tables name their columns alike; the union's columns are what the engine reads. */
export const columnsOf = (table: OrderTable) => table as OrderTable & Record<string, AnyPgColumn>;

/** `col` starts with `q` (or equals it), through the column's `COLLATE "C"` index. */
const startsWith = (col: AnyPgColumn, q: string) =>
  sql`(${col} collate "C" >= ${q} and ${col} collate "C" < ${`${q}\uffff`})`;

/** How a filter's value enters its condition: as itself, or as a named placeholder (see `filters`). */
type Bind = <V>(name: string, value: V) => V;
const asPlaceholder = ((name: string) => sql.placeholder(name)) as unknown as Bind;

export function orderFilters<T extends OrderTable, F extends RowFields>(kind: OrderKind<T, F>) {
  const t = columnsOf(kind.table);
  const createdAt = t.createdAt as AnyPgColumn;

  /** The kind's numbers a search reads, each with a `COLLATE "C"` index (UTRs are stored upper case). */
  const numbers: Numbered = {
    table: kind.table,
    id: t.id as AnyPgColumn,
    columns: [t.orderNo, t.merchantOrderNo, t.channelOrderId, t.utr] as AnyPgColumn[],
    upperCased: [t.utr as AnyPgColumn],
  };

  /**
   * Orders any of whose numbers equals one of `nos`, through the `COLLATE "C"` indexes; UTRs are stored
   * upper case, so they are compared with the numbers upper-cased.
   */
  function anyNumber(nos: string[]) {
    const exact = (col: AnyPgColumn, values = nos) => inArray(sql`${col} collate "C"`, values);
    return or(
      exact(t.orderNo as AnyPgColumn),
      exact(t.merchantOrderNo as AnyPgColumn),
      exact(t.channelOrderId as AnyPgColumn),
      exact(t.utr as AnyPgColumn, [...new Set(nos.map(normalUtr))]),
    );
  }

  /**
   * The filters of a list, totals or export query (without the period's upper bound, which paging
   * handles). A merchant user naming another merchant is answered 404.
   *
   * Without a number search (`q`, `nos`), the filters also say their `shape`: which filters are set, and
   * how many statuses. The list's page statement is rendered once per shape, with placeholders, and only
   * bound afterwards (`listPage`): drizzle's rendering of the conditions cost more than running them.
   */
  function filters(deps: Deps, user: SessionUser, input: ListInput, lang: Lang, search?: NumberSearch) {
    const { from, to } = listPeriod(deps, input, lang);
    const merchantId = merchantScope(user, input.merchantId);
    const seenAs: Viewer = tenantOf(user) !== null && kind.merchantSees ? 'merchant' : 'platform';
    const statuses =
      input.status === undefined ? [] : typeof input.status === 'string' ? [input.status] : [...input.status];
    const q = input.q?.trim();
    const nos = input.nos === undefined ? [] : [...new Set([input.nos].flat())].sort();
    const whereWith = (bind: Bind) =>
      and(
        gte(createdAt, bind('from', from)),
        nos.length ? anyNumber(nos) : undefined,
        merchantId === undefined ? undefined : eq(t.merchantId, bind('merchantId', merchantId)),
        statuses.length
          ? inArray(
              t.status as AnyPgColumn,
              statuses.map((s, i) => bind(`status${i}`, s)),
            )
          : undefined,
        input.pushStatus ? eq(t.pushStatus, bind('pushStatus', input.pushStatus)) : undefined,
        input.channelId === undefined ? undefined : eq(t.channelId, bind('channelId', input.channelId)),
        input.receivingAccountId === undefined || !t.receivingAccountId
          ? undefined
          : eq(t.receivingAccountId, bind('receivingAccountId', input.receivingAccountId)),
        // The list's bounded search reads from `search.source`; exports filter the whole prefix ranges.
        q && !search
          ? or(
              ...numbers.columns.map((col) =>
                startsWith(col, numbers.upperCased?.includes(col) ? normalUtr(q) : q),
              ),
            )
          : undefined,
      );
    // Built once with the values in place, noting each bound value by name: the shape is the names.
    const values: Record<string, unknown> = {};
    let shape = '';
    const where = whereWith((name, value) => {
      values[name] = value;
      shape += `${name} `;
      return value;
    });
    // Names the filter set whole (the same key, the same rows), for the kept capped totals.
    const key = JSON.stringify([
      kind.name,
      from.getTime(),
      to.getTime(),
      merchantId ?? null,
      statuses,
      input.pushStatus ?? null,
      input.channelId ?? null,
      input.receivingAccountId ?? null,
      q || null,
      nos,
    ]);
    // A number search's plan depends on its numbers: it is rendered and planned on every call.
    const shaped = q || nos.length ? undefined : { shape, values, where: () => whereWith(asPlaceholder) };
    return { where, to, key, seenAs, source: search?.source, shaped };
  }

  /** `filters` with the number search bounded (`withNumberSearch`): lists and their totals; exports not. */
  const searchedFilters = (deps: Deps, tx: Db, user: SessionUser, input: ListInput, lang: Lang) =>
    withNumberSearch(deps.database, tx, numbers, input.q, (search) =>
      filters(deps, user, input, lang, search),
    );

  return { numbers, filters, searchedFilters };
}

export type OrderFilters = ReturnType<ReturnType<typeof orderFilters>['filters']>;
/** What a page reads of the filters. */
export type PageFilters = Pick<OrderFilters, 'where' | 'to' | 'source' | 'shaped' | 'seenAs'>;
