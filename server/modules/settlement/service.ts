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
import { and, eq, gte, lte, type SQL, sql } from 'drizzle-orm';
import { type SettlementStatus, settlement } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { settlements } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Settlement, SettlementWallet } from './views.ts';

export {
  type Application,
  applySettlement,
  checkApplication,
  checkEdit,
  type Destination,
  type Edit,
  updateSettlement,
} from './apply.ts';
export {
  type Completion,
  type Confirmation,
  cancelledReason,
  cancelSettlement,
  checkComplete,
  checkConfirm,
  checkReject,
  completeSettlement,
  confirmSettlement,
  rejectSettlement,
} from './decisions.ts';
export { heldOf, paidOf, settlementEntry, usdtAmountOf } from './money.ts';
export { allowed } from './transitions.ts';
export {
  loadSettlement,
  type Settlement,
  type SettlementRow,
  type SettlementScope,
  type SettlementWallet,
  settlementCallbackOf,
  settlementRefType,
  settlementRowOf,
  settlementRowsOf,
  walletAccountKind,
} from './views.ts';

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
