/**
 * Settlement applications (OPERATIONS.md section 1): one engine for both of a merchant's wallets, the
 * `settlement` machine of contract/machines.ts applied by compare-and-set. Every function here runs in
 * the caller's transaction; the routes add the Google code, the operation log and tenancy.
 *
 * Ledger entries (refType `settlement`, refId = the settlement id), the wallet being `collection_available`
 * or `payout_available`:
 * - `settlement_hold`:      wallet −(amount+fee), frozen +(amount+fee)            (apply)
 * - `settlement_hold_<n>`:  a later change of the hold (n = 2, 3…): an edit of the amount, or a
 *                           confirmation below the amount (the difference back to the wallet)
 * - `settlement_release`:   frozen −held, wallet +held                             (cancel, reject)
 * - `settlement_paid`:      frozen −(audit+fee), settlement_clearing +audit, fee_income +fee (complete)
 * The hold is open exactly while the status is in `settlement.sets.open`, and resolved once: the row's
 * compare-and-set lets one resolution through, and the journal's unique cause refuses a second posting.
 */
import { and, eq, gte, inArray, isNull, lte, type SQL, sql } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { settlementRow } from '../../../contract/endpoints/settlement.ts';
import { errno } from '../../../contract/errno.ts';
import {
  approval,
  type SettlementAction,
  type SettlementStatus,
  settlement,
  slipLine,
} from '../../../contract/machines.ts';
import { feeOf, formatMinor, toMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import {
  approvals,
  merchants,
  settlementImages,
  settlements,
  users,
  withdrawalSlipLines,
  withdrawalSlips,
} from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { enqueueCallback } from '../../jobs/webhooks.ts';
import {
  type Entry,
  merchantAccount,
  merchantBalances,
  platformAccount,
  post,
  rowsOf,
} from '../../ledger/index.ts';
import { storedZone } from '../../lib/businessDay.ts';
import { readParameter } from '../../lib/parameters.ts';
import { aloneOrApproval, merchantWallet } from '../approval/doors.ts';
import { cancelPendingApproval, onApproved, pendingApproval } from '../approval/service.ts';
import { decimalOut } from '../merchant/terms.ts';
import { refuseWhileOnSlip } from '../slip/live.ts';
import { alertSettlementApplied } from '../telegram/service.ts';

export type Settlement = typeof settlements.$inferSelect;
export type SettlementWallet = Settlement['wallet'];
export type SettlementRow = z.output<typeof settlementRow>;
type Merchant = typeof merchants.$inferSelect;

/** Ledger `refType` of every settlement entry, and the approvals' `refType` of a settlement. */
export const settlementRefType = 'settlement';

/** The merchant account a wallet's settlements take money from. */
export const walletAccountKind = { collection: 'collection_available', payout: 'payout_available' } as const;

// ---------------------------------------------------------------------------------------------------
// Money

/** How much the hold holds now: the approved amount once confirmed, else the applied one, plus the fee. */
export const heldOf = (s: Pick<Settlement, 'amount' | 'auditAmount' | 'fee'>) =>
  (s.auditAmount ?? s.amount) + s.fee;

/**
 * The journal entry of a step of a settlement's hold: a step with `by` moves that much from the wallet to
 * frozen (a negative `by` moves it back: a lower amount, a confirmation below it, the release);
 * `settlement_paid` spends the hold: the audit amount leaves through settlement clearing, the fee is the
 * platform's income. The demo's writer posts the same entries.
 */
export function settlementEntry(
  s: Pick<
    Settlement,
    'id' | 'merchantId' | 'wallet' | 'currency' | 'settlementNo' | 'amount' | 'auditAmount' | 'fee'
  >,
  step: { kind: string; by: number } | { kind: 'settlement_paid' },
  userId: number | null,
  at: Date,
): Entry {
  const wallet = merchantAccount(s.merchantId, walletAccountKind[s.wallet], s.currency);
  const frozen = merchantAccount(s.merchantId, 'frozen', s.currency);
  const base = { kind: step.kind, refType: settlementRefType, refId: s.id, memo: s.settlementNo, userId, at };
  if ('by' in step) {
    return {
      ...base,
      lines: [
        { account: wallet, amount: -step.by },
        { account: frozen, amount: step.by },
      ],
    };
  }
  const paid = s.auditAmount ?? s.amount;
  return {
    ...base,
    lines: [
      { account: frozen, amount: -(paid + s.fee) },
      { account: platformAccount('settlement_clearing', s.currency), amount: paid },
      ...(s.fee > 0 ? [{ account: platformAccount('fee_income', s.currency), amount: s.fee }] : []),
    ],
  };
}

/** The next `settlement_hold_<n>` of a settlement (its row locked by the transition just made: n is its own). */
async function nextHoldKind(tx: Db, id: number): Promise<string> {
  const [row] = rowsOf<{ n: number }>(
    await tx.execute(sql`
      select count(*)::int as n from journal_entries
      where ref_type = ${settlementRefType} and ref_id = ${String(id)} and kind like 'settlement\\_hold%'`),
  );
  return `settlement_hold_${Number(row?.n ?? 0) + 1}`;
}

/** Moves the hold by `by` (positive: more frozen from the wallet; 1019 when the wallet is short). */
async function changeHold(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  s: Settlement,
  by: number,
  userId: number | null,
) {
  if (by === 0) return;
  await post(tx, settlementEntry(s, { kind: await nextHoldKind(tx, s.id), by }, userId, deps.clock.now()));
}

/** USDT for `auditMinor` at `price` units per USDT, rounded down to 6 decimals, in integers throughout. */
export function usdtAmountOf(auditMinor: number, price: string): string {
  const [whole = '0', frac = ''] = price.split('.');
  const priceMicro = BigInt(whole) * 1_000_000n + BigInt(frac.padEnd(6, '0').slice(0, 6));
  // (audit / 100) / (priceMicro / 10^6) USDT, in millionths: audit × 10^10 / priceMicro.
  const micro = (BigInt(auditMinor) * 10_000_000_000n) / priceMicro;
  return `${micro / 1_000_000n}.${String(micro % 1_000_000n).padStart(6, '0')}`;
}

// ---------------------------------------------------------------------------------------------------
// Views

/** What the merchant's server is told (`settlement.updated`): the gateway-facing fields, no operators' names. */
export function settlementCallbackOf(s: Settlement) {
  return {
    settlementNo: s.settlementNo,
    wallet: s.wallet,
    type: s.type,
    currency: s.currency,
    amount: formatMinor(s.amount),
    auditAmount: s.auditAmount === null ? null : formatMinor(s.auditAmount),
    fee: formatMinor(s.fee),
    status: s.status,
    accountName: s.accountName,
    cardNumber: s.cardNumber,
    ifsc: s.ifsc,
    returnAddress: s.returnAddress,
    price: s.price === null ? null : decimalOut(s.price),
    usdtAmount: s.usdtAmount,
    reference: s.reference,
    reason: s.reason,
    createdAt: s.createdAt.toISOString(),
    confirmedAt: s.confirmedAt?.toISOString() ?? null,
    completedAt: s.completedAt?.toISOString() ?? null,
    failedAt: s.failedAt?.toISOString() ?? null,
  };
}

/** Console rows: merchant codes, user names, pending approvals and live slips fetched in a few small queries. */
export async function settlementRowsOf(tx: Db, rows: readonly Settlement[]): Promise<SettlementRow[]> {
  if (!rows.length) return [];
  const ids = rows.map((s) => s.id);
  const ms = await tx
    .select({ id: merchants.id, code: merchants.code })
    .from(merchants)
    .where(inArray(merchants.id, [...new Set(rows.map((s) => s.merchantId))]));
  const pending = await tx
    .select()
    .from(approvals)
    .where(
      and(
        eq(approvals.refType, settlementRefType),
        inArray(approvals.refId, ids.map(String)),
        eq(approvals.status, approval.state.pending),
      ),
    );
  const slips = await tx
    .select({ objectId: withdrawalSlipLines.objectId, slipNo: withdrawalSlips.slipNo })
    .from(withdrawalSlipLines)
    .innerJoin(withdrawalSlips, eq(withdrawalSlips.id, withdrawalSlipLines.slipId))
    .where(
      and(
        eq(withdrawalSlipLines.objectType, 'settlement'),
        inArray(withdrawalSlipLines.objectId, ids),
        inStates(withdrawalSlipLines.status, slipLine.sets.live),
      ),
    );
  const userIds = [
    ...new Set(
      [
        ...rows.flatMap((s) => [s.appliedBy, s.confirmedBy, s.completedBy]),
        ...pending.map((a) => a.requestedBy),
      ].filter((id): id is number => id !== null),
    ),
  ];
  const us = userIds.length
    ? await tx
        .select({ id: users.id, username: users.username })
        .from(users)
        .where(inArray(users.id, userIds))
    : [];
  const code = new Map(ms.map((m) => [m.id, m.code]));
  const name = new Map(us.map((u) => [u.id, u.username]));
  const nameOf = (id: number | null) => (id === null ? null : (name.get(id) ?? null));
  const approvalOf = new Map(pending.map((a) => [Number(a.refId), a]));
  const slipOf = new Map(slips.map((l) => [l.objectId, l.slipNo]));
  return rows.map((s) => {
    const a = approvalOf.get(s.id);
    return {
      id: s.id,
      settlementNo: s.settlementNo,
      wallet: s.wallet,
      merchantId: s.merchantId,
      merchantCode: code.get(s.merchantId) ?? '',
      currency: s.currency,
      type: s.type,
      amount: formatMinor(s.amount),
      auditAmount: s.auditAmount === null ? null : formatMinor(s.auditAmount),
      fee: formatMinor(s.fee),
      status: s.status,
      accountName: s.accountName,
      cardNumber: s.cardNumber,
      ifsc: s.ifsc,
      returnAddress: s.returnAddress,
      price: s.price === null ? null : decimalOut(s.price),
      usdtAmount: s.usdtAmount,
      reference: s.reference,
      reason: s.reason,
      attachments: s.attachments,
      approval: a
        ? {
            id: a.id,
            status: a.status,
            requestedBy: nameOf(a.requestedBy) ?? '',
            requestedAt: a.requestedAt.toISOString(),
          }
        : null,
      slipNo: slipOf.get(s.id) ?? null,
      appliedBy: nameOf(s.appliedBy),
      confirmedBy: nameOf(s.confirmedBy),
      completedBy: nameOf(s.completedBy),
      createdAt: s.createdAt.toISOString(),
      confirmedAt: s.confirmedAt?.toISOString() ?? null,
      completedAt: s.completedAt?.toISOString() ?? null,
      failedAt: s.failedAt?.toISOString() ?? null,
    };
  });
}

export async function settlementRowOf(tx: Db, s: Settlement): Promise<SettlementRow> {
  return (await settlementRowsOf(tx, [s]))[0]!;
}

/** Who may see which settlements: a wallet's endpoints show that wallet's; a merchant user its own. */
export interface SettlementScope {
  wallet?: SettlementWallet;
  /** The merchant a merchant user is confined to; null for platform users. */
  merchantId?: number | null;
}

/**
 * The settlement by id (or number), or 404 when there is none or `scope` may not see it; `lock` takes
 * its row lock, so that what the caller reads is what its compare-and-set will find.
 */
export async function loadSettlement(
  tx: Db,
  ref: { id?: number | undefined; settlementNo?: string | undefined },
  scope: SettlementScope = {},
  lock = false,
): Promise<Settlement> {
  if (ref.id === undefined && ref.settlementNo === undefined) throw new AppError(errno.notFound);
  const where = and(
    ref.id !== undefined ? eq(settlements.id, ref.id) : undefined,
    ref.settlementNo !== undefined ? eq(settlements.settlementNo, ref.settlementNo) : undefined,
    scope.wallet ? eq(settlements.wallet, scope.wallet) : undefined,
    scope.merchantId != null ? eq(settlements.merchantId, scope.merchantId) : undefined,
  );
  const q = tx.select().from(settlements).where(where);
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw new AppError(errno.notFound);
  return row;
}

// ---------------------------------------------------------------------------------------------------
// Transitions

/** Refuses, with the clear 409, an action the settlement's state does not allow (before any code is spent). */
export function allowed(s: Pick<Settlement, 'status'>, action: SettlementAction): void {
  if (!settlement.can(action, s.status))
    throw new AppError(errno.conflict, null, `${action} from ${s.status}`);
}

/**
 * Runs `action` on `s` by compare-and-set on the states it may start from, writing `set` and the state it
 * leads to; a settlement that moved meanwhile is a conflict (409).
 */
async function move(
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
    .where(and(eq(settlements.id, s.id), inStates(settlements.status, settlement.from(action))))
    .returning();
  if (!row) throw new AppError(errno.conflict, null, `${action}: settlement ${s.id} moved meanwhile`);
  return row;
}

/** Queues `settlement.updated` for the status `s` just entered (one event per status: each is entered once). */
async function announce(deps: Pick<Deps, 'clock'>, tx: Db, s: Settlement): Promise<void> {
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

/** 422 naming `amount` when it is below the `min_settlement_amount` parameter. */
async function checkMinimum(tx: Db, amount: number, lang: Lang): Promise<void> {
  const min = await readParameter(tx, 'min_settlement_amount');
  if (amount < min)
    throw invalidField(lang, 'amount', 'validation.settlementMinimum', { min: formatMinor(min) });
}

/** 1019 when the wallet's available balance does not cover `need` (read before a code is spent; `post` decides). */
async function checkCovers(
  tx: Db,
  merchantId: number,
  currency: string,
  wallet: SettlementWallet,
  need: number,
) {
  if (need <= 0) return;
  const balances = await merchantBalances(tx, merchantId, currency);
  if (balances[walletAccountKind[wallet]] < need) throw new AppError(errno.insufficientBalance);
}

/** A bank settlement's destination, or a USDT one's: the fields of the other type are refused (422). */
export interface Destination {
  accountName?: string | undefined;
  cardNumber?: string | undefined;
  ifsc?: string | undefined;
  returnAddress?: string | undefined;
}

function checkDestination(type: Settlement['type'], d: Destination, lang: Lang): void {
  const foreign =
    type === 'bank' ? (['returnAddress'] as const) : (['accountName', 'cardNumber', 'ifsc'] as const);
  const given = foreign.find((k) => d[k] !== undefined);
  if (given) throw invalidField(lang, given, 'validation.settlementDestination');
}

export interface Application extends Destination {
  type: Settlement['type'];
  /** Minor units. */
  amount: number;
}

/**
 * The checks of an application before the applicant's code is spent: an active merchant, the minimum,
 * the destination of its type, a wallet that covers amount + fee. Answers the fee.
 */
export async function checkApplication(
  tx: Db,
  merchant: Merchant,
  wallet: SettlementWallet,
  a: Application,
  lang: Lang,
): Promise<number> {
  if (merchant.status !== 'active') throw new AppError(errno.forbidden, null, 'merchant frozen');
  checkDestination(a.type, a, lang);
  await checkMinimum(tx, a.amount, lang);
  const fee = feeOf(a.amount, merchant.settlementRatePpm, merchant.settlementFee);
  await checkCovers(tx, merchant.id, merchant.currency, wallet, a.amount + fee);
  return fee;
}

/**
 * Applies for a settlement out of `wallet`: amount + fee (the merchant's settlement terms) frozen at once,
 * refused whole (1019) when the wallet does not cover it. The number is `ST`, the business day and the
 * settlement's id: unique without a retry, readable, in order.
 */
export async function applySettlement(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  merchant: Merchant,
  wallet: SettlementWallet,
  a: Application,
  userId: number | null,
  lang: Lang,
): Promise<Settlement> {
  const fee = await checkApplication(tx, merchant, wallet, a, lang);
  const now = deps.clock.now();
  const [drawn] = rowsOf<{ id: string; day: string }>(
    await tx.execute(sql`
      select nextval(pg_get_serial_sequence('settlements', 'id')) as id,
        to_char((${now.toISOString()}::timestamptz at time zone ${storedZone}), 'YYYYMMDD') as day`),
  );
  const id = Number(drawn!.id);
  const [s] = await tx
    .insert(settlements)
    .values({
      id,
      settlementNo: `ST${drawn!.day}${String(id).padStart(6, '0')}`,
      wallet,
      merchantId: merchant.id,
      currency: merchant.currency,
      type: a.type,
      amount: a.amount,
      fee,
      status: settlement.initial,
      accountName: a.type === 'bank' ? (a.accountName ?? null) : null,
      cardNumber: a.type === 'bank' ? (a.cardNumber ?? null) : null,
      ifsc: a.type === 'bank' ? (a.ifsc ?? null) : null,
      returnAddress: a.type === 'usdt' ? (a.returnAddress ?? null) : null,
      appliedBy: userId,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  await post(tx, settlementEntry(s!, { kind: 'settlement_hold', by: s!.amount + s!.fee }, userId, now));
  await announce(deps, tx, s!);
  await alertSettlementApplied(deps, tx, s!, merchant.code);
  return s!;
}

/** An edit: a new amount (the fee recomputed on the merchant's terms, the hold follows) or destination. */
export interface Edit extends Destination {
  amount?: number | undefined;
}

/** The checks of an edit before the code is spent: its state, no pending approval, its fields, the wallet. */
export async function checkEdit(tx: Db, s: Settlement, e: Edit, lang: Lang): Promise<number> {
  allowed(s, 'update');
  if (await pendingApproval(tx, settlementRefType, s.id)) throw new AppError(errno.approvalPending);
  checkDestination(s.type, e, lang);
  if (e.amount === undefined) return s.fee;
  await checkMinimum(tx, e.amount, lang);
  const [m] = await tx.select().from(merchants).where(eq(merchants.id, s.merchantId));
  const fee = feeOf(e.amount, m!.settlementRatePpm, m!.settlementFee);
  await checkCovers(tx, s.merchantId, s.currency, s.wallet, e.amount + fee - (s.amount + s.fee));
  return fee;
}

/** `update` of a settlement whose row the caller holds locked (`loadSettlement(…, lock)`). */
export async function updateSettlement(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  s: Settlement,
  e: Edit,
  userId: number | null,
  lang: Lang,
): Promise<Settlement> {
  const fee = await checkEdit(tx, s, e, lang);
  const amount = e.amount ?? s.amount;
  const row = await move(deps, tx, s, 'update', {
    amount,
    fee,
    ...(e.accountName !== undefined ? { accountName: e.accountName } : {}),
    ...(e.cardNumber !== undefined ? { cardNumber: e.cardNumber } : {}),
    ...(e.ifsc !== undefined ? { ifsc: e.ifsc } : {}),
    ...(e.returnAddress !== undefined ? { returnAddress: e.returnAddress } : {}),
  });
  await changeHold(deps, tx, row, amount + fee - (s.amount + s.fee), userId);
  return row;
}

/** Fails an open settlement (`cancel` by its merchant, `reject` by the platform): the whole hold goes back. */
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
  const request = await aloneOrApproval(
    deps,
    tx,
    'settlement.confirm',
    userId,
    {
      amount: c.auditAmount,
      wallet: merchantWallet(s.merchantId, s.wallet, s.currency),
      ref: `settlement:${s.settlementNo}`,
    },
    {
      refType: settlementRefType,
      refId: s.id,
      merchantId: s.merchantId,
      currency: s.currency,
      payload: { auditAmount: formatMinor(c.auditAmount), price: c.price ?? null },
    },
  );
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

// ---------------------------------------------------------------------------------------------------
// Lists

/** `col` starts with `q`, read through the column's byte order. */
const startsWith = (col: SQL | typeof settlements.settlementNo, q: string) =>
  sql`(${col} collate "C" >= ${q} and ${col} collate "C" < ${`${q}\uffff`})`;

export interface SettlementFilters {
  from: Date;
  to: Date;
  wallet: SettlementWallet;
  merchantId?: number | undefined;
  status?: SettlementStatus | undefined;
  type?: Settlement['type'] | undefined;
  q?: string | undefined;
}

/** The filtered set of a wallet's list (and its totals). */
export function settlementWhere(f: SettlementFilters): SQL {
  const q = f.q?.trim().toUpperCase();
  return and(
    eq(settlements.wallet, f.wallet),
    gte(settlements.createdAt, f.from),
    lte(settlements.createdAt, f.to),
    f.merchantId !== undefined ? eq(settlements.merchantId, f.merchantId) : undefined,
    f.status ? inStates(settlements.status, [f.status]) : undefined,
    f.type ? eq(settlements.type, f.type) : undefined,
    q ? startsWith(settlements.settlementNo, q) : undefined,
  )!;
}

/** Count and sums of a filtered set. */
export async function settlementTotals(tx: Db, where: SQL) {
  const [t] = await tx
    .select({
      count: sql<number>`count(*)::int`,
      amount: sql<string>`coalesce(sum(${settlements.amount}), 0)::text`,
      auditAmount: sql<string>`coalesce(sum(${settlements.auditAmount}), 0)::text`,
      fee: sql<string>`coalesce(sum(${settlements.fee}), 0)::text`,
    })
    .from(settlements)
    .where(where);
  return {
    count: Number(t!.count),
    amount: formatMinor(BigInt(t!.amount)),
    auditAmount: formatMinor(BigInt(t!.auditAmount)),
    fee: formatMinor(BigInt(t!.fee)),
  };
}

/** Per open state of the queue: how many wait, the money they are about, and how long the oldest waited. */
export async function queueSummary(tx: Db, now: Date, merchantId: number | undefined) {
  const rows = await tx
    .select({
      status: settlements.status,
      count: sql<number>`count(*)::int`,
      // To confirm: the applied amounts; to complete: the approved ones, which is what goes out.
      amount: sql<string>`coalesce(sum(coalesce(${settlements.auditAmount}, ${settlements.amount})), 0)::text`,
      oldest: sql<Date | string | null>`min(${settlements.createdAt})`,
    })
    .from(settlements)
    .where(
      and(
        inStates(settlements.status, settlement.sets.open),
        merchantId !== undefined ? eq(settlements.merchantId, merchantId) : undefined,
      ),
    )
    .groupBy(settlements.status);
  const of = (status: SettlementStatus) => {
    const r = rows.find((x) => x.status === status);
    return {
      count: Number(r?.count ?? 0),
      amount: formatMinor(BigInt(r?.amount ?? 0)),
      oldestAgeSeconds: r?.oldest ? ageSeconds(now, new Date(r.oldest)) : null,
    };
  };
  return { toConfirm: of(settlement.state.to_be_confirmed), toComplete: of(settlement.state.confirmed) };
}

export const ageSeconds = (now: Date, since: Date) =>
  Math.max(0, Math.floor((now.getTime() - since.getTime()) / 1000));
