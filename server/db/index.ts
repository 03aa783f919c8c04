/**
 * The database: PostgreSQL (`postgres.ts`) or embedded PGlite (`pglite.ts`) behind one handle, its
 * change feed (`feed.ts`), transactions (`transaction.ts`) and what its errors mean (`errors.ts`).
 */
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ChangeFeed } from './feed.ts';
import { openPglite } from './pglite.ts';
import { openPostgres, withReplica } from './postgres.ts';
import * as schema from './schema.ts';

export { schema };
export type Schema = typeof schema;
/** A database handle or a transaction: everything a query needs. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

/** A row as the driver reads it off the wire: each column's text, or null. */
export type RawRow = (string | null)[];

export interface Database {
  db: Db;
  engine: 'pglite' | 'postgres';
  /** Committed changes to the tables whose rows the server keeps in memory (see `ChangeFeed`). */
  changes: ChangeFeed;
  /**
   * Runs one statement straight on the driver, on `on` (this database's handle, or a transaction of it),
   * and answers its rows as text, unparsed. With a `name` the statement is prepared once per connection
   * and only bound and executed afterwards; outside a transaction it then runs on its generic plan
   * (inside one, PostgreSQL chooses): give one only to statements whose plan does not depend on the values. This is for the hot paths (order lists, lookups,
   * pay-in creation), where building the query, parsing and planning it, and mapping typed rows cost more
   * than executing it.
   */
  raw(on: Db, text: string, params: readonly unknown[], opts?: { name?: boolean }): Promise<RawRow[]>;
  /**
   * A streaming replica of the primary (`DATABASE_REPLICA_URL`), read only, for what may read a moment
   * behind: reports, exports, list totals, chosen by `readerFor` (server/http/reader.ts). Absent on PGlite
   * and without a replica. `raw(replica, …)` runs on it too (it is not `db`, so its own pool is used).
   */
  replica?: Db;
  /**
   * Batch work that runs many transactions one after another (a statement's lines posted, the T+N run's
   * merchants) waits here before each, outside any transaction: on PGlite, whose one session every
   * request shares, until nobody has used the session for a moment (100 ms at most), so that a request's
   * statements do not queue behind each of the batch's transactions in turn. Absent on PostgreSQL, where
   * the pool's connections work side by side. `maxMs` is for tests, which must not depend on the machine's speed.
   */
  giveWay?(maxMs?: number): Promise<void>;
  /**
   * PGlite on a data folder: the thread it runs in. When it stops the server starts another on the folder
   * (meanwhile calls fail as on a lost connection: 503, never 500); a test ends it to see that.
   */
  readonly thread?: import('node:worker_threads').Worker;
  close(): Promise<void>;
}

/** Opens PostgreSQL when `url` is given, otherwise embedded PGlite in `dataDir` (or in memory), and migrates. */
export async function openDatabase(opts: {
  url?: string;
  dataDir?: string;
  poolSize?: number;
  /** Run the migrations (default). A cluster's workers leave that to the primary process. */
  migrate?: boolean;
  /** Where the change feed reports trouble (a lost listening connection, a slow hand-over). */
  warn?: (msg: string, err?: unknown) => void;
  /** A streaming replica of `url` for the routed reads (`Database.replica`); PostgreSQL only. */
  replicaUrl?: string;
  /** PGlite in memory: a dumped data directory to start from (tests: one migrated database copied). */
  loadDataDir?: Blob;
}): Promise<Database> {
  const warn = opts.warn ?? (() => {});
  if (opts.url) {
    const database = await openPostgres(opts.url, opts.poolSize ?? 20, opts.migrate !== false, warn);
    return opts.replicaUrl ? withReplica(database, opts.replicaUrl, opts.poolSize ?? 20) : database;
  }
  return openPglite({ ...opts, warn });
}

export {
  DatabaseUnavailable,
  isConnectionLost,
  isDatabaseUnavailable,
  outageBudgetMs,
  sqlState,
} from './errors.ts';
export { type ChangeFeed, changesChannel } from './feed.ts';
export { inTransaction, RetryTransaction, retrying, whenCommitted, whenEnded } from './transaction.ts';
