/** Submission: claim, call the channel, record the outcome. */
import { and, eq, lte, type SQL, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { payout } from '../../../contract/machines.ts';
import { type Channel, type ChannelPayoutState, ChannelRefused } from '../../channels/adapter.ts';
import { adapterFor, adapters } from '../../channels/index.ts';
import { type Db, inTransaction, retrying } from '../../db/index.ts';
import { channels, payoutOrders } from '../../db/schema.ts';
import { guardStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { errorForLog } from '../../lib/logger.ts';
import {
  completePayout,
  conflict,
  failCreationWhere,
  into,
  payoutCandidates,
  refuseMissingOr409,
  startsFrom,
} from './transitions.ts';
import type { PayoutOrder } from './views.ts';

// A channel may book a payout and then fail to answer, and a process may die between the channel's
// answer and our commit. So the hand-over is three steps, none of which holds a transaction across the
// call: the claim (`queued → submitting`, committed), the call (outside any transaction, with the
// order's idempotency key), and the outcome (a compare-and-set from `submitting` on the claim). An
// unclear outcome is asked of the channel; what the channel cannot answer is left to a person
// (`needs_review`) with the hold open. A claim whose worker vanished is taken over after a lease.

/** How long a claim is left to its worker before another asks the channel what became of the payout. */
export const submitLeaseMs = 2 * 60_000;

/** After this many sends the channel definitively never received, the order gives up (creation_failed). */
export const maxSubmitAttempts = 8;

/** Seconds before the next send after `attempts` sends the channel never received: 5 s doubling, at most 10 minutes. */
export const submitBackoffSeconds = (attempts: number) => Math.min(5 * 2 ** Math.max(0, attempts - 1), 600);

/**
 * The key a channel books the payout once by: the order number, and after a retry (a new hold, sent
 * again on purpose after a definitive failure) the order number with the hold's number.
 */
export function payoutIdempotencyKey(o: Pick<PayoutOrder, 'orderNo' | 'holds'>): string {
  return o.holds > 1 ? `${o.orderNo}-${o.holds}` : o.orderNo;
}

/** The state of a claimed order (`submitting`): a worker is handing it to a channel. */
export const claimed = into('claim');

/** A worker's hold on a claimed order: the order as claimed, and the channel it is sent to. */
interface Claim {
  order: PayoutOrder;
  channel: Channel;
}

/** The claim is still the order's: same step, same channel, same attempt. */
const stillClaimed = (c: Claim): SQL =>
  and(
    eq(payoutOrders.id, c.order.id),
    guardStates(payoutOrders.status, [claimed]),
    eq(payoutOrders.channelId, c.channel.id),
    eq(payoutOrders.attempts, c.order.attempts),
  )!;

async function orderById(db: Db, orderId: number): Promise<PayoutOrder> {
  const [o] = await db.select().from(payoutOrders).where(eq(payoutOrders.id, orderId));
  if (!o) throw new AppError(errno.notFound);
  return o;
}

/**
 * The claim on `channel`: `claim` (`queued → submitting`, a new attempt), or, after `previous` was
 * refused, the same claim moved to the next channel. Null when another worker got there first.
 */
async function claim(
  deps: Pick<Deps, 'clock' | 'database'>,
  o: PayoutOrder,
  channel: Channel,
  previous: Claim | null,
): Promise<Claim | null> {
  const now = deps.clock.now();
  // One statement: committed on its own, without a transaction's two round trips around it.
  const [order] = await retrying(() =>
    deps.database.db
      .update(payoutOrders)
      .set({
        status: claimed,
        channelId: channel.id,
        attempts: previous ? previous.order.attempts : sql`${payoutOrders.attempts} + 1`,
        nextAttemptAt: null,
        updatedAt: now,
      })
      .where(previous ? stillClaimed(previous) : and(eq(payoutOrders.id, o.id), startsFrom('claim')))
      .returning(),
  );
  return order ? { order, channel } : null;
}

/** The order the outcome could not be recorded on any more: another worker resolved the claim. */
const lostClaim = (deps: Pick<Deps, 'database'>, c: Claim) => orderById(deps.database.db, c.order.id);

/** `accepted` (`submitting → processing`), then completed at once when the channel already reports the end. */
async function recordAccepted(
  deps: Deps,
  c: Claim,
  found: {
    channelOrderId: string;
    status?: 'pending' | 'success' | 'failed';
    utr?: string | null;
    reason?: string | null;
  },
): Promise<PayoutOrder> {
  const now = deps.clock.now();
  const accept = (db: Db) =>
    db
      .update(payoutOrders)
      .set({
        status: into('accepted'),
        channelOrderId: found.channelOrderId,
        failureReason: null,
        updatedAt: now,
      })
      .where(and(stillClaimed(c), startsFrom('accepted')))
      .returning();
  // Accepted and still under way (the usual answer): one statement, committed on its own.
  if (!found.status || found.status === 'pending') {
    const [moved] = await retrying(() => accept(deps.database.db));
    return moved ?? lostClaim(deps, c);
  }
  const done = await inTransaction(deps.database.db, async (tx) => {
    const [moved] = await accept(tx);
    if (!moved) return null;
    return completePayout(deps, tx, {
      orderId: moved.id,
      result: found.status === 'success' ? 'success' : 'fail',
      utr: found.utr ?? null,
      reason: found.reason ?? null,
      by: 'channel',
    });
  });
  return done ?? lostClaim(deps, c);
}

/**
 * An unclear outcome (the call failed after it may have reached the channel, or the worker vanished):
 * the channel is asked. Found: recorded as it says. Definitively never received: back to `queued` for
 * another send (the same idempotency key, so a late booking is answered, not doubled), or after the
 * last attempt `creation_failed` with the hold released. Anything else: `needs_review`, hold open.
 */
async function resolveUnclear(deps: Deps, c: Claim, cause: unknown): Promise<PayoutOrder> {
  const key = payoutIdempotencyKey(c.order);
  let state: ChannelPayoutState | null = null;
  try {
    state = await adapterFor(c.channel.adapter).queryPayout({ deps, channel: c.channel }, key);
  } catch (err) {
    deps.logger.warn(
      { payout: c.order.orderNo, channel: c.channel.code, err: errorForLog(err) },
      'payout query failed',
    );
  }
  if (state?.found) return recordAccepted(deps, c, state);
  const now = deps.clock.now();
  const db = deps.database.db;
  if (state?.definitive) {
    const done = await inTransaction(db, async (tx) => {
      if (c.order.attempts >= maxSubmitAttempts)
        return failCreationWhere(deps, tx, stillClaimed(c), claimed, 'The channel could not be reached');
      const [queued] = await tx
        .update(payoutOrders)
        .set({
          // The channel stays: the next send goes there first (see submitPayout).
          status: into('requeue'),
          nextAttemptAt: new Date(now.getTime() + submitBackoffSeconds(c.order.attempts) * 1000),
          updatedAt: now,
        })
        .where(and(stillClaimed(c), startsFrom('requeue')))
        .returning();
      return queued ?? null;
    });
    return done ?? lostClaim(deps, c);
  }
  const note = `Unclear outcome at ${c.channel.code}: ${messageOf(cause)}; ${
    state ? 'the channel cannot tell whether it received it' : 'the channel could not be asked'
  }`.slice(0, 500);
  const [review] = await inTransaction(db, (tx) =>
    tx
      .update(payoutOrders)
      .set({ status: into('unclear'), failureReason: note, updatedAt: now })
      .where(and(stillClaimed(c), startsFrom('unclear')))
      .returning(),
  );
  if (!review) return lostClaim(deps, c);
  deps.logger.warn({ payout: c.order.orderNo, channel: c.channel.code, note }, 'payout needs review');
  return review;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Hands a queued order to the first channel (weighted) that accepts it, claim by claim: accepted →
 * `processing`; refused → the next channel, and when every channel refused (or none can carry it)
 * `creation_failed` with the hold released; anything unclear → see `resolveUnclear`. Runs its own
 * short transactions on `deps.database.db` and calls the channel between them: never call it inside a
 * transaction. 409 when the order is not queued (another worker claimed it).
 */
export async function submitPayout(deps: Deps, orderId: number): Promise<PayoutOrder> {
  const db = deps.database.db;
  const o = await orderById(db, orderId);
  if (!payout.can('claim', o.status)) throw conflict(`claim: not from ${o.status}`);
  const candidates = await payoutCandidates(deps, db, o);
  // Sent before to a channel that said it never received it: that channel first, so that a late
  // arrival of the first send meets the same idempotency key there instead of a second payout elsewhere.
  const before = candidates.findIndex((r) => r.channel.id === o.channelId);
  if (before > 0) candidates.unshift(...candidates.splice(before, 1));
  let held: Claim | null = null;
  for (const { channel } of candidates) {
    const adapter = adapters[channel.adapter];
    if (!adapter) {
      // Nothing can be sent through it: as good as a refusal.
      deps.logger.error({ channel: channel.code, adapter: channel.adapter }, 'no channel adapter');
      continue;
    }
    const next = await claim(deps, o, channel, held);
    if (!next) {
      if (!held) throw conflict('submit: claimed by another worker');
      return lostClaim(deps, held);
    }
    held = next;
    let channelOrderId: string;
    try {
      ({ channelOrderId } = await adapter.createPayout(
        { deps, channel },
        {
          idempotencyKey: payoutIdempotencyKey(held.order),
          orderNo: o.orderNo,
          amount: o.amount,
          currency: o.currency,
          accountName: o.accountName,
          accountNumber: o.accountNumber,
          ifsc: o.ifsc,
        },
      ));
    } catch (err) {
      if (err instanceof ChannelRefused) continue;
      deps.logger.warn(
        { payout: o.orderNo, channel: channel.code, err: errorForLog(err) },
        'payout submission unclear',
      );
      return resolveUnclear(deps, held, err);
    }
    return recordAccepted(deps, held, { channelOrderId });
  }
  const reason = candidates.length ? 'Every channel declined the payout' : 'No channel can carry this payout';
  const where = held ? stillClaimed(held) : eq(payoutOrders.id, o.id);
  const failed = await inTransaction(db, (tx) =>
    failCreationWhere(deps, tx, where, held ? claimed : o.status, reason),
  );
  if (failed) return failed;
  if (held) return lostClaim(deps, held);
  return refuseMissingOr409(db, o.id, `creationFailed: not from ${o.status} any more`);
}

/**
 * Takes over a claim whose worker is gone (the lease is over) and asks the channel what became of the
 * payout; never sends it again blindly. Null when the claim is not stale any more (resolved, or taken
 * over by another worker).
 */
export async function recoverSubmission(deps: Deps, orderId: number): Promise<PayoutOrder | null> {
  const now = deps.clock.now();
  const db = deps.database.db;
  const [taken] = await inTransaction(db, (tx) =>
    tx
      .update(payoutOrders)
      .set({ updatedAt: now })
      .where(
        and(
          eq(payoutOrders.id, orderId),
          guardStates(payoutOrders.status, [claimed]),
          lte(payoutOrders.updatedAt, new Date(now.getTime() - submitLeaseMs)),
        ),
      )
      .returning(),
  );
  if (!taken) return null;
  const [channel] = taken.channelId
    ? await db.select().from(channels).where(eq(channels.id, taken.channelId))
    : [];
  if (!channel) throw new Error(`payout ${taken.orderNo}: submitting without a channel`);
  return resolveUnclear(deps, { order: taken, channel }, new Error('the submission was interrupted'));
}
