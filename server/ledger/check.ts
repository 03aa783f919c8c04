import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { storedZone } from '../lib/businessDay.ts';
import { rowsOf } from './index.ts';

export interface LedgerReport {
  /** True when every check below found nothing. */
  balanced: boolean;
  /** Sum of all balances per currency: zero in a closed double-entry book. */
  totals: { currency: string; total: number }[];
  /** Entries whose postings do not sum to zero (or that have none). */
  unbalancedEntries: { entryId: number; currency: string | null; sum: number }[];
  /** Postings whose before is not the previous after, or whose seq skips. */
  brokenChains: { accountId: number; seq: number; balanceBefore: number; expectedBefore: number }[];
  /** Accounts whose balance or version is not what their postings add up to. */
  accountMismatches: {
    accountId: number;
    balance: number;
    fromPostings: number;
    version: number;
    lastSeq: number;
  }[];
  /** Daily movements (`ledger_daily`) that are not what the day's postings add up to. */
  dailyMismatches: {
    accountId: number;
    day: string;
    refType: string;
    kind: string;
    stored: number | null;
    fromPostings: number | null;
  }[];
}

/** The invariant checker: run after every money test and behind `GET /ledger/trialBalance`. */
export async function checkLedger(db: Db): Promise<LedgerReport> {
  const totals = rowsOf<{ currency: string; total: string }>(
    await db.execute(
      sql`select currency, sum(balance)::text as total from ledger_accounts group by currency order by currency`,
    ),
  ).map((r) => ({ currency: r.currency, total: Number(r.total) }));

  const unbalancedEntries = rowsOf<{ entry_id: string; currency: string | null; sum: string }>(
    await db.execute(sql`
      select e.id as entry_id, p.currency, coalesce(sum(p.amount), 0)::text as sum
      from journal_entries e left join postings p on p.entry_id = e.id
      group by e.id, p.currency
      having coalesce(sum(p.amount), 0) <> 0 or count(p.id) = 0
      limit 100`),
  ).map((r) => ({ entryId: Number(r.entry_id), currency: r.currency, sum: Number(r.sum) }));

  const brokenChains = rowsOf<{ account_id: number; seq: string; balance_before: string; expected: string }>(
    await db.execute(sql`
      select account_id, seq, balance_before, expected from (
        select account_id, seq, balance_before,
          coalesce(lag(balance_after) over w, 0) as expected,
          coalesce(lag(seq) over w, 0) as prev_seq
        from postings window w as (partition by account_id order by seq)
      ) t
      where balance_before <> expected or seq <> prev_seq + 1
      limit 100`),
  ).map((r) => ({
    accountId: Number(r.account_id),
    seq: Number(r.seq),
    balanceBefore: Number(r.balance_before),
    expectedBefore: Number(r.expected),
  }));

  const accountMismatches = rowsOf<{
    id: number;
    balance: string;
    from_postings: string;
    version: string;
    last_seq: string;
  }>(
    await db.execute(sql`
      select a.id, a.balance, coalesce(p.total, 0) as from_postings, a.version, coalesce(p.last_seq, 0) as last_seq
      from ledger_accounts a
      left join (select account_id, sum(amount) as total, max(seq) as last_seq from postings group by account_id) p
        on p.account_id = a.id
      where a.balance <> coalesce(p.total, 0) or a.version <> coalesce(p.last_seq, 0)
      limit 100`),
  ).map((r) => ({
    accountId: Number(r.id),
    balance: Number(r.balance),
    fromPostings: Number(r.from_postings),
    version: Number(r.version),
    lastSeq: Number(r.last_seq),
  }));

  const dailyMismatches = rowsOf<{
    account_id: number;
    day: string;
    ref_type: string;
    kind: string;
    stored: string | null;
    from_postings: string | null;
  }>(
    await db.execute(sql`
      with p as (
        select p.account_id, (p.at at time zone ${storedZone})::date as day, e.ref_type, e.kind,
          sum(p.amount) as amount, count(*)::int as n
        from postings p join journal_entries e on e.id = p.entry_id
        group by 1, 2, 3, 4)
      select coalesce(d.account_id, p.account_id) as account_id, coalesce(d.day, p.day)::text as day,
        coalesce(d.ref_type, p.ref_type) as ref_type, coalesce(d.kind, p.kind) as kind,
        d.amount::text as stored, p.amount::text as from_postings
      from ledger_daily d
      full join p on p.account_id = d.account_id and p.day = d.day and p.ref_type = d.ref_type and p.kind = d.kind
      where row(d.amount, d.postings) is distinct from row(p.amount, p.n)
      order by 1, 2, 3, 4
      limit 100`),
  ).map((r) => ({
    accountId: Number(r.account_id),
    day: r.day,
    refType: r.ref_type,
    kind: r.kind,
    stored: r.stored === null ? null : Number(r.stored),
    fromPostings: r.from_postings === null ? null : Number(r.from_postings),
  }));

  const balanced =
    totals.every((t) => t.total === 0) &&
    !unbalancedEntries.length &&
    !brokenChains.length &&
    !accountMismatches.length &&
    !dailyMismatches.length;
  return { balanced, totals, unbalancedEntries, brokenChains, accountMismatches, dailyMismatches };
}

/**
 * A merchant account kind that mirrors lines (`collection_pending` the pending T+N lines' net, `reserve`
 * the held reserve lines): per merchant and currency, the balance must equal the lines' sum of `column`
 * where `live` holds. Answers the accounts where it does not.
 */
export async function checkLinesMatch(
  db: Db,
  lines: { table: 'tn_lines' | 'reserve_lines'; column: 'net' | 'amount'; live: SQL; kind: string },
) {
  const rows = rowsOf<{ merchant_id: number; currency: string; balance: string; lines: string }>(
    await db.execute(sql`
      with l as (
        select merchant_id, currency, sum(${sql.raw(lines.column)}) as lines from ${sql.raw(lines.table)}
        where ${lines.live} group by 1, 2
      ),
      a as (
        select owner_id as merchant_id, currency, balance from ledger_accounts
        where owner_type = 'merchant' and kind = ${lines.kind}
      )
      select coalesce(a.merchant_id, l.merchant_id) as merchant_id, coalesce(a.currency, l.currency) as currency,
        coalesce(a.balance, 0)::text as balance, coalesce(l.lines, 0)::text as lines
      from a full join l on l.merchant_id = a.merchant_id and l.currency = a.currency
      where coalesce(a.balance, 0) <> coalesce(l.lines, 0)
      order by 1, 2
      limit 100`),
  );
  const mismatches = rows.map((r) => ({
    merchantId: Number(r.merchant_id),
    currency: r.currency,
    balance: Number(r.balance),
    lines: Number(r.lines),
  }));
  return { ok: mismatches.length === 0, mismatches };
}
