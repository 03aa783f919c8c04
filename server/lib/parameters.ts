/**
 * Reads a declared platform parameter (contract/parameters.ts): the stored value when valid, else its
 * default. Every reader reads the table per use (or keeps it only while the change feed stands still), so
 * a change made in one server process applies to the next request in every other.
 */
import { eq } from 'drizzle-orm';
import {
  type ParameterKey,
  type ParameterValue,
  parameterDefs,
  validParameter,
} from '../../contract/parameters.ts';
import type { Config } from '../config.ts';
import type { Database, Db } from '../db/index.ts';
import { parameters } from '../db/schema.ts';
import { FeedKept } from './feedKept.ts';

/** The default in force: the business time zone's is BUSINESS_TIME_ZONE when configured. */
export function parameterDefault<K extends ParameterKey>(
  key: K,
  config?: Pick<Config, 'businessTimeZone'>,
): ParameterValue<K> {
  if (key === 'business_time_zone' && config?.businessTimeZone)
    return config.businessTimeZone as ParameterValue<K>;
  return parameterDefs[key].default as ParameterValue<K>;
}

/** A stored value (JSON already parsed; undefined when none is stored) read as the declaration says. */
export function parameterOf<K extends ParameterKey>(
  key: K,
  value: unknown,
  config?: Pick<Config, 'businessTimeZone'>,
): ParameterValue<K> {
  return (value === undefined ? undefined : validParameter(key, value)) ?? parameterDefault(key, config);
}

export async function readParameter<K extends ParameterKey>(
  db: Db,
  key: K,
  config?: Pick<Config, 'businessTimeZone'>,
): Promise<ParameterValue<K>> {
  const [row] = await db.select({ value: parameters.value }).from(parameters).where(eq(parameters.key, key));
  return parameterOf(key, row?.value, config);
}

const kept = new FeedKept<ParameterKey, unknown>(100);

/**
 * `readParameter` outside any transaction, kept in memory while the change feed shows no change to a
 * watched table (parameters are one): for a job's per-item reads (the callback schedule of each attempt).
 */
export async function keptParameter<K extends ParameterKey>(
  database: Database,
  key: K,
  config?: Pick<Config, 'businessTimeZone'>,
): Promise<ParameterValue<K>> {
  const hit = kept.get(database, key);
  if (hit !== undefined) return hit as ParameterValue<K>;
  const read = kept.mark(database);
  const value = await readParameter(database.db, key, config);
  kept.keep(database, key, value, read);
  return value;
}

/** Sets a parameter (tests, demo); `/parameter/update` adds validation, the code and the log. */
export async function writeParameter<K extends ParameterKey>(db: Db, key: K, value: ParameterValue<K>) {
  await db
    .insert(parameters)
    .values({ key, value })
    .onConflictDoUpdate({ target: parameters.key, set: { value, updatedAt: new Date() } });
}
