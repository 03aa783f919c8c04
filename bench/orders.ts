/**
 * Order benchmarks on a database seeded by bench/seed-orders.ts, on either engine:
 *  (a) at the database, the exact query merchantOrder.list runs (the server's own builder): a merchant's
 *      first page and a deep keyset page (reached by following cursors) with status + period filters, and
 *      an EXPLAIN (ANALYZE, BUFFERS) guard that fails the run when the next-page query reads ≥ 50 buffers;
 *  (b) lookups by system order number, merchant order number, channel order id and UTR: the list's search
 *      (`q` as the list runs it: the bounded number search, its page and its total), every prefix of 3
 *      characters or more of 25 orders' numbers (what the palette asks while a person types), and the
 *      equality read (what the gateway query runs);
 *  (c) the same list pages over HTTP, one client, signed in as a platform user;
 *  (d) the list endpoint under load: 50 connections for ~10 s (bounded request count), loopback only;
 *  (e) signed pay-in creation over HTTP (POST /gateway/v1/payin), 1 and 16 connections, ~10 s each.
 * The server runs as its own process (server/main.ts, DEMO=0, LOG_LEVEL=warn) on 127.0.0.1; orders the
 * creation run makes are removed afterwards, so the seeded database stays as it was.
 *
 *   npx tsx bench/orders.ts --dir bench/out/pglite-1m
 *   npx tsx bench/orders.ts --dir bench/out/pg-1m --url postgres://postgres@127.0.0.1:5432/bench
 * Options: --iterations 300 (per timed query), --depth 500 (deep page), --seconds 10 (per load run),
 *   --only abcde (the parts to run), --runs 3 (the whole run 3 times, each row from the median run),
 *   --workers N (server processes for the HTTP parts: 2 on PostgreSQL, 1 on PGlite),
 *   --cpu-prof (profiles the server into bench/out/prof),
 *   --json FILE (all figures).
 * Targets (docs/PERFORMANCE.md) are printed beside each figure.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { and, eq, lte, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db } from '../server/db/index.ts';
import { gatewayNonces, merchants, payinOrders } from '../server/db/schema.ts';
import type { SessionUser } from '../server/http/session.ts';
import { cappedCountQuery } from '../server/lib/paging.ts';
import { resetMerchantSecrets } from '../server/modules/merchant/service.ts';
import { payinList } from '../server/modules/orders/kinds.ts';
import type { ListInput } from '../server/modules/orders/list.ts';
import { gatewayOrder } from '../server/modules/payin/gateway.ts';
import { orderUsingUtr } from '../server/modules/payin/utr.ts';
import { pageViews } from '../server/modules/payin/views.ts';
import {
  args,
  type BenchServer,
  benchAdminPassword,
  cpuPerCall,
  createdPrefix,
  engineVersion,
  fmtInt,
  fmtMs,
  gatewayHeaders,
  largeMerchantCode,
  load,
  loopbackNotify,
  one,
  openBench,
  rawClient,
  root,
  rows,
  signIn,
  startServer,
  summary,
  type Timing,
  target,
  timeIt,
} from './common.ts';

// The pay-in list's own engine (server/modules/orders/list.ts), as the endpoint runs it.
const {
  cursorAfter,
  filters: listFilters,
  listPage,
  listTotal,
  pageBound,
  pageJsonSql,
  searchedFilters,
} = payinList;

const a = args();
const t = target(a);
const iterations = Number(a.get('iterations') ?? 300);
const depth = Number(a.get('depth') ?? 500);
const seconds = Number(a.get('seconds') ?? 10);
if (!(iterations >= 10 && iterations <= 10_000)) throw new Error('--iterations from 10 to 10,000');
if (!(depth >= 2 && depth <= 5_000)) throw new Error('--depth from 2 to 5,000');
if (!(seconds >= 1 && seconds <= 60)) throw new Error('--seconds from 1 to 60');
const only = new Set(a.get('only') ?? 'abcde');
const runs = Number(a.get('runs') ?? 1);
/** Server processes for the HTTP parts (`WORKERS`): both cores on PostgreSQL; PGlite is one process. */
const workers = Number(a.get('workers') ?? (t.url ? 2 : 1));
if (!(Number.isInteger(workers) && workers >= 1 && workers <= 8)) throw new Error('--workers from 1 to 8');
if (workers > 1 && !t.url) throw new Error('--workers above 1 needs PostgreSQL');
/** The database whose backends' CPU time the load runs count (PostgreSQL only). */
const dbName = t.url ? new URL(t.url).pathname.slice(1) : undefined;
const cpuText = (c: { server: number; database: number; load: number }) =>
  `server ${fmtInt(c.server)}${dbName ? `, PostgreSQL ${fmtInt(c.database)}` : ''}, load generator ${fmtInt(c.load)}`;
