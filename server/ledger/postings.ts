/**
 * How entries become postings: the accounts locked in id order, each line applied to its account's
 * balance and version (refused before anything moves when a wallet would go below zero), the postings
 * inserted, the balances and the daily movements written. `post` and `LedgerBatch` share these steps.
 */
import { sql } from 'drizzle-orm';
import { errno } from '../../contract/errno.ts';
import type { Db } from '../db/index.ts';
import { ledgerAccounts, postings } from '../db/schema.ts';
import { AppError } from '../http/errors.ts';
import { storedZone } from '../lib/businessDay.ts';
import { chunks } from '../lib/chunks.ts';
import {
  type AccountRef,
  accountKey,
  type Entry,
  type EntryLine,
  ensureAccounts,
  type PostedLine,
} from './accounts.ts';

export const keyOf = accountKey;

/** A locked account as this transaction sees it: its balance and version move as entries apply. */
export interface HeldAccount {
  id: number;
  balance: number;
  version: number;
  mayBeNegative: boolean;
}

/** Locks the accounts of `refs` (creating missing ones) in id order, so concurrent entries never deadlock. */
export async function lockAccounts(tx: Db, refs: readonly AccountRef[]): Promise<Map<string, HeldAccount>> {
  const unique = [...new Map(refs.map((r) => [keyOf(r), r])).values()];
  const byKey = new Map<string, HeldAccount>();
  if (!unique.length) return byKey;
  type Row = {
    id: number;
    owner_type: string;
    owner_id: number;
    kind: string;
    currency: string;
    balance: string;
    version: string;
    may_be_negative: boolean;
  };
  const select = async () =>
    rowsOf<Row>(
      await tx.execute(sql`
      select id, owner_type, owner_id, kind, currency, balance, version, may_be_negative
      from ${ledgerAccounts}
      where (owner_type, owner_id, kind, currency) in (${sql.join(
        unique.map((r) => sql`(${r.ownerType}, ${r.ownerId}, ${r.kind}, ${r.currency})`),
        sql`, `,
      )})
      order by id
      for update`),
    );
  let rows = await select();
  if (rows.length < unique.length) {
    await ensureAccounts(tx, unique);
    rows = await select();
  }
  for (const r of rows) {
    byKey.set(`${r.owner_type}:${r.owner_id}:${r.kind}:${r.currency}`, {
      id: Number(r.id),
      balance: Number(r.balance),
      version: Number(r.version),
      mayBeNegative: r.may_be_negative,
    });
  }
  return byKey;
}

/** Result rows of `execute`, whichever driver answered (node-postgres and PGlite both use `.rows`). */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}

/** Refuses an entry without lines, with an amount that is not a non-zero safe integer, or that does not balance. */
export function checkBalanced(entry: Pick<Entry, 'kind' | 'lines'>): void {
  if (!entry.lines.length) throw new Error('ledger: an entry needs lines');
  const sums = new Map<string, bigint>();
  for (const line of entry.lines) {
    if (!Number.isSafeInteger(line.amount) || line.amount === 0)
      throw new Error(`ledger: bad amount ${line.amount}`);
    sums.set(line.account.currency, (sums.get(line.account.currency) ?? 0n) + BigInt(line.amount));
  }
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new Error(`ledger: entry ${entry.kind} does not balance in ${currency} (${sum})`);
  }
}

/**
 * Applies an entry's lines to the held accounts, in account id order: each line gets the balance before
 * and after and the account's next `seq`. Refuses (errno 1019) when a wallet would go below zero, leaving
 * the accounts as they were.
 */
export function applyLines(accounts: Map<string, HeldAccount>, lines: readonly EntryLine[]): PostedLine[] {
  const held = lines
    .map((line) => ({ line, acc: accounts.get(keyOf(line.account))! }))
    .sort((a, b) => a.acc.id - b.acc.id);
  // Worked out on copies first: a refused entry must not move any account.
  const next = new Map<HeldAccount, { balance: number; version: number }>();
  const posted: PostedLine[] = [];
  for (const { line, acc } of held) {
    const state = next.get(acc) ?? { balance: acc.balance, version: acc.version };
    const before = state.balance;
    const after = before + line.amount;
    // Past 2^53 a JS number rounds: the balance would drift from its postings without a word.
    if (!Number.isSafeInteger(after))
      throw new Error(`ledger: ${keyOf(line.account)} would leave the safe range`);
    if (after < 0 && !acc.mayBeNegative) {
      throw new AppError(
        errno.insufficientBalance,
        null,
        `${keyOf(line.account)} ${before} + ${line.amount}`,
      );
    }
    state.balance = after;
    state.version += 1;
    next.set(acc, state);
    posted.push({
      accountId: acc.id,
      account: line.account,
      amount: line.amount,
      balanceBefore: before,
      balanceAfter: after,
      seq: state.version,
    });
  }
  for (const [acc, state] of next) Object.assign(acc, state);
  return posted;
}

