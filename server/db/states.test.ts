/**
 * A compare-and-set finds its row by the key and guards it with the state (`guardStates`). Statistics
 * that count no row in a state (analysed before any order was pending) price a partial index of that
 * state as empty: with the plain `inStates` the planner then reads it and filters on the key, walking
 * every row in the state. The guard leaves the partial index out, so the key's index is read, and it
 * matches the same rows.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../ledger/index.ts';
import { engines, startTestServer, type TestServer } from '../test/harness.ts';
import { guardStates, inStates } from './states.ts';

describe.each(engines)('the guard of a compare-and-set on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
    // The orders' shape: partitioned, the key holds the partition key, a partial index of one state.
    await s.db.execute(sql`create table guard_orders (id bigint, created_at timestamptz, status text not null,
      expires_at timestamptz not null, primary key (id, created_at)) partition by range (created_at)`);
    await s.db.execute(
      sql`create table guard_orders_2026 partition of guard_orders for values from ('2026-01-01') to ('2027-01-01')`,
    );
    await s.db.execute(sql`create index on guard_orders (expires_at) where status = 'pending'`);
    await s.db.execute(sql`insert into guard_orders select g, '2026-06-01'::timestamptz + g * interval '1 second',
      'paid', now() from generate_series(1, 20000) g`);
    await s.db.execute(sql`analyze guard_orders`);
    // Pending after the statistics: they count none.
    await s.db.execute(sql`insert into guard_orders select g, '2026-06-01'::timestamptz + g * interval '1 second',
      'pending', now() from generate_series(20001, 22000) g`);
  });
  afterAll(() => s?.close());

  const plan = async (where: ReturnType<typeof sql>) =>
    rowsOf<Record<string, string>>(
      await s.db.execute(sql`explain update guard_orders set status = 'paid' where id = 20500 and ${where}`),
    )
      .map((r) => Object.values(r)[0])
      .join('\n');

  it('reads the key, where the plain form reads the stale partial index', async () => {
    const status = sql.raw('status');
    // The hazard this guards against: if the planner stops taking the empty-looking index, this fails
    // and the guard may no longer be needed.
    expect(await plan(inStates(status, ['pending']))).toMatch(/expires_at_idx/);
    const guarded = await plan(guardStates(status, ['pending']));
    expect(guarded).toMatch(/pkey/);
    expect(guarded).not.toMatch(/expires_at_idx/);
  });

  it('matches the rows the plain form matches', async () => {
    const status = sql.raw('status');
    const count = async (where: ReturnType<typeof sql>) =>
      rowsOf<{ n: string }>(
        await s.db.execute(sql`select count(*)::text as n from guard_orders where id % 7 = 0 and ${where}`),
      )[0]!.n;
    for (const states of [['pending'], ['paid'], ['pending', 'paid'], ['unpaid']])
      expect(await count(guardStates(status, states)), states.join()).toBe(
        await count(inStates(status, states)),
      );
    expect(await count(guardStates(status, []))).toBe('0');
  });
});
