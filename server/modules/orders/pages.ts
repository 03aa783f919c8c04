/**
 * The order lists' pages: newest first, keyset on (created_at, id), each written as JSON by the database
 * (`orderPageSql`), and read with the merchants' and channels' codes from memory (`orderPages`).
 */
import { and, eq, fillPlaceholders, lte, type SQL, sql } from 'drizzle-orm';
import { type AnyPgColumn, PgDialect } from 'drizzle-orm/pg-core';
import type { RowFields } from '../../../contract/orderRow.ts';
import type { Database, Db } from '../../db/index.ts';
import { channels, merchants } from '../../db/schema.ts';
import { cappedCount, decodeCursor, encodeCursor, keptCapped, totalCap } from '../../lib/paging.ts';
import { type Codes, codesById } from './codes.ts';
import { columnsOf, type OrderFilters, type OrderKind, type PageFilters, type Viewer } from './filters.ts';
import type { ColumnKey, OrderTable, PageRow } from './row.ts';

const dialect = new PgDialect();

/** The page statements of every kind and filter shape, rendered with placeholders (see `filters`). */
const maxShapes = 1_000;

/** The statements of a kind's pages. */
export function orderPageSql<T extends OrderTable, F extends RowFields>(kind: OrderKind<T, F>) {
  const { table, row } = kind;
  const t = columnsOf(table);
  const createdAt = t.createdAt as AnyPgColumn;
  const id = t.id as AnyPgColumn;

  /** Newest first: the order of the (created_at DESC, id DESC) indexes, so a page is an index read. */
  const newestFirst = sql`${createdAt} desc, ${id} desc`;

  /**
   * One page, newest first, keyset on (created_at, id), as a query (the EXPLAIN guards read it). The
   * first page is bounded by the period's end; a next page only by its cursor (with both, the planner
   * may start from the wrong end).
   */
  function pageQuery(db: Db, where: SQL | undefined, bound: SQL, limit: number) {
    return db
      .select({ order: row.columns, merchantCode: merchants.code, channelCode: channels.code })
      .from(table as OrderTable)
      .innerJoin(merchants, eq(merchants.id, t.merchantId))
      .leftJoin(channels, eq(channels.id, t.channelId))
      .where(and(where, bound))
      .orderBy(sql`${createdAt} desc`, sql`${id} desc`)
      .limit(limit);
  }

  const rowKeys = Object.keys(row.columns) as ColumnKey<F>[];
  /** The page's values: times as epoch milliseconds (a Date from a number costs nothing; from text, parsing). */
  const pageValues = sql.join(
    rowKeys.map((key) =>
      // As float8 (`extract` would compute in numeric, a fifth of the statement's time); orders' times are
      // whole milliseconds, which the cast to int8 gives back exactly.
      row.times.has(key) ? sql`(date_part('epoch', ${row.columns[key]}) * 1000)::int8` : row.columns[key],
    ),
    sql`, `,
  );
  /** The page's columns as a viewer reads them: a column a merchant sees otherwise under its own name. */
  const pageColumns = {
    platform: sql.join(Object.values(row.columns) as AnyPgColumn[], sql`, `),
    merchant: sql.join(
      rowKeys.map((key) => {
        const seen = kind.merchantSees?.[key];
        return seen ? sql`${seen} as ${sql.identifier(row.columns[key].name)}` : row.columns[key];
      }),
      sql`, `,
    ),
  };
  /**
   * The page statement up to its filters, reading `from` (the table, or a number search's `source`). The
   * page's rows are chosen first and made JSON after (outside, under the table's name): a search's orders
   * are sorted, not read in index order, and building the JSON of each before sorting cost 25 ms a page.
   */
  const pageHeadFrom = (
    from: SQL,
    seenAs: Viewer,
  ) => sql`select coalesce(json_agg(json_build_array(${pageValues})
      order by ${createdAt} desc, ${id} desc), '[]')
    from (select ${pageColumns[seenAs]} from ${from} where `;

  /**
   * The page of `pageQuery` as one JSON value: a row per order, its row's columns. The driver then reads
   * one value instead of converting each column of each row, which on PGlite (and on PostgreSQL, where
   * it is the parsing of 21 × 20 text values) costs more than the query itself. The merchants' and
   * channels' codes come from memory (`codesById`): joined in, they cost more to plan and run than the
   * page itself, a number search the most (0.8 ms planning and 1.2 ms running against 0.3 and 0.06 ms).
   */
  function pageJsonSql(
    where: SQL | undefined,
    bound: SQL,
    limit: unknown,
    source?: SQL,
    seenAs: Viewer = 'platform',
  ): SQL {
    return sql`${pageHeadFrom(source ?? sql`${table}`, seenAs)}${and(where, bound)} order by ${newestFirst} limit ${limit}) ${table}`;
  }

  /** The page statement of each filter shape, rendered with placeholders (see `filters`). */
  const shapedPages = new Map<string, { sql: string; params: unknown[] }>();

  /**
   * The statement of a list page (`pageJsonSql`): `limit` rows from the period's end (`filters.to`) or
   * from `cursor`. Without a number search it is its filter shape's, rendered once, and `prepared`:
   * parsed and planned once per connection.
   */
  function pageStatement(
    f: PageFilters,
    cursor: string | undefined,
    limit: number,
  ): { sql: string; params: unknown[]; prepared: boolean } {
    const start = pageStart(f.to, cursor);
    const { shaped } = f;
    if (!shaped) {
      const q = dialect.sqlToQuery(
        pageJsonSql(f.where, boundAt(start.at, start.id), limit, f.source, f.seenAs),
      );
      return { ...q, prepared: false };
    }
    const shapeKey = `${f.seenAs} ${shaped.shape}`;
    let page = shapedPages.get(shapeKey);
    if (!page) {
      page = dialect.sqlToQuery(
        pageJsonSql(
          shaped.where(),
          boundAt(sql.placeholder('at'), sql.placeholder('id')),
          sql.placeholder('limit'),
          undefined,
          f.seenAs,
        ),
      );
      if (shapedPages.size >= maxShapes) shapedPages.clear();
      shapedPages.set(shapeKey, page);
    }
    return {
      sql: page.sql,
      params: fillPlaceholders(page.params, { ...shaped.values, at: start.at, id: start.id, limit }),
      prepared: true,
    };
  }

  const pageStart = (to: Date, cursor: string | undefined) =>
    cursor ? decodeCursor(cursor) : { at: to, id: Number.MAX_SAFE_INTEGER };
  const boundAt = (at: unknown, atId: unknown) => sql`(${createdAt}, ${id}) < (${at}, ${atId})`;

  /**
   * Where a page starts: before its cursor, or (the first page) at the period's end, written as a cursor
   * past every id there (`created_at <= to`), so that first and next pages are one statement with one
   * plan, the one the EXPLAIN guard checks, also when PostgreSQL reuses it as a generic plan.
   */
  function pageBound(to: Date, cursor: string | undefined): SQL {
    const c = pageStart(to, cursor);
    return boundAt(c.at, c.id);
  }

  return { newestFirst, pageQuery, pageJsonSql, pageStatement, pageBound };
}

