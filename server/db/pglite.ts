/** Embedded PostgreSQL (PGlite): one session, in a folder (in a thread of its own) or in memory. */
import { mkdirSync } from 'node:fs';
import { protocol } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrationsFolder, paramText, statementName } from './driver.ts';
import { changesChannel, Feed, feeds } from './feed.ts';
import type { Database, Db, RawRow } from './index.ts';
import { type Backend, concat, localBackend, threadBackend } from './pgliteBackend.ts';
import { PgliteClient } from './pgliteClient.ts';

const { serialize } = protocol;

/** Opens PGlite in `dataDir` (or in memory, from `loadDataDir` when given) and migrates unless told not to. */
export async function openPglite(opts: {
  dataDir?: string;
  migrate?: boolean;
  loadDataDir?: Blob;
  /** Where a restart of the database's thread is told. */
  warn?: (msg: string, err?: unknown) => void;
}): Promise<Database> {
  const feed = new Feed();
  /** Named statements PGlite has parsed in this session (`raw`). */
  const prepared = new Set<string>();
  let backend: Backend;
  if (opts.dataDir) {
    mkdirSync(opts.dataDir, { recursive: true });
    backend = await threadBackend(`${opts.dataDir}/pgdata`, {
      // The session went with the thread: its prepared statements and its LISTEN. Until the new one listens,
      // what the server keeps from the watched tables is not trusted (the feed is not live).
      stopped(err) {
        prepared.clear();
        feed.setLive(false);
        opts.warn?.('the database thread stopped: starting it again', err);
      },
      async started(send) {
        await send(serialize.query(`LISTEN ${changesChannel}`));
        feed.setLive(true);
        opts.warn?.('the database thread started again');
      },
    });
  } else backend = await localBackend({ loadDataDir: opts.loadDataDir });
  const client = await PgliteClient.open(backend);
  // Without the schema: nothing uses drizzle's relational queries, and with it every transaction builds
  // a query builder per table (a few percent of a pay-in creation's server time).
  const db = drizzlePglite(client as never) as unknown as Db;
  if (opts.migrate !== false) await migratePglite(db as never, { migrationsFolder });
  // One session: the listener is called (in a microtask) while the COMMIT is answered.
  await client.listen(changesChannel, () => feed.bump());
  feed.setLive(true);
  feeds.set(db, feed);
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
      let messages: Awaited<ReturnType<PgliteClient['execProtocol']>>['messages'];
      try {
        ({ messages } = await client.execProtocol(concat(parts), { syncToFs: !inTransaction }));
      } catch (err) {
        if (name && !prepared.has(name)) {
          // It may have been parsed before the error: close it, so that the next try parses it again (not
          // when the database's thread is gone, and with it the statement: the statement's error stands).
          await client
            .execProtocol(concat([serialize.close({ type: 'S', name }), serialize.sync()]), {
              syncToFs: false,
            })
            .catch(() => {});
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
  return {
    db,
    engine: 'pglite',
    changes: feed,
    raw,
    giveWay: (maxMs) => client.giveWay(undefined, maxMs),
    get thread() {
      return backend.thread;
    },
    close: () => client.close(),
  };
}