if (!(Number.isInteger(runs) && runs >= 1 && runs <= 9)) throw new Error('--runs from 1 to 9');
if (runs > 1) {
  await repeated(runs);
  process.exit(process.exitCode ?? 0);
}

const pageSize = 20;
const dayMs = 86_400_000;

interface Row {
  what: string;
  value: string;
  p95?: string;
  target: string;
  ok?: boolean;
  /** The row's main figure as a number, to pick the median run with --runs. */
  sort: number;
}
const report: Row[] = [];
const notes: string[] = [];
const add = (r: Row) => {
  report.push(r);
  const mark = r.ok === undefined ? '' : r.ok ? ' ✓' : ' ✗';
  console.log(`  ${r.what}: ${r.value}${r.p95 ? ` / ${r.p95}` : ''} (target ${r.target})${mark}`);
};
const timed = (what: string, tm: Timing, p95Target: number | null) =>
  add({
    what,
    value: `${fmtMs(tm.median)} ms`,
    p95: `${fmtMs(tm.p95)} ms`,
    target: p95Target === null ? '—' : `p95 ≤ ${p95Target} ms`,
    ...(p95Target === null ? {} : { ok: tm.p95 <= p95Target }),
    sort: tm.median,
  });

// ---- (a) and (b): at the database -----------------------------------------------------------------
const deps = await openBench(t, 2);
const { db, engine } = deps.database;
const pglite = engine === 'pglite';
const version = await engineVersion(deps.database);
const count = Number((await one<{ n: string }>(db, sql`select count(*)::text as n from payin_orders`)).n);
const loadAtStart = load();
console.log(`${version} · ${fmtInt(count)} pay-in orders · load ${loadAtStart}`);

await removeCreated(db);
const [merchant] = await db.select().from(merchants).where(eq(merchants.code, largeMerchantCode));
if (!merchant) throw new Error(`merchant ${largeMerchantCode} missing: seed with bench/seed-orders.ts first`);

/** A platform user, as the session gives it to the handler (sees every merchant). */
const platformUser: SessionUser = {
  id: 1,
  username: 'admin',
  nickname: 'Administrator',
  kind: 'platform',
  merchantId: null,
  perms: ['*'],
  roles: [],
  googleBound: false,
  mustBindGoogle: false,
  tokenHash: '',
  moneyUntil: null,
};
const now = Date.now();
const to = new Date(now).toISOString();
const listInput: ListInput = {
  from: new Date(now - 30 * dayMs).toISOString(),
  to,
  merchantId: merchant.id,
  status: 'paid',
};
notes.push(
  `List: merchant ${merchant.code} (the large one), status paid, last 30 days, ${pageSize} a page; the deep page is page ${depth}. ` +
    `HTTP: server/main.ts in its own process${workers > 1 ? ` with WORKERS=${workers}` : ''} (DEMO=0, LOG_LEVEL=warn), signed in as a platform user; ` +
    'autocannon runs in the bench process on the same machine, to 127.0.0.1 only. ' +
    'CPU µs a call: CPU time of the server processes, of the PostgreSQL backends of the bench database and of the ' +
    'bench process (the load generator) during the run, divided by the answers.',
);
const filters = listFilters(deps, platformUser, listInput, 'en');
const { where, to: toDate } = filters;
/** The list's page as the server reads it (a prepared statement answering the page as one JSON value). */
const page = (cursor: string | undefined) => listPage(deps.database, db, filters, cursor, pageSize + 1);
const cursorOf = (r: Awaited<ReturnType<typeof page>>) =>
  r.length > pageSize ? cursorAfter(r[pageSize - 1]!) : undefined;

