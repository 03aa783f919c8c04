/**
 * A T+N settlement run over 1,000,000 paid orders (OPERATIONS.md section 1, issue 13): 50 merchants on
 * T+1, T+2 and T+3, 60 days of paid pay-ins, then the daily job's run for today (`runTnSettlement`, the
 * code the job and the API run), timed: wall time, lines and rows written per second, the node
 * process's RSS and heap peak (sampled every 10 ms), CPU of node and of PostgreSQL's backends. Beside
 * it, the floor measured in the same invocation: the same rows written by bare statements, one
 * transaction per merchant (lines marked, two balances moved, one entry with two postings, nothing
 * else), on copies of the tables, so that the run's own overhead shows as a ratio.
 *
 * The seed writes what the payment path would have left, in bulk and consistent with the ledger: the
 * orders (`payin_orders`, paid), one `payin_paid` entry per order with its three postings (balance
 * chains worked out by window functions), the accounts' balances and versions, and the lines (the
 * migration's grouping: business day of the payment in the stored zone, due day + N). It checks the
 * books (`checkLedger`) and `collection_pending` = pending lines (`checkTnLines`) before and after.
 *
 *   createdb -h 127.0.0.1 -U postgres bench_tn       # or let --reset make it
 *   npx tsx bench/tn-run.ts --dir bench/out/tn --url postgres://postgres@127.0.0.1:5432/bench_tn --reset
 *   npx tsx bench/tn-run.ts --dir bench/out/tn-pglite --orders 100000 --reset     # PGlite, smaller
 * Options: --orders N (default 1,000,000), --days 60, --reset (a fresh database), --skip-floor.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import { tnLine } from '../contract/machines.ts';
import { bootstrap } from '../server/bootstrap.ts';
import { type Db, inTransaction } from '../server/db/index.ts';
import { statesSql } from '../server/db/states.ts';
import type { Deps } from '../server/deps.ts';
import { checkLedger } from '../server/ledger/check.ts';
import { ensureAccounts, platformAccount } from '../server/ledger/index.ts';
import { businessTimeZoneOf, rebuildOrderStats } from '../server/modules/dashboard/stats.ts';
import { createMerchant } from '../server/modules/merchant/service.ts';
import { businessNow, checkTnLines, runTnSettlement } from '../server/modules/settlement/tn.ts';
import {
  args,
  cpuMsOf,
  engineVersion,
  fmtInt,
  load,
  loopbackNotify,
  onServer as onDatabaseServer,
  one,
  openBench,
  postgresBackends,
  rawClient,
  rows,
  target,
} from './common.ts';

const a = args();
const t = target(a);
const total = Number(a.get('orders') ?? 1_000_000);
const days = Number(a.get('days') ?? 60);
const merchantCount = 50;
if (!Number.isInteger(total) || total < 1000) throw new Error('--orders must be a whole number ≥ 1,000');

const dbName = t.url ? new URL(t.url).pathname.slice(1) : undefined;
const template = `${dbName}_seed`;
/** Runs `work` on a connection to the server's `postgres` database (creating and dropping databases). */
function onServer(work: (admin: pg.Client) => Promise<unknown>) {
  if (!/^[a-z_][a-z0-9_]*$/.test(dbName!)) throw new Error(`unexpected database name ${dbName}`);
  return onDatabaseServer(t.url!, work);
}
/** `to` as a copy of `from` (a file copy in PostgreSQL), once the last connection to `from` has gone. */
const copyDatabase = (from: string, to: string) =>
  onServer(async (admin) => {
    await admin.query(`drop database if exists ${to} with (force)`);
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`create database ${to} template ${from}`);
        return;
      } catch (err) {
        if (attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  });
// --again (PostgreSQL): measure once more on a fresh copy of the seeded database, without seeding.
const again = a.has('again');
if (again && !t.url) throw new Error('--again needs --url (it copies the seeded PostgreSQL database)');
if (t.url && a.has('reset')) {
  await onServer(async (admin) => {
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.query(`drop database if exists ${template} with (force)`);
    await admin.query(`create database ${dbName}`);
  });
}
if (again) await copyDatabase(template, dbName!);
if (a.has('reset')) rmSync(t.dir, { recursive: true, force: true });

const machine = `${cpus().length}-core ${cpus()[0]?.model.trim() ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`;
const seconds = (t0: number) => (performance.now() - t0) / 1000;
const step = async (what: string, work: () => Promise<unknown>) => {
  const t0 = performance.now();
  await work();
  console.log(`  ${what}: ${seconds(t0).toFixed(1)} s (load ${load()})`);
};

