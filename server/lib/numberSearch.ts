import { type SQL, sql } from 'drizzle-orm';
import { type AnyPgColumn, PgDialect, type PgTable } from 'drizzle-orm/pg-core';
import type { Database, Db } from '../db/index.ts';

/**
 * How many orders a number search (`q`) reads at most on each number column. Up to this many matches on
 * every column, the search is exact; beyond it the search is *broad* (see `numberSearch`).
 */
export const searchWidth = 500;

/** A number search's orders, as what a list reads from instead of the table, and whether it was broad. */
export interface NumberSearch {
  /**
   * The matching orders by primary key, under the table's own name, so that filters, order and columns
   * written against the table apply unchanged. `offset 0` keeps it apart: otherwise the planner may read
   * the ids through the `(created_at, id)` index over the whole period (its second column is the id).
   */
  source: SQL;
  /** The same orders as a condition on the id, for a query that builds its own `source` (see above). */
  matches: SQL;
  broad: boolean;
}

const dialect = new PgDialect();

/**
 * The orders any of whose numbers (system, merchant, channel order id, UTR) is `q` or starts with it.
 *
 * Numbers grow with time (they carry dates, sequences, time stamps), so the orders matching a prefix sit
 * together in time, anywhere in the period: a scan of the period newest first, filtering by the prefix,
 * may read most of it before it finds one (measured at 1 M orders: 100–600 ms on PostgreSQL for a prefix
 * such as `PI26100`, seconds on PGlite, and the planner cannot tell). So the search never scans the
 * period: it reads each column's `COLLATE "C"` index over the prefix's range, at most `searchWidth`
 * entries each, from the highest number down, and the list then pages, filters and counts only those
 * orders (`source`).
 *
 * A prefix that matches more than `searchWidth` orders on a column is broad: the answer holds the
 * matches with that column's highest numbers (for growing numbers, the newest), and says it is not
 * complete (`broad`), so lists show their total as "n+" and a person types more. Exports do not use
 * this: they read the whole filtered set.
 */
/** An order table's id and the number columns a search reads (each with a `COLLATE "C"` index). */
export interface Numbered {
  table: PgTable;
  id: AnyPgColumn;
  columns: readonly AnyPgColumn[];
  /** Columns stored upper case (UTRs): the prefix is upper-cased for them, so a typed one matches. */
  upperCased?: readonly AnyPgColumn[];
}

export async function numberSearch(
  database: Database,
  db: Db,
  { table, id, columns, upperCased = [] }: Numbered,
  q: string,
  width = searchWidth,
): Promise<NumberSearch> {
  const branches = columns.map((col, b) => {
    const word = upperCased.includes(col) ? q.toUpperCase() : q;
    return sql`(select ${sql.raw(String(b))} as b, ${id} as id from ${table}
        where ${col} collate "C" >= ${word} and ${col} collate "C" < ${`${word}\uffff`}
        order by ${col} collate "C" desc limit ${width + 1})`;
  });
  const query = dialect.sqlToQuery(sql.join(branches, sql` union all `));
  // Named: one text per kind, run on its generic plan (each branch a merge of the partitions' index
  // ranges under its limit, right for a broad prefix and a whole number alike). Planned on every call,
  // the four branches over every monthly partition cost more than reading them (migration 0020).
  const rows = await database.raw(db, query.sql, query.params, { name: true });
  const perColumn = new Map<string, number>();
  const ids = new Set<string>();
  let broad = false;
  for (const [b, orderId] of rows) {
    const n = (perColumn.get(b!) ?? 0) + 1;
    perColumn.set(b!, n);
    if (n > width) broad = true;
    else ids.add(orderId!);
  }
  // One array parameter, whatever the number of ids: the statement and its planning stay small.
  const matches = ids.size ? sql`${id} = any(${`{${[...ids].join(',')}}`}::bigint[])` : sql`false`;
  return { source: sql`(select * from ${table} where ${matches} offset 0) ${table}`, matches, broad };
}

/**
 * A list's filters with its number search (`q`) bounded as `numberSearch` says, and whether it was broad.
 * `filtersWith()` runs first alone: it validates the request before anything is read.
 */
export async function withNumberSearch<F>(
  database: Database,
  db: Db,
  numbered: Numbered,
  q: string | undefined,
  filtersWith: (search?: NumberSearch) => F,
): Promise<F & { broad: boolean }> {
  const plain = filtersWith();
  const word = q?.trim();
  if (!word) return { ...plain, broad: false };
  const search = await numberSearch(database, db, numbered, word);
  return { ...filtersWith(search), broad: search.broad };
}
