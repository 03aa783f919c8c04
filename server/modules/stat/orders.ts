/**
 * Order statistics (`GET /statOrder/list`) and what channel statistics (`GET /statOrder/channel`,
 * `channels.ts`) build on, OPERATIONS.md section 3. Both read the order stats (`order_stats_daily`: ended
 * orders per business day of creation, merchant, channel, kind and currency) and add the orders still under way, counted live through their
 * partial indexes as the dashboard counts them (a pay-in is `pending` for minutes, a payout under way for
 * as long as its channel takes): a period is a few thousand rollup rows, never a scan of the orders.
 * Counts and sums are therefore the order list's: `payinCreated` counts every order created that day,
 * `payinPaid`/`payinPaidAmount` the paid ones (the list's totals filtered to `paid`).
 * The channel statistics add the median time to pay (`payin_pay_time_daily`, kept by the triggers of
 * migration 0019), the channel's cost at its current rates and what the platform kept of the fees.
 * Days are cut in the stored business time zone, the one the rollups were bucketed in.
 */
import { type SQL, sql } from 'drizzle-orm';
import { payin, payout } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { inStates } from '../../db/states.ts';
import type { Lang } from '../../http/i18n.ts';
import { rowsOf } from '../../ledger/index.ts';
import { isCalendarDay, storedZone } from '../../lib/businessDay.ts';
import { badCursor, cursorParts, reportCursor } from './cursor.ts';
import { reportPage } from './page.ts';

export interface OrderStatFilters {
  from: string;
  to: string;
  merchantId: number | null;
  channelId: number | null;
  byChannel: boolean;
}

/** Where a page continues: after `(day, merchantId, channelId, currency)` (channel 0 when not by channel). */
export interface OrderStatKey {
  day: string;
  merchantId: number;
  channelId: number;
  currency: string;
}

export const maxId = 2_147_483_647;

export function encodeStatCursor(k: OrderStatKey): string {
  return reportCursor(k.day, k.merchantId, k.channelId, k.currency);
}

export function decodeStatCursor(cursor: string, lang: Lang): OrderStatKey {
  const [day = '', merchant = '', channel = '', currency = ''] = cursorParts(cursor, 4);
  const ids = [merchant, channel].map((v) => (/^\d{1,10}$/.test(v) ? Number(v) : -1));
  if (!isCalendarDay(day) || ids.some((n) => n < 0 || n > maxId) || !/^[A-Z]{3}$/.test(currency))
    throw badCursor(lang);
  return { day, merchantId: ids[0]!, channelId: ids[1]!, currency };
}

/** What a row's figures are summed over: per merchant (and channel), or per channel. */
type Grouping = 'merchant' | 'merchantChannel' | 'channel';

/** The period's bounds and its orders under way (SQL: CTEs `z`, `b`, `c`, `l`), rows keyed as `grouping`. */
function liveOf(f: Omit<OrderStatFilters, 'byChannel'>, grouping: Grouping): SQL {
  const status = sql.raw('o.status');
  // Under way: few rows at any time, each read through its state's partial index (the dashboard's rule:
  // a pay-in of its under-way states is only ever stored as pending).
  const underWay = (table: string, kind: string, states: readonly string[]) => sql`
    select (o.created_at at time zone b.zone)::date as day, o.merchant_id, coalesce(o.channel_id, 0) as channel_id,
      o.currency, ${kind}::text as kind, count(*)::int as live
    from ${sql.raw(table)} o, b
    where ${inStates(status, states)} and o.created_at >= b.t0 and o.created_at < b.t1
      ${merchantIs(f, 'o.merchant_id')}${channelIs(f, 'o.channel_id')}
    group by 1, 2, 3, 4`;
  return sql`
    z as (select ${storedZone} as zone),
    b as (
      select zone, (${f.from}::date::timestamp at time zone zone) as t0,
        ((${f.to}::date + 1)::timestamp at time zone zone) as t1
      from z),
    c as (
      ${underWay('payin_orders', 'payin', [payin.state.pending])}
      union all ${underWay('payout_orders', 'payout', payout.sets.underWay)}
    ),
    l as (
      select day, ${keysOf(grouping)}, currency,
        coalesce(sum(live) filter (where kind = 'payin'), 0)::int as payin_live,
        coalesce(sum(live) filter (where kind = 'payout'), 0)::int as payout_live
      from c where true${noChannelOf(grouping)} group by 1, 2, 3, 4
    )`;
}

const merchantIs = (f: { merchantId: number | null }, col: string) =>
  f.merchantId === null ? sql`` : sql` and ${sql.raw(col)} = ${f.merchantId}`;
