/** A slip's lines withdrawn (their settlements and payouts completed) or dropped; the slip voided. */
import { and, count, eq, inArray } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { payout, type SlipLineStatus, slip, slipLine } from '../../../contract/machines.ts';
import type { Db } from '../../db/index.ts';
import { payoutOrders, withdrawalSlipLines, withdrawalSlips } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError, foundOne } from '../../http/errors.ts';
import type { Lang } from '../../http/i18n.ts';
import { decideAlone, fitsAlone, lockDecisions, merchantWallet } from '../approval/doors.ts';
import { completePayout } from '../payout/service.ts';
import { checkComplete, completeSettlement, loadSettlement } from '../settlement/service.ts';
import type { SlipObjectType } from './live.ts';
import type { Slip, SlipLine } from './service.ts';

const lines = withdrawalSlipLines;

/** The slip, locked for this transaction's writes (404 when unknown). */
export async function lockSlip(tx: Db, id: number): Promise<Slip> {
  return foundOne(tx.select().from(withdrawalSlips).where(eq(withdrawalSlips.id, id)).for('update'));
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
