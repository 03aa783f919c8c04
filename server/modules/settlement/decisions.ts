/** The platform's decisions on a settlement: cancel, reject, confirm (maker–checker) and complete. */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { approval } from '../../../contract/machines.ts';
import { formatMinor, toMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { approvals, settlementImages } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { post } from '../../ledger/index.ts';
import { aloneOrApprovalOnMerchant } from '../approval/doors.ts';
import { cancelPendingApproval, onApproved, pendingApproval } from '../approval/service.ts';
import { refuseWhileOnSlip } from '../slip/live.ts';
import { changeHold, heldOf, settlementEntry, usdtAmountOf } from './money.ts';
import { allowed, announce, move } from './transitions.ts';
import { loadSettlement, type Settlement, settlementRefType } from './views.ts';

async function fail(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  s: Settlement,
  action: 'cancel' | 'reject',
  reason: string,
  userId: number | null,
): Promise<Settlement> {
  const now = deps.clock.now();
  const row = await move(deps, tx, s, action, { reason, failedBy: userId, failedAt: now });
  await post(tx, settlementEntry(row, { kind: 'settlement_release', by: -heldOf(row) }, userId, now));
  // A confirmation waiting for a second person has nothing left to confirm.
  await cancelPendingApproval(deps, tx, settlementRefType, row.id);
  await announce(deps, tx, row);
  return row;
}

/** The reason a merchant's withdrawal of its application is recorded with. */
export const cancelledReason = 'cancelled';

export const cancelSettlement = (deps: Pick<Deps, 'clock'>, tx: Db, s: Settlement, userId: number | null) =>
  fail(deps, tx, s, 'cancel', cancelledReason, userId);

/** The checks of a rejection before the code is spent: its state, and not on a live withdrawal slip (1042). */
export async function checkReject(tx: Db, s: Settlement): Promise<void> {
  allowed(s, 'reject');
  await refuseWhileOnSlip(tx, 'settlement', s.id);
}

export async function rejectSettlement(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  s: Settlement,
  reason: string,
  userId: number,
): Promise<Settlement> {
  await checkReject(tx, s);
  return fail(deps, tx, s, 'reject', reason, userId);
}

/** What a platform user approves: the audit amount (minor units) and, for USDT, the price. */
export interface Confirmation {
  auditAmount: number;
  price?: string | undefined;
}

/** The checks of a confirmation before the code is spent: its state, the figures, no request pending. */
export async function checkConfirm(tx: Db, s: Settlement, c: Confirmation, lang: Lang): Promise<void> {
  allowed(s, 'confirm');
  if (c.auditAmount > s.amount)
    throw invalidField(lang, 'auditAmount', 'validation.auditAmount', { amount: formatMinor(s.amount) });
  if (s.type === 'usdt' ? c.price === undefined : c.price !== undefined)
    throw invalidField(lang, 'price', 'validation.price');
  if (c.price !== undefined && usdtAmountOf(c.auditAmount, c.price) === '0.000000')
    throw invalidField(lang, 'price', 'validation.price');
  if (await pendingApproval(tx, settlementRefType, s.id)) throw new AppError(errno.approvalPending);
}

/** `confirm` itself: the audit amount (the rest of the applied amount back to the wallet) and the price. */
async function confirmNow(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  s: Settlement,
  c: Confirmation,
  userId: number,
): Promise<Settlement> {
  const now = deps.clock.now();
  const row = await move(deps, tx, s, 'confirm', {
    auditAmount: c.auditAmount,
    price: c.price ?? null,
    usdtAmount: c.price === undefined ? null : usdtAmountOf(c.auditAmount, c.price),
    confirmedBy: userId,
    confirmedAt: now,
  });
  await changeHold(deps, tx, row, c.auditAmount - s.amount, userId);
  await announce(deps, tx, row);
  return row;
}

/**
 * A platform user's confirmation of a settlement the caller holds locked. Above the maker–checker
 * threshold (on the audit amount) it only records the request (`askApproval`): a second platform user's
 * approval confirms it with these figures (`onApproved` below). Answers the settlement and whether it waits.
 */
export async function confirmSettlement(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  s: Settlement,
  c: Confirmation,
  userId: number,
  lang: Lang,
): Promise<{ settlement: Settlement; awaitsApproval: boolean }> {
  await checkConfirm(tx, s, c, lang);
  const request = await aloneOrApprovalOnMerchant(deps, tx, 'settlement.confirm', userId, {
    merchantId: s.merchantId,
    currency: s.currency,
    wallet: s.wallet,
    amount: c.auditAmount,
    ref: `settlement:${s.settlementNo}`,
    refType: settlementRefType,
    refId: s.id,
    payload: { auditAmount: formatMinor(c.auditAmount), price: c.price ?? null },
  });
  if (!request) return { settlement: await confirmNow(deps, tx, s, c, userId), awaitsApproval: false };
  return { settlement: await move(deps, tx, s, 'askApproval'), awaitsApproval: true };
}

// The second person's approval confirms with the figures the first asked for; the approver is the confirmer.
onApproved('settlement.confirm', async (deps, tx, request, approverId) => {
  const s = await loadSettlement(tx, { id: Number(request.refId) }, {}, true);
  allowed(s, 'confirm');
  const payload = request.payload as { auditAmount: string; price: string | null };
  const c = { auditAmount: toMinor(payload.auditAmount), price: payload.price ?? undefined };
  if (c.auditAmount > s.amount)
    throw new AppError(errno.conflict, null, 'audit amount above the applied amount');
  const row = await confirmNow(deps, tx, s, c, approverId);
  return {
    changes: {
      status: { before: s.status, after: row.status },
      held: { before: formatMinor(heldOf(s)), after: formatMinor(heldOf(row)) },
    },
    detail: { settlementNo: row.settlementNo, auditAmount: payload.auditAmount, price: payload.price },
  };
});

/** What completing needs: the bank's or the chain's reference, and uploaded proof images to attach. */
export interface Completion {
  reference: string;
  attachments?: readonly number[] | undefined;
}

/**
 * The checks of a completion before the code is spent: its state; a completer who neither confirmed it
 * nor asked for its confirmation's approval (1040, maker–checker); images that exist and belong to no
 * settlement yet (422).
 */
export async function checkComplete(
  tx: Db,
  s: Settlement,
  c: Completion,
  userId: number,
  lang: Lang = 'en',
): Promise<void> {
  allowed(s, 'complete');
  if (s.confirmedBy === userId) throw new AppError(errno.sameUser);
  const [asked] = await tx
    .select({ id: approvals.id })
    .from(approvals)
    .where(
      and(
        eq(approvals.refType, settlementRefType),
        eq(approvals.refId, String(s.id)),
        eq(approvals.action, 'settlement.confirm'),
        eq(approvals.status, approval.state.approved),
        eq(approvals.requestedBy, userId),
      ),
    );
  if (asked) throw new AppError(errno.sameUser);
  const ids = [...new Set(c.attachments ?? [])];
  if (!ids.length) return;
  const free = await tx
    .select({ id: settlementImages.id })
    .from(settlementImages)
    .where(and(inArray(settlementImages.id, ids), isNull(settlementImages.settlementId)));
  if (free.length !== ids.length) throw invalidField(lang, 'attachments', 'validation.attachments');
}

/**
 * Completes settlement `id`: the money reached the merchant, the hold is spent (`settlement_paid`), the
 * proof images are attached (once: an image already attached elsewhere is refused). The checks and effects
 * of `/settlementPayment/complete` and `/settlementPayout/complete` without the Google code, for callers
 * that have their own (a withdrawal slip's line marked withdrawn).
 */
export async function completeSettlement(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  id: number,
  c: Completion,
  userId: number,
  lang: Lang = 'en',
): Promise<Settlement> {
  const s = await loadSettlement(tx, { id }, {}, true);
  await checkComplete(tx, s, c, userId, lang);
  const ids = [...new Set(c.attachments ?? [])];
  if (ids.length) {
    const attached = await tx
      .update(settlementImages)
      .set({ settlementId: s.id })
      .where(and(inArray(settlementImages.id, ids), isNull(settlementImages.settlementId)))
      .returning({ id: settlementImages.id });
    if (attached.length !== ids.length) throw invalidField(lang, 'attachments', 'validation.attachments');
  }
  const now = deps.clock.now();
  const row = await move(deps, tx, s, 'complete', {
    reference: c.reference,
    attachments: [...s.attachments, ...ids],
    completedBy: userId,
    completedAt: now,
  });
  await post(tx, settlementEntry(row, { kind: 'settlement_paid' }, userId, now));
  await announce(deps, tx, row);
  return row;
}
