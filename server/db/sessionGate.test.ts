/**
 * PGlite's one session (server/db/pglite.ts): a single statement goes before the transactions waiting for
 * the session, one thing holds it at a time, and a transaction is not starved by a stream of statements.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openPglite, SessionGate } from './pglite.ts';

/** A transaction that holds the gate until `release` is called. */
function holding(gate: SessionGate, order: string[]) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const done = gate.run('transaction', async () => {
    await held;
    order.push('held');
  });
  return { release, done };
}

describe('SessionGate', () => {
  it('hands the session to the statements waiting before the transactions waiting, one at a time', async () => {
    const gate = new SessionGate();
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const work = (name: string) => async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 1));
      order.push(name);
      running--;
    };
    const first = holding(gate, order);
    const rest = [
      gate.run('transaction', work('t1')),
      gate.run('statement', work('s1')),
      gate.run('transaction', work('t2')),
      gate.run('statement', work('s2')),
    ];
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual([]);
    first.release();
    await Promise.all([first.done, ...rest]);
    expect(order).toEqual(['held', 's1', 's2', 't1', 't2']);
    expect(most).toBe(1);
  });

  it('lets a waiting transaction go after so many statements in a row', async () => {
    const gate = new SessionGate();
    const order: string[] = [];
    const first = holding(gate, order);
    const waiting = [gate.run('transaction', async () => order.push('t'))];
    const statements = SessionGate.statementsInARow + 3;
    for (let i = 0; i < statements; i++) waiting.push(gate.run('statement', async () => order.push('s')));
    first.release();
    await Promise.all([first.done, ...waiting]);
    expect(order.indexOf('t')).toBe(1 + SessionGate.statementsInARow);
    expect(order.filter((x) => x === 's')).toHaveLength(statements);
  });
});

describe('PGlite behind the gate', () => {
  it('answers statements queued behind a transaction before the transaction queued with them', async () => {
    const database = await openPglite({ migrate: false });
    try {
      const { db } = database;
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const first = db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await held;
        order.push('held');
      });
      await new Promise((r) => setTimeout(r, 20)); // it holds the session
      const queued = db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        order.push('transaction');
      });
      const raw = database.raw(db, 'select 2', []).then(() => order.push('raw'));
      const query = db.execute(sql`select 3`).then(() => order.push('query'));
      await new Promise((r) => setTimeout(r, 20));
      expect(order).toEqual([]);
      release();
      await Promise.all([first, queued, raw, query]);
      expect(order).toEqual(['held', 'raw', 'query', 'transaction']);
    } finally {
      await database.close();
    }
  });
});
