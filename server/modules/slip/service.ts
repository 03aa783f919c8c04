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
import { randomInt } from 'node:crypto';
import { and, asc, count, desc, eq, inArray, notExists, type SQL, sql } from 'drizzle-orm';
import { accountLabel } from '../../../contract/endpoints/receiving.ts';
import { maxSlipLines, type SlipFormat } from '../../../contract/endpoints/slip.ts';
import { errno } from '../../../contract/errno.ts';
import {
  payout,
  type SlipLineStatus,
  type SlipStatus,
  settlement,
  slip,
  slipLine,
} from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import { manualBankAdapterName } from '../../channels/manualBank.ts';
import { type Db, sqlState } from '../../db/index.ts';
import {
  channels,
  merchants,
  payoutOrders,
  receivingAccounts,
  settlements,
  users,
  withdrawalSlipLines,
  withdrawalSlips,
} from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { pagedList } from '../../list/engine.ts';
import { decideAlone, fitsAlone, lockDecisions, merchantWallet } from '../approval/doors.ts';
import { completePayout } from '../payout/service.ts';
import { checkComplete, completeSettlement, loadSettlement } from '../settlement/service.ts';
import { businessNow } from '../settlement/tn.ts';
import { type SlipLineInput, slipLayouts, writeSlipFile } from './formats.ts';
import { liveLineOf, type SlipObjectType } from './live.ts';

export type Slip = typeof withdrawalSlips.$inferSelect;
export type SlipLine = typeof withdrawalSlipLines.$inferSelect;

const lines = withdrawalSlipLines;

// ---------------------------------------------------------------------------------------------------
// Candidates

/** Bank settlements the platform confirmed and has not sent: `settlement.slip` may start from them. */
const settlementReady = and(
  inStates(settlements.status, settlement.from('slip')),
  eq(settlements.type, 'bank'),
  notExists(sql`(select 1 from ${lines} where ${liveLineOf('settlement', sql`${settlements.id}`)})`),
);

/** Payouts a manual bank channel accepted and nobody has sent yet. */
const payoutReady = and(
  eq(payoutOrders.status, payout.state.processing),
  eq(channels.adapter, manualBankAdapterName),
  notExists(sql`(select 1 from ${lines} where ${liveLineOf('payout', sql`${payoutOrders.id}`)})`),
);

export interface Candidate extends SlipLineInput {
  objectId: number;
  merchantId: number;
  merchantCode: string;
  readyAt: Date;
}

async function settlementCandidates(tx: Db, where: SQL | undefined, limit: number): Promise<Candidate[]> {
  const rows = await tx
    .select({ s: settlements, merchantCode: merchants.code })
    .from(settlements)
    .innerJoin(merchants, eq(merchants.id, settlements.merchantId))
    .where(and(settlementReady, where))
    .orderBy(asc(settlements.confirmedAt), asc(settlements.id))
    .limit(limit);
  return rows.map(({ s, merchantCode }) => ({
    objectType: 'settlement',
    objectId: s.id,
    objectNo: s.settlementNo,
    merchantId: s.merchantId,
    merchantCode,
    // What the platform approved goes out; the fee stays with the platform.
    amount: s.auditAmount ?? s.amount,
    currency: s.currency,
    beneficiaryName: s.accountName ?? '',
    accountNumber: s.cardNumber ?? '',
    ifsc: s.ifsc ?? '',
    readyAt: s.confirmedAt ?? s.createdAt,
  }));
}

async function payoutCandidates(tx: Db, where: SQL | undefined, limit: number): Promise<Candidate[]> {
  const rows = await tx
    .select({ o: payoutOrders, merchantCode: merchants.code })
    .from(payoutOrders)
    .innerJoin(channels, eq(channels.id, payoutOrders.channelId))
    .innerJoin(merchants, eq(merchants.id, payoutOrders.merchantId))
    .where(and(payoutReady, where))
    .orderBy(asc(payoutOrders.createdAt), asc(payoutOrders.id))
    .limit(limit);
  return rows.map(({ o, merchantCode }) => ({
    objectType: 'payout',
    objectId: o.id,
    objectNo: o.orderNo,
    merchantId: o.merchantId,
    merchantCode,
    amount: o.amount,
    currency: o.currency,
    beneficiaryName: o.accountName,
    accountNumber: o.accountNumber,
    ifsc: o.ifsc,
    readyAt: o.createdAt,
  }));
}

