/**
 * Posting statement lines: the money door of a person's statement (contract/doors.ts `statement.pay`,
 * docs/SECURITY.md). A line of an uploaded or pasted statement is evidence, not a decision: it pays an
 * order (`statement/accept` of a ready or proposed credit, `statement/match` of a credit to a chosen
 * order) only on a finance user's Google code and reason, within the day's sums of maker–checker; beyond
 * them the payments wait together in one approval request that a second platform user decides, never the
 * poster and never the statement's importer. A ready debit closes its slip line by the slip's own rule
 * (`checkWithdraw`: the settlement's confirmer never completes it, a payout's slip maker only within the
 * day's sums), and only from the account the slip is paid from.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { payin, statementLine } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import { type Db, inTransaction } from '../../db/index.ts';
import { payinOrders, statementImports, statementLines, withdrawalSlipLines } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { decideAlone, merchantWallet, statementEvidence } from '../approval/doors.ts';
import { type Approval, onApproved, requestApproval } from '../approval/service.ts';
import { checkWithdraw, lockSlip, withdrawLines } from '../slip/service.ts';
import { awaitingApproval, type Line, payWithLine, setLine, utrFreeFor } from './matching.ts';

type Order = typeof payinOrders.$inferSelect;

/** The approvals' name for lines waiting together: the first line's id names the request. */
export const linesRefType = 'statementLines';

/** The line, locked for this transaction (404 when unknown). */
export async function lockLine(tx: Db, id: number): Promise<Line> {
  const [line] = await tx.select().from(statementLines).where(eq(statementLines.id, id)).for('update');
  if (!line) throw new AppError(errno.notFound);
  return line;
}

/** Refuses a line that waits in a pending approval request: its second person decides it. */
async function refuseWhileAwaiting(tx: Db, line: Line): Promise<void> {
  if (line.approvalId === null) return;
  const [held] = await tx
    .select({ id: statementLines.id })
    .from(statementLines)
    .where(and(eq(statementLines.id, line.id), awaitingApproval));
  if (held) throw new AppError(errno.approvalPending, { approvalId: line.approvalId });
}

/**
 * The order credit `line` may pay, checked as every door of it checks: the line open and a credit, the
 * order one a supplement may pay (422), routed to the line's account (422) and of the line's amount
 * (422), the line's UTR on no other order (1032).
 */
export async function payableOrder(tx: Db, line: Line, orderId: number, lang: Lang): Promise<Order> {
  if (!statementLine.can('match', line.status)) throw new AppError(errno.conflict, { status: line.status });
  if (line.direction !== 'credit') throw invalidField(lang, 'lineId', 'statement.match.debit');
  const [order] = await tx.select().from(payinOrders).where(eq(payinOrders.id, orderId));
  if (!order) throw new AppError(errno.notFound);
  if (!payin.can('supplement', order.status)) {
    throw invalidField(lang, 'orderId', 'statement.match.state', { order: order.orderNo });
  }
  if (order.receivingAccountId !== line.accountId) {
    throw invalidField(lang, 'orderId', 'statement.match.account', { order: order.orderNo });
  }
  // A line the bank wrote in another currency pays no order, whoever asks.
  if ((line.currency ?? order.currency) !== order.currency) {
    throw invalidField(lang, 'lineId', 'statement.match.currency', {
      line: line.currency!,
      order: order.currency,
    });
  }
  if (order.amount !== line.amount) {
    throw invalidField(lang, 'orderId', 'statement.match.amount', {
      line: formatMinor(line.amount),
      order: formatMinor(order.amount),
    });
  }
  if (!(await utrFreeFor(tx, line.utr, order.id))) throw new AppError(errno.utrUsed);
  return order;
}

/** What a credit pays, for the day's sums: the merchant's collection wallet, the line, its statement. */
const decisionOf = (line: Line, order: Order) => ({
  amount: line.amount,
  wallet: merchantWallet(order.merchantId, 'collection', order.currency),
  ref: `statementLine:${line.id}`,
  evidence: statementEvidence(line.importId),
});

/** A credit waiting for a second person, as its request records it. */
interface Waiting {
  lineId: number;
  orderId: number;
}

/**
 * Pays `orderId` with credit `line` as `userId` when the decision fits the day's sums (answers true);
 * otherwise writes nothing and answers false: the line must wait for a second person.
 */
