/**
 * One entry posted in one statement: the accounts locked in id order, the lines applied to their
 * balances, the journal entry, its postings, the balances and the daily movements written, or nothing
 * written when a wallet would go below zero or the cause was posted already. The steps are those of
 * postings.ts (which `LedgerBatch` takes one round trip each); here they cost one round trip, so a hot
 * account (a merchant's payout wallet, the platform's clearing and fee accounts) is held from this
 * statement to the commit only, and the platform's busiest accounts are posted on one of their shards
 * (`onShard`, chosen at random for each entry).
 */
import { sql } from 'drizzle-orm';
import { errno } from '../../contract/errno.ts';
import type { Db } from '../db/index.ts';
import { AppError } from '../http/errors.ts';
import { storedZone } from '../lib/businessDay.ts';
import { type Entry, ensureAccounts, onShard, type PostedLine, platformShards } from './accounts.ts';
import { alreadyPosted, checkBalanced, keyOf, rowsOf } from './postings.ts';

interface Row {
  entry_id: number | null;
  held: number;
  wanted: number;
  safe: boolean;
  n: number;
  account_id: number;
  amount: string;
  before: string;
  after: string;
  seq: string;
  may_be_negative: boolean;
}

/**
 * Window `w` runs over an account's lines in the entry's order, as `applyLines` applies them: the
 * balance before and after each and the account's next `seq`. The entry is written only when every
 * account exists (`held = wanted`) and no wallet goes below zero on the way (`fits`).
 */
const postSql = (entry: Entry) => {
  const lines = JSON.stringify(
    entry.lines.map((l) => [
      l.account.ownerType,
      l.account.ownerId,
      l.account.kind,
      l.account.currency,
      l.amount,
    ]),
  );
  const at = entry.at.toISOString();
  return sql`
  with line as (
    select l ->> 0 as owner_type, (l ->> 1)::int as owner_id, l ->> 2 as kind, l ->> 3 as currency,
      (l ->> 4)::bigint as amount, n
    from jsonb_array_elements(${lines}::jsonb) with ordinality as x(l, n)
  ), acc as (
    select id, owner_type, owner_id, kind, currency, balance, version, may_be_negative
    from ledger_accounts
    where (owner_type, owner_id, kind, currency) in (select owner_type, owner_id, kind, currency from line)
    order by id
    for update
  ), moved as (
    select acc.id as account_id, line.n, line.amount, line.currency, acc.may_be_negative,
      acc.balance + sum(line.amount) over w - line.amount as before,
      acc.balance + sum(line.amount) over w as after,
      acc.version + row_number() over w as seq
    from line join acc using (owner_type, owner_id, kind, currency)
    window w as (partition by acc.id order by line.n)
  ), verdict as (
    select (select count(*) from acc) as held,
      (select count(*) from (select distinct owner_type, owner_id, kind, currency from line) k) as wanted,
      coalesce((select bool_and(after >= 0 or may_be_negative) from moved), false) as fits,
      coalesce((select bool_and(abs(after) <= ${Number.MAX_SAFE_INTEGER}) from moved), false) as safe
  ), entry as (
    insert into journal_entries (at, kind, ref_type, ref_id, memo, user_id)
    select ${at}::timestamptz, ${entry.kind}, ${entry.refType}, ${String(entry.refId)}, ${entry.memo ?? ''},
      ${entry.userId ?? null}::int
    from verdict where held = wanted and fits and safe
    on conflict do nothing
    returning id
  ), posted as (
    insert into postings (entry_id, account_id, seq, amount, balance_before, balance_after, currency, at)
    select entry.id, m.account_id, m.seq, m.amount, m.before, m.after, m.currency, ${at}::timestamptz
    from moved m, entry
  ), saved as (
    update ledger_accounts a set balance = f.after, version = f.seq
    from (select distinct on (account_id) account_id, after, seq from moved order by account_id, n desc) f, entry
    where a.id = f.account_id
  ), daily as (
    insert into ledger_daily as d (account_id, day, ref_type, kind, amount, postings)
    select m.account_id, (${at}::timestamptz at time zone ${storedZone})::date, ${entry.refType}, ${entry.kind},
      sum(m.amount), count(*)
    from moved m, entry
    group by m.account_id
    order by m.account_id
    on conflict (account_id, day, ref_type, kind) do update set
      amount = d.amount + excluded.amount, postings = d.postings + excluded.postings
  )
  select (select id from entry) as entry_id, v.held, v.wanted, v.safe, m.n, m.account_id, m.amount, m.before, m.after,
    m.seq, m.may_be_negative
  from verdict v left join moved m on true
  order by m.account_id, m.n`;
};

/**
 * Posts one balanced entry inside the caller's transaction, in one statement (two when an account has
 * to be created first). Refuses (errno 1019) when a wallet would go below zero and (409) when the same
 * cause was already posted, having written nothing.
 */
export async function postEntry(tx: Db, asked: Entry): Promise<{ entryId: number; posted: PostedLine[] }> {
  checkBalanced(asked);
  const shard = Math.floor(Math.random() * platformShards);
  const entry = { ...asked, lines: asked.lines.map((l) => ({ ...l, account: onShard(l.account, shard) })) };
  let rows = rowsOf<Row>(await tx.execute(postSql(entry)));
  if (Number(rows[0]!.held) < Number(rows[0]!.wanted)) {
    await ensureAccounts(
      tx,
      entry.lines.map((l) => l.account),
    );
    rows = rowsOf<Row>(await tx.execute(postSql(entry)));
  }
  // Past 2^53 a JS number rounds: the balance would drift from its postings without a word.
  const unsafe = !rows[0]!.safe && rows.find((r) => Math.abs(Number(r.after)) > Number.MAX_SAFE_INTEGER);
  if (unsafe)
    throw new Error(
      `ledger: ${keyOf(entry.lines[Number(unsafe.n) - 1]!.account)} would leave the safe range`,
    );
  // The lines in the statement's order (account id, then the entry's): the one that refused is the first below zero.
  const posted: PostedLine[] = rows.map((r) => {
    const line = entry.lines[Number(r.n) - 1]!;
    return {
      accountId: Number(r.account_id),
      account: line.account,
      amount: Number(r.amount),
      balanceBefore: Number(r.before),
      balanceAfter: Number(r.after),
      seq: Number(r.seq),
    };
  });
  const short = posted.find((p, i) => p.balanceAfter < 0 && !rows[i]!.may_be_negative);
  if (short) {
    throw new AppError(
      errno.insufficientBalance,
      null,
      `${keyOf(short.account)} ${short.balanceBefore} + ${short.amount}`,
    );
  }
  const entryId = rows[0]!.entry_id;
  if (entryId === null) throw alreadyPosted(entry);
  return { entryId: Number(entryId), posted };
}
