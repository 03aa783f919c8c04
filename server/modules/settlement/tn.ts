/**
 * T+N settlement (OPERATIONS.md section 1, "T+N and D0"). A pay-in paid under T+N credits the merchant's
 * `collection_pending` and adds to its line: one per (merchant, currency, order day, due day), the order
 * day being the business day of the payment in the stored business time zone (`storedZone`, the one the
 * order stats use) and the due day that day plus the merchant's N at the time. A settlement run for
 * business day D releases every pending line due on or before D into `collection_available`: one
 * transaction and one journal entry per merchant and currency, so a merchant is released whole or not at
 * all and no transaction spans merchants. A line is released once (compare-and-set through the `tnLine`
 * machine), so a second run for a day releases nothing more; `collection_pending` always equals the sum
 * of the merchant's pending lines (`checkTnLines`). A line's net is what went to pending: the rolling
 * reserve's share and debt repaid are `withheld`. The same run, in the same merchant transaction, releases
 * the merchant's rolling reserve lines due by its day (reserve.ts); its totals count the T+N lines only.
 */
import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import { tnLine } from '../../../contract/machines.ts';
import { type Db, inTransaction } from '../../db/index.ts';
import { merchants, tnRunMerchants, tnRuns, users } from '../../db/schema.ts';
import { inStates, statesSql } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { checkLinesMatch } from '../../ledger/check.ts';
import { merchantAccount, post, rowsOf } from '../../ledger/index.ts';
import { storedZone } from '../../lib/businessDay.ts';
import { chunks } from '../../lib/chunks.ts';
import { errorForLog } from '../../lib/logger.ts';
import { readParameter } from '../../lib/parameters.ts';
import { type ReserveReleased, releaseReserve, reserveDue } from './reserve.ts';

// ---- Tagging ----------------------------------------------------------------------------------------

/** What one paid T+N order adds to its line. */
export interface TnPayment {
  merchantId: number;
  currency: string;
  /** When it was paid: its business day is the line's order day. */
  paidAt: Date;
  /** The merchant's N when it was paid. */
  days: number;
  gross: number;
  fee: number;
  /** What of its net went elsewhere than pending: the rolling reserve's share (reserve.ts). */
  withheld: number;
}

/**
 * The line figures of a paid order (the payment path and the demo's bulk writer both use it); null under
 * D0. `withheld`: the part of its net credited elsewhere (the reserve), not to pending.
 */
export function tnPaymentOf(
  order: { merchantId: number; currency: string; paidAmount: number | null; amount: number; fee: number },
  terms: { settlementDays: number },
  paidAt: Date,
  withheld = 0,
): TnPayment | null {
  if (terms.settlementDays <= 0) return null;
  return {
    merchantId: order.merchantId,
    currency: order.currency,
    paidAt,
    days: terms.settlementDays,
    gross: order.paidAmount ?? order.amount,
    fee: order.fee,
    withheld,
  };
}

/** A line's key: which merchant's money of which day, due when. */
export interface TnLineKey {
  merchantId: number;
  currency: string;
  orderDay: string;
  dueDay: string;
}

/** A line takes more money while it can still be released. */
const open = (column: string) => inStates(sql.raw(column), tnLine.from('release'));

/**
 * Adds payments to their lines in the caller's transaction (creating them), in key order; one statement
 * per thousand payments. Answers the lines it could not add to because they were released already (a
 * payment committing after the run that released its day, past midnight): that money is due, so the
 * caller credits it to `collection_available`, not to pending.
 */
