/**
 * The reports of OPERATIONS.md section 3 — order statistics (`GET /statOrder/list`), channel statistics
 * (`GET /statOrder/channel`) and settlement statistics (`GET /statOrder/balance?view=merchant`) — over 60
 * days on a database seeded by bench/seed-orders.ts (1,000,000 pay-ins over 60 days, one channel, no
 * payouts, no ledger entries). First (once):
 *  - four more channels with costs, the pay-ins spread over the five by id, and 300,000 payouts over the
 *    same 60 days (85 % success, 10 % failed, 5 % creation failed) spread likewise: bulk writes, then the
 *    rollups rebuilt once (`rebuildOrderStats`, which rebuilds the pay-time rollup too);
 *  - the ledger: run bench/d0.ts once on the same database before this (it posts every paid order's
 *    payment and each merchant's daily settlement hold, transfer and payment through the ledger), else
 *    the settlement statistics read empty books (noted in the output).
 * Before measuring, the period's totals are checked against the same figures counted from the orders, and
 * the settlement statistics' rows against the ledger (no mismatch). Then:
 *  (a) at the database, each report as its handler builds it (page + totals/series), beside the floor
 *      (`select 1`) and, for scale, the order statistics counted from the orders;
 *  (b) over HTTP, one client, against server/main.ts in its own process, beside a trivial signed-in call.
 *
 *   npx tsx bench/seed-orders.ts --dir bench/out/reports-pg --url postgres://postgres@127.0.0.1:5432/bench_reports
 *   npx tsx bench/d0.ts --dir bench/out/reports-pg --url postgres://postgres@127.0.0.1:5432/bench_reports --only a --iterations 3
 *   npx tsx bench/reports.ts --dir bench/out/reports-pg --url postgres://postgres@127.0.0.1:5432/bench_reports
 * The opt-in 10 M run: the same with `--orders 10000000` to the seed (a database of its own).
 *  (c) what the pay-time triggers add to a write of a pay-in, with and without them.
 * Options: --iterations 200, --only abc, --payouts 300000. Target (docs/PERFORMANCE.md): p95 ≤ 50 ms.
 */
import { sql } from 'drizzle-orm';
import { rebuildOrderStats, storedOrderStatsZone } from '../server/modules/dashboard/stats.ts';
import { channelStats } from '../server/modules/stat/channels.ts';
import { merchantViewPage, merchantViewTotals } from '../server/modules/stat/merchant.ts';
import { type OrderStatFilters, orderStats } from '../server/modules/stat/orders.ts';
import {
  args,
  benchAdminPassword,
  type CallTiming,
  engineVersion,
  fmtInt,
  largeMerchantCode,
  load,
  one,
  openBench,
  printTiming,
  rows,
  signIn,
  startServer,
  target,
  timeCalls,
} from './common.ts';

const a = args();
const t = target(a);
const iterations = Number(a.get('iterations') ?? 200);
const only = new Set((a.get('only') ?? 'abc').split(''));
const targetMs = 50;

const deps = await openBench(t);
const { db } = deps.database;
const version = await engineVersion(deps.database);
const zone = await storedOrderStatsZone(db);

// ---- channels and payouts, once ------------------------------------------------------------------
const seeded = await one<{ n: number }>(
  db,
  sql`select count(*)::int as n from channels where code like 'bench-ch-%'`,
);
if (Number(seeded.n) === 0) await seedChannelsAndPayouts();