const channelIs = (f: { channelId: number | null }, col: string) =>
  f.channelId === null ? sql`` : sql` and coalesce(${sql.raw(col)}, 0) = ${f.channelId}`;
const keysOf = (grouping: Grouping) =>
  grouping === 'merchant'
    ? sql`merchant_id, 0 as channel_id`
    : grouping === 'merchantChannel'
      ? sql`merchant_id, channel_id`
      : sql`0 as merchant_id, channel_id`;
const noChannelOf = (grouping: Grouping) => (grouping === 'channel' ? sql` and channel_id <> 0` : sql``);

/**
 * The report's rows of the days `dayIs` picks (SQL: a select over `l`), one row per day, key and
 * currency. The rollup holds one row per day, kind, merchant, channel and currency: each kind's rows are
 * summed to the report's key on their own (by merchant and channel they already are one row each), then
 * a report row is the pay-in row beside the payout row and the live counts of orders under way, joined.
 * Summing both kinds in one grouping, with a filter per figure, cost three to five times as much over
 * 60 days (bench/RESULTS.md).
 */
function rowsOn(f: Omit<OrderStatFilters, 'byChannel'>, grouping: Grouping, dayIs: (col: SQL) => SQL): SQL {
  const kindRows = (kind: string) =>
    grouping === 'merchantChannel'
      ? sql`
        select day, merchant_id, channel_id, currency, finished_count as ended, success_count as won,
          success_amount as amount, success_fee as fee, success_commission as commission
        from order_stats_daily s
        where s.kind = ${kind} and ${dayIs(sql.raw('s.day'))}
          ${merchantIs(f, 's.merchant_id')}${channelIs(f, 's.channel_id')}`
      : sql`
        select day, ${keysOf(grouping)}, currency, sum(finished_count)::int as ended, sum(success_count)::int as won,
          sum(success_amount)::bigint as amount, sum(success_fee)::bigint as fee,
          sum(success_commission)::bigint as commission
        from order_stats_daily s
        where s.kind = ${kind} and ${dayIs(sql.raw('s.day'))}
          ${merchantIs(f, 's.merchant_id')}${channelIs(f, 's.channel_id')}${noChannelOf(grouping)}
        group by 1, 2, 3, 4`;
  return sql`
      select day::text as day, merchant_id, channel_id, currency,
        (coalesce(p.ended, 0) + coalesce(l.payin_live, 0))::int as payin_created,
        coalesce(p.ended, 0)::int as payin_ended, coalesce(p.won, 0)::int as payin_paid,
        coalesce(p.amount, 0)::bigint as payin_amount, coalesce(p.fee, 0)::bigint as payin_fee,
        coalesce(p.commission, 0)::bigint as payin_commission,
        (coalesce(o.ended, 0) + coalesce(l.payout_live, 0))::int as payout_created,
        coalesce(o.ended, 0)::int as payout_ended, coalesce(o.won, 0)::int as payout_succeeded,
        coalesce(o.amount, 0)::bigint as payout_amount, coalesce(o.fee, 0)::bigint as payout_fee
      from (${kindRows('payin')}) p
      full join (${kindRows('payout')}) o using (day, merchant_id, channel_id, currency)
      full join (select * from l where ${dayIs(sql.raw('l.day'))}) l using (day, merchant_id, channel_id, currency)
      -- A rollup row whose orders all moved away adds up to nothing.
      where coalesce(p.ended, 0) + coalesce(o.ended, 0) + coalesce(l.payin_live, 0) + coalesce(l.payout_live, 0) <> 0`;
}

/** The period's figures (SQL: CTEs ending in `g`), one row per day, key and currency. */
export function cellsOf(f: Omit<OrderStatFilters, 'byChannel'>, grouping: Grouping): SQL {
  return sql`${liveOf(f, grouping)},
    g as (${rowsOn(f, grouping, (day) => sql`${day} between ${f.from}::date and ${f.to}::date`)})`;
}

/** The summed figures of a row, as the database gives them (bigints as text, or numbers in JSON). */
export interface Sums {
  payin_created: number;
  payin_ended: number;
  payin_paid: number;
  payin_amount: string | number;
  payin_fee: string | number;
  payin_commission: string | number;
  payout_created: number;
  payout_ended: number;
  payout_succeeded: number;
  payout_amount: string | number;
  payout_fee: string | number;
}

const sumColumns = [
  'payin_created',
  'payin_ended',
  'payin_paid',
  'payin_amount',
  'payin_fee',
  'payin_commission',
  'payout_created',
  'payout_ended',
  'payout_succeeded',
  'payout_amount',
  'payout_fee',
] as const;