/** What may go on a new slip, oldest first (as many as one slip holds), and how many there are. */
export async function slipCandidates(tx: Db): Promise<{ list: Candidate[]; total: number }> {
  const both = [
    ...(await settlementCandidates(tx, undefined, maxSlipLines)),
    ...(await payoutCandidates(tx, undefined, maxSlipLines)),
  ].sort((a, b) => a.readyAt.getTime() - b.readyAt.getTime() || a.objectId - b.objectId);
  const [s] = await tx.select({ n: count() }).from(settlements).where(settlementReady);
  const [p] = await tx
    .select({ n: count() })
    .from(payoutOrders)
    .innerJoin(channels, eq(channels.id, payoutOrders.channelId))
    .where(payoutReady);
  return { list: both.slice(0, maxSlipLines), total: (s?.n ?? 0) + (p?.n ?? 0) };
}

// ---------------------------------------------------------------------------------------------------
// Creation

export interface SlipRequest {
  format: SlipFormat;
  accountId: number;
  settlementIds: number[];
  payoutIds: number[];
}

/** A slip checked and ready to write: its objects are locked until the transaction ends. */
export interface PreparedSlip {
  format: SlipFormat;
  accountId: number;
  currency: string;
  lines: Candidate[];
}

/**
 * Locks the objects a new slip names and checks each is still a candidate: an unknown one is 404, one
 * that is not a candidate any more (sent on another slip, settled, rejected) refuses the whole slip
 * (409, naming them), one the format cannot carry is 422 at its place in the request.
 */
export async function prepareSlip(tx: Db, req: SlipRequest, lang: Lang): Promise<PreparedSlip> {
  // Paid from one of the platform's own accounts (a donor card is lent to collect, not to pay out).
  const [account] = await tx
    .select({ kind: receivingAccounts.kind })
    .from(receivingAccounts)
    .where(eq(receivingAccounts.id, req.accountId));
  if (account?.kind !== 'public') throw invalidField(lang, 'accountId', 'validation.slipPaidFrom');
  const lockedSettlements = req.settlementIds.length
    ? await tx
        .select({ id: settlements.id })
        .from(settlements)
        .where(inArray(settlements.id, req.settlementIds))
        .orderBy(asc(settlements.id))
        .for('update')
    : [];
  const lockedPayouts = req.payoutIds.length
    ? await tx
        .select({ id: payoutOrders.id })
        .from(payoutOrders)
        .where(inArray(payoutOrders.id, req.payoutIds))
        .orderBy(asc(payoutOrders.id))
        .for('update')
    : [];
  if (lockedSettlements.length !== req.settlementIds.length || lockedPayouts.length !== req.payoutIds.length)
    throw new AppError(errno.notFound);
  // Read after the locks: a slip that took one of them meanwhile has committed its line by now.
  const found = [
    ...(req.settlementIds.length
      ? await settlementCandidates(tx, inArray(settlements.id, req.settlementIds), maxSlipLines)
      : []),
    ...(req.payoutIds.length
      ? await payoutCandidates(tx, inArray(payoutOrders.id, req.payoutIds), maxSlipLines)
      : []),
  ];
  const byKey = new Map(found.map((c) => [`${c.objectType}:${c.objectId}`, c]));
  const gone = {
    settlementIds: req.settlementIds.filter((id) => !byKey.has(`settlement:${id}`)),
    payoutIds: req.payoutIds.filter((id) => !byKey.has(`payout:${id}`)),
  };
  if (gone.settlementIds.length || gone.payoutIds.length) throw new AppError(errno.conflict, gone);

  // In the order asked: settlements first, then payouts.
  const chosen = [
    ...req.settlementIds.map((id) => ({ path: 'settlementIds', id, c: byKey.get(`settlement:${id}`)! })),
    ...req.payoutIds.map((id) => ({ path: 'payoutIds', id, c: byKey.get(`payout:${id}`)! })),
  ];
  const currency = chosen[0]!.c.currency;
  const layout = slipLayouts[req.format];
  const fields: { path: string; code: string; message: string }[] = [];
  const indexIn = (path: string, id: number) =>
    (path === 'settlementIds' ? req.settlementIds : req.payoutIds).indexOf(id);
  for (const { path, id, c } of chosen) {
    const refusal = c.currency !== currency ? 'slipCurrencies' : layout.refusal(c);
    if (refusal)
      fields.push({
        path: `${path}.${indexIn(path, id)}`,
        code: refusal,
        message: t(lang, `validation.${refusal}`, { objectNo: c.objectNo }),
      });
  }
  if (fields.length) throw new AppError(errno.invalid, { fields });
  return { format: req.format, accountId: req.accountId, currency, lines: chosen.map((x) => x.c) };
}