// ---- seed ----------------------------------------------------------------------------------------
/** Seeds the database: merchants, orders, their journal, balances and lines, then checks them. */
async function seed(deps: Deps) {
  const { db } = deps.database;
  const client = rawClient(db);
  const [seeded] = rows<{ n: string }>(await db.execute(sql`select count(*)::text as n from tn_lines`));
  if (Number(seeded?.n ?? 0) > 0) {
    console.error('This database has T+N lines already: pass --reset to start again.');
    process.exit(1);
  }
  await bootstrap(deps);
  const [sim] = rows<{ id: number }>(await db.execute(sql`select id from channels where code = 'simulator'`));
  if (!sim) throw new Error('bootstrap made no simulator channel');
  const merchantIds: number[] = [];
  for (let k = 1; k <= merchantCount; k++) {
    const code = `M${30_000 + k}`;
    const made = await inTransaction(db, (tx) =>
      createMerchant(deps, tx, {
        code,
        name: `T+N Bench Merchant ${k}`,
        owner: {
          username: `tn_${code.toLowerCase()}`,
          password: 'Owner1234!',
          email: `${code}@bench.example`,
        },
        collectionRatePpm: 20_000 + (k % 20) * 1_000,
        platformFee: k % 3 === 0 ? 500 : 0,
        settlementDays: (k % 3) + 1,
        callbackUrl: `${loopbackNotify}/${code}`,
        channels: [{ channelId: sim.id, weight: 1 }],
      }),
    );
    merchantIds.push(made.merchant.id);
  }
  await inTransaction(db, (tx) =>
    ensureAccounts(tx, [platformAccount('channel_clearing', 'INR'), platformAccount('fee_income', 'INR')]),
  );
  const end = Date.now() - 2 * 3_600_000;
  const start = end - days * 86_400_000;
  console.log(`Seeding ${fmtInt(total)} paid T+N orders for ${merchantCount} merchants over ${days} days:`);

  await step('orders (payin_orders)', () =>
    // One large merchant (35 %), the rest spread evenly; amounts 100.00 to 50,000.00, mostly small.
    client.query(
      `insert into payin_orders (order_no, merchant_id, merchant_order_no, channel_id, channel_order_id, currency,
         amount, paid_amount, fee, agent_commission, status, push_status, utr, notify_url, request_hash,
         paid_by, expires_at, paid_at, callback_at, created_at, updated_at)
       select 'PT' || lpad(g.i::text, 10, '0'), m.id, 'TN-' || g.i, $1, 'SIMT' || g.i, 'INR',
         v.amount, v.amount, least(v.amount, (v.amount * m.collection_rate_ppm + 500000) / 1000000 + m.platform_fee),
         0, 'paid', 'pushed', lpad((100000000000 + g.i)::text, 12, '0'), m.callback_url, md5(g.i::text),
         'channel', v.created + interval '30 minutes', v.created + interval '1 minute',
         v.created + interval '62 seconds', v.created, v.created + interval '62 seconds'
       from generate_series(1, $2::int) g(i)
       cross join lateral (select case when g.i % 20 < 7 then ($3::int[])[1]
         else ($3::int[])[2 + (g.i::bigint * 7919) % (cardinality($3::int[]) - 1)] end as merchant_id) p
       join merchants m on m.id = p.merchant_id
       cross join lateral (select (round(power(10, 2 + ((g.i * 2654435761::bigint) % 1000) / 1000.0 * 2.7)) * 100)::bigint as amount,
         to_timestamp(($4::bigint + (g.i::bigint * $5::bigint) / $2::bigint) / 1000.0) as created) v`,
      [sim.id, total, merchantIds, start, end - start],
    ),
  );
  await step('journal: one payin_paid entry and three postings per order', () =>
    client.query(
      `with e as (
         insert into journal_entries (at, kind, ref_type, ref_id, memo)
         select o.paid_at, 'payin_paid', 'payin', o.id::text, o.order_no from payin_orders o
         where o.order_no like 'PT%' order by o.paid_at, o.id
         returning id, ref_id, at),
       l as (
         select e.id as entry_id, e.at, x.account_id, x.amount
         from e join payin_orders o on o.id = e.ref_id::bigint
         cross join lateral (values
           ((select id from ledger_accounts where owner_type = 'platform' and kind = 'channel_clearing' and currency = 'INR'), -o.paid_amount),
           ((select id from ledger_accounts where owner_type = 'merchant' and owner_id = o.merchant_id and kind = 'collection_pending' and currency = 'INR'), o.paid_amount - o.fee),
           ((select id from ledger_accounts where owner_type = 'platform' and kind = 'fee_income' and currency = 'INR'), o.fee)
         ) x(account_id, amount)
         where x.amount <> 0)
       insert into postings (entry_id, account_id, seq, amount, balance_before, balance_after, currency, at)
       select l.entry_id, l.account_id, a.version + row_number() over w,
         l.amount, a.balance + sum(l.amount) over w - l.amount, a.balance + sum(l.amount) over w, 'INR', l.at
       from l join ledger_accounts a on a.id = l.account_id
       window w as (partition by l.account_id order by l.at, l.entry_id rows unbounded preceding)`,
    ),
  );
  await step('account balances and versions', () =>
    client.query(
      `update ledger_accounts a set balance = a.balance + p.sum, version = a.version + p.n
       from (select account_id, sum(amount) as sum, count(*) as n from postings group by 1) p
       where a.id = p.account_id and a.version = 0`,
    ),
  );
  // The lines as the payment path (and the backfill migration) make them.
  const backfill = readFileSync(
    new URL('../server/db/migrations/0013_tn_lines_backfill.sql', import.meta.url),
    'utf8',
  );
  await step('T+N lines (the backfill migration over the journal)', () => db.execute(sql.raw(backfill)));
  await step('vacuum analyze', async () => {
    for (const table of ['payin_orders', 'journal_entries', 'postings', 'ledger_accounts', 'tn_lines'])
      await db.execute(sql.raw(`vacuum (analyze) ${table}`));
  });
  await step('order stats', () => rebuildOrderStats(db, businessTimeZoneOf(deps.config)));
  await step('checks: ledger and T+N lines', async () => {
    const ledger = await checkLedger(db);
    if (!ledger.balanced)
      throw new Error(`the seeded books do not balance: ${JSON.stringify(ledger).slice(0, 500)}`);
    const lines = await checkTnLines(db);
    if (!lines.ok) throw new Error(`pending is not the pending lines: ${JSON.stringify(lines.mismatches)}`);
  });
}

