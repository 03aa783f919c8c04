/**
 * The demo's frozen donor card (docs/MONEY-BACK.md section 3): this afternoon two merchants' payers paid
 * into Ravi Kumar's HDFC card (Masala Mart twice, the Demo Merchant once, each proved by its UTR); an hour ago
 * a cyber-crime cell had the bank freeze the card for 3,500.00. The freeze, recorded by the real service,
 * holds both merchants' shares, newest first.
 */
import { and, eq, ne } from 'drizzle-orm';
import { cardBindings, channels, merchantChannels, receivingAccounts } from '../db/schema.ts';
import { recordFreeze } from '../modules/accountFreeze/service.ts';
import { transition } from '../modules/payin/state.ts';
import { hour, minute, rupees } from './business.ts';
import type { DemoMerchant } from './merchants.ts';
import { bankPayinAt, demoBankChannel } from './receiving.ts';
import type { Actor, Seed } from './seed.ts';

/** The card the bank froze (opened in receiving.ts). */
export const demoFrozenCard = '50100234567812';

export async function openFreeze(seed: Seed, ms: readonly DemoMerchant[], finance: Actor) {
  const { tx, deps, clock, now } = seed;
  const masala = ms.find((d) => d.spec.code === 'M10003');
  const other = ms.find((d) => d.spec.code === 'M10001');
  const [bank] = await tx.select().from(channels).where(eq(channels.code, demoBankChannel));
  const [card] = await tx
    .select()
    .from(receivingAccounts)
    .where(eq(receivingAccounts.accountNumber, demoFrozenCard));
  if (!masala || !other || !bank || !card || finance.id === null)
    throw new Error('demo: the frozen card needs its merchants, channel, card and finance user');

  // While these orders are made, the card alone takes the channel's orders, and the Demo Merchant is
  // routed to the channel: both as they were afterwards.
  const bindings = await tx.select().from(cardBindings).where(eq(cardBindings.channelId, bank.id));
  await tx
    .update(cardBindings)
    // Serving only a merchant that does not exist: none of ours.
    .set({ merchantIds: [0] })
    .where(and(eq(cardBindings.channelId, bank.id), ne(cardBindings.accountId, card.id)));
  await tx.insert(merchantChannels).values({ merchantId: other.row.id, channelId: bank.id, weight: 1 });
  const paid: [DemoMerchant, number, number][] = [
    [masala, 5, rupees(2_400)],
    [other, 4, rupees(1_800)],
    [masala, 3, rupees(1_200)],
  ];
  for (const [m, hoursAgo, amount] of paid) {
    const at = now - hoursAgo * hour;
    const order = await bankPayinAt(seed, m, at, amount);
    clock.set(new Date(at + 4 * minute));
    await transition(deps, tx, order.id, 'supplement', {
      utr: seed.newUtr(),
      paidAmount: amount,
      paidBy: 'supplement',
      paidAt: clock.now(),
    });
  }
  for (const b of bindings)
    await tx.update(cardBindings).set({ merchantIds: b.merchantIds }).where(eq(cardBindings.id, b.id));
  await tx
    .delete(merchantChannels)
    .where(and(eq(merchantChannels.merchantId, other.row.id), eq(merchantChannels.channelId, bank.id)));

  clock.set(new Date(now));
  await recordFreeze(
    tx,
    {
      accountId: card.id,
      amount: rupees(3_500),
      reference: 'NCRP-2611-77810',
      frozenAt: new Date(now - hour),
      note: 'Cyber crime cell, Bengaluru: lien on the card for complaint 77810 (a payer reports fraud).',
    },
    finance.id,
    new Date(now),
  );
}
