/** A merchant callback pushed again by hand from the console, for pay-ins and payouts alike. */
import { errno } from '../../../contract/errno.ts';
import type { Deps } from '../../deps.ts';
import { refuse } from '../../http/errors.ts';
import { pushNow } from '../../jobs/webhooks.ts';

/**
 * Pushes an order's latest callback now and answers the attempt as the console shows it, or refuses
 * with `noCallback` when the order has none.
 */
export async function pushByHand(deps: Deps, orderType: 'payin' | 'payout', orderId: number, userId: number) {
  const attempt = await pushNow(deps, orderType, orderId, userId);
  if (!attempt) return refuse(errno.noCallback);
  return {
    at: attempt.at.toISOString(),
    manual: true,
    httpStatus: attempt.httpStatus,
    response: attempt.response,
    durationMs: attempt.durationMs,
  };
}
