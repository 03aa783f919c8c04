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
