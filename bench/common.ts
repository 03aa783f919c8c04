/**
 * What the benchmarks share: the command line, the bench database (a PGlite data folder, or PostgreSQL
 * with the same folder holding the server key), the server started as a person starts it, the engine's
 * version, and statistics.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { canonicalString } from '../contract/gateway.ts';
import { loadConfig } from '../server/config.ts';
import { type Database, type Db, openDatabase } from '../server/db/index.ts';
import type { Deps } from '../server/deps.ts';
import { systemClock } from '../server/lib/clock.ts';
import { hmacHex, sealer } from '../server/lib/crypto.ts';
import { createLogger } from '../server/lib/logger.ts';
import { createMailer } from '../server/lib/mail.ts';
import { rateLimiter } from '../server/lib/rateLimit.ts';

export const root = join(import.meta.dirname, '..');

/** The platform user the benchmarks sign in as (created by the seed's bootstrap). */
export const benchAdminPassword = 'Bench12345!';
/** Seeded merchants are M20001 … M20050; the first is the large one. */
export const largeMerchantCode = 'M20001';
/** Orders the creation benchmark makes carry this merchant order number prefix (and are removed after). */
export const createdPrefix = 'BENCH-';
/** Every callback address in the bench data is a closed port on loopback: nothing leaves the machine. */
export const loopbackNotify = 'http://127.0.0.1:9/callback';

export function args(argv = process.argv.slice(2)) {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) out.set(a.slice(2), 'true');
    else {
      out.set(a.slice(2), next);
      i++;
    }
  }
  return out;
}

export interface BenchTarget {
  /** The data folder: PGlite's files (`pgdata/`) and, for both engines, the server key (`app.key`). */
  dir: string;
  /** PostgreSQL URL; absent for PGlite. */
  url: string | undefined;
}

export function target(a: Map<string, string>): BenchTarget {
  const dir = a.get('dir');
  if (!dir) throw new Error('--dir <data folder> is required (PGlite files and the server key live there)');
  return { dir: resolve(dir), url: a.get('url') };
}

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => done(p));
    });
  });
}

export interface BenchServer {
  base: string;
  process: ChildProcess;
  /** SIGTERM (a graceful stop), SIGKILL after 15 s. */
  stop(): Promise<void>;
  /** SIGKILL to the server's whole process group (its workers too), as a crash: nothing is let finish. */
  kill(): Promise<void>;
}

/**
 * `server/main.ts` in its own process on the loopback interface, without the demo, as a person starts it
 * (node itself, not npx, which does not pass SIGTERM on), on `dir` (and the database `url`), `env` added.
 * Up when it says so on its output: after every worker listens.
 */
export async function startServer(opts: {
  dir: string;
  url?: string | undefined;
  env?: Record<string, string>;
  /** Node's own options (a CPU profile, say). */
  nodeArgs?: readonly string[];
  /** The TypeScript under tsx (`npm run dev`'s way) instead of the built server `npm start` runs. */
  tsx?: boolean;
}): Promise<BenchServer> {
  const port = await freePort();
  // As `npm start` runs it: the built server, brought up to date first.
  if (!opts.tsx)
    execFileSync(process.execPath, ['scripts/ensure-build.mjs'], { cwd: root, stdio: 'inherit' });
  const entry = opts.tsx
    ? ['--import', 'tsx', 'server/main.ts']
    : ['--enable-source-maps', join('dist', 'server', 'main.mjs')];
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...entry], {
    cwd: root,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: opts.dir,
      DATABASE_URL: opts.url ?? '',
      DEMO: '0',
      SIMULATOR: '1', // the bench's channel; callbacks go to its loopback receiver
      CALLBACK_ALLOW_PRIVATE: '1',
      LOG_LEVEL: 'warn',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    // A process group of its own, so that a crash kills the workers with it.
    detached: true,
  });
  // Detached, it would outlive this process: it goes when this process does, whatever ends it.
  const orphan = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  };
  process.once('exit', orphan);
  child.once('exit', () => process.off('exit', orphan));
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  let said = '';
  /** How much of `said` was looked through for errors (whole lines only). */
  let read = 0;
  child.stdout!.on('data', (d) => {
    said += d;
    // The server's errors (its log at level 50), where a benchmark's run shows its failures' causes.
    const end = said.lastIndexOf('\n') + 1;
    for (const l of said.slice(read, end).split('\n'))
      if (l.includes('"level":50')) process.stderr.write(`[server] ${l}\n`);
    read = Math.max(read, end);
  });
  for (let i = 0; !said.includes('Database:'); i++) {
    if (i > 600 || child.exitCode !== null) {
      await stop();
      throw new Error('the server did not start');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { base: `http://127.0.0.1:${port}`, process: child, stop, kill };
}

/**
 * A fresh copy of the PostgreSQL database `url` named `<its name>_<suffix>` (replaced if there), by a file
 * copy: seconds for a million orders, and the source keeps its state for the next copy. Nothing may be
 * connected to the source meanwhile (its connections are ended).
 */
/** Runs `work` on a connection to the `postgres` database of the server `url` names (creating, dropping). */
export async function onServer(url: string, work: (admin: pg.Client) => Promise<unknown>): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const c = new pg.Client({ connectionString: admin.toString() });
  await c.connect();
  try {
    await work(c);
  } finally {
    await c.end();
  }
}

