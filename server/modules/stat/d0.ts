/**
 * The D0 settlement summary (`GET /statOrder/balance?view=d0`): per merchant, currency and business day,
 * the collection wallet (`collection_available` + `collection_pending`) from its opening balance to its
 * closing one. Every figure comes from a rollup or an index probe, never from a scan of orders or postings:
 * - paid orders, gross and fees: `order_stats_daily` (pay-ins created that day and paid, summed over
 *   channels), the figures of the order statistics and the order list's totals;
 * - net credited, settled out, transferred, adjustments: the ledger's daily movements (`ledger_daily`)
 *   of the wallet's two accounts, by the entries' cause (`flowOf`);
 * - opening and ledger closing: the ledger's own balance at the day's start and end, one probe of
 *   `postings_account_at_idx` per account and boundary (the last posting before it).
 * closing = opening + netCredited + reserveReleased − settledOut − transferred + adjustments − frozen; a
 * closing that differs from the ledger's is a mismatch: a posting on the wallet of a cause no column accounts for (a T+N release
 * moves pending to available and leaves the wallet as it was), or daily movements that lost a posting.
 * Days are cut in the stored business time zone, the one the rollups were bucketed in.
 */
import { type SQL, sql } from 'drizzle-orm';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import type { Lang } from '../../http/i18n.ts';
import { rowsOf } from '../../ledger/index.ts';
import { isCalendarDay, storedZone } from '../../lib/businessDay.ts';
import { balancesOf, type OpeningAndClosing, openingAndClosing } from './balances.ts';
import { badCursor, cursorParts, reportCursor } from './cursor.ts';
import { countedReportPage, newestDayFirst, periodTotals } from './page.ts';

/** The accounts that make up a merchant's collection wallet. */
const walletKinds = sql`('collection_available', 'collection_pending')`;

/**
 * The column a daily movement (`d`) of the wallet adds to, by its entries' cause; null for causes that
 * must leave the wallet unchanged (a T+N release, `tn_run`/`tn_release`).
 * - credited: a paid pay-in (`payin`/`payin_paid`), its amount net of the fee, of the rolling reserve's
 *   share and of the debt it repaid (neither reaches the wallet);
 * - released: the rolling reserve a settlement run released into the wallet (`tn_run`/`reserve_release`);
 * - settled: a settlement application's hold on this wallet and its later changes and release
 *   (`settlement`/`settlement_hold`, `settlement_hold_<n>`, `settlement_release`); completion spends the
 *   frozen hold and no longer touches the wallet;
 * - transferred: the merchant's move to its payout wallet (`wallet_transfer`);
 * - adjusted: a balance adjustment by the platform (`adjustment`, any kind);
 * - frozen: held for a frozen receiving account (`account_freeze_line`/`freeze_hold`), less what its
 *   settlement gave back (`freeze_release`).
 */
const flowOf = sql`case
  when d.ref_type = 'payin' and d.kind = 'payin_paid' then 'credited'
  when d.ref_type = 'tn_run' and d.kind = 'reserve_release' then 'released'
  when d.ref_type = 'settlement' and d.kind ~ '^settlement_(hold(_[0-9]+)?|release)$' then 'settled'
  when d.ref_type = 'wallet_transfer' and d.kind = 'wallet_transfer' then 'transferred'
  when d.ref_type = 'adjustment' then 'adjusted'
  when d.ref_type = 'account_freeze_line' then 'frozen'
end`;

/** Sums of the daily movements `d` by column (money in is positive, as the ledger signs it). */
const flowSums = sql`
  coalesce(sum(d.amount) filter (where ${flowOf} = 'credited'), 0)::text as credited,
  coalesce(sum(d.amount) filter (where ${flowOf} = 'released'), 0)::text as released,
  coalesce(sum(d.amount) filter (where ${flowOf} = 'settled'), 0)::text as settled,
  coalesce(sum(d.amount) filter (where ${flowOf} = 'transferred'), 0)::text as transferred,
  coalesce(sum(d.amount) filter (where ${flowOf} = 'adjusted'), 0)::text as adjusted,
  coalesce(sum(d.amount) filter (where ${flowOf} = 'frozen'), 0)::text as frozen`;

/**
 * What frozen accounts' settlements wrote off of the holds on the merchants' `frozen` wallets (`fz`) in
 * `day`'s range: outside the collection wallet (it left it when held), shown beside it.
 */
const writtenOffIn = (from: SQL, to: SQL, where: SQL) => sql`(
  select coalesce(-sum(d.amount), 0)::text from fz join ledger_daily d on d.account_id = fz.id
  where d.day between ${from} and ${to} and d.ref_type = 'account_freeze_line' and d.kind = 'freeze_written_off'
    and ${where})`;

