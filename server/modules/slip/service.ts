/**
 * Withdrawal slips (OPERATIONS.md section 1, docs/SLIPS.md): confirmed bank settlements and processing
 * payouts on a manual bank channel go out as a bank's bulk-transfer file. A slip and its lines follow
 * the `slip` and `slipLine` machines (contract/machines.ts), every move a compare-and-set on the states
 * its action starts from; each write first locks the slip's row, so the writes on one slip take turns.
 *
 * A settlement or payout is on at most one live line (the partial unique index
 * `withdrawal_slip_lines_live_key`): creation locks the objects it names, so of two slips racing for
 * one, the second sees the first's line once it gets the lock, and the index refuses what slips past.
 * Marking a line withdrawn completes its object in the same transaction: a settlement through the
 * settlement engine (`completeSettlement`, never by the user who confirmed it), a payout as a manual
 * success with the bank's reference as its UTR (above the maker–checker threshold never by the slip's
 * maker). A dropped line frees its object for another slip.
 */
import { and, asc, count, desc, eq, inArray } from 'drizzle-orm';
import { accountLabel } from '../../../contract/endpoints/receiving.ts';
import type { SlipFormat } from '../../../contract/endpoints/slip.ts';
import { errno } from '../../../contract/errno.ts';
import { type SlipLineStatus, type SlipStatus, slipLine } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import {
  merchants,
  payoutOrders,
  receivingAccounts,
  settlements,
  withdrawalSlipLines,
  withdrawalSlips,
} from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { pagedList } from '../../list/engine.ts';
import { labelsOf, userNames } from '../../list/labels.ts';
import { labelColumns } from '../receiving/shared.ts';
import { slipLayouts } from './formats.ts';

const lines = withdrawalSlipLines;

export { type Candidate, slipCandidates } from './candidates.ts';
export { newSlipNo, type PreparedSlip, prepareSlip, type SlipRequest, writeSlip } from './create.ts';
export {
  allowed,
  type Completed,
  checkVoid,
  checkWithdraw,
  dropLine,
  linesFor,
  lockSlip,
  voidSlip,
  withdrawLines,
} from './lines.ts';

export type Slip = typeof withdrawalSlips.$inferSelect;
export type SlipLine = typeof withdrawalSlipLines.$inferSelect;

const iso = (d: Date | null) => d?.toISOString() ?? null;

type Counts = Record<SlipLineStatus, number>;

/** The labels of the accounts slips are paid from (`HDFC ••1234`). */
async function accountsOf(tx: Db, slips: readonly Slip[]): Promise<Map<number, string>> {
  const ids = [...new Set(slips.flatMap((s) => (s.accountId === null ? [] : [s.accountId])))];
  if (!ids.length) return new Map();
  const rows = await tx
    .select({
      id: receivingAccounts.id,
      ...labelColumns,
    })
    .from(receivingAccounts)
    .where(inArray(receivingAccounts.id, ids));
  return new Map(rows.map((r) => [r.id, accountLabel(r)]));
}

function rowOf(s: Slip, counts: Counts, names: Map<number, string>, accounts: Map<number, string>) {
  return {
    id: s.id,
    slipNo: s.slipNo,
    format: s.format as SlipFormat,
    status: s.status,
    currency: s.currency,
    lineCount: s.lineCount,
    total: formatMinor(s.total),
    lineCounts: {
      toBeWithdrawn: counts.to_be_withdrawn,
      withdrawn: counts.withdrawn,
      defunct: counts.defunct,
    },
    fileName: s.fileName,
    accountId: s.accountId,
    accountLabel: s.accountId === null ? null : (accounts.get(s.accountId) ?? null),
    createdBy: names.get(s.createdBy) ?? '',
    createdAt: s.createdAt.toISOString(),
    decidedBy: s.decidedBy === null ? null : (names.get(s.decidedBy) ?? ''),
    decidedAt: iso(s.decidedAt),
  };
}

