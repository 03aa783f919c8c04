/**
 * Export benchmark on a database seeded by bench/seed-orders.ts (1,000,000 pay-ins over 60 days):
 *  (a) the server's streaming function itself (`exportStream` over `payinSource`, the export handler's
 *      code without HTTP) over every order of the 60 days, as CSV and as XLSX, into a sink that takes
 *      bytes as fast as they come: rows per second, and this process's RSS sampled every 100 ms (its
 *      peak, and how far it rose above the level before the export). The one-week limit is the
 *      endpoint's; the function has none, so this covers all 1,000,000 rows;
 *  (b) `GET /api/merchantOrder/export` over HTTP for the last 7 days (every merchant, the endpoint's
 *      widest allowed period) against server/main.ts in its own process (DEMO=0, LOG_LEVEL=warn),
 *      CSV and XLSX, once read as fast as possible and once by a client that reads 2 MB per second:
 *      rows per second and the server's RSS (VmRSS every 100 ms; VmHWM reset before each run).
 *
 *   npx tsx bench/export.ts --dir bench/out/dash-pglite-1m
 *   npx tsx bench/export.ts --dir bench/out/dash-pg-1m --url postgres://postgres@127.0.0.1:5432/bench_dash
 *  (f) the floor (--only f): the export's batch query alone, a bare SELECT of the same columns and the
 *      keyset alone over all 1,000,000 orders, nothing written.
 * Options: --only ab (or f, abf), --formats csv,xlsx, --slow-mbps 2 (0: no slow client).
 * Target (docs/PERFORMANCE.md): ≥ 100,000 rows per second, memory flat.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'drizzle-orm';
import { type ExportRow, payinSource } from '../server/modules/export/routes.ts';
import { type ExportFormat, type ExportSource, exportStream } from '../server/modules/export/stream.ts';

import {
  args,
  type BenchServer,
  benchAdminPassword,
  engineVersion,
  fmtInt,
  load,
  one,
  openBench,
  signIn,
  startServer,
  target,
} from './common.ts';

const a = args();
const t = target(a);
const only = new Set((a.get('only') ?? 'ab').split(''));
const formats = (a.get('formats') ?? 'csv,xlsx').split(',') as ExportFormat[];
const slowMbps = Number(a.get('slow-mbps') ?? 2);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

/** PGlite's `query(text, params, options)` or a pg pool's `query(config)`, rows as arrays. */
type RawArrays = {
  query(
    text: string | { text: string; values: unknown[]; rowMode: 'array' },
    values?: unknown[],
    o?: { rowMode: 'array' },
  ): Promise<{ rows: unknown[][] }>;
};

/** Samples a memory reading every 100 ms until stopped: the first reading, the peak, and a few on the way. */
function sampler(read: () => number) {
  const samples: number[] = [read()];
  const timer = setInterval(() => samples.push(read()), 100);
  return {
    stop() {
      clearInterval(timer);
      samples.push(read());
      const peak = Math.max(...samples);
      const at = (f: number) => samples[Math.min(samples.length - 1, Math.floor(f * samples.length))]!;
      return { start: samples[0]!, peak, quarters: [at(0.25), at(0.5), at(0.75), samples.at(-1)!] };
    },
  };
}

const deps = await openBench(t);
const { db } = deps.database;
const version = await engineVersion(deps.database);
const { n } = await one<{ n: string }>(db, sql`select count(*)::text as n from payin_orders`);
console.log(`${version} · ${fmtInt(Number(n))} pay-ins · load ${load()}`);

