/**
 * `GET /merchantOrder/export` and `GET /merchantPayout/export`: the whole filtered set of a list as a
 * CSV or XLSX file. The filters are the list's own (the list engine's `filters`: the same tenancy, the
 * same lookback, the same numbers), read in the list's order by its keyset, and each cell is what the
 * list's row shows (the row's declaration, as the viewer sees it), so the file holds exactly what the
 * list pages through; the contract limits the period to one week.
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { endpoints } from '../../../contract/index.ts';
import type { RowFields } from '../../../contract/orderRow.ts';
import type { Db } from '../../db/index.ts';
import { channels, merchants } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { type AuditEntry, FileAnswer, handle, type RequestMeta } from '../../http/handle.ts';
import { withReader } from '../../http/reader.ts';
import type { SessionUser } from '../../http/session.ts';
import { errorForLog } from '../../lib/logger.ts';
import { payinList, payoutList } from '../orders/kinds.ts';
import { type ListInput, type OrderKind, type OrderList, tenantOf, type Viewer } from '../orders/list.ts';
import type { ColumnKey, OrderTable } from '../orders/row.ts';
import { isoCell, moneyCell } from './cells.ts';
import {
  type Column,
  contentTypes,
  type ExportFormat,
  type ExportSource,
  exportBatchSize,
  exportStream,
} from './stream.ts';

/*
 * Rows are read straight from the driver as arrays of PostgreSQL's own text (ids, `int8` minor units,
 * `timestamptz` in the session's time zone), and each cell is written from that text by slicing
 * (`cells.ts`): for a million rows the ORM's per-row mapping, `to_char` and `numeric` formatting in the
 * database, or a Date per time cost more than the query itself (bench/RESULTS.md, Exports).
 * `export.test.ts` holds the file equal to the list's rows on both engines.
 */
const text = (c: AnyPgColumn | SQL) => sql<string | null>`${c}::text`;

/** A row of an export: the keyset (creation time and id, as the database wrote them), then each cell's text. */
export type ExportRow = (string | null)[];

/**
 * How a cell's text is written from the database's: as money, as an ISO UTC time, or as it is, and
 * then as text, formula-guarded (numbers, names, UTRs and reasons come from merchants, payers and
 * channels: none is trusted to be harmless in a spreadsheet).
 */
type Cell = { sql: AnyPgColumn | SQL; as?: 'money' | 'time' };
/** Columns as locale keys with the column each cell is read from. */
type Cells = Record<string, Cell>;

const writers = { money: moneyCell, time: isoCell };

function columnsOf(cells: Cells): Column<ExportRow>[] {
  return Object.entries(cells).map(([key, c], i) => {
    const at = i + 2;
    const write = c.as && writers[c.as];
    return {
      key,
      value: write ? (r) => (r[at] == null ? null : write(r[at])) : (r) => r[at] ?? null,
      text: !write,
    };
  });
}

/**
 * The export's cells of an order kind: its row's fields (the contract's declaration) but those it leaves
 * out, in the row's order, each read as the viewer reads it in the list (`OrderKind.merchantSees`).
 */
function cellsOf<T extends OrderTable, F extends RowFields>(kind: OrderKind<T, F>, seenAs: Viewer): Cells {
  const { row, notExported, merchantSees } = kind;
  const cells: Cells = {};
  for (const [key, f] of Object.entries(row.fields)) {
    if (notExported.includes(key)) continue;
    const column = key as ColumnKey<F>;
    cells[key] = {
      sql:
        f.form === 'merchantCode'
          ? merchants.code
          : f.form === 'channelCode'
            ? channels.code
            : (seenAs === 'merchant' && merchantSees?.[column]) || row.columns[column],
      ...(f.form === 'money' || f.form === 'time' ? { as: f.form } : {}),
    };
  }
  return cells;
}

export const payinColumns: readonly Column<ExportRow>[] = columnsOf(cellsOf(payinList.kind, 'platform'));
export const payoutColumns: readonly Column<ExportRow>[] = columnsOf(cellsOf(payoutList.kind, 'platform'));

type Driver =
  | {
      execProtocol: unknown;
      query(text: string, params: unknown[], o: { rowMode: 'array' }): Promise<{ rows: ExportRow[] }>;
    }
  | { query(q: { text: string; values: unknown[]; rowMode: 'array' }): Promise<{ rows: ExportRow[] }> };

/** A built query run straight on the driver under `db` (PGlite or a pg pool), rows as arrays. */
async function arrayRows(
  db: Db,
  query: { toSQL(): { sql: string; params: unknown[] } },
): Promise<ExportRow[]> {
  const { sql: text, params } = query.toSQL();
  const driver = (db as unknown as { $client?: Driver }).$client;
  if (!driver) throw new Error('exports read through a database handle, not a transaction');
  if ('execProtocol' in driver) return (await driver.query(text, params, { rowMode: 'array' })).rows;
  return (
    await (driver as Exclude<Driver, { execProtocol: unknown }>).query({
      text,
      values: params,
      rowMode: 'array',
    })
  ).rows;
}

