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
import { and, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { approval, type PayinStatus, payin, statementLine } from '../../../contract/machines.ts';
import { accountCurrency, paysByItself } from '../../../contract/statementSource.ts';
import { type Db, RetryTransaction } from '../../db/index.ts';
import {
  payinOrders,
  statementImports,
  statementLines,
  withdrawalSlipLines,
  withdrawalSlips,
} from '../../db/schema.ts';
import { inStates, statesSql } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { rowsOf } from '../../ledger/index.ts';
import { storedZone } from '../../lib/businessDay.ts';
import { transition, transitionMany } from '../payin/state.ts';
import { orderUsingUtr, withUtrGuard } from '../payin/utr.ts';

export type Line = typeof statementLines.$inferSelect;
export type ExceptionKind = NonNullable<Line['exceptionKind']>;

export interface MatchCounts {
  matched: number;
  ready: number;
  proposed: number;
  exceptions: number;
}

export const noMatches = (): MatchCounts => ({ matched: 0, ready: 0, proposed: 0, exceptions: 0 });

/** Open pay-in states: those a supplement may pay. */
const openStates = payin.from('supplement');
const openSql = statesSql(openStates);

interface UtrOrder {
  id: number;
  amount: number;
  paidAmount: number | null;
  status: PayinStatus;
  utr: string | null;
  payerUtr: string | null;
  receivingAccountId: number | null;
}

export type Outcome =
  | { kind: 'pay'; orderId: number }
  | { kind: 'confirm'; orderId: number }
  | { kind: 'ready'; orderId: number | null; slipLineId: number | null }
  | { kind: 'propose'; orderId: number }
  | { kind: 'except'; exception: ExceptionKind; orderId: number | null };

/** The imports of `lines` whose lines pay by themselves (the bank's feed). */
async function payingImports(tx: Db, lines: readonly Line[]): Promise<Set<number>> {
  const ids = [...new Set(lines.map((l) => l.importId))];
  const rows = await tx
    .select({ id: statementImports.id, source: statementImports.source })
    .from(statementImports)
    .where(inArray(statementImports.id, ids));
  return new Set(rows.filter((r) => paysByItself(r.source)).map((r) => r.id));
}

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
): Promise<MatchCounts> {
  const counts = noMatches();
  if (!lines.length) return counts;
  const outcomes = await planMatches(tx, lines);
  return applyMatches(deps, tx, lines, outcomes, userId);
}

/**
 * What matching decides for each of `lines` (by line id), reading only: the orders and slip lines they
 * pay, ready, propose or name, and the exceptions. Lines not saved yet may carry ids of their own
 * (negative): `saveMatched` saves them in the state decided here.
 */
