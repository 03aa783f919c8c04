/**
 * Matching statement lines (OPERATIONS.md section 2; docs/STATEMENTS.md "Matching"), in this order and
 * each line at most once:
 * 1. a credit whose UTR equals an open pay-in's channel UTR or payer-submitted UTR (the order on the
 *    line's account), with the same amount, pays it when its statement is the bank's own feed (a
 *    supplement whose source is the line); a person's statement (upload, paste) makes it `ready`: it pays
 *    when a finance user posts it (docs/SECURITY.md, contract/doors.ts `statement.pay`);
 * 2. the same UTR with another amount: exception `amount_mismatch` (the order as candidate);
 * 3. otherwise exactly one open pay-in of the amount on the account whose life covers the line's day:
 *    proposed, never paid by itself;
 * 4. several: exception `ambiguous`; none: `unmatched`.
 * A line in a currency other than its account's (a feed states it) waits as exception `currency`.
 * A debit naming the one waiting withdrawal-slip line (its number, the same amount) of a slip paid from
 * the line's account is `ready`: only a person closes it, by the slip's own rule. The lines of one call
 * are read and decided together (a few queries per batch, not per line).
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { approval, statementLine } from '../../../contract/machines.ts';
import { type Db, RetryTransaction } from '../../db/index.ts';
import { statementLines } from '../../db/schema.ts';
import { inStates, statesSql } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { rowsOf } from '../../ledger/index.ts';
import { transition, transitionMany } from '../payin/state.ts';
import { orderUsingUtr, withUtrGuard } from '../payin/utr.ts';

import { type Outcome, planMatches } from './matchPlan.ts';

export { type Outcome, planMatches } from './matchPlan.ts';

export type Line = typeof statementLines.$inferSelect;
export type ExceptionKind = NonNullable<Line['exceptionKind']>;

export interface MatchCounts {
  matched: number;
  ready: number;
  proposed: number;
  exceptions: number;
}

export const noMatches = (): MatchCounts => ({ matched: 0, ready: 0, proposed: 0, exceptions: 0 });

/**
 * Runs `lines` (open ones: new, ready, proposed, exception; none waiting in a pending approval) through
 * matching in `tx` and moves each line (compare-and-set on its status). Paying an order that moved
 * meanwhile, or a UTR taken meanwhile, restarts the transaction (`RetryTransaction`), which then sees the
 * winner. `userId` is who a feed's payments are posted for (the job, or who asked for the rematch).
 */
export async function matchLines(
  deps: Deps,
  tx: Db,
  lines: readonly Line[],
  userId: number,
  /** A payment matching would make waits `ready` for a person instead (lines a person took back). */
  paymentsWait = false,
): Promise<MatchCounts> {
  const counts = noMatches();
  if (!lines.length) return counts;
  const outcomes = await planMatches(tx, lines);
  if (paymentsWait)
    for (const [id, o] of outcomes)
      if (o.kind === 'pay') outcomes.set(id, { kind: 'ready', orderId: o.orderId, slipLineId: null });
  return applyMatches(deps, tx, lines, outcomes, userId);
}

/** Moves saved `lines` as `outcomes` decided (compare-and-set on each line's state); answers the counts. */
async function applyMatches(
  deps: Deps,
  tx: Db,
  lines: readonly Line[],
  outcomes: ReadonlyMap<number, Outcome>,
  userId: number,
): Promise<MatchCounts> {
  const counts = noMatches();
  // The payments first, all at once: each pays an order of its own, and no other outcome depends on them.
  const pays = paysOf(lines, outcomes);
  await payWithLines(deps, tx, pays, userId);
  counts.matched += pays.length;
  const moves: Record<'ready' | 'propose' | 'except', SetRow[]> = { ready: [], propose: [], except: [] };
  for (const line of lines) {
    const o = outcomes.get(line.id)!;
    if (o.kind === 'pay') continue;
    if (o.kind === 'confirm') {
      if (await setLine(deps, tx, line.id, 'match', { payinId: o.orderId })) counts.matched++;
      continue;
    }
    const { action, ...names } = moveOf(o);
    if (action === 'match') continue;
    const row: SetRow = { id: line.id, ...names };
    // Matched again to what it already names: it stays as it is.
    if (line.status === statementLine.to(action) && sameAs(line, row)) {
      if (action !== 'except') count(counts, action);
      continue;
    }
    moves[action].push(row);
  }
  counts.ready += await setMany(tx, 'ready', moves.ready);
  counts.proposed += await setMany(tx, 'propose', moves.propose);
  counts.exceptions += await setMany(tx, 'except', moves.except);
  return counts;
}

interface SetRow {
  id: number;
  kind: ExceptionKind | null;
  orderId: number | null;
  slipLineId: number | null;
}

