/**
 * Importing a 100,000-line bank statement (`POST /api/statement/import`) against 1,000,000 orders, on the
 * database bench/reconciliation.ts prepared (its four receiving accounts behind two bank channels). Each
 * run takes the bench account with the most unpaid or failed orders (those an import may pay) whose payers gave no
 * UTR yet, and gives them UTRs: a third of the file's lines are credits carrying such a UTR and the
 * order's amount (rule 1: they pay it), the rest are credits with no UTR and an amount of their own (the
 * amount candidates: mostly unmatched) and one debit in twenty. The file is a generic CSV (Date, Narration,
 * Ref, Credit, Debit, Balance; dd/MM/yyyy; the UTR pulled from the narration), its balance running. The
 * server runs in its own process (one worker, so one process holds the import); its RSS is read from
 * /proc/<pid>/status every 200 ms during the call. Prints lines per second, the answer's counts and the
 * RSS's min and max.
 *
 *   npx tsx bench/reconciliation.ts --dir bench/out/recon-pg --url postgres://postgres@127.0.0.1:5432/bench_recon --only a
 *   npx tsx bench/statement-import.ts --dir bench/out/recon-pg --url postgres://postgres@127.0.0.1:5432/bench_recon
 * Options: --lines 100000. Target (docs/PERFORMANCE.md): ≥ 5 k lines per second matched, memory flat.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { sql } from 'drizzle-orm';
import {
  args,
  benchAdminPassword,
  engineVersion,
  fmtInt,
  load,
  one,
  openBench,
  rows,
  signIn,
  startServer,
  target,
} from './common.ts';

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
await db.execute(sql`
  update payin_orders set payer_utr = ${`B${runId}`} || id::text
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
console.log(
  `${version} · ${fmtInt(Number(counts.orders))} pay-ins, ${fmtInt(Number(counts.lines))} statement lines · account ${account} · load ${load()}`,
);
await deps.database.close();

// ---- the file -------------------------------------------------------------------------------------
const ddmmyyyy = (day: string) => `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}`;
const money = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
type FileLine = { day: string; narration: string; ref: string; credit: number; debit: number };
const lines: FileLine[] = open.map((o) => ({
  day: o.day,
  narration: `UPI/CR/B${runId}${o.id}/PAYER`,
  ref: `R${runId}P${o.id}`,
  credit: Number(o.amount),
  debit: 0,
}));
const days = [...new Set(open.map((o) => o.day))].sort();
let seed = 7;
const next = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed;
};
for (let i = lines.length; i < lineCount; i++) {
  const day = days[next() % days.length]!;
  const debit = i % 20 === 0;
  // Amounts with odd paise: rarely one open order's.
  const amount = 10_000 + (next() % 5_000_000) + 37;
  lines.push({
    day,
    narration: debit ? `IMPS/DR/SWEEP/${i}` : `NEFT/CR/${runId}/${i}`,
    ref: `R${runId}N${i}`,
    credit: debit ? 0 : amount,
    debit: debit ? amount : 0,
  });
}
lines.sort((x, y) => (x.day < y.day ? -1 : x.day > y.day ? 1 : 0));
let balance = 1_000_000_000;
const csv = ['Date,Narration,Ref,Credit,Debit,Balance'];
for (const l of lines) {
  balance += l.credit - l.debit;
  csv.push(
    `${ddmmyyyy(l.day)},${l.narration},${l.ref},${l.credit ? money(l.credit) : ''},${l.debit ? money(l.debit) : ''},${money(balance)}`,
  );
}
const file = Buffer.from(`${csv.join('\n')}\n`);
console.log(
  `file: ${fmtInt(lines.length)} lines (${fmtInt(open.length)} carrying an unpaid or failed order's UTR), ${(file.length / 1024 / 1024).toFixed(1)} MB`,
);

// ---- the import -----------------------------------------------------------------------------------
const rssKiB = (pid: number) => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
};
const server = await startServer({ dir: t.dir, url: t.url, env: { WORKERS: '1' } });
try {
  const token = await signIn(server.base, 'admin', benchAdminPassword);
  const pid = server.process.pid!;
  const body = JSON.stringify({
    accountId: account,
    fileName: `bench-import-${runId}.csv`,
    file: file.toString('base64'),
    mapping: {
      headerRow: 1,
      dateColumn: 'Date',
      dateFormat: 'dd/MM/yyyy',
      narrationColumn: 'Narration',
      referenceColumn: 'Ref',
      creditColumn: 'Credit',
      debitColumn: 'Debit',
      balanceColumn: 'Balance',
      utrPattern: 'UPI/CR/([A-Z0-9]+)/',
    },
  });
  const probe = await fetch(`${server.base}/api/statement/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'admin-token': token },
    body: '{}',
  });
  if (probe.status === 404)
    throw new Error('POST /api/statement/import answers 404: the import is not mounted');
  const idle = rssKiB(pid);
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssKiB(pid)), 200);
  const t0 = performance.now();
  // node:http, not fetch: fetch gives up on an answer that takes more than 300 s to start.
  const text = await new Promise<string>((done, fail) => {
    const req = request(
      `${server.base}/api/statement/import`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'admin-token': token,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let out = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          out += d;
        });
        res.on('end', () => done(out));
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end(body);
  });
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const answer = JSON.parse(text) as {
    errno: number;
    errmsg: string;
    data: { counts: Record<string, number> };
  };
  if (answer.errno !== 0)
    throw new Error(
      `import failed: ${answer.errno} ${answer.errmsg} ${JSON.stringify(answer.data).slice(0, 500)}`,
    );
  const mib = (k: number) => (k / 1024).toFixed(0);
  console.log(`answer: ${JSON.stringify(answer.data.counts)}`);
  console.log(
    `imported ${fmtInt(lines.length)} lines in ${seconds.toFixed(1)} s: ${fmtInt(lines.length / seconds)} lines a second ` +
      `(target ≥ 5,000)${lines.length / seconds >= 5000 ? ' ✓' : ' ✗'}`,
  );
  console.log(
    `server RSS: ${mib(idle)} MiB before; during the import (${samples.length} samples every 200 ms) min ${mib(Math.min(...samples))} MiB, ` +
      `max ${mib(Math.max(...samples))} MiB; after ${mib(rssKiB(pid))} MiB`,
  );
  // Flat or climbing: the RSS at each tenth of the import.
  console.log(
    `server RSS by tenths of the import (MiB): ${Array.from({ length: 10 }, (_, i) => mib(samples[Math.floor(((i + 1) * samples.length) / 10) - 1] ?? 0)).join(' ')}`,
  );
} finally {
  await server.stop();
}
console.log(`done · load ${load()}`);
