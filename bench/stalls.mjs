/**
 * `bench/day.ts --stalls`: preloaded into the run's server (`node --import ./bench/stalls.mjs`), it prints
 * to stderr, as `[stall]` lines with the time, what could hold every request at once: the main thread's
 * event loop late by `STALL_MS` (50) or more, a garbage collection of 20 ms or more in either thread, and a
 * call into PGlite (in its thread) that took `STALL_MS` or more, with the start of its statement.
 */

import { basename } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { loadInPgliteThread } from './pgliteThreadPreload.mjs';

const limit = Number(process.env.STALL_MS ?? 50);
// The process by its script (the server's main.mjs, or the load generator's day.ts), then the thread.
const thread = `${basename(process.argv[1] ?? '')} ${isMainThread ? 'main thread' : 'PGlite thread'}`;
const say = (what) => process.stderr.write(`[stall] ${new Date().toISOString().slice(11, 23)} ${what}\n`);

new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    if (e.duration >= 20) say(`${thread}: garbage collection ${e.duration.toFixed(0)} ms`);
}).observe({ entryTypes: ['gc'] });

if (isMainThread) {
  loadInPgliteThread(import.meta.url);
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last - 10 >= limit) say(`${thread}: event loop ${(now - last - 10).toFixed(0)} ms late`);
    last = now;
  }, 10).unref();
}

const raw = PGlite.prototype.execProtocolRaw;
const text = new TextDecoder();
PGlite.prototype.execProtocolRaw = async function (message, options) {
  const t0 = performance.now();
  const answer = await raw.call(this, message, options);
  const ms = performance.now() - t0;
  if (ms >= limit) {
    const b = message instanceof Uint8Array ? message : new Uint8Array(message);
    // The statement's text, from its Parse or Query message (the bytes that are not printable ASCII dropped).
    const sql = text
      .decode(b.subarray(0, 400))
      .replace(/[^ -~]+/g, ' ')
      .trim()
      .slice(0, 160);
    say(`PGlite call ${ms.toFixed(0)} ms: ${sql}`);
  }
  return answer;
};