/** `WS` + yyMMdd (UTC) + 5 random digits: short enough that slip and line fit a bank's 20-character reference. */
export function newSlipNo(now: Date): string {
  const p2 = (n: number) => String(n).padStart(2, '0');
  const day = p2(now.getUTCFullYear() % 100) + p2(now.getUTCMonth() + 1) + p2(now.getUTCDate());
  return `WS${day}${String(randomInt(0, 100_000)).padStart(5, '0')}`;
}

const live = (err: unknown) => {
  // The partial unique index on live lines: a concurrent slip took one of the objects.
  if (sqlState(err) === '23505') throw new AppError(errno.conflict);
  throw err;
};

/** Writes a prepared slip: its file (kept as the audit copy) and its lines. Answers the slip. */
export async function writeSlip(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  prepared: PreparedSlip,
  userId: number,
): Promise<Slip> {
  const now = deps.clock.now();
  const { day } = await businessNow(tx, now);
  for (let attempt = 0; attempt < 5; attempt++) {
    const slipNo = newSlipNo(now);
    const file = writeSlipFile(prepared.format, { slipNo, day, lines: prepared.lines });
    const [row] = await tx
      .insert(withdrawalSlips)
      .values({
        slipNo,
        format: prepared.format,
        currency: prepared.currency,
        lineCount: prepared.lines.length,
        total: prepared.lines.reduce((sum, l) => sum + l.amount, 0),
        fileName: file.fileName,
        content: file.content,
        accountId: prepared.accountId,
        createdBy: userId,
        createdAt: now,
      })
      .onConflictDoNothing({ target: withdrawalSlips.slipNo })
      .returning();
    if (!row) continue;
    await tx
      .insert(lines)
      .values(
        prepared.lines.map((l, i) => ({
          slipId: row.id,
          objectType: l.objectType,
          objectId: l.objectId,
          merchantId: l.merchantId,
          amount: l.amount,
          beneficiaryName: file.lines[i]!.beneficiaryName,
          accountNumber: l.accountNumber,
          ifsc: l.ifsc,
          narration: file.lines[i]!.narration,
        })),
      )
      .catch(live);
    return row;
  }
  throw new Error('slip: could not draw a free slip number');
}

// ---------------------------------------------------------------------------------------------------
// Lines: withdrawn, dropped; the slip voided

/** The slip, locked for this transaction's writes (404 when unknown). */
export async function lockSlip(tx: Db, id: number): Promise<Slip> {
  const [row] = await tx.select().from(withdrawalSlips).where(eq(withdrawalSlips.id, id)).for('update');
  if (!row) throw new AppError(errno.notFound);
  return row;
}

/** Lines of the slip by id (404 when one is not the slip's), each in a state `action` may start from (409). */
export async function linesFor(
  tx: Db,
  s: Slip,
  lineIds: readonly number[],
  action: 'withdraw' | 'drop',
): Promise<SlipLine[]> {
  const rows = await tx
    .select()
    .from(lines)
    .where(and(eq(lines.slipId, s.id), inArray(lines.id, [...lineIds])));
  if (rows.length !== lineIds.length) throw new AppError(errno.notFound);
  const moved = rows.filter((l) => !slipLine.can(action, l.status)).map((l) => l.id);
  if (moved.length) throw new AppError(errno.conflict, { lineIds: moved });
  const byId = new Map(rows.map((l) => [l.id, l]));
  return lineIds.map((id) => byId.get(id)!);
}