/** Line counts of several slips by state. */
async function countsOf(tx: Db, slipIds: readonly number[]): Promise<Map<number, Counts>> {
  const out = new Map<number, Counts>();
  for (const id of slipIds) out.set(id, Object.fromEntries(slipLine.states.map((st) => [st, 0])) as Counts);
  if (!slipIds.length) return out;
  const rows = await tx
    .select({ slipId: lines.slipId, status: lines.status, n: count() })
    .from(lines)
    .where(inArray(lines.slipId, [...slipIds]))
    .groupBy(lines.slipId, lines.status);
  for (const r of rows) out.get(r.slipId)![r.status] = r.n;
  return out;
}

/** A page of slips, newest first. */
export async function slipList(
  tx: Db,
  filter: { status?: SlipStatus | undefined },
  pages: { page?: number | undefined; pageSize: number },
) {
  const { page: rows, total: n } = await pagedList(
    tx,
    {
      query: tx.select().from(withdrawalSlips).$dynamic(),
      table: withdrawalSlips,
      where: filter.status ? eq(withdrawalSlips.status, filter.status) : undefined,
      orderBy: [desc(withdrawalSlips.createdAt), desc(withdrawalSlips.id)],
    },
    pages,
  );
  const counts = await countsOf(
    tx,
    rows.map((r) => r.id),
  );
  const names = await labelsOf(
    tx,
    userNames,
    rows.flatMap((r) => [r.createdBy, r.decidedBy]),
  );
  const accounts = await accountsOf(tx, rows);
  return {
    list: rows.map((r) => rowOf(r, counts.get(r.id)!, names, accounts)),
    total: n,
    nextCursor: null,
  };
}

/** A slip with its lines, in file order (404 when unknown). */
export async function slipInfo(tx: Db, id: number) {
  const [s] = await tx.select().from(withdrawalSlips).where(eq(withdrawalSlips.id, id));
  if (!s) throw new AppError(errno.notFound);
  const rows = await tx
    .select({
      l: lines,
      merchantCode: merchants.code,
      settlementNo: settlements.settlementNo,
      orderNo: payoutOrders.orderNo,
    })
    .from(lines)
    .innerJoin(merchants, eq(merchants.id, lines.merchantId))
    .leftJoin(settlements, and(eq(lines.objectType, 'settlement'), eq(settlements.id, lines.objectId)))
    .leftJoin(payoutOrders, and(eq(lines.objectType, 'payout'), eq(payoutOrders.id, lines.objectId)))
    .where(eq(lines.slipId, id))
    .orderBy(asc(lines.id));
  const counts = (await countsOf(tx, [s.id])).get(s.id)!;
  const names = await labelsOf(tx, userNames, [s.createdBy, s.decidedBy, ...rows.map((r) => r.l.decidedBy)]);
  return {
    ...rowOf(s, counts, names, await accountsOf(tx, [s])),
    lines: rows.map(({ l, merchantCode, settlementNo, orderNo }, i) => ({
      id: l.id,
      lineNo: i + 1,
      objectType: l.objectType,
      objectId: l.objectId,
      objectNo: settlementNo ?? orderNo ?? '',
      merchantId: l.merchantId,
      merchantCode,
      amount: formatMinor(l.amount),
      beneficiaryName: l.beneficiaryName,
      accountNumber: l.accountNumber,
      ifsc: l.ifsc,
      narration: l.narration,
      status: l.status,
      reference: l.reference,
      decidedBy: l.decidedBy === null ? null : (names.get(l.decidedBy) ?? ''),
      decidedAt: iso(l.decidedAt),
    })),
  };
}

/** The kept file of a slip (404 when unknown). */
export async function slipFile(tx: Db, id: number) {
  const [s] = await tx
    .select({
      slipNo: withdrawalSlips.slipNo,
      format: withdrawalSlips.format,
      fileName: withdrawalSlips.fileName,
      content: withdrawalSlips.content,
    })
    .from(withdrawalSlips)
    .where(eq(withdrawalSlips.id, id));
  if (!s) throw new AppError(errno.notFound);
  return { ...s, contentType: slipLayouts[s.format as SlipFormat].contentType };
}