/** A kind's pages read: rows, the cursor after them, and the list's capped total. */
export function orderPages<T extends OrderTable, F extends RowFields>(kind: OrderKind<T, F>) {
  const { table, row } = kind;
  const createdAt = columnsOf(table).createdAt as AnyPgColumn;
  const statements = orderPageSql(kind);
  const { pageStatement } = statements;

  const iMerchant = row.index['merchantId' as ColumnKey<F>];
  const iChannel = row.index['channelId' as ColumnKey<F>];
  const iCreatedAt = row.index['createdAt' as ColumnKey<F>];
  const iId = row.index['id' as ColumnKey<F>];
  if ([iMerchant, iChannel, iCreatedAt, iId].includes(undefined as never))
    throw new Error(`the ${kind.name} row must show id, merchantId, channelId and createdAt`);

  /** `pageQuery`'s rows, read with `pageStatement` through the driver directly. */
  async function listPage(
    database: Database,
    db: Db,
    f: PageFilters,
    cursor: string | undefined,
    limit: number,
  ): Promise<PageRow[]> {
    const statement = pageStatement(f, cursor, limit);
    const [[first], known] = await Promise.all([
      database.raw(db, statement.sql, statement.params, { name: statement.prepared }),
      codesById(database, db),
    ]);
    const list = JSON.parse(first?.[0] ?? '[]') as unknown[][];
    // A merchant or channel made since the codes were read (and not yet announced): read them again.
    const missing = (c: Codes) =>
      list.some(
        (v) =>
          !c.merchants.has(v[iMerchant] as number) ||
          (v[iChannel] !== null && !c.channels.has(v[iChannel] as number)),
      );
    const codes = missing(known) ? await codesById(database, db, true) : known;
    return list.map((values) => {
      const channelId = values[iChannel] as number | null;
      return {
        values,
        merchantCode: codes.merchants.get(values[iMerchant] as number) ?? '',
        channelCode: channelId === null ? null : (codes.channels.get(channelId) ?? null),
      };
    });
  }

  /** Where the list goes on after `r` (the last of its page). */
  const cursorAfter = ({ values }: PageRow) =>
    encodeCursor(new Date(values[iCreatedAt] as number), values[iId] as number);

  /**
   * The list's capped total over the whole period (`where`, `to` and `key` from `filters`); a total kept
   * as capped is answered before its statement is even built (every page of a large set asks it).
   */
  const listTotal = async (db: Db, f: Pick<OrderFilters, 'where' | 'to' | 'key' | 'source'>) =>
    keptCapped(db, f.key)
      ? { total: totalCap, totalCapped: true }
      : cappedCount(db, f.source ?? sql`${table}`, and(f.where, lte(createdAt, f.to)), f.key);

  return { ...statements, listPage, cursorAfter, listTotal };
}
