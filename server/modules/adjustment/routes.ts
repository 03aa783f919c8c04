/**
 * Balance adjustments (`balanceAdjustment.*`, OPERATIONS.md section 4): the platform credits or debits a
 * merchant's wallet by hand, with a reason. The money moves as one journal entry (`adjustment`/`adjustment`)
 * between the wallet and the platform's `balance_adjustment` account, and a `balance_adjustments` row
 * records it, written once, when the money moves. Above the `maker_checker_threshold` the call becomes an
 * approval request (`wallet.adjust`, one pending per merchant wallet); the approval applies it once (the
 * approval's compare-and-set, and the row's unique `approval_id` behind it). A debit never takes the wallet
 * below zero: the ledger refuses (errno insufficientBalance) and nothing is written.
 */
import { eq, inArray } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { adjustmentRow } from '../../../contract/endpoints/adjustment.ts';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { balanceAdjustments, merchants, users } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import {
  drawId,
  merchantAccount,
  merchantBalances,
  platformAccount,
  postForEntryId,
} from '../../ledger/index.ts';
import { createdPlace, keysetList } from '../../list/engine.ts';
import { merchantScope } from '../../list/scope.ts';
import { aloneOrApprovalOnMerchant } from '../approval/doors.ts';
import { approvalRequested, onApproved } from '../approval/service.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { loadMerchant } from '../merchant/scope.ts';

type AdjustmentRow = z.output<typeof adjustmentRow>;
type Adjustment = typeof balanceAdjustments.$inferSelect;

/** The journal entry's cause: `(adjustment, <balance_adjustments.id>, adjustment)`, posted once. */
export const adjustmentRefType = 'adjustment';

/** What an adjustment does, as the request records it and the approval replays it (no code: never a secret). */
export interface AdjustmentOrder {
  merchantId: number;
  wallet: Adjustment['wallet'];
  currency: string;
  /** Signed minor units: a credit positive, a debit negative. */
  amount: number;
  reason: string;
}

/**
 * Moves the money and records it: the row's id is taken first so that the entry names it as its cause and
 * the row names the entry. Throws 1019 (the ledger) when a debit would take the wallet below zero.
 */
async function applyAdjustment(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  a: AdjustmentOrder,
  by: { requestedBy: number; approvalId?: number; approvedBy?: number },
): Promise<Adjustment> {
  const at = deps.clock.now();
  const id = await drawId(tx, 'balance_adjustments');
  const entryId = await postForEntryId(tx, {
    kind: adjustmentRefType,
    refType: adjustmentRefType,
    refId: id,
    memo: a.reason,
    userId: by.approvedBy ?? by.requestedBy,
    at,
    lines: [
      { account: merchantAccount(a.merchantId, a.wallet, a.currency), amount: a.amount },
      { account: platformAccount('balance_adjustment', a.currency), amount: -a.amount },
    ],
  });
  const [row] = await tx
    .insert(balanceAdjustments)
    .values({
      id,
      ...a,
      requestedBy: by.requestedBy,
      approvalId: by.approvalId ?? null,
      approvedBy: by.approvedBy ?? null,
      entryId,
      createdAt: at,
    })
    .returning();
  return row!;
}

