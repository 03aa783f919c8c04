/**
 * A business day under load (issue 31): the real server on PostgreSQL (WORKERS=2), or on PGlite without
 * `--url` (one process, as `npm start` runs it), taking a mix of the
 * day's traffic from an open-loop generator at rising rates, until the p99 of a class passes its bound,
 * against its floor measured in the same run. Open loop: each step schedules its events at a fixed rate
 * whatever the answers, and an event's latency runs from the time it was scheduled (not from when it could
 * be sent), so queueing shows.
 *
 * The mix, per 100 events — a FIRST GUESS from the demo's shape, not a measured day:
 *
 * | class     | per 100 | what                                                                  | p99 bound |
 * | --------- | ------- | --------------------------------------------------------------------- | --------- |
 * | payin     | 36      | signed `POST /gateway/v1/payin` (10 merchants, M20001 holding half)   | 200 ms    |
 * | payout    | 10      | signed `POST /gateway/v1/payout` (same merchants and shares)          | 200 ms    |
 * | pay       | 25      | `POST /api/simulator/pay` success on a pay-in this run made (7 in 10  | 200 ms    |
 * |           |         | pay-ins paid; its callback answered 200 by a receiver in this process |           |
 * |           |         | for 9 merchants; M20010's port is closed: its callbacks fail, retried |           |
 * |           |         | ); M20008's and M20009's pay-ins go to a bank account of ours: their  |           |
 * |           |         | payer says the UTR instead (`POST /pay/<order>/utr`, from an address  |           |
 * |           |         | of its own), and the day's statement import pays them                 |           |
 * | payoutDone| 9       | `POST /api/simulator/payout` success: the channel's answer to a       | 200 ms    |
 * |           |         | payout handed to it, a second after its creation at the earliest      |           |
 * | list      | 9       | `GET /api/merchantOrder/list`, first page, last 30 days, one merchant | 100 ms    |
 * | lookup    | 7       | the palette's search: the same list with `q` = a seeded order number  | 50 ms     |
 * | report    | 4       | `GET /api/statOrder/list`, last 7 business days, one merchant         | 100 ms    |
 *
 * The issue gives bounds for creation (200 ms), list (100 ms) and look-up (50 ms); here a payment is held
 * to creation's bound and a report read to the list's. A step holds when every class's p99 is within its
 * bound and no event failed; the sustainable rate is the offered rate of the last step that held.
 *
 * Each phase runs on a fresh copy of the seeded database (`<name>_record`, `_floor0`…, `_run`, dropped
 * after; PGlite's folder copied to `<dir>-record`…), so every run starts from the same state and the
 * seeded database keeps it:
 * 1. record: the server, with bench/record-sql.mjs preloaded, takes the mix at `--record-rate` for
 *    `--record-seconds`; every statement it sends is written down;
 * 2. floor: those statements replayed one at a time in commit order (bench/replay.ts), as many streams side
 *    by side as the machine has cores, each on its own copy (so none waits for another's locks), by a
 *    plain pg client in this process (PGlite: one replay, the folder opened in this process, as the
 *    server runs it in its own). The floor is their rate: the database's work for the mix with a
 *    client and nothing else: no HTTP, signing, validation, query building, JSON, jobs, locks or queues
 *    of the server's. PostgreSQL's CPU an event is printed too (the cores running nothing but it);
 * 3. the mix at rising rates on the plain server.
 *
 * Besides the classes, in the run's steps: the day's T+N run (the server's own job, at the minute after the
 * warm-up) and the day's statement import at the start of the third step: the bank account's statement in
 * HDFC's layout with a credit for every UTR a payer said, imported by the operator, its ready lines then
 * posted by a finance user with a Google code (both timed; the classes' figures of that step carry it).
 * The crash test under this mix is bench/day-crash.ts.
 *
 *   npx tsx bench/day.ts --dir bench/out/pg-day --url postgres://postgres@127.0.0.1:5432/bench_day
 *   npx tsx bench/day.ts --dir bench/out/pglite-day                              # PGlite
 * Options: --start 50 (events/s of the first step), --factor 2 (each step's rate over the last's),
 *   --step-seconds 30 (at least; a step lasts until each class has had 100 events, so that its p99 is its
 *   2nd slowest, not its slowest: at nearest rank any count below 100 makes p99 the maximum, and one late
 *   event would end the day — the report's 4 in 100 need 50 s at 50 events/s), --warmup-seconds 15 (at
 *   the first rate, not reported: connections, JIT, caches),
 *   --max 6400 (the last rate tried), --orders 1000000 (seeded when the database has no pay-ins, by
 *   bench/seed-orders.ts),
 *   --workers 2 (PGlite: 1), --only payin,pay (those classes alone, in their shares: what a class costs),
 *   --record-rate 100, --record-seconds 10, --floor-profile (the replay's statements by their time),
 *   --keep-sql (leave the recording in <dir>-day-sql), --profile DIR (CPU profiles of the run's server
 *   processes, written as they exit; with --max equal to --start, one step), --stalls (the run's server
 *   prints what could hold every request at once: bench/stalls.mjs). Each of the 10 merchants
 *   gets its payout wallet credited and 127.0.0.1 on its payout whitelist in the seeded database, before
 *   the copies.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { args, copyTarget, cpuPerCall, fmtInt, fmtMs, load, target } from './common.ts';
import { classes, mix, openDay, type StatementImportReport, type Step } from './mix.ts';
import { highestRate, readP99 } from './oneSession.ts';
import { begins, readUnits, replay } from './replay.ts';

const a = args();
const t = target(a);
/** PGlite (no `--url`): one process, one session, in the server's thread. */
const pglite = !t.url;
const start = Number(a.get('start') ?? 50);
const factor = Number(a.get('factor') ?? 2);
const stepSeconds = Number(a.get('step-seconds') ?? 30);
const maxRate = Number(a.get('max') ?? 6400);
const warmupSeconds = Number(a.get('warmup-seconds') ?? 15);
const workers = Number(a.get('workers') ?? (pglite ? 1 : 2));
const recordRate = Number(a.get('record-rate') ?? 100);
const recordSeconds = Number(a.get('record-seconds') ?? 10);
if (!(start >= 1 && start <= 10_000)) throw new Error('--start from 1 to 10,000 events/s');
if (!(factor > 1 && factor <= 4)) throw new Error('--factor above 1, at most 4');
if (!(stepSeconds >= 2 && stepSeconds <= 120)) throw new Error('--step-seconds from 2 to 120');
if (!(warmupSeconds >= 0 && warmupSeconds <= 60)) throw new Error('--warmup-seconds from 0 to 60');
if (!(Number.isInteger(workers) && workers >= 1 && workers <= 8)) throw new Error('--workers from 1 to 8');
if (pglite && workers !== 1) throw new Error('--workers: PGlite runs in one process');