/** A slip's state allows `action` (409 otherwise). */
export function allowed(s: Slip, action: 'withdraw' | 'void'): void {
  if (!slip.can(action, s.status)) throw new AppError(errno.conflict, { status: s.status });
}

/** Moves a line by `action` (compare-and-set from the action's states); 409 when it moved meanwhile. */
async function moveLine(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  line: SlipLine,
  action: 'withdraw' | 'drop',
  userId: number,
  reference?: string,
): Promise<SlipLine> {
  const [moved] = await tx
    .update(lines)
    .set({
      status: slipLine.to(action)!,
      decidedBy: userId,
      decidedAt: deps.clock.now(),
      ...(reference ? { reference } : {}),
    })
    .where(and(eq(lines.id, line.id), inStates(lines.status, slipLine.from(action))))
    .returning();
  if (!moved) throw new AppError(errno.conflict, { lineIds: [line.id] });
  return moved;
}

/** Moves the slip by `action` (compare-and-set); 409 when it moved meanwhile. */
async function moveSlip(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  s: Slip,
  action: 'withdraw' | 'void',
  userId: number,
): Promise<Slip> {
  const [moved] = await tx
    .update(withdrawalSlips)
    .set({ status: slip.to(action)!, decidedBy: userId, decidedAt: deps.clock.now() })
    .where(and(eq(withdrawalSlips.id, s.id), inStates(withdrawalSlips.status, slip.from(action))))
    .returning();
  if (!moved) throw new AppError(errno.conflict, { status: s.status });
  return moved;
}

async function lineCounts(tx: Db, slipId: number): Promise<Record<SlipLineStatus, number>> {
  const rows = await tx
    .select({ status: lines.status, n: count() })
    .from(lines)
    .where(eq(lines.slipId, slipId))
    .groupBy(lines.status);
  const out = Object.fromEntries(slipLine.states.map((st) => [st, 0])) as Record<SlipLineStatus, number>;
  for (const r of rows) out[r.status] = r.n;
  return out;
}

/**
 * Once no line waits at the bank the slip is done: withdrawn when any line was, defunct when every
 * line was dropped. Answers the slip as it is now.
 */
async function closeWhenDone(deps: Pick<Deps, 'clock'>, tx: Db, s: Slip, userId: number): Promise<Slip> {
  const counts = await lineCounts(tx, s.id);
  if (counts.to_be_withdrawn > 0) return s;
  return moveSlip(deps, tx, s, counts.withdrawn > 0 ? 'withdraw' : 'void', userId);
}

/**
 * The checks of marking lines withdrawn before the code is spent: each settlement may still be
 * completed, and by this user (1040 for the one who confirmed it); each payout may still be marked a
 * success (409), and above the maker–checker threshold by a user other than the slip's maker (1040):
 * marking it withdrawn is a manual payout success, which takes a second person there.
 */
export async function checkWithdraw(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  s: Slip,
  chosen: readonly { line: SlipLine; reference: string }[],
  userId: number,
  lang: Lang,
): Promise<void> {
  for (const { line, reference } of chosen) {
    if (line.objectType === 'settlement') {
      const s = await loadSettlement(tx, { id: line.objectId }, {}, true);
      await checkComplete(tx, s, { reference }, userId, lang);
    } else {
      const [o] = await tx
        .select({ status: payoutOrders.status, amount: payoutOrders.amount })
        .from(payoutOrders)
        .where(eq(payoutOrders.id, line.objectId))
        .for('update');
      if (!o || !payout.can('markSuccess', o.status))
        throw new AppError(errno.conflict, { lineIds: [line.id] });
      if (s.createdBy === userId && !(await fitsAlone(deps, tx, userId, makerDecision(s, line))))
        throw new AppError(errno.sameUser, { lineIds: [line.id] });
    }
  }
}

/**
 * Marking a payout's line withdrawn is a manual payout success (contract/doors.ts `slip.withdrawPayout`):
 * by the slip's maker it is one person's decision, counted in the day's sums; by another user it is the
 * second person.
 */
const makerDecision = (s: Slip, line: SlipLine) => ({
  amount: line.amount,
  wallet: merchantWallet(line.merchantId, 'payout', s.currency),
  ref: `payout:${line.objectId}`,
});

/** What a withdrawn line completed, for the operation log. */
export interface Completed {
  lineId: number;
  objectType: SlipObjectType;
  objectId: number;
  reference: string;
}