/** The `frozen` wallets of the merchants in view. */
const frozenAccounts = (merchantId: number | null) => sql`
  select a.id, a.owner_id as merchant_id, a.currency from ledger_accounts a
  where a.owner_type = 'merchant' and a.kind = 'frozen'
    ${merchantId === null ? sql`` : sql`and a.owner_id = ${merchantId}`}`;

/** The wallet accounts of the merchants in view. */
const walletAccounts = (merchantId: number | null) => sql`
  select a.id, a.owner_id as merchant_id, a.currency from ledger_accounts a
  where a.owner_type = 'merchant' and a.kind in ${walletKinds}
    ${merchantId === null ? sql`` : sql`and a.owner_id = ${merchantId}`}`;

/**
 * The (merchant, currency, day) rows of the period: days on which a wallet in view (`acc`) moved, or its
 * merchant had pay-ins created and paid.
 */
const keysIn = (f: D0Filters) => sql`
  select acc.merchant_id, acc.currency, d.day
  from acc join ledger_daily d on d.account_id = acc.id
  where d.day between ${f.from}::date and ${f.to}::date
  union
  select s.merchant_id, s.currency, s.day from order_stats_daily s
  where s.kind = 'payin' and s.success_count > 0 and s.day between ${f.from}::date and ${f.to}::date
    ${f.merchantId === null ? sql`` : sql`and s.merchant_id = ${f.merchantId}`}
  union
  select fz.merchant_id, fz.currency, d.day
  from fz join ledger_daily d on d.account_id = fz.id
  where d.day between ${f.from}::date and ${f.to}::date and d.kind = 'freeze_written_off'`;

export interface D0Key {
  day: string;
  merchantId: number;
  currency: string;
}

export interface D0Filters {
  from: string;
  to: string;
  merchantId: number | null;
}

/** Where a page continues: after `(day, merchantId, currency)` in the list's order. */
export function encodeD0Cursor(k: D0Key): string {
  return reportCursor(k.day, k.merchantId, k.currency);
}

export function decodeD0Cursor(cursor: string, lang: Lang): D0Key {
  const [day = '', merchant = '', currency = ''] = cursorParts(cursor, 3);
  const merchantId = Number(merchant);
  if (
    !isCalendarDay(day) ||
    !Number.isInteger(merchantId) ||
    merchantId < 1 ||
    merchantId > 2_147_483_647 ||
    !/^[A-Z]{3}$/.test(currency)
  ) {
    throw badCursor(lang);
  }
  return { day, merchantId, currency };
}

interface Flows {
  credited: string;
  released: string;
  settled: string;
  transferred: string;
  adjusted: string;
  frozen: string;
  written_off: string;
}

interface Figures extends Flows, OpeningAndClosing {
  currency: string;
  paid: number;
  gross: string;
  fees: string;
}

/** The answer's figures: leaving money positive, the closing worked out and checked. */
function figuresOf(r: Figures) {
  const credited = Number(r.credited);
  const released = Number(r.released);
  const settledOut = -Number(r.settled);
  const transferred = -Number(r.transferred);
  const adjustments = Number(r.adjusted);
  const frozen = -Number(r.frozen);
  const { opening, ...closing } = balancesOf(
    r,
    credited + released - settledOut - transferred + adjustments - frozen,
  );
  return {
    currency: r.currency,
    opening,
    paidCount: Number(r.paid),
    gross: formatMinor(Number(r.gross)),
    fees: formatMinor(Number(r.fees)),
    netCredited: formatMinor(credited),
    reserveReleased: formatMinor(released),
    settledOut: formatMinor(settledOut),
    transferred: formatMinor(transferred),
    adjustments: formatMinor(adjustments),
    frozen: formatMinor(frozen),
    writtenOff: formatMinor(Number(r.written_off)),
    ...closing,
  };
}

/**
 * One page of rows, newest day first, then by merchant and currency, and how many rows the period has: the (merchant, currency, day) keys
 * come from the two rollups' rows in the period (a day on which the wallet moved or pay-ins were paid),
 * and only the page's keys are probed and summed.
 */