console.log(`(a) list: merchant ${merchant.code}, status paid, last 30 days, ${pageSize} a page`);
let cursor: string | undefined;
for (let p = 1; p < depth; p++) {
  cursor = cursorOf(await page(cursor));
  if (!cursor) throw new Error(`the filtered list ends before page ${depth}: seed more orders`);
}
const deepCursor = cursor!;
if (only.has('a')) {
  timed('list, first page, database', await timeIt(iterations, () => page(undefined)), pglite ? 5 : 3);
  timed(
    `list, page ${depth} by cursor, database`,
    await timeIt(iterations, () => page(deepCursor)),
    pglite ? 5 : 3,
  );
  const totalQuery = cappedCountQuery(sql`${payinOrders}`, and(where, lte(payinOrders.createdAt, toDate)));
  timed(
    'list total: counting to the cap (10,001 rows)',
    await timeIt(Math.min(iterations, 100), () => db.execute(totalQuery)),
    null,
  );
  timed(
    'list total as the list serves it (a capped total is kept 10 s)',
    await timeIt(iterations, () => listTotal(db, filters)),
    null,
  );

  async function buffers(q: SQL): Promise<{ buffers: number; plan: string }> {
    const plan = await db.execute(sql`explain (analyze, buffers, format json) ${q as unknown as SQL}`);
    const cell = Object.values(rows<Record<string, unknown>>(plan)[0]!)[0];
    const top = (typeof cell === 'string' ? JSON.parse(cell) : cell)[0].Plan;
    const n = Number(top['Shared Hit Blocks'] ?? 0) + Number(top['Shared Read Blocks'] ?? 0);
    const text = rows<Record<string, string>>(
      await db.execute(sql`explain (analyze, buffers, costs off, timing off) ${q as unknown as SQL}`),
    )
      .map((r) => Object.values(r)[0])
      .join('\n');
    return { buffers: n, plan: text };
  }
  // The statement the list runs (`listPage`), planned for its values, and as the generic plan it runs on.
  const deepPlan = await buffers(pageJsonSql(where, pageBound(toDate, deepCursor), pageSize + 1));
  const firstPlan = await buffers(pageJsonSql(where, pageBound(toDate, undefined), pageSize + 1));
  // The server runs it prepared, on its generic plan: that plan must pass the guard as well.
  const generic = await genericPlanBuffers(pageJsonSql(where, pageBound(toDate, deepCursor), pageSize + 1));
  const guardOk = deepPlan.buffers < 50 && generic.buffers < 50;
  add({
    what: `EXPLAIN (ANALYZE, BUFFERS) page ${depth}: shared buffers, custom / generic plan (first page ${firstPlan.buffers})`,
    value: `${deepPlan.buffers} / ${generic.buffers}`,
    target: '< 50',
    ok: guardOk,
    sort: Math.max(deepPlan.buffers, generic.buffers),
  });
  if (!guardOk) {
    console.error(deepPlan.plan);
    console.error(generic.plan);
    process.exitCode = 1;
  }
}

/**
 * Buffers of a statement's generic plan: prepared on one session with `plan_cache_mode` forced to
 * generic, then EXPLAIN (ANALYZE, BUFFERS) EXECUTE with the same values.
 */
async function genericPlanBuffers(q: SQL): Promise<{ buffers: number; plan: string }> {
  const { sql: text, params } = new PgDialect().sqlToQuery(q);
  const literal = (v: unknown) =>
    typeof v === 'number'
      ? String(v)
      : `'${(v instanceof Date ? v.toISOString() : String(v)).replaceAll("'", "''")}'`;
  const args = params.map(literal).join(', ');
  const session = rawClient(db) as {
    query(text: string): Promise<unknown>;
    connect?: () => Promise<{ query(text: string): Promise<unknown>; release(): void }>;
  };
  const client = session.connect ? await session.connect() : session;
  try {
    await client.query('set plan_cache_mode = force_generic_plan');
    await client.query(`prepare bench_generic as ${text}`);
    const json = rows<Record<string, unknown>>(
      await client.query(`explain (analyze, buffers, format json) execute bench_generic(${args})`),
    );
    const cell = Object.values(json[0]!)[0];
    const top = (typeof cell === 'string' ? JSON.parse(cell) : cell)[0].Plan;
    const plan = rows<Record<string, string>>(
      await client.query(`explain (analyze, buffers, costs off, timing off) execute bench_generic(${args})`),
    )
      .map((r) => Object.values(r)[0])
      .join('\n');
    return { buffers: Number(top['Shared Hit Blocks'] ?? 0) + Number(top['Shared Read Blocks'] ?? 0), plan };
  } finally {
    await client.query('deallocate bench_generic').catch(() => {});
    await client.query('reset plan_cache_mode');
    (client as { release?: () => void }).release?.();
  }
}

