/** PostgreSQL: a pool that listens for changes and outlasts a restart or a failover, and a read replica. */
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { migrationsFolder, paramText, statementName } from './driver.ts';
import { DatabaseUnavailable, isConnectionLost, outageBudgetMs, outagePause } from './errors.ts';
import { changesChannel, Feed, feeds } from './feed.ts';
import type { Database, Db, RawRow } from './index.ts';

/** Column values stay text: callers parse what they read (identity for every type). */
const textTypes = { getTypeParser: () => (v: string) => v };

/** The driver client under a drizzle handle or transaction (drizzle keeps it on `session.client`). */
function clientOf(on: Db): unknown {
  const client = (on as unknown as { session?: { client?: unknown } }).session?.client;
  if (!client) throw new Error('not a drizzle database or transaction handle');
  return client;
}

/**
 * Adds the replica's pool to an open primary. Nothing connects until the first routed read, so a replica
 * that is down delays no start: its reads go to the primary (server/http/reader.ts). Its sessions are read
 * only (a URL that names a writable server by mistake still takes no write), hear no notifications (a
 * standby cannot LISTEN) and give up connecting after a few seconds.
 */
export function withReplica(database: Database, url: string, poolSize: number): Database {
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

export async function openPostgres(
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

const ignore = () => {};

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