/** `sum(x)` of every figure over `g` (SQL), for totals and series. */
const sumsOf = sql.raw(sumColumns.map((c) => `sum(${c}) as ${c}`).join(', '));

/** The figures of a day and currency from the rollup summed per kind (`t`: ended, won, amount, fee, commission, live). */
const seriesSums = sql.raw(
  (
    [
      ['payin_created', 'payin', 'ended + live'],
      ['payin_ended', 'payin', 'ended'],
      ['payin_paid', 'payin', 'won'],
      ['payin_amount', 'payin', 'amount'],
      ['payin_fee', 'payin', 'fee'],
      ['payin_commission', 'payin', 'commission'],
      ['payout_created', 'payout', 'ended + live'],
      ['payout_ended', 'payout', 'ended'],
      ['payout_succeeded', 'payout', 'won'],
      ['payout_amount', 'payout', 'amount'],
      ['payout_fee', 'payout', 'fee'],
    ] as const satisfies readonly (readonly [(typeof sumColumns)[number], string, string])[]
  )
    .map(([c, kind, of]) => `coalesce(sum(${of}) filter (where kind = '${kind}'), 0) as ${c}`)
    .join(', '),
);

export const rateOf = (won: number, ended: number) => (ended > 0 ? won / ended : null);

/** The order statistics' figures of a row. */
function orderFigures(r: Sums) {
  const amount = Number(r.payin_amount);
  const fee = Number(r.payin_fee);
  return {
    payinCreated: Number(r.payin_created),
    payinPaid: Number(r.payin_paid),
    payinSuccessRate: rateOf(Number(r.payin_paid), Number(r.payin_ended)),
    payinPaidAmount: formatMinor(amount),
    payinFee: formatMinor(fee),
    payinNet: formatMinor(amount - fee),
    payoutCreated: Number(r.payout_created),
    payoutSucceeded: Number(r.payout_succeeded),
    payoutAmount: formatMinor(Number(r.payout_amount)),
    payoutFee: formatMinor(Number(r.payout_fee)),
  };
}

/** The series' sums added up per currency (cheaper here than a second grouping of the period's rows). */
function totalsOf(series: readonly (Sums & { currency: string })[]): (Sums & { currency: string })[] {
  const out = new Map<string, Sums & { currency: string }>();
  for (const r of series) {
    const t = out.get(r.currency);
    if (!t) {
      out.set(r.currency, { ...r });
      continue;
    }
    for (const c of sumColumns) (t as unknown as Record<string, number>)[c] = Number(t[c]) + Number(r[c]);
  }
  return [...out.values()].sort((x, y) => (x.currency < y.currency ? -1 : 1));
}

/** A row of the order statistics as the statement gives it (JSON: sums as numbers). */
type StatRow = Sums & {
  day: string;
  merchant_id: number;
  merchant_code: string;
  channel_id: number;
  channel_name: string | null;
  currency: string;
};

/**
 * The order statistics of every merchant (SQL): the page walked a day at a time from the newest (the first
 * page reads a day or two of rollup rows), the rows counted from the rollup's keys and the totals and
 * series summed from the rollup per day, currency and kind, neither needing the report's rows.
 */
function wholePeriod(
  f: Omit<OrderStatFilters, 'byChannel'>,
  grouping: Grouping,
  after: OrderStatKey | null,
  limit: number,
) {
  const inPeriod = sql`s.day between ${f.from}::date and ${f.to}::date${merchantIs(f, 's.merchant_id')}${channelIs(f, 's.channel_id')}`;
  // The page's first day: the cursor's, or the period's last.
  const newest = after ? sql`least(${f.to}::date, ${after.day}::date)` : sql`${f.to}::date`;
  return {
    // The days are walked newest first and the walk stops at the page's last row: the nested loop keeps
    // the series' order and each day's rows come sorted, so no sort above the loop reads every day.
    withs: sql`${liveOf(f, grouping)},
      page as (
        select r.* from generate_series(0, ${newest} - ${f.from}::date) as d(back)
        cross join lateral (
          select * from (${rowsOn(f, grouping, (day) => sql`${day} = ${newest} - d.back`)}) r
          ${
            after
              ? sql`where ${newest} - d.back < ${after.day}::date
                  or (r.merchant_id, r.channel_id, r.currency) > (${after.merchantId}::int, ${after.channelId}::int, ${after.currency}::text)`
              : sql``
          }
          order by r.merchant_id, r.channel_id, r.currency
          limit ${limit}
        ) r
        limit ${limit}
      )`,
    // A report row is a key with an order, ended or under way: counts are never negative, so a key whose
    // figures add up to no order is one none of its rows counts one.
    total: sql`select count(*)::int from (
        select day, ${keysOf(grouping)}, currency from order_stats_daily s
        where ${inPeriod} and s.finished_count <> 0
        union select day, merchant_id, channel_id, currency from l where payin_live + payout_live <> 0) k`,
    sums: sql`select day::text as day, currency, ${seriesSums}
      from (
        select day, currency, kind, sum(finished_count)::bigint as ended, sum(success_count)::bigint as won,
          sum(success_amount)::bigint as amount, sum(success_fee)::bigint as fee,
          sum(success_commission)::bigint as commission, 0::bigint as live
        from order_stats_daily s where ${inPeriod}
        group by 1, 2, 3
        union all
        select day, currency, kind, 0, 0, 0, 0, 0, live from c
      ) t
      group by day, currency having sum(ended + live) <> 0`,
  };
}

