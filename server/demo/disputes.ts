/**
 * The demo's disputes (docs/MONEY-BACK.md section 2), made by the real services: a chargeback of one of
 * Bharat Electronics' (M10002) paid orders, opened two days ago and due in 20 hours, its amount held, owned
 * by the finance user and with the bank's notice as evidence; and a chargeback of the Demo Merchant
 * (M10001), opened last week and lost, its hold spent to channel clearing.
 */
import { and, desc, eq, gte } from 'drizzle-orm';
import { payin } from '../../contract/machines.ts';
import { disputeEvidence, disputes, payinOrders } from '../db/schema.ts';
import {
  checkOpening,
  type DisputeAsk,
  lockedOrder,
  loseDispute,
  openDispute,
} from '../modules/dispute/service.ts';
import type { PayinOrder } from '../modules/payin/views.ts';
import { day, hour } from './business.ts';
import type { DemoMerchant } from './merchants.ts';
import type { Actor, Seed } from './seed.ts';

export async function openDisputes(
  seed: Seed,
  ms: readonly DemoMerchant[],
  people: { finance: Actor; operator: Actor },
) {
  const { tx, deps, clock, now } = seed;
  const finance = people.finance.id;
  const operator = people.operator.id;
  if (finance === null || operator === null) throw new Error('demo: disputes need the platform users');

  /** A case of the merchant's newest paid pay-in of at least 200.00 not refunded, opened at `at`. */
  const open = async (code: string, at: number, ask: (o: PayinOrder) => DisputeAsk) => {
    const m = ms.find((d) => d.spec.code === code);
    if (!m) throw new Error(`demo: no merchant ${code}`);
    const [found] = await tx
      .select()
      .from(payinOrders)
      .where(
        and(
          eq(payinOrders.merchantId, m.row.id),
          eq(payinOrders.status, payin.state.paid),
          eq(payinOrders.refundedAmount, 0),
          gte(payinOrders.paidAmount, 20_000),
        ),
      )
      .orderBy(desc(payinOrders.paidAt))
      .limit(1);
    if (!found) throw new Error(`demo: no paid pay-in of ${code} to dispute`);
    clock.set(new Date(at));
    const order = await lockedOrder(tx, found);
    const asked = ask(order);
    await checkOpening(deps, tx, order, asked, 'platform', 'en');
    return await openDispute(deps, tx, order, asked, 'platform', operator);
  };

  // Due tomorrow morning: listed first; Telegram says so 48 and 4 hours before.
  const near = await open('M10002', now - 2 * day, (o) => ({
    kind: 'chargeback',
    amount: o.paidAmount!,
    deadline: new Date(now + 20 * hour),
    reason: 'NPCI chargeback CB-2026-118: the payer says the goods never arrived',
  }));
  await tx.update(disputes).set({ ownerId: finance }).where(eq(disputes.id, near.id));
  await tx.insert(disputeEvidence).values({
    disputeId: near.id,
    note: "Bank's notice of chargeback received by e-mail; asked the merchant for the courier's proof of delivery.",
    side: 'platform',
    userId: finance,
    createdAt: new Date(now - 2 * day + hour),
  });

  // Lost: the payer's bank kept the money, the merchant's hold went to channel clearing.
  const lost = await open('M10001', now - 8 * day, (o) => ({
    kind: 'chargeback',
    amount: Math.min(o.paidAmount!, 150_000),
    deadline: new Date(now - 3 * day),
    reason: 'NPCI chargeback CB-2026-097: card not present, payer denies the payment',
  }));
  clock.set(new Date(now - 4 * day));
  await loseDispute(
    deps,
    tx,
    lost,
    'The bank upheld the chargeback: no proof of delivery by the deadline',
    finance,
    null,
  );
  clock.set(new Date(now));
}