const day = await openDay(t, { only: a.get('only'), orders: Number(a.get('orders') ?? 1_000_000), workers });
const { version, count, chosen, serve, step, header, line, errorSamples } = day;
/** A step's length at `rate`: `--step-seconds`, or longer until the rarest class has had 100 events. */
const rarest = Math.min(...chosen.map((c) => mix[c].per100)) / 100;
const secondsAt = (rate: number) => Math.max(stepSeconds, Math.ceil(100 / (rate * rarest)));
const loadAtStart = load();
console.log(`${version} · ${fmtInt(count)} pay-in orders · WORKERS=${workers} · load ${loadAtStart}`);

// ---- the floor: the mix's statements, recorded, then replayed straight on PostgreSQL ----------------
const recordDir = `${t.dir}-day-sql`;
rmSync(recordDir, { recursive: true, force: true });
mkdirSync(recordDir, { recursive: true });
console.log(`recording the mix's statements: ${recordRate} events/s for ${recordSeconds} s`);
const recording = await serve('record', {
  env: { RECORD_SQL: recordDir },
  nodeArgs: ['--import', './bench/record-sql.mjs'],
});
let recorded: Step;
const window = { from: Date.now(), to: 0 };
try {
  recorded = await step(recordRate, recordSeconds);
  window.to = Date.now();
} finally {
  await recording.stop(); // its processes write what they recorded as they exit
}
const recordedEvents = classes.reduce((n, c) => n + recorded.byClass[c].n, 0);
const units = readUnits(recordDir, window.from, window.to);
if (!a.has('keep-sql')) rmSync(recordDir, { recursive: true, force: true });
// PostgreSQL: as many replays side by side as the machine has cores, each on its own copy (so none waits
// for another's locks), all in this process: their rate, and PostgreSQL's CPU an event. PGlite: one, in
// this process, as the server runs it in its own.
const cores = pglite ? 1 : availableParallelism();
const floorCopies: Awaited<ReturnType<typeof copyTarget>>[] = [];
for (let i = 0; i < cores; i++) floorCopies.push(await copyTarget(t, `floor${i}`));
const floorCpu = await cpuPerCall(
  process.pid,
  floorCopies.flatMap((c) => c.name ?? []),
  async () => {
    const t0 = performance.now();
    const runs = await Promise.all(
      floorCopies.map((c) =>
        replay(c.url ? { url: c.url } : { dir: c.dir }, units, { profile: a.has('floor-profile') }),
      ),
    );
    return { runs, seconds: (performance.now() - t0) / 1000 };
  },
  () => recordedEvents * cores,
);
const floorRun = floorCpu.result.runs[0]!;
for (const r of floorCpu.result.runs) await r.close();
for (const c of floorCopies) await c.drop();
/** The floor: the mix's statements replayed, one stream a core, events a second. */
const floorRate = (recordedEvents * cores) / floorCpu.result.seconds;
/** The cores doing nothing but PostgreSQL's share. */
const databaseOnly = (cores * 1_000_000) / Math.max(1, floorCpu.database);
console.log(
  `replayed: ${fmtInt(recordedEvents)} events' ${fmtInt(floorRun.units)} units (${fmtInt(floorRun.statements)} statements), ` +
    `${pglite ? 'one replay' : `${cores} replays side by side`} in ${floorCpu.result.seconds.toFixed(2)} s = ${fmtInt(floorRate)} events/s; ` +
    (pglite
      ? `CPU µs an event: PGlite and the replay ${fmtInt(floorCpu.load)}; `
      : `CPU µs an event: PostgreSQL ${fmtInt(floorCpu.database)} (alone on ${cores} cores: ${fmtInt(databaseOnly)} events/s) · ` +
        `replay ${fmtInt(floorCpu.load)}; `) +
    `${floorCpu.result.runs.reduce((n, r) => n + r.diverged, 0)} statements failed where the recording's did not`,
);
for (const e of floorRun.samples) console.log(`  diverged: ${e}`);
if (a.has('floor-profile')) {
  for (const [kind, k] of [...floorRun.byStatement].sort((x, y) => y[1].ms - x[1].ms).slice(0, 25))
    console.log(`  ${fmtInt(k.ms).padStart(6)} ms ${fmtInt(k.n).padStart(5)} × ${kind}`);
  // The longest units: one of them in front of a read is what a read's tail is made of on one session.
  console.log("the replay's longest units (a transaction, or a statement on its own):");
  for (const i of floorRun.unitMs
    .map((_, i) => i)
    .sort((x, y) => floorRun.unitMs[y]! - floorRun.unitMs[x]!)
    .slice(0, 8)) {
    const u = units[i]!;
    const first = u.statements.find((r) => !begins.test(r.s)) ?? u.statements[0]!;
    console.log(
      `  ${fmtMs(floorRun.unitMs[i]!).padStart(7)} ms  unit ${i} of ${units.length}, ${u.statements.length} statements: ${first.s.replace(/\s+/g, ' ').slice(0, 100)}`,
    );
  }
}
if (pglite) {
  // What one session allows at best: the replay's units at random, one at a time, nothing else. The
  // replay's second half only: its first half warms PGlite's cache on the fresh copy (the run warms up too).
  const half = Math.floor(units.length / 2);
  const warm = { units: units.slice(half), ms: floorRun.unitMs.slice(half), events: recordedEvents / 2 };
  const at = Math.round(0.6 * floorRate);
  const p99At = (readsFirst: boolean) => fmtMs(readP99(warm.units, warm.ms, warm.events, at, readsFirst));
  const best = (readsFirst: boolean) =>
    highestRate(warm.units, warm.ms, warm.events, mix.lookup.bound, readsFirst, floorRate);
  console.log(
    `one session and nothing else (bench/oneSession.ts): reads' p99 at 0.6 × floor (${fmtInt(at)} events/s) ` +
      `${p99At(false)} ms first come first served, ${p99At(true)} ms reads first; the highest rate with reads' ` +
      `p99 within the look-up's ${mix.lookup.bound} ms: ${fmtInt(best(false))} and ${fmtInt(best(true))} events/s`,
  );
}

