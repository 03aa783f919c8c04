/**
 * What the built server saves (issue 16): the server as `npm start` runs it (dist/server/main.mjs, built
 * by scripts/ensure-build.mjs) against the TypeScript under tsx (`npm run dev`'s way, what `npm start` ran
 * before), started alternately on the same data: the time from spawn to "listening" (every worker up),
 * the resident memory of the server's processes once up and after a burst of signed-in calls, and the
 * rate of a trivial signed-in call (`GET /api/auth/info`, c=10, 5 s).
 *
 *   npx tsx bench/start.ts --dir bench/out/pg-1m --url postgres://postgres@127.0.0.1:5432/bench
 *   npx tsx bench/start.ts --dir bench/out/start-pglite        (PGlite, a folder of its own)
 * Options: --runs 5 (each side), --workers N (PostgreSQL, default 2).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { args, benchAdminPassword, load, openBench, signIn, startServer, target } from './common.ts';

const a = args();
const t = target(a);
const runs = Number(a.get('runs') ?? 5);
const workers = a.get('workers') ?? (t.url ? '2' : '1');

// The data folder and schema exist before the first timed start (a first start migrates and bootstraps).
await (await openBench(t)).database.close();
execFileSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'inherit' });

/** Resident memory of a process and its children (the cluster's workers), MiB. */
function rssMiB(pid: number): number {
  const pids = [pid];
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    if (children) pids.push(...children.split(/\s+/).map(Number));
  } catch {}
  let kb = 0;
  for (const p of pids) {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
    kb += Number(m?.[1] ?? 0);
  }
  return kb / 1024;
}

interface Sample {
  startMs: number;
  rssUp: number;
  rssLoaded: number;
  rate: number;
}

async function once(tsx: boolean): Promise<Sample> {
  const began = performance.now();
  const server = await startServer({ dir: t.dir, url: t.url, tsx, env: { WORKERS: workers } });
  const startMs = performance.now() - began;
  try {
    await new Promise((r) => setTimeout(r, 500));
    const rssUp = rssMiB(server.process.pid!);
    const token = await signIn(server.base, 'admin', benchAdminPassword);
    const result = await autocannon({
      url: `${server.base}/api/auth/info`,
      connections: 10,
      duration: 5,
      headers: { authorization: `Bearer ${token}` },
    });
    return { startMs, rssUp, rssLoaded: rssMiB(server.process.pid!), rate: result.requests.average };
  } finally {
    await server.stop();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor((s.length - 1) / 2)]!;
};
const fmt = (xs: number[], digits = 0) =>
  `median ${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

console.log(
  `${t.url ? 'PostgreSQL' : 'PGlite'} · WORKERS=${workers} · ${runs} starts each, alternately · load ${load()}`,
);
const built: Sample[] = [];
const viaTsx: Sample[] = [];
for (let i = 0; i < runs; i++) {
  built.push(await once(false));
  viaTsx.push(await once(true));
}
for (const [name, s] of [
  ['built (npm start)', built],
  ['tsx (before)', viaTsx],
] as const) {
  console.log(
    `${name.padEnd(18)} start ${fmt(s.map((x) => x.startMs))} ms · RSS up ${fmt(s.map((x) => x.rssUp))} MiB, ` +
      `after the calls ${fmt(s.map((x) => x.rssLoaded))} MiB · auth/info ${fmt(s.map((x) => x.rate))} req/s`,
  );
}
console.log(
  `built ÷ tsx: start ${(median(built.map((x) => x.startMs)) / median(viaTsx.map((x) => x.startMs))).toFixed(2)}, ` +
    `RSS ${(median(built.map((x) => x.rssLoaded)) / median(viaTsx.map((x) => x.rssLoaded))).toFixed(2)}, ` +
    `rate ${(median(built.map((x) => x.rate)) / median(viaTsx.map((x) => x.rate))).toFixed(2)} · load ${load()}`,
);
process.exit(0);
