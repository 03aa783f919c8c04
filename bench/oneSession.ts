/**
 * What one session allows at best (bench/day.ts on PGlite): the replay's units (each transaction or single
 * statement, with the time it took in the replay) arriving at random (Poisson, in the recording's mix) at a
 * given rate, served one at a time with nothing else: no HTTP, no JavaScript, no event loop, no gaps
 * inside a transaction. A read (a single select: a list page, a look-up, a report) waits for the unit in
 * the session and, first come first served, for those queued before it; served before queued transactions
 * (the best a server could order them), only for the unit in the session and reads before it. Its p99
 * there is a floor under any server's look-up p99 on that engine at that rate.
 */
import { percentile, prng } from './common.ts';
import type { Unit } from './replay.ts';

const reads = /^\s*select\b/i;

/**
 * Reads' p99 latency (ms) with `units` arriving at `eventsPerSecond` (the recording held `events`
 * events), each taking its `unitMs`; `readsFirst`: reads served before waiting transactions.
 */
export function readP99(
  units: readonly Unit[],
  unitMs: readonly number[],
  events: number,
  eventsPerSecond: number,
  readsFirst: boolean,
  rounds = 20,
): number {
  const isRead = units.map(
    (u) => !u.transaction && u.statements.length === 1 && reads.test(u.statements[0]!.s),
  );
  /** Mean gap between units (ms). */
  const gap = 1000 / ((eventsPerSecond * units.length) / events);
  const random = prng(31); // the same arrivals each run
  const latencies: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let t = 0;
    const arrivals = units.map(() => (t += -Math.log(1 - random()) * gap));
    // Served one at a time: the first waiting read (readsFirst), else the first waiting unit.
    let free = 0;
    let next = 0;
    const waiting: number[] = [];
    while (next < units.length || waiting.length) {
      if (!waiting.length) free = Math.max(free, arrivals[next]!);
      while (next < units.length && arrivals[next]! <= free) waiting.push(next++);
      const pick = readsFirst
        ? Math.max(
            0,
            waiting.findIndex((i) => isRead[i]),
          )
        : 0;
      const i = waiting.splice(pick, 1)[0]!;
      free += unitMs[i]!;
      if (isRead[i]) latencies.push(free - arrivals[i]!);
    }
  }
  return percentile(
    latencies.sort((a, b) => a - b),
    99,
  );
}

/** The highest rate (events/s, to 1) at which reads' p99 stays within `bound` ms, by bisection. */
export function highestRate(
  units: readonly Unit[],
  unitMs: readonly number[],
  events: number,
  bound: number,
  readsFirst: boolean,
  floorRate: number,
): number {
  let lo = 0;
  let hi = Math.ceil(floorRate);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (readP99(units, unitMs, events, mid, readsFirst) <= bound) lo = mid;
    else hi = mid;
  }
  return lo;
}