export async function addToTnLines(tx: Db, payments: readonly TnPayment[]): Promise<TnLineKey[]> {
  const missed: TnLineKey[] = [];
  for (const chunk of chunks(payments, 1000)) {
    const values = chunk.map(
      (p) =>
        sql`(${p.paidAt.toISOString()}::timestamptz, ${p.merchantId}::int, ${p.currency}::text, ${p.days}::int, ${p.gross}::bigint, ${p.fee}::bigint, ${p.withheld}::bigint)`,
    );
    const rows = rowsOf<{ merchant_id: number; currency: string; order_day: string; due_day: string }>(
      await tx.execute(sql`
        with g as (
          select v.merchant_id, v.currency, d.day as order_day, d.day + v.days as due_day,
            count(*)::int as orders, sum(v.gross)::bigint as gross, sum(v.fee)::bigint as fee,
            sum(v.withheld)::bigint as withheld
          from (values ${sql.join(values, sql`, `)}) as v(paid_at, merchant_id, currency, days, gross, fee, withheld)
          cross join lateral (select (v.paid_at at time zone ${storedZone})::date as day) d
          group by 1, 2, 3, 4
        ),
        added as (
          insert into tn_lines as l (merchant_id, currency, order_day, due_day, orders, gross, fee, withheld, net)
          select merchant_id, currency, order_day, due_day, orders, gross, fee, withheld, gross - fee - withheld
          from g
          order by 1, 2, 3, 4
          on conflict (merchant_id, currency, order_day, due_day) do update set
            orders = l.orders + excluded.orders,
            gross = l.gross + excluded.gross,
            fee = l.fee + excluded.fee,
            withheld = l.withheld + excluded.withheld,
            net = l.net + excluded.net
          where ${open('l.status')}
          returning l.merchant_id, l.currency, l.order_day, l.due_day
        )
        select g.merchant_id, g.currency, g.order_day::text, g.due_day::text from g
        where not exists (select 1 from added a where a.merchant_id = g.merchant_id
          and a.currency = g.currency and a.order_day = g.order_day and a.due_day = g.due_day)`),
    );
    for (const r of rows) {
      missed.push({
        merchantId: Number(r.merchant_id),
        currency: r.currency,
        orderDay: r.order_day,
        dueDay: r.due_day,
      });
    }
  }
  return missed;
}

/**
 * Takes `amount` more out of the pending net of the lines these payments were just added to (their debt
 * recovery, worked out once the ledger's accounts are locked): the caller's own `addToTnLines` locked
 * those lines in this transaction, so no run has released them meanwhile.
 */
export async function withholdOnTnLines(
  tx: Db,
  moves: readonly (Pick<TnPayment, 'merchantId' | 'currency' | 'paidAt' | 'days'> & { amount: number })[],
): Promise<void> {
  for (const chunk of chunks(moves, 1000)) {
    const values = chunk.map(
      (m) =>
        sql`(${m.paidAt.toISOString()}::timestamptz, ${m.merchantId}::int, ${m.currency}::text, ${m.days}::int, ${m.amount}::bigint)`,
    );
    await tx.execute(sql`
      update tn_lines l set withheld = l.withheld + g.amount, net = l.net - g.amount
      from (
        select v.merchant_id, v.currency, d.day as order_day, d.day + v.days as due_day, sum(v.amount) as amount
        from (values ${sql.join(values, sql`, `)}) as v(paid_at, merchant_id, currency, days, amount)
        cross join lateral (select (v.paid_at at time zone ${storedZone})::date as day) d
        group by 1, 2, 3, 4
      ) g
      where l.merchant_id = g.merchant_id and l.currency = g.currency and l.order_day = g.order_day
        and l.due_day = g.due_day and ${open('l.status')}`);
  }
}

// ---- The business day -------------------------------------------------------------------------------

/** The business day (`YYYY-MM-DD`) and time of day (`HH:MM`) of `at` in the stored business time zone. */
export async function businessNow(db: Db, at: Date): Promise<{ day: string; time: string }> {
  const [row] = rowsOf<{ day: string; time: string }>(
    await db.execute(sql`
      select to_char(t, 'YYYY-MM-DD') as day, to_char(t, 'HH24:MI') as time
      from (select (${at.toISOString()}::timestamptz at time zone ${storedZone}) as t) x`),
  );
  return row!;
}

// ---- Runs -------------------------------------------------------------------------------------------

export type TnRun = typeof tnRuns.$inferSelect;
export type TnOutcome = TnRun['outcome'];

/** What a merchant's transaction released, per currency. */
interface Released {
  currency: string;
  lines: number;
  amount: number;
}

/** A failed merchant's reason as stored: the database's own message and code, never the query text. */
function failureText(err: unknown): string {
  const e = errorForLog(err);
  let inner: unknown = err;
  for (let depth = 0; depth < 5; depth++) {
    const cause = (inner as { cause?: unknown })?.cause;
    if (!(cause instanceof Error)) break;
    inner = cause;
  }
  const message = inner instanceof Error ? inner.message : String(err);
  return `${e.sqlState ? `${e.sqlState} ` : ''}${message}`.slice(0, 500);
}

