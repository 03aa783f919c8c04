/**
 * The console's collection-order endpoints (`merchantOrder.*`) and the simulator's pay control. Merchant
 * users are confined to their merchant: the merchant id comes from the session, never from the request,
 * and another merchant's order answers 404 as if it did not exist.
 */
import { and, asc, eq, fillPlaceholders, gte, inArray, lte, ne, or, type SQL, sql } from 'drizzle-orm';
import { type AnyPgColumn, PgDialect } from 'drizzle-orm/pg-core';
import { errno } from '../../../contract/errno.ts';
import { endpoints, type Output } from '../../../contract/index.ts';
import { formatMinor } from '../../../contract/money.ts';
import { normalUtr } from '../../../contract/schemas.ts';
import type { Channel } from '../../channels/adapter.ts';
import { type Database, type Db, whenCommitted } from '../../db/index.ts';
import {
  channels,
  journalEntries,
  merchants,
  orderImages,
  payinOrders,
  webhookAttempts,
  webhookEvents,
} from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError, refuse } from '../../http/errors.ts';
import { handle, JsonText } from '../../http/handle.ts';
import type { Lang } from '../../http/i18n.ts';
import type { SessionUser } from '../../http/session.ts';
import { invalidField } from '../../http/validation.ts';
import { callbacksOf, pushNow, wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { orderPostings } from '../../ledger/index.ts';
import { type NumberSearch, withNumberSearch } from '../../lib/numberSearch.ts';
import { cappedCount, dbTime, decodeCursor, encodeCursor } from '../../lib/paging.ts';
import { changes } from '../../lib/redact.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { recordOrderMoves } from '../dashboard/stats.ts';
import { loadMerchant } from '../merchant/scope.ts';
import { routesOf } from '../merchant/service.ts';
import {
  decodeImage,
  type ImageMime,
  maxImagesPerOrder,
  readImage,
  removeOrderImages,
  storeImage,
} from './images.ts';
import { createPayin, newOrderNo, transition, transitions, withUtrGuard } from './service.ts';
import { settleSimulatorPayin } from './simulator.ts';
import { findPayment, orderUsingUtr } from './utr.ts';
import {
  loadRow,
  loadWithCodes,
  type PageRow,
  type PayinOrder,
  rowColumns,
  rowIndex,
  rowJson,
  rowTimes,
  rowView,
} from './views.ts';

const dayMs = 24 * 60 * 60_000;
/** Order lists look back 60 days; one more day lets a caller's "60 days ago, local midnight" through. */
const lookbackMs = 61 * dayMs;

/** The merchant a user is confined to; null for platform users (who see every merchant). */
const tenantOf = (user: SessionUser): number | null => (user.kind === 'merchant' ? user.merchantId! : null);

/** An order the user may see, by id or order number, or 404. */
async function orderFor(
  tx: Db,
  user: SessionUser,
  ref: { id?: number | undefined; orderNo?: string | undefined },
  lang: Lang,
): Promise<PayinOrder> {
  if (ref.id === undefined && !ref.orderNo) throw invalidField(lang, 'id', 'validation.orderRef');
  const tenant = tenantOf(user);
  const [order] = await tx
    .select()
    .from(payinOrders)
    .where(
      and(
        ref.id !== undefined ? eq(payinOrders.id, ref.id) : undefined,
        ref.orderNo ? eq(payinOrders.orderNo, ref.orderNo) : undefined,
        tenant === null ? undefined : eq(payinOrders.merchantId, tenant),
      ),
    );
  if (!order) throw new AppError(errno.notFound);
  return order;
}

/** `col` starts with `q` (or equals it), through the column's `COLLATE "C"` index. */
const startsWith = (col: AnyPgColumn, q: string) =>
  sql`(${col} collate "C" >= ${q} and ${col} collate "C" < ${`${q}\uffff`})`;

export interface ListInput {
  from: string;
  to: string;
  merchantId?: number | undefined;
  channelId?: number | undefined;
  pushStatus?: 'unpushed' | 'pushed' | undefined;
  q?: string | undefined;
  /** Whole numbers (system, merchant, channel, UTR): orders matching any of them. */
  nos?: string | string[] | undefined;
  status?: PayinOrder['status'] | PayinOrder['status'][] | undefined;
}

/**
 * Orders any of whose numbers equals one of `nos`, through the `COLLATE "C"` indexes; UTRs are stored
 * upper case, so they are compared with the numbers upper-cased.
 */
function anyNumber(nos: string[]) {
  const exact = (col: AnyPgColumn, values = nos) => inArray(sql`${col} collate "C"`, values);
  return or(
    exact(payinOrders.orderNo),
    exact(payinOrders.merchantOrderNo),
    exact(payinOrders.channelOrderId),
    exact(payinOrders.utr, [...new Set(nos.map(normalUtr))]),
  );
}

/** How a filter's value enters its condition: as itself, or as a named placeholder (see `listFilters`). */
type Bind = <T>(name: string, value: T) => T;
const asPlaceholder = ((name: string) => sql.placeholder(name)) as unknown as Bind;

/**
 * The filters of a list or totals query (without the period's upper bound, which paging handles).
 * Exported for bench/orders.ts, which times the exact query the list runs.
 *
 * Without a number search (`q`, `nos`), the filters also say their `shape`: which filters are set, and
 * how many statuses. The list's page statement is rendered once per shape, with placeholders, and only
 * bound afterwards (`listPage`): drizzle's rendering of the conditions cost more than running them.
 */
export function listFilters(
  deps: Deps,
  user: SessionUser,
  input: ListInput,
  lang: Lang,
  search?: NumberSearch,
) {
  const from = dbTime(input.from, 'from');
  const to = dbTime(input.to, 'to');
  if (from.getTime() < deps.clock.now().getTime() - lookbackMs)
    throw invalidField(lang, 'from', 'validation.range60');
  const tenant = tenantOf(user);
  const merchantId = tenant ?? input.merchantId;
  const statuses =
    input.status === undefined ? [] : Array.isArray(input.status) ? input.status : [input.status];
  const q = input.q?.trim();
  const nos = input.nos === undefined ? [] : [...new Set([input.nos].flat())].sort();
  const whereWith = (bind: Bind) =>
    and(
      gte(payinOrders.createdAt, bind('from', from)),
      nos.length ? anyNumber(nos) : undefined,
      merchantId === undefined ? undefined : eq(payinOrders.merchantId, bind('merchantId', merchantId)),
      statuses.length
        ? inArray(
            payinOrders.status,
            statuses.map((s, i) => bind(`status${i}`, s)),
          )
        : undefined,
      input.pushStatus ? eq(payinOrders.pushStatus, bind('pushStatus', input.pushStatus)) : undefined,
      input.channelId === undefined
        ? undefined
        : eq(payinOrders.channelId, bind('channelId', input.channelId)),
      // The list's bounded search reads from `search.source`; exports filter the whole prefix ranges.
      q && !search
        ? or(
            ...payinNumbers.columns.map((col) =>
              startsWith(col, payinNumbers.upperCased.includes(col) ? normalUtr(q) : q),
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
    'payin',
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
  return { where, to, key, source: search?.source, shaped };
}

export type ListFilters = ReturnType<typeof listFilters>;

/** The pay-in's numbers a search reads (exported for the search's own test). */
export const payinNumbers = {
  table: payinOrders,
  id: payinOrders.id,
  columns: [payinOrders.orderNo, payinOrders.merchantOrderNo, payinOrders.channelOrderId, payinOrders.utr],
  upperCased: [payinOrders.utr] as readonly AnyPgColumn[],
};

/** `listFilters` with the number search bounded (`withNumberSearch`): lists and their totals; exports not. */
export const searchedFilters = (deps: Deps, tx: Db, user: SessionUser, input: ListInput, lang: Lang) =>
  withNumberSearch(deps.database, tx, payinNumbers, input.q, (search) =>
    listFilters(deps, user, input, lang, search),
  );

/**
 * One page, newest first, keyset on (created_at, id). The first page is bounded by the period's end;
 * a next page only by its cursor (with both, the planner may start from the wrong end).
 */
export function pageQuery(db: Db, where: SQL | undefined, bound: SQL, limit: number) {
  return (
    db
      .select({ order: rowColumns, merchantCode: merchants.code, channelCode: channels.code })
      .from(payinOrders)
      .innerJoin(merchants, eq(merchants.id, payinOrders.merchantId))
      .leftJoin(channels, eq(channels.id, payinOrders.channelId))
      .where(and(where, bound))
      // The order of the (created_at DESC, id DESC) indexes: the page is an index read, never a sort.
      .orderBy(sql`${payinOrders.createdAt} desc`, sql`${payinOrders.id} desc`)
      .limit(limit)
  );
}

const rowKeys = Object.keys(rowColumns) as (keyof typeof rowColumns)[];
const dialect = new PgDialect();

const pageColumns = sql.join(Object.values(rowColumns), sql`, `);
/** The page's values: times as epoch milliseconds (a Date from a number costs nothing; from text, parsing). */
const pageValues = sql.join(
  rowKeys.map((key) =>
    // As float8 (`extract` would compute in numeric, a fifth of the statement's time); orders' times are
    // whole milliseconds, which the cast to int8 gives back exactly.
    rowTimes.has(key) ? sql`(date_part('epoch', ${rowColumns[key]}) * 1000)::int8` : rowColumns[key],
  ),
  sql`, `,
);
/**
 * The page statement up to its filters, reading `from` (the table, or a number search's `source`). The
 * page's rows are chosen first and made JSON after (outside, under the table's name): a search's orders
 * are sorted, not read in index order, and building the JSON of each before sorting cost 25 ms a page.
 */
const pageHeadFrom = (from: SQL) => sql`select coalesce(json_agg(json_build_array(${pageValues})
      order by ${payinOrders.createdAt} desc, ${payinOrders.id} desc), '[]')
    from (select ${pageColumns} from ${from} where `;

/**
 * The page of `pageQuery` as one JSON value: a row per order, its `rowColumns`. The driver then reads one
 * value instead of converting each column of each row, which on PGlite (and on PostgreSQL, where it is
 * the parsing of 21 × 20 text values) costs more than the query itself. The merchants' and channels'
 * codes come from memory (`codesById`): joined in, they cost more to plan and run than the page itself,
 * a number search the most (0.8 ms planning and 1.2 ms running against 0.3 and 0.06 ms without).
 */
export function pageJsonSql(where: SQL | undefined, bound: SQL, limit: unknown, source?: SQL): SQL {
  return sql`${pageHeadFrom(source ?? sql`${payinOrders}`)}${and(where, bound)} order by ${payinOrders.createdAt} desc, ${payinOrders.id} desc limit ${limit}) ${payinOrders}`;
}

/** The page statement of each filter shape, rendered with placeholders (see `listFilters`). */
const shapedPages = new Map<string, { sql: string; params: unknown[] }>();
const maxShapes = 1_000;

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

/**
 * The statement of a list page (`pageJsonSql`): `limit` rows from the period's end (`filters.to`) or from
 * `cursor`. Without a number search it is its filter shape's, rendered once, and `prepared`: parsed and
 * planned once per connection.
 */
export function pageStatement(
  filters: Pick<ListFilters, 'where' | 'to' | 'source' | 'shaped'>,
  cursor: string | undefined,
  limit: number,
): { sql: string; params: unknown[]; prepared: boolean } {
  const start = pageStart(filters.to, cursor);
  const { shaped } = filters;
  if (!shaped) {
    const q = dialect.sqlToQuery(
      pageJsonSql(filters.where, boundAt(start.at, start.id), limit, filters.source),
    );
    return { ...q, prepared: false };
  }
  let page = shapedPages.get(shaped.shape);
  if (!page) {
    page = dialect.sqlToQuery(
      pageJsonSql(
        shaped.where(),
        boundAt(sql.placeholder('at'), sql.placeholder('id')),
        sql.placeholder('limit'),
      ),
    );
    if (shapedPages.size >= maxShapes) shapedPages.clear();
    shapedPages.set(shaped.shape, page);
  }
  return {
    sql: page.sql,
    params: fillPlaceholders(page.params, { ...shaped.values, at: start.at, id: start.id, limit }),
    prepared: true,
  };
}

/** `pageQuery`'s rows, read with `pageStatement` through the driver directly. */
export async function listPage(
  database: Database,
  db: Db,
  filters: Pick<ListFilters, 'where' | 'to' | 'source' | 'shaped'>,
  cursor: string | undefined,
  limit: number,
): Promise<PageRow[]> {
  const statement = pageStatement(filters, cursor, limit);
  const [[row], known] = await Promise.all([
    database.raw(db, statement.sql, statement.params, { name: statement.prepared }),
    codesById(database, db),
  ]);
  const list = JSON.parse(row?.[0] ?? '[]') as unknown[][];
  const { merchantId: iMerchant, channelId: iChannel } = rowIndex;
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

/** Where the list goes on after `row` (the last of its page). */
export const cursorAfter = ({ values }: PageRow) =>
  encodeCursor(new Date(values[rowIndex.createdAt] as number), values[rowIndex.id] as number);

/** The list's capped total over the whole period (`where`, `to` and `key` from `listFilters`). */
export function listTotal(
  db: Db,
  f: { where: SQL | undefined; to: Date; key: string; source?: SQL | undefined },
) {
  return cappedCount(
    db,
    f.source ?? sql`${payinOrders}`,
    and(f.where, lte(payinOrders.createdAt, f.to)),
    f.key,
  );
}

/**
 * Where a page starts: before its cursor, or (the first page) at the period's end, written as a cursor
 * past every id there (`created_at <= to`), so that first and next pages are one statement with one plan,
 * the one the EXPLAIN guard checks, also when PostgreSQL reuses it as a generic plan.
 */
export function pageBound(to: Date, cursor: string | undefined): SQL {
  const c = pageStart(to, cursor);
  return boundAt(c.at, c.id);
}

const pageStart = (to: Date, cursor: string | undefined) =>
  cursor ? decodeCursor(cursor) : { at: to, id: Number.MAX_SAFE_INTEGER };
const boundAt = (at: unknown, id: unknown) =>
  sql`(${payinOrders.createdAt}, ${payinOrders.id}) < (${at}, ${id})`;

async function channelOf(tx: Db, id: number | null): Promise<Channel | undefined> {
  if (id === null) return undefined;
  const [c] = await tx.select().from(channels).where(eq(channels.id, id));
  return c;
}

/** Refuses early, with the clear 409, an action the order's state does not allow. */
function allowed(order: PayinOrder, action: keyof typeof transitions) {
  if (!transitions[action].from.includes(order.status)) {
    throw new AppError(errno.conflict, null, `${action} from ${order.status}`);
  }
}

const auditTarget = (o: PayinOrder) => `payin:${o.orderNo}`;

export const payinRoutes = [
  handle(endpoints.merchantOrder.list, async ({ input, user, tx, deps, req }) => {
    const filters = await searchedFilters(deps, tx, user, input, req.lang);
    const rows = await listPage(deps.database, tx, filters, input.cursor, input.pageSize + 1);
    const page = rows.slice(0, input.pageSize);
    // A first page that holds the whole filtered set is its own count.
    const counted =
      !input.cursor && rows.length <= input.pageSize
        ? { total: rows.length, totalCapped: false }
        : await listTotal(tx, filters);
    // A broad search found some of its orders, not all: its count is a floor.
    if (filters.broad) counted.totalCapped = true;
    const rest = {
      ...counted,
      nextCursor: rows.length > input.pageSize ? cursorAfter(page.at(-1)!) : null,
    } satisfies Omit<Output<typeof endpoints.merchantOrder.list>, 'list'>;
    // The rows written as JSON in the contract's shape (`rowJson`), not built as objects and serialised.
    return new JsonText(`{"list":[${page.map(rowJson).join(',')}],${JSON.stringify(rest).slice(1)}`);
  }),

  handle(endpoints.merchantOrder.totals, async ({ input, user, tx, deps, req }) => {
    const { where, to, broad, source } = await searchedFilters(deps, tx, user, input, req.lang);
    const capped = sql`select ${payinOrders.amount} as amount from ${source ?? payinOrders} where ${and(
      where,
      lte(payinOrders.createdAt, to),
    )} limit 10001`;
    const result = await tx.execute(
      sql`select count(*)::int as n, coalesce(sum(amount), 0)::text as total from (${capped}) t`,
    );
    const row = ((result as { rows?: unknown[] }).rows ?? (result as unknown[]))[0] as {
      n: number;
      total: string;
    };
    const n = Number(row.n);
    return {
      count: Math.min(n, 10_000),
      amount: formatMinor(BigInt(row.total)),
      countCapped: n > 10_000 || broad,
    };
  }),

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
      ...rowView(order, withCodes!.merchantCode, withCodes!.channelCode),
      agentCommission: tenant === null ? formatMinor(order.agentCommission) : '0.00',
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
    const [updated] = await tx
      .update(payinOrders)
      .set({ notifyUrl: input.notifyUrl, updatedAt: deps.clock.now() })
      .where(and(eq(payinOrders.id, order.id), inArray(payinOrders.status, ['pending', 'unpaid', 'failed'])))
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
          ne(webhookEvents.status, 'delivered'),
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
    const [entry] = await tx
      .select({ id: journalEntries.id })
      .from(journalEntries)
      .where(and(eq(journalEntries.refType, 'payin'), eq(journalEntries.refId, String(order.id))))
      .limit(1);
    if (entry || order.paidAt || !['creation_failed', 'unpaid', 'failed'].includes(order.status)) {
      throw new AppError(errno.conflict, null, `delete of a ${order.status} order`);
    }
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
      .where(
        and(
          eq(payinOrders.id, order.id),
          inArray(payinOrders.status, ['creation_failed', 'unpaid', 'failed']),
        ),
      )
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
      let asked: Channel[];
      if (order) {
        const c = await channelOf(tx, order.channelId);
        asked = c ? [c] : [];
      } else if (tenant !== null) {
        asked = (await routesOf(deps, tx, tenant)).map((r) => r.channel).filter((c) => c.supportsPayin);
      } else {
        asked = await tx.select().from(channels).where(eq(channels.supportsPayin, true));
      }
      const hit = await findPayment(deps, tx, input.utr, asked);
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
    const hit = await findPayment(deps, tx, input.utr, channel ? [channel] : []);
    if (!hit) throw new AppError(errno.utrNotFound);
    if (await orderUsingUtr(tx, input.utr)) throw new AppError(errno.utrUsed);
    if (hit.orderNo !== undefined && hit.orderNo !== order.orderNo) {
      throw new AppError(errno.utrMismatch, null, `UTR paid ${hit.orderNo}`);
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
        { utr: input.utr, paidAmount: hit.amount, paidBy: 'supplement', paidAt: deps.clock.now() },
        user.id,
      ),
    );
    if (!paid) throw new AppError(errno.conflict, null, 'moved meanwhile');
    afterCommit(wakeWebhookWorkers);
    return loadRow(tx, paid.id);
  }),

  handle(
    endpoints.merchantOrder.forceSupplement,
    async ({ input, user, tx, deps, req, audit, afterCommit }) => {
      const order = await orderFor(tx, user, { id: input.id }, req.lang);
      audit({
        target: auditTarget(order),
        detail: {
          reason: input.reason,
          utr: input.utr ?? null,
          paidAmount: input.paidAmount === undefined ? null : formatMinor(input.paidAmount),
        },
      });
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
      allowed(order, 'force');
      if (input.utr && (await orderUsingUtr(tx, input.utr))) throw new AppError(errno.utrUsed);
      const paid = await withUtrGuard(() =>
        transition(
          deps,
          tx,
          order.id,
          'force',
          {
            utr: input.utr ?? order.utr,
            paidAmount,
            paidBy: 'force',
            paidAt: deps.clock.now(),
            failureReason: order.failureReason,
          },
          user.id,
        ),
      );
      if (!paid) throw new AppError(errno.conflict, null, 'moved meanwhile');
      afterCommit(wakeWebhookWorkers);
      return loadRow(tx, paid.id);
    },
  ),

  handle(endpoints.merchantOrder.uploadImage, async ({ input, user, tx, deps, req, audit }) => {
    const order = await orderFor(tx, user, { id: input.id }, req.lang);
    audit({ target: auditTarget(order), detail: { filename: input.filename, mime: input.mime } });
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
