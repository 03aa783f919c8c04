/**
 * The simulator channel's side of payouts: its books (simulator_transactions) record the outcome, then
 * the order completes as a channel callback would complete it. Used by `POST /simulator/payout` and by
 * the simulator's automatic mode.
 */
import { and, eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { payout } from '../../../contract/machines.ts';
import { newUtr } from '../../channels/simulator.ts';
import { simulatorOn } from '../../config.ts';
import type { Db } from '../../db/index.ts';
import { simulatorTransactions } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { completePayout, type PayoutOrder } from './service.ts';

/**
 * Settles a processing simulator payout at the simulator's books (pending → success | fail, with a UTR
 * on success) and completes the order as its channel (`channelSuccess`, `channelFailed`). A payout the
 * books already settled, or that the channel may not settle now, is a conflict (409); with the
 * simulator off, 404.
 */
export async function settleSimulatorPayout(
  deps: Pick<Deps, 'clock' | 'config' | 'database'>,
  tx: Db,
  o: PayoutOrder,
  result: 'success' | 'fail',
  userId: number | null = null,
): Promise<PayoutOrder> {
  // With SIMULATOR off nothing settles at the simulator, by hand or automatically: 404, as if absent.
  if (!simulatorOn(deps.config, deps.database.engine)) throw new AppError(errno.notFound);
  const action = result === 'success' ? 'channelSuccess' : 'channelFailed';
  if (!payout.can(action, o.status) || !o.channelOrderId)
    throw new AppError(errno.conflict, null, `${action}: not from ${o.status}`);
  const utr = result === 'success' ? newUtr() : null;
  const [booked] = await tx
    .update(simulatorTransactions)
    .set({ status: result, utr, settledAt: deps.clock.now(), notified: true })
    .where(
      and(
        eq(simulatorTransactions.channelOrderId, o.channelOrderId),
        eq(simulatorTransactions.kind, 'payout'),
        eq(simulatorTransactions.status, 'pending'),
      ),
    )
    .returning({ id: simulatorTransactions.id });
  if (!booked) throw new AppError(errno.conflict, null, 'already settled at the simulator');
  return completePayout(deps, tx, {
    orderId: o.id,
    result,
    utr,
    reason: result === 'fail' ? 'Declined by the simulator bank' : null,
    by: 'channel',
    userId,
  });
}
