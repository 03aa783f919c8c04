/**
 * Settlement statistics (`GET /statOrder/balance?view=merchant`, `/stat/statpayout`): per merchant, wallet
 * and currency over the period, the wallet from its opening balance to its closing one. The collection
 * wallet is `collection_available` + `collection_pending` (a T+N release moves money between the two and
 * leaves the wallet as it was), the payout wallet `payout_available` (a payout's frozen amount has left it).
 * - the movements: the ledger's daily movements (`ledger_daily`) of the wallet's accounts over the period,
 *   by the entries' cause (`columnOf`), each signed as it changes the wallet;
 * - opening and ledger closing: the ledger's own balance when the period began and ended, one probe of
 *   `postings_account_at_idx` per account and boundary (as the D0 summary).
 * closing = opening + every movement, `other` included, so a closing that differs from the ledger's means
 * the daily movements lost a posting: the report ties to the ledger or says it does not.
 */
import { sql } from 'drizzle-orm';
import { walletMovements } from '../../../contract/endpoints/stat.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import type { Lang } from '../../http/i18n.ts';
import { rowsOf } from '../../ledger/index.ts';
import { storedZone } from '../../lib/businessDay.ts';
import { balancesOf, type OpeningAndClosing, openingAndClosing } from './balances.ts';
import { badCursor, cursorParts, reportCursor } from './cursor.ts';
import { countedReportPage, periodTotals } from './page.ts';

export type MerchantWallet = 'collection' | 'payout';

export interface MerchantViewFilters {
  from: string;
  to: string;
  merchantId: number | null;
}

/** Where a page continues: after `(merchantId, wallet, currency)`. */
export interface MerchantViewKey {
  merchantId: number;
  wallet: MerchantWallet;
  currency: string;
}

export function encodeMerchantCursor(k: MerchantViewKey): string {
  return reportCursor(k.merchantId, k.wallet, k.currency);
}

export function decodeMerchantCursor(cursor: string, lang: Lang): MerchantViewKey {
  const [merchant = '', wallet = '', currency = ''] = cursorParts(cursor, 3);
  const merchantId = /^\d{1,10}$/.test(merchant) ? Number(merchant) : 0;
  if (
    merchantId < 1 ||
    merchantId > 2_147_483_647 ||
    (wallet !== 'collection' && wallet !== 'payout') ||
    !/^[A-Z]{3}$/.test(currency)
  )
    throw badCursor(lang);
  return { merchantId, wallet, currency };
}

/** The wallet accounts of the merchants in view (`acc`), each with its wallet. */
const walletAccounts = (merchantId: number | null) => sql`
  select a.id, a.owner_id as merchant_id, a.currency,
    case when a.kind = 'payout_available' then 'payout' else 'collection' end as wallet
  from ledger_accounts a
  where a.owner_type = 'merchant' and a.kind in ('collection_available', 'collection_pending', 'payout_available')
    ${merchantId === null ? sql`` : sql`and a.owner_id = ${merchantId}`}`;

/**
 * The column a daily movement (`d`) adds to, by its entries' cause: a paid pay-in (net of its fee), a
 * payout's hold and its release, a settlement application's hold, its changes and release, a confirmed
 * recharge, a move between the merchant's wallets, a balance adjustment; anything else is `other`.
 */
const columnOf = sql`case
  when d.ref_type = 'payin' and d.kind = 'payin_paid' then 'collected'
  when d.ref_type = 'payout' then 'payouts'
  when d.ref_type = 'settlement' then 'settlements'
  when d.ref_type = 'recharge' then 'recharges'
  when d.ref_type = 'wallet_transfer' then 'transfers'
  when d.ref_type = 'adjustment' then 'adjustments'
  else 'other' end`;

/** The movement columns, as the contract's report row names them. */
const columns = walletMovements;

/** Sums of the daily movements `d` by column. */
const movementSums = sql.raw(
  columns.map((c) => `coalesce(sum(d.amount) filter (where col = '${c}'), 0)::text as ${c}`).join(', '),
);

type Movements = Record<(typeof columns)[number], string>;

interface Figures extends Movements, OpeningAndClosing {
  wallet: MerchantWallet;
  currency: string;
}