if (!again) {
  const seeding = await openBench(t, 4);
  console.log(`${await engineVersion(seeding.database)} · ${machine} · load ${load()}`);
  await seed(seeding);
  await seeding.database.close();
  // A copy of the seeded state, for measuring again later (--again) without seeding.
  if (t.url) await copyDatabase(dbName!, template);
}
const deps = await openBench(t, 4);
const { db } = deps.database;
const version = await engineVersion(deps.database);
console.log(`\n${version} · ${machine} · load ${load()}`);

const { day } = await businessNow(db, new Date());
const pending = tnLine.from('release');
const due = await one<{ lines: string; orders: string; net: string; merchants: string; later: string }>(
  db,
  sql`select count(*) filter (where due_day <= ${day}::date)::text as lines,
        coalesce(sum(orders) filter (where due_day <= ${day}::date), 0)::text as orders,
        coalesce(sum(net) filter (where due_day <= ${day}::date), 0)::text as net,
        count(distinct merchant_id) filter (where due_day <= ${day}::date)::text as merchants,
        count(*) filter (where due_day > ${day}::date)::text as later
      from tn_lines where status in (${statesSql(pending)})`,
);
const sizes = await one<{ db: string; postings: string }>(
  db,
  sql`select pg_size_pretty(pg_database_size(current_database())) as db, (select count(*) from postings)::text as postings`,
);
console.log(
  `Due by ${day}: ${fmtInt(Number(due.lines))} lines of ${fmtInt(Number(due.merchants))} merchants, ` +
    `${fmtInt(Number(due.orders))} orders, net ${fmtInt(Number(due.net) / 100)}; ${fmtInt(Number(due.later))} lines not yet due. ` +
    `Database ${sizes.db}, ${fmtInt(Number(sizes.postings))} postings.`,
);

// ---- the floor: the same rows by bare statements, on copies ----------------------------------------
interface Measured {
  ms: number;
  nodeCpuMs: number;
  dbCpuMs: number;
  rssPeak: number;
  rssBefore: number;
  heapPeak: number;
  heapBefore: number;
}

/** Runs `work` with memory sampled every 10 ms and CPU of this process and the database's backends. */
async function measure<T>(work: () => Promise<T>): Promise<Measured & { result: T }> {
  globalThis.gc?.();
  const before = process.memoryUsage();
  let rssPeak = before.rss;
  let heapPeak = before.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    rssPeak = Math.max(rssPeak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }, 10);
  const backends = () => (dbName ? postgresBackends(dbName) : []);
  const dbBefore = new Map(backends().map((p) => [p, cpuMsOf(p)]));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await work();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  const m = process.memoryUsage();
  return {
    result,
    ms,
    nodeCpuMs: (cpu.user + cpu.system) / 1000,
    dbCpuMs: backends().reduce((s, p) => s + cpuMsOf(p) - (dbBefore.get(p) ?? 0), 0),
    rssPeak: Math.max(rssPeak, m.rss),
    rssBefore: before.rss,
    heapPeak: Math.max(heapPeak, m.heapUsed),
    heapBefore: before.heapUsed,
  };
}

/** The column names of a statement's `returning` list. */
const columnsOf = (text: string) =>
  (/returning (.*)$/s.exec(text)?.[1] ?? '').split(',').map((c) => c.trim());

async function floorRun(): Promise<{ m: Measured; rowsWritten: number; lines: number }> {
  await db.execute(
    sql.raw(`drop table if exists floor_lines, floor_accounts, floor_entries, floor_postings, floor_daily`),
  );
  await db.execute(sql.raw(`create table floor_lines (like tn_lines including all)`));
  await db.execute(sql.raw(`insert into floor_lines select * from tn_lines`));
  await db.execute(sql.raw(`create table floor_accounts (like ledger_accounts including all)`));
  await db.execute(sql.raw(`insert into floor_accounts select * from ledger_accounts`));
  await db.execute(sql.raw(`create table floor_entries (like journal_entries including all)`));
  await db.execute(sql.raw(`create table floor_postings (like postings including all)`));
  await db.execute(sql.raw(`create table floor_daily (like ledger_daily including all)`));
  await db.execute(sql.raw(`vacuum (analyze) floor_lines`));
  await db.execute(sql.raw(`vacuum (analyze) floor_accounts`));
  let lines = 0;
  let rowsWritten = 0;
  const m = await measure(async () => {
    const merchantsDue = rows<{ merchant_id: number }>(
      await rawClient(db).query(
        `select distinct merchant_id from floor_lines where due_day <= $1::date and status = 'pending' order by 1`,
        [day],
      ),
    );
    for (const { merchant_id: merchantId } of merchantsDue) {
      await inTransaction(db, async (tx) => {
        /** A statement straight on the driver, in this transaction; its rows as text by column name. */
        const c = {
          query: async (text: string, params: unknown[]) =>
            (await deps.database.raw(tx as unknown as Db, text, params)).map((r) =>
              Object.fromEntries(r.map((v, i) => [columnsOf(text)[i], v])),
            ),
        };
        const released = (await c.query(
          `update floor_lines set status = 'released', run_id = 0, released_at = now()
             where merchant_id = $1 and due_day <= $2::date and status = 'pending' returning net`,
          [merchantId, day],
        )) as { net: string }[];
        const amount = released.reduce((s, r) => s + Number(r.net), 0);
        const [entry] = (await c.query(
          `insert into floor_entries (at, kind, ref_type, ref_id) values (now(), 'tn_release', 'tn_run', $1) returning id`,
          [`0:${merchantId}:INR`],
        )) as { id: string }[];
        const moved = (await c.query(
          `update floor_accounts set balance = balance + case kind when 'collection_pending' then -$2::bigint else $2::bigint end,
               version = version + 1
             where owner_type = 'merchant' and owner_id = $1 and currency = 'INR'
               and kind in ('collection_pending', 'collection_available')
             returning id, balance, version, kind`,
          [merchantId, amount],
        )) as { id: string; balance: string; version: string; kind: string }[];
        for (const acc of moved) {
          const change = acc.kind === 'collection_pending' ? -amount : amount;
          await c.query(
            `insert into floor_postings (entry_id, account_id, seq, amount, balance_before, balance_after, currency, at)
             values ($1, $2, $3, $4, $5, $6, 'INR', now())`,
            [entry!.id, acc.id, acc.version, change, Number(acc.balance) - change, acc.balance],
          );
        }
        // The accounts' daily movements, as the ledger keeps them.
        await c.query(
          `insert into floor_daily as d (account_id, day, ref_type, kind, amount, postings)
           select id, current_date, 'tn_run', 'tn_release', change, 1
           from unnest($1::int[], $2::bigint[]) as v(id, change)
           on conflict (account_id, day, ref_type, kind) do update set
             amount = d.amount + excluded.amount, postings = d.postings + 1`,
          [
            `{${moved.map((acc) => acc.id).join(',')}}`,
            `{${moved.map((acc) => (acc.kind === 'collection_pending' ? -amount : amount)).join(',')}}`,
          ],
        );
        lines += released.length;
        rowsWritten += released.length + 1 + moved.length * 3;
      });
    }
  });
  await db.execute(
    sql.raw(`drop table floor_lines, floor_accounts, floor_entries, floor_postings, floor_daily`),
  );
  return { m, rowsWritten, lines };
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const report = (what: string, m: Measured, lines: number, rowsWritten: number) => {
  console.log(
    `| ${what} | ${(m.ms / 1000).toFixed(2)} s | ${fmtInt(lines / (m.ms / 1000))} lines/s | ${fmtInt(rowsWritten / (m.ms / 1000))} rows/s | ` +
      `${fmtInt(m.nodeCpuMs)} ms | ${dbName ? `${fmtInt(m.dbCpuMs)} ms` : '—'} | ` +
      `${mib(m.rssBefore)} → ${mib(m.rssPeak)} | ${mib(m.heapBefore)} → ${mib(m.heapPeak)} |`,
  );
};

const floor = a.has('skip-floor') ? null : await floorRun();

// ---- the run ---------------------------------------------------------------------------------------
console.log(`\nThe daily job's run for ${day} (load ${load()}):`);
const measured = await measure(() => runTnSettlement(deps, db, day, null));
if (!measured.result) throw new Error('the job run of today exists already');
const r = measured.result;
const runMerchants = await one<{ n: string }>(
  db,
  sql`select count(*)::text as n from tn_run_merchants where run_id = ${r.id}`,
);
// Rows the run wrote: lines marked, its entries and their two postings, two balances and two daily
// movements each, its outcome rows, and its own row (written twice).
const entries = await one<{ n: string }>(
  db,
  sql`select count(*)::text as n from journal_entries where ref_type = 'tn_run' and ref_id like ${`${r.id}:%`}`,
);
const runRows = r.lines + Number(entries.n) * 7 + Number(runMerchants.n) + 2;
// A person runs the day again: it releases nothing more.
const [admin] = rows<{ id: number }>(await db.execute(sql`select id from users where username = 'admin'`));
const second = await measure(() => runTnSettlement(deps, db, day, admin!.id));
if (second.result?.lines !== 0) throw new Error('a second run for the day released something');
const after = await checkTnLines(db);
const ledgerAfter = await checkLedger(db);
const left = await one<{ n: string }>(
  db,
  sql`select count(*)::text as n from tn_lines where due_day <= ${day}::date and status in (${statesSql(pending)})`,
);

console.log(
  `\nrun #${r.id}: ${r.outcome}, ${fmtInt(r.merchants)} merchants, ${fmtInt(r.lines)} lines (${fmtInt(Number(due.orders))} orders), ` +
    `${fmtInt(r.amountReleased / 100)} released; due lines left pending ${left.n}; pending = pending lines: ${after.ok}; ` +
    `ledger balanced: ${ledgerAfter.balanced}`,
);
console.log(
  `\n### T+N run · ${version} · ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · load ${load()}\n`,
);
console.log(
  '| what | wall | lines/s | rows written/s | node CPU | PostgreSQL CPU | RSS before → peak | heap before → peak |',
);
console.log('|---|---|---|---|---|---|---|---|');
report(
  `the run (${fmtInt(r.lines)} lines, ${fmtInt(Number(due.orders))} orders)`,
  measured,
  r.lines,
  runRows,
);
if (floor) {
  report(`floor: bare statements (${fmtInt(floor.lines)} lines)`, floor.m, floor.lines, floor.rowsWritten);
  console.log(`\nrun / floor: ${(measured.ms / floor.m.ms).toFixed(2)}× wall`);
}
report('a second run for the day (nothing due)', second, 0, 2);
console.log(
  `\n${fmtInt(Number(due.orders) / (measured.ms / 1000))} orders/s released; ${fmtInt(runRows)} rows written by the run; ` +
    `${(measured.ms / Math.max(1, r.merchants)).toFixed(1)} ms a merchant`,
);
console.log(`${machine}`);
await deps.database.close();
if (!t.url && existsSync(t.dir)) console.log(`PGlite data folder: ${t.dir}`);