// (b) lookups: random orders that have every number.
if (only.has('b')) {
  const { max } = await one<{ max: string }>(db, sql`select max(id)::text as max from payin_orders`);
  const ids = Array.from({ length: 600 }, () => 1 + Math.floor(Math.random() * Number(max)));
  const samples = rows<{
    merchant_id: number;
    order_no: string;
    merchant_order_no: string;
    channel_order_id: string;
    utr: string;
  }>(
    await db.execute(
      sql`select merchant_id, order_no, merchant_order_no, channel_order_id, utr from payin_orders
        where id = any(${`{${ids.join(',')}}`}::bigint[]) and utr is not null and created_at >= ${new Date(now - 59 * dayMs)}`,
    ),
  ).slice(0, 200);
  if (samples.length < 50) throw new Error('too few orders to sample');
  type Sample = (typeof samples)[number];
  /**
   * The equality read as the server makes it: the gateway's query by system and by merchant order number
   * (`gatewayOrder`), the UTR check's `orderUsingUtr`; a channel order id (which nothing reads by
   * equality yet) through its `COLLATE "C"` index.
   */
  const exact: Record<string, (s: Sample) => Promise<string | null | undefined>> = {
    order_no: async (s) =>
      (await gatewayOrder(deps.database, db, s.merchant_id, { orderNo: s.order_no }))?.orderNo,
    merchant_order_no: async (s) =>
      (await gatewayOrder(deps.database, db, s.merchant_id, { merchantOrderNo: s.merchant_order_no }))
        ?.merchantOrderNo,
    channel_order_id: async (s) =>
      (
        await db
          .select({ v: payinOrders.channelOrderId })
          .from(payinOrders)
          .where(sql`${payinOrders.channelOrderId} collate "C" = ${s.channel_order_id}`)
      )[0]?.v,
    utr: async (s) => ((await orderUsingUtr(db, s.utr)) ? s.utr : undefined),
  };
  const kinds = [
    ['system order number', 'order_no', 'orderNo'],
    ['merchant order number', 'merchant_order_no', 'merchantOrderNo'],
    ['channel order id', 'channel_order_id', 'channelOrderId'],
    ['UTR', 'utr', 'utr'],
  ] as const;
  console.log('(b) lookups: the list search `q` (console, 60 days, any merchant) and the equality read');
  const searchFrom = new Date(now - 60 * dayMs).toISOString();
  /** The list's search as the list runs it: the bounded number search, then its page (planned afresh). */
  const listSearch = async (q: string) => {
    const f = await searchedFilters(deps, db, platformUser, { from: searchFrom, to, q }, 'en');
    const page = await listPage(deps.database, db, f, undefined, pageSize + 1);
    if (page.length > pageSize) await listTotal(db, f);
    return pageViews(page);
  };
  for (const [label, key, field] of kinds) {
    const search = (i: number) => {
      const q = samples[i % samples.length]![key];
      return listSearch(q).then((r) => {
        // Merchant order numbers are unique per merchant only: the page holds it or its namesakes.
        if (!r.some((x) => x[field]?.startsWith(q))) throw new Error(`search for ${label} ${q} missed`);
      });
    };
    timed(`lookup by ${label}: list search q`, await timeIt(iterations, search), pglite ? 2 : 1);
    const equality = async (i: number) => {
      const s = samples[i % samples.length]!;
      if ((await exact[key]!(s)) !== s[key]) throw new Error(`equality read of ${label} ${s[key]} missed`);
    };
    timed(`lookup by ${label}: equality`, await timeIt(iterations, equality), pglite ? 2 : 1);
  }
  // Typed prefixes: every prefix of 3 characters or more of each number of 25 orders, as the palette
  // asks while a person types (a broad prefix reads at most `searchWidth` index entries per number).
  const typed: number[] = [];
  for (const s of samples.slice(0, 25))
    for (const [, key] of kinds)
      for (let n = 3; n <= s[key].length; n++) {
        const t0 = performance.now();
        await listSearch(s[key].slice(0, n));
        typed.push(performance.now() - t0);
      }
  const tm = summary(typed);
  add({
    what: `list search q by a typed prefix (every prefix of ≥ 3 characters of the four numbers of 25 orders; n = ${tm.n}, slowest ${fmtMs(Math.max(...typed))} ms)`,
    value: `${fmtMs(tm.median)} ms`,
    p95: `${fmtMs(tm.p95)} ms`,
    target: '—',
    sort: tm.median,
  });
}

// A fresh API secret for the creation run (the seed keeps none in clear).
const { apiSecret } = await resetMerchantSecrets(deps, db, merchant.id, 'api');
await deps.database.close();

