/**
 * The floor under the HTTP figures of bench/orders.ts on this machine: what the list endpoint under load
 * and the signed pay-in creation cost when nothing but the unavoidable runs, measured with the same load
 * generator (autocannon, 50 connections, in this process on the same cores) and the same CPU accounting.
 *
 *  - `bare`: Hono answering a list page of 20 orders kept in memory (HTTP, JSON and the load generator).
 *  - `pass`: Hono plus the page statement the list runs, its text answered as the database gives it: the
 *    floor under any endpoint that reads this page;
 *  - `lean`: `pass` plus what the list itself must do, without the app around it: the session (a token's
 *    hash looked up in memory), the query's validation, the filters, the rows written as JSON, the cursor;
 *  - `page`: Hono plus the one statement the list runs (`listPage`: prepared, the page as one JSON value)
 *    and its rows written as the list writes them (`rowJson`), no session, no validation, no total.
 *  - `create`: Hono plus a creation's database work as the server does it (a transaction: the nonce with
 *    the existence probe, the simulator's row, the order's row), no signature, no validation, no routing;
 *  - `create2`: the same work as two statements and no transaction (the nonce with its probe; the order
 *    and the simulator's booking in one statement): what a creation without BEGIN and COMMIT would cost.
 *
 *   npx tsx bench/floor.ts --dir bench/out/pg-1m --url postgres://postgres@127.0.0.1:5432/bench [--workers 2]
 *   npx tsx bench/floor.ts --dir bench/out/pglite-1m
 *  - `list`: the real server as `npm start` runs it (built, WORKERS as --workers), signed in, the same page
 *    as `lean`. With `lean` and `pass` in the same run, the list's ratios to them are printed (issue 16):
 *    npx tsx bench/floor.ts --dir bench/out/pg-1m --url postgres://postgres@127.0.0.1:5432/bench --only pass,lean,list --runs 3
 * Options: --seconds 10, --only bare,pass,lean,page,create,create2,list, --runs N (the modes in turn, N times;
 *   the ratios per run and their medians), --workers N (PostgreSQL: server processes, default 2).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { eq, sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { endpoints } from '../contract/index.ts';
import { inTransaction } from '../server/db/index.ts';
import { merchants } from '../server/db/schema.ts';
import type { SessionUser } from '../server/http/session.ts';
import { sha256 } from '../server/lib/crypto.ts';
import { payinList } from '../server/modules/orders/kinds.ts';
import { pageViews, payinOrderRow } from '../server/modules/payin/views.ts';
import {
  args,
  benchAdminPassword,
  cpuPerCall,
  createdPrefix,
  fmtInt,
  freePort,
  largeMerchantCode,
  load,
  loopbackNotify,
  openBench,
  root,
  signIn,
  startServer,
  target,
} from './common.ts';

// The pay-in list's own engine (server/modules/orders/list.ts) and row writer, as the endpoint runs them.
const { cursorAfter, filters: listFilters, listPage, pageStatement } = payinList;
const rowJson = payinOrderRow.json;

const a = args();
/** The session token the `lean` floor server knows. */
const floorToken = 'floor-session-token';
const t = target(a);
const serveMode = a.get('serve');
if (serveMode) await child(serveMode);
else await main();

