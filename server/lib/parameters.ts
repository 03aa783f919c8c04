/** Reads a declared platform parameter (contract/parameters.ts): the stored value when valid, else its default. */
import { eq } from 'drizzle-orm';
import * as z from 'zod/mini';
import { type ParameterKey, type ParameterValue, parameterDefs } from '../../contract/parameters.ts';
import type { Db } from '../db/index.ts';
import { parameters } from '../db/schema.ts';

export async function readParameter<K extends ParameterKey>(db: Db, key: K): Promise<ParameterValue<K>> {
  const def = parameterDefs[key];
  const [row] = await db.select({ value: parameters.value }).from(parameters).where(eq(parameters.key, key));
  if (row === undefined) return def.default as ParameterValue<K>;
  const parsed = z.safeParse(def.schema as z.ZodMiniType, row.value);
  return (parsed.success ? parsed.data : def.default) as ParameterValue<K>;
}

/** Sets a parameter (tests, demo); the parameter screen will add validation, logging and the code. */
export async function writeParameter<K extends ParameterKey>(db: Db, key: K, value: ParameterValue<K>) {
  await db
    .insert(parameters)
    .values({ key, value })
    .onConflictDoUpdate({ target: parameters.key, set: { value, updatedAt: new Date() } });
}