// ---- (c), (d), (e): over HTTP ---------------------------------------------------------------------
let server: BenchServer | undefined;
if (only.has('c') || only.has('d') || only.has('e')) {
  const profDir = join(root, 'bench/out/prof');
  if (a.has('cpu-prof')) mkdirSync(profDir, { recursive: true });
  const startedAt = performance.now();
  server = await startServer({
    dir: t.dir,
    url: t.url,
    env: { WORKERS: String(workers) },
    nodeArgs: a.has('cpu-prof') ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [],
  });
  const { base } = server;
  try {
    console.log(`server up in ${((performance.now() - startedAt) / 1000).toFixed(1)} s on ${base}`);
    const token = await signIn(base, 'admin', benchAdminPassword);

    const qs = (cursor?: string) => {
      const p = new URLSearchParams({
        from: listInput.from,
        to,
        merchantId: String(merchant.id),
        status: 'paid',
        pageSize: String(pageSize),
      });
      if (cursor) p.set('cursor', cursor);
      return `/api/merchantOrder/list?${p}`;
    };
    const getList = async (path: string) => {
      const res = await fetch(`${base}${path}`, { headers: { 'admin-token': token } });
      const body = (await res.json()) as { errno: number; data: { list: unknown[] } };
      if (body.errno !== 0 || body.data.list.length !== pageSize)
        throw new Error(`list failed: ${body.errno}`);
    };
    if (only.has('c')) {
      console.log('(c) list over HTTP, one client');
      timed(
        'HTTP list, first page, one client',
        await timeIt(iterations, () => getList(qs())),
        pglite ? 20 : 10,
      );
      timed(
        `HTTP list, page ${depth}, one client`,
        await timeIt(iterations, () => getList(qs(deepCursor))),
        pglite ? 20 : 10,
      );
    }
    if (only.has('d')) {
      console.log(`(d) list endpoint under load: 50 connections, ${seconds} s`);
      for (const [label, path] of [
        ['first page', qs()],
        [`page ${depth}`, qs(deepCursor)],
      ] as const) {
        let refused = 0;
        const load = () =>
          autocannon({
            url: `${base}${path}`,
            connections: 50,
            duration: seconds,
            maxOverallRequests: 20_000 * seconds,
            headers: { 'admin-token': token },
            requests: [
              {
                onResponse: (_status, body) => {
                  if (!body.startsWith('{"errno":0,')) refused++;
                },
              },
            ],
          });
        const cpu = await cpuPerCall(server!.process.pid!, dbName, load, (r) => r['2xx']);
        const r = cpu.result;
        const ok = r['2xx'] - refused;
        const rate = ok / r.duration;
        add({
          what: `HTTP list ${label}, c=50: req/s · p99 (${fmtInt(ok)} answers${r.non2xx + r.errors + refused ? `, ${r.non2xx + r.errors + refused} failed` : ''}; CPU µs a call: ${cpuText(cpu)})`,
          value: `${fmtInt(rate)} req/s`,
          p95: `p99 ${r.latency.p99} ms`,
          target: pglite ? '≥ 1,000 req/s' : '≥ 5,000 req/s, p99 ≤ 20 ms',
          ok: pglite ? rate >= 1_000 : rate >= 5_000 && r.latency.p99 <= 20,
          sort: rate,
        });
      }
    }
    if (only.has('e')) {
      console.log(`(e) signed pay-in creation over HTTP, ${seconds} s each`);
      const runId = `${createdPrefix}${Date.now().toString(36)}-`;
      let serial = 0;
      const path = '/gateway/v1/payin';
      const signed = () => {
        const body = JSON.stringify({
          merchantOrderNo: `${runId}${++serial}`,
          amount: `${100 + (serial % 900)}.00`,
          notifyUrl: `${loopbackNotify}/${merchant.code}`,
        });
        return {
          method: 'POST' as const,
          path,
          body,
          headers: gatewayHeaders(merchant.code, apiSecret, 'POST', path, body),
        };
      };
      for (const connections of [1, 16]) {
        let created = 0;
        let other = 0;
        const load = () =>
          autocannon({
            url: base,
            connections,
            duration: seconds,
            maxOverallRequests: 5_000 * seconds,
            requests: [
              {
                setupRequest: (req) => ({ ...req, ...signed() }),
                onResponse: (status) => {
                  if (status === 201) created++;
                  else other++;
                },
              },
            ],
          });
        const cpu = await cpuPerCall(server!.process.pid!, dbName, load, () => created);
        const r = cpu.result;
        const rate = created / r.duration;
        add({
          what: `HTTP pay-in creation, c=${connections} (${fmtInt(created)} created${other + r.errors ? `, ${other + r.errors} failed` : ''}, p99 ${r.latency.p99} ms; CPU µs a creation: ${cpuText(cpu)})`,
          value: `${fmtInt(rate)} /s`,
          target: pglite ? '≥ 800 /s' : '≥ 1,500 /s',
          ok: rate >= (pglite ? 800 : 1_500) && other + r.errors === 0,
          sort: rate,
        });
      }
    }
  } finally {
    await server.stop();
  }
}

