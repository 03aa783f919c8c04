import { and, count, desc, eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import type { ActionOf } from '../../../contract/machine.ts';
import { type RechargeStatus, recharge } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import { type Db, sqlState } from '../../db/index.ts';
import { merchants, recharges } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { merchantAccount, platformAccount, post } from '../../ledger/index.ts';
import { pageWindow } from '../../lib/paging.ts';
import { changes } from '../../lib/redact.ts';
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

export const rechargeRoutes = [
  handle(endpoints.merchantRechargeLog.list, async ({ input, user, tx }) => {
    // A merchant user sees its own recharges whatever the request names.
    const merchantId = user.kind === 'merchant' ? user.merchantId! : input.merchantId;
    const where = and(
      merchantId !== undefined ? eq(recharges.merchantId, merchantId) : undefined,
      input.status ? eq(recharges.status, input.status) : undefined,
    );
    const { limit, offset } = pageWindow(input.page, input.pageSize);
    const rows = await tx
      .select({ r: recharges, code: merchants.code })
      .from(recharges)
      .innerJoin(merchants, eq(merchants.id, recharges.merchantId))
      .where(where)
      .orderBy(desc(recharges.createdAt), desc(recharges.id))
      .limit(limit)
      .offset(offset);
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(recharges).where(where);
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
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const now = deps.clock.now();
    const row = await decide(tx, input.id, 'confirm', from, { decidedBy: user.id, decidedAt: now });
    // The money the merchant sent arrives through the platform's bank (settlement clearing).
    const lines = await post(tx, {
      kind: 'recharge',
      refType: 'recharge',
      refId: row.id,
      userId: user.id,
      at: now,
      lines: [
        { account: platformAccount('settlement_clearing', row.currency), amount: -row.amount },
        { account: merchantAccount(row.merchantId, 'payout_available', row.currency), amount: row.amount },
      ],
    });
    const wallet = lines.find((l) => l.account.ownerType === 'merchant')!;
    audit({
      changes: {
        status: { before: from, after: row.status },
        payoutAvailable: {
          before: formatMinor(wallet.balanceBefore),
          after: formatMinor(wallet.balanceAfter),
        },
      },
      detail: { merchantId: row.merchantId, amount: formatMinor(row.amount), reason: input.reason },
    });
    return rowOf(row, await codeOf(tx, row.merchantId));
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