export async function planMatches(tx: Db, lines: readonly Line[]): Promise<Map<number, Outcome>> {
  const outcomes = new Map<number, Outcome>();
  // A line in another currency than its account's is kept and waits: it never pays or closes anything.
  const foreign = (l: Line) => l.currency !== null && l.currency !== accountCurrency;
  for (const l of lines)
    if (foreign(l)) outcomes.set(l.id, { kind: 'except', exception: 'currency', orderId: null });
  const credits = lines.filter((l) => l.direction === 'credit' && !foreign(l));
  const debits = lines.filter((l) => l.direction === 'debit' && !foreign(l));
  const paying = await payingImports(tx, lines);
  /** Orders this call pays, readies or proposes, or another open line names: no second line takes them. */
  const taken = await namedElsewhere(tx, lines);

  // 1–2: by UTR.
  const utrs = [...new Set(credits.flatMap((l) => (l.utr ? [l.utr] : [])))];
  const byUtr = new Map<string, UtrOrder[]>();
  const usedBy = new Map<string, UtrOrder>();
  const confirmed = new Set<number>();
  const paidNow = new Map<string, UtrOrder>();
  if (utrs.length) {
    const accounts = [...new Set(credits.map((l) => l.accountId))];
    const cols = {
      id: payinOrders.id,
      amount: payinOrders.amount,
      paidAmount: payinOrders.paidAmount,
      status: payinOrders.status,
      utr: payinOrders.utr,
      payerUtr: payinOrders.payerUtr,
      receivingAccountId: payinOrders.receivingAccountId,
    };
    // One look-up for both: the orders holding a UTR (any account, any state), and the open orders of the
    // lines' accounts a payer named one on. The UTRs travel as one JSON parameter, not one each.
    const list = sql`array(select jsonb_array_elements_text(${JSON.stringify(utrs)}::jsonb))`;
    const found = await tx
      .select(cols)
      .from(payinOrders)
      .where(
        or(
          sql`${payinOrders.utr} = any(${list})`,
          and(
            sql`${payinOrders.payerUtr} = any(${list})`,
            inArray(payinOrders.receivingAccountId, accounts),
            sql`${payinOrders.status} in (${openSql})`,
          ),
        ),
      )
      .orderBy(payinOrders.id);
    const wanted = new Set(utrs);
    const onAccounts = new Set(accounts);
    const used = found.filter((o) => o.utr !== null && wanted.has(o.utr));
    for (const o of used) usedBy.set(o.utr!, o);
    const claimed = found.filter(
      (o) =>
        o.receivingAccountId !== null &&
        onAccounts.has(o.receivingAccountId) &&
        openStates.includes(o.status) &&
        ((o.payerUtr !== null && wanted.has(o.payerUtr)) || (o.utr !== null && wanted.has(o.utr))),
    );
    for (const o of claimed) {
      for (const u of new Set([o.utr, o.payerUtr])) {
        if (u && wanted.has(u)) byUtr.set(u, [...(byUtr.get(u) ?? []), o]);
      }
    }
    const usedIds = used.map((o) => o.id);
    if (usedIds.length) {
      const linked = await tx
        .select({ payinId: statementLines.payinId })
        .from(statementLines)
        .where(inArray(statementLines.payinId, usedIds));
      for (const l of linked) confirmed.add(l.payinId!);
    }
  }
  for (const line of credits) {
    if (!line.utr) continue;
    const used = usedBy.get(line.utr) ?? paidNow.get(line.utr);
    const open = payin.can('supplement', used?.status ?? 'pending');
    if (used && !open) {
      // The UTR already paid an order (by its channel, a supplement or a force): never a second one. When
      // that order is on this account with this amount and no line yet, the line is its bank proof.
      const own = used.receivingAccountId === line.accountId;
      if (own && used.paidAmount === line.amount && payin.is('succeeded', used.status)) {
        if (!confirmed.has(used.id)) {
          confirmed.add(used.id);
          outcomes.set(line.id, { kind: 'confirm', orderId: used.id });
          continue;
        }
      }
      const exception = own && used.amount !== line.amount ? 'amount_mismatch' : 'unmatched';
      outcomes.set(line.id, { kind: 'except', exception, orderId: used.id });
      continue;
    }
    // An open order holding the UTR as its channel's is the only one it may pay.
    const claims = (used ? [used] : (byUtr.get(line.utr) ?? [])).filter(
      (o) => o.receivingAccountId === line.accountId && !taken.has(o.id),
    );
    if (!claims.length) {
      // Held by an open order elsewhere (another account, or a channel's): no order here may take it.
      if (used) outcomes.set(line.id, { kind: 'except', exception: 'unmatched', orderId: used.id });
      continue;
    }
    const same = claims.filter((o) => o.amount === line.amount);
    if (same.length === 1) {
      taken.add(same[0]!.id);
      if (!paying.has(line.importId)) {
        // A person's statement: the order waits for the line to be posted; no other line takes it.
        outcomes.set(line.id, { kind: 'ready', orderId: same[0]!.id, slipLineId: null });
        continue;
      }
      // A second line of the UTR (another reference) finds it used, as after this batch.
      paidNow.set(line.utr, { ...same[0]!, status: 'paid', paidAmount: line.amount });
      confirmed.add(same[0]!.id);
      outcomes.set(line.id, { kind: 'pay', orderId: same[0]!.id });
    } else if (same.length > 1) {
      outcomes.set(line.id, { kind: 'except', exception: 'ambiguous', orderId: null });
    } else {
      outcomes.set(line.id, { kind: 'except', exception: 'amount_mismatch', orderId: claims[0]!.id });
    }
  }

  // 3–4: by amount, within the order's life.
  const rest = credits.filter((l) => !outcomes.has(l.id));
  if (rest.length) {
    const candidates = await amountCandidates(tx, rest);
    for (const line of rest) {
      const fit = candidates.filter(
        (c) =>
          c.accountId === line.accountId &&
          c.amount === line.amount &&
          c.fromDay <= line.day &&
          line.day <= c.toDay &&
          !taken.has(c.id),
      );
      if (fit.length === 1) {
        taken.add(fit[0]!.id);
        outcomes.set(line.id, { kind: 'propose', orderId: fit[0]!.id });
      } else {
        const exception = fit.length ? 'ambiguous' : 'unmatched';
        outcomes.set(line.id, { kind: 'except', exception, orderId: null });
      }
    }
  }

  // Debits: the waiting slip line of a slip paid from the line's account whose number the bank's
  // narration or reference carries. It only proposes: closing is the slip's own rule, by a person.
  if (debits.length) {
    const waiting = await tx
      .select({ line: withdrawalSlipLines, accountId: withdrawalSlips.accountId })
      .from(withdrawalSlipLines)
      .innerJoin(withdrawalSlips, eq(withdrawalSlips.id, withdrawalSlipLines.slipId))
      .where(
        and(
          eq(withdrawalSlipLines.status, 'to_be_withdrawn'),
          inArray(withdrawalSlips.accountId, [...new Set(debits.map((d) => d.accountId))]),
          inArray(withdrawalSlipLines.amount, [...new Set(debits.map((d) => d.amount))]),
        ),
      );
    const claimed = await slipLinesNamedElsewhere(
      tx,
      lines,
      waiting.map((w) => w.line.id),
    );
    for (const line of debits) {
      const text = `${line.narration} ${line.reference ?? ''}`.toUpperCase();
      const fit = waiting
        .filter((w) => w.accountId === line.accountId)
        .map((w) => w.line)
        .filter(
          (w) =>
            w.amount === line.amount &&
            w.narration.trim() !== '' &&
            text.includes(w.narration.trim().toUpperCase()) &&
            !claimed.has(w.id),
        );
      if (fit.length === 1) {
        claimed.add(fit[0]!.id);
        outcomes.set(line.id, { kind: 'ready', orderId: null, slipLineId: fit[0]!.id });
      } else {
        outcomes.set(line.id, {
          kind: 'except',
          exception: fit.length ? 'ambiguous' : 'unmatched',
          orderId: null,
        });
      }
    }
  }

  return outcomes;
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
  const pays = lines.flatMap((line) => {
    const o = outcomes.get(line.id)!;
    return o.kind === 'pay' ? [{ line, orderId: o.orderId }] : [];
  });
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
 * Orders that open lines outside `lines` name already (ready or proposed): that line waits for a person
 * to take it, so no line of this batch proposes or readies the same order.
 */
async function namedElsewhere(tx: Db, lines: readonly Line[]): Promise<Set<number>> {
  const ids = lines.map((l) => l.id);
  const rows = rowsOf<{ id: string }>(
    await tx.execute(sql`
      select candidate_payin_id as id from statement_lines
      where status in (${statesSql(statementLine.sets.postable)}) and candidate_payin_id is not null
        and direction = 'credit'
        and account_id in (${sql.join(
          [...new Set(lines.map((l) => l.accountId))].map((a) => sql`${a}`),
          sql`, `,
        )})
        and id <> all(${`{${ids.join(',')}}`}::bigint[])`),
  );
  return new Set(rows.map((r) => Number(r.id)));
}

/** Of `slipLineIds`, those another open line outside `lines` proposes to close. */
async function slipLinesNamedElsewhere(
  tx: Db,
  lines: readonly Line[],
  slipLineIds: readonly number[],
): Promise<Set<number>> {
  if (!slipLineIds.length) return new Set();
  const ids = new Set(lines.map((l) => l.id));
  const rows = await tx
    .select({ id: statementLines.id, slipLineId: statementLines.candidateSlipLineId })
    .from(statementLines)
    .where(
      and(
        inStates(statementLines.status, statementLine.sets.open),
        inArray(statementLines.candidateSlipLineId, [...slipLineIds]),
      ),
    );
  return new Set(rows.filter((r) => !ids.has(r.id)).map((r) => r.slipLineId!));
}

interface Candidate {
  id: number;
  accountId: number;
  amount: number;
  /** The business days of the order's life: created, and the day after it expires (a late bank day). */
  fromDay: string;
  toDay: string;
}

/** The open pay-ins on the lines' accounts of their amounts whose life may cover their days. */
async function amountCandidates(tx: Db, lines: readonly Line[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  const byAccount = new Map<number, Line[]>();
  for (const l of lines) {
    const group = byAccount.get(l.accountId);
    if (group) group.push(l);
    else byAccount.set(l.accountId, [l]);
  }
  for (const [accountId, group] of byAccount) {
    const amounts = [...new Set(group.map((l) => l.amount))];
    const days = group.map((l) => l.day).sort();
    const rows = rowsOf<{ id: string; amount: string; from_day: string; to_day: string }>(
      await tx.execute(sql`
        with z as (select ${storedZone} as zone)
        select o.id, o.amount,
          (o.created_at at time zone z.zone)::date::text as from_day,
          ((o.expires_at at time zone z.zone)::date + 1)::text as to_day
        from payin_orders o, z
        where o.receiving_account_id = ${accountId}
          and o.amount in (${sql.join(
            amounts.map((a) => sql`${a}::bigint`),
            sql`, `,
          )})
          and o.status in (${openSql})
          and o.created_at < ((${days.at(-1)}::date + 1)::timestamp at time zone z.zone)
          and o.expires_at >= ((${days[0]}::date - 1)::timestamp at time zone z.zone)
        order by o.id`),
    );
    for (const r of rows) {
      out.push({
        id: Number(r.id),
        accountId,
        amount: Number(r.amount),
        fromDay: r.from_day,
        toDay: r.to_day,
      });
    }
  }
  return out;
}

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
  const pays: { line: Line; orderId: number }[] = [];
  for (const line of lines) {
    const o = outcomes.get(line.id)!;
    if (o.kind === 'pay') pays.push({ line, orderId: o.orderId });
    count(counts, moveOf(o).action);
  }
  await payOrders(deps, tx, pays, userId);
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
