import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite, protocol } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
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
  close(): Promise<void>;
}

/**
 * Committed changes to the watched tables (users, roles, user_roles, sessions, parameters, merchants,
 * merchant_channels, channels, agents), as triggers announce them with `NOTIFY paygate_changes`
 * (migration 0008). What the server keeps in memory from those tables (resolved sessions, gateway
 * merchants and their routes) is valid only while `live` and only at the `version` it was read at.
 *
 * - A change committed by this process moves `version` before the committing call returns: on
 *   PostgreSQL every pooled connection listens, and the server delivers a session's own notifications
 *   before it reports the commit; PGlite delivers them while it answers the COMMIT.
 * - A change committed by another process arrives on a listening connection, asynchronously (well under
 *   a millisecond on one machine). The workers of one server (`WORKERS`, server/main.ts) close even that
 *   gap: `handOver` tells the others through the cluster before `inTransaction` returns.
 */
export interface ChangeFeed {
  readonly version: number;
  /** False while a change could go unnoticed (PostgreSQL: the listening connection is down). */
  readonly live: boolean;
  /** A change learned another way (from a sibling process): forget what was read before it. */
  bump(): void;
  /**
   * How this process tells its siblings about a change it committed; `inTransaction` waits for it (at most
   * once at a time) before it returns.
   */
  handOver(fn: (() => Promise<void>) | undefined): void;
  /** Resolves when the hand-over of the changes this process committed so far is done. */
  settled(): Promise<void>;
}

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/** Every open of a PGlite folder loads the same extensions, or queries that need them fail. */
const pgliteExtensions = { pg_trgm };

/** The channel the change triggers notify on. */
export const changesChannel = 'paygate_changes';

class Feed implements ChangeFeed {
  version = 0;
  live = false;
  private handOverFn: (() => Promise<void>) | undefined;
  private pending: Promise<void> | undefined;
  private again = false;
  bump() {
    this.version++;
  }
  setLive(live: boolean) {
    this.live = live;
    this.version++;
  }
  handOver(fn: (() => Promise<void>) | undefined) {
    this.handOverFn = fn;
  }
  /** This process committed a change: hand it over to the siblings, one hand-over at a time. */
  ownChange() {
    if (!this.handOverFn) return;
    if (this.pending) {
      this.again = true;
      return;
    }
    const run = async (): Promise<void> => {
      do {
        this.again = false;
        await this.handOverFn?.().catch(() => {});
      } while (this.again);
      this.pending = undefined;
    };
    this.pending = run();
  }
  settled(): Promise<void> {
    return this.pending ?? Promise.resolve();
  }
}

const feeds = new WeakMap<object, Feed>();

