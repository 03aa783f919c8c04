/** Applying for a settlement and editing the application: the checks before a code is spent, and the hold. */
import { eq, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { settlement } from '../../../contract/machines.ts';
import { feeOf, formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { merchants, settlements } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { merchantBalances, post, rowsOf } from '../../ledger/index.ts';
import { storedZone } from '../../lib/businessDay.ts';
import { readParameter } from '../../lib/parameters.ts';
import { pendingApproval } from '../approval/service.ts';
import { alertSettlementApplied } from '../telegram/service.ts';
import { changeHold, settlementEntry } from './money.ts';
import { allowed, announce, move } from './transitions.ts';
import {
  type Merchant,
  type Settlement,
  type SettlementWallet,
  settlementRefType,
  walletAccountKind,
} from './views.ts';

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
