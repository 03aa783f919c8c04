/**
 * `bench/day.ts --stalls`: preloaded into the run's server (`node --import ./bench/stalls.mjs`), it prints
 * to stderr, as `[stall]` lines with the time, what could hold every request at once: the main thread's
 * event loop late by `STALL_MS` (50) or more, a garbage collection of 20 ms or more in either thread, a
 * call into PGlite (in its thread) that took `STALL_MS` or more, with the start of its statement, and a
 * transaction that held PGlite's session four times that long, with the longest wait between its calls
 * (the session held while the server did something else).
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
/** A simple Query message's text at the start of `b` (a transaction's BEGIN, COMMIT or ROLLBACK). */
const query = (b) => (b[0] === 0x51 ? text.decode(b.subarray(5, 13)) : '');
/** The open transaction: since when, its calls, their time in the database, the longest wait between two. */
let open;
let lastEnd = 0;
let lastSql = '';
PGlite.prototype.execProtocolRaw = async function (message, options) {
  const b = message instanceof Uint8Array ? message : new Uint8Array(message);
  const t0 = performance.now();
  if (!open && query(b).startsWith('BEGIN')) open = { at: t0, calls: 0, db: 0, wait: 0, after: '' };
  else if (open && t0 - lastEnd > open.wait) open = { ...open, wait: t0 - lastEnd, after: lastSql };
  const answer = await raw.call(this, message, options);
  lastEnd = performance.now();
  const ms = lastEnd - t0;
  // The statement's text, from its Parse or Query message (the bytes that are not printable ASCII dropped).
  lastSql = text
    .decode(b.subarray(0, 400))
    .replace(/[^ -~]+/g, ' ')
    .trim()
    .slice(0, 160);
  if (ms >= limit) say(`PGlite call ${ms.toFixed(0)} ms: ${lastSql}`);
  if (open) {
    open.calls++;
    open.db += ms;
    const end = query(b);
    if (end.startsWith('COMMIT') || end.startsWith('ROLLBACK')) {
      const held = lastEnd - open.at;
      if (held >= 4 * limit)
        say(
          `PGlite transaction held ${held.toFixed(0)} ms: ${open.calls} calls, ${open.db.toFixed(0)} ms in the ` +
            `database, the longest wait between two ${open.wait.toFixed(0)} ms, after: ${open.after}`,
        );
      open = undefined;
    }
  }
  return answer;
};