const sameAs = (line: Line, row: SetRow) =>
  line.exceptionKind === row.kind &&
  line.candidatePayinId === row.orderId &&
  line.candidateSlipLineId === row.slipLineId;

/**
 * Moves one line by `action` (compare-and-set on its status): answers false when it had moved.
 * Automatic moves leave `resolvedBy` empty; a person's carry their id.
 */
export async function setLine(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  id: number,
  action: 'match' | 'propose' | 'except' | 'dismiss',
  set: Partial<Line>,
): Promise<boolean> {
  const [moved] = await tx
    .update(statementLines)
    .set({
      status: statementLine.to(action)!,
      exceptionKind: null,
      candidatePayinId: null,
      candidateSlipLineId: null,
      ...(action === 'match' || action === 'dismiss' ? { resolvedAt: deps.clock.now() } : {}),
      ...set,
    })
    .where(and(eq(statementLines.id, id), inStates(statementLines.status, statementLine.from(action))))
    .returning({ id: statementLines.id });
  return !!moved;
}

/**
 * Readies, proposals or exceptions of many lines in one statement (a line already in that state takes its
 * new candidate); answers how many moved.
 */
async function setMany(
  tx: Db,
  action: 'ready' | 'propose' | 'except',
  rows: readonly SetRow[],
): Promise<number> {
  if (!rows.length) return 0;
  // One JSON parameter: a thousand-row statement built by the query builder costs more than running it.
  const json = JSON.stringify(
    rows.map((r) => ({ id: r.id, kind: r.kind, order_id: r.orderId, slip_line_id: r.slipLineId })),
  );
  const target = statementLine.to(action)!;
  const result = await tx.execute(sql`
    update statement_lines l set status = ${target}, exception_kind = v.kind,
      candidate_payin_id = v.order_id, candidate_slip_line_id = v.slip_line_id
    from jsonb_to_recordset(${json}::jsonb) as v(id bigint, kind text, order_id bigint, slip_line_id int)
    where l.id = v.id and l.status in (${statesSql([...new Set([...statementLine.from(action), target])])})
    returning l.id`);
  const moved = rowsOf(result).length;
  return moved;
}

/**
 * Pays order `orderId` with credit `line` (a supplement whose source is the line) and marks the line
 * matched. `onLost` decides what a lost race does: `retry` restarts the transaction (matching in bulk,
 * which then decides again), `refuse` answers 409 / 1032 (a person's click).
 */
export async function payWithLine(
  deps: Deps,
  tx: Db,
  line: Pick<Line, 'id' | 'utr' | 'amount'>,
  orderId: number,
  userId: number,
  resolvedBy: number | null,
  onLost: 'retry' | 'refuse',
): Promise<void> {
  const lost = (err: AppError): never => {
    if (onLost === 'retry') throw new RetryTransaction();
    throw err;
  };
  const paid = await withUtrGuard(() =>
    transition(
      deps,
      tx,
      orderId,
      'supplement',
      // A line without a UTR (a proposal taken) leaves the order's UTR as it was.
      {
        ...(line.utr ? { utr: line.utr } : {}),
        paidAmount: line.amount,
        paidBy: 'statement',
        paidAt: deps.clock.now(),
      },
      userId,
    ),
  ).catch((err: unknown) =>
    err instanceof AppError && err.errno === errno.utrUsed ? lost(err) : Promise.reject(err),
  );
  if (!paid) lost(new AppError(errno.conflict, null, 'order moved meanwhile'));
  const ok = await setLine(deps, tx, line.id, 'match', { payinId: orderId, resolvedBy });
  if (!ok) lost(new AppError(errno.conflict, null, 'line moved meanwhile'));
}

/**
 * `payWithLine` with `retry` for the lines one matching call pays, batched: one move of all their orders
 * (`transitionMany`) and one statement marking the lines matched. A race lost anywhere (an order or a
 * line moved, a UTR taken meanwhile: the unique index refuses the whole batch) restarts the transaction,
 * as one line's would; matching then decides again and sees the winner.
 */
async function payWithLines(
  deps: Deps,
  tx: Db,
  pays: readonly { line: Pick<Line, 'id' | 'utr' | 'amount'>; orderId: number }[],
  userId: number,
): Promise<void> {
  if (!pays.length) return;
  await payOrders(deps, tx, pays, userId);
  const now = deps.clock.now();
  const json = JSON.stringify(pays.map((p) => ({ id: p.line.id, order_id: p.orderId })));
  const matched = rowsOf(
    await tx.execute(sql`
      update statement_lines l set status = ${statementLine.to('match')!}, exception_kind = null,
        candidate_payin_id = null, payin_id = v.order_id, resolved_by = null,
        resolved_at = ${now.toISOString()}::timestamptz
      from jsonb_to_recordset(${json}::jsonb) as v(id bigint, order_id bigint)
      where l.id = v.id and l.status in (${statesSql(statementLine.from('match'))})
      returning l.id`),
  );
  if (matched.length < pays.length) throw new RetryTransaction();
}