// ---- the mix at rising rates ------------------------------------------------------------------------
const steps: Step[] = [];
/** `--profile DIR`: the run's server processes write CPU profiles there (as they exit). */
const profile = a.get('profile');
// The day's T+N run falls in the first steps: the job starts it at the minute after the warm-up's end.
const run = await serve('run', {
  tnRunAt: new Date(Date.now() + warmupSeconds * 1000),
  nodeArgs: [
    ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
    ...(a.has('stalls') ? ['--import', './bench/stalls.mjs'] : []),
  ],
});
const stepStarts: number[] = [];
/** The same moments on `performance.now()`'s clock, for the import's and the slow events' places in them. */
const stepStartsPerf: number[] = [];
let tnRuns: Awaited<ReturnType<typeof day.tnRuns>> = [];
/** The day's statement import, started with the third step (or after the steps, when they end sooner). */
const importStep = 3;
let importing: { step: number; report: Promise<StatementImportReport | Error> } | undefined;
/** The import, its failure kept (not thrown while the steps run) to be reported with it. */
const statementImport = () =>
  day.statementImport().catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
try {
  console.log(
    `\nsteps of ${stepSeconds} s (or until each class has had 100 events) from ${start} events/s, ×${factor} each, ` +
      `until a class's p99 passes its bound\n`,
  );
  if (warmupSeconds) await step(start, warmupSeconds); // unreported: connections, caches, JIT
  console.log(header);
  console.log(`|${' --- |'.repeat(classes.length + 5)}`);
  for (let rate = start; rate <= maxRate; rate = Math.round(rate * factor)) {
    stepStarts.push(Date.now());
    stepStartsPerf.push(performance.now());
    if (stepStarts.length === importStep) importing = { step: importStep, report: statementImport() };
    const s = await step(rate, secondsAt(rate));
    steps.push(s);
    console.log(line(s));
    if (!s.held) {
      const slow = s.slowest.map((e) => `${e.c} ${fmtMs(e.ms)} ms due at ${(e.dueMs / 1000).toFixed(1)} s`);
      console.log(`slowest of that step: ${slow.join(' · ')}`);
      break;
    }
  }
  importing ??= { step: 0, report: statementImport() };
  const r = await importing.report;
  if (r instanceof Error) throw r;
  console.log(
    `statement import during the day (${importing.step ? `step ${importing.step}` : 'after the steps'}): ` +
      `${r.withUtr} credits with payers' UTRs and ${r.others} other lines; imported in ${fmtMs(r.importMs)} ms ` +
      `(${r.counts.new} new, ${r.counts.ready} ready, ${r.counts.exceptions} exceptions); posted with a Google code in ` +
      `${fmtMs(r.postMs)} ms: ${r.paid} orders paid, ${r.refused} refused${r.approval ? ', the rest waiting for approval' : ''}`,
  );
  if (importing.step) {
    const into = (t: number) => `${((t - stepStartsPerf[importing!.step - 1]!) / 1000).toFixed(1)} s`;
    console.log(
      `  into its step: asked at ${into(r.at.start)}, signed in at ${into(r.at.signedIn)}, posted at ${into(r.at.posted)}`,
    );
  }
  tnRuns = await day.tnRuns();
} finally {
  await run.stop();
  day.closeReceiver();
}
for (const r of tnRuns) {
  const started = Date.parse(r.startedAt);
  const inStep = stepStarts.findLastIndex((t) => t <= started) + 1;
  const took = r.finishedAt ? `${((Date.parse(r.finishedAt) - started) / 1000).toFixed(1)} s` : 'unfinished';
  console.log(
    `T+N run during the day: ${r.startedAt.slice(11, 19)} UTC (${inStep ? `step ${inStep}` : 'before the steps'}), ` +
      `${r.merchants} merchants, ${r.lines} lines, ${r.amountReleased} released, ${took}, ${r.outcome}`,
  );
}
if (!tnRuns.length) console.log('T+N run during the day: none (the steps ended before the job ran it)');
console.log(`callbacks answered by the receiver (all phases): ${fmtInt(day.callbacks())}`);
const loadAtEnd = load();
for (const e of errorSamples) console.log(`error sample: ${e}`);

