/**
 * The demo's refunds (docs/MONEY-BACK.md section 1), made by the real services after the timeline: one
 * order of the Demo Merchant (M10001) refunded in full and paid back to the payer, another partly refunded,
 * its payout queued for the channel.
 */
import { and, desc, eq, gte } from 'drizzle-orm';
import { payin } from '../../contract/machines.ts';
import { payinOrders, payoutOrders } from '../db/schema.ts';
import { loadMerchant } from '../modules/merchant/scope.ts';
import { completePayout } from '../modules/payout/transitions.ts';
import { checkRefund, placeRefund } from '../modules/refund/service.ts';
import type { DemoMerchant } from './merchants.ts';
import type { Actor, Seed } from './seed.ts';

const payees = [
  { accountName: 'Priya Nair', accountNumber: '50100234567891', ifsc: 'HDFC0000240' },
  { accountName: 'Arjun Mehta', accountNumber: '30987654321', ifsc: 'SBIN0001234' },
];

export async function openRefunds(seed: Seed, ms: readonly DemoMerchant[], finance: Actor) {
  const { tx, deps } = seed;
  const m = ms.find((d) => d.spec.code === 'M10001');
  if (!m || finance.id === null) throw new Error('demo: the refunds need M10001 and the finance user');
  const merchant = await loadMerchant(tx, m.row.id);
  const orders = await tx
    .select()
    .from(payinOrders)
    .where(
      and(
        eq(payinOrders.merchantId, merchant.id),
        eq(payinOrders.status, payin.state.paid),
        gte(payinOrders.paidAmount, 50_000),
      ),
    )
    .orderBy(desc(payinOrders.paidAt))
    .limit(2);
  const [whole, part] = orders;
  if (!whole || !part) throw new Error('demo: no paid pay-ins to refund');
  const ask = async (order: typeof whole, amount: number, reason: string, payee: (typeof payees)[number]) => {
    const refund = { amount, reason, payee, source: 'console' as const };
    const checked = await checkRefund(tx, order, merchant, refund, 'en');
    return placeRefund(deps, tx, order, merchant, refund, checked, { userId: finance.id! }, 'en');
  };
  const full = await ask(whole, whole.paidAmount!, 'Goods out of stock: the whole order back', payees[0]!);
  // The channel took it and paid it: the refund is done and the merchant's callback queued.
  const payoutId = full.refund.payoutId!;
  await tx
    .update(payoutOrders)
    .set({ status: 'processing', attempts: 1, nextAttemptAt: null })
    .where(eq(payoutOrders.id, payoutId));
  await completePayout(deps, tx, {
    orderId: payoutId,
    result: 'success',
    by: 'channel',
    utr: 'DEMORF000001',
  });
  await ask(part, Math.round(part.paidAmount! * 0.4), 'One item returned', payees[1]!);
}