// ---- the seeded database as it was --------------------------------------------------------------
{
  const again = await openBench(t, 2);
  const n = await removeCreated(again.database.db);
  if (n) {
    // As autovacuum would: the removed rows' index entries must not slow the next run's reads.
    await again.database.db.execute(sql`vacuum payin_orders`);
    console.log(`removed the ${fmtInt(n)} orders the creation run made (and vacuumed)`);
  }
  await again.database.close();
}

const loadAtEnd = load();
const title = `${version} · ${fmtInt(count)} orders · ${new Date().toISOString().slice(0, 10)} · load ${loadAtStart} → ${loadAtEnd}`;
console.log(`\n### ${title}\n`);
console.log('| measurement | median (or rate) | p95 | target | |\n|---|---|---|---|---|');
for (const r of report) {
  console.log(
    `| ${r.what} | ${r.value} | ${r.p95 ?? ''} | ${r.target} | ${r.ok === undefined ? '' : r.ok ? '✓' : '✗'} |`,
  );
}
for (const n of notes) console.log(`\n${n}`);
if (a.has('json'))
  writeFileSync(a.get('json')!, JSON.stringify({ title, version, count, report, notes }, null, 2));

/**
 * Runs the whole benchmark `n` times, one after the other, each in its own process, and prints each row of
 * the run whose main figure is the median of the `n` (the machine's other load varies from run to run).
 */
async function repeated(n: number) {
  const argv = process.argv.slice(2);
  const passOn: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs' || argv[i] === '--json') i++;
    else passOn.push(argv[i]!);
  }
  mkdirSync(join(root, 'bench/out'), { recursive: true });
  const results: { title: string; report: Row[]; notes: string[] }[] = [];
  for (let i = 1; i <= n; i++) {
    const file = join(root, `bench/out/orders-run-${i}.json`);
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/orders.ts', ...passOn, '--json', file], {
      cwd: root,
      stdio: 'inherit',
    });
    const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
    if (code !== 0) process.exitCode = code;
    results.push(JSON.parse(readFileSync(file, 'utf8')));
  }
  const rowsOf = results.map((r) => r.report);
  console.log(`\n### median of ${n} runs\n`);
  for (const r of results) console.log(`- ${r.title}`);
  console.log('\n| measurement | median (or rate) | p95 | target | |\n|---|---|---|---|---|');
  // A row is the same measurement in every run by its label (what precedes its counts in parentheses).
  const label = (r: Row) => r.what.replace(/\s*\(.*$/, '');
  rowsOf[0]!.forEach((first) => {
    const candidates = rowsOf
      .map((rs) => rs.find((r) => label(r) === label(first)))
      .filter((r): r is Row => r !== undefined)
      .sort((x, y) => x.sort - y.sort);
    const r = candidates[Math.floor((candidates.length - 1) / 2)]!;
    const fmt = r.value.endsWith(' ms') ? fmtMs : fmtInt;
    const range = `${fmt(candidates[0]!.sort)}–${fmt(candidates.at(-1)!.sort)}`;
    console.log(
      `| ${r.what} (runs: ${range}) | ${r.value} | ${r.p95 ?? ''} | ${r.target} | ${r.ok === undefined ? '' : r.ok ? '✓' : '✗'} |`,
    );
  });
  for (const note of results[0]!.notes) console.log(`\n${note}`);
  const json = a.get('json');
  if (json) writeFileSync(json, JSON.stringify(results, null, 2));
}

async function removeCreated(tx: Db): Promise<number> {
  const like = `${createdPrefix}%`;
  await tx.execute(
    sql`delete from simulator_transactions where order_no in
          (select order_no from payin_orders where merchant_order_no like ${like})`,
  );
  const gone = await tx
    .delete(payinOrders)
    .where(sql`${payinOrders.merchantOrderNo} like ${like}`)
    .returning({ id: payinOrders.id });
  await tx.delete(gatewayNonces);
  return gone.length;
}
