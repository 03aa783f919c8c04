/**
 * The bank's feed importing a 100,000-line statement against 1,000,000 orders, on the database
 * bench/reconciliation.ts prepared (its four receiving accounts behind two bank channels). The feed is how
 * a statement pays by itself (docs/STATEMENTS.md "Bank feed (SFTP)"): the file is what the feed job hands
 * `importStatement` once downloaded (source `feed`, no mapping: the format read from the content), run in
 * this process as the job runs it in the server's. Each run takes the bench account with the most unpaid or
 * failed orders whose payers gave no UTR yet and gives them 12-digit UTRs; the file is the account's MT940
 * (a statement a day, its balances running): a third of its lines credits carrying such a UTR and the
 * order's amount (they pay it), the rest credits with a UTR of no order and an amount of their own (mostly
 * unmatched) and one debit in twenty.
 *
 * Its floor, in the same run: the time the database was busy with the import's own statements (every
 * query of this process timed from its send to its answer, overlapping ones counted once), as lines a
 * second: what the import would do if reading, matching and everything else in Node cost nothing. RSS is
 * read every 200 ms. The last line is the one scripts read:
 *   `statement import: 5,210 lines/s = 0.71 × floor (7,330 lines/s)`.
 *
 *   npx tsx bench/reconciliation.ts --dir bench/out/recon-pg --url postgres://postgres@127.0.0.1:5432/bench_recon --only a
 *   node --expose-gc --import tsx bench/statement-import.ts --dir bench/out/recon-pg --url postgres://postgres@127.0.0.1:5432/bench_recon
 * Options: --lines 100000, --profile (each statement's time summed by its text). A run pays a third of
 * its lines' orders: a seeded database serves about eight runs. Target (docs/PERFORMANCE.md): ≥ 5 k
 * lines per second matched, memory flat (the heap after a collection back where it was).
 */

import { sql } from 'drizzle-orm';
import pg from 'pg';
import { importStatement } from '../server/modules/statement/service.ts';
import { warmStatementWorker } from '../server/modules/statement/workerPool.ts';
import { args, engineVersion, fmtInt, load, one, openBench, rows, target } from './common.ts';

const a = args();
const t = target(a);
const lineCount = Number(a.get('lines') ?? 100_000);
const utrShare = 3;

const deps = await openBench(t);
const { db } = deps.database;
const version = await engineVersion(deps.database);
const zone = (
  await one<{ zone: string }>(
    db,
    sql`select coalesce((select value #>> '{}' from parameters where key = 'order_stats_time_zone'), 'Asia/Kolkata') as zone`,
  )
).zone;

// The bench account with the most unpaid or failed orders whose payers gave no UTR yet (a run gives a third of the
// file's lines to such orders, and pays them: they cannot pay again).
const account = (
  await one<{ id: number | null }>(
    db,
    sql`select o.receiving_account_id as id from payin_orders o
      join receiving_accounts a on a.id = o.receiving_account_id and a.account_number like '5010000000_'
      where o.status in ('unpaid', 'failed') and o.payer_utr is null
      group by 1 order by count(*) desc limit 1`,
  )
)?.id;
if (account === null || account === undefined) {
  throw new Error('no bench account: run bench/reconciliation.ts first (it seeds them)');
}
const runId = Date.now().toString(36).toUpperCase();
// Four digits of this run in each UTR (so the run's UTRs are no recent run's).
const runTag = String(Math.floor(Date.now() / 1000) % 10_000).padStart(4, '0');

// A third of the lines pay unpaid or failed orders of the account by the UTR their payers gave.
const paying = Math.floor(lineCount / utrShare);
type Open = { id: number; amount: string; day: string };
const open = rows<Open>(
  await db.execute(sql`
    select id, amount::text, ((created_at at time zone ${zone})::date)::text as day from payin_orders
    where receiving_account_id = ${account} and status in ('unpaid', 'failed') and payer_utr is null
    order by id limit ${paying}`),
);
if (open.length < paying)
  throw new Error(`only ${open.length} unpaid or failed orders on account ${account}`);