if (only.has('a')) {
  for (const format of formats) {
    const source = payinSource(db, undefined, new Date());
    let rows = 0;
    const counting: ExportSource<ExportRow> = {
      columns: source.columns,
      async batch(after, limit) {
        const b = await source.batch(after, limit);
        rows += b.rows.length;
        return b;
      },
    };
    let bytes = 0;
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done();
      },
    });
    global.gc?.();
    const memory = sampler(() => process.memoryUsage().rss);
    const started = performance.now();
    const first = await counting.batch(null, 2_000);
    await pipeline(
      exportStream(counting, first, format, 'en', (err) => {
        throw err;
      }),
      sink,
    );
    const seconds = (performance.now() - started) / 1000;
    const m = memory.stop();
    console.log(
      `direct ${format.toUpperCase().padEnd(4)} ${fmtInt(rows)} rows, ${mib(bytes)} MiB in ${seconds.toFixed(1)} s: ` +
        `${fmtInt(rows / seconds)} rows/s · RSS before ${mib(m.start)} MiB, peak ${mib(m.peak)} MiB ` +
        `(+${mib(m.peak - m.start)}), at 25/50/75/100 % ${m.quarters.map(mib).join(' / ')} MiB`,
    );
  }
}
if (only.has('f')) {
  // The floor: what reading the rows costs without writing a file. (1) the export's own batch query,
  // rows discarded; (2) a bare SELECT of the same order columns (no joins, no casts) in keyset batches;
  // (3) the keyset alone (creation time and id: what an index-only walk costs).
  const source = payinSource(db, undefined, new Date());
  const bare = `select o.created_at, o.id, o.order_no, o.merchant_order_no, o.merchant_id, o.channel_id,
    o.channel_order_id, o.currency, o.amount, o.paid_amount, o.fee, o.status, o.push_status, o.utr, o.paid_by,
    o.paid_at, o.callback_at from payin_orders o`;
  const keys = 'select o.created_at, o.id from payin_orders o';
  const client = (db as unknown as { $client: RawArrays }).$client;
  const arrays = async (text: string, values: unknown[]) =>
    deps.database.engine === 'pglite'
      ? (await client.query(text, values, { rowMode: 'array' })).rows
      : (await client.query({ text, values, rowMode: 'array' })).rows;
  const walk = async (select: string, size: number) => {
    let rows = 0;
    let after: unknown[] | null = null;
    for (;;) {
      const page: unknown[][] = after
        ? await arrays(
            `${select} where (o.created_at, o.id) < ($1, $2) order by o.created_at desc, o.id desc limit ${size}`,
            after,
          )
        : await arrays(`${select} order by o.created_at desc, o.id desc limit ${size}`, []);
      if (!page.length) return rows;
      rows += page.length;
      after = page.at(-1)!.slice(0, 2);
    }
  };
  const runs: [string, () => Promise<number>][] = [
    [
      'export batch query, 2,000 a batch',
      async () => {
        let rows = 0;
        let b = await source.batch(null, 2_000);
        while (b.rows.length) {
          rows += b.rows.length;
          b =
            b.last && b.rows.length === 2_000 ? await source.batch(b.last, 2_000) : { rows: [], last: null };
        }
        return rows;
      },
    ],
    ['bare SELECT of the columns, 2,000 a batch', () => walk(bare, 2_000)],
    ['bare SELECT of the columns, 10,000 a batch', () => walk(bare, 10_000)],
    ['keyset alone (created_at, id), 10,000 a batch', () => walk(keys, 10_000)],
  ];
  for (const [name, run] of runs) {
    const started = performance.now();
    const rows = await run();
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `floor: ${name}: ${fmtInt(rows)} rows in ${seconds.toFixed(1)} s: ${fmtInt(rows / seconds)} rows/s`,
    );
  }
}
await deps.database.close();

let server: BenchServer | undefined;
if (only.has('b')) {
  server = await startServer({ dir: t.dir, url: t.url });
  const { base } = server;
  const pid = server.process.pid!;
  const status = (field: 'VmRSS' | 'VmHWM') =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  try {
    const token = await signIn(base, 'admin', benchAdminPassword);
    const now = Date.now();
    const query = (format: ExportFormat) =>
      new URLSearchParams({
        from: new Date(now - 7 * 86_400_000).toISOString(),
        to: new Date(now).toISOString(),
        format,
      });
    let csvRows = 0;
    for (const format of formats) {
      for (const rate of slowMbps > 0 ? [0, slowMbps] : [0]) {
        // Reset the server's high-water mark (VmHWM), so the peak is this run's.
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
        const memory = sampler(() => status('VmRSS'));
        const started = performance.now();
        const res = await fetch(`${base}/api/merchantOrder/export?${query(format)}`, {
          headers: { 'admin-token': token },
        });
        if (!res.ok || !res.headers.get('content-disposition'))
          throw new Error(`export failed: ${await res.text()}`);
        let bytes = 0;
        let lines = 0;
        const reader = res.body!.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          bytes += value.length;
          if (format === 'csv') for (const b of value) if (b === 0x0a) lines++;
          if (rate > 0) {
            const due = started + (bytes / (rate * 1024 * 1024)) * 1000;
            const wait = due - performance.now();
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          }
        }
        const seconds = (performance.now() - started) / 1000;
        const m = memory.stop();
        if (format === 'csv') csvRows = lines - 1;
        const rows = format === 'csv' ? lines - 1 : csvRows;
        console.log(
          `HTTP ${format.toUpperCase().padEnd(4)} one week, ${rate ? `client at ${rate} MB/s` : 'fast client'}: ` +
            `${fmtInt(rows)} rows, ${mib(bytes)} MiB in ${seconds.toFixed(1)} s (${fmtInt(rows / seconds)} rows/s) · ` +
            `server RSS before ${mib(m.start)} MiB, peak ${mib(Math.max(m.peak, status('VmHWM')))} MiB ` +
            `(+${mib(Math.max(m.peak, status('VmHWM')) - m.start)}), at 25/50/75/100 % ${m.quarters.map(mib).join(' / ')} MiB`,
        );
      }
    }
  } finally {
    await server.stop();
  }
}

console.log(`done · load ${load()}`);
