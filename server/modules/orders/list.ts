/**
 * The order lists' engine, one for both kinds (pay-in and payout), each kind being its table and its row
 * declaration (`orderList`): the period and how far back it may reach, tenancy, the filters, the bounded
 * search by any number, keyset pages written as JSON by the database, capped totals, the totals of the
 * amount, and one order by id or number. Exports read the same filters (server/modules/export).
 *
 * Tenancy: a merchant user sees its own merchant's orders only; the merchant comes from the session, and
 * naming another merchant (`merchantId`) or another merchant's order answers 404, as if it did not exist.
 */
import { and, eq, fillPlaceholders, gte, inArray, lte, or, type SQL, sql } from 'drizzle-orm';
import { type AnyPgColumn, PgDialect } from 'drizzle-orm/pg-core';
import { errno } from '../../../contract/errno.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { RowFields } from '../../../contract/orderRow.ts';
import { normalUtr } from '../../../contract/schemas.ts';
import { type Database, type Db, whenCommitted } from '../../db/index.ts';
import { channels, merchants } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { JsonText } from '../../http/handle.ts';
import type { Lang } from '../../http/i18n.ts';
import type { SessionUser } from '../../http/session.ts';
import { invalidField } from '../../http/validation.ts';
import { type Numbered, type NumberSearch, withNumberSearch } from '../../lib/numberSearch.ts';
import { cappedCount, dbTime, decodeCursor, encodeCursor, keptCapped, totalCap } from '../../lib/paging.ts';
import type { ColumnKey, OrderRow, OrderTable, PageRow } from './row.ts';

const dayMs = 24 * 60 * 60_000;
/**
 * Lists look back 60 days (PRODUCT.md section 2), and one day more for both kinds: a console's "60 days
 * ago, local midnight" in a time zone ahead of the server's, or a clock a little ahead, gets through. The
 * contract and the console say 60; pay-ins allowed 61 and payouts 60, which refused such a period.
 */
export const lookbackMs = 61 * dayMs;

/** The merchant a user is confined to; null for platform users (who see every merchant). */
export const tenantOf = (user: SessionUser): number | null =>
  user.kind === 'merchant' ? user.merchantId! : null;

/** How a list's columns are read: as stored, or as a merchant user is shown them (`OrderKind.merchantSees`). */
export type Viewer = 'platform' | 'merchant';