async function main() {
  const seconds = Number(a.get('seconds') ?? 10);
  const runs = Number(a.get('runs') ?? 1);
  const workers = Number(a.get('workers') ?? (t.url ? 2 : 1));
  const modes = (a.get('only') ?? 'bare,page,create').split(',');
  const dbName = t.url ? new URL(t.url).pathname.slice(1) : undefined;
  console.log(`floor · ${t.url ? `PostgreSQL, ${workers} server process(es)` : 'PGlite'} · load ${load()}`);
  const rows: string[] = [];
  /** Each mode's figures, run by run. */
  const figures = new Map<string, { rate: number; p99: number; server: number; database: number }[]>();
  for (let run = 1; run <= runs; run++) {
    if (runs > 1) console.log(`run ${run} of ${runs} · load ${load()}`);
    for (const mode of modes) {
      const m = await measure(mode, { seconds, workers, dbName });
      rows.push(m.line);
      figures.set(mode, [...(figures.get(mode) ?? []), m]);
    }
  }
  console.log(
    `\n### floor · ${t.url ? 'PostgreSQL' : 'PGlite'} · ${new Date().toISOString().slice(0, 10)} · load ${load()}\n`,
  );
  console.log(
    '| what | rate | latency | server µs | PostgreSQL µs | load generator µs | total µs | both cores at that cost |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  const list = figures.get('list');
  if (!list) return;
  // The list endpoint against the floors of the same run (issue 16: ≥ 0.9 × lean, ≥ 0.6 × pass, p99 ≤ 2 ×
  // lean's), run by run, then the medians.
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  console.log('\n| run | list /s | ÷ lean | ÷ pass | p99 ÷ lean p99 | server µs: list · lean · pass |');
  console.log('|---|---|---|---|---|---|');
  const ratios = { lean: [] as number[], pass: [] as number[], p99: [] as number[] };
  for (let i = 0; i < list.length; i++) {
    const l = list[i]!;
    const lean = figures.get('lean')?.[i];
    const pass = figures.get('pass')?.[i];
    if (lean) ratios.lean.push(l.rate / lean.rate);
    if (pass) ratios.pass.push(l.rate / pass.rate);
    if (lean) ratios.p99.push(l.p99 / Math.max(lean.p99, 1));
    console.log(
      `| ${i + 1} | ${fmtInt(l.rate)} | ${lean ? (l.rate / lean.rate).toFixed(2) : '—'} | ${pass ? (l.rate / pass.rate).toFixed(2) : '—'} | ${lean ? (l.p99 / Math.max(lean.p99, 1)).toFixed(2) : '—'} | ${fmtInt(l.server)} · ${lean ? fmtInt(lean.server) : '—'} · ${pass ? fmtInt(pass.server) : '—'} |`,
    );
  }
  const verdict = (x: number[], floor: number, above: boolean) =>
    x.length
      ? `${median(x).toFixed(2)} ${(above ? median(x) >= floor : median(x) <= floor) ? '✓' : '✗'}`
      : '—';
  console.log(
    `| median | ${fmtInt(median(list.map((l) => l.rate)))} | ${verdict(ratios.lean, 0.9, true)} (≥ 0.9) | ${verdict(ratios.pass, 0.6, true)} (≥ 0.6) | ${verdict(ratios.p99, 2, false)} (≤ 2) | |`,
  );
}

/**
 * One mode under load: a floor server of this file, or (`list`) the real server as `npm start` runs it,
 * signed in, asked the same page as `lean`. Answers its row and figures.
 */
async function measure(mode: string, o: { seconds: number; workers: number; dbName: string | undefined }) {
  let server: ChildProcess;
  let stop: () => Promise<void>;
  let url: string;
  let token = floorToken;
  if (mode === 'list') {
    const real = await startServer({ dir: t.dir, url: t.url, env: { WORKERS: String(o.workers) } });
    server = real.process;
    stop = real.stop;
    token = await signIn(real.base, 'admin', benchAdminPassword);
    url = `${real.base}/api/merchantOrder/list?${await listQuery()}`;
  } else {
    const port = await freePort();
    server = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/floor.ts',
        ...process.argv.slice(2),
        '--serve',
        mode,
        '--port',
        String(port),
      ],
      {
        cwd: root,
        env: { ...process.env, FLOOR_WORKERS: String(mode === 'bare' ? 1 : o.workers) },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let said = '';
    server.stdout!.on('data', (d) => {
      said += d;
    });
    for (let i = 0; !said.includes('ready'); i++) {
      if (i > 900 || server.exitCode !== null) throw new Error(`floor server ${mode} did not start`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // The list's query (the floor server says it: it knows the merchant's id).
    const query = /^query (.*)$/m.exec(said)?.[1] ?? '';
    url = `http://127.0.0.1:${port}/${mode}${mode === 'lean' ? `?${query}` : ''}`;
    const child = server;
    stop = async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    };
  }
  try {
    let refused = 0;
    const run = (duration: number) =>
      autocannon({
        url,
        connections: mode.startsWith('create') ? 16 : 50,
        duration,
        method: mode.startsWith('create') ? 'POST' : 'GET',
        headers: { 'admin-token': token },
        // As bench/orders.ts counts: only answers that say they went well.
        requests: [
          {
            onResponse: (_status, body) => {
              if (!body.startsWith('{"errno":0,')) refused++;
            },
          },
        ],
      });
    await run(2);
    refused = 0;
    const cpu = await cpuPerCall(
      server.pid!,
      o.dbName,
      () => run(o.seconds),
      (r) => r['2xx'],
    );
    const r = cpu.result;
    const rate = (r['2xx'] - refused) / r.duration;
    const total = cpu.server + cpu.database + cpu.load;
    const line =
      `| ${mode} (c=${mode.startsWith('create') ? 16 : 50}) | ${fmtInt(rate)} /s | p99 ${r.latency.p99} ms | ` +
      `${fmtInt(cpu.server)} | ${o.dbName ? fmtInt(cpu.database) : '—'} | ${fmtInt(cpu.load)} | ${fmtInt(total)} | ` +
      `${fmtInt(2e6 / total)} /s |`;
    const failed = r.non2xx + r.errors + refused;
    console.log(line, failed ? `(${failed} failed)` : '');
    return { line, rate, p99: r.latency.p99, server: cpu.server, database: cpu.database };
  } finally {
    await stop();
  }
}

/** The list's query as `lean` asks it: the bench's large merchant, paid, the last 30 days, 20 a page. */
async function listQuery() {
  const deps = await openBench(t, 1);
  try {
    const [merchant] = await deps.database.db
      .select()
      .from(merchants)
      .where(eq(merchants.code, largeMerchantCode));
    if (!merchant) throw new Error('seed the bench database first');
    const now = Date.now();
    return new URLSearchParams({
      from: new Date(now - 30 * 86_400_000).toISOString(),
      to: new Date(now).toISOString(),
      merchantId: String(merchant.id),
      status: 'paid',
      pageSize: '20',
    });
  } finally {
    await deps.database.close();
  }
}

/** The floor server: one mode, on the bench database; several processes on PostgreSQL. */
async function child(mode: string) {
  const port = Number(a.get('port'));
  const workers = Number(process.env.FLOOR_WORKERS ?? 1);
  if (workers > 1 && cluster.isPrimary) {
    let up = 0;
    for (let i = 0; i < workers; i++)
      cluster.fork().on('message', (m) => {
        if (m === 'ready' && ++up === workers) console.log('ready');
      });
    process.on('SIGTERM', () => {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      process.exit(0);
    });
    return;
  }
  const deps = await openBench(t, 20);
  const { database } = deps;
  const [merchant] = await database.db.select().from(merchants).where(eq(merchants.code, largeMerchantCode));
  if (!merchant) throw new Error('seed the bench database first');
  const user = { kind: 'platform', merchantId: null } as SessionUser;
  const now = Date.now();
  const input = {
    from: new Date(now - 30 * 86_400_000).toISOString(),
    to: new Date(now).toISOString(),
    merchantId: merchant.id,
    status: 'paid' as const,
  };
  const app = new Hono();
  const f = listFilters(deps, user, input, 'en');
  const kept = pageViews((await listPage(database, database.db, f, undefined, 21)).slice(0, 20));
  app.get('/bare', (c) => c.json({ errno: 0, errmsg: '', data: { list: kept, total: 10_000 } }));
  app.get('/page', async (c) => {
    const rows = await listPage(database, database.db, f, undefined, 21);
    // Written as the list writes it (`rowJson`), not built as objects.
    const list = rows.slice(0, 20).map(rowJson).join(',');
    return c.body(`{"errno":0,"errmsg":"","data":{"list":[${list}],"total":10000}}`, 200, {
      'content-type': 'application/json',
    });
  });
  // The list's page statement answered as the database's text, nothing done to it: the floor under any
  // endpoint that reads this page.
  app.get('/pass', async (c) => {
    const statement = pageStatement(f, undefined, 21);
    const [row] = await database.raw(database.db, statement.sql, statement.params, {
      name: statement.prepared,
    });
    return c.body(`{"errno":0,"errmsg":"","data":{"list":${row?.[0] ?? '[]'},"total":10000}}`, 200, {
      'content-type': 'application/json',
    });
  });
  // What the list must do beyond `pass`, without the app around it: the session (the token's hash looked
  // up in memory), the query's validation, the filters, the page's rows written as JSON, the cursor.
  const sessions = new Map([[sha256(floorToken), user]]);
  const query = new URLSearchParams({ ...input, merchantId: String(input.merchantId), pageSize: '20' });
  if (!cluster.isWorker || cluster.worker?.id === 1) console.log(`query ${query}`);
  app.get('/lean', async (c) => {
    const who = sessions.get(sha256(c.req.header('admin-token') ?? ''));
    if (!who) return c.json({ errno: 1001, errmsg: '', data: null });
    const parsed = endpoints.merchantOrder.list.input.safeParse(c.req.query());
    if (!parsed.success) return c.json({ errno: 422, errmsg: '', data: null });
    const lf = listFilters(deps, who, parsed.data, 'en');
    const rows = await listPage(database, database.db, lf, parsed.data.cursor, parsed.data.pageSize + 1);
    const page = rows.slice(0, parsed.data.pageSize);
    const next = rows.length > page.length ? cursorAfter(page.at(-1)!) : null;
    return c.body(
      `{"errno":0,"errmsg":"","data":{"list":[${page.map(rowJson).join(',')}],"total":10000,"totalCapped":true,"nextCursor":${JSON.stringify(next)}}}`,
      200,
      { 'content-type': 'application/json' },
    );
  });
  const insertOrder = `insert into payin_orders (order_no, merchant_id, merchant_order_no, channel_id, channel_order_id,
      currency, amount, fee, agent_commission, status, push_status, notify_url, pay_url, request_hash,
      request_snapshot, response_snapshot, expires_at, created_at, updated_at)
    values ($1, $2, $3, 1, $4, 'INR', $5, $6, 0, 'pending', 'unpushed', $7, $8, $9, $10, $11, $12, $13, $13)
    on conflict do nothing returning id`;
  const spend = `with spent as (insert into gateway_nonces (merchant_id, nonce, expires_at) values ($3, $4, $5)
      on conflict do nothing returning 1)
    select (select count(*) from spent), (select exists (select 1 from payin_orders where merchant_id = $1 and merchant_order_no = $2))`;
  const sim = `insert into simulator_transactions (channel_order_id, kind, order_no, amount, status)
    values ($1, 'payin', $2, $3, 'pending')`;
  /** `insertOrder`'s values for a creation of 100.00 at `at`. */
  const orderValues = (orderNo: string, merchantOrderNo: string, channelOrderId: string, at: Date) => [
    orderNo,
    merchant.id,
    merchantOrderNo,
    channelOrderId,
    10_000,
    200,
    loopbackNotify,
    `http://127.0.0.1:8080/sim/pay/${orderNo}`,
    'x'.repeat(64),
    { source: 'api', request: { merchantOrderNo, amount: '100.00' } },
    { orderNo, merchantOrderNo, status: 'pending', amount: '100.00' },
    new Date(at.getTime() + 1_800_000),
    at,
  ];
  let serial = 0;
  const run = `${createdPrefix}floor-${process.pid}-${Date.now().toString(36)}-`;
  app.post('/create', async (c) => {
    const at = new Date();
    const merchantOrderNo = `${run}${++serial}`;
    const orderNo = `PI${randomBytes(10).toString('hex')}`;
    const channelOrderId = `SIMP${randomBytes(8).toString('hex')}`;
    const id = await inTransaction(database.db, async (tx) => {
      await database.raw(
        tx,
        spend,
        [merchant.id, merchantOrderNo, merchant.id, randomBytes(12).toString('base64url'), at],
        { name: true },
      );
      await database.raw(tx, sim, [channelOrderId, orderNo, 10_000], { name: true });
      const [row] = await database.raw(
        tx,
        insertOrder,
        orderValues(orderNo, merchantOrderNo, channelOrderId, at),
        { name: true },
      );
      return row?.[0];
    });
    return c.json({ errno: 0, errmsg: '', data: { orderNo, id } }, 201);
  });
  // The same database work in two statements and no transaction: the nonce with its probe, then the order
  // and the simulator's booking in one statement (the booking only when the order went in).
  const orderAndBooking = `with o as (${insertOrder}),
      s as (insert into simulator_transactions (channel_order_id, kind, order_no, amount, status)
        select $4, 'payin', $1, $5, 'pending' from o)
    select id from o`;
  app.post('/create2', async (c) => {
    const at = new Date();
    const merchantOrderNo = `${run}${++serial}`;
    const orderNo = `PI${randomBytes(10).toString('hex')}`;
    const channelOrderId = `SIMP${randomBytes(8).toString('hex')}`;
    const db = database.db;
    await database.raw(
      db,
      spend,
      [merchant.id, merchantOrderNo, merchant.id, randomBytes(12).toString('base64url'), at],
      { name: true },
    );
    const [row] = await database.raw(
      db,
      orderAndBooking,
      orderValues(orderNo, merchantOrderNo, channelOrderId, at),
      { name: true },
    );
    return c.json({ errno: 0, errmsg: '', data: { orderNo, id: row?.[0] } }, 201);
  });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, () => {
    if (cluster.isWorker) process.send?.('ready');
    else console.log('ready');
  });
  process.on('SIGTERM', () => {
    server.close();
    // The orders a create run made go again, as bench/orders.ts does with its own.
    void (async () => {
      if (mode.startsWith('create') && (!cluster.isWorker || cluster.worker?.id === 1)) {
        await database.db.execute(
          sql`delete from simulator_transactions where order_no in (select order_no from payin_orders where merchant_order_no like ${`${createdPrefix}floor-%`})`,
        );
        await database.db.execute(
          sql`delete from payin_orders where merchant_order_no like ${`${createdPrefix}floor-%`}`,
        );
        await database.db.execute(sql`delete from gateway_nonces`);
      }
      await database.close();
      process.exit(0);
    })();
  });
}
