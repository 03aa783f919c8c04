/**
 * Background work for payouts: the worker that hands queued payouts to their channel, and the simulator
 * channel's automatic mode that completes its processing payouts after a delay at a success rate.
 * Both claim rows with `FOR UPDATE SKIP LOCKED`, so several workers (or processes) never take one
 * order twice, and handle each order in a savepoint, so one bad order does not undo its batch.
 */
import { and, asc, eq, lte } from 'drizzle-orm';
import { simulatorSettings } from '../../channels/simulator.ts';
import { type Db, inTransaction } from '../../db/index.ts';
import { channels, payoutOrders } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { errorForLog } from '../../lib/logger.ts';
import { failCreation, submitPayout } from './service.ts';
import { settleSimulatorPayout } from './simulator.ts';

/** After this many failed submissions (errors other than a channel's refusal) the order gives up. */
export const maxSubmitAttempts = 8;

/** Seconds before the next submission after `attempts` failures: 5 s doubling, at most 10 minutes. */
export const submitBackoffSeconds = (attempts: number) => Math.min(5 * 2 ** Math.max(0, attempts - 1), 600);

/** Submits up to `limit` due queued payouts; answers how many were claimed. */
export async function submitDuePayouts(deps: Deps, limit = 20): Promise<number> {
  const now = deps.clock.now();
  const claimed = await inTransaction(deps.database.db, async (tx) => {
    const due = await tx
      .select({ id: payoutOrders.id, attempts: payoutOrders.attempts })
      .from(payoutOrders)
      .where(and(eq(payoutOrders.status, 'queued'), lte(payoutOrders.nextAttemptAt, now)))
      .orderBy(asc(payoutOrders.nextAttemptAt), asc(payoutOrders.id))
      .limit(limit)
      .for('update', { skipLocked: true });
    for (const { id, attempts } of due) {
      try {
        await tx.transaction((sp) => submitPayout(deps, sp as unknown as Db, id));
      } catch (err) {
        deps.logger.warn({ payout: id, err: errorForLog(err) }, 'payout submission failed');
        const tries = attempts + 1;
        if (tries >= maxSubmitAttempts) {
          await tx.transaction((sp) =>
            failCreation(deps, sp as unknown as Db, id, 'The channel could not be reached'),
          );
        } else {
          await tx
            .update(payoutOrders)
            .set({
              attempts: tries,
              nextAttemptAt: new Date(now.getTime() + submitBackoffSeconds(tries) * 1000),
              updatedAt: now,
            })
            .where(and(eq(payoutOrders.id, id), eq(payoutOrders.status, 'queued')));
        }
      }
    }
    return due.length;
  });
  // Creation failures queued callbacks: deliver them now rather than at the next poll.
  if (claimed) wakeWebhookWorkers();
  return claimed;
}

/**
 * The simulator's automatic mode: processing payouts of simulator channels with `auto` on, older than
 * the channel's `delayMs`, complete as success with probability `successRate`% (else fail).
 */
export async function autoSettleSimulatorPayouts(
  deps: Deps,
  opts: { limit?: number; random?: () => number } = {},
): Promise<number> {
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
            eq(payoutOrders.status, 'processing'),
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
