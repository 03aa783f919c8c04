/** Embedded PostgreSQL (PGlite): one process, one session, in a folder or in memory. */
import { mkdirSync } from 'node:fs';
import { PGlite, protocol } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrationsFolder, paramText, statementName } from './driver.ts';
import { changesChannel, Feed, feeds } from './feed.ts';
import type { Database, Db, RawRow } from './index.ts';

/** Every open of a PGlite folder loads the same extensions, or queries that need them fail. */
const pgliteExtensions = { pg_trgm };

/** Opens PGlite in `dataDir` (or in memory, from `loadDataDir` when given) and migrates unless told not to. */
export async function openPglite(opts: {
  dataDir?: string;
  migrate?: boolean;
  loadDataDir?: Blob;
}): Promise<Database> {
  let dataDir: string | undefined;
  if (opts.dataDir) {
    mkdirSync(opts.dataDir, { recursive: true });
    dataDir = `${opts.dataDir}/pgdata`;
  }
  const client = await PGlite.create({
    dataDir,
    extensions: pgliteExtensions,
    ...(opts.loadDataDir && !dataDir ? { loadDataDir: opts.loadDataDir } : {}),
  });
  // Without the schema: nothing uses drizzle's relational queries, and with it every transaction builds
  // a query builder per table (a few percent of a pay-in creation's server time).
  const db = drizzlePglite(client) as unknown as Db;
  if (opts.migrate !== false) await migratePglite(db as never, { migrationsFolder });
  // One process, one session: PGlite calls the listener (in a microtask) while it answers the COMMIT.
  const feed = new Feed();
  await client.listen(changesChannel, () => feed.bump());
  feed.setLive(true);
  feeds.set(db, feed);
  const prepared = new Set<string>();
  const { serialize } = protocol;
  const utility = (text: string) => [serialize.parse({ text }), serialize.bind({}), serialize.execute({})];
  const genericOn = utility('set plan_cache_mode = force_generic_plan');
  const genericOff = utility('reset plan_cache_mode');
  const raw: Database['raw'] = (on, text, params, o) => {
    const inTransaction = on !== db;
    const name = o?.name ? statementName(text) : '';
    const values = params.map(paramText);
    const run = async (): Promise<RawRow[]> => {
      // Parse (once for a named statement), Bind, Execute and Sync in one call into PGlite: its `query`
      // makes six, and parses and plans every time.
      const parts: Uint8Array[] = [];
      if (!name || !prepared.has(name)) parts.push(serialize.parse({ name, text }));
      // A named statement outside a transaction runs on its generic plan, as on PostgreSQL, where those go
      // to a pool set so (the plan is chosen when it is bound); inside one, as there, PostgreSQL chooses
      // (for the creation's inserts that is the generic plan after five runs, without two more statements
      // around each bind).
      const generic = name !== '' && !inTransaction;
      if (generic) parts.push(...genericOn);
      parts.push(serialize.bind({ statement: name, values }), serialize.execute({}));
      if (generic) parts.push(...genericOff);
      parts.push(serialize.sync());
      let messages: Awaited<ReturnType<PGlite['execProtocol']>>['messages'];
      try {
        ({ messages } = await client.execProtocol(concat(parts), { syncToFs: !inTransaction }));
      } catch (err) {
        if (name && !prepared.has(name)) {
          // It may have been parsed before the error: close it, so that the next try parses it again.
          await client.execProtocol(concat([serialize.close({ type: 'S', name }), serialize.sync()]), {
            syncToFs: false,
          });
        }
        throw err;
      }
      if (name) prepared.add(name);
      const rows: RawRow[] = [];
      for (const m of messages) if (m instanceof protocol.messages.DataRowMessage) rows.push(m.fields);
      return rows;
    };
    // The locks PGlite's own query takes: inside a transaction only the query lock (the transaction
    // holds the other); outside, wait for any open transaction first.
    return inTransaction
      ? client._runExclusiveQuery(run)
      : client._runExclusiveTransaction(() => client._runExclusiveQuery(run));
  };
  return { db, engine: 'pglite', changes: feed, raw, close: () => client.close() };
}

function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
