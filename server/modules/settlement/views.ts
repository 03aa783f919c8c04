/** A settlement as the console and the merchant's callback see it, and how it is loaded within a tenancy. */

import { and, eq, inArray } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { settlementRow } from '../../../contract/endpoints/settlement.ts';
import { errno } from '../../../contract/errno.ts';
import type { gatewaySettlement } from '../../../contract/gateway.ts';
import { approval, slipLine } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import {
  approvals,
  type merchants,
  settlements,
  withdrawalSlipLines,
  withdrawalSlips,
} from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import { AppError } from '../../http/errors.ts';
import { labelsOf, merchantCodes, userNames } from '../../list/labels.ts';
import { decimalOut } from '../merchant/terms.ts';

export type Settlement = typeof settlements.$inferSelect;
export type SettlementWallet = Settlement['wallet'];
export type SettlementRow = z.output<typeof settlementRow>;
export type Merchant = typeof merchants.$inferSelect;

/** Ledger `refType` of every settlement entry, and the approvals' `refType` of a settlement. */
export const settlementRefType = 'settlement';

/** The merchant account a wallet's settlements take money from. */
export const walletAccountKind = { collection: 'collection_available', payout: 'payout_available' } as const;

/**
 * What the merchant's server is told (`settlement.updated`): the gateway-facing fields, no operators' names;
 * exactly `gatewaySettlement`'s (the contract declares every callback's data: `callbackData`).
 */
export function settlementCallbackOf(s: Settlement): z.output<typeof gatewaySettlement> {
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
  const code = await labelsOf(
    tx,
    merchantCodes,
    rows.map((s) => s.merchantId),
  );
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
  const name = await labelsOf(tx, userNames, [
    ...rows.flatMap((s) => [s.appliedBy, s.confirmedBy, s.completedBy]),
    ...pending.map((a) => a.requestedBy),
  ]);
  const nameOf = (id: number | null) => (id === null ? null : (name.get(id) ?? null));
  const approvalOf = new Map(pending.map((a) => [Number(a.refId), a]));
  const slipOf = new Map(slips.map((l) => [l.objectId, l.slipNo]));
  return rows.map((s) => {
    const a = approvalOf.get(s.id);
    // What the merchant is told, and who worked on it, where it waits and on which slip.
    return {
      id: s.id,
      ...settlementCallbackOf(s),
      merchantId: s.merchantId,
      merchantCode: code.get(s.merchantId) ?? '',
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