export async function d0Page(db: Db, f: D0Filters, after: D0Key | null, pageSize: number) {
  const rows = rowsOf<
    Figures & { total: number; day: string | null; merchant_id: number; merchant_code: string }
  >(
    await db.execute(sql`
      with z as (select ${storedZone} as zone),
      acc as (${walletAccounts(f.merchantId)}),
      fz as (${frozenAccounts(f.merchantId)}),
      period as (${keysIn(f)}),
      keys as (${newestDayFirst(
        sql`k.merchant_id, k.currency, k.day`,
        'merchant_id',
        after && { day: after.day, id: after.merchantId, currency: after.currency },
        pageSize,
      )})
      -- The period's row count rides along (one row of it alone when the page is empty).
      select t.total, p.* from (select count(*)::int as total from period) t left join (
      select k.day::text as day, k.merchant_id, m.code as merchant_code, k.currency,
        coalesce(st.paid, 0)::int as paid, coalesce(st.gross, 0)::text as gross, coalesce(st.fees, 0)::text as fees,
        fl.credited, fl.released, fl.settled, fl.transferred, fl.adjusted, fl.frozen, b.opening, b.ledger_closing,
        ${writtenOffIn(sql`k.day`, sql`k.day`, sql`fz.merchant_id = k.merchant_id and fz.currency = k.currency`)} as written_off
      from keys k
      cross join z
      join merchants m on m.id = k.merchant_id
      left join lateral (
        select sum(s.success_count) as paid, sum(s.success_amount) as gross, sum(s.success_fee) as fees
        from order_stats_daily s
        where s.day = k.day and s.kind = 'payin' and s.merchant_id = k.merchant_id and s.currency = k.currency
      ) st on true
      cross join lateral (
        select ${flowSums}
        from acc join ledger_daily d on d.account_id = acc.id and d.day = k.day
        where acc.merchant_id = k.merchant_id and acc.currency = k.currency
      ) fl
      cross join lateral (
        select ${openingAndClosing(sql`k.day`, sql`k.day`)}
        from acc where acc.merchant_id = k.merchant_id and acc.currency = k.currency
      ) b) p on true
      order by p.day desc, p.merchant_id, p.currency`),
  );
  return countedReportPage(
    rows,
    'day',
    pageSize,
    (r) => ({
      day: r.day,
      merchantId: Number(r.merchant_id),
      merchantCode: r.merchant_code,
      ...figuresOf(r),
    }),
    (last) =>
      encodeD0Cursor({ day: last.day, merchantId: Number(last.merchant_id), currency: last.currency }),
  );
}

/**
 * The whole period per currency: flows and paid orders summed over every merchant in view, the opening
 * when the period began and the ledger's closing when it ended, over every wallet in view (also those
 * that did not move in the period).
 */
export async function d0Totals(db: Db, f: D0Filters) {
  const rows = rowsOf<Partial<Figures> & { zone: string; merchants: number | null }>(
    await db.execute(sql`
      with z as (select ${storedZone} as zone),
      acc as (${walletAccounts(f.merchantId)}),
      fz as (${frozenAccounts(f.merchantId)}),
      -- Summed by cause first: the columns' rule then reads a handful of rows, not every day's.
      fl as (
        select d.currency, ${flowSums}
        from (
          select acc.currency, d.ref_type, d.kind, sum(d.amount) as amount
          from acc join ledger_daily d on d.account_id = acc.id
          where d.day between ${f.from}::date and ${f.to}::date
          group by 1, 2, 3) d
        group by d.currency
      ),
      st as (
        select currency, sum(success_count) as paid, sum(success_amount) as gross, sum(success_fee) as fees
        from order_stats_daily s
        where s.kind = 'payin' and s.day between ${f.from}::date and ${f.to}::date
          ${f.merchantId === null ? sql`` : sql`and s.merchant_id = ${f.merchantId}`}
        group by currency
      ),
      bal as (
        select acc.currency, count(distinct acc.merchant_id)::int as merchants,
          ${openingAndClosing(sql`${f.from}::date`, sql`${f.to}::date`)}
        from acc cross join z group by acc.currency
      )
      select z.zone, bal.currency, bal.merchants, bal.opening, bal.ledger_closing,
        coalesce(st.paid, 0)::int as paid, coalesce(st.gross, 0)::text as gross, coalesce(st.fees, 0)::text as fees,
        coalesce(fl.credited, '0') as credited, coalesce(fl.released, '0') as released,
        coalesce(fl.settled, '0') as settled,
        coalesce(fl.transferred, '0') as transferred, coalesce(fl.adjusted, '0') as adjusted,
        coalesce(fl.frozen, '0') as frozen,
        ${writtenOffIn(sql`${f.from}::date`, sql`${f.to}::date`, sql`fz.currency = bal.currency`)} as written_off
      from z
      left join bal on true
      left join fl on fl.currency = bal.currency
      left join st on st.currency = bal.currency
      order by bal.currency`),
  );
  return periodTotals(rows, (r) => ({ merchants: Number(r.merchants), ...figuresOf(r as Figures) }));
}