// 12 digits as UPI's RRNs: 9, the run's four, the order's id in seven (ids stay under 10 M here).
const utrOf = (id: number) => `9${runTag}${String(id).padStart(7, '0')}`;
await db.execute(sql`
  update payin_orders set payer_utr = ${`9${runTag}`} || lpad(id::text, 7, '0')
  where id in (select id from payin_orders where receiving_account_id = ${account} and status in ('unpaid', 'failed')
    and payer_utr is null order by id limit ${paying})`);
// Earlier runs' callbacks (to a closed port) still wait for their next attempt: put them off a day, so
// the server delivers only this import's own while it is measured.
await db.execute(
  sql`update webhook_events set next_attempt_at = now() + interval '1 day' where status = 'pending'`,
);
const counts = await one<{ orders: string; lines: string }>(
  db,
  sql`select (select count(*) from payin_orders)::text as orders, (select count(*) from statement_lines)::text as lines`,
);
const [accountRow] = rows<{ number: string; importer: number }>(
  await db.execute(sql`select a.account_number as number,
    (select id from users where username = 'admin') as importer
    from receiving_accounts a where a.id = ${account}`),
);
console.log(
  `${version} · ${fmtInt(Number(counts.orders))} pay-ins, ${fmtInt(Number(counts.lines))} statement lines · account ${account} · load ${load()}`,
);

// ---- the file: the account's MT940, a statement a day --------------------------------------------------
/** The file, built in a function of its own so that its lines are garbage before the import is measured. */
function statementFile(): { file: string; lines: number; days: number } {
  const money = (minor: number) => `${Math.floor(minor / 100)},${String(minor % 100).padStart(2, '0')}`;
  type FileLine = { day: string; utr: string; narration: string; credit: number; debit: number };
  const lines: FileLine[] = open.map((o) => {
    const utr = utrOf(o.id);
    return {
      day: o.day,
      utr,
      narration: `UPI/${utr}/PAYER ${o.id}/payer${o.id}@okicici`,
      credit: Number(o.amount),
      debit: 0,
    };
  });
  const days = [...new Set(open.map((o) => o.day))].sort();
  let seed = 7;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed;
  };
  for (let i = lines.length; i < lineCount; i++) {
    const day = days[next() % days.length]!;
    const debit = i % 20 === 0;
    // Amounts with odd paise: rarely one open order's. UTRs of no order (they start with 8).
    const amount = 10_000 + (next() % 5_000_000) + 37;
    const utr = `8${runTag}${String(i).padStart(7, '0')}`;
    lines.push({
      day,
      utr,
      narration: debit ? `IMPS/${utr}/SWEEP/NODAL` : `NEFT/${utr}/SENDER ${i}`,
      credit: debit ? 0 : amount,
      debit: debit ? amount : 0,
    });
  }
  lines.sort((x, y) => (x.day < y.day ? -1 : x.day > y.day ? 1 : 0));
  const yymmdd = (day: string) => day.slice(2).replaceAll('-', '');
  let balance = 1_000_000_000;
  const mt940: string[] = [];
  for (let i = 0, n = 1; i < lines.length; n++) {
    const day = lines[i]!.day;
    mt940.push(
      `:20:B${runId}${n}`,
      `:25:HDFC0001234/${accountRow!.number}`,
      `:28C:${n}/1`,
      `:60F:C${yymmdd(day)}INR${money(balance)}`,
    );
    for (; i < lines.length && lines[i]!.day === day; i++) {
      const l = lines[i]!;
      balance += l.credit - l.debit;
      const d = yymmdd(l.day);
      mt940.push(
        `:61:${d}${d.slice(2)}${l.credit ? 'C' : 'D'}${money(l.credit || l.debit)}NTRFNONREF//${l.utr}`,
        `:86:${l.narration}`,
      );
    }
    mt940.push(`:62F:C${yymmdd(day)}INR${money(balance)}`, '-');
  }
  const file = Buffer.from(`${mt940.join('\r\n')}\r\n`);
  console.log(
    `file: MT940, ${fmtInt(lines.length)} lines in ${days.length} daily statements (${fmtInt(open.length)} carrying an unpaid or failed order's UTR), ${(file.length / 1024 / 1024).toFixed(1)} MB`,
  );
  return { file: file.toString('base64'), lines: lines.length, days: days.length };
}
const statement = statementFile();