const sustained = steps.filter((s, i) => s.held && steps.slice(0, i).every((x) => x.held)).at(-1);
console.log(
  `\n${version} · ${fmtInt(count)} orders · ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · load ${loadAtStart} → ${loadAtEnd}`,
);
const floorLine = pglite
  ? `floor: ${fmtInt(floorRate)} events/s (the recorded statements replayed on PGlite, one session in one process)`
  : `floor: ${fmtInt(floorRate)} events/s (the recorded statements replayed, ${cores} streams on ${cores} copies)`;
const rate = sustained?.offered ?? 0;
if (!sustained)
  console.log(`no step held: even ${fmtInt(start)} events/s passes a bound (try a lower --start)`);
else {
  console.log(`sustainable: ${fmtInt(rate)} events/s (the last step where every class held)`);
  for (const c of chosen) {
    const f = sustained.byClass[c];
    console.log(
      `  ${c.padEnd(10)} p50 ${fmtMs(f.p50).padStart(7)} ms  p99 ${fmtMs(f.p99).padStart(7)} ms  (bound ${mix[c].bound} ms, ${fmtInt(f.n)} events)`,
    );
  }
}
console.log(floorLine);
console.log(
  `day: ${fmtInt(rate)} events/s = ${(rate / floorRate).toFixed(2)} × floor (${fmtInt(floorRate)} events/s)`,
);
