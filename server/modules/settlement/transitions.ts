/** How a settlement moves: by compare-and-set on the states its action starts from, announced to the merchant. */
import { and, eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { type SettlementAction, settlement } from '../../../contract/machines.ts';
import type { Db } from '../../db/index.ts';
import { merchants, settlements } from '../../db/schema.ts';
import { guardStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { enqueueCallback } from '../../jobs/webhooks.ts';
import { type Settlement, settlementCallbackOf } from './views.ts';

/** Refuses, with the clear 409, an action the settlement's state does not allow (before any code is spent). */
export function allowed(s: Pick<Settlement, 'status'>, action: SettlementAction): void {
  if (!settlement.can(action, s.status))
    throw new AppError(errno.conflict, null, `${action} from ${s.status}`);
}

/**
 * Runs `action` on `s` by compare-and-set on the states it may start from, writing `set` and the state it
 * leads to; a settlement that moved meanwhile is a conflict (409).
 */
export async function move(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  s: Settlement,
  action: SettlementAction,
  set: Partial<typeof settlements.$inferInsert> = {},
): Promise<Settlement> {
  const to = settlement.to(action);
  const [row] = await tx
    .update(settlements)
    .set({ ...set, ...(to ? { status: to } : {}), updatedAt: deps.clock.now() })
    .where(and(eq(settlements.id, s.id), guardStates(settlements.status, settlement.from(action))))
    .returning();
  if (!row) throw new AppError(errno.conflict, null, `${action}: settlement ${s.id} moved meanwhile`);
  return row;
}

/** Queues `settlement.updated` for the status `s` just entered (one event per status: each is entered once). */
export async function announce(deps: Pick<Deps, 'clock'>, tx: Db, s: Settlement): Promise<void> {
  const [m] = await tx
    .select({ url: merchants.callbackUrl })
    .from(merchants)
    .where(eq(merchants.id, s.merchantId));
  await enqueueCallback(deps, tx, {
    merchantId: s.merchantId,
    orderType: 'settlement',
    orderId: s.id,
    type: 'settlement.updated',
    url: m?.url ?? '',
    data: settlementCallbackOf(s),
    round: settlement.states.indexOf(s.status) + 1,
  });
}
