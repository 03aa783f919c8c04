/**
 * The maker–checker queue (`approval.*`): platform users list the requests others made and approve
 * (the requested action runs, in the approver's name, in the same transaction) or reject them. A user
 * never decides their own request (errno sameUser; the database's check says so too).
 */
import { and, eq, inArray } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { approvalRow } from '../../../contract/endpoints/approval.ts';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { approval } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import {
  approvals,
  merchants,
  payinOrders,
  payoutOrders,
  recharges,
  refunds,
  settlements,
  users,
} from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { keysetList } from '../../list/engine.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { type Approval, executorOf, rejecterOf } from './service.ts';

type ApprovalRow = z.output<typeof approvalRow>;

/** How people name the object of each kind of request: its number (one query per kind on the page). */
const labelSources = [
  { refType: 'payin', table: payinOrders, id: payinOrders.id, no: payinOrders.orderNo },
  { refType: 'payout', table: payoutOrders, id: payoutOrders.id, no: payoutOrders.orderNo },
  { refType: 'settlement', table: settlements, id: settlements.id, no: settlements.settlementNo },
  { refType: 'recharge', table: recharges, id: recharges.id, no: recharges.reference },
  { refType: 'refund', table: refunds, id: refunds.id, no: refunds.refundNo },
] as const;

/** Requests whose object has no number of its own are named from what they ask. */
function labelOfPayload(r: Approval): string | null {
  if (r.refType === 'parameter') return r.refId;
  const account = (r.payload as { account?: unknown }).account;
  if (r.refType === 'statementFeed' && typeof account === 'string') return account;
  // Statement lines are named by the orders they pay.
  const orders = (r.payload as { orders?: unknown }).orders;
  if (r.refType === 'statementLines' && typeof orders === 'string') return orders;
  return null;
}

async function labelsOf(tx: Db, rows: readonly Approval[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const source of labelSources) {
    const ids = [
      ...new Set(rows.filter((r) => r.refType === source.refType).map((r) => Number(r.refId))),
    ].filter(Number.isSafeInteger);
    if (!ids.length) continue;
    const found: { id: number; no: string }[] = await tx
      .select({ id: source.id, no: source.no })
      .from(source.table)
      .where(inArray(source.id, ids));
    for (const f of found) out.set(`${source.refType}:${f.id}`, f.no);
  }
  return out;
}

/** A payload's facts for the approver: the object's id and the reason have their own fields; amounts formatted. */
function summaryOf(payload: Record<string, unknown>): ApprovalRow['summary'] {
  return (
    Object.entries(payload)
      // The object's id, the reason and the lines (the orders stand for them) have their own fields; a
      // sealed secret is never answered.
      .filter(
        ([key, value]) =>
          !['id', 'reason', 'lines', 'account'].includes(key) &&
          !key.endsWith('Sealed') &&
          value !== null &&
          value !== undefined,
      )
      .map(([key, value]) => ({
        key,
        value:
          typeof value === 'number' && /amount$/i.test(key)
            ? formatMinor(value)
            : typeof value === 'string'
              ? value
              : JSON.stringify(value),
      }))
  );
}

/** Console rows: usernames, merchant codes and object labels fetched in a few small queries. */
async function rowsOf(tx: Db, rows: readonly Approval[]): Promise<ApprovalRow[]> {
  if (!rows.length) return [];
  const userIds = [
    ...new Set(
      rows.flatMap((r) => [r.requestedBy, ...(r.decidedBy === null ? [] : [r.decidedBy]), ...r.barred]),
    ),
  ];
  const merchantIds = [...new Set(rows.flatMap((r) => (r.merchantId === null ? [] : [r.merchantId])))];
  const names = new Map(
    (
      await tx
        .select({ id: users.id, username: users.username })
        .from(users)
        .where(inArray(users.id, userIds))
    ).map((u) => [u.id, u.username]),
  );
  const codes = new Map(
    merchantIds.length
      ? (
          await tx
            .select({ id: merchants.id, code: merchants.code })
            .from(merchants)
            .where(inArray(merchants.id, merchantIds))
        ).map((m) => [m.id, m.code])
      : [],
  );
  const labels = await labelsOf(tx, rows);
  return rows.map((r) => ({
    id: r.id,
    action: r.action as ApprovalRow['action'],
    refType: r.refType,
    refId: r.refId,
    label: labels.get(`${r.refType}:${r.refId}`) ?? labelOfPayload(r),
    merchantId: r.merchantId,
    merchantCode: r.merchantId === null ? null : (codes.get(r.merchantId) ?? null),
    currency: r.currency,
    amount: formatMinor(r.amount),
    summary: summaryOf(r.payload),
    reason: r.reason,
    barred: r.barred.map((id) => names.get(id) ?? String(id)),
    status: r.status,
    // A negative requester is a merchant's server through the gateway (a refund it asked for).
    requestedBy: names.get(r.requestedBy) ?? (r.requestedBy < 0 ? 'gateway' : String(r.requestedBy)),
    requestedAt: r.requestedAt.toISOString(),
    decidedBy: r.decidedBy === null ? null : (names.get(r.decidedBy) ?? String(r.decidedBy)),
    decidedAt: r.decidedAt?.toISOString() ?? null,
    decisionNote: r.decisionNote,
  }));
}

