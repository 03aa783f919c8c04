/**
 * The gateway's merchants by code, kept in memory: every signed call needs its merchant (secret, status,
 * terms), and reading and unsealing it on each call is a round trip and a decryption on the hottest
 * path. An entry is valid while the change feed (server/db/index.ts) shows no change to a watched table
 * since it was read (merchants are one): a console change, in this server process or another, applies
 * to the very next call. `forgetMerchants` also drops them at once. One cache per open database, so that
 * tests with a database each never mix.
 */
import { eq } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { merchants } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { FeedKept } from '../lib/feedKept.ts';

export type Merchant = typeof merchants.$inferSelect;

/** Codes are checked against the database before they are kept, so only real merchants fill this. */
const kept = new FeedKept<string, { merchant: Merchant; secret: string }>(10_000);

/** The merchant with this code and its API secret, or undefined when there is none. */
export async function gatewayMerchant(
  deps: Pick<Deps, 'database' | 'sealer'>,
  code: string,
): Promise<{ merchant: Merchant; secret: string } | undefined> {
  const hit = kept.get(deps.database, code);
  if (hit) return hit;
  const read = kept.mark(deps.database);
  const [merchant] = await deps.database.db.select().from(merchants).where(eq(merchants.code, code));
  if (!merchant) {
    kept.drop(deps.database, code);
    return undefined;
  }
  const entry = { merchant, secret: deps.sealer.open(merchant.apiSecret) };
  kept.keep(deps.database, code, entry, read);
  return entry;
}

/** Forgets every kept merchant of this database: call after a change to any merchant commits. */
export function forgetMerchants(database: Database): void {
  kept.forget(database);
}