/** Console rows: merchant codes and usernames in two small queries; usernames only for platform users. */
async function viewOf(tx: Db, rows: readonly Adjustment[], withNames: boolean): Promise<AdjustmentRow[]> {
  if (!rows.length) return [];
  const merchantIds = [...new Set(rows.map((r) => r.merchantId))];
  const found = await tx
    .select({ id: merchants.id, code: merchants.code, name: merchants.name })
    .from(merchants)
    .where(inArray(merchants.id, merchantIds));
  const byId = new Map(found.map((m) => [m.id, m]));
  const userIds = [...new Set(rows.flatMap((r) => [r.requestedBy, ...(r.approvedBy ? [r.approvedBy] : [])]))];
  const names = withNames
    ? new Map(
        (
          await tx
            .select({ id: users.id, username: users.username })
            .from(users)
            .where(inArray(users.id, userIds))
        ).map((u) => [u.id, u.username]),
      )
    : null;
  const nameOf = (id: number | null) => (names && id !== null ? (names.get(id) ?? String(id)) : null);
  return rows.map((r) => ({
    id: r.id,
    merchantId: r.merchantId,
    merchantCode: byId.get(r.merchantId)?.code ?? '',
    merchantName: byId.get(r.merchantId)?.name ?? '',
    wallet: r.wallet,
    currency: r.currency,
    amount: formatMinor(r.amount),
    reason: r.reason,
    requestedBy: nameOf(r.requestedBy),
    approvedBy: nameOf(r.approvedBy),
    approvalId: r.approvalId,
    createdAt: r.createdAt.toISOString(),
  }));
}

// Above the threshold the adjustment runs when a second platform user approves it, in their name.
onApproved('wallet.adjust', async (deps, tx, request, approverId) => {
  const order = request.payload as unknown as AdjustmentOrder;
  const row = await applyAdjustment(deps, tx, order, {
    requestedBy: request.requestedBy,
    approvalId: request.id,
    approvedBy: approverId,
  });
  return { detail: { adjustment: row.id, amount: formatMinor(row.amount), wallet: row.wallet } };
});

export const adjustmentRoutes = [
  handle(endpoints.balanceAdjustment.list, async ({ input, user, tx, req }) => {
    // A merchant user sees its own merchant's adjustments, whatever it names.
    const merchantId = merchantScope(user, input.merchantId, 'ignored');
    const { page, ...rest } = await keysetList(
      tx,
      {
        query: tx.select().from(balanceAdjustments).$dynamic(),
        table: balanceAdjustments,
        where: merchantId === undefined ? undefined : eq(balanceAdjustments.merchantId, merchantId),
        keyset: {
          at: balanceAdjustments.createdAt,
          id: balanceAdjustments.id,
          serialId: true,
          placeOf: createdPlace,
        },
      },
      input,
      req.lang,
    );
    return { list: await viewOf(tx, page, user.kind === 'platform'), ...rest };
  }),

  handle(endpoints.balanceAdjustment.create, async ({ input, user, tx, deps, req, audit }) => {
    const m = await loadMerchant(tx, input.merchantId);
    const signed = input.direction === 'credit' ? input.amount : -input.amount;
    const order: AdjustmentOrder = {
      merchantId: m.id,
      wallet: input.wallet,
      currency: m.currency,
      amount: signed,
      reason: input.reason,
    };
    const described = {
      wallet: input.wallet,
      amount: formatMinor(signed),
      currency: m.currency,
      reason: input.reason,
    };
    audit({ target: `merchant:${m.id}`, detail: described });
    // A debit past the balance is refused before anyone is asked (the ledger refuses it again when it runs).
    if (signed < 0 && (await merchantBalances(tx, m.id, m.currency))[input.wallet] < -signed)
      throw new AppError(errno.insufficientBalance);
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    // One pending request per merchant wallet: a second one (a double submission) waits for the first.
    const request = await aloneOrApprovalOnMerchant(deps, tx, 'wallet.adjust', user.id, {
      merchantId: m.id,
      currency: m.currency,
      wallet: input.wallet === 'payout_available' ? 'payout' : 'collection',
      amount: input.amount,
      ref: `merchant:${m.id}:${input.wallet}`,
      refType: adjustmentRefType,
      refId: `${m.id}:${input.wallet}`,
      payload: { ...order },
      reason: input.reason,
    });
    if (request) return approvalRequested(audit, request, described);
    const row = await applyAdjustment(deps, tx, order, { requestedBy: user.id });
    audit({ target: `adjustment:${row.id}`, detail: { ...described, merchant: m.code } });
    return (await viewOf(tx, [row], true))[0]!;
  }),
];
