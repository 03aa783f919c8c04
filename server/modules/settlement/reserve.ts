/**
 * The rolling reserve (docs/MONEY-BACK.md section 4). A merchant with reserve terms (`reserve_bp`,
 * `reserve_days`) has that share of each paid pay-in's net credited to its `reserve` account instead of
 * collection, in the payment's `payin_paid` entry, and added to its reserve line: one per (merchant,
 * currency, release day), the release day being the payment's business day (the T+N lines' zone,
 * `storedZone`) plus the merchant's reserve days at the time. The settlement run of business day D
 * (tn.ts, in each merchant's transaction after its T+N lines) releases every held line due on or before
 * D: one `reserve_release` entry per currency, reserve → collection_available. A line is released once
 * (compare-and-set through the `reserveLine` machine); `reserve` equals the sum of the merchant's held
 * lines (`checkReserveLines`).
 */
import { sql } from 'drizzle-orm';
import { reserveLine } from '../../../contract/machines.ts';
import type { Db } from '../../db/index.ts';
import { inStates, statesSql } from '../../db/states.ts';
import { checkLinesMatch } from '../../ledger/check.ts';
import { merchantAccount, post, rowsOf } from '../../ledger/index.ts';
import { storedZone } from '../../lib/businessDay.ts';
import { chunks } from '../../lib/chunks.ts';

/** A merchant's reserve terms: basis points of the net, and days; null when it keeps no reserve. */
export interface ReserveTerms {
  reserveBp: number | null;
  reserveDays: number | null;
}

/**
 * The reserve share of a payment's net: rounded down (`floor(net × bp / 10 000)`), so the merchant is
 * never held more than its terms say; the sub-paisa rest stays with the collection.
 */
export function reserveShare(net: number, terms: ReserveTerms): number {
  if (!terms.reserveBp || !terms.reserveDays || net <= 0) return 0;
  return Number((BigInt(net) * BigInt(terms.reserveBp)) / 10_000n);
}

/** What one paid order adds to its reserve line. */
export interface ReservePayment {
  merchantId: number;
  currency: string;
  /** When it was paid: its business day plus `days` is the line's release day. */
  paidAt: Date;
  days: number;
  amount: number;
}

/** The reserve of a paid order (the payment path and the demo's bulk writer); null when it has none. */
export function reservePaymentOf(
  order: { merchantId: number; currency: string; paidAmount: number | null; amount: number; fee: number },
  terms: ReserveTerms,
  paidAt: Date,
): ReservePayment | null {
  const amount = reserveShare((order.paidAmount ?? order.amount) - order.fee, terms);
  if (amount === 0 || !terms.reserveDays) return null;
  return { merchantId: order.merchantId, currency: order.currency, paidAt, days: terms.reserveDays, amount };
}

/** A reserve line's key. */
export interface ReserveLineKey {
  merchantId: number;
  currency: string;
  releaseDay: string;
}

const held = (column: string) => inStates(sql.raw(column), reserveLine.from('release'));

/**
 * Adds payments to their reserve lines in the caller's transaction (creating them), in key order; one
 * statement per thousand. Answers the lines it could not add to because a run released them already (a
 * payment committing past the run of its release day): that money is due, so the caller credits it to
 * collection instead of the reserve.
 */
export async function addToReserveLines(
  tx: Db,
  payments: readonly ReservePayment[],
): Promise<ReserveLineKey[]> {
  const missed: ReserveLineKey[] = [];
  for (const chunk of chunks(payments, 1000)) {
    const values = chunk.map(
      (p) =>
        sql`(${p.paidAt.toISOString()}::timestamptz, ${p.merchantId}::int, ${p.currency}::text, ${p.days}::int, ${p.amount}::bigint)`,
    );
    const rows = rowsOf<{ merchant_id: number; currency: string; release_day: string }>(
      await tx.execute(sql`
        with g as (
          select v.merchant_id, v.currency, (v.paid_at at time zone ${storedZone})::date + v.days as release_day,
            count(*)::int as orders, sum(v.amount)::bigint as amount
          from (values ${sql.join(values, sql`, `)}) as v(paid_at, merchant_id, currency, days, amount)
          group by 1, 2, 3
        ),
        added as (
          insert into reserve_lines as l (merchant_id, currency, release_day, orders, amount)
          select merchant_id, currency, release_day, orders, amount from g
          order by 1, 2, 3
          on conflict (merchant_id, currency, release_day) do update set
            orders = l.orders + excluded.orders,
            amount = l.amount + excluded.amount
          where ${held('l.status')}
          returning l.merchant_id, l.currency, l.release_day
        )
        select g.merchant_id, g.currency, g.release_day::text from g
        where not exists (select 1 from added a where a.merchant_id = g.merchant_id
          and a.currency = g.currency and a.release_day = g.release_day)`),
    );
    for (const r of rows)
      missed.push({ merchantId: Number(r.merchant_id), currency: r.currency, releaseDay: r.release_day });
  }
  return missed;
}

/** What a merchant's reserve release moved, per currency. */
export interface ReserveReleased {
  currency: string;
  lines: number;
  amount: number;
}

/**
 * Releases merchant `merchantId`'s held reserve lines due on or before the run's day, in the caller's
 * transaction (the merchant's T+N release): the lines locked in id order and marked released by
 * compare-and-set, then one `reserve_release` entry per currency, reserve → collection_available.
 */
export async function releaseReserve(
  tx: Db,
  run: { id: number; day: string },
  merchantId: number,
  now: Date,
): Promise<ReserveReleased[]> {
  const lines = rowsOf<{ currency: string; amount: string }>(
    await tx.execute(sql`
      update reserve_lines set status = ${statesSql([reserveLine.to('release')!])}, run_id = ${run.id},
        released_at = ${now.toISOString()}::timestamptz
      where id in (
        select id from reserve_lines
        where merchant_id = ${merchantId} and release_day <= ${run.day}::date and ${held('status')}
        order by id
        for update)
      and ${held('status')}
      returning currency, amount`),
  );
  const byCurrency = new Map<string, ReserveReleased>();
  for (const l of lines) {
    const r = byCurrency.get(l.currency) ?? { currency: l.currency, lines: 0, amount: 0 };
    r.lines += 1;
    r.amount += Number(l.amount);
    byCurrency.set(l.currency, r);
  }
  const released = [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
  for (const r of released) {
    if (r.amount === 0) continue;
    await post(tx, {
      kind: 'reserve_release',
      refType: 'tn_run',
      refId: `${run.id}:${merchantId}:${r.currency}`,
      memo: run.day,
      at: now,
      lines: [
        { account: merchantAccount(merchantId, 'reserve', r.currency), amount: -r.amount },
        { account: merchantAccount(merchantId, 'collection_available', r.currency), amount: r.amount },
      ],
    });
  }
  return released;
}

/** The merchants (and currencies) with held reserve lines due by `day`, through the due index. */
export async function reserveDue(db: Db, day: string) {
  return rowsOf<{ merchant_id: number; currency: string }>(
    await db.execute(sql`
      select merchant_id, currency from reserve_lines
      where release_day <= ${day}::date and ${held('status')}
      group by 1, 2 order by 1, 2`),
  );
}

/** The reserve invariant (like `checkTnLines`): `reserve` = the sum of the merchant's held reserve lines. */
export const checkReserveLines = (db: Db) =>
  checkLinesMatch(db, { table: 'reserve_lines', column: 'amount', live: held('status'), kind: 'reserve' });
