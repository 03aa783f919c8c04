/**
 * The D0 settlement summary (`GET /statOrder/balance?view=d0`) on a database seeded by
 * bench/seed-orders.ts, whose pay-ins carry no ledger entries. First (once) the books: every paid order's
 * payment entry (`paymentEntry`, the write path's) posted through the ledger in the order of payment, at
 * its paid time (T+1 merchants credit `collection pending`), and for each merchant and business day a
 * settlement hold at 18:00 (30 % of what is available), a transfer to the payout wallet at 18:05 (5 %),
 * and the next morning the hold lowered by a tenth (a confirmation below the applied amount) and spent; so
 * the ledger's daily movements are written by the ledger itself, as in production. Then:
 *  (a) at the database, the summary as the handler builds it (`d0Page` + `d0Totals`) over 60 days: every
 *      merchant's first page (50 rows) and a page deep in the period, the large merchant's 60 days (one
 *      page of 100), a small merchant's; for scale, the period's credited net summed from the postings
 *      (what the daily movements spare);
 *  (b) `GET /api/statOrder/balance` over HTTP, one client, against server/main.ts in its own process;
 *  (c) the same under load (50 connections, 10 s) with the CPU a call costs, to set beside bench/floor.ts.
 * Before measuring it checks the books (`checkLedger`, daily movements included) and that no row of the
 * 60 days is a mismatch.
 *
 *   createdb -h 127.0.0.1 -U postgres bench_d0
 *   npx tsx bench/seed-orders.ts --dir bench/out/d0-pg --url postgres://postgres@127.0.0.1:5432/bench_d0 --orders 1430000
 *   npx tsx bench/d0.ts --dir bench/out/d0-pg --url postgres://postgres@127.0.0.1:5432/bench_d0
 * Options: --iterations 300, --only abc, --seconds 10. Target (docs/PERFORMANCE.md): p95 ≤ 50 ms.
 */
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { inTransaction } from '../server/db/index.ts';
import { merchants } from '../server/db/schema.ts';
import { checkLedger } from '../server/ledger/check.ts';
import { type Entry, LedgerBatch, merchantAccount, platformAccount } from '../server/ledger/index.ts';
import { storedOrderStatsZone } from '../server/modules/dashboard/stats.ts';
import { paymentEntry } from '../server/modules/payin/state.ts';
import { type D0Filters, d0Page, d0Totals } from '../server/modules/stat/d0.ts';
import {
  args,
  type BenchServer,
  benchAdminPassword,
  type CallTiming,
  cpuPerCall,
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
const iterations = Number(a.get('iterations') ?? 300);
const seconds = Number(a.get('seconds') ?? 10);
const only = new Set((a.get('only') ?? 'abc').split(''));
const targetMs = 50;

const deps = await openBench(t);
const { db } = deps.database;
const version = await engineVersion(deps.database);
const ms = [...(await db.select().from(merchants))].sort((x, y) => x.id - y.id);
const large = ms.find((m) => m.code === largeMerchantCode);
if (!large) throw new Error('not a bench database: run bench/seed-orders.ts first');
const small = ms.at(-1)!;
const zone = await storedOrderStatsZone(db);

// ---- the books, once ------------------------------------------------------------------------------
const posted = await one<{ n: number }>(
  db,
  sql`select count(*)::int as n from journal_entries where kind = 'payin_paid'`,
);
if (Number(posted.n) === 0) await postBooks();

async function postBooks() {
  const started = performance.now();
  const terms = new Map(ms.map((m) => [m.id, { settlementDays: m.settlementDays, agentId: m.agentId }]));
  // The business days of the orders, and each day's 18:00 and next 09:00 in the stored zone.
  const days = rows<{ day: string; evening: Date; morning: Date }>(
    await db.execute(sql`
      select d::date::text as day,
        ((d::date)::timestamp + interval '18 hours') at time zone ${zone} as evening,
        ((d::date + 1)::timestamp + interval '9 hours') at time zone ${zone} as morning
      from generate_series(
        (select (min(paid_at) at time zone ${zone})::date from payin_orders),
        (select (max(paid_at) at time zone ${zone})::date from payin_orders), interval '1 day') d`),
  ).map((d) => ({ day: d.day, evening: new Date(d.evening), morning: new Date(d.morning) }));
  // The day's money out, worked out when its time comes (it takes a share of what is there then).
  type Event = { at: Date; run: (batch: LedgerBatch) => Promise<Entry[]> };
  const events: Event[] = [];
  const hold = new Map<string, number>();
  for (const d of days) {
    for (const m of ms) {
      const wallet = merchantAccount(m.id, 'collection_available', m.currency);
      const frozen = merchantAccount(m.id, 'frozen', m.currency);
      const ref = `bench-${m.id}-${d.day}`;
      events.push({
        at: d.evening,
        run: async (batch) => {
          const available = await batch.balance(wallet);
          const amount = Math.floor((available * 0.3) / 100) * 100;
          const moved = Math.floor((available * 0.05) / 100) * 100;
          const out: Entry[] = [];
          if (amount >= 100_000) {
            hold.set(ref, amount);
            out.push({
              kind: 'settlement_hold',
              refType: 'settlement',
              refId: ref,
              at: d.evening,
              lines: [
                { account: wallet, amount: -amount },
                { account: frozen, amount },
              ],
            });
          }
          if (moved >= 10_000) {
            out.push({
              kind: 'wallet_transfer',
              refType: 'wallet_transfer',
              refId: ref,
              at: new Date(d.evening.getTime() + 5 * 60_000),
              lines: [
                { account: wallet, amount: -moved },
                { account: merchantAccount(m.id, 'payout_available', m.currency), amount: moved },
              ],
            });
          }
          return out;
        },
      });
      events.push({
        at: d.morning,
        run: async () => {
          const held = hold.get(ref);
          if (held === undefined) return [];
          const back = Math.floor(held / 10 / 100) * 100;
          const spent = held - back;
          return [
            {
              kind: 'settlement_hold_2',
              refType: 'settlement',
              refId: ref,
              at: d.morning,
              lines: [
                { account: frozen, amount: -back },
                { account: wallet, amount: back },
              ],
            },
            {
              kind: 'settlement_paid',
              refType: 'settlement',
              refId: ref,
              at: new Date(d.morning.getTime() + 60 * 60_000),
              lines: [
                { account: frozen, amount: -spent },
                { account: platformAccount('settlement_clearing', m.currency), amount: spent },
              ],
            },
          ];
        },
      });
    }
  }
  // Nothing after the last payment: the books end when the orders do.
  const { end } = await one<{ end: Date }>(db, sql`select max(paid_at) as end from payin_orders`);
  events.sort((x, y) => x.at.getTime() - y.at.getTime());
  while (events.length && events.at(-1)!.at > new Date(end)) events.pop();

  type Paid = {
    id: number;
    order_no: string;
    merchant_id: number;
    currency: string;
    amount: string;
    paid_amount: string | null;
    fee: string;
    agent_commission: string;
    paid_at: Date;
  };
  // The paid orders in the order of payment, numbered once (the orders have no index on the paid time).
  await db.execute(sql`drop table if exists bench_paid`);
  await db.execute(sql`
    create unlogged table bench_paid as
    select row_number() over (order by paid_at, id) as n, id, order_no, merchant_id, currency, amount,
      paid_amount, fee, agent_commission, paid_at
    from payin_orders where status = 'paid'`);
  await db.execute(sql`create index on bench_paid (n)`);
  let from = 0;
  let next = 0;
  let entries = 0;
  const chunk = 20_000;
  for (;;) {
    const paid: Paid[] = rows<Paid>(
      await db.execute(sql`
        select id, order_no, merchant_id, currency, amount, paid_amount, fee, agent_commission, paid_at
        from bench_paid where n > ${from} and n <= ${from + chunk} order by n`),
    );
    from += chunk;
    if (!paid.length && next >= events.length) break;
    const until = paid.length === chunk ? new Date(paid.at(-1)!.paid_at) : null;
    await inTransaction(db, async (tx) => {
      const batch = new LedgerBatch(tx);
      let i = 0;
      // Payments and the day's money out, merged in time order (up to the last payment read).
      for (;;) {
        const p = paid[i];
        const e = events[next];
        const pAt = p ? new Date(p.paid_at) : null;
        if (e && (until === null || e.at < until) && (!pAt || e.at <= pAt)) {
          for (const entry of await e.run(batch)) await batch.post(entry);
          next++;
          entries++;
        } else if (p && pAt) {
          const order = {
            id: p.id,
            orderNo: p.order_no,
            merchantId: p.merchant_id,
            currency: p.currency,
            amount: Number(p.amount),
            paidAmount: p.paid_amount === null ? null : Number(p.paid_amount),
            fee: Number(p.fee),
            agentCommission: Number(p.agent_commission),
          };
          await batch.post(paymentEntry(order, terms.get(p.merchant_id)!, null, pAt));
          i++;
          entries++;
          if (batch.pending >= 2_000) await batch.write();
        } else break;
      }
      await batch.write();
    });
    const s = (performance.now() - started) / 1000;
    console.log(`  ${fmtInt(entries)} entries posted, ${s.toFixed(0)} s, ${fmtInt(entries / s)} a second`);
    if (!paid.length) break;
  }
  await db.execute(sql`drop table bench_paid`);
  await db.execute(sql`vacuum (analyze) postings, journal_entries, ledger_accounts`);
  // A million upserts in an hour of bulk posting leave the daily movements ten times their size in dead
  // space (13 MB for 19,000 rows); a live table updated over weeks stays compact, so compact it once.
  await db.execute(sql`vacuum (full, analyze) ledger_daily`);
  console.log(`books posted in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

const counts = await one<{ orders: string; paid: string; postings: string; daily: string; stats: string }>(
  db,
  sql`select (select count(*) from payin_orders)::text as orders,
    (select count(*) from payin_orders where status = 'paid')::text as paid,
    (select count(*) from postings)::text as postings,
    (select count(*) from ledger_daily)::text as daily,
    (select count(*) from order_stats_daily)::text as stats`,
);
console.log(
  `${version} · ${fmtInt(Number(counts.orders))} pay-ins (${fmtInt(Number(counts.paid))} paid), ${fmtInt(Number(counts.postings))} postings, ` +
    `${fmtInt(Number(counts.daily))} daily movement rows, ${fmtInt(Number(counts.stats))} order stats rows · zone ${zone} · load ${load()}`,
);

// The period: the last 60 business days that have orders.
const { last } = await one<{ last: string }>(db, sql`select max(day)::text as last from order_stats_daily`);
const addDays = (day: string, n: number) => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};
const period = { from: addDays(last, -59), to: last };
const everyone: D0Filters = { ...period, merchantId: null };

// ---- checks -------------------------------------------------------------------------------------
{
  const checked = performance.now();
  const report = await checkLedger(db);
  console.log(
    `books balanced, daily movements equal to the postings: ${report.balanced} (checked in ${((performance.now() - checked) / 1000).toFixed(1)} s)`,
  );
  if (!report.balanced) throw new Error(`books: ${JSON.stringify(report).slice(0, 500)}`);
  let cursor: Parameters<typeof d0Page>[2] = null;
  let seen = 0;
  let mismatches = 0;
  let drift = 0;
  for (;;) {
    const page = await d0Page(db, everyone, cursor, 100);
    seen += page.list.length;
    mismatches += page.list.filter((r) => r.mismatch).length;
    // How far a day's orders (by creation) and its credited net (by payment) drift apart at midnight.
    drift += page.list.filter((r) => Number(r.gross) - Number(r.fees) !== Number(r.netCredited)).length;
    const lastRow = page.list.at(-1);
    if (!page.nextCursor || !lastRow) break;
    cursor = { day: lastRow.day, merchantId: lastRow.merchantId, currency: lastRow.currency };
  }
  const [totals] = (await d0Totals(db, everyone)).totals;
  console.log(
    `${period.from} … ${period.to}: ${fmtInt(seen)} rows, ${mismatches} mismatches, ${drift} rows where gross − fees ≠ net credited; ` +
      `totals: ${totals?.paidCount} paid, net ${totals?.netCredited}, settled ${totals?.settledOut}, transferred ${totals?.transferred}, closing ${totals?.closing} = ledger ${totals?.ledgerClosing}`,
  );
  if (mismatches || totals?.mismatch) throw new Error('the summary does not tie to the ledger');
}

const dbName = t.url ? new URL(t.url).pathname.slice(1) : undefined;
const time3 = (n: number, fn: (i: number) => Promise<unknown>, warmup = 20, node?: number) =>
  timeCalls(n, fn, { database: dbName, warmup, node });
const row = (name: string, tm: CallTiming, target?: number) => printTiming(name, tm, { target, width: 64 });

// What the handler does: the page, then the period's totals.
const summary = async (f: D0Filters, after: Parameters<typeof d0Page>[2], pageSize: number) => {
  const page = await d0Page(db, f, after, pageSize);
  await d0Totals(db, f);
  return page;
};
// A page deep in the period: the rows of the day 30 days back, after every merchant of the day after it.
const deepDay = addDays(last, -29);
const deep = { day: addDays(deepDay, 1), merchantId: 0x7fffffff, currency: 'ZZZ' };

if (only.has('a')) {
  console.log(`(a) at the database, ${period.from} … ${period.to}, ${iterations} runs each`);
  row(
    'every merchant, first page (50 rows)',
    await time3(iterations, () => summary(everyone, null, 50)),
    targetMs,
  );
  row(
    `every merchant, a page from ${deepDay} (50 rows)`,
    await time3(iterations, () => summary(everyone, deep, 50)),
    targetMs,
  );
  const one60 = await d0Page(db, { ...period, merchantId: large.id }, null, 100);
  row(
    `merchant ${large.code}, its 60 days (${one60.list.length} rows, one page of 100)`,
    await time3(iterations, () => summary({ ...period, merchantId: large.id }, null, 100)),
    targetMs,
  );
  row(
    `merchant ${small.code}, its 60 days (one page of 100)`,
    await time3(iterations, () => summary({ ...period, merchantId: small.id }, null, 100)),
    targetMs,
  );
  row('  of which the totals alone, every merchant', await time3(iterations, () => d0Totals(db, everyone)));
  row(
    'for comparison: the period’s credited net summed from the postings',
    await time3(
      5,
      () =>
        db.execute(sql`
          select a.currency, sum(p.amount) from postings p
          join journal_entries e on e.id = p.entry_id and e.kind = 'payin_paid'
          join ledger_accounts a on a.id = p.account_id
            and a.owner_type = 'merchant' and a.kind in ('collection_available', 'collection_pending')
          where p.at >= (${period.from}::date::timestamp at time zone ${zone})
            and p.at < ((${period.to}::date + 1)::timestamp at time zone ${zone})
          group by 1`),
      1,
    ),
  );
}
await deps.database.close();

let server: BenchServer | undefined;
if (only.has('b') || only.has('c')) {
  server = await startServer({ dir: t.dir, url: t.url, env: t.url ? { WORKERS: '2' } : {} });
  const { base } = server;
  try {
    const token = await signIn(base, 'admin', benchAdminPassword);
    const qs = (merchantId?: number, pageSize = 50) =>
      `/api/statOrder/balance?view=d0&from=${period.from}&to=${period.to}&pageSize=${pageSize}${merchantId ? `&merchantId=${merchantId}` : ''}`;
    const get = async (path: string) => {
      const res = (await fetch(`${base}${path}`, { headers: { 'admin-token': token } }).then((r) =>
        r.json(),
      )) as {
        errno: number;
      };
      if (res.errno !== 0) throw new Error(`summary failed: ${JSON.stringify(res)}`);
    };
    if (only.has('b')) {
      console.log(`(b) HTTP, one client, ${iterations} runs each`);
      const pid = server.process.pid!;
      row('HTTP, every merchant, first page', await time3(iterations, () => get(qs()), 20, pid), targetMs);
      row(
        `HTTP, merchant ${large.code}, 60 days`,
        await time3(iterations, () => get(qs(large.id, 100)), 20, pid),
        targetMs,
      );
    }
    if (only.has('c')) {
      console.log(`(c) HTTP under load: 50 connections, ${seconds} s, every merchant's first page`);
      let refused = 0;
      const run = () =>
        autocannon({
          url: `${base}${qs()}`,
          connections: 50,
          duration: seconds,
          headers: { 'admin-token': token },
          requests: [
            {
              onResponse: (_status, body) => {
                if (!body.startsWith('{"errno":0,')) refused++;
              },
            },
          ],
        });
      const cpu = await cpuPerCall(server.process.pid!, dbName, run, (r) => r['2xx']);
      const r = cpu.result;
      const ok = r['2xx'] - refused;
      console.log(
        `HTTP c=50: ${fmtInt(ok / r.duration)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms (${fmtInt(ok)} answers, ${r.non2xx + r.errors + refused} failed); ` +
          `CPU µs a call: server ${cpu.server} · database ${cpu.database} · load generator ${cpu.load}`,
      );
    }
  } finally {
    await server.stop();
  }
}
console.log(`done · load ${load()}`);
