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

export function decodeCursor(cursor: string): { at: Date; id: number } {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const at = new Date(iso ?? '');
  const n = Number(id);
  if (Number.isNaN(at.getTime()) || !Number.isInteger(n) || n < 0) {
    throw new AppError(errno.invalid, { fields: [{ path: 'cursor', code: 'invalid', message: 'cursor' }] });
  }
  return { at, id: n };
}

/** `count(*)` over at most `totalCap + 1` rows of a filtered table. */
export async function cappedCount(
  db: Db,
  table: SQL,
  where: SQL | undefined,
): Promise<{ total: number; totalCapped: boolean }> {
  const rows = await db.execute<{ n: number }>(
    sql`select count(*)::int as n from (select 1 from ${table} ${where ? sql`where ${where}` : sql``} limit ${totalCap + 1}) t`,
  );
  const n = Number(
    (rows as unknown as { rows: { n: number }[] }).rows?.[0]?.n ??
      (rows as unknown as { n: number }[])[0]?.n ??
      0,
  );
  return { total: Math.min(n, totalCap), totalCapped: n > totalCap };
}

/** Page-number paging for small lists (administrators, roles). */
export function pageWindow(page: number | undefined, pageSize: number) {
  const p = page ?? 1;
  return { limit: pageSize, offset: (p - 1) * pageSize };
}
