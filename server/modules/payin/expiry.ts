/** The payer's time running out: the declared `expire`, applied in batches by a periodic job. */
import { and, asc, inArray, lte } from 'drizzle-orm';
import { payin } from '../../../contract/machines.ts';
import { inTransaction } from '../../db/index.ts';
import { payinOrders } from '../../db/schema.ts';
import { guardStates, inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { recordOrderMoves, statusMove } from '../dashboard/stats.ts';
import { recordCapacityMoves } from '../receiving/capacity.ts';
import { destination, entered } from './state.ts';

/**
 * Expires the orders past their expiry that `expire` may start from (with the callback), in batches,
 * each batch one transaction that skips rows another worker holds. Answers how many expired.
 */
export async function expireDuePayins(deps: Deps, batch = 200, maxBatches = 50): Promise<number> {
  const from = payin.from('expire');
  const to = destination('expire');
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const n = await inTransaction(deps.database.db, async (tx) => {
      const now = deps.clock.now();
      // Locked rows keep the state read here: it is the state each order leaves, for the order stats.
      const due = await tx
        .select({ id: payinOrders.id, status: payinOrders.status })
        .from(payinOrders)
        .where(and(inStates(payinOrders.status, from), lte(payinOrders.expiresAt, now)))
        .orderBy(asc(payinOrders.expiresAt))
        .limit(batch)
        .for('update', { skipLocked: true });
      if (!due.length) return 0;
      const left = new Map(due.map((d) => [d.id, d.status]));
      const expired = await tx
        .update(payinOrders)
        .set({ status: to, pushStatus: 'unpushed', callbackAt: null, updatedAt: now })
        .where(
          and(
            inArray(
              payinOrders.id,
              due.map((d) => d.id),
            ),
            guardStates(payinOrders.status, from),
            lte(payinOrders.expiresAt, now),
          ),
        )
        .returning();
      for (const order of expired) await entered(deps, tx, order, null);
      await recordOrderMoves(
        tx,
        expired.map((o) => statusMove('payin', o, left.get(o.id) ?? null)),
      );
      await recordCapacityMoves(
        tx,
        expired.map((order) => ({ order, left: left.get(order.id) })),
      );
      total += expired.length;
      return due.length;
    });
    if (n < batch) break;
  }
  return total;
}