// ---- the import ------------------------------------------------------------------------------------
// The database's busy time: every query this process sends, from send to answer, overlapping ones once.
let outstanding = 0;
let busySince = 0;
let busyMs = 0;
let queries = 0;
const began = () => {
  if (outstanding++ === 0) busySince = performance.now();
  queries++;
};
const ended = () => {
  if (--outstanding === 0) busyMs += performance.now() - busySince;
};
// With --profile: each statement's own time summed by its text (its first 90 characters), printed at the end.
const profile = a.has('profile') ? new Map<string, { n: number; ms: number }>() : null;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function timed(this: unknown, ...params: unknown[]) {
  const callback = params.at(-1);
  const first = params[0];
  const text = typeof first === 'string' ? first : ((first as { text?: string })?.text ?? '');
  const sent = performance.now();
  const done = () => {
    ended();
    if (!profile) return;
    const key = text.replace(/\s+/g, ' ').slice(0, 90);
    const p = profile.get(key) ?? { n: 0, ms: 0 };
    p.n++;
    p.ms += performance.now() - sent;
    profile.set(key, p);
  };
  began();
  if (typeof callback === 'function') {
    params[params.length - 1] = (...out: unknown[]) => {
      done();
      return (callback as (...a: unknown[]) => unknown)(...out);
    };
    return query.apply(this, params);
  }
  const answer = query.apply(this, params);
  if (answer && typeof (answer as Promise<unknown>).then === 'function')
    return (answer as Promise<unknown>).finally(done);
  done();
  return answer;
} as typeof pg.Client.prototype.query;

await warmStatementWorker();
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
if (!global.gc)
  throw new Error('run with node --expose-gc --import tsx (the heap is measured after a collection)');
global.gc();
const idle = process.memoryUsage().rss;
const idleHeap = process.memoryUsage().heapUsed;
const samples: number[] = [];
const sampler = setInterval(() => samples.push(process.memoryUsage().rss), 200);
busyMs = 0;
queries = 0;
const t0 = performance.now();
const answer = await importStatement(
  deps,
  accountRow!.importer,
  { accountId: account, fileName: `bench-feed-${runId}.sta`, file: statement.file },
  'en',
  'feed',
);
const seconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
const dbSeconds = busyMs / 1000;
global.gc();
const keptHeap = process.memoryUsage().heapUsed;
console.log(`answer: format ${answer.format} · ${JSON.stringify(answer.counts)}`);
const paid = rows<{ n: number }>(
  await db.execute(sql`select count(*)::int as n from payin_orders where receiving_account_id = ${account}
    and payer_utr like ${`9${runTag}%`} and status = 'paid'`),
)[0]!.n;
console.log(`orders paid by the feed: ${fmtInt(paid)} of ${fmtInt(open.length)}`);
console.log(
  `imported ${fmtInt(statement.lines)} lines in ${seconds.toFixed(1)} s; the database busy ${dbSeconds.toFixed(1)} s of it over ${fmtInt(queries)} queries`,
);
console.log(
  `RSS: ${mib(idle)} MiB before; during the import (${samples.length} samples every 200 ms) min ${mib(Math.min(...samples))} MiB, ` +
    `max ${mib(Math.max(...samples))} MiB; after ${mib(process.memoryUsage().rss)} MiB; by tenths: ` +
    Array.from({ length: 10 }, (_, i) =>
      mib(samples[Math.floor(((i + 1) * samples.length) / 10) - 1] ?? 0),
    ).join(' '),
);
// Flat: what the import keeps once it is over (the heap after a collection) against what was there before.
console.log(`heap after a collection: ${mib(idleHeap)} MiB before the import, ${mib(keptHeap)} MiB after it`);
if (profile)
  for (const [text, p] of [...profile].sort((x, y) => y[1].ms - x[1].ms).slice(0, 25))
    console.log(`${(p.ms / 1000).toFixed(2).padStart(7)} s ${String(p.n).padStart(6)} × ${text}`);
await deps.database.close();
const rate = statement.lines / seconds;
const floor = statement.lines / dbSeconds;
console.log(
  `done · load ${load()} · target ≥ 5,000 lines a second matched: ${rate >= 5000 && paid === open.length ? '✓' : '✗'}`,
);
console.log(
  `statement import: ${fmtInt(rate)} lines/s = ${(rate / floor).toFixed(2)} × floor (${fmtInt(floor)} lines/s)`,
);
process.exit(0);