/**
 * The request `decision` may be taken on, by `userId`: read before the user's Google code is spent. An
 * unknown one is 404, a decided one 409, one the user asked for themselves `sameUser`.
 */
async function decidable(
  tx: Db,
  id: number,
  decision: 'approve' | 'reject',
  userId: number,
): Promise<Approval> {
  const [row] = await tx.select().from(approvals).where(eq(approvals.id, id));
  if (!row) throw new AppError(errno.notFound);
  if (!approval.can(decision, row.status))
    throw new AppError(errno.conflict, null, `${decision} of ${row.status}`);
  // The requester, and whoever supplied the evidence it rests on (a statement's importer), never decide.
  if (row.requestedBy === userId || row.barred.includes(userId)) throw new AppError(errno.sameUser);
  return row;
}

/** Compare-and-set from the states `decision` starts from: of two deciders racing, one wins, the other 409. */
async function decide(
  tx: Db,
  id: number,
  decision: 'approve' | 'reject',
  set: Pick<Approval, 'decidedBy' | 'decidedAt' | 'decisionNote'>,
): Promise<Approval> {
  const [row] = await tx
    .update(approvals)
    .set({ ...set, status: approval.to(decision)! })
    .where(and(eq(approvals.id, id), inStates(approvals.status, approval.from(decision))))
    .returning();
  if (!row) throw new AppError(errno.conflict, null, `${decision}: decided meanwhile`);
  return row;
}

const refOf = (r: Approval) => `${r.refType}:${r.refId}`;

export const approvalRoutes = [
  handle(endpoints.approval.list, async ({ input, tx, req }) => {
    const { page, ...rest } = await keysetList(
      tx,
      {
        query: tx.select().from(approvals).$dynamic(),
        table: approvals,
        where: and(
          eq(approvals.status, input.status),
          input.action ? eq(approvals.action, input.action) : undefined,
        ),
        // Oldest first: the queue's order, the index read backwards.
        keyset: {
          at: approvals.requestedAt,
          id: approvals.id,
          oldestFirst: true,
          serialId: true,
          placeOf: (r) => ({ at: r.requestedAt, id: r.id }),
        },
      },
      input,
      req.lang,
    );
    return { list: await rowsOf(tx, page), ...rest };
  }),

  handle(endpoints.approval.approve, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    audit({ target: `approval:${input.id}` });
    const request = await decidable(tx, input.id, 'approve', user.id);
    const asked = { action: request.action, object: refOf(request), requestedBy: request.requestedBy };
    audit({ detail: asked });
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const row = await decide(tx, request.id, 'approve', {
      decidedBy: user.id,
      decidedAt: deps.clock.now(),
      decisionNote: null,
    });
    // The action itself, as its module runs it: a refusal there (the object moved on) undoes the approval too.
    const outcome = await executorOf(row.action)(deps, tx, row, user.id);
    const view = (await rowsOf(tx, [row]))[0]!;
    audit({
      changes: { status: { before: request.status, after: row.status }, ...outcome?.changes },
      detail: {
        ...asked,
        requestedByName: view.requestedBy,
        label: view.label,
        amount: view.amount,
        ...outcome?.detail,
      },
    });
    afterCommit(wakeWebhookWorkers);
    return view;
  }),

  handle(endpoints.approval.reject, async ({ input, user, tx, deps, req, audit }) => {
    audit({ target: `approval:${input.id}`, detail: { reason: input.reason } });
    const request = await decidable(tx, input.id, 'reject', user.id);
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const row = await decide(tx, request.id, 'reject', {
      decidedBy: user.id,
      decidedAt: deps.clock.now(),
      decisionNote: input.reason,
    });
    await rejecterOf(row.action)?.(deps, tx, row, user.id);
    audit({
      changes: { status: { before: request.status, after: row.status } },
      detail: {
        action: row.action,
        object: refOf(row),
        requestedBy: row.requestedBy,
        amount: formatMinor(row.amount),
        reason: input.reason,
      },
    });
    return (await rowsOf(tx, [row]))[0]!;
  }),
];