async function payAlone(
  deps: Deps,
  tx: Db,
  line: Line,
  orderId: number,
  userId: number,
  lang: Lang,
): Promise<boolean> {
  await refuseWhileAwaiting(tx, line);
  const order = await payableOrder(tx, line, orderId, lang);
  if (!(await decideAlone(deps, tx, 'statement.pay', userId, decisionOf(line, order)))) return false;
  await payWithLine(deps, tx, line, order.id, userId, userId, 'refuse');
  return true;
}

/** The importers of the statements `lineIds` came from: they never approve their payment. */
async function importersOf(tx: Db, lineIds: readonly number[]): Promise<number[]> {
  const rows = await tx
    .selectDistinct({ id: statementImports.createdBy })
    .from(statementLines)
    .innerJoin(statementImports, eq(statementImports.id, statementLines.importId))
    .where(inArray(statementLines.id, [...lineIds]));
  return rows.map((r) => r.id);
}

/**
 * Records one approval request for credits beyond the day's sums and marks each line as waiting in it
 * (a line that moved, or waits in another request meanwhile, is left out: answered in `moved`).
 */
async function askSecondPerson(
  deps: Deps,
  tx: Db,
  waiting: readonly Waiting[],
  reason: string,
  userId: number,
  lang: Lang,
): Promise<{ request: Approval | null; moved: { lineId: number; message: string }[] }> {
  const kept: (Waiting & { amount: number; order: Order })[] = [];
  const moved: { lineId: number; message: string }[] = [];
  for (const w of waiting) {
    try {
      const line = await lockLine(tx, w.lineId);
      await refuseWhileAwaiting(tx, line);
      kept.push({ ...w, amount: line.amount, order: await payableOrder(tx, line, w.orderId, lang) });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      moved.push({ lineId: w.lineId, message: messageOf(err, lang) });
    }
  }
  if (!kept.length) return { request: null, moved };
  const merchants = new Set(kept.map((k) => k.order.merchantId));
  const request = await requestApproval(
    deps,
    tx,
    {
      action: 'statement.pay',
      refType: linesRefType,
      refId: Math.min(...kept.map((k) => k.lineId)),
      merchantId: merchants.size === 1 ? kept[0]!.order.merchantId : null,
      currency: kept[0]!.order.currency,
      amount: kept.reduce((sum, k) => sum + k.amount, 0),
      payload: {
        lines: kept.map((k) => ({ lineId: k.lineId, orderId: k.orderId })),
        orders: kept.map((k) => k.order.orderNo).join(', '),
      },
      reason,
      barred: await importersOf(
        tx,
        kept.map((k) => k.lineId),
      ),
    },
    userId,
  );
  await tx
    .update(statementLines)
    .set({ approvalId: request.id })
    .where(
      inArray(
        statementLines.id,
        kept.map((k) => k.lineId),
      ),
    );
  return { request, moved };
}

/** A refusal's words for a list of results (the field's message of a 422, else the errno's). */
export function messageOf(err: AppError, lang: Lang): string {
  const fields = (err.data as { fields?: { message: string }[] } | null)?.fields;
  return fields?.[0]?.message ?? t(lang, `errno.${err.errno}`);
}

/**
 * Closes the slip line a ready debit names, by the slip's own rule and as `userId`: only from the account
 * the slip is paid from (422), the settlement's confirmer never (1040), a payout's slip maker within the
 * day's sums only (1040). The bank's reference on the line is the withdrawal's reference.
 */
async function closeSlipLine(deps: Deps, tx: Db, line: Line, userId: number, lang: Lang): Promise<void> {
  if (line.status !== statementLine.state.ready || line.candidateSlipLineId === null)
    throw new AppError(errno.conflict, { status: line.status });
  await refuseWhileAwaiting(tx, line);
  const [sl] = await tx
    .select()
    .from(withdrawalSlipLines)
    .where(eq(withdrawalSlipLines.id, line.candidateSlipLineId));
  if (!sl) throw new AppError(errno.notFound);
  const slip = await lockSlip(tx, sl.slipId);
  if (slip.accountId !== line.accountId) throw invalidField(lang, 'lineId', 'statement.post.slipAccount');
  const chosen = [{ line: sl, reference: line.reference ?? line.utr ?? line.narration.slice(0, 100) }];
  await checkWithdraw(deps, tx, slip, chosen, userId, lang);
  await withdrawLines(deps, tx, slip, chosen, userId);
  if (!(await setLine(deps, tx, line.id, 'match', { slipLineId: sl.id, resolvedBy: userId })))
    throw new AppError(errno.conflict, null, 'line moved meanwhile');
}

