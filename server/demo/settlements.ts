/**
 * Money out of the demo's wallets (OPERATIONS.md section 1), through the real services on the walking
 * clock: the daily T+N runs that release the T+1 merchant's collection, settlement applications in
 * every state, and two withdrawal slips (one withdrawn, one waiting at the bank).
 *
 * Two platform users share the work, as maker–checker asks: the administrator confirms, the finance
 * user (`demoFinanceUser`) completes and sends the slips. Amounts are drawn as a share of what the wallet
 * holds at that moment, so an application always fits the balance the earlier steps left.
 */
import { and, eq } from 'drizzle-orm';
import { endpoints } from '../../contract/index.ts';
import { formatMinor } from '../../contract/money.ts';
import { receivingAccounts, roles, userRoles, users, withdrawalSlipLines } from '../db/schema.ts';
import { merchantBalances } from '../ledger/index.ts';
import { hashPassword } from '../lib/crypto.ts';
import { readParameter } from '../lib/parameters.ts';
import { loadMerchant } from '../modules/merchant/scope.ts';
import {
  applySettlement,
  cancelSettlement,
  completeSettlement,
  confirmSettlement,
  rejectSettlement,
  type Settlement,
  type SettlementWallet,
} from '../modules/settlement/service.ts';
import { businessNow, runTnSettlement } from '../modules/settlement/tn.ts';
import { lockSlip, prepareSlip, withdrawLines, writeSlip } from '../modules/slip/service.ts';
import { type DemoPlatformUser, day, hour, minute, rupees } from './business.ts';
import { type DemoMerchant, ownerOf } from './merchants.ts';
import type { Actor, Seed } from './seed.ts';

/** How an application ends in the demo. */
type Ending =
  | 'settled'
  /** Confirmed with a lower audit amount, then settled. */
  | 'settledLower'
  | 'rejected'
  | 'cancelled'
  /** Confirmed, waiting to be completed. */
  | 'confirmed'
  /** Confirmed above the maker–checker threshold: waits for a second person. */
  | 'awaitingApproval'
  | 'toBeConfirmed'
  /** Confirmed, then sent on a slip (see `slips`). */
  | 'onSlip';

interface Plan {
  merchant: string;
  wallet: SettlementWallet;
  type: 'bank' | 'usdt';
  /** Days before today; 0 is today. */
  daysAgo: number;
  /** Share of the wallet's available balance applied for (before the fee). */
  share: number;
  ending: Ending;
  /** A fixed amount in rupees instead of a share (the one above the threshold). */
  rupees?: number;
}

const plans: Plan[] = [
  { merchant: 'M10001', wallet: 'collection', type: 'bank', daysAgo: 26, share: 0.5, ending: 'settled' },
  { merchant: 'M10001', wallet: 'collection', type: 'bank', daysAgo: 20, share: 0.5, ending: 'settled' },
  { merchant: 'M10001', wallet: 'collection', type: 'bank', daysAgo: 14, share: 0.6, ending: 'settledLower' },
  { merchant: 'M10001', wallet: 'collection', type: 'bank', daysAgo: 6, share: 0.4, ending: 'onSlip' },
  { merchant: 'M10001', wallet: 'collection', type: 'bank', daysAgo: 5, share: 0.4, ending: 'onSlip' },
  { merchant: 'M10001', wallet: 'collection', type: 'bank', daysAgo: 1, share: 0.4, ending: 'onSlip' },
  { merchant: 'M10001', wallet: 'collection', type: 'bank', daysAgo: 0, share: 0.3, ending: 'toBeConfirmed' },
  { merchant: 'M10002', wallet: 'payout', type: 'bank', daysAgo: 12, share: 0.2, ending: 'settled' },
  { merchant: 'M10002', wallet: 'collection', type: 'usdt', daysAgo: 10, share: 0.5, ending: 'settled' },
  { merchant: 'M10002', wallet: 'collection', type: 'bank', daysAgo: 3, share: 0.3, ending: 'confirmed' },
  {
    merchant: 'M10002',
    wallet: 'collection',
    type: 'bank',
    daysAgo: 2,
    share: 0,
    rupees: 150_000,
    ending: 'awaitingApproval',
  },
  { merchant: 'M10003', wallet: 'collection', type: 'usdt', daysAgo: 9, share: 0.5, ending: 'rejected' },
  { merchant: 'M10003', wallet: 'collection', type: 'bank', daysAgo: 4, share: 0.5, ending: 'cancelled' },
  { merchant: 'M10003', wallet: 'collection', type: 'bank', daysAgo: 1, share: 0.4, ending: 'confirmed' },
];

/** Where each merchant takes its money. */
const destinations: Record<
  string,
  { accountName: string; cardNumber: string; ifsc: string; returnAddress: string }