export async function copyDatabase(
  url: string,
  suffix: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = new URL(url).pathname.slice(1);
  const copy = `${name}_${suffix}`;
  const run = (fn: (c: pg.Client) => Promise<unknown>) => onServer(url, fn);
  const id = (n: string) => `"${n.replaceAll('"', '""')}"`;
  await run(async (c) => {
    await c.query(`drop database if exists ${id(copy)} with (force)`);
    await c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
    await c.query(`create database ${id(copy)} template ${id(name)} strategy file_copy`);
  });
  const target = new URL(url);
  target.pathname = `/${copy}`;
  return {
    url: target.toString(),
    drop: () => run((c) => c.query(`drop database if exists ${id(copy)} with (force)`)),
  };
}

/**
 * A fresh copy of the bench's seeded database, `suffix` naming it: PostgreSQL's by `copyDatabase` (the
 * server's folder stays `t.dir`), PGlite's folder copied beside it (`<dir>-<suffix>`, its key files too).
 * `name`: the PostgreSQL database whose backends' CPU counts.
 */
export async function copyTarget(
  t: BenchTarget,
  suffix: string,
): Promise<{ dir: string; url?: string; name?: string; drop(): Promise<void> }> {
  if (t.url) {
    const copy = await copyDatabase(t.url, suffix);
    return { dir: t.dir, url: copy.url, name: new URL(copy.url).pathname.slice(1), drop: copy.drop };
  }
  const dir = `${t.dir}-${suffix}`;
  rmSync(dir, { recursive: true, force: true });
  cpSync(t.dir, dir, { recursive: true });
  return { dir, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** Signs a user in through the API, as the console does; answers the session token. */
export async function signIn(base: string, username: string, password: string): Promise<string> {
  const answer = (await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  }).then((r) => r.json())) as { errno: number; data: { token: string } };
  if (answer.errno !== 0) throw new Error(`sign-in of ${username} failed: ${JSON.stringify(answer)}`);
  return answer.data.token;
}

/**
 * The headers of a gateway request signed as GATEWAY.md says (a fresh nonce, the time now), for a
 * merchant's code and API secret.
 */
export function gatewayHeaders(
  merchantCode: string,
  apiSecret: string,
  method: 'GET' | 'POST',
  path: string,
  body: string,
): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(12).toString('base64url');
  return {
    'content-type': 'application/json',
    'x-merchant-id': merchantCode,
    'x-timestamp': timestamp,
    'x-nonce': nonce,
    'x-signature': hmacHex(apiSecret, canonicalString(timestamp, nonce, method, path, body)),
  };
}

/** Deps as the server builds them (main.ts), on the bench database, with the data folder's key. */
export async function openBench(t: BenchTarget, poolSize = 4): Promise<Deps> {
  const config = loadConfig({
    ...process.env,
    DATA_DIR: t.dir,
    DATABASE_URL: t.url ?? '',
    DEMO: '0',
    SIMULATOR: '1',
  });
  const database: Database = await openDatabase({ url: t.url, dataDir: t.dir, poolSize });
  return {
    config: { ...config, adminPassword: benchAdminPassword, demo: false },
    database,
    clock: systemClock,
    mailer: createMailer({ smtpUrl: undefined, from: config.mailFrom, db: () => database.db }),
    sealer: sealer(config.appKey),
    logger: createLogger('warn'),
    authLimiter: rateLimiter({ limit: 30, windowMs: 5 * 60_000, now: () => Date.now() }),
  };
}

/** Rows of a raw `db.execute` on either driver. */
export function rows<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}

export async function one<T>(db: Db, query: ReturnType<typeof sql>): Promise<T> {
  return rows<T>(await db.execute(query))[0]!;
}

/** The driver under drizzle (PGlite or a pg Pool): both take `query(text, params)`. */
export function rawClient(db: Db): { query(text: string, params?: unknown[]): Promise<unknown> } {
  return (db as unknown as { $client: { query(text: string, params?: unknown[]): Promise<unknown> } })
    .$client;
}

export async function engineVersion(database: Database): Promise<string> {
  const { version } = await one<{ version: string }>(database.db, sql`select version()`);
  const short = version.split(' on ')[0]!.split(',')[0]!;
  if (database.engine === 'pglite') {
    const pkg = JSON.parse(
      readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
    ) as { version: string };
    return `PGlite ${pkg.version} (${short})`;
  }
  return short;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export interface Timing {
  n: number;
  median: number;
  p95: number;
}

export function summary(ms: readonly number[]): Timing {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, median: percentile(s, 50), p95: percentile(s, 95) };
}