/** The filters of a list, its totals and its export (the contract's `orderFilters`). */
export interface ListInput {
  from: string;
  to: string;
  merchantId?: number | undefined;
  channelId?: number | undefined;
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

/** `col` starts with `q` (or equals it), through the column's `COLLATE "C"` index. */
const startsWith = (col: AnyPgColumn, q: string) =>
  sql`(${col} collate "C" >= ${q} and ${col} collate "C" < ${`${q}\uffff`})`;

/** How a filter's value enters its condition: as itself, or as a named placeholder (see `filters`). */
type Bind = <V>(name: string, value: V) => V;
const asPlaceholder = ((name: string) => sql.placeholder(name)) as unknown as Bind;

const dialect = new PgDialect();

interface Codes {
  merchants: Map<number, string>;
  channels: Map<number, string>;
  version: number;
}
const codesKept = new WeakMap<Database, Codes>();
const codesLoading = new WeakMap<Database, Promise<Codes>>();

/**
 * Every merchant's and channel's code by id, kept while the change feed shows no change to a watched
 * table (merchants and channels are) since they were read; `fresh` reads them again.
 */
async function codesById(database: Database, db: Db, fresh = false): Promise<Codes> {
  const feed = database.changes;
  const kept = codesKept.get(database);
  if (!fresh && kept && feed.live && kept.version === feed.version) return kept;
  const loading = codesLoading.get(database);
  if (!fresh && loading) return loading;
  const read = (async () => {
    const version = feed.version;
    const live = feed.live;
    const [m, c] = [
      await database.raw(db, 'select id, code from merchants', [], { name: true }),
      await database.raw(db, 'select id, code from channels', [], { name: true }),
    ];
    const codes: Codes = {
      merchants: new Map(m.map((r) => [Number(r[0]), r[1]!])),
      channels: new Map(c.map((r) => [Number(r[0]), r[1]!])),
      version,
    };
    whenCommitted(db, () => {
      if (live && feed.live && feed.version === version) codesKept.set(database, codes);
    });
    return codes;
  })();
  codesLoading.set(database, read);
  try {
    return await read;
  } finally {
    if (codesLoading.get(database) === read) codesLoading.delete(database);
  }
}

/** The page statements of every kind and filter shape, rendered with placeholders (see `filters`). */
const maxShapes = 1_000;

/** Totals stop summing with the count (`totalCap`): the amount of a capped total is its newest orders'. */
const totalsRow = (n: unknown, total: unknown, oldest: unknown) => {
  const count = Number(n);
  const capped = count > totalCap;
  const amount = BigInt(String(total)) - (capped ? BigInt(String(oldest)) : 0n);
  return { count: Math.min(count, totalCap), amount: formatMinor(amount), countCapped: capped };
};

export function orderList<T extends OrderTable, F extends RowFields>(kind: OrderKind<T, F>) {
  const { table, row } = kind;
  // Both order tables name their columns alike; the union's columns are what the engine reads.
  const t = table as typeof table & Record<string, AnyPgColumn>;
  const createdAt = t.createdAt as AnyPgColumn;
  const id = t.id as AnyPgColumn;

  /** The kind's numbers a search reads, each with a `COLLATE "C"` index (UTRs are stored upper case). */
  const numbers: Numbered = {
    table,
    id,
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
    const from = dbTime(input.from, 'from');
    const to = dbTime(input.to, 'to');
    if (from.getTime() < deps.clock.now().getTime() - lookbackMs)
      throw invalidField(lang, 'from', 'validation.range60');
    const tenant = tenantOf(user);
    if (tenant !== null && input.merchantId !== undefined && input.merchantId !== tenant)
      throw new AppError(errno.notFound);
    const merchantId = tenant ?? input.merchantId;
    const seenAs: Viewer = tenant !== null && kind.merchantSees ? 'merchant' : 'platform';
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
      q || null,
      nos,
    ]);
    // A number search's plan depends on its numbers: it is rendered and planned on every call.
    const shaped = q || nos.length ? undefined : { shape, values, where: () => whereWith(asPlaceholder) };
    return { where, to, key, seenAs, source: search?.source, shaped };
  }
  type Filters = ReturnType<typeof filters>;
  type PageFilters = Pick<Filters, 'where' | 'to' | 'source' | 'shaped' | 'seenAs'>;

  /** `filters` with the number search bounded (`withNumberSearch`): lists and their totals; exports not. */
  const searchedFilters = (deps: Deps, tx: Db, user: SessionUser, input: ListInput, lang: Lang) =>
    withNumberSearch(deps.database, tx, numbers, input.q, (search) =>
      filters(deps, user, input, lang, search),
    );

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
  const listTotal = async (db: Db, f: Pick<Filters, 'where' | 'to' | 'key' | 'source'>) =>
    keptCapped(db, f.key)
      ? { total: totalCap, totalCapped: true }
      : cappedCount(db, f.source ?? sql`${table}`, and(f.where, lte(createdAt, f.to)), f.key);

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

  return {
    kind,
    numbers,
    filters,
    searchedFilters,
    pageQuery,
    pageJsonSql,
    pageStatement,
    pageBound,
    listPage,
    cursorAfter,
    listTotal,
    list,
    totals,
    orderFor,
  };
}

export type OrderList<T extends OrderTable = OrderTable, F extends RowFields = RowFields> = ReturnType<
  typeof orderList<T, F>
>;