> = {
  M10001: {
    accountName: 'Demo Merchant Pvt Ltd',
    cardNumber: '50200031847216',
    ifsc: 'HDFC0001234',
    returnAddress: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE',
  },
  M10002: {
    accountName: 'Bharat Electronics LLP',
    cardNumber: '003405006789',
    ifsc: 'ICIC0000034',
    returnAddress: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
  },
  M10003: {
    accountName: 'Masala Mart',
    cardNumber: '38201774650',
    ifsc: 'SBIN0004521',
    returnAddress: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
  },
};

/** The withdrawal slips: the first two `onSlip` settlements withdrawn, the last one still at the bank. */
const slips = [
  { sentDaysAgo: 4, withdrawnDaysAgo: 3, format: 'hdfc_bulk' as const, take: [6, 5] },
  { sentDaysAgo: 0, withdrawnDaysAgo: null, format: 'icici_bulk' as const, take: [1] },
];

/** A platform user beside the administrator, made with their built-in role (the finance user, an operator). */
export async function openPlatformUser(seed: Seed, user: DemoPlatformUser): Promise<Actor> {
  const { tx, start } = seed;
  const [role] = await tx
    .select({ id: roles.id })
    .from(roles)
    .where(and(eq(roles.builtinKey, user.role), eq(roles.kind, 'platform')));
  const [row] = await tx
    .insert(users)
    .values({
      kind: 'platform',
      username: user.username,
      nickname: user.nickname,
      passwordHash: await hashPassword(user.password),
      createdAt: new Date(start - 2 * day),
    })
    .returning({ id: users.id });
  if (role) await tx.insert(userRoles).values({ userId: row!.id, roleId: role.id });
  seed.opLog(start - 2 * day, seed.admin, endpoints.admin.create.id, `user:${row!.id}`, {
    changes: { username: { before: null, after: user.username } },
  });
  return { id: row!.id, username: user.username, kind: 'platform' };
}

/** The daily T+N runs, each business day at the configured time, as the job would have started them. */
export async function scheduleTnRuns(seed: Seed): Promise<void> {
  const { tx, todayIst, real } = seed;
  const [h, m] = (await readParameter(tx, 'tn_run_time')).split(':').map(Number) as [number, number];
  for (let d = 30; d >= 0; d--) {
    real(todayIst - d * day + h * hour + m * minute, async () => {
      const { day: businessDay } = await businessNow(tx, seed.clock.now());
      await runTnSettlement(seed.deps, tx, businessDay, null);
    });
  }
}

