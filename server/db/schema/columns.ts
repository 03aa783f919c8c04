/** Column types and helpers the schema's areas share. */
import { type SQLWrapper, sql } from 'drizzle-orm';
import { bigint, check, customType, index, integer, text, timestamp } from 'drizzle-orm/pg-core';
import type { AnyMachine, StateOf } from '../../../contract/machine.ts';
import { statesSql } from '../states.ts';

export const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const createdAt = () => at('created_at').notNull().defaultNow();
export const updatedAt = () => at('updated_at').notNull().defaultNow();
/** When a row was written and last changed: what every record a person edits carries. */
export const timestamps = () => ({ createdAt: createdAt(), updatedAt: updatedAt() });

/** Money in minor units (paise, cents), read as a JavaScript number (exact up to 2^53). */
export const minorUnits = <N extends string>(name: N) => bigint(name, { mode: 'number' });
/** An amount of money: its currency and its minor units. */
export const money = () => ({
  currency: text('currency').notNull(),
  amount: minorUnits('amount').notNull(),
});

/** Who decided a request (approved, rejected, closed) and when; null while it waits. */
export const decided = () => ({ decidedBy: integer('decided_by'), decidedAt: at('decided_at') });

/** A proof image's file (under DATA_DIR/uploads) and the user who uploaded it. */
export const uploadedFile = () => ({
  path: text('path').notNull(),
  mime: text('mime').notNull(),
  size: integer('size').notNull(),
  userId: integer('user_id'),
  createdAt: createdAt(),
});

/** The status of an object a machine drives (contract/machines.ts): one of its states, its initial first. */
export const machineStatus = <M extends AnyMachine>(m: M) =>
  text('status').notNull().default(m.initial).$type<StateOf<M>>();
/** The database holds the machine's states only, whatever the code above does. */
export const machineStatusCheck = (name: string, status: SQLWrapper, m: AnyMachine) =>
  check(name, sql`${status} in (${statesSql(m.states)})`);

/** A record a person switches off and on again (`active` or `disabled`). */
export const switchStatus = () => text('status').notNull().default('active').$type<'active' | 'disabled'>();
export const switchStatusCheck = (name: string, status: SQLWrapper) =>
  check(name, sql`${status} in ('active','disabled')`);

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
