/**
 * Reconciliation (`GET /statOrder/balance?view=account`, OPERATIONS.md section 2): per business day and
 * receiving account (or bank channel) and currency, what was paid against what the bank statements prove.
 * Every figure but the clearing comes from `reconciliation_daily`, which triggers keep from the pay-ins and
 * statement lines (migration `0017_reconciliation_rollup`): a period is a few hundred rollup rows, never a
 * scan of the orders or lines. By channel, a credit that paid no order counts under the bank channel its
 * account is bound to (the earliest binding), under none when it is bound to no bank channel; `clearing`
 * is the ledger's channel clearing account's movement that day (`ledger_daily`), as the ledger signs it;
 * `frozen` (by account) what a bank's freeze held of the account's money when the day ended.
 */
import { type SQL, sql } from 'drizzle-orm';
import { accountLabel } from '../../../contract/endpoints/receiving.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import type { Lang } from '../../http/i18n.ts';
import { rowsOf } from '../../ledger/index.ts';
import { isCalendarDay, storedZone } from '../../lib/businessDay.ts';
import { badCursor, cursorParts, reportCursor } from './cursor.ts';
import { countedReportPage, newestDayFirst, periodTotals } from './page.ts';

export type AccountGrouping = 'account' | 'channel';

export interface AccountFilters {
  from: string;
  to: string;
  by: AccountGrouping;
  accountId: number | null;
  channelId: number | null;
}

/** Where a page continues: after `(day, key, currency)`; the key is the account's or channel's id (0: none). */
export interface AccountKey {
  day: string;
  key: number;
  currency: string;
}

export function encodeAccountCursor(k: AccountKey): string {
  return reportCursor(k.day, k.key, k.currency);
}

export function decodeAccountCursor(cursor: string, lang: Lang): AccountKey {
  const [day = '', key = '', currency = ''] = cursorParts(cursor, 3);
  const n = Number(key);
  if (!isCalendarDay(day) || !/^\d+$/.test(key) || n > 2_147_483_647 || !/^[A-Z]{3}$/.test(currency)) {
    throw badCursor(lang);
  }
  return { day, key: n, currency };
}

/** The rollup's channel of a row `r`, a credit that paid no order taking its account's bank channel. */
const channelOf = sql`coalesce(nullif(r.channel_id, 0), b.channel_id, 0)`;

/** Each account's earliest binding to a bank channel. */
const bindings = sql`
  select distinct on (cb.account_id) cb.account_id, cb.channel_id
  from card_bindings cb join channels c on c.id = cb.channel_id and c.adapter = 'bank'
  order by cb.account_id, cb.id`;

/** The period's rows: the rollup summed per day, account or channel, and currency. */
const grouped = (f: AccountFilters) => {
  const conditions: SQL[] = [sql`r.day between ${f.from}::date and ${f.to}::date`];
  if (f.accountId !== null) conditions.push(sql`r.account_id = ${f.accountId}`);
  if (f.channelId !== null) conditions.push(sql`${channelOf} = ${f.channelId}`);
  const key = f.by === 'account' ? sql`r.account_id` : channelOf;
  return sql`
    select r.day, ${key} as key_id, r.currency,
      sum(r.paid_count)::int as paid_count, sum(r.paid_sum) as paid_sum,
      sum(r.matched_count)::int as matched_count, sum(r.matched_sum) as matched_sum,
      sum(r.unmatched_count)::int as unmatched_count, sum(r.unmatched_sum) as unmatched_sum,
      sum(r.unproved_count)::int as unproved_count, sum(r.unproved_sum) as unproved_sum
    from reconciliation_daily r left join b on b.account_id = r.account_id
    where ${sql.join(conditions, sql` and `)}
    group by 1, 2, 3
    -- A rollup row whose orders or lines all moved away (another day, paid no more) adds up to nothing.
    having sum(r.paid_count) <> 0 or sum(r.matched_count) <> 0 or sum(r.unmatched_count) <> 0`;
};

/**
 * The channel clearing account's movement in `currency` over days `from`..`to` (SQL), as the ledger signs
 * it: the sum over its shards (`platformShards`).
 */
const clearingOf = (from: SQL, to: SQL, currency: SQL) => sql`(
  select coalesce(sum(d.amount), 0) from ledger_accounts a
  join ledger_daily d on d.account_id = a.id and d.day between ${from} and ${to}
  where a.owner_type = 'platform' and a.kind = 'channel_clearing' and a.currency = ${currency})`;