export async function insertPostings(tx: Db, rows: (typeof postings.$inferInsert)[]): Promise<void> {
  // One JSON parameter per chunk: thousands of postings built by the query builder cost more than the insert.
  for (const chunk of chunks(rows, 5000)) {
    const json = JSON.stringify(
      chunk.map((r) => [
        r.entryId,
        r.accountId,
        r.seq,
        r.amount,
        r.balanceBefore,
        r.balanceAfter,
        r.currency,
        r.at,
      ]),
    );
    await tx.execute(sql`
      insert into ${postings} (entry_id, account_id, seq, amount, balance_before, balance_after, currency, at)
      select (r ->> 0)::bigint, (r ->> 1)::int, (r ->> 2)::bigint, (r ->> 3)::bigint, (r ->> 4)::bigint,
        (r ->> 5)::bigint, r ->> 6, (r ->> 7)::timestamptz
      from jsonb_array_elements(${json}::jsonb) as j(r)`);
  }
}

/** A posting as the daily movements count it: its account, instant and the entry's cause. */
export interface DailyMove {
  accountId: number;
  at: Date;
  refType: string;
  kind: string;
  amount: number;
}

/** The upsert of summed daily movements (at most 1,000 rows: 6,000 parameters). */
const dailyUpsert = (rows: readonly (DailyMove & { n: number })[]) => sql`
  insert into ledger_daily as d (account_id, day, ref_type, kind, amount, postings)
  select v.account_id, (v.at at time zone ${storedZone})::date, v.ref_type, v.kind, sum(v.amount), sum(v.n)
  from (values ${sql.join(
    rows.map(
      (m) =>
        sql`(${m.accountId}::int, ${m.at.toISOString()}::timestamptz, ${m.refType}::text, ${m.kind}::text, ${m.amount}::bigint, ${m.n}::int)`,
    ),
    sql`, `,
  )}) as v(account_id, at, ref_type, kind, amount, n)
  group by 1, 2, 3, 4
  order by 1, 2, 3, 4
  on conflict (account_id, day, ref_type, kind) do update set
    amount = d.amount + excluded.amount, postings = d.postings + excluded.postings`;

/**
 * Writes the held accounts' balance and version and adds the postings to their accounts' daily
 * movements (`ledger_daily`), in one statement (more only for a batch of over 1,000 account-instants).
 * The moves are summed here first (a batch pays one account many times a second), then bucketed into
 * business days by the database, rows in key order. The accounts are locked by the caller, so no other
 * writer touches these rows meanwhile.
 */
export async function saveAccounts(
  tx: Db,
  accounts: Iterable<HeldAccount>,
  moves: readonly DailyMove[],
): Promise<void> {
  const summed = new Map<string, DailyMove & { n: number }>();
  for (const m of moves) {
    const key = `${m.accountId}\u0000${m.at.getTime()}\u0000${m.refType}\u0000${m.kind}`;
    const s = summed.get(key);
    if (s) {
      s.amount += m.amount;
      s.n += 1;
    } else summed.set(key, { ...m, n: 1 });
  }
  const [first = [], ...rest] = chunks([...summed.values()], 1000);
  const rows = [...accounts].map((a) => sql`(${a.id}::int, ${a.balance}::bigint, ${a.version}::bigint)`);
  const balances = sql`
    update ${ledgerAccounts} a set balance = v.balance, version = v.version
    from (values ${sql.join(rows, sql`, `)}) as v(id, balance, version)
    where a.id = v.id`;
  if (rows.length && first.length)
    await tx.execute(sql`with balances as (${balances} returning 1) ${dailyUpsert(first)}`);
  else if (rows.length) await tx.execute(balances);
  else if (first.length) await tx.execute(dailyUpsert(first));
  for (const chunk of rest) await tx.execute(dailyUpsert(chunk));
}

export const postingRows = (entryId: number, at: Date, lines: readonly PostedLine[]) =>
  lines.map((p) => ({
    entryId,
    accountId: p.accountId,
    seq: p.seq,
    amount: p.amount,
    balanceBefore: p.balanceBefore,
    balanceAfter: p.balanceAfter,
    currency: p.account.currency,
    at,
  }));

export const dailyMoves = (entry: Pick<Entry, 'at' | 'refType' | 'kind'>, lines: readonly PostedLine[]) =>
  lines.map((p) => ({
    accountId: p.accountId,
    at: entry.at,
    refType: entry.refType,
    kind: entry.kind,
    amount: p.amount,
  }));

export const alreadyPosted = (e: { refType: string; refId: string | number; kind: string }) =>
  new AppError(errno.conflict, null, `already posted: ${e.refType} ${e.refId} ${e.kind}`);
