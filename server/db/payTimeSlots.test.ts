/**
 * The pay-time rollup keeps a cell in slots (migration 0035): two transactions paying orders of the same
 * cell write different rows, so the second does not wait for the first's commit, and the rollup, summed
 * over its slots, still counts the paid orders. PostgreSQL only: PGlite has one connection.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOrderStats } from '../modules/dashboard/stats.ts';
import { createOrder, merchantOn } from '../modules/payin/testkit.ts';
import { startTestServer, type TestServer } from '../test/harness.ts';
import { type FreshPostgres, freshPostgresUrl, hasPostgres } from '../test/pg.ts';

describe.runIf(hasPostgres)('the pay-time rollup under concurrent payments on postgres', () => {
  let fresh: FreshPostgres;
  let s: TestServer;
  const clients: pg.Client[] = [];
  beforeAll(async () => {
    fresh = await freshPostgresUrl();
    s = await startTestServer('postgres', { database: { url: fresh.url } });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
    await s?.close();
    await fresh?.drop();
  });

  /** A connection of its own, and the slot its payments are counted in. */
  async function connect() {
    const c = new pg.Client(fresh.url);
    await c.connect();
    clients.push(c);
    const { rows } = await c.query<{ slot: number }>('select pg_backend_pid() % 8 as slot');
    return { c, slot: rows[0]!.slot };
  }
  const pay = (c: pg.Client, id: number) =>
    c.query(
      `update payin_orders set status = 'paid', paid_amount = amount, paid_at = created_at + interval '30 seconds'
       where id = $1`,
      [id],
    );

  it('lets a second payment of the same cell through while the first is open, and sums the slots', async () => {
    const m = await merchantOn(s);
    const a = await createOrder(s, m);
    const b = await createOrder(s, m);
    const first = await connect();
    let second = await connect();
    while (second.slot === first.slot) second = await connect();
    await first.c.query('begin');
    await pay(first.c, a.id);
    await second.c.query('begin');
    // One row a cell would hold this update until the first commits: 55P03 after 2 s.
    await second.c.query(`set local lock_timeout = '2s'`);
    await pay(second.c, b.id);
    await second.c.query('commit');
    await first.c.query('commit');
    const { rows } = await first.c.query<{ slot: number; orders: number }>(
      'select slot, orders from payin_pay_time_daily order by slot',
    );
    expect(rows).toEqual(
      [
        { slot: first.slot, orders: 1 },
        { slot: second.slot, orders: 1 },
      ].sort((x, y) => x.slot - y.slot),
    );
    // The check reads the cell as the sum of its slots: two paid orders, two in the rollup. (The orders were
    // paid by hand, without the order stats' moves, so only the pay-time figures are looked at.)
    const { mismatches } = await checkOrderStats(s.db);
    expect(mismatches.filter((x) => x.kind.startsWith('pay_time'))).toEqual([]);
  });
});