/** Settlement applications and slips on the timeline. */
export function scheduleSettlements(seed: Seed, ms: readonly DemoMerchant[], finance: Actor): void {
  const { tx, rnd, todayIst, real, deps, admin } = seed;
  const made = new Map<number, Settlement>();
  const ep = (wallet: SettlementWallet) =>
    wallet === 'collection' ? endpoints.settlementPayment : endpoints.settlementPayout;

  plans.forEach((p, i) => {
    /** The operation log's row of an action on this settlement, now on the demo's clock. */
    const logged = (
      who: Actor,
      action: 'create' | 'delete' | 'reject' | 'confirm' | 'complete',
      s: Settlement,
      detail?: Record<string, unknown>,
    ) =>
      seed.opLog(
        seed.clock.now().getTime(),
        who,
        ep(p.wallet)[action].id,
        `settlement:${s.settlementNo}`,
        detail,
      );
    const m = ms.find((x) => x.spec.code === p.merchant)!;
    const owner = ownerOf(m);
    const dest = destinations[p.merchant]!;
    // Applied in the merchant's office hours; decided by the platform within hours.
    const applied =
      p.daysAgo === 0
        ? seed.now - 2 * hour
        : todayIst - p.daysAgo * day + 10 * hour + Math.floor(rnd.random() * 3 * hour);
    const confirmedAt = p.daysAgo === 0 ? applied : applied + 90 * minute + Math.floor(rnd.random() * hour);
    const completedAt = todayIst - (p.daysAgo - 1) * day + 11 * hour + Math.floor(rnd.random() * hour);
    const lower = 0.8 + rnd.random() * 0.1;

    real(applied, async () => {
      const merchant = await loadMerchant(tx, m.row.id);
      const b = await merchantBalances(tx, m.row.id, m.row.currency);
      const available = p.wallet === 'collection' ? b.collection_available : b.payout_available;
      // Below the maker–checker threshold, but for the one meant to wait for a second person.
      const threshold = await readParameter(tx, 'maker_checker_threshold');
      const amount = p.rupees
        ? rupees(p.rupees)
        : Math.floor(Math.min(available * p.share, threshold * 0.9) / 10_000) * 10_000;
      if (amount < (await readParameter(tx, 'min_settlement_amount'))) return;
      const s = await applySettlement(
        deps,
        tx,
        merchant,
        p.wallet,
        p.type === 'bank'
          ? {
              type: 'bank',
              amount,
              accountName: dest.accountName,
              cardNumber: dest.cardNumber,
              ifsc: dest.ifsc,
            }
          : { type: 'usdt', amount, returnAddress: dest.returnAddress },
        owner.id,
        'en',
      );
      made.set(i, s);
      logged(owner, 'create', s, {
        changes: {
          amount: { before: null, after: formatMinor(amount) },
          type: { before: null, after: p.type },
        },
      });
    });
    if (p.ending === 'toBeConfirmed') return;

    if (p.ending === 'cancelled') {
      real(applied + 40 * minute, async () => {
        const s = made.get(i);
        if (!s) return;
        await cancelSettlement(deps, tx, s, owner.id);
        logged(owner, 'delete', s);
      });
      return;
    }
    if (p.ending === 'rejected') {
      real(confirmedAt, async () => {
        const s = made.get(i);
        if (!s) return;
        const reason = 'Return address is not on the merchant agreement';
        await rejectSettlement(deps, tx, s, reason, admin.id!);
        logged(admin, 'reject', s, { reason });
      });
      return;
    }

    real(confirmedAt, async () => {
      const s = made.get(i);
      if (!s) return;
      const auditAmount = p.ending === 'settledLower' ? Math.floor((s.amount * lower) / 100) * 100 : s.amount;
      const price = p.type === 'usdt' ? '84.25' : undefined;
      const { settlement } = await confirmSettlement(deps, tx, s, { auditAmount, price }, admin.id!, 'en');
      made.set(i, settlement);
      logged(admin, 'confirm', s, { auditAmount: formatMinor(auditAmount) });
    });
    if (p.ending !== 'settled' && p.ending !== 'settledLower') return;

    real(completedAt, async () => {
      const s = made.get(i);
      if (!s) return;
      const reference = p.type === 'usdt' ? `0x${seed.rnd.digits(16)}${seed.rnd.digits(16)}` : seed.newUtr();
      await completeSettlement(deps, tx, s.id, { reference }, finance.id!);
      logged(finance, 'complete', s, { reference });
    });
  });

  // The platform's own current account the bank pays slips from (a public account bound to no channel:
  // it collects nothing), made before the first slip.
  let payoutAccount: number | undefined;
  const paidFrom = async () => {
    payoutAccount ??= (
      await tx
        .insert(receivingAccounts)
        .values({
          kind: 'public',
          bankName: 'HDFC Bank',
          accountName: 'Acme Payments Pvt Ltd',
          accountNumber: '50200012345678',
          ifsc: 'HDFC0000240',
          dailyLimit: rupees(10_000_000),
          createdAt: seed.clock.now(),
          updatedAt: seed.clock.now(),
        })
        .returning({ id: receivingAccounts.id })
    )[0]!.id;
    return payoutAccount;
  };

  // Slips of the M10001 settlements confirmed `onSlip`, picked by how many days ago they were applied.
  for (const sl of slips) {
    const sentAt =
      sl.sentDaysAgo === 0 ? seed.now - 30 * minute : todayIst - sl.sentDaysAgo * day + 15 * hour;
    const state: { slipId?: number } = {};
    real(sentAt, async () => {
      const ids = plans
        .map((p, i) => ({ p, s: made.get(i) }))
        .filter(({ p, s }) => p.ending === 'onSlip' && sl.take.includes(p.daysAgo) && s)
        .map(({ s }) => s!.id);
      if (!ids.length) return;
      const prepared = await prepareSlip(
        tx,
        { format: sl.format, accountId: await paidFrom(), settlementIds: ids, payoutIds: [] },
        'en',
      );
      const slip = await writeSlip(deps, tx, prepared, finance.id!);
      state.slipId = slip.id;
      seed.opLog(
        seed.clock.now().getTime(),
        finance,
        endpoints.withdrawalSlip.create.id,
        `slip:${slip.slipNo}`,
        {
          settlementIds: ids,
        },
      );
    });
    if (sl.withdrawnDaysAgo === null) continue;
    real(todayIst - sl.withdrawnDaysAgo * day + 11 * hour, async () => {
      if (!state.slipId) return;
      const slip = await lockSlip(tx, state.slipId);
      const lines = await tx
        .select()
        .from(withdrawalSlipLines)
        .where(eq(withdrawalSlipLines.slipId, slip.id));
      const chosen = lines.map((line) => ({ line, reference: seed.newUtr() }));
      await withdrawLines(seed.depsInSeed, tx, slip, chosen, finance.id!);
      seed.opLog(
        seed.clock.now().getTime(),
        finance,
        endpoints.withdrawalSlip.withdraw.id,
        `slip:${slip.slipNo}`,
        {
          lines: chosen.map((c) => c.line.id),
        },
      );
    });
  }
}