/** A short, stable statement name for a text (PostgreSQL keeps prepared statements per connection). */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `s_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    if (statementNames.size >= 2_000) statementNames.clear();
    statementNames.set(text, name);
  }
  return name;
}

/** Parameters as the text PostgreSQL reads them. */
function paramText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Column values stay text: callers parse what they read (identity for every type). */
const textTypes = { getTypeParser: () => (v: string) => v };

/** The driver client under a drizzle handle or transaction (drizzle keeps it on `session.client`). */
function clientOf(on: Db): unknown {
  const client = (on as unknown as { session?: { client?: unknown } }).session?.client;
  if (!client) throw new Error('not a drizzle database or transaction handle');
  return client;
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

/**
 * Adds the replica's pool to an open primary. Nothing connects until the first routed read, so a replica
 * that is down delays no start: its reads go to the primary (server/http/reader.ts). Its sessions are read
 * only (a URL that names a writable server by mistake still takes no write), hear no notifications (a
 * standby cannot LISTEN) and give up connecting after a few seconds.
 */
function withReplica(database: Database, url: string, poolSize: number): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: Math.max(2, Math.ceil(poolSize / 2)),
    options: '-c default_transaction_read_only=on',
    connectionTimeoutMillis: 3_000,
  });
  pool.on('error', () => {});
  const close = database.close;
  return {
    ...database,
    replica: drizzlePg(pool) as unknown as Db,
    close: async () => {
      await Promise.all([close(), pool.end()]);
    },
  };
}

async function openPostgres(
  url: string,
  poolSize: number,
  migrate: boolean,
  warn: (msg: string, err?: unknown) => void,
): Promise<Database> {
  let closing = false;
  const feed = new Feed();
  // Every pooled connection listens before its first use, so that a change this process commits moves
  // the feed before the COMMIT (or the autocommitted statement) returns: the server sends a session's
  // own notifications ahead of its ReadyForQuery.
  const onConnect = async (client: pg.PoolClient) => {
    // A connection cut while the client is checked out (a transaction between two statements) is reported
    // as an `error` event with no listener but this one: without it the process would crash. The next
    // statement on it fails instead, and the pool discards the client when it is released.
    client.on('error', ignore);
    client.on('notification', (n) => {
      feed.bump();
      if (n.processId === (client as unknown as { processID?: number }).processID) feed.ownChange();
    });
    await client.query(`listen ${changesChannel}`);
  };
  const pool = new RetryingPool({
    connectionString: url,
    max: poolSize,
    onConnect,
  } as unknown as pg.PoolConfig);
  // Named `raw` statements outside a transaction run here, on a generic plan: PostgreSQL's own choice
  // (`plan_cache_mode = auto`) keeps planning the list's page afresh on every call, which costs more than
  // running it. Only statements whose plan does not hang on the values are named (see `Database.raw`);
  // everything else, the unnamed ones included, stays on the other pool.
  const generic = new RetryingPool({
    connectionString: url,
    max: Math.max(2, Math.ceil(poolSize / 2)),
    options: '-c plan_cache_mode=force_generic_plan',
    onConnect,
  } as unknown as pg.PoolConfig);
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {});
  generic.on('error', () => {});
  const db = drizzlePg(pool) as unknown as Db; // without the schema, as on PGlite
  if (migrate) await migratePg(db as never, { migrationsFolder });
  feeds.set(db, feed);

  // The connection that hears other processes' changes whatever the pool holds at the moment; the caches
  // are off while it is down (and every change is forgotten when it is back).
  let listener: pg.Client | undefined;
  const retry = () => {
    if (!closing) setTimeout(() => void listen(), 1_000).unref();
  };
  const listen = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: url });
    const lost = (err?: unknown) => {
      if (listener !== client) return;
      listener = undefined;
      feed.setLive(false);
      client.end().catch(() => {});
      if (closing) return;
      warn('lost the change feed connection: caches are off until it is back', err);
      retry();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', () => feed.bump());
    try {
      await client.connect();
      await client.query(`listen ${changesChannel}`);
    } catch (err) {
      client.end().catch(() => {});
      if (!closing) warn('could not open the change feed connection: caches are off until it is', err);
      retry();
      return;
    }
    if (closing) {
      await client.end().catch(() => {});
      return;
    }
    listener = client;
    feed.setLive(true);
  };
  await listen();

  const raw: Database['raw'] = async (on, text, params, o) => {
    const client = (on === db ? (o?.name ? generic : pool) : clientOf(on)) as pg.Pool | pg.PoolClient;
    const result = await client.query({
      ...(o?.name ? { name: statementName(text) } : {}),
      text,
      values: params.map(paramText),
      rowMode: 'array',
      types: textTypes,
    });
    return result.rows as RawRow[];
  };

  return {
    db,
    engine: 'postgres',
    changes: feed,
    raw,
    close: async () => {
      closing = true;
      feed.setLive(false);
      await feed.settled();
      const l = listener;
      listener = undefined;
      await Promise.all([l?.end().catch(() => {}), pool.end(), generic.end()]);
    },
  };
}

const retryable = new Set(['40001', '40P01']);

/** An error and what it wraps, four deep (drizzle wraps the driver's error in its own). */
function* causes(err: unknown): Generator<unknown> {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++)
    yield e;
}

const ignore = () => {};

/**
 * How long a statement or transaction that lost its connection keeps being tried again before the caller is
 * told the database is unavailable: long enough for a restart or a failover to a standby, short enough for
 * an HTTP client still to be waiting.
 */
export const outageBudgetMs = 16_000;

/** The pause before the `n`th try (from 0) after a lost connection: 50 ms doubling to 1 s, with jitter. */
const outagePause = (n: number) => {
  const ms = Math.min(1_000, 50 * 2 ** n);
  return new Promise((r) => setTimeout(r, ms / 2 + Math.random() * (ms / 2)));
};

/** SQLSTATEs of a connection the server ended or refused: admin/crash shutdown, cannot connect now. */
const lostStates = new Set(['57P01', '57P02', '57P03']);
/** Node's socket errors. */
const lostCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** pg's own errors for a connection that went away (they carry no code). */
const lostMessages = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'terminating connection due to administrator command',
  'Client has encountered a connection error and is not queryable',
  'Connection terminated due to connection timeout',
]);

/**
 * True when `err` (or what it wraps, as drizzle wraps the driver's errors) says the connection to the
 * database was lost or could not be made: the statement's outcome is the connection's, not the data's.
 */
export function isConnectionLost(err: unknown): boolean {
  for (const e of causes(err)) {
    if (e instanceof DatabaseUnavailable) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (lostStates.has(code) || code.startsWith('08') || lostCodes.has(code)))
      return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && lostMessages.has(message)) return true;
  }
  return false;
}

/**
 * The database could not be reached for `outageBudgetMs` (`outcome: 'not applied'`: nothing was
 * committed), or the connection was lost while a COMMIT or an autocommitted write was on its way
 * (`outcome: 'unknown'`: it may have taken effect). Never retried by `retrying`: the caller's own retry is
 * safe only where the write is idempotent (a pay-in by its merchant order number) or checked (console
 * writes refuse what is already done). The API answers it with HTTP 503, `errno.databaseUnavailable`.
 */
export class DatabaseUnavailable extends Error {
  constructor(
    readonly outcome: 'not applied' | 'unknown',
    cause: unknown,
  ) {
    super(
      outcome === 'unknown'
        ? 'the connection to the database was lost while a write was being committed: its outcome is unknown'
        : 'the database is unavailable',
      { cause },
    );
  }
}

/** The `DatabaseUnavailable` in `err` or what it wraps. */
function unavailableIn(err: unknown): DatabaseUnavailable | undefined {
  for (const e of causes(err)) if (e instanceof DatabaseUnavailable) return e;
  return undefined;
}

/** Whether an API call that failed with `err` should answer 503 (the database is down), not 500. */
export const isDatabaseUnavailable = (err: unknown): boolean => isConnectionLost(err);

/**
 * A statement that only reads: run again safely after a lost connection. Plain `select`s without locking
 * clauses or functions that write (sequences, advisory locks, notifications, `select into`).
 */
function isRead(text: string): boolean {
  return (
    /^\s*select\b/i.test(text) &&
    !/\b(nextval|setval|pg_advisory\w*|pg_notify|into|for\s+(no\s+key\s+)?update|for\s+(key\s+)?share)\b/i.test(
      text,
    )
  );
}

/** Errors of a connection that was never made: nothing was sent, anything may be sent again. */
const notSent = (err: unknown) => {
  const code = (err as { code?: unknown }).code;
  return code === 'ECONNREFUSED' || code === '57P03';
};

/**
 * The pool of `openPostgres`. A statement run on the pool itself (outside a transaction: `raw` on the
 * database handle, drizzle's queries on it) that fails on a lost connection runs again, with pauses, once
 * the server answers, when that is safe: a read, or any statement whose connection was refused (nothing
 * was sent). A write cut while on its way may have committed (autocommit): `DatabaseUnavailable` with an
 * unknown outcome. The normal path is pg-pool's own (one promise, one callback per statement, as there).
 * The clients of transactions are the pool's too; a dead one is discarded when released (`_queryable`).
 */
class RetryingPool extends pg.Pool {
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloads
  override query(config: any, values?: any, cb?: any): any {
    if (typeof values === 'function' || typeof cb === 'function') return super.query(config, values, cb);
    return new Promise((resolve, reject) => {
      super.query(config, values, (err: Error | undefined, res: unknown) => {
        if (!err) resolve(res);
        else if (!isConnectionLost(err)) reject(err);
        else this.again(config, values, err, Date.now(), 0).then(resolve, reject);
      });
    });
  }

  private async again(
    config: unknown,
    values: unknown,
    err: unknown,
    since: number,
    n: number,
  ): Promise<unknown> {
    const text = typeof config === 'string' ? config : ((config as { text?: string }).text ?? '');
    for (;;) {
      if (!notSent(err) && !isRead(text)) throw new DatabaseUnavailable('unknown', err);
      if (this.ending || Date.now() - since >= outageBudgetMs)
        throw new DatabaseUnavailable('not applied', err);
      await outagePause(n++);
      try {
        return await super.query(config as pg.QueryConfig, values as unknown[]);
      } catch (e) {
        if (!isConnectionLost(e)) throw e;
        err = e;
      }
    }
  }
}

/** SQLSTATE of a database error, looking through the ORM's wrapper. */
export function sqlState(err: unknown): string | undefined {
  for (const e of causes(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/**
 * Thrown inside `inTransaction` to roll the transaction back and run it again from the start, like a
 * serialization failure: for work that found out, too late to undo it otherwise, that it lost a race.
 */
export class RetryTransaction extends Error {}

/** Work to run once a transaction begun by `inTransaction` commits, by its handle. */
const commitHooks = new WeakMap<object, Array<() => void>>();

/**
 * Runs `fn` once what `on` read is committed: at once on a database handle, after the commit for a
 * transaction begun by `inTransaction`, and never for any other transaction (nor when it rolls back).
 * For caches filled inside a transaction, which may have read its own uncommitted writes.
 */
export function whenCommitted(on: Db, fn: () => void): void {
  if (feeds.has(on)) fn();
  else commitHooks.get(on)?.push(fn);
}

/**
 * Runs `fn` again, after a short random pause, when it lost a race: a serialization failure, a deadlock,
 * or `RetryTransaction`; at most `attempts` times. `inTransaction` runs each transaction so; a write made
 * without one (the gateway's pay-in creation) is run so directly.
 *
 * A lost connection (`isConnectionLost`: the server restarted, or failed over) is tried again too, with
 * pauses growing to 1 s, for up to `outageBudgetMs`, then `DatabaseUnavailable`. It reaches this point
 * only when nothing was committed: a transaction cut before its COMMIT (the server rolls it back), a
 * connection refused; `inTransaction` turns a cut during the COMMIT, and the pool a cut autocommitted
 * write, into `DatabaseUnavailable` with an unknown outcome, which is never tried again.
 */
export async function retrying<T>(fn: (attempt: number) => Promise<T>, attempts = 8): Promise<T> {
  // Races lost so far (limited by `attempts`), and since when and how often the connection was lost.
  let races = 0;
  let lostSince = 0;
  let lost = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (isConnectionLost(err)) {
        // Already tried for the whole budget, or cut during a COMMIT: the caller decides.
        const given = unavailableIn(err);
        if (given) throw given;
        if (!lostSince) lostSince = Date.now();
        else if (Date.now() - lostSince >= outageBudgetMs) throw new DatabaseUnavailable('not applied', err);
        await outagePause(lost++);
        continue;
      }
      const again = err instanceof RetryTransaction || retryable.has(sqlState(err) ?? '');
      if (!again || ++races >= attempts) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** races));
    }
  }
}

/**
 * Runs `fn` in one transaction, retrying it from the start on serialization failures and deadlocks
 * (and `RetryTransaction`), so that no 40001 / 40P01 ever reaches a caller. When the transaction changed
 * a watched table, it returns once the change feed's hand-over to sibling processes is done.
 */
/** Work to run once a transaction begun by `inTransaction` has ended, committed or rolled back. */
const endHooks = new WeakMap<object, Array<() => Promise<void>>>();

/**
 * Runs `fn` once the transaction `on` has ended, whether it committed or rolled back, before
 * `inTransaction` answers (or throws): for what must hold whatever becomes of the work around it (a Google
 * code an action accepted stays spent). Nothing for a database handle or another transaction.
 */
export function whenEnded(on: Db, fn: () => Promise<void>): void {
  endHooks.get(on)?.push(fn);
}

export function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>, attempts = 8): Promise<T> {
  return retrying(async () => {
    const hooks: Array<() => void> = [];
    const ended: Array<() => Promise<void>> = [];
    let out: T;
    // Set once `fn` is done: drizzle sends the COMMIT next. A connection lost from then on leaves the
    // outcome unknown, so that is never tried again (see `retrying` for the rest).
    let committing = false;
    try {
      out = await db.transaction(async (tx) => {
        commitHooks.set(tx, hooks);
        endHooks.set(tx, ended);
        const r = await fn(tx);
        committing = true;
        return r;
      });
    } catch (err) {
      if (committing && isConnectionLost(err) && !unavailableIn(err))
        throw new DatabaseUnavailable('unknown', err);
      throw err;
    } finally {
      for (const hook of ended) await hook();
    }
    for (const hook of hooks) hook();
    const feed = feeds.get(db);
    if (feed) await feed.settled();
    return out;
  }, attempts);
}