export interface PostOutcome {
  matched: number;
  refused: { lineId: number; message: string }[];
  approval: { id: number; lines: number; amount: string } | null;
}

/**
 * Posts lines as `userId` (whose Google code the caller has checked), each in its own transaction so
 * that one refused leaves the others done: a ready or proposed credit pays the order it names, alone
 * while the day's sums allow; a ready debit closes its slip line. The credits beyond the sums wait in one
 * approval request.
 */
export async function postLines(
  deps: Deps,
  lineIds: readonly number[],
  reason: string,
  userId: number,
  lang: Lang,
): Promise<PostOutcome> {
  const db = deps.database.db;
  const out: PostOutcome = { matched: 0, refused: [], approval: null };
  const waiting: Waiting[] = [];
  for (const lineId of [...new Set(lineIds)].sort((a, b) => a - b)) {
    // On PGlite's one session, each line's transaction waits for a quiet moment: requests meanwhile
    // would otherwise wait for a line at every statement of theirs (the day's import, issue 31).
    await deps.database.giveWay?.();
    try {
      const wait = await inTransaction(db, async (tx): Promise<Waiting | null> => {
        const line = await lockLine(tx, lineId);
        if (line.direction === 'debit') {
          await closeSlipLine(deps, tx, line, userId, lang);
          return null;
        }
        const named = statementLine.is('postable', line.status) ? line.candidatePayinId : null;
        if (named === null) throw new AppError(errno.conflict, { status: line.status });
        return (await payAlone(deps, tx, line, named, userId, lang)) ? null : { lineId, orderId: named };
      });
      if (wait) waiting.push(wait);
      else out.matched++;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      out.refused.push({ lineId, message: messageOf(err, lang) });
    }
  }
  if (waiting.length) {
    const asked = await inTransaction(db, (tx) => askSecondPerson(deps, tx, waiting, reason, userId, lang));
    out.refused.push(...asked.moved);
    if (asked.request)
      out.approval = {
        id: asked.request.id,
        lines: waiting.length - asked.moved.length,
        amount: formatMinor(asked.request.amount),
      };
  }
  return out;
}

/**
 * A person's match of credit `line` to order `orderId` (`statement/match`), as `userId` in `tx`: paid
 * alone within the day's sums (answers null), else recorded as an approval request (answered).
 */
export async function matchLine(
  deps: Deps,
  tx: Db,
  line: Line,
  orderId: number,
  reason: string,
  userId: number,
  lang: Lang,
): Promise<Approval | null> {
  if (await payAlone(deps, tx, line, orderId, userId, lang)) return null;
  const asked = await askSecondPerson(deps, tx, [{ lineId: line.id, orderId }], reason, userId, lang);
  if (!asked.request) throw new AppError(errno.conflict, null, asked.moved[0]?.message);
  return asked.request;
}

/** The lines `statement/accept {importId}` posts: every ready line of that import, in file order. */
export async function readyLinesOf(tx: Db, importId: number): Promise<number[]> {
  const [found] = await tx
    .select({ id: statementImports.id })
    .from(statementImports)
    .where(eq(statementImports.id, importId));
  if (!found) throw new AppError(errno.notFound);
  const rows = await tx
    .select({ id: statementLines.id })
    .from(statementLines)
    .where(
      and(
        eq(statementLines.importId, importId),
        inStates(statementLines.status, [statementLine.state.ready]),
        sql`not ${awaitingApproval}`,
      ),
    )
    .orderBy(statementLines.id);
  return rows.map((r) => r.id);
}

// The second person's approval pays the lines as they were asked, in the approver's name; a line that
// moved meanwhile (its order paid another way, the line dismissed) is passed over and named.
onApproved('statement.pay', async (deps, tx, request, approverId) => {
  const { lines } = request.payload as { lines: Waiting[] };
  const paid: string[] = [];
  const passed: { lineId: number; reason: string }[] = [];
  for (const w of lines) {
    const line = await lockLine(tx, w.lineId);
    if (line.approvalId !== request.id) {
      passed.push({ lineId: w.lineId, reason: 'not in this request' });
      continue;
    }
    try {
      const order = await payableOrder(tx, line, w.orderId, 'en');
      await payWithLine(deps, tx, line, order.id, approverId, approverId, 'refuse');
      paid.push(order.orderNo);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      passed.push({ lineId: w.lineId, reason: messageOf(err, 'en') });
    }
  }
  return { detail: { paid, passed } };
});