function figuresOf(r: Figures) {
  const { opening, ...closing } = balancesOf(
    r,
    columns.reduce((sum, c) => sum + Number(r[c]), 0),
  );
  return {
    wallet: r.wallet,
    currency: r.currency,
    opening,
    collected: formatMinor(Number(r.collected)),
    payouts: formatMinor(Number(r.payouts)),
    settlements: formatMinor(Number(r.settlements)),
    recharges: formatMinor(Number(r.recharges)),
    transfers: formatMinor(Number(r.transfers)),
    adjustments: formatMinor(Number(r.adjustments)),
    other: formatMinor(Number(r.other)),
    ...closing,
  };
}

/**
 * One page of rows (merchants by id, collection before payout, then currency) and how many rows there
 * are: every wallet of the merchants in view, also one that did not move in the period. Only the page's
 * wallets are probed and summed.
 */
export async function merchantViewPage(
  db: Db,
  f: MerchantViewFilters,
  after: MerchantViewKey | null,
  pageSize: number,
) {
  const rows = rowsOf<
    Figures & { total: number; merchant_id: number | null; merchant_code: string; merchant_name: string }
  >(
    await db.execute(sql`
      with z as (select ${storedZone} as zone),
      acc as (${walletAccounts(f.merchantId)}),
      wallets as (select distinct merchant_id, wallet, currency from acc),
      keys as (
        select * from wallets
        ${
          after
            ? sql`where (merchant_id, wallet, currency) > (${after.merchantId}::int, ${after.wallet}::text, ${after.currency}::text)`
            : sql``
        }
        order by merchant_id, wallet, currency
        limit ${pageSize + 1}
      )
      select t.total, p.* from (select count(*)::int as total from wallets) t left join (
        select k.merchant_id, k.wallet, k.currency, m.code as merchant_code, m.name as merchant_name,
          mv.*, b.opening, b.ledger_closing
        from keys k
        cross join z
        join merchants m on m.id = k.merchant_id
        cross join lateral (
          select ${movementSums}
          from (select d.amount, ${columnOf} as col
            from acc join ledger_daily d on d.account_id = acc.id
            where acc.merchant_id = k.merchant_id and acc.wallet = k.wallet and acc.currency = k.currency
              and d.day between ${f.from}::date and ${f.to}::date) d
        ) mv
        cross join lateral (
          select ${openingAndClosing(sql`${f.from}::date`, sql`${f.to}::date`)}
          from acc where acc.merchant_id = k.merchant_id and acc.wallet = k.wallet and acc.currency = k.currency
        ) b) p on true
      order by p.merchant_id, p.wallet, p.currency`),
  );
  return countedReportPage(
    rows,
    'merchant_id',
    pageSize,
    (r) => ({
      merchantId: Number(r.merchant_id),
      merchantCode: r.merchant_code,
      merchantName: r.merchant_name,
      ...figuresOf(r),
    }),
    (last) =>
      encodeMerchantCursor({
        merchantId: Number(last.merchant_id),
        wallet: last.wallet,
        currency: last.currency,
      }),
  );
}

/** The whole period per wallet and currency, over every wallet in view. */
export async function merchantViewTotals(db: Db, f: MerchantViewFilters) {
  const rows = rowsOf<Partial<Figures> & { zone: string; merchants: number | null }>(
    await db.execute(sql`
      with z as (select ${storedZone} as zone),
      acc as (${walletAccounts(f.merchantId)}),
      -- Summed by cause first: the columns' rule then reads a handful of rows, not every day's.
      mv as (
        select d.wallet, d.currency, ${movementSums}
        from (
          select acc.wallet, acc.currency, ${columnOf} as col, sum(d.amount) as amount
          from acc join ledger_daily d on d.account_id = acc.id
          where d.day between ${f.from}::date and ${f.to}::date
          group by 1, 2, 3) d
        group by 1, 2
      ),
      bal as (
        select acc.wallet, acc.currency, count(distinct acc.merchant_id)::int as merchants,
          ${openingAndClosing(sql`${f.from}::date`, sql`${f.to}::date`)}
        from acc cross join z group by 1, 2
      )
      select z.zone, bal.*, ${sql.raw(columns.map((c) => `coalesce(mv.${c}, '0') as ${c}`).join(', '))}
      from z
      left join bal on true
      left join mv on mv.wallet = bal.wallet and mv.currency = bal.currency
      order by bal.wallet, bal.currency`),
  );
  return periodTotals(rows, (r) => ({ merchants: Number(r.merchants), ...figuresOf(r as Figures) }));
}
