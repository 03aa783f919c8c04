/**
 * The business day of an instant, in SQL. Daily rollups (the order stats, the ledger's daily movements)
 * bucket by the zone their rows were built with, stored as a parameter, so that rows never mix two zones;
 * `rebuildOrderStats` (server/modules/dashboard/stats.ts) rebuilds them and stores a new zone together.
 */
import { sql } from 'drizzle-orm';
import { defaultBusinessTimeZone } from '../config.ts';

export const timeZoneParameter = 'order_stats_time_zone';

/** The zone the stored rows use, as SQL (the migration stores the default; fallback for safety). */
export const storedZone = sql`coalesce((select value #>> '{}' from parameters where key = ${timeZoneParameter}), ${defaultBusinessTimeZone})`;

/**
 * A `YYYY-MM-DD` day that exists on the calendar (a cursor's, read back from a client): `Date.parse`
 * takes 2026-02-30 as 2 March, the database refuses it.
 */
export function isCalendarDay(day: string): boolean {
  const parsed = Date.parse(`${day}T00:00:00Z`);
  return (
    /^\d{4}-\d{2}-\d{2}$/.test(day) &&
    !Number.isNaN(parsed) &&
    new Date(parsed).toISOString().slice(0, 10) === day &&
    day >= '0001-01-01'
  );
}