interface Figures {
  currency: string;
  paid_count: number;
  paid_sum: string;
  matched_count: number;
  matched_sum: string;
  unmatched_count: number;
  unmatched_sum: string;
  unproved_count: number;
  unproved_sum: string;
  clearing: string | null;
}

const countSum = (count: number, sum: string) => ({ count: Number(count), sum: formatMinor(Number(sum)) });

function figuresOf(r: Figures) {
  return {
    currency: r.currency,
    paid: countSum(r.paid_count, r.paid_sum),
    matchedCredits: countSum(r.matched_count, r.matched_sum),
    unmatchedCredits: countSum(r.unmatched_count, r.unmatched_sum),
    unproved: countSum(r.unproved_count, r.unproved_sum),
    clearing: r.clearing === null ? null : formatMinor(Number(r.clearing)),
    difference: formatMinor(Number(r.paid_sum) - Number(r.matched_sum)),
  };
}

/**
 * `missing` when orders were paid into the account that day and no statement line of the day is kept;
 * `gap` when the day's running balance has more loose ends than its opening and closing (lines of the day
 * are missing), or its opening is not the closing of the account's previous day with lines (lines between
 * two imports are missing); else null (contract `statementCoverage`). Read from the balance's loose ends
 * kept as lines are saved (schema.ts `statementBalanceEnds`): a few index probes a row, for a page's rows
 * only. Days whose lines carry no balance are not judged.
 */
const coverageOf = (account: SQL, day: SQL, paidCount: SQL) => sql`(
  select case
    when ${paidCount} > 0 and not exists (
      select 1 from statement_lines l where l.account_id = ${account} and l.day = ${day}) then 'missing'
    when e.ends > 2 then 'gap'
    when e.ends = 2 and p.ends = 2 and e.opening <> p.closing then 'gap'
  end
  from (select coalesce(sum(abs(x.n)), 0) as ends, max(x.balance) filter (where x.n < 0) as opening
        from statement_balance_ends x where x.account_id = ${account} and x.day = ${day}) e,
       (select coalesce(sum(abs(x.n)), 0) as ends, max(x.balance) filter (where x.n > 0) as closing
        from statement_balance_ends x
        where x.account_id = ${account} and x.day = (
          select max(l.day) from statement_lines l where l.account_id = ${account} and l.day < ${day})) p)`;

/**
 * What the bank held frozen on the account when the day ended (docs/MONEY-BACK.md section 3): its freezes
 * recorded as frozen by then and not settled by then. The bank's balance is the book's less this.
 */
const frozenAt = (account: SQL, day: SQL, currency: SQL) => sql`(
  select coalesce(sum(fr.amount), 0)::text from account_freezes fr,
    (select ((${day} + 1)::timestamp at time zone ${storedZone}) as day_end) e
  where fr.receiving_account_id = ${account} and fr.currency = ${currency} and fr.frozen_at < e.day_end
    and (fr.settled_at is null or fr.settled_at >= e.day_end))`;

/** One page of rows, newest day first, then by account (or channel) and currency, and the period's row count. */
export async function accountPage(db: Db, f: AccountFilters, after: AccountKey | null, pageSize: number) {
  const rows = rowsOf<
    Figures & {
      total: number;
      day: string | null;
      key_id: number;
      bank_name: string | null;
      account_number: string | null;
      channel_name: string | null;
      statement: 'missing' | 'gap' | null;
      frozen: string | null;
    }
  >(
    await db.execute(sql`
      with b as (${bindings}),
      period as (${grouped(f)}),
      page as (${newestDayFirst(
        sql`*`,
        'key_id',
        after && { day: after.day, id: after.key, currency: after.currency },
        pageSize,
      )})
      -- The period's row count rides along (one row of it alone when the page is empty).
      select t.total, p.* from (select count(*)::int as total from period) t left join (
        select k.day::text as day, k.key_id, k.currency, k.paid_count, k.paid_sum::text, k.matched_count,
          k.matched_sum::text, k.unmatched_count, k.unmatched_sum::text, k.unproved_count, k.unproved_sum::text,
          ${f.by === 'channel' ? sql`${clearingOf(sql`k.day`, sql`k.day`, sql`k.currency`)}::text` : sql`null::text`} as clearing,
          ra.bank_name, ra.account_number, ch.name as channel_name,
          ${f.by === 'account' ? coverageOf(sql`k.key_id`, sql`k.day`, sql`k.paid_count`) : sql`null::text`} as statement,
          ${f.by === 'account' ? frozenAt(sql`k.key_id`, sql`k.day`, sql`k.currency`) : sql`null::text`} as frozen
        from page k
        left join receiving_accounts ra on ${f.by === 'account' ? sql`ra.id = k.key_id` : sql`false`}
        left join channels ch on ${f.by === 'channel' ? sql`ch.id = k.key_id` : sql`false`}
      ) p on true
      order by p.day desc, p.key_id, p.currency`),
  );
  return countedReportPage(
    rows,
    'day',
    pageSize,
    (r) => {
      const key = Number(r.key_id);
      return {
        day: r.day,
        accountId: f.by === 'account' ? key : null,
        channelId: f.by === 'channel' && key !== 0 ? key : null,
        // A channel row of credits no bank channel can claim has no name: the console names it.
        label:
          f.by === 'account'
            ? accountLabel({ bankName: r.bank_name ?? '', accountNumber: r.account_number ?? '' })
            : (r.channel_name ?? ''),
        ...figuresOf(r),
        statement: r.statement ?? null,
        frozen: r.frozen === null ? null : formatMinor(Number(r.frozen)),
      };
    },
    (last) => encodeAccountCursor({ day: last.day, key: Number(last.key_id), currency: last.currency }),
  );
}