/**
 * Marks lines withdrawn with the bank's references and completes their objects, in this transaction:
 * a refusal of any (a settlement confirmed by this user: 1040) leaves every line as it was.
 */
export async function withdrawLines(
  deps: Deps,
  tx: Db,
  s: Slip,
  chosen: readonly { line: SlipLine; reference: string }[],
  userId: number,
): Promise<{ slip: Slip; completed: Completed[] }> {
  const completed: Completed[] = [];
  const byMaker = chosen.filter(({ line }) => line.objectType === 'payout' && s.createdBy === userId);
  await lockDecisions(
    tx,
    userId,
    byMaker.map(({ line }) => makerDecision(s, line)),
  );
  for (const { line, reference } of chosen) {
    if (byMaker.some((m) => m.line.id === line.id)) {
      // Judged again under the locks, with the lines before it: splitting a slip's lines over calls finds
      // the same limit as one call.
      if (!(await decideAlone(deps, tx, 'slip.withdrawPayout', userId, makerDecision(s, line))))
        throw new AppError(errno.sameUser, { lineIds: [line.id] });
    }
    await moveLine(deps, tx, line, 'withdraw', userId, reference);
    if (line.objectType === 'settlement') {
      await completeSettlement(deps, tx, line.objectId, { reference }, userId);
    } else {
      await completePayout(deps, tx, {
        orderId: line.objectId,
        result: 'success',
        utr: reference,
        reason: `slip ${s.slipNo}`,
        by: 'manual',
        userId,
      });
    }
    completed.push({ lineId: line.id, objectType: line.objectType, objectId: line.objectId, reference });
  }
  return { slip: await closeWhenDone(deps, tx, s, userId), completed };
}

/** Drops a line the bank refused: its object is free for another slip; its payout stays processing. */
export async function dropLine(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  s: Slip,
  line: SlipLine,
  userId: number,
): Promise<Slip> {
  await moveLine(deps, tx, line, 'drop', userId);
  return closeWhenDone(deps, tx, s, userId);
}

/** A slip may be voided only while waiting and before any line was withdrawn (409 otherwise). */
export async function checkVoid(tx: Db, s: Slip): Promise<void> {
  allowed(s, 'void');
  const counts = await lineCounts(tx, s.id);
  if (counts.withdrawn > 0) throw new AppError(errno.conflict, { withdrawn: counts.withdrawn });
}

/** Voids a slip none of whose lines was withdrawn (409 otherwise): it and every line defunct. */
export async function voidSlip(deps: Pick<Deps, 'clock'>, tx: Db, s: Slip, userId: number): Promise<Slip> {
  await checkVoid(tx, s);
  const now = deps.clock.now();
  await tx
    .update(lines)
    .set({ status: slipLine.to('drop')!, decidedBy: userId, decidedAt: now })
    .where(and(eq(lines.slipId, s.id), inStates(lines.status, slipLine.from('drop'))));
  return moveSlip(deps, tx, s, 'void', userId);
}

// ---------------------------------------------------------------------------------------------------
// Views

const iso = (d: Date | null) => d?.toISOString() ?? null;

async function namesOf(tx: Db, ids: readonly (number | null)[]): Promise<Map<number, string>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (!wanted.length) return new Map();
  const rows = await tx
    .select({ id: users.id, username: users.username })
    .from(users)
    .where(inArray(users.id, wanted));
  return new Map(rows.map((r) => [r.id, r.username]));
}

type Counts = Record<SlipLineStatus, number>;

/** The labels of the accounts slips are paid from (`HDFC ••1234`). */
async function accountsOf(tx: Db, slips: readonly Slip[]): Promise<Map<number, string>> {
  const ids = [...new Set(slips.flatMap((s) => (s.accountId === null ? [] : [s.accountId])))];
  if (!ids.length) return new Map();
  const rows = await tx
    .select({
      id: receivingAccounts.id,
      bankName: receivingAccounts.bankName,
      accountNumber: receivingAccounts.accountNumber,
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
  const names = await namesOf(
    tx,
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
  const names = await namesOf(tx, [s.createdBy, s.decidedBy, ...rows.map((r) => r.l.decidedBy)]);
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