/**
 * Orders of `kind` matching `where` (the list's filters) up to `to`, newest first in the list's order,
 * each batch bounded only by the keyset of the one before (the list's own rule for its next pages).
 */
export function exportSource<T extends OrderTable, F extends RowFields>(
  db: Db,
  kind: OrderKind<T, F>,
  { where, to, seenAs }: { where: SQL | undefined; to: Date; seenAs: Viewer },
): ExportSource<ExportRow> {
  const table = kind.table as OrderTable;
  const cells = cellsOf(kind, seenAs);
  const fields = {
    keyAt: text(table.createdAt),
    keyId: text(table.id),
    ...Object.fromEntries(Object.entries(cells).map(([k, c]) => [k, c.as ? text(c.sql) : c.sql])),
  };
  return {
    columns: columnsOf(cells),
    async batch(after, limit) {
      const bound = after
        ? sql`(${table.createdAt}, ${table.id}) < (${after.at}::timestamptz, ${after.id}::bigint)`
        : sql`${table.createdAt} <= ${to}`;
      const rows = await arrayRows(
        db,
        db
          .select(fields as Record<string, SQL>)
          .from(table)
          .innerJoin(merchants, eq(merchants.id, table.merchantId))
          .leftJoin(channels, eq(channels.id, table.channelId))
          .where(and(where, bound))
          .orderBy(sql`${table.createdAt} desc`, sql`${table.id} desc`)
          .limit(limit),
      );
      const last = rows.at(-1);
      return { rows, last: last ? { at: last[0]!, id: last[1]! } : null };
    },
  };
}

/** A platform user's pay-in export over `where` (benchmarks and tests). */
export const payinSource = (db: Db, where: SQL | undefined, to: Date) =>
  exportSource(db, payinList.kind, { where, to, seenAs: 'platform' });

/** `2026-11-15T18:30:00.000Z` → `20261115T1830Z`: a file name part that sorts and needs no quoting. */
const stamp = (iso: string) =>
  new Date(iso)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\d\d\.\d{3}Z$/, 'Z');

interface ExportInput {
  from: string;
  to: string;
  format: ExportFormat;
  merchantId?: number | undefined;
  channelId?: number | undefined;
  status?: string | string[] | undefined;
  pushStatus?: string | undefined;
  q?: string | undefined;
  nos?: string | string[] | undefined;
}

/**
 * Reads the first batch (a failure there still answers the envelope), records what is exported in
 * the operation log, and answers the file.
 */
async function startExport<Row>(
  deps: Deps,
  source: ExportSource<Row>,
  input: ExportInput,
  effectiveMerchantId: number | null,
  name: 'collection-orders' | 'payout-orders',
  req: RequestMeta,
  audit: (entry: AuditEntry) => void,
): Promise<FileAnswer> {
  const first = await source.batch(null, exportBatchSize);
  audit({
    target: `export:${name}`,
    detail: {
      format: input.format,
      from: input.from,
      to: input.to,
      merchantId: effectiveMerchantId,
      channelId: input.channelId ?? null,
      status: input.status ?? null,
      pushStatus: input.pushStatus ?? null,
      q: input.q ?? null,
      nos: input.nos ?? null,
    },
  });
  const body = exportStream(source, first, input.format, req.lang, (err) =>
    deps.logger.error({ rid: req.requestId, export: name, err: errorForLog(err) }, 'export ended early'),
  );
  return new FileAnswer(
    `${name}_${stamp(input.from)}_${stamp(input.to)}.${input.format}`,
    contentTypes[input.format],
    body,
  );
}

/** The export endpoint of a kind: its list's filters (tenancy, period, numbers), then the file. */
const exportOf =
  <T extends OrderTable, F extends RowFields>(
    list: { kind: OrderKind<T, F>; filters: OrderList<T, F>['filters'] },
    name: 'collection-orders' | 'payout-orders',
  ) =>
  ({
    input,
    user,
    deps,
    req,
    audit,
  }: {
    input: ExportInput & ListInput;
    user: SessionUser;
    deps: Deps;
    req: RequestMeta;
    audit: (entry: AuditEntry) => void;
  }) => {
    const filters = list.filters(deps, user, input, req.lang);
    const merchantId = tenantOf(user) ?? input.merchantId ?? null;
    // From the read replica when there is one (`withReader`), every batch on the handle the first had.
    return withReader({ deps, req }, (db) =>
      startExport(deps, exportSource(db, list.kind, filters), input, merchantId, name, req, audit),
    );
  };

export const exportRoutes = [
  handle(endpoints.merchantOrder.export, exportOf(payinList, 'collection-orders')),
  handle(endpoints.merchantPayout.export, exportOf(payoutList, 'payout-orders')),
];
