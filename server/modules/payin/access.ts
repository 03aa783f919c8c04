/** What every console handler of a pay-in starts from: the order the user may see, its channel, what its state allows. */
import { eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { type PayinAction, payin } from '../../../contract/machines.ts';
import type { Channel } from '../../channels/adapter.ts';
import type { Db } from '../../db/index.ts';
import { channels } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { payinList } from '../orders/kinds.ts';
import type { PayinOrder } from './views.ts';

/** A pay-in the user may see, by id or order number, or 404 (the list engine's rule for every kind). */
export const orderFor = payinList.orderFor;

export async function channelOf(tx: Db, id: number | null): Promise<Channel | undefined> {
  if (id === null) return undefined;
  const [c] = await tx.select().from(channels).where(eq(channels.id, id));
  return c;
}

/** Refuses early, with the clear 409, an action the order's state does not allow (contract/machines.ts). */
export function allowed(order: PayinOrder, action: PayinAction) {
  if (!payin.can(action, order.status)) {
    throw new AppError(errno.conflict, null, `${action} from ${order.status}`);
  }
}

export const auditTarget = (o: PayinOrder) => `payin:${o.orderNo}`;
