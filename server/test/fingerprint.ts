/**
 * A fingerprint of the whole database for "this request changed nothing" checks: row count and an md5
 * of every row, per table, in one query.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';

/** Written by requests that change nothing else: the trail itself and the sign-in failure counters. */
const volatileTables = new Set(['operation_log', 'login_failures']);
/** Moves when a session is used (idle timeout bookkeeping). */
const volatileColumns = new Set(['sessions.last_seen_at']);

function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}

/** Answers a function that reads the fingerprint: `{table: "count:md5"}` for every table of `public`. */
export async function fingerprinter(
  db: Db,
  opts: { includeLog?: boolean } = {},
): Promise<() => Promise<Record<string, string>>> {
  const columns = rowsOf<{ table_name: string; column_name: string }>(
    await db.execute(sql`
      select c.table_name, c.column_name
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
      order by c.table_name, c.ordinal_position`),
  );
  const byTable = new Map<string, string[]>();
  for (const { table_name: table, column_name: column } of columns) {
    if (volatileTables.has(table) && !(opts.includeLog && table === 'operation_log')) continue;
    if (volatileColumns.has(`${table}.${column}`)) continue;
    byTable.set(table, [...(byTable.get(table) ?? []), column]);
  }
  if (byTable.size < 5) throw new Error(`fingerprint found only ${byTable.size} tables`);
  const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
  const parts = [...byTable.entries()].map(
    ([table, cols]) =>
      `(select count(*)::text || ':' || coalesce(md5(string_agg(r::text, '|' order by r::text)), '') from (select ${cols
        .map(q)
        .join(', ')} from ${q(table)}) r) as ${q(table)}`,
  );
  const query = sql.raw(`select ${parts.join(',\n')}`);
  return async () => rowsOf<Record<string, string>>(await db.execute(query))[0]!;
}