/**
 * The order statistics in one statement: the page after `after`,
 * newest day first, then by merchant, channel and currency, only its rows joined to their merchant and
 * channel; how many rows the period has; and, unless `summary` is false (an export's pages), the totals
 * per currency and the series per day and currency (oldest day first).
 */
export async function orderStats(
  db: Db,
  f: OrderStatFilters,
  after: OrderStatKey | null,
  pageSize: number,
  summary = true,
) {
  const grouping = f.byChannel ? 'merchantChannel' : 'merchant';
  const limit = pageSize + 1;
  // One merchant's period is a few hundred rollup rows: its report rows are made once (`g`) and the page,
  // the count and the sums read them. Every merchant's are up to 18,000 (62 days × 50 merchants × 5
  // channels), too many to join, count and sort whole for a page of 50 (56 ms p95 by channel): the page is
  // made a day at a time, the count and the sums read the rollup straight (bench/RESULTS.md).
  const shape =
    f.merchantId !== null
      ? {
          withs: sql`${cellsOf(f, grouping)},
            page as (
              select * from g
              ${
                after
                  ? sql`where g.day < ${after.day} or (g.day = ${after.day}
                      and (g.merchant_id, g.channel_id, g.currency) > (${after.merchantId}::int, ${after.channelId}::int, ${after.currency}::text))`
                  : sql``
              }
              order by day desc, merchant_id, channel_id, currency
              limit ${limit}
            )`,
          total: sql`select count(*)::int from g`,
          sums: sql`select day, currency, ${sumsOf} from g group by day, currency`,
        }
      : wholePeriod(f, grouping, after, limit);
  const statement = sql`
      with ${shape.withs}
      select z.zone, (${shape.total}) as total,
        (select json_agg(p order by p.day desc, p.merchant_id, p.channel_id, p.currency) from (
          select page.*, m.code as merchant_code, ch.name as channel_name
          from page join merchants m on m.id = page.merchant_id
          left join channels ch on ch.id = page.channel_id) p) as page,
        ${summary ? sql`(select json_agg(s order by s.day, s.currency) from (${shape.sums}) s)` : sql`null`} as sums
      from z`;
  // The period's keys are hashed in memory (some 20,000: 62 days × 50 merchants × 5 channels): a hash
  // spilling to disk at the default 4 MB tripled the time of the first version (bench/RESULTS.md).
  // Read-only, so a transaction of its own only scopes the setting.
  const [found] = await db.transaction(async (tx) => {
    await tx.execute(sql`set local work_mem = '64MB'`);
    return rowsOf<{
      zone: string;
      total: number;
      page: StatRow[] | null;
      sums: (Sums & { day: string; currency: string })[] | null;
    }>(await tx.execute(statement));
  });
  const sums = found?.sums ?? [];
  return {
    businessTimeZone: found!.zone,
    total: Number(found?.total ?? 0),
    ...reportPage(
      found?.page ?? [],
      pageSize,
      (r) => ({
        day: r.day,
        merchantId: Number(r.merchant_id),
        merchantCode: r.merchant_code,
        channelId: f.byChannel && Number(r.channel_id) !== 0 ? Number(r.channel_id) : null,
        channelName: f.byChannel ? (r.channel_name ?? null) : null,
        currency: r.currency,
        ...orderFigures(r),
      }),
      (last) =>
        encodeStatCursor({
          day: last.day,
          merchantId: Number(last.merchant_id),
          channelId: Number(last.channel_id),
          currency: last.currency,
        }),
    ),
    totals: totalsOf(sums).map((r) => ({ currency: r.currency, ...orderFigures(r) })),
    series: sums.map((r) => ({ day: r.day, currency: r.currency, ...orderFigures(r) })),
  };
}
