/**
 * The orders tables partitioned by month (migration 0020): the unique numbers hold across months through
 * the key tables (and fail under the old constraint names), a repeated create still answers its original
 * wherever it lives, an order of a month without a partition lands in the default one, a detached month's
 * orders leave the tables while their numbers stay taken, and the rollups kept by statement-level
 * triggers still see rows routed into partitions.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errno } from '../../contract/errno.ts';
import { AppError } from '../http/errors.ts';
import { rowsOf } from '../ledger/index.ts';
import { checkOrderStats } from '../modules/dashboard/stats.ts';
import { checkOrderKeys } from '../modules/orders/keys.ts';
import {
  detachOrderMonth,
  ensureComingOrderPartitions,
  ensureOrderPartitions,
} from '../modules/orders/partitions.ts';
import { createOrder, merchantOn, payinBody, simPay } from '../modules/payin/testkit.ts';
import { createPayout } from '../modules/payout/service.ts';
import { payoutBody, seedPayoutBalance } from '../modules/payout/testkit.ts';
import { engines, startTestServer, type TestServer } from '../test/harness.ts';
import { inTransaction, sqlState } from './index.ts';
import { merchants, payinOrderKeys, payinOrders } from './schema.ts';

/** The error's SQLSTATE and constraint name, looking through the ORM's wrapper. */
function pgError(err: unknown) {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const constraint = (e as { constraint?: unknown }).constraint;
    if (typeof constraint === 'string') return { code: sqlState(err), constraint };
  }
  return { code: sqlState(err), constraint: undefined };
}

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe.each(engines)('orders partitioned by month on %s', (engine) => {
  let s: TestServer;
  let m: Awaited<ReturnType<typeof merchantOn>>;

  beforeAll(async () => {
    s = await startTestServer(engine);
    m = await merchantOn(s);
  });
  afterAll(() => s.close());

  /** The table a pay-in's row is in. */
  async function partitionOf(id: number, table = 'payin_orders') {
    const [row] = rowsOf<{ t: string }>(
      await s.db.execute(sql`select tableoid::regclass::text as t from ${sql.raw(table)} where id = ${id}`),
    );
    return row?.t;
  }
  /** Moves an order's creation time (a cross-partition update when the month changes). */
  async function moveTo(id: number, at: string, table = 'payin_orders') {
    await s.db.execute(sql`update ${sql.raw(table)} set created_at = ${at}::timestamptz where id = ${id}`);
  }
  const month = (d: Date) => `${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;

  it('has a partition per month from this one on, a default one, and every index on each', async () => {
    const parts = rowsOf<{ t: string }>(
      await s.db.execute(sql`select inhrelid::regclass::text as t from pg_inherits
        where inhparent = 'payin_orders'::regclass order by 1`),
    ).map((r) => r.t);
    const now = s.clock.now();
    const ahead = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 1));
    expect(parts).toEqual(
      expect.arrayContaining([
        'payin_orders_default',
        `payin_orders_p${month(now)}`,
        `payin_orders_p${month(ahead)}`,
      ]),
    );
    // The list's keyset index exists on every partition.
    const [idx] = rowsOf<{ n: number }>(
      await s.db.execute(sql`select count(*)::int as n from pg_inherits
        where inhparent = 'payin_orders_merchant_time_idx'::regclass`),
    );
    expect(idx!.n).toBe(parts.length);
    // The job makes nothing more when the months are there.
    expect(await ensureComingOrderPartitions(s.deps)).toEqual([]);
  });

  it('keeps a merchant order number unique across months; a repeat still answers the original', async () => {
    const body = payinBody();
    const first = await s.gateway(m, 'POST', '/gateway/v1/payin', body);
    expect(first.status).toBe(201);
    const [order] = await s.db
      .select()
      .from(payinOrders)
      .where(eq(payinOrders.orderNo, first.json.data.orderNo));
    // Two months back: another partition, and its key row follows.
    const back = new Date(order!.createdAt.getTime() - 62 * 86_400_000);
    await ensureOrderPartitions(s.db, back, back);
    await moveTo(order!.id, back.toISOString());
    expect(await partitionOf(order!.id)).toBe(`payin_orders_p${month(back)}`);
    const [key] = await s.db.select().from(payinOrderKeys).where(eq(payinOrderKeys.id, order!.id));
    expect(key!.createdAt.getTime()).toBe(back.getTime());

    const replay = await s.gateway(m, 'POST', '/gateway/v1/payin', body);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.data.orderNo).toBe(order!.orderNo);
    const other = await s.gateway(m, 'POST', '/gateway/v1/payin', { ...body, amount: '200.00' });
    expect(other.status).toBe(409);
    // Both lookups find it through the key table.
    expect((await s.gateway(m, 'GET', `/gateway/v1/payin/${order!.orderNo}`)).json.data.orderNo).toBe(
      order!.orderNo,
    );
    expect(
      (await s.gateway(m, 'GET', `/gateway/v1/payin?merchantOrderNo=${body.merchantOrderNo}`)).json.data
        .orderNo,
    ).toBe(order!.orderNo);

    // Written directly into this month's partition, the same number fails under the old constraint name.
    const err = await failure(
      s.db.execute(sql`insert into payin_orders (order_no, merchant_id, merchant_order_no, currency, amount, status,
        notify_url, request_hash, expires_at)
        values ('PX' || ${order!.id}, ${m.id}, ${body.merchantOrderNo}, 'INR', 100, 'pending', '', 'x', now())`),
    );
    expect(pgError(err)).toEqual({ code: '23505', constraint: 'payin_orders_merchant_order_key' });
    const errNo = await failure(
      s.db.execute(sql`insert into payin_orders (order_no, merchant_id, merchant_order_no, currency, amount, status,
        notify_url, request_hash, expires_at)
        values (${order!.orderNo}, ${m.id}, 'other' || ${order!.id}, 'INR', 100, 'pending', '', 'x', now())`),
    );
    expect(pgError(errNo)).toEqual({ code: '23505', constraint: 'payin_orders_order_no_key' });
  });

  it('keeps a payout merchant order number unique across months', async () => {
    await seedPayoutBalance(s, m.id, 1_000_000);
    const [merchant] = await s.db.select().from(merchants).where(eq(merchants.id, m.id));
    const body = payoutBody();
    const req = { ...body, amount: 10_000 };
    const make = () =>
      inTransaction(s.db, (tx) => createPayout(s.deps, tx, merchant!, req, { source: 'api', lang: 'en' }));
    const first = await make();
    expect(first.replayed).toBe(false);
    await moveTo(first.order.id, '2020-01-15T00:00:00Z', 'payout_orders');
    const again = await make();
    expect(again).toMatchObject({ replayed: true, order: { id: first.order.id } });
    const err = await failure(
      inTransaction(s.db, (tx) =>
        createPayout(s.deps, tx, merchant!, { ...req, amount: 20_000 }, { source: 'api', lang: 'en' }),
      ),
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).errno).toBe(errno.conflict);
    await moveTo(first.order.id, s.clock.now().toISOString(), 'payout_orders');
  });

  it('keeps a UTR unique across months, failing under the old constraint name', async () => {
    const a = await createOrder(s, m);
    const b = await createOrder(s, m);
    await moveTo(b.id, new Date(b.createdAt.getTime() - 40 * 86_400_000).toISOString());
    expect(await partitionOf(a.id)).not.toBe(await partitionOf(b.id));
    const utr = `U${Date.now()}${a.id}`;
    await s.db.update(payinOrders).set({ utr }).where(eq(payinOrders.id, a.id));
    const err = await failure(s.db.update(payinOrders).set({ utr }).where(eq(payinOrders.id, b.id)));
    expect(pgError(err)).toEqual({ code: '23505', constraint: 'payin_orders_utr_key' });
    // Freed when the first order lets it go.
    await s.db.update(payinOrders).set({ utr: null }).where(eq(payinOrders.id, a.id));
    await s.db.update(payinOrders).set({ utr }).where(eq(payinOrders.id, b.id));
  });

  it('puts an order of a month without a partition into the default partition', async () => {
    const far = await createOrder(s, m);
    await moveTo(far.id, '2099-06-15T12:00:00Z');
    expect(await partitionOf(far.id)).toBe('payin_orders_default');
    const past = await createOrder(s, m);
    await moveTo(past.id, '1999-01-01T00:00:00Z');
    expect(await partitionOf(past.id)).toBe('payin_orders_default');
    // That month's partition is not made over the rows in the default one (they stay, found there).
    const made = await ensureOrderPartitions(s.db, new Date('2099-06-01'), new Date('2099-06-01'));
    expect(made).not.toContain('payin_orders_p2099_06');
    expect(await partitionOf(far.id)).toBe('payin_orders_default');
    // A new order straight into a far month goes in too.
    const [row] = rowsOf<{ t: string }>(
      await s.db.execute(sql`insert into payin_orders (order_no, merchant_id, merchant_order_no, currency, amount,
        status, notify_url, request_hash, expires_at, created_at)
        values ('PF' || ${far.id}, ${m.id}, 'far' || ${far.id}, 'INR', 100, 'pending', '', 'x', now(), '2150-01-01')
        returning tableoid::regclass::text as t`),
    );
    expect(row!.t).toBe('payin_orders_default');
  });

  it('detaches a month: its orders leave the tables, their numbers stay taken', async () => {
    expect(await ensureOrderPartitions(s.db, new Date('2031-03-01'), new Date('2031-03-01'))).toEqual([
      'payin_orders_p2031_03',
      'payout_orders_p2031_03',
    ]);
    const body = payinBody();
    const created = await s.gateway(m, 'POST', '/gateway/v1/payin', body);
    expect(created.status).toBe(201);
    const orderNo = created.json.data.orderNo as string;
    const [order] = await s.db.select().from(payinOrders).where(eq(payinOrders.orderNo, orderNo));
    await moveTo(order!.id, '2031-03-10T00:00:00Z');
    const [merchant] = await s.db.select().from(merchants).where(eq(merchants.id, m.id));
    await seedPayoutBalance(s, m.id, 100_000);
    const payoutReq = { ...payoutBody(), amount: 10_000 };
    const payout = await inTransaction(s.db, (tx) =>
      createPayout(s.deps, tx, merchant!, payoutReq, { source: 'api', lang: 'en' }),
    );
    await moveTo(payout.order.id, '2031-03-11T00:00:00Z', 'payout_orders');

    expect(await detachOrderMonth(s.db, new Date('2031-03-05'))).toEqual([
      'payin_orders_p2031_03',
      'payout_orders_p2031_03',
    ]);
    expect(await partitionOf(order!.id)).toBeUndefined();
    expect(await partitionOf(payout.order.id, 'payout_orders')).toBeUndefined();
    // Gone from lookups and the console's list.
    expect((await s.gateway(m, 'GET', `/gateway/v1/payin/${orderNo}`)).status).toBe(404);
    // The numbers stay taken: a repeat is a conflict now, as is the payout's.
    expect((await s.gateway(m, 'POST', '/gateway/v1/payin', body)).status).toBe(409);
    const err = await failure(
      inTransaction(s.db, (tx) =>
        createPayout(s.deps, tx, merchant!, payoutReq, { source: 'api', lang: 'en' }),
      ),
    );
    expect((err as AppError).errno).toBe(errno.conflict);
    const dup = await failure(
      s.db.execute(sql`insert into payin_orders (order_no, merchant_id, merchant_order_no, currency, amount, status,
        notify_url, request_hash, expires_at)
        values (${orderNo}, ${m.id}, 'again' || ${order!.id}, 'INR', 100, 'pending', '', 'x', now())`),
    );
    expect(pgError(dup)).toEqual({ code: '23505', constraint: 'payin_orders_order_no_key' });
    // The detached tables keep the rows for archive; a second detach finds nothing to do.
    const [kept] = rowsOf<{ n: number }>(
      await s.db.execute(sql`select count(*)::int as n from payin_orders_p2031_03`),
    );
    expect(kept!.n).toBe(1);
    expect(await detachOrderMonth(s.db, new Date('2031-03-01'))).toEqual([]);
    await s.db.execute(sql`drop table payin_orders_p2031_03`);
    await s.db.execute(sql`drop table payout_orders_p2031_03`);
  });

  it('keeps the rollups of statement-level triggers in step for rows routed into partitions', async () => {
    const admin = await s.adminToken();
    const o = await createOrder(s, m);
    const paid = await simPay(s, admin, o.orderNo, 'success');
    expect(paid.errno).toBe(0);
    expect(await checkOrderStats(s.db)).toEqual({ ok: true, mismatches: [] });
    /** The pay-time rollup against a count over the orders. */
    const payTimeDiff = async () =>
      rowsOf<{ day: string }>(
        await s.db.execute(sql`
          with g as (
            select (created_at at time zone reconciliation_zone())::date as day, coalesce(channel_id, 0) as channel_id,
              width_bucket(extract(epoch from paid_at - created_at)::float8, pay_time_bounds()) as bucket,
              count(*)::int as orders
            from payin_orders where status = 'paid' and paid_at is not null group by 1, 2, 3)
          select coalesce(g.day, r.day)::text as day from g
            full join (
              select day, channel_id, bucket, sum(orders)::int as orders from payin_pay_time_daily
              group by 1, 2, 3 having sum(orders) <> 0) r
              on r.day = g.day and r.channel_id = g.channel_id and r.bucket = g.bucket
          where g.orders is distinct from r.orders`),
      );
    expect(await payTimeDiff()).toEqual([]);
    const [row] = await s.db.select().from(payinOrders).where(eq(payinOrders.id, o.id));
    expect(row!.status).toBe('paid');
    // Moved to another month's partition (a delete and an insert underneath): the update's transition
    // tables still carry it.
    await moveTo(o.id, new Date(row!.createdAt.getTime() - 35 * 86_400_000).toISOString());
    expect(await payTimeDiff()).toEqual([]);
    await moveTo(o.id, row!.createdAt.toISOString());
    expect(await payTimeDiff()).toEqual([]);
    expect(await checkOrderStats(s.db)).toEqual({ ok: true, mismatches: [] });
    // Every order's key row agrees with it.
    expect(await checkOrderKeys(s.db)).toEqual({ ok: true, payins: [], payouts: [], images: [] });
  });
});
