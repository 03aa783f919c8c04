/**
 * The simulator channel's pay-in side: settling a payment at the simulator's books (success with a UTR,
 * or fail), then, unless the callback is "lost", telling the pay-in service as a channel callback would.
 * Also its automatic mode, for demos and load tests.
 */
import { and, eq, lte } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { payin } from '../../../contract/machines.ts';
import type { Channel } from '../../channels/adapter.ts';
import { newUtr, simulatorSettings } from '../../channels/simulator.ts';
import { simulatorOn } from '../../config.ts';
import { type Db, inTransaction } from '../../db/index.ts';
import { channels, payinOrders, simulatorTransactions } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { payinWithUtr } from '../orders/keys.ts';
import { applyChannelResult } from './notifications.ts';
import { channelUsable } from './routing.ts';
import { withUtrGuard } from './utr.ts';
import type { PayinOrder } from './views.ts';

export interface SimulatorPayment {
  result: 'success' | 'fail';
  utr?: string | undefined;
  /** False loses the channel's callback: the payment exists at the channel only. */
  notify: boolean;
}

async function utrTaken(tx: Db, utr: string): Promise<boolean> {
  const [sim] = await tx
    .select({ id: simulatorTransactions.id })
    .from(simulatorTransactions)
    .where(eq(simulatorTransactions.utr, utr));
  if (sim) return true;
  return (await payinWithUtr(tx, utr)) !== undefined;
}

/**
 * Settles a simulator pay-in at its books and, when notifying, at the pay-in service. 404 unless the
 * order is the simulator's and the simulator is on.
 */
export async function settleSimulatorPayin(
  deps: Deps,
  tx: Db,
  order: PayinOrder,
  channel: Channel,
  pay: SimulatorPayment,
): Promise<{ orderNo: string; utr: string | null; notified: boolean; status: string }> {
  // With SIMULATOR off nothing settles at the simulator, by hand or automatically: 404, as if absent.
  if (
    channel.adapter !== 'simulator' ||
    !channelUsable(deps, channel) ||
    order.channelId !== channel.id ||
    !order.channelOrderId
  ) {
    throw new AppError(errno.notFound);
  }
  let utr: string | null = null;
  if (pay.result === 'success') {
    if (pay.utr) {
      if (await utrTaken(tx, pay.utr)) throw new AppError(errno.utrUsed);
      utr = pay.utr;
    } else {
      for (let i = 0; i < 5 && !utr; i++) {
        const candidate = newUtr();
        if (!(await utrTaken(tx, candidate))) utr = candidate;
      }
      if (!utr) throw new Error('no free UTR after 5 draws');
    }
  }
  const settled = await withUtrGuard(() =>
    tx
      .update(simulatorTransactions)
      .set({
        status: pay.result,
        utr,
        notified: pay.notify,
        settledAt: deps.clock.now(),
      })
      .where(
        and(
          eq(simulatorTransactions.channelOrderId, order.channelOrderId!),
          eq(simulatorTransactions.kind, 'payin'),
          eq(simulatorTransactions.status, 'pending'),
        ),
      )
      .returning(),
  );
  const sim = settled[0];
  // Paid or failed already at the simulator: a second payment of one order is refused.
  if (!sim) throw new AppError(errno.conflict, null, `simulator ${order.channelOrderId} not pending`);
  let status: string = order.status;
  if (pay.notify) {
    const outcome = await applyChannelResult(deps, tx, {
      orderNo: order.orderNo,
      channelId: channel.id,
      channelOrderId: sim.channelOrderId,
      result: pay.result,
      utr,
      amount: sim.amount,
      reason: 'the payer did not pay (simulator)',
      read: order,
    });
    status = outcome.order?.status ?? status;
  }
  return { orderNo: order.orderNo, utr, notified: pay.notify, status };
}

/**
 * Automatic mode: pay-ins awaiting the channel's word at simulator channels set to `auto`, older than `delayMs`, settle at
 * `successRate` percent, losing the callback at `lostCallbackRate` percent. Answers how many settled.
 */
export async function runSimulatorAuto(deps: Deps, batch = 100, random = Math.random): Promise<number> {
  if (!simulatorOn(deps.config, deps.database.engine)) return 0;
  const db = deps.database.db;
  const sims = await db.select().from(channels).where(eq(channels.adapter, 'simulator'));
  let settledCount = 0;
  for (const channel of sims) {
    const settings = simulatorSettings(channel.settings);
    if (!settings.auto || channel.status !== 'active') continue;
    const cutoff = new Date(deps.clock.now().getTime() - settings.delayMs);
    const due = await db
      .select({ id: payinOrders.id })
      .from(payinOrders)
      .innerJoin(simulatorTransactions, eq(simulatorTransactions.channelOrderId, payinOrders.channelOrderId))
      .where(
        and(
          eq(payinOrders.channelId, channel.id),
          inStates(payinOrders.status, payin.from('channelPaid')),
          lte(payinOrders.createdAt, cutoff),
          eq(simulatorTransactions.status, 'pending'),
        ),
      )
      .limit(batch);
    for (const { id } of due) {
      const pay: SimulatorPayment = {
        result: random() * 100 < settings.successRate ? 'success' : 'fail',
        notify: !(random() * 100 < settings.lostCallbackRate),
      };
      try {
        await inTransaction(db, async (tx) => {
          const [order] = await tx.select().from(payinOrders).where(eq(payinOrders.id, id));
          if (order && payin.can('channelPaid', order.status))
            await settleSimulatorPayin(deps, tx, order, channel, pay);
        });
        settledCount++;
      } catch (err) {
        // Settled meanwhile by a person or another worker: nothing to do.
        if (!(err instanceof AppError)) throw err;
      }
    }
  }
  return settledCount;
}