/**
 * Releases merchant `merchantId`'s pending lines due on or before the run's day, in the caller's (its
 * own) transaction: the lines are locked in id order and marked released by compare-and-set, then one
 * entry per currency moves their net from pending to available; then its reserve lines due by then
 * (reserve.ts). Lines a payment holds wait at most the lock timeout; then the merchant fails whole and
 * the next run takes it.
 */
async function releaseMerchant(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  run: Pick<TnRun, 'id' | 'day'>,
  merchantId: number,
): Promise<{ released: Released[]; reserve: ReserveReleased[] }> {
  await tx.execute(sql`set local lock_timeout = '10s'`);
  const now = deps.clock.now();
  const lines = rowsOf<{ currency: string; net: string }>(
    await tx.execute(sql`
      update tn_lines set status = ${statesSql([tnLine.to('release')!])}, run_id = ${run.id},
        released_at = ${now.toISOString()}::timestamptz
      where id in (
        select id from tn_lines
        where merchant_id = ${merchantId} and due_day <= ${run.day}::date and ${open('status')}
        order by id
        for update)
      and ${open('status')}
      returning currency, net`),
  );
  const byCurrency = new Map<string, Released>();
  for (const l of lines) {
    const r = byCurrency.get(l.currency) ?? { currency: l.currency, lines: 0, amount: 0 };
    r.lines += 1;
    r.amount += Number(l.net);
    byCurrency.set(l.currency, r);
  }
  const released = [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
  for (const r of released) {
    // Lines whose fees took all they paid release nothing: the ledger takes no zero entry.
    if (r.amount !== 0) {
      await post(tx, {
        kind: 'tn_release',
        refType: 'tn_run',
        refId: `${run.id}:${merchantId}:${r.currency}`,
        memo: run.day,
        at: now,
        lines: [
          { account: merchantAccount(merchantId, 'collection_pending', r.currency), amount: -r.amount },
          { account: merchantAccount(merchantId, 'collection_available', r.currency), amount: r.amount },
        ],
      });
    }
    await tx.insert(tnRunMerchants).values({
      runId: run.id,
      merchantId,
      currency: r.currency,
      lines: r.lines,
      amount: r.amount,
      outcome: 'released',
    });
  }
  // The merchant's rolling reserve due by the run's day, in the same transaction (recorded on its lines).
  const reserve = await releaseReserve(tx, run, merchantId, now);
  return { released, reserve };
}

/**
 * A run for business `day` (today or before; the caller checks), started by the daily job
 * (`startedBy` null: at most one per day, the partial unique index decides between server processes;
 * null when the day's job run exists) or by a platform user (always a new run). Each merchant with
 * pending lines due by then is released in its own transaction; one that fails is recorded failed with
 * its reason and the run goes on (`partial`). Answers the finished run.
 */
export async function runTnSettlement(
  deps: Pick<Deps, 'clock' | 'logger' | 'database'>,
  db: Db,
  day: string,
  startedBy: number | null,
): Promise<TnRun | null> {
  const startedAt = deps.clock.now();
  const [run] =
    startedBy === null
      ? rowsOf<{ id: number }>(
          await db.execute(sql`
            insert into tn_runs (day, started_by, started_at) values (${day}::date, null, ${startedAt.toISOString()}::timestamptz)
            on conflict (day) where started_by is null do nothing
            returning id`),
        )
      : await db.insert(tnRuns).values({ day, startedBy, startedAt }).returning({ id: tnRuns.id });
  if (!run) return null;
  const runId = Number(run.id);
  try {
    // Who has lines to release: read through the pending lines' and the reserve lines' due-day indexes,
    // never the released ones.
    const due = rowsOf<{ merchant_id: number; currency: string }>(
      await db.execute(sql`
        select merchant_id, currency from tn_lines
        where due_day <= ${day}::date and ${open('status')}
        group by 1, 2 order by 1, 2`),
    );
    const currencies = new Map<number, string[]>();
    for (const r of [...due, ...(await reserveDue(db, day))]) {
      const id = Number(r.merchant_id);
      const list = currencies.get(id) ?? [];
      if (!list.includes(r.currency)) list.push(r.currency);
      currencies.set(id, list);
    }
    let merchantsReleased = 0;
    let lines = 0;
    let amount = 0;
    let failed = 0;
    for (const [merchantId, merchantCurrencies] of currencies) {
      // Between merchants, PGlite's one session goes to the requests waiting for it first (issue 31).
      await deps.database.giveWay?.();
      try {
        const { released, reserve } = await inTransaction(db, (tx) =>
          releaseMerchant(deps, tx, { id: runId, day }, merchantId),
        );
        // Released meanwhile by another run: nothing of it is this run's.
        if (!released.length && !reserve.length) continue;
        merchantsReleased += 1;
        for (const r of released) {
          lines += r.lines;
          amount += r.amount;
        }
      } catch (err) {
        failed += 1;
        const error = failureText(err);
        deps.logger.warn({ runId, merchantId, err: errorForLog(err) }, 'T+N release failed for a merchant');
        await db
          .insert(tnRunMerchants)
          .values(
            merchantCurrencies.map((currency) => ({
              runId,
              merchantId,
              currency,
              outcome: 'failed' as const,
              error,
            })),
          )
          .onConflictDoNothing();
      }
    }
    const outcome: TnOutcome = failed === 0 ? 'succeeded' : merchantsReleased === 0 ? 'failed' : 'partial';
    const [done] = await db
      .update(tnRuns)
      .set({
        finishedAt: deps.clock.now(),
        merchants: merchantsReleased,
        lines,
        amountReleased: amount,
        outcome,
      })
      .where(eq(tnRuns.id, runId))
      .returning();
    return done!;
  } catch (err) {
    // The run itself broke (not one merchant): what was released stays released; the run says it failed.
    await db
      .update(tnRuns)
      .set({ finishedAt: deps.clock.now(), outcome: 'failed', error: failureText(err) })
      .where(eq(tnRuns.id, runId))
      .catch(() => {});
    throw err;
  }
}

/**
 * The daily job's step: from `tn_run_time` (business time) on, once per business day, the run for that
 * day. A day's run releases what is due by that day: under T+1 the orders paid yesterday.
 */
export async function runDailyTnSettlement(deps: Pick<Deps, 'clock' | 'logger' | 'database'>) {
  const db = deps.database.db;
  const { day, time } = await businessNow(db, deps.clock.now());
  if (time < (await readParameter(db, 'tn_run_time'))) return null;
  // Read first, so that a day already run costs no insert (nor a run id) every time the job wakes.
  const [ran] = await db
    .select({ id: tnRuns.id })
    .from(tnRuns)
    .where(and(eq(tnRuns.day, day), sql`${tnRuns.startedBy} is null`));
  if (ran) return null;
  return runTnSettlement(deps, db, day, null);
}

// ---- Reading ----------------------------------------------------------------------------------------

/** A run as the API shows it: who started it by name (null: the daily job). */
export async function tnRunsWithStarter(db: Db, where: SQL | undefined, limit: number) {
  return db
    .select({ run: tnRuns, startedBy: users.username })
    .from(tnRuns)
    .leftJoin(users, eq(users.id, tnRuns.startedBy))
    .where(where)
    .orderBy(desc(tnRuns.startedAt), desc(tnRuns.id))
    .limit(limit);
}

/** A run's outcome per merchant and currency, merchant code first. */
export async function tnRunMerchantOutcomes(db: Db, runId: number) {
  return db
    .select({ o: tnRunMerchants, merchantCode: merchants.code })
    .from(tnRunMerchants)
    .innerJoin(merchants, eq(merchants.id, tnRunMerchants.merchantId))
    .where(eq(tnRunMerchants.runId, runId))
    .orderBy(merchants.code, tnRunMerchants.currency);
}

/** Runs in the table (the log's total). */
export async function tnRunCount(db: Db, where: SQL | undefined): Promise<number> {
  const [row] = await db.select({ n: count() }).from(tnRuns).where(where);
  return row?.n ?? 0;
}

// ---- The invariant ----------------------------------------------------------------------------------

/** The T+N invariant (like `checkLedger`): `collection_pending` = the net of the merchant's pending lines. */
export const checkTnLines = (db: Db) =>
  checkLinesMatch(db, { table: 'tn_lines', column: 'net', live: open('status'), kind: 'collection_pending' });
