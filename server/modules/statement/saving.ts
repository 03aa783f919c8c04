/**
 * An import's lines saved: each kept once per account (by its dedupe key), new, or in the state matching
 * gives it before it is written (saveMatched).
 */
import { sql } from 'drizzle-orm';
import { statementLine } from '../../../contract/machines.ts';
import { type Db, RetryTransaction } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { rowsOf } from '../../ledger/index.ts';
import { lineFields } from './lineFields.ts';
import { type Line, type MatchCounts, noMatches, planMatches, savedState, settleSaved } from './matching.ts';
import type { StatementLine } from './parse.ts';
import type { Packed } from './workerPool.ts';

/** Keys asked per query when looking for saved lines. */
const savedKeysBatch = 500;

/**
 * Dedupe keys of `account` already saved, among `keys`: one JSON parameter a batch (a query builder's list
 * of thousands of parameters costs more than the query), and a turn of the event loop between batches
 * (PGlite runs each query on this thread: a 200,000-line statement must not hold the server for seconds).
 */
export async function savedKeys(tx: Db, accountId: number, keys: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (let i = 0; i < keys.length; i += savedKeysBatch) {
    const batch = JSON.stringify(keys.slice(i, i + savedKeysBatch));
    const rows = rowsOf<{ key: string }>(
      await tx.execute(sql`
        select dedupe_key as key from statement_lines
        where account_id = ${accountId}
          and dedupe_key in (select jsonb_array_elements_text(${batch}::jsonb))`),
    );
    for (const r of rows) out.add(r.key);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return out;
}

/** Which lines add nothing: saved already, or the same line earlier in the file. */
export function duplicatesOf(lines: readonly StatementLine[], saved: Set<string>): boolean[] {
  const seen = new Set<string>();
  return lines.map((l) => {
    const dup = saved.has(l.dedupeKey) || seen.has(l.dedupeKey);
    seen.add(l.dedupeKey);
    return dup;
  });
}

/**
 * How many lines of a whole statement add nothing (saved already, or earlier in the file): `duplicatesOf`'s
 * count, walked a batch at a time (the saved keys asked per batch, a turn of the event loop between).
 */
export async function countDuplicates(
  tx: Db,
  accountId: number,
  lines: Packed<StatementLine>,
): Promise<number> {
  const seen = new Set<string>();
  let n = 0;
  for await (const batch of lines.batches(savedKeysBatch)) {
    const keys = batch.map((l) => l.dedupeKey);
    const saved = await savedKeys(tx, accountId, keys);
    for (const key of keys) {
      if (saved.has(key) || seen.has(key)) n++;
      seen.add(key);
    }
  }
  return n;
}

/**
 * Saves a batch of lines of one import, new or in the `states` matching gave them, skipping those the
 * account has (by dedupe key); answers how many it saved. One JSON parameter instead of a dozen per line:
 * building a thousand-row insert through the query builder costs more than the database's work.
 */
export async function saveLines(
  tx: Db,
  accountId: number,
  importId: number,
  batch: readonly StatementLine[],
  now: Date,
  states?: readonly SavedState[],
): Promise<number> {
  const json = JSON.stringify(
    batch.map((l, i) => {
      const state = states?.[i];
      return {
        ...lineFields(l),
        dedupe_key: l.dedupeKey,
        status: state?.status ?? statementLine.initial,
        exception_kind: state?.exceptionKind ?? null,
        payin_id: state?.payinId ?? null,
        candidate_payin_id: state?.candidatePayinId ?? null,
        candidate_slip_line_id: state?.candidateSlipLineId ?? null,
        resolved_at: state?.resolvedAt ?? null,
      };
    }),
  );
  const rows = rowsOf<{ id: string | number }>(
    await tx.execute(sql`
      insert into statement_lines (account_id, import_id, "row", day, narration, reference, direction, amount,
        balance, utr, currency, dedupe_key, status, exception_kind, payin_id, candidate_payin_id,
        candidate_slip_line_id, resolved_at, created_at)
      select ${accountId}, ${importId}, x."row", x.day, x.narration, x.reference, x.direction, x.amount,
        x.balance, x.utr, x.currency, x.dedupe_key, x.status, x.exception_kind, x.payin_id,
        x.candidate_payin_id, x.candidate_slip_line_id, x.resolved_at, ${now.toISOString()}::timestamptz
      from jsonb_to_recordset(${json}::jsonb) as x("row" int, day date, narration text, reference text,
        direction text, amount bigint, balance bigint, utr text, currency text, dedupe_key text, status text,
        exception_kind text, payin_id bigint, candidate_payin_id bigint, candidate_slip_line_id int,
        resolved_at timestamptz)
      on conflict (account_id, dedupe_key) do nothing
      returning id`),
  );
  return rows.length;
}

type SavedState = ReturnType<typeof savedState>;

/** A statement's line as a new line of `importId` not saved yet, named by `id` while matching decides. */
function lineOf(l: StatementLine, id: number, accountId: number, importId: number, now: Date): Line {
  return {
    id,
    accountId,
    importId,
    ...lineFields(l),
    dedupeKey: l.dedupeKey,
    status: statementLine.initial,
    exceptionKind: null,
    payinId: null,
    candidatePayinId: null,
    slipLineId: null,
    candidateSlipLineId: null,
    approvalId: null,
    reason: null,
    resolvedBy: null,
    resolvedAt: null,
    createdAt: now,
  };
}

/**
 * Saves the batch's lines not kept yet in the states matching gives them, and pays the orders the bank's
 * feed proves. Matching reads before anything is written, so each line is written once (one insert, and
 * for a paying batch one update of its orders) instead of inserted new and then moved. A line another
 * import saved meanwhile, or an order or UTR taken meanwhile, restarts the transaction, which then sees it.
 */
export async function saveMatched(
  deps: Deps,
  tx: Db,
  accountId: number,
  importId: number,
  batch: readonly StatementLine[],
  userId: number,
): Promise<{ saved: number; counts: MatchCounts }> {
  const now = deps.clock.now();
  const kept = await savedKeys(
    tx,
    accountId,
    batch.map((l) => l.dedupeKey),
  );
  const fresh = batch.filter((l) => {
    if (kept.has(l.dedupeKey)) return false;
    kept.add(l.dedupeKey);
    return true;
  });
  if (!fresh.length) return { saved: 0, counts: noMatches() };
  // Not saved yet: while matching decides, each line goes by an id of its own below zero.
  const unsaved = fresh.map((l, i) => lineOf(l, -(i + 1), accountId, importId, now));
  const outcomes = await planMatches(tx, unsaved);
  const saved = await saveLines(
    tx,
    accountId,
    importId,
    fresh,
    now,
    unsaved.map((l) => savedState(outcomes.get(l.id)!, now)),
  );
  if (saved < fresh.length) throw new RetryTransaction();
  return { saved, counts: await settleSaved(deps, tx, unsaved, outcomes, userId) };
}
