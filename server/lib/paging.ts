import { type SQL, sql } from 'drizzle-orm';
import { errno } from '../../contract/errno.ts';
import type { Db } from '../db/index.ts';
import { AppError } from '../http/errors.ts';

/** Totals stop counting here and say so ("10,000+"): an exact count of millions costs too much. */
export const totalCap = 10_000;

/** A keyset cursor `(time, id)` as an opaque URL-safe string. */
export function encodeCursor(at: Date, id: number): string {
  return Buffer.from(`${at.toISOString()}|${id}`).toString('base64url');
}

/** Instants PostgreSQL reads back from an ISO string: years 0001 to 9999 (it refuses year 0000). */
const earliest = Date.parse('0001-01-01T00:00:00.000Z');
const latest = Date.parse('9999-12-31T23:59:59.999Z');

const invalidField = (path: string) =>
  new AppError(errno.invalid, { fields: [{ path, code: 'invalid', message: path }] });

/** A requested instant as a Date the database can compare with, or 422 (never a database error). */
export function dbTime(iso: string, field: string): Date {
  const at = new Date(iso);
  if (!(at.getTime() >= earliest && at.getTime() <= latest)) throw invalidField(field);
  return at;
}

/** `maxId` is the id column's range: the default fits `bigserial`, pass 2,147,483,647 for `serial`. */
export function decodeCursor(cursor: string, maxId = Number.MAX_SAFE_INTEGER): { at: Date; id: number } {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const n = Number(id);
  if (!Number.isInteger(n) || n < 0 || n > maxId) throw invalidField('cursor');
  return { at: dbTime(iso ?? '', 'cursor'), id: n };
}

/**
 * Filter sets whose total reached the cap lately, per database handle: while a "10,000+" answer is this
 * fresh it is answered again without counting. Paging through a large set asks the same total on every
 * page, and counting to the cap reads 10,001 index entries each time; an exact total below the cap is
 * always counted afresh. A caller opts in with a `key` that names the filter set completely.
 */
export const cappedTotalMs = 10_000;
const cappedLately = new WeakMap<object, Map<string, number>>();
const maxCappedKept = 1_000;

/** The query of a capped total: `count(*)` over at most `totalCap + 1` rows of a filtered table. */
export const cappedCountQuery = (table: SQL, where: SQL | undefined): SQL =>
  sql`select count(*)::int as n from (select 1 from ${table} ${where ? sql`where ${where}` : sql``} limit ${totalCap + 1}) t`;

/** Whether `key`'s total reached the cap within `cappedTotalMs` (so `cappedCount` would answer it unread). */
export function keptCapped(db: Db, key: string | undefined): boolean {
  const keptAt = key === undefined ? undefined : cappedLately.get(db)?.get(key);
  return keptAt !== undefined && performance.now() - keptAt < cappedTotalMs;
}

/** `count(*)` over at most `totalCap + 1` rows of a filtered table. */
export async function cappedCount(
  db: Db,
  table: SQL,
  where: SQL | undefined,
  key?: string,
): Promise<{ total: number; totalCapped: boolean }> {
  if (keptCapped(db, key)) return { total: totalCap, totalCapped: true };
  let lately = cappedLately.get(db);
  const rows = await db.execute<{ n: number }>(cappedCountQuery(table, where));
  const n = Number(
    (rows as unknown as { rows: { n: number }[] }).rows?.[0]?.n ??
      (rows as unknown as { n: number }[])[0]?.n ??
      0,
  );
  if (key !== undefined && n > totalCap) {
    if (!lately) {
      lately = new Map();
      cappedLately.set(db, lately);
    }
    if (lately.size >= maxCappedKept) lately.clear();
    lately.set(key, performance.now());
  } else if (key !== undefined) {
    lately?.delete(key);
  }
  return { total: Math.min(n, totalCap), totalCapped: n > totalCap };
}

/** Page-number paging for small lists (administrators, roles). */
export function pageWindow(page: number | undefined, pageSize: number) {
  const p = page ?? 1;
  return { limit: pageSize, offset: (p - 1) * pageSize };
}
