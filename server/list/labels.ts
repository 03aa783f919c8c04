import { inArray } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../db/index.ts';
import { agents, channels, merchants, users } from '../db/schema.ts';

/** A kind of record a row names by id, and the column that says which one it is to a person. */
interface Labelled {
  id: AnyPgColumn;
  label: AnyPgColumn;
}

export const merchantCodes: Labelled = { id: merchants.id, label: merchants.code };
export const channelCodes: Labelled = { id: channels.id, label: channels.code };
export const agentNames: Labelled = { id: agents.id, label: agents.name };
export const userNames: Labelled = { id: users.id, label: users.username };

/**
 * What a page of rows calls the records it refers to by id (a merchant's code, a user's name): one query
 * for all of them, none when the page names none. Unknown ids are missing from the map.
 */
export async function labelsOf(
  tx: Db,
  { id, label }: Labelled,
  ids: readonly (number | null)[],
): Promise<Map<number, string>> {
  const wanted = [...new Set(ids.filter((i): i is number => i !== null))];
  if (!wanted.length) return new Map();
  const rows = await tx.select({ id, label }).from(id.table).where(inArray(id, wanted));
  return new Map(rows.map((r) => [r.id as number, r.label as string]));
}