async function seedChannelsAndPayouts() {
  const started = performance.now();
  const payouts = Number(a.get('payouts') ?? 300_000);
  await db.transaction(async (tx) => {
    // Bulk writes: the triggers wait, the rollups are rebuilt from scratch below.
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(sql`
      insert into channels (code, name, adapter, payin_cost_ppm, payout_cost_ppm, payout_cost_fixed)
      select 'bench-ch-' || n, 'Bench channel ' || n, 'simulator', 8000 + 1000 * n, 3000 + 500 * n, 200 + 50 * n
      from generate_series(2, 5) n`);
    await tx.execute(sql`
      update channels set payin_cost_ppm = 9000, payout_cost_ppm = 4000, payout_cost_fixed = 250
      where code = 'simulator'`);
    await tx.execute(sql`
      create temporary table bench_ch on commit drop as
      select id as channel_id, (row_number() over (order by id) - 1)::int as slot
      from channels where code = 'simulator' or code like 'bench-ch-%'`);
    let t0 = performance.now();
    await tx.execute(sql`
      update payin_orders o set channel_id = c.channel_id
      from bench_ch c where c.slot = o.id % 5 and o.channel_id is not null`);
    console.log(`  pay-ins spread over 5 channels in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    t0 = performance.now();
    // Payouts at even steps over the pay-ins' 60 days (every pay-in id, so 10 M spreads like 1 M),
    // merchants by the pay-ins' own shares.
    const { maxId } = await one<{ maxId: number }>(tx, sql`select max(id)::int as "maxId" from payin_orders`);
    await tx.execute(sql`
      insert into payout_orders (order_no, merchant_id, merchant_order_no, channel_id, currency, amount, fee,
        status, push_status, account_name, account_number, ifsc, notify_url, source, request_hash,
        completed_at, created_at, updated_at)
      select 'BPO' || lpad(i::text, 12, '0'), o.merchant_id, 'BMO' || i,
        case when i % 20 = 19 then null else c.channel_id end, 'INR',
        10000 + (i * 7919) % 4990000, 500 + ((10000 + (i * 7919) % 4990000) / 100),
        case when i % 20 = 19 then 'creation_failed' when i % 10 = 3 then 'failed' else 'success' end,
        'pushed', 'Asha Verma', '123456789012', 'HDFC0001234', 'http://127.0.0.1:9/callback', 'api', '',
        o.created_at + interval '3 minutes', o.created_at, o.created_at + interval '3 minutes'
      from generate_series(1::bigint, ${payouts}::bigint) i
      join lateral (select merchant_id, created_at from payin_orders where id = 1 + (i * 3331) % ${maxId}) o on true
      join bench_ch c on c.slot = i % 5`);
    // With the triggers waiting, the payouts' key rows (migration 0020) are written here.
    await tx.execute(sql`
      insert into payout_order_keys (id, created_at, order_no, merchant_id, merchant_order_no)
      select id, created_at, order_no, merchant_id, merchant_order_no from payout_orders
      where order_no like 'BPO%' on conflict do nothing`);
    console.log(`  ${fmtInt(payouts)} payouts written in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  });
  const t0 = performance.now();
  await rebuildOrderStats(db, zone);
  console.log(`  rollups rebuilt in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await db.execute(
    sql`vacuum (analyze) payin_orders, payout_orders, order_stats_daily, payin_pay_time_daily`,
  );
  console.log(`channels and payouts seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

const counts = await one<{
  payins: string;
  payouts: string;
  stats: string;
  times: string;
  postings: string;
  daily: string;
}>(
  db,
  sql`select (select count(*) from payin_orders)::text as payins, (select count(*) from payout_orders)::text as payouts,
    (select count(*) from order_stats_daily)::text as stats, (select count(*) from payin_pay_time_daily)::text as times,
    (select count(*) from postings)::text as postings, (select count(*) from ledger_daily)::text as daily`,
);
console.log(
  `${version} · ${fmtInt(Number(counts.payins))} pay-ins, ${fmtInt(Number(counts.payouts))} payouts · rollups: ` +
    `${fmtInt(Number(counts.stats))} order-stat rows, ${fmtInt(Number(counts.times))} pay-time rows, ` +
    `${fmtInt(Number(counts.daily))} daily movements of ${fmtInt(Number(counts.postings))} postings · zone ${zone} · load ${load()}`,
);
if (Number(counts.postings) === 0)
  console.log('  no ledger postings: run bench/d0.ts once first for settlement statistics with figures');

// The period: the 60 business days up to the last order.
const { last } = await one<{ last: string }>(
  db,
  sql`select ((max(created_at) at time zone ${zone})::date)::text as last from payin_orders`,
);
const addDays = (day: string, n: number) => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};
const period = { from: addDays(last, -59), to: last };
const every: OrderStatFilters = { ...period, merchantId: null, channelId: null, byChannel: false };
const { large } = await one<{ large: number }>(
  db,
  sql`select id as large from merchants where code = ${largeMerchantCode}`,
);

/** The order statistics' totals counted from the orders (what the rollups spare). */
const fromOrders = sql`
  with b as (select (${period.from}::date::timestamp at time zone ${zone}) as t0,
    ((${period.to}::date + 1)::timestamp at time zone ${zone}) as t1)
  select (select count(*) from payin_orders, b where created_at >= t0 and created_at < t1)::int as payin_created,
    (select count(*) from payin_orders, b where created_at >= t0 and created_at < t1 and status = 'paid')::int as payin_paid,
    (select coalesce(sum(amount), 0) from payin_orders, b where created_at >= t0 and created_at < t1 and status = 'paid')::text as payin_amount,
    (select count(*) from payout_orders, b where created_at >= t0 and created_at < t1)::int as payout_created,
    (select coalesce(sum(amount), 0) from payout_orders, b where created_at >= t0 and created_at < t1 and status = 'success')::text as payout_amount`;

// ---- checks ------------------------------------------------------------------------------------------
{
  const [totals] = (await orderStats(db, every, null, 1)).totals;
  const o = await one<{
    payin_created: number;
    payin_paid: number;
    payin_amount: string;
    payout_created: number;
    payout_amount: string;
  }>(db, fromOrders);
  const minor = (v: string | undefined) => Math.round(Number(v ?? 0) * 100);
  const same =
    totals &&
    totals.payinCreated === o.payin_created &&
    totals.payinPaid === o.payin_paid &&
    minor(totals.payinPaidAmount) === Number(o.payin_amount) &&
    totals.payoutCreated === o.payout_created &&
    minor(totals.payoutAmount) === Number(o.payout_amount);
  const channel = await channelStats(db, { ...period, channelId: null }, null, 50);
  let walletRows = 0;
  let mismatches = 0;
  let cursor: Parameters<typeof merchantViewPage>[2] = null;
  for (;;) {
    const page = await merchantViewPage(db, { ...period, merchantId: null }, cursor, 100);
    walletRows += page.list.length;
    mismatches += page.list.filter((r) => r.mismatch).length;
    const lastRow = page.list.at(-1);
    if (!page.nextCursor || !lastRow) break;
    cursor = { merchantId: lastRow.merchantId, wallet: lastRow.wallet, currency: lastRow.currency };
  }
  console.log(
    `${period.from} … ${period.to}: order statistics ${same ? 'equal' : 'DIFFER FROM'} the orders ` +
      `(pay-ins ${totals?.payinCreated} created, ${totals?.payinPaid} paid, ${totals?.payinPaidAmount}; payouts ${totals?.payoutCreated}, ${totals?.payoutAmount}); ` +
      `channel statistics ${channel.total} rows, median ${channel.totals[0]?.medianPaySeconds} s, margin ${channel.totals[0]?.margin}; ` +
      `settlement statistics ${walletRows} wallet rows, ${mismatches} mismatches`,
  );
  if (!same || mismatches) throw new Error('a report does not agree with the orders or the ledger');
}

const dbName = t.url ? new URL(t.url).pathname.slice(1) : undefined;
const time3 = (n: number, fn: () => Promise<unknown>, warmup = 10, node?: number) =>
  timeCalls(n, fn, { database: dbName, warmup, node });
const row = (name: string, tm: CallTiming, floor?: CallTiming, target?: number) =>
  printTiming(name, tm, { floor, target });

// What the handlers do: the page with the period's totals and series (one statement for the order
// statistics), the page then the totals for the settlement statistics.
const orderView = (f: OrderStatFilters, after: Parameters<typeof orderStats>[2] = null) =>
  orderStats(db, f, after, 50);
const merchantView = async (merchantId: number | null) => {
  await merchantViewPage(db, { ...period, merchantId }, null, 50);
  await merchantViewTotals(db, { ...period, merchantId });
};

if (only.has('a')) {
  console.log(`(a) at the database, 60 days, ${iterations} runs each`);
  const floor = await time3(iterations, () => db.execute(sql`select 1`));
  row('floor: select 1', floor);
  row(
    'order statistics, every merchant, first page',
    await time3(iterations, () => orderView(every)),
    floor,
    targetMs,
  );
  row(
    'order statistics, a page 30 days back',
    await time3(iterations, () =>
      orderView(every, { day: addDays(period.to, -30), merchantId: 0, channelId: 0, currency: 'INR' }),
    ),
    floor,
    targetMs,
  );
  row(
    'order statistics, by channel, first page',
    await time3(iterations, () => orderView({ ...every, byChannel: true })),
    floor,
    targetMs,
  );
  row(
    `order statistics, ${largeMerchantCode}'s 60 days`,
    await time3(iterations, () => orderView({ ...every, merchantId: large })),
    floor,
    targetMs,
  );
  row(
    'channel statistics, every channel',
    await time3(iterations, () => channelStats(db, { ...period, channelId: null }, null, 50)),
    floor,
    targetMs,
  );
  row(
    'settlement statistics, every merchant, first page',
    await time3(iterations, () => merchantView(null)),
    floor,
    targetMs,
  );
  row(
    `settlement statistics, ${largeMerchantCode}`,
    await time3(iterations, () => merchantView(large)),
    floor,
    targetMs,
  );
  row(
    'for comparison: the order totals counted from the orders',
    await time3(3, () => db.execute(fromOrders), 1),
  );
}
if (only.has('c')) {
  // The write path's cost of the pay-time triggers (statement-level, on every update of a pay-in): one
  // paid order's paid time moved by a second (the trigger takes it out of its bucket and puts it back)
  // and one order's callback status flipped (the trigger finds nothing to count), each by its own
  // statement, with the triggers and without them (`session_replication_role = replica`); rolled back.
  const n = 2_000;
  const ids = rows<{ id: number }>(
    await db.execute(sql`select id from payin_orders where status = 'paid' order by id limit ${n}`),
  ).map((r) => Number(r.id));
  const perWrite = async (replica: boolean) => {
    const out = { paid: 0, push: 0 };
    await db
      .transaction(async (tx) => {
        if (replica) await tx.execute(sql`set local session_replication_role = replica`);
        let t0 = performance.now();
        for (const id of ids)
          await tx.execute(
            sql`update payin_orders set paid_at = paid_at + interval '1 second' where id = ${id}`,
          );
        out.paid = ((performance.now() - t0) * 1000) / ids.length;
        t0 = performance.now();
        for (const id of ids)
          await tx.execute(
            sql`update payin_orders set push_status = case when push_status = 'pushed' then 'unpushed' else 'pushed' end where id = ${id}`,
          );
        out.push = ((performance.now() - t0) * 1000) / ids.length;
        throw new Error('rollback');
      })
      .catch((e: Error) => {
        if (e.message !== 'rollback') throw e;
      });
    return out;
  };
  console.log(`(c) the write path: ${fmtInt(ids.length)} paid orders updated one by one, twice`);
  for (let round = 0; round < 3; round++) {
    const off = await perWrite(true);
    const on = await perWrite(false);
    console.log(
      `  µs an update: paid time ${fmtInt(off.paid)} → ${fmtInt(on.paid)} with the triggers; callback status ${fmtInt(off.push)} → ${fmtInt(on.push)}`,
    );
  }
}
await deps.database.close();

if (only.has('b')) {
  const server = await startServer({ dir: t.dir, url: t.url, env: t.url ? { WORKERS: '2' } : {} });
  try {
    const token = await signIn(server.base, 'admin', benchAdminPassword);
    const get = async (path: string) => {
      const res = (await fetch(`${server.base}${path}`, { headers: { 'admin-token': token } }).then((r) =>
        r.json(),
      )) as { errno: number };
      if (res.errno !== 0) throw new Error(`${path} failed: ${JSON.stringify(res)}`);
    };
    const q = `from=${period.from}&to=${period.to}`;
    const pid = server.process.pid!;
    console.log(`(b) HTTP, one client, ${iterations} runs each`);
    const floor = await time3(iterations, () => get('/api/auth/info'), 10, pid);
    row('floor: GET /api/auth/info', floor);
    for (const [name, path] of [
      ['HTTP, order statistics, every merchant', `/api/statOrder/list?${q}`],
      ['HTTP, order statistics, by channel', `/api/statOrder/list?${q}&byChannel=true`],
      [`HTTP, order statistics, ${largeMerchantCode}`, `/api/statOrder/list?${q}&merchantId=${large}`],
      ['HTTP, channel statistics', `/api/statOrder/channel?${q}`],
      ['HTTP, settlement statistics, every merchant', `/api/statOrder/balance?view=merchant&${q}`],
    ] as const)
      row(name, await time3(iterations, () => get(path), 10, pid), floor, targetMs);
  } finally {
    await server.stop();
  }
}
console.log(`done · load ${load()}`);
