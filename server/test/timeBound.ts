/**
 * A time bound for a test that proves "no blow-up" (a hostile file read in linear time, a refusal at
 * once): the bound a quiet machine meets with margin, stretched by how far the machine is over-committed
 * right now (the 1-minute load average per core, at least 1). CI runs vitest and the browser suite side by
 * side on 2 cores (load 6–9), which made fixed bounds fail on time alone; a super-linear reading still
 * misses the stretched bound by far. Speed itself is measured in bench/, not here.
 */
import { availableParallelism, loadavg } from 'node:os';

export function timeBound(quietMs: number): number {
  return quietMs * Math.max(1, loadavg()[0]! / availableParallelism());
}

/** The timeout of a test held by `timeBound`: the bound is the check; vitest's 30 s default would cut a stretched one first. */
export const noBlowUpTimeoutMs = 300_000;
