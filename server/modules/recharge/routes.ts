import { and, desc, eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import type { ActionOf } from '../../../contract/machine.ts';
import { type RechargeStatus, recharge } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import { type Db, sqlState } from '../../db/index.ts';
import { merchants, recharges } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { type AuditEntry, handle } from '../../http/handle.ts';
import { merchantAccount, platformAccount, post } from '../../ledger/index.ts';
import { changes } from '../../lib/redact.ts';
import { pagedList } from '../../list/engine.ts';
import { merchantScope } from '../../list/scope.ts';
import { aloneOrApprovalOnMerchant } from '../approval/doors.ts';
import {
  approvalRequested,
  cancelPendingApproval,
  onApproved,
  pendingApproval,
} from '../approval/service.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { loadMerchant } from '../merchant/scope.ts';

type Recharge = typeof recharges.$inferSelect;
/** A platform user's decision on a recharge. */
type RechargeAction = ActionOf<typeof recharge>;

function rowOf(r: Recharge, merchantCode: string) {
  return {
    id: r.id,
    merchantId: r.merchantId,
    merchantCode,
    currency: r.currency,
    amount: formatMinor(r.amount),
    status: r.status,
    reference: r.reference,
    note: r.note,
    rejectReason: r.rejectReason,
    createdAt: r.createdAt.toISOString(),
    decidedAt: r.decidedAt?.toISOString() ?? null,
  };
}

async function codeOf(tx: Db, merchantId: number): Promise<string> {
  const [m] = await tx.select({ code: merchants.code }).from(merchants).where(eq(merchants.id, merchantId));
  return m?.code ?? '';
}

/**
 * The recharge's state, when `decision` may start from it: read before the acting user's Google code
 * is spent. An unknown recharge is 404, one the decision may not start from 409.
 */
async function stateFor(tx: Db, decision: RechargeAction, id: number): Promise<RechargeStatus> {
  const [row] = await tx.select({ status: recharges.status }).from(recharges).where(eq(recharges.id, id));
  if (!row) throw new AppError(errno.notFound);
  if (!recharge.can(decision, row.status)) throw new AppError(errno.conflict);
  return row.status;
}

/**
 * Runs `decision` on a recharge seen in `from` by compare-and-set: of a confirm and a reject racing,
 * exactly one finds it still there. A recharge that moved meanwhile is a conflict (409); an unknown one 404.
 */
async function decide(
  tx: Db,
  id: number,
  decision: RechargeAction,
  from: RechargeStatus,
  set: Pick<Recharge, 'decidedBy' | 'decidedAt'> & { rejectReason?: string },
): Promise<Recharge> {
  const [row] = await tx
    .update(recharges)
    .set({ ...set, status: recharge.to(decision)! })
    .where(and(eq(recharges.id, id), eq(recharges.status, from)))
    .returning();
  if (row) return row;
  const [exists] = await tx.select({ id: recharges.id }).from(recharges).where(eq(recharges.id, id));
  throw new AppError(exists ? errno.conflict : errno.notFound);
}

/** The ledger's and the approvals' name for a recharge. */
const rechargeRefType = 'recharge';

/**
 * Confirms a recharge seen in `from`, as `userId`: the money the merchant sent arrives through the
 * platform's bank (settlement clearing) in its payout wallet. Answers the row and what the log records.
 */
async function confirmRecharge(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  id: number,
  from: RechargeStatus,
  userId: number,
): Promise<{
  row: Recharge;
  audit: Pick<AuditEntry, 'changes' | 'detail'> & { detail: Record<string, unknown> };
}> {
  const now = deps.clock.now();
  const row = await decide(tx, id, 'confirm', from, { decidedBy: userId, decidedAt: now });
  const lines = await post(tx, {
    kind: 'recharge',
    refType: rechargeRefType,
    refId: row.id,
    userId,
    at: now,
    lines: [
      { account: platformAccount('settlement_clearing', row.currency), amount: -row.amount },
      { account: merchantAccount(row.merchantId, 'payout_available', row.currency), amount: row.amount },
    ],
  });
  const wallet = lines.find((l) => l.account.ownerType === 'merchant')!;
  return {
    row,
    audit: {
      changes: {
        status: { before: from, after: row.status },
        payoutAvailable: {
          before: formatMinor(wallet.balanceBefore),
          after: formatMinor(wallet.balanceAfter),
        },
      },
      detail: { merchantId: row.merchantId, amount: formatMinor(row.amount) },
    },
  };
}

// Beyond the day's sums a recharge is credited when a second platform user approves, in their name.
onApproved('recharge.confirm', async (deps, tx, request, approverId) => {
  const from = await stateFor(tx, 'confirm', Number(request.refId));
  const done = await confirmRecharge(deps, tx, Number(request.refId), from, approverId);
  return done.audit;
});

export const rechargeRoutes = [
  handle(endpoints.merchantRechargeLog.list, async ({ input, user, tx }) => {
    // A merchant user sees its own recharges whatever the request names.
    const merchantId = merchantScope(user, input.merchantId, 'ignored');
    const where = and(
      merchantId !== undefined ? eq(recharges.merchantId, merchantId) : undefined,
      input.status ? eq(recharges.status, input.status) : undefined,
    );
    const { page: rows, total: n } = await pagedList(
      tx,
      {
        query: tx
          .select({ r: recharges, code: merchants.code })
          .from(recharges)
          .innerJoin(merchants, eq(merchants.id, recharges.merchantId))
          .$dynamic(),
        table: recharges,
        where,
        orderBy: [desc(recharges.createdAt), desc(recharges.id)],
      },
      input,
    );
    return { list: rows.map(({ r, code }) => rowOf(r, code)), total: n, nextCursor: null };
  }),

  handle(endpoints.merchantRechargeLog.create, async ({ input, user, tx, deps, audit }) => {
    const m = await loadMerchant(tx, user.merchantId!);
    // One bank transfer credits once: the reference (trimmed, upper case by the contract) is the
    // merchant's once, a rejected report aside. The unique index says so, for a report racing another too.
    const [row] = await tx
      .insert(recharges)
      .values({
        merchantId: m.id,
        currency: m.currency,
        amount: input.amount,
        reference: input.reference,
        note: input.note ?? '',
        createdBy: user.id,
        createdAt: deps.clock.now(),
      })
      .returning()
      .catch((err: unknown) => {
        if (sqlState(err) === '23505') throw new AppError(errno.referenceTaken);
        throw err;
      });
    audit({
      target: `recharge:${row!.id}`,
      changes: changes(
        {},
        {
          merchantId: m.id,
          amount: formatMinor(input.amount),
          reference: input.reference,
          note: input.note ?? '',
        },
      ),
    });
    return rowOf(row!, m.code);
  }),

  handle(endpoints.merchantRechargeLog.confirm, async ({ input, user, tx, deps, req, audit }) => {
    audit({ target: `recharge:${input.id}`, detail: { reason: input.reason } });
    const from = await stateFor(tx, 'confirm', input.id);
    // While a second person is asked about this recharge, nobody confirms it by hand meanwhile.
    if (await pendingApproval(tx, rechargeRefType, input.id)) throw new AppError(errno.approvalPending);
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const [r] = await tx.select().from(recharges).where(eq(recharges.id, input.id));
    const request = await aloneOrApprovalOnMerchant(deps, tx, 'recharge.confirm', user.id, {
      merchantId: r!.merchantId,
      currency: r!.currency,
      wallet: 'payout',
      amount: r!.amount,
      ref: `recharge:${r!.id}`,
      refType: rechargeRefType,
      refId: r!.id,
      payload: { id: r!.id, reference: r!.reference, reason: input.reason },
      reason: input.reason,
    });
    if (request) return approvalRequested(audit, request, { reason: input.reason });
    const done = await confirmRecharge(deps, tx, input.id, from, user.id);
    audit({ ...done.audit, detail: { ...done.audit.detail, reason: input.reason } });
    return rowOf(done.row, await codeOf(tx, done.row.merchantId));
  }),

  handle(endpoints.merchantRechargeLog.reject, async ({ input, user, tx, deps, req, audit }) => {
    audit({ target: `recharge:${input.id}`, detail: { reason: input.reason } });
    const from = await stateFor(tx, 'reject', input.id);
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const row = await decide(tx, input.id, 'reject', from, {
      decidedBy: user.id,
      decidedAt: deps.clock.now(),
      rejectReason: input.reason,
    });
    await cancelPendingApproval(deps, tx, rechargeRefType, row.id);
    audit({
      changes: changes(
        { status: from, rejectReason: null },
        { status: row.status, rejectReason: input.reason },
      ),
      detail: { merchantId: row.merchantId, amount: formatMinor(row.amount), reason: input.reason },
    });
    return rowOf(row, await codeOf(tx, row.merchantId));
  }),
];