/** Runs `fn` `warmup` times unmeasured, then `n` times measured; answers the timings in ms. */
export async function timeIt(n: number, fn: (i: number) => Promise<unknown>, warmup = 20): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    ms.push(performance.now() - t0);
  }
  return summary(ms);
}

export const fmtMs = (ms: number) => (ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
export const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
export const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');

/** A small deterministic generator (mulberry32), so a seed with the same `--seed` makes the same data. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// ---- CPU time per process (Linux /proc), to tell apart what the server, the database and the load cost --

const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux

/** User + system CPU time of a process so far, in ms (0 when it is gone). */
export function cpuMsOf(pid: string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / ticksPerMs;
  } catch {
    return 0;
  }
}

function parentOf(pid: string): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? '';
  } catch {
    return '';
  }
}

const allPids = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p));

/** A process and all its descendants (a cluster's workers). */
export function processTree(pid: number): string[] {
  const found = new Set([String(pid)]);
  const pids = allPids();
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of pids)
      if (!found.has(p) && found.has(parentOf(p))) {
        found.add(p);
        grew = true;
      }
  }
  return [...found];
}

/** PostgreSQL's backends serving database `name` (their command line names it). */
export function postgresBackends(name: string): string[] {
  return allPids().filter((p) => {
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').replaceAll('\0', ' ');
      return cmd.startsWith('postgres') && cmd.includes(` ${name} `);
    } catch {
      return false;
    }
  });
}

/**
 * CPU spent by the server's processes, the database's backends and this process while `run` runs, in µs
 * per call (`calls()` read after the run).
 */
export async function cpuPerCall<T>(
  server: number,
  /** The database (or databases) whose backends' CPU counts. */
  database: string | readonly string[] | undefined,
  run: () => Promise<T>,
  calls: (r: T) => number,
): Promise<{ result: T; server: number; database: number; load: number }> {
  const snapshot = (pids: string[]) => new Map(pids.map((p) => [p, cpuMsOf(p)]));
  const backends = () => [database ?? []].flat().flatMap((name) => postgresBackends(name));
  const before = { server: snapshot(processTree(server)), db: snapshot(backends()), me: process.cpuUsage() };
  const result = await run();
  const me = process.cpuUsage(before.me);
  // What each process still there spent since (all of it for one that started meanwhile); a backend that
  // ended meanwhile (an idle pooled connection closing) is left out.
  const spent = (was: Map<string, number>, pids: string[]) =>
    pids.reduce((s, p) => s + cpuMsOf(p) - (was.get(p) ?? 0), 0);
  const n = Math.max(1, calls(result));
  const perCall = (ms: number) => Math.round((ms * 1000) / n);
  return {
    result,
    server: perCall(spent(before.server, processTree(server))),
    database: perCall(spent(before.db, backends())),
    load: perCall((me.user + me.system) / 1000),
  };
}

/** Latencies of calls and the CPU a call cost (µs): PostgreSQL's backends, and the node process doing the work. */
export type CallTiming = {
  median: number;
  p95: number;
  p99: number;
  cpu: { database: number; node: number };
};

/**
 * Latencies of `n` calls after `warmup`, and the CPU a call cost PostgreSQL's backends (of `database`) and
 * `node` (this process, or the server's with its workers): what stays put when the machine is busy,
 * where latencies do not.
 */
export async function timeCalls(
  n: number,
  fn: (i: number) => Promise<unknown>,
  opts: { database: string | undefined; warmup?: number; node?: number },
): Promise<CallTiming> {
  for (let i = 0; i < (opts.warmup ?? 20); i++) await fn(i);
  const out: number[] = [];
  const cpu = await cpuPerCall(
    opts.node ?? process.pid,
    opts.database,
    async () => {
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        await fn(i);
        out.push(performance.now() - t0);
      }
    },
    () => n,
  );
  out.sort((x, y) => x - y);
  return {
    median: percentile(out, 50),
    p95: percentile(out, 95),
    p99: percentile(out, 99),
    cpu: { database: cpu.database, node: cpu.server },
  };
}

/** A line of a timing: percentiles, CPU a call, its p95 against the floor's and the target, when given. */
export function printTiming(
  name: string,
  tm: CallTiming,
  opts: { floor?: CallTiming; target?: number; width?: number } = {},
) {
  const { floor, target: tgt } = opts;
  console.log(
    `${name.padEnd(opts.width ?? 58)} p50 ${fmtMs(tm.median).padStart(7)} ms  p95 ${fmtMs(tm.p95).padStart(7)} ms  p99 ${fmtMs(tm.p99).padStart(7)} ms` +
      `  CPU µs a call: PostgreSQL ${fmtInt(tm.cpu.database)} · node ${fmtInt(tm.cpu.node)}` +
      (floor ? `  p95 ${(tm.p95 / floor.p95).toFixed(1)}× floor` : '') +
      (tgt === undefined ? '' : `  (target p95 ≤ ${tgt} ms)${tm.p95 <= tgt ? ' ✓' : ' ✗'}`),
  );
}