/**
 * Pays each order with its line's amount and UTR (a supplement whose source is a statement), all in one
 * batch; an order that moved meanwhile, or a UTR taken meanwhile, restarts the transaction.
 */
async function payOrders(
  deps: Deps,
  tx: Db,
  pays: readonly { line: Pick<Line, 'utr' | 'amount'>; orderId: number }[],
  userId: number,
): Promise<void> {
  if (!pays.length) return;
  const now = deps.clock.now();
  const paid = await withUtrGuard(() =>
    transitionMany(
      deps,
      tx,
      'supplement',
      pays.map(({ line, orderId }) => ({
        id: orderId,
        set: {
          ...(line.utr ? { utr: line.utr } : {}),
          paidAmount: line.amount,
          paidBy: 'statement' as const,
          paidAt: now,
        },
      })),
      userId,
    ),
  ).catch((err: unknown) =>
    err instanceof AppError && err.errno === errno.utrUsed
      ? Promise.reject(new RetryTransaction())
      : Promise.reject(err),
  );
  if (paid.length < pays.length) throw new RetryTransaction();
}

type LineAction = 'match' | 'ready' | 'propose' | 'except';

/**
 * Where an outcome moves a line: the line machine's action, the exception kind, and the order (paid when
 * matched, else named as the candidate) and slip line it names.
 */
function moveOf(o: Outcome): { action: LineAction } & Omit<SetRow, 'id'> {
  switch (o.kind) {
    case 'pay':
    case 'confirm':
      return { action: 'match', kind: null, orderId: o.orderId, slipLineId: null };
    case 'ready':
      return { action: 'ready', kind: null, orderId: o.orderId, slipLineId: o.slipLineId };
    case 'propose':
      return { action: 'propose', kind: null, orderId: o.orderId, slipLineId: null };
    case 'except':
      return { action: 'except', kind: o.exception, orderId: o.orderId, slipLineId: null };
  }
}

/** The lines whose outcome pays an order, with that order. */
const paysOf = (lines: readonly Line[], outcomes: ReadonlyMap<number, Outcome>) =>
  lines.flatMap((line) => {
    const o = outcomes.get(line.id)!;
    return o.kind === 'pay' ? [{ line, orderId: o.orderId }] : [];
  });

/** Counts one line moved by `action`. */
function count(counts: MatchCounts, action: LineAction): void {
  if (action === 'match') counts.matched++;
  else if (action === 'ready') counts.ready++;
  else if (action === 'propose') counts.proposed++;
  else counts.exceptions++;
}

/** The state a line not saved yet is saved in, as matching decided it. */
export function savedState(
  o: Outcome,
  now: Date,
): Pick<
  Line,
  'status' | 'exceptionKind' | 'payinId' | 'candidatePayinId' | 'candidateSlipLineId' | 'resolvedAt'
> {
  const { action, kind, orderId, slipLineId } = moveOf(o);
  const matched = action === 'match';
  return {
    status: statementLine.to(action)!,
    exceptionKind: kind,
    payinId: matched ? orderId : null,
    candidatePayinId: matched ? null : orderId,
    candidateSlipLineId: slipLineId,
    resolvedAt: matched ? now : null,
  };
}

/**
 * After `lines` were saved in the states `savedState` gave them: pays the orders the paying ones prove
 * (the lines saved matched to them already) and answers the counts.
 */
export async function settleSaved(
  deps: Deps,
  tx: Db,
  lines: readonly Line[],
  outcomes: ReadonlyMap<number, Outcome>,
  userId: number,
): Promise<MatchCounts> {
  const counts = noMatches();
  for (const line of lines) count(counts, moveOf(outcomes.get(line.id)!).action);
  await payOrders(deps, tx, paysOf(lines, outcomes), userId);
  return counts;
}

/** The order holding `utr`, or none; for a person's match (1032 when another order holds it). */
export async function utrFreeFor(tx: Db, utr: string | null, orderId: number): Promise<boolean> {
  if (!utr) return true;
  const used = await orderUsingUtr(tx, utr);
  return !used || used.id === orderId;
}

/** A line waits in a pending approval request (posted beyond the day's sums). */
export const awaitingApproval: SQL = sql`exists (select 1 from approvals a where a.id = ${statementLines.approvalId}
  and a.status in (${statesSql([approval.state.pending])}))`;

/**
 * A condition on lines matching may move: open (new, ready, proposed, exception) and not waiting in a
 * pending approval request (its second person decides them as they were asked).
 */
export const openLine: SQL = sql`${statementLines.status} in (${statesSql(statementLine.sets.undecided)})
  and not ${awaitingApproval}`;