/** The whole period per currency; the clearing (by channel) is the account's movement over the period. */
export async function accountTotals(db: Db, f: AccountFilters) {
  const rows = rowsOf<Partial<Figures> & { zone: string }>(
    await db.execute(sql`
      with b as (${bindings}),
      period as (${grouped(f)}),
      t as (
        select currency, sum(paid_count)::int as paid_count, sum(paid_sum)::text as paid_sum,
          sum(matched_count)::int as matched_count, sum(matched_sum)::text as matched_sum,
          sum(unmatched_count)::int as unmatched_count, sum(unmatched_sum)::text as unmatched_sum,
          sum(unproved_count)::int as unproved_count, sum(unproved_sum)::text as unproved_sum
        from period group by currency
      )
      select ${storedZone} as zone, t.*,
        ${f.by === 'channel' ? sql`${clearingOf(sql`${f.from}::date`, sql`${f.to}::date`, sql`t.currency`)}::text` : sql`null::text`} as clearing
      from (select 1) one left join t on true
      order by t.currency`),
  );
  return periodTotals(rows, (r) => figuresOf(r as Figures));
}

/**
 * The paid orders behind a row's `unproved` figure (as the rollup counts them: paid that business day, by
 * `paid_at` in the stored zone, with a receiving account and no statement line), oldest payment first.
 */
export async function unprovedOrders(
  db: Db,
  f: { day: string; accountId?: number | undefined; channelId?: number | undefined },
  limit: number,
) {
  const rows = rowsOf<{
    id: string;
    order_no: string;
    merchant_code: string;
    amount: string;
    paid_amount: string;
    paid_by: string | null;
    paid_at: Date | string;
    utr: string | null;
    bank_name: string;
    account_number: string;
  }>(
    await db.execute(sql`
      with z as (select ${storedZone} as zone)
      select o.id, o.order_no, m.code as merchant_code, o.amount, coalesce(o.paid_amount, o.amount) as paid_amount,
        o.paid_by, coalesce(o.paid_at, o.updated_at) as paid_at, o.utr, a.bank_name, a.account_number
      from payin_orders o
      join merchants m on m.id = o.merchant_id
      join receiving_accounts a on a.id = o.receiving_account_id, z
      where o.status = 'paid'
        ${f.accountId === undefined ? sql`` : sql`and o.receiving_account_id = ${f.accountId}`}
        ${f.channelId === undefined ? sql`` : sql`and o.channel_id = ${f.channelId}`}
        and coalesce(o.paid_at, o.updated_at) >= (${f.day}::date::timestamp at time zone z.zone)
        and coalesce(o.paid_at, o.updated_at) < ((${f.day}::date + 1)::timestamp at time zone z.zone)
        and not exists (select 1 from statement_lines l where l.payin_id = o.id)
      order by 7, o.id
      limit ${limit + 1}`),
  );
  return {
    list: rows.slice(0, limit).map((r) => ({
      id: Number(r.id),
      orderNo: r.order_no,
      merchantCode: r.merchant_code,
      amount: formatMinor(Number(r.amount)),
      paidAmount: formatMinor(Number(r.paid_amount)),
      paidBy: r.paid_by,
      paidAt: new Date(r.paid_at).toISOString(),
      utr: r.utr,
      accountLabel: accountLabel({ bankName: r.bank_name, accountNumber: r.account_number }),
    })),
    capped: rows.length > limit,
  };
}
