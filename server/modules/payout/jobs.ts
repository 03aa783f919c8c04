/**
 * Background work for payouts: the worker that hands queued payouts to their channel (and takes over
 * hand-overs whose worker vanished), and the simulator channel's automatic mode that completes its
 * processing payouts after a delay at a success rate. The worker holds no transaction while a channel
 * is called: each order is claimed by a compare-and-set, so several workers (or processes) never send
 * one order twice (see Submission in service.ts). The automatic mode claims rows with
 * `FOR UPDATE SKIP LOCKED` and settles each in a savepoint, so one bad order does not undo its batch.
 */
import { and, asc, eq, lte } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { payout } from '../../../contract/machines.ts';
import { simulatorSettings } from '../../channels/simulator.ts';
import { simulatorOn } from '../../config.ts';
import { type Db, inTransaction } from '../../db/index.ts';
import { channels, payoutOrders } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { errorForLog } from '../../lib/logger.ts';
import { claimed, recoverSubmission, submitLeaseMs, submitPayout } from './service.ts';
import { settleSimulatorPayout } from './simulator.ts';

/**
 * Takes over up to `limit` hand-overs whose lease is over (asking their channel), then submits up to
 * `limit` due queued payouts; answers how many orders this run moved (those another worker took first
 * are not counted).
 */
export async function submitDuePayouts(deps: Deps, limit = 20): Promise<number> {
  const now = deps.clock.now();
  const db = deps.database.db;
  const stale = await db
    .select({ id: payoutOrders.id })
    .from(payoutOrders)
    .where(
      and(
        inStates(payoutOrders.status, [claimed]),
        lte(payoutOrders.updatedAt, new Date(now.getTime() - submitLeaseMs)),
      ),
    )
    .orderBy(asc(payoutOrders.updatedAt))
    .limit(limit);
  const due = await db
    .select({ id: payoutOrders.id })
    .from(payoutOrders)
    .where(and(inStates(payoutOrders.status, payout.from('claim')), lte(payoutOrders.nextAttemptAt, now)))
    .orderBy(asc(payoutOrders.nextAttemptAt), asc(payoutOrders.id))
    .limit(limit);
  let moved = 0;
  for (const { id } of stale) {
    try {
      if (await recoverSubmission(deps, id)) moved++;
    } catch (err) {
      deps.logger.error({ payout: id, err: errorForLog(err) }, 'payout recovery failed');
    }
  }
  // Every process polls the same due payouts, woken by the same commits: each walks them in its own random
  // order, so two rarely reach one together (the later finds it claimed with one read, 409, instead of
  // reading the channels and losing the claim), and none waits behind the other's channel calls.
  for (let i = due.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [due[i], due[j]] = [due[j]!, due[i]!];
  }
  for (const { id } of due) {
    try {
      await submitPayout(deps, id);
      moved++;
    } catch (err) {
      // Claimed by another worker meanwhile: theirs to finish.
      if (err instanceof AppError && err.errno === errno.conflict) continue;
      deps.logger.error({ payout: id, err: errorForLog(err) }, 'payout submission failed');
    }
  }
  // Completions and creation failures queued callbacks: deliver them now rather than at the next poll.
  if (moved) wakeWebhookWorkers();
  return moved;
}

/**
 * The simulator's automatic mode: processing payouts of simulator channels with `auto` on, older than
 * the channel's `delayMs`, complete as success with probability `successRate`% (else fail).
 */
export async function autoSettleSimulatorPayouts(
  deps: Deps,
  opts: { limit?: number; random?: () => number } = {},
): Promise<number> {
  // SIMULATOR off: its payouts wait for a person (settling them would say money moved when none did).
  if (!simulatorOn(deps.config, deps.database.engine)) return 0;
  const random = opts.random ?? Math.random;
  const sims = (
    await deps.database.db
      .select({ id: channels.id, settings: channels.settings })
      .from(channels)
      .where(eq(channels.adapter, 'simulator'))
  )
    .map((c) => ({ id: c.id, s: simulatorSettings(c.settings) }))
    .filter((c) => c.s.auto);
  if (!sims.length) return 0;
  const now = deps.clock.now();
  let done = 0;
  for (const sim of sims) {
    done += await inTransaction(deps.database.db, async (tx) => {
      const due = await tx
        .select()
        .from(payoutOrders)
        .where(
          and(
            // Either outcome starts from the same states: the channel's success's.
            inStates(payoutOrders.status, payout.from('channelSuccess')),
            eq(payoutOrders.channelId, sim.id),
            lte(payoutOrders.updatedAt, new Date(now.getTime() - sim.s.delayMs)),
          ),
        )
        .orderBy(asc(payoutOrders.updatedAt))
        .limit(opts.limit ?? 50)
        .for('update', { skipLocked: true });
      let n = 0;
      for (const o of due) {
        const result = random() * 100 < sim.s.successRate ? 'success' : 'fail';
        try {
          await tx.transaction((sp) => settleSimulatorPayout(deps, sp as unknown as Db, o, result));
          n++;
        } catch (err) {
          deps.logger.warn({ payout: o.id, err: errorForLog(err) }, 'simulator payout settlement failed');
        }
      }
      return n;
    });
  }
  if (done) wakeWebhookWorkers();
  return done;
}

/** Submits batches until nothing is due (at most `maxRounds` batches, so one run stays bounded). */
export async function submitAllDuePayouts(deps: Deps, maxRounds = 50): Promise<number> {
  let total = 0;
  for (let round = 0; round < maxRounds; round++) {
    const n = await submitDuePayouts(deps);
    total += n;
    if (n === 0) break;
  }
  return total;
}
