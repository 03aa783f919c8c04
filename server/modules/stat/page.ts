/**
 * The paging and totals every daily report shares: its query reads one key past the page (so the
 * page knows whether more follow) and, in the same statement, the period's row count and the business
 * time zone, so a page costs one round trip.
 */
import { type SQL, sql } from 'drizzle-orm';

/** Where a page of a report read newest day first continues: after `(day, id, currency)`. */
export interface DayKey {
  day: string;
  id: number;
  currency: string;
}

/**
 * The keys of a page of a report read newest day first, then by `key` (an integer column) and currency:
 * `columns` of the CTE `period` (as `k`) after the cursor, `pageSize + 1` of them (`reportPage`).
 */
export const newestDayFirst = (columns: SQL, key: string, after: DayKey | null, pageSize: number) => sql`
  select ${columns} from period k
  ${
    after
      ? sql`where k.day < ${after.day}::date or (k.day = ${after.day}::date
          and (k.${sql.raw(key)}, k.currency) > (${after.id}::int, ${after.currency}::text))`
      : sql``
  }
  order by k.day desc, k.${sql.raw(key)}, k.currency
  limit ${pageSize + 1}`;

/**
 * The page out of `read`, which holds up to `pageSize + 1` rows in the list's order: the first `pageSize`
 * as `rowOf` shows them, and the cursor after the last of them when the one past says more follow.
 */
export function reportPage<R, T>(
  read: readonly R[],
  pageSize: number,
  rowOf: (r: R) => T,
  cursorAfter: (last: R) => string,
) {
  const more = read.length > pageSize;
  const page = more ? read.slice(0, pageSize) : read;
  const last = page.at(-1);
  return { list: page.map(rowOf), nextCursor: more && last ? cursorAfter(last) : null };
}

/**
 * `reportPage` of a query whose rows carry the period's row count (`total`) beside the page's rows, and
 * stand as one row of the count alone (its `key` null) when the page is empty.
 */
export function countedReportPage<R extends { total: number }, K extends keyof R, T>(
  rows: readonly R[],
  key: K,
  pageSize: number,
  rowOf: (r: R & Record<K, NonNullable<R[K]>>) => T,
  cursorAfter: (last: R & Record<K, NonNullable<R[K]>>) => string,
) {
  const found = rows.filter((r): r is R & Record<K, NonNullable<R[K]>> => r[key] !== null);
  return { total: Number(rows[0]?.total ?? 0), ...reportPage(found, pageSize, rowOf, cursorAfter) };
}

/**
 * The period's totals, one per currency (or wallet and currency), from rows that each carry the business
 * time zone; nothing in view is one row of the zone alone (its currency null), which totals nothing.
 */
export function periodTotals<R extends { zone: string; currency?: string | null | undefined }, T>(
  rows: readonly R[],
  totalOf: (r: R) => T,
) {
  return {
    businessTimeZone: rows[0]!.zone,
    totals: rows.filter((r) => r.currency != null).map(totalOf),
  };
}
