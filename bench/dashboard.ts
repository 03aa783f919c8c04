/**
 * Dashboard benchmark on a database seeded by bench/seed-orders.ts (1,000,000 pay-ins over 60 days):
 *  (a) at the database, the summary as the handler builds it (`dashboardSummary`: the calendar, the
 *      daily order stats of 30 days, the orders under way, the queues, the channels), for a platform user
 *      (every merchant) and for the large merchant's user; and, for scale, the same 30 days of daily
 *      figures as a GROUP BY over the orders (what the stats spare every request);
 *  (b) `GET /api/dashboard/summary` over HTTP, one client, signed in as each of them, against
 *      server/main.ts in its own process (DEMO=0, LOG_LEVEL=warn) on 127.0.0.1.
 * Before measuring, the order stats are checked against the orders (`checkOrderStats`).
 *
 *   npx tsx bench/dashboard.ts --dir bench/out/dash-pglite-1m
 *   npx tsx bench/dashboard.ts --dir bench/out/dash-pg-1m --url postgres://postgres@127.0.0.1:5432/bench_dash
 * Options: --iterations 300, --only ab. Target (docs/PERFORMANCE.md): p95 ≤ 50 ms.
 */
import { eq, sql } from 'drizzle-orm';
import { merchants, users } from '../server/db/schema.ts';
import type { SessionUser } from '../server/http/session.ts';
import { dashboardSummary } from '../server/modules/dashboard/routes.ts';
import { businessTimeZoneOf, checkOrderStats } from '../server/modules/dashboard/stats.ts';
import {
  args,
  type BenchServer,
  benchAdminPassword,
  engineVersion,
  fmtInt,
  fmtMs,
  largeMerchantCode,
  load,
  one,
  openBench,
  signIn,
  startServer,
  type Timing,
  target,
  timeIt,
} from './common.ts';

const a = args();
const t = target(a);
const iterations = Number(a.get('iterations') ?? 300);
const only = new Set((a.get('only') ?? 'ab').split(''));
const targetMs = 50;

const deps = await openBench(t);
const { db } = deps.database;
const version = await engineVersion(deps.database);
const counted = await one<{ n: string; stats: string }>(
  db,
  sql`select (select count(*) from payin_orders)::text as n, (select count(*) from order_stats_daily)::text as stats`,
);
console.log(
  `${version} · ${fmtInt(Number(counted.n))} pay-ins, ${fmtInt(Number(counted.stats))} order stats rows · load ${load()}`,
);
const [large] = await db.select().from(merchants).where(eq(merchants.code, largeMerchantCode));
if (!large) throw new Error('not a bench database: run bench/seed-orders.ts first');
const [owner] = await db
  .select()
  .from(users)
  .where(eq(users.username, `bench_${largeMerchantCode.toLowerCase()}`));
if (!owner) throw new Error(`no owner for ${largeMerchantCode}`);

const checked = performance.now();
const report = await checkOrderStats(db);
console.log(
  `order stats equal a GROUP BY over the orders: ${report.ok} (checked in ${((performance.now() - checked) / 1000).toFixed(1)} s)`,
);
if (!report.ok) throw new Error(`order stats differ: ${JSON.stringify(report.mismatches.slice(0, 3))}`);

const results: { name: string; timing: Timing; target?: number }[] = [];
const row = (name: string, timing: Timing, tgt?: number) => {
  results.push({ name, timing, target: tgt });
  const verdict = tgt === undefined ? '' : timing.p95 <= tgt ? ' ✓' : ' ✗';
  console.log(
    `${name.padEnd(56)} median ${fmtMs(timing.median).padStart(7)} ms  p95 ${fmtMs(timing.p95).padStart(7)} ms${
      tgt === undefined ? '' : `  (target p95 ≤ ${tgt} ms)${verdict}`
    }`,
  );
};

// The session users the handler sees (what resolveSession answers).
const platformUser = { id: 0, kind: 'platform', merchantId: null, perms: ['*'] } as unknown as SessionUser;
const merchantUser = {
  id: owner.id,
  kind: 'merchant',
  merchantId: large.id,
  perms: ['*'],
} as unknown as SessionUser;

if (only.has('a')) {
  const sample = await dashboardSummary(db, platformUser, new Date());
  console.log(
    `last 30 days: ${fmtInt(sample.last30Days.payin[0]?.count ?? 0)} pay-ins, ${fmtInt(sample.last30Days.payin[0]?.successCount ?? 0)} paid, ${sample.daily.length} daily rows, ${sample.channels.length} channel(s)`,
  );
  row(
    'summary at the database, platform (every merchant)',
    await timeIt(iterations, () => dashboardSummary(db, platformUser, new Date())),
    targetMs,
  );
  row(
    `summary at the database, merchant ${largeMerchantCode}`,
    await timeIt(iterations, () => dashboardSummary(db, merchantUser, new Date())),
    targetMs,
  );
  // For scale: the 30 days' daily figures straight from the orders, as a dashboard without stats would run them.
  row(
    'for comparison: 30 days of daily figures by GROUP BY over the orders',
    await timeIt(
      5,
      () =>
        db.execute(sql`
          select (created_at at time zone ${businessTimeZoneOf(deps.config)})::date as day, currency, count(*),
            count(*) filter (where status = 'paid'), sum(amount) filter (where status = 'paid'),
            sum(fee) filter (where status = 'paid')
          from payin_orders where created_at >= now() - interval '30 days' group by 1, 2`),
      1,
    ),
  );
}
await deps.database.close();

let server: BenchServer | undefined;
if (only.has('b')) {
  server = await startServer({ dir: t.dir, url: t.url });
  const { base } = server;
  try {
    const tokens = {
      platform: await signIn(base, 'admin', benchAdminPassword),
      merchant: await signIn(base, owner.username, 'Owner1234!'),
    };
    for (const [who, token] of Object.entries(tokens)) {
      const get = async () => {
        const res = (await fetch(`${base}/api/dashboard/summary`, { headers: { 'admin-token': token } }).then(
          (r) => r.json(),
        )) as { errno: number };
        if (res.errno !== 0) throw new Error(`summary failed: ${JSON.stringify(res)}`);
      };
      row(`HTTP GET /api/dashboard/summary, one client, ${who}`, await timeIt(iterations, get), targetMs);
    }
  } finally {
    await server.stop();
  }
}

console.log(`done · load ${load()}`);
