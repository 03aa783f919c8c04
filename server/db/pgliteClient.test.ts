/**
 * PGlite behind the server's own client (pgliteClient.ts): on a data folder it runs in a thread of its own,
 * in memory in this one, and both answer alike: parameters as node-postgres binds them, results parsed
 * by type, errors with their SQLSTATE, transactions that roll back, the change feed's notifications, and
 * a folder that keeps what was committed when it is opened again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { protocol } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { rowsOf } from '../ledger/index.ts';
import { unavailableIn } from './errors.ts';
import {
  changesChannel,
  type Database,
  inTransaction,
  isConnectionLost,
  openDatabase,
  sqlState,
} from './index.ts';
import { callPglite, createPglite, localBackend } from './pgliteBackend.ts';
import { PgliteClient, SessionLock } from './pgliteClient.ts';

const { serialize } = protocol;

const folder = mkdtempSync(join(tmpdir(), 'pglite-client-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe.each(['thread', 'memory'] as const)('PGlite through its client, %s', (where) => {
  let database: Database;
  const open = () => openDatabase(where === 'thread' ? { dataDir: folder } : {});
  afterAll(() => database?.close());

  it('binds parameters as node-postgres does and parses results by type', async () => {
    database = await open();
    const { db } = database;
    await db.execute(sql`create table t_client (id bigint primary key, at timestamptz, tags text[],
      doc jsonb, ok boolean, amount numeric)`);
    const at = new Date('2026-11-30T10:00:00.123Z');
    await db.execute(sql`insert into t_client values (${9_007_199_254_740_993n}, ${at}, ${sql.param(['a', 'b "c"', null])},
      ${JSON.stringify({ k: [1, 2] })}, ${true}, ${'12.50'})`);
    const [row] = rowsOf<Record<string, unknown>>(
      await db.execute(sql`select id::text, at, tags, doc, ok, amount from t_client
        where id = any(${sql.param([9_007_199_254_740_993n])}::bigint[])`),
    );
    expect(row).toEqual({
      id: '9007199254740993',
      at: expect.anything(),
      tags: ['a', 'b "c"', null],
      doc: { k: [1, 2] },
      ok: true,
      amount: '12.50',
    });
    expect(new Date(row?.at as string).getTime()).toBe(at.getTime());
  });

  it('throws the SQLSTATE, and a failed transaction leaves nothing', async () => {
    const { db } = database;
    const duplicate = await db
      .execute(sql`insert into t_client (id) values (1), (1)`)
      .catch((e: unknown) => e);
    expect(sqlState(duplicate)).toBe('23505');
    const failed = await inTransaction(db, async (tx) => {
      await tx.execute(sql`insert into t_client (id) values (2)`);
      await tx.execute(sql`insert into t_client (id) values (2)`);
    }).catch((e: unknown) => e);
    expect(sqlState(failed)).toBe('23505');
    const ids = rowsOf<{ id: string }>(await db.execute(sql`select id::text from t_client order by id`));
    expect(ids.map((r) => r.id)).toEqual(['9007199254740993']);
  });

  it('rolls back a raw statement that opened its transaction (BEGIN rides with it)', async () => {
    const { db } = database;
    // The gateway spends a nonce with `raw` as its transaction's first statement; a refusal after it must
    // take the nonce back with the rest, or the retry outside the transaction sees it spent (401).
    const failed = await inTransaction(db, async (tx) => {
      const rows = await database.raw(tx, 'insert into t_client (id) values ($1) returning id::text', [3], {
        name: true,
      });
      expect(rows).toEqual([['3']]);
      throw new Error('refused');
    }).catch((e: unknown) => e);
    expect((failed as Error).message).toBe('refused');
    expect(await database.raw(db, 'select count(*)::text from t_client where id = $1', [3])).toEqual([['0']]);
  });

  it('runs named statements, prepared once, with the same answers', async () => {
    const text = 'select count(*)::int as n from t_client where id > $1';
    const first = await database.raw(database.db, text, [0], { name: true });
    const again = await database.raw(database.db, text, [0], { name: true });
    expect(first).toEqual([['1']]);
    expect(again).toEqual(first);
  });

  it('delivers the change feed before the committing call returns', async () => {
    const before = database.changes.version;
    await database.db.execute(sql.raw(`notify ${changesChannel}, 'parameters'`));
    expect(database.changes.version).toBeGreaterThan(before);
  });

  it.runIf(where === 'thread')('keeps the event loop free while the database works', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    await database.db.execute(sql`select pg_sleep(0.3)`);
    clearInterval(timer);
    // In this thread a 300 ms statement would hold every timer until it ends.
    expect(ticks).toBeGreaterThanOrEqual(10);
  });

  it('gives way to a transaction that holds the session', async () => {
    const { db } = database;
    const giveWay = database.giveWay!;
    const order: string[] = [];
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const holding = inTransaction(db, async (tx) => {
      entered();
      await tx.execute(sql`select pg_sleep(0.05)`);
      order.push('transaction done');
    });
    // Asked while the transaction holds the session; no limit a loaded machine could reach first.
    await inside;
    await giveWay(60_000).then(() => order.push('way given'));
    await holding;
    expect(order).toEqual(['transaction done', 'way given']);
  });

  it.runIf(where === 'thread')('gives way for 100 ms at most', async () => {
    const { db } = database;
    const giveWay = database.giveWay!;
    // Statements one after another without a pause (in this thread, PGlite's calls would never let a
    // timer run): the way is given after 100 ms regardless.
    let busy = true;
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const load = (async () => {
      while (busy) {
        await db.execute(sql`select pg_sleep(0.002)`);
        started();
      }
    })();
    await running;
    const t0 = performance.now();
    await giveWay();
    const waited = performance.now() - t0;
    busy = false;
    await load;
    expect(waited).toBeGreaterThanOrEqual(95);
    expect(waited).toBeLessThan(1_000);
  });

  it.runIf(where === 'thread')(
    'answers each call its own, transactions and single statements together',
    async () => {
      const { db } = database;
      await db.execute(sql`create table t_counter (k int primary key, n int not null)`);
      await db.execute(sql`insert into t_counter values (1, 0)`);
      // Transactions and single statements side by side, of different lengths: each gets its own answer.
      const work = Array.from({ length: 60 }, (_, i) =>
        i % 3 === 0
          ? db
              .execute(sql`select ${i}::int as i, pg_sleep(${(i % 7) / 1000})`)
              .then((r) => expect(rowsOf<{ i: number }>(r)[0]?.i).toBe(i))
          : inTransaction(db, async (tx) => {
              for (let j = 0; j < 12; j++) {
                const [row] = rowsOf<{ v: string }>(
                  await tx.execute(sql`select ${`${i}:${j}`}::text as v, pg_sleep(${(j % 4) * 0.002})`),
                );
                expect(row?.v).toBe(`${i}:${j}`);
              }
              await tx.execute(sql`update t_counter set n = n + 1 where k = 1`);
            }),
      );
      await Promise.all(work);
      const [counter] = rowsOf<{ n: number }>(await db.execute(sql`select n from t_counter`));
      expect(counter?.n).toBe(40);
    },
  );

  it('lets a single statement go before transactions that were waiting for the session', async () => {
    const { db } = database;
    const order: string[] = [];
    // The others queue as soon as it holds the session; held long (in memory a sleep holds this thread),
    // the queued transaction would pass its 50 ms and no longer be overtaken.
    const holding = inTransaction(db, async (tx) => {
      await tx.execute(sql`select 1`);
      order.push('holder');
    });
    const queued = inTransaction(db, async (tx) => {
      await tx.execute(sql`select 1`);
      order.push('queued transaction');
    });
    // Asked for after both: a look-up does not wait for the transaction queued before it.
    const lookUp = db.execute(sql`select 1`).then(() => order.push('statement'));
    await Promise.all([holding, queued, lookUp]);
    expect(order).toEqual(['holder', 'statement', 'queued transaction']);
  });

  it.runIf(where === 'thread')('keeps what was committed when the folder is opened again', async () => {
    await database.close();
    database = await open();
    const ids = rowsOf<{ id: string }>(await database.db.execute(sql`select id::text from t_client`));
    expect(ids.map((r) => r.id)).toEqual(['9007199254740993']);
  });
});

describe('the session lock', () => {
  const hold = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

  it('hands the session to waiting statements first, then to transactions in their order', async () => {
    const lock = new SessionLock(1_000);
    const order: string[] = [];
    const run = (kind: 'statement' | 'transaction', name: string, ms = 1) =>
      lock.run(kind, async () => {
        order.push(name);
        await hold(ms)();
      });
    await Promise.all([
      run('transaction', 'holder', 20),
      run('transaction', 't1'),
      run('statement', 's1'),
      run('transaction', 't2'),
      run('statement', 's2'),
    ]);
    expect(order).toEqual(['holder', 's1', 's2', 't1', 't2']);
    expect(lock.isLocked()).toBe(false);
  });

  it('is not overtaken any more once a transaction has waited its time', async () => {
    const lock = new SessionLock(30);
    const order: string[] = [];
    const holder = lock.run('statement', hold(40));
    const waiting = lock.run('transaction', async () => {
      order.push('transaction');
    });
    // The transaction has waited 40 ms when the holder lets go: it goes before the statement.
    const statement = lock.run('statement', async () => {
      order.push('statement');
    });
    await Promise.all([holder, waiting, statement]);
    expect(order).toEqual(['transaction', 'statement']);
  });

  it('lets go after a failure', async () => {
    const lock = new SessionLock();
    const failed = lock.run('transaction', async () => {
      await hold(5)();
      throw new Error('no');
    });
    expect(lock.isLocked()).toBe(true);
    await expect(failed).rejects.toThrow('no');
    expect(lock.isLocked()).toBe(false);
    await expect(lock.run('statement', async () => 7)).resolves.toBe(7);
  });
});

describe('a transaction on the client', () => {
  /** The client on PGlite in this thread, each call into the database counted. */
  const counted = async () => {
    const local = await localBackend({});
    const calls = { n: 0 };
    const client = await PgliteClient.open({
      ...local,
      exec: (message, syncToFs) => {
        calls.n++;
        return local.exec(message, syncToFs);
      },
    });
    return { client, calls };
  };

  it('sends its BEGIN with its first statement, whose answer is its own', async () => {
    const { client, calls } = await counted();
    try {
      await client.exec('create table t_ride (id int primary key)');
      calls.n = 0;
      const answers = await client.transaction(async (tx) => {
        const first = await tx.query<{ n: number }>(
          'insert into t_ride values ($1), ($2) returning id as n',
          [1, 2],
        );
        const second = await tx.query<{ n: string }>('select count(*)::text as n from t_ride');
        return [first, second];
      });
      // BEGIN with the insert, the count, COMMIT: three calls where there were four.
      expect(calls.n).toBe(3);
      expect(answers.map((r) => [r.command, r.rows])).toEqual([
        ['INSERT', [{ n: 1 }, { n: 2 }]],
        ['SELECT', [{ n: '2' }]],
      ]);
      // A transaction without a statement begins and commits; a failing first statement rolls back.
      await expect(client.transaction(async () => 'nothing')).resolves.toBe('nothing');
      await expect(
        client.transaction(async (tx) => {
          await tx.query('insert into t_ride values (3)');
          await tx.query('insert into t_ride values (1)');
        }),
      ).rejects.toMatchObject({ code: '23505' });
      await expect(
        client.transaction((tx) => tx.query('insert into t_ride values (1)')),
      ).rejects.toMatchObject({ code: '23505' });
      const after = await client.query<{ ids: number[] }>(
        'select array_agg(id order by id) as ids from t_ride',
      );
      expect(after.rows).toEqual([{ ids: [1, 2] }]);
      // Outside a transaction, a statement is one call and nothing rides with it.
      calls.n = 0;
      await client.query('select 1');
      expect(calls.n).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('a call into PGlite', () => {
  it('keeps nothing of its answer once it is read', async () => {
    // PGlite's own execProtocolRaw kept every answer's messages (0.5.16): a server's database thread
    // grew by a megabyte a second under load. Collections are forced, so what stays is what is kept.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const pg = await createPglite({});
    const rowsOfSeries = serialize.query('select g, md5(g::text) from generate_series(1, 10) g');
    const heapAfter = async (calls: number) => {
      for (let i = 0; i < calls; i++) {
        const answer = await callPglite(pg, rowsOfSeries, true);
        expect(answer.length).toBeGreaterThan(200);
      }
      gc();
      return getHeapStatistics().used_heap_size;
    };
    try {
      const before = await heapAfter(500);
      const after = await heapAfter(4000);
      // Kept, the 4,000 answers' messages come to several megabytes.
      expect(after - before).toBeLessThan(1_000_000);
    } finally {
      await pg.close();
    }
  });
});

describe('a database thread that stops', () => {
  const restartFolder = mkdtempSync(join(tmpdir(), 'pglite-restart-'));
  afterAll(() => rmSync(restartFolder, { recursive: true, force: true }));

  it('is started again: the transaction it cut is not half kept, a statement cut on its way is of unknown outcome, and the session is whole again', async () => {
    const told: string[] = [];
    const database = await openDatabase({ dataDir: restartFolder, warn: (msg) => told.push(msg) });
    const { db } = database;
    try {
      await db.execute(sql`create table t_restart (id int primary key)`);
      const select = `select count(*)::text from t_restart where id > $1`;
      expect(await database.raw(db, select, [0], { name: true })).toEqual([['0']]);

      // A transaction cut between its statements by the thread's end: tried again by `inTransaction` on the
      // new thread, its first insert (gone with the old one) and second both kept, once.
      let attempts = 0;
      await inTransaction(db, async (tx) => {
        attempts++;
        await tx.execute(sql`insert into t_restart values (1)`);
        if (attempts === 1) {
          await database.thread?.terminate();
          // The new thread is up before the next statement: sent there, it would run outside any transaction.
          await vi.waitFor(() => expect(told).toHaveLength(2), { timeout: 20_000 });
        }
        await tx.execute(sql`insert into t_restart values (2)`);
      });
      expect(attempts).toBeGreaterThanOrEqual(2);
      expect(told).toEqual([
        'the database thread stopped: starting it again',
        'the database thread started again',
      ]);
      // The named statement is parsed again on the new thread; the feed listens again.
      expect(await database.raw(db, select, [0], { name: true })).toEqual([['2']]);
      expect(database.changes.live).toBe(true);
      const version = database.changes.version;
      await db.execute(sql`select pg_notify(${changesChannel}, 'x')`);
      expect(database.changes.version).toBeGreaterThan(version);

      // A statement of its own, cut on its way: it may have been committed, so it is not tried again.
      const cut = db.execute(sql`insert into t_restart select 3 from pg_sleep(0.5)`).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 100));
      await database.thread?.terminate();
      const err = await cut;
      expect(isConnectionLost(err)).toBe(true);
      expect(unavailableIn(err)?.outcome).toBe('unknown');
      // Until the new thread is up, calls fail as on a lost connection (a 503 past the server's retries).
      await expect(db.execute(sql`select 1`)).rejects.toSatisfy(isConnectionLost);
      await vi.waitFor(() => expect(told).toHaveLength(4), { timeout: 20_000 });
      expect(await database.raw(db, select, [0], { name: true })).toEqual([['2']]);
    } finally {
      await database.close();
    }
  });
});
