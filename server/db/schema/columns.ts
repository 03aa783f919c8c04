/** Column types and helpers the schema's areas share. */
import { sql } from 'drizzle-orm';
import { customType, index, timestamp } from 'drizzle-orm/pg-core';

export const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const createdAt = () => at('created_at').notNull().defaultNow();

/** An index on a number compared byte by byte, which also serves its prefix search. */
export const numberIndex = (name: string, column: string) =>
  index(name).using('btree', sql.raw(`${column} collate "C"`));

/**
 * Text compared byte by byte (`COLLATE "C"`): for a number whose unique index then also serves the prefix
 * search, instead of a second index kept up on every insert (the pay-in order number and UTR).
 */
export const cText = customType<{ data: string; driverData: string }>({ dataType: () => 'text COLLATE "C"' });

/** Bytes as the driver gives them (PostgreSQL `bytea`). */
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });
