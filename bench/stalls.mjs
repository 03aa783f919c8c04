/**
 * `bench/day.ts --stalls`: preloaded into the run's server (`node --import ./bench/stalls.mjs`), it prints
 * to stderr, as `[stall]` lines with the time, what could hold every request at once: the main thread's
 * event loop late by `STALL_MS` (50) or more, a garbage collection of 20 ms or more in either thread, a
 * call into PGlite (in its thread) that took `STALL_MS` or more, with the start of its statement, and a
 * transaction that held PGlite's session four times that long, with the longest wait between its calls
 * (the session held while the server did something else), and HTTP requests answered that late, on the
 * server's side and on the generator's (when it got its socket and sent). With `STALL_EVERY_SECOND=1`, a
 * line a second from each thread besides: how busy, its heap, the requests in flight, PGlite's share in calls.
 */

import { subscribe } from 'node:diagnostics_channel';
import { basename } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
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
  // HTTP, on both sides: a request the server answered 4 × `STALL_MS` or more after its headers arrived,
  // and one the generator waited for that long, with when it got a socket (kept alive or new) and was sent.
  const times = new WeakMap();
  const slow = (at) => performance.now() - at >= 4 * limit;
  const ms = (t) => `${t === undefined ? '?' : t.toFixed(0)} ms`;
  subscribe('http.server.request.start', ({ request }) => times.set(request, performance.now()));
  subscribe('http.server.response.finish', ({ request }) => {
    const at = times.get(request);
    if (at !== undefined && slow(at))
      say(
        `${thread}: ${request.method} ${request.url.split('?')[0]} answered ${ms(performance.now() - at)} after its headers`,
      );
  });
  subscribe('http.client.request.start', ({ request }) => {
    const t = { at: performance.now() };
    times.set(request, t);
    const assigned = (socket) => {
      t.socket = performance.now() - t.at;
      t.fresh = socket.connecting;
    };
    // Published as the request is ended: its socket may be assigned already.
    if (request.socket) assigned(request.socket);
    else request.once('socket', assigned);
    request.once('finish', () => {
      t.sent = performance.now() - t.at;
    });
  });
  subscribe('http.client.response.finish', ({ request }) => {
    const t = times.get(request);
    if (t && slow(t.at))
      say(
        `${thread}: ${request.method} ${request.path.split('?')[0]} answered ${ms(performance.now() - t.at)} after it ` +
          `was made; a socket after ${ms(t.socket)} (${t.fresh ? 'new' : 'kept alive'}), sent after ${ms(t.sent)}`,
      );
  });
  // With STALL_EVERY_SECOND=1, each second: the main thread's busy share, the process's CPU (both
  // threads: up to 200 %), and the HTTP requests in flight at the end and at most during the second.
  if (process.env.STALL_EVERY_SECOND) {
    let inFlight = 0;
    let most = 0;
    subscribe('http.server.request.start', () => {
      most = Math.max(most, ++inFlight);
    });
    subscribe('http.server.response.finish', () => inFlight--);
    let elu = performance.eventLoopUtilization();
    let cpu = process.cpuUsage();
    setInterval(() => {
      const e = performance.eventLoopUtilization(elu);
      const c = process.cpuUsage(cpu);
      elu = performance.eventLoopUtilization();
      cpu = process.cpuUsage();
      say(
        `${thread}: busy ${(100 * e.utilization).toFixed(0)} %, process CPU ${((c.user + c.system) / 1e4).toFixed(0)} %, ` +
          `requests in flight ${inFlight} (at most ${most}), heap ${(getHeapStatistics().used_heap_size / 2 ** 20).toFixed(0)} MB`,
      );
      most = inFlight;
    }, 1000).unref();
  }
}
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  if (now - last - 10 >= limit) say(`${thread}: event loop ${(now - last - 10).toFixed(0)} ms late`);
  last = now;
}, 10).unref();

const raw = PGlite.prototype.execProtocolRawStream;
const text = new TextDecoder();
/** A simple Query message's text at the start of `b` (a transaction's BEGIN, COMMIT or ROLLBACK). */
const query = (b) => (b[0] === 0x51 ? text.decode(b.subarray(5, 13)) : '');
/** The open transaction: since when, its calls, their time in the database, the longest wait between two. */
let open;
let lastEnd = 0;
let lastSql = '';
/** This second's time in calls, in transactions (calls and waits between them), and calls. */
const second = { call: 0, held: 0, calls: 0, openedAt: 0 };
if (!isMainThread && process.env.STALL_EVERY_SECOND)
  setInterval(() => {
    const now = performance.now();
    // A transaction open across the second's end counts in the second it is in.
    if (open) second.held += now - Math.max(open.at, second.openedAt);
    const h = getHeapStatistics();
    say(
      `${thread}: in calls ${(second.call / 10).toFixed(0)} %, in transactions ${(second.held / 10).toFixed(0)} %, ` +
        `${second.calls} calls, heap ${(h.used_heap_size / 2 ** 20).toFixed(0)} of ${(h.total_heap_size / 2 ** 20).toFixed(0)} MB, ` +
        `external ${(h.external_memory / 2 ** 20).toFixed(0)} MB`,
    );
    Object.assign(second, { call: 0, held: 0, calls: 0, openedAt: now });
  }, 1000).unref();
PGlite.prototype.execProtocolRawStream = async function (message, options) {
  const b = message instanceof Uint8Array ? message : new Uint8Array(message);
  const t0 = performance.now();
  if (!open && query(b).startsWith('BEGIN')) open = { at: t0, calls: 0, db: 0, wait: 0, after: '' };
  else if (open && t0 - lastEnd > open.wait) Object.assign(open, { wait: t0 - lastEnd, after: lastSql });
  const answer = await raw.call(this, message, options);
  lastEnd = performance.now();
  const ms = lastEnd - t0;
  second.call += ms;
  second.calls++;
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
      second.held += lastEnd - Math.max(open.at, second.openedAt);
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
