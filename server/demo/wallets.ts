/**
 * Money into and between the merchants' wallets: recharges of the payout wallet (the merchant submits,
 * the platform confirms or rejects within the hour) and the D0 merchants' evening transfers of most of
 * the day's collection to the payout wallet.
 */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { endpoints } from '../../contract/index.ts';
import { recharge } from '../../contract/machines.ts';
import { formatMinor } from '../../contract/money.ts';
import { recharges } from '../db/schema.ts';
import { merchantAccount, platformAccount } from '../ledger/index.ts';
import { day, hour, minute, rupees } from './business.ts';
import { type DemoMerchant, ownerOf } from './merchants.ts';
import type { Seed } from './seed.ts';

export function scheduleRecharges(seed: Seed, ms: readonly DemoMerchant[]): void {
  const { tx, rnd, now, start, todayIst, clock, writer, admin } = seed;
  for (const m of ms) {
    for (const r of m.spec.recharges) {
      const submitted =
        r.day === 0 ? now - 2 * hour : todayIst - r.day * day + 10.5 * hour + Math.floor(rnd.random() * hour);
      if (submitted < start - day) continue;
      const state: { id?: number } = {};
      seed.at(Math.max(submitted, start), async () => {
        const [row] = await tx
          .insert(recharges)
          .values({
            merchantId: m.row.id,
            currency: m.row.currency,
            amount: r.amount,
            reference: r.reference,
            note: r.outcome === recharge.state.rejected ? 'Top-up for the month end' : 'Payout wallet top-up',
            createdBy: m.ownerId,
            createdAt: clock.now(),
          })
          .returning({ id: recharges.id });
        state.id = row!.id;
        seed.opLog(
          clock.now().getTime(),
          ownerOf(m),
          endpoints.merchantRechargeLog.create.id,
          `recharge:${row!.id}`,
          {
            changes: {
              amount: { before: null, after: formatMinor(r.amount) },
              reference: { before: null, after: r.reference },
            },
          },
        );
      });
      if (r.outcome === recharge.state.pending) continue;
      seed.at(seed.later(Math.max(submitted, start), 15 * minute, 70 * minute), async () => {
        const decidedAt = clock.now();
        if (r.outcome === recharge.state.rejected) {
          await tx
            .update(recharges)
            .set({
              status: recharge.state.rejected,
              decidedBy: admin.id,
              decidedAt,
              rejectReason: 'Reference not found on the bank statement',
            })
            .where(eq(recharges.id, state.id!));
          seed.opLog(
            decidedAt.getTime(),
            admin,
            endpoints.merchantRechargeLog.reject.id,
            `recharge:${state.id}`,
            { changes: { status: { before: recharge.state.pending, after: recharge.state.rejected } } },
          );
          return;
        }
        await tx
          .update(recharges)
          .set({ status: recharge.state.confirmed, decidedBy: admin.id, decidedAt })
          .where(eq(recharges.id, state.id!));
        const wallet = merchantAccount(m.row.id, 'payout_available', m.row.currency);
        const before = await writer.balance(wallet);
        await writer.post({
          kind: 'recharge',
          refType: 'recharge',
          ref: state.id!,
          userId: admin.id,
          at: decidedAt,
          lines: [
            { account: platformAccount('settlement_clearing', m.row.currency), amount: -r.amount },
            { account: wallet, amount: r.amount },
          ],
        });
        seed.opLog(
          decidedAt.getTime(),
          admin,
          endpoints.merchantRechargeLog.confirm.id,
          `recharge:${state.id}`,
          {
            merchantId: m.row.id,
            amount: formatMinor(r.amount),
            changes: {
              status: { before: recharge.state.pending, after: recharge.state.confirmed },
              payoutAvailable: { before: formatMinor(before), after: formatMinor(before + r.amount) },
            },
          },
        );
      });
    }
  }
}

/** Evening wallet transfers of the D0 merchants: most of the day's collection to the payout balance. */
export function scheduleTransfers(seed: Seed, ms: readonly DemoMerchant[]): void {
  const { rnd, start, todayIst, clock, writer } = seed;
  for (const m of ms.filter((x) => x.spec.transfers)) {
    for (let k = 30; k >= 1; k--) {
      const t = todayIst - k * day + 21 * hour + Math.floor(rnd.random() * 45 * minute);
      if (t < start) continue;
      seed.at(t, async () => {
        const from = merchantAccount(m.row.id, 'collection_available', m.row.currency);
        const to = merchantAccount(m.row.id, 'payout_available', m.row.currency);
        const available = await writer.balance(from);
        const amount = Math.floor((available * 0.85) / rupees(1_000)) * rupees(1_000);
        if (amount <= 0) return;
        const toBefore = await writer.balance(to);
        await writer.post({
          kind: 'wallet_transfer',
          refType: 'wallet_transfer',
          ref: randomUUID(),
          memo: 'collection_available → payout_available',
          userId: m.ownerId,
          at: clock.now(),
          lines: [
            { account: from, amount: -amount },
            { account: to, amount },
          ],
        });
        seed.counts.transfers++;
        seed.opLog(
          clock.now().getTime(),
          ownerOf(m),
          endpoints.merchantWallet.transfer.id,
          `merchant:${m.row.id}`,
          {
            amount: formatMinor(amount),
            changes: {
              collection_available: {
                before: formatMinor(available),
                after: formatMinor(available - amount),
              },
              payout_available: { before: formatMinor(toBefore), after: formatMinor(toBefore + amount) },
            },
          },
        );
      });
    }
  }
}
