/**
 * The orders tables' monthly partitions (migration 0020): the months ahead are made before they start,
 * by a periodic job (server/jobs) and once at startup with it, so that no insert ever lands in the
 * default partition but a stray one (an order dated far off). Detaching a month for archive is
 * `detachOrderMonth` (or `select detach_order_month('2026-01-01')` in psql).
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { rowsOf } from '../../ledger/index.ts';

/** Months made ahead of the current one. */
export const monthsAhead = 3;

/** Makes the partitions of the months from `from`'s to `to`'s (UTC) that do not exist; answers their names. */
export async function ensureOrderPartitions(db: Db, from: Date, to: Date): Promise<string[]> {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const [row] = rowsOf<{ made: string[] | string }>(
    await db.execute(sql`select ensure_order_partitions(${day(from)}::date, ${day(to)}::date) as made`),
  );
  return pgArray(row?.made);
}

/** The periodic job: this month and `monthsAhead` more. */
export async function ensureComingOrderPartitions(deps: Pick<Deps, 'clock' | 'database' | 'logger'>) {
  const now = deps.clock.now();
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + monthsAhead, 1));
  const made = await ensureOrderPartitions(deps.database.db, now, to);
  if (made.length) deps.logger.info({ made }, 'order partitions created');
  return made;
}

/**
 * Detaches the month of `month` (UTC) from both orders tables: its orders leave every list, lookup and
 * report, their numbers stay taken (the key tables keep their rows). Answers the tables detached, which
 * stay in the database as plain tables until archived and dropped.
 */
export async function detachOrderMonth(db: Db, month: Date): Promise<string[]> {
  const [row] = rowsOf<{ done: string[] | string }>(
    await db.execute(sql`select detach_order_month(${month.toISOString().slice(0, 10)}::date) as done`),
  );
  return pgArray(row?.done);
}

/** A text[] as the drivers give it: an array (node-postgres, PGlite) or its literal. */
function pgArray(v: string[] | string | undefined): string[] {
  if (!v) return [];
  if (Array.isArray(v)) return v;
  const inner = v.replace(/^\{|\}$/g, '');
  return inner ? inner.split(',') : [];
}
