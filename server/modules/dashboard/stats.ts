/**
 * Order stats: finished orders per business day, merchant, channel, kind and currency
 * (`order_stats_daily`), what the dashboard reads instead of scanning the orders (PERFORMANCE.md rule 2).
 *
 * Only ended orders count here (each kind's `ended` set in contract/machines.ts), so an order changes
 * its row only when it enters or leaves one of those states, in the same transaction: the pay-in creation path writes nothing (its orders start `pending`), and a pay-in's
 * day row is locked only by the short transaction that settles it. Orders under way are counted live.
 *
 * Days are calendar days of the order's creation in the business time zone. The zone the rows were
 * built with is stored (parameter `order_stats_time_zone`) and every write buckets by that stored zone,
 * so rows never mix two zones; `syncOrderStatsZone` rebuilds them when the business time zone changed
 * (BUSINESS_TIME_ZONE or the `business_time_zone` parameter), and so does a change of that parameter.
 */
import { type SQL, sql } from 'drizzle-orm';
import { payin, payout } from '../../../contract/machines.ts';
import { type Config, defaultBusinessTimeZone } from '../../config.ts';
import type { Db } from '../../db/index.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { rebuildLedgerDaily, rowsOf } from '../../ledger/index.ts';
import { storedZone, timeZoneParameter } from '../../lib/businessDay.ts';
import { readParameter } from '../../lib/parameters.ts';

export type OrderKind = 'payin' | 'payout';

/** Each kind's state machine: its `ended` states are counted here, its `succeeded` ones as successes. */
const machineOf = { payin, payout } as const;
const ended = (kind: OrderKind, status: string) =>
  (machineOf[kind].sets.ended as readonly string[]).includes(status);
const succeeded = (kind: OrderKind, status: string) =>
  (machineOf[kind].sets.succeeded as readonly string[]).includes(status);

export { storedZone, timeZoneParameter };

export const businessTimeZoneOf = (config: Pick<Config, 'businessTimeZone'>): string =>
  config.businessTimeZone ?? defaultBusinessTimeZone;

/** What of an order the stats need, in one state. */
export interface OrderState {
  createdAt: Date;
  merchantId: number;
  channelId: number | null;
  currency: string;
  amount: number;
  fee: number;
  /** The agent's share of a pay-in's fee (0 for payouts). */
  agentCommission?: number;
  status: string;
}

/** An order moving from one state to another; null for "did not exist" (created, deleted). */
export interface OrderMove {
  kind: OrderKind;
  before: OrderState | null;
  after: OrderState | null;
}

/** A move whose other fields did not change, only the status. */
export function statusMove(kind: OrderKind, order: OrderState, from: string | null): OrderMove {
  return { kind, before: from === null ? null : { ...order, status: from }, after: order };
}

interface Delta {
  createdAt: string;
  merchantId: number;
  channelId: number;
  currency: string;
  finished: number;
  success: number;
  amount: number;
  fee: number;
  commission: number;
}

function contribution(kind: OrderKind, o: OrderState | null, sign: 1 | -1): Delta | null {
  if (!o || !ended(kind, o.status)) return null;
  const won = succeeded(kind, o.status) ? sign : 0;
  return {
    createdAt: o.createdAt.toISOString(),
    merchantId: o.merchantId,
    channelId: o.channelId ?? 0,
    currency: o.currency,
    finished: sign,
    success: won,
    amount: won * o.amount,
    fee: won * o.fee,
    commission: won * (kind === 'payin' ? (o.agentCommission ?? 0) : 0),
  };
}

/**
 * Applies order moves to the stats in the caller's transaction: one statement whatever the number of
 * moves, the rows changed in key order (so two writers never wait on each other crosswise).
 */
export async function recordOrderMoves(tx: Db, moves: readonly OrderMove[]): Promise<void> {
  const rows: SQL[] = [];
  for (const m of moves) {
    for (const d of [contribution(m.kind, m.before, -1), contribution(m.kind, m.after, 1)]) {
      if (!d) continue;
      rows.push(
        sql`(${d.createdAt}::timestamptz, ${m.kind}::text, ${d.merchantId}::int, ${d.channelId}::int, ${d.currency}::text, ${d.finished}::int, ${d.success}::int, ${d.amount}::bigint, ${d.fee}::bigint, ${d.commission}::bigint)`,
      );
    }
  }
  if (!rows.length) return;
  await tx.execute(sql`
    insert into order_stats_daily as s
      (day, kind, merchant_id, channel_id, currency, finished_count, success_count, success_amount, success_fee, success_commission)
    select (v.created_at at time zone ${storedZone})::date, v.kind, v.merchant_id, v.channel_id, v.currency,
      sum(v.finished), sum(v.success), sum(v.amount), sum(v.fee), sum(v.commission)
    from (values ${sql.join(rows, sql`, `)})
      as v(created_at, kind, merchant_id, channel_id, currency, finished, success, amount, fee, commission)
    group by 1, 2, 3, 4, 5
    order by 1, 2, 3, 4, 5
    on conflict (day, kind, merchant_id, channel_id, currency) do update set
      finished_count = s.finished_count + excluded.finished_count,
      success_count = s.success_count + excluded.success_count,
      success_amount = s.success_amount + excluded.success_amount,
      success_fee = s.success_fee + excluded.success_fee,
      success_commission = s.success_commission + excluded.success_commission`);
}

const status = sql.raw('status');
const paid = inStates(status, payin.sets.succeeded);
const paidOut = inStates(status, payout.sets.succeeded);

/** The stats as a GROUP BY over the orders would make them, bucketed in `zone` (SQL). */
const groupedOrders = (zone: SQL) => sql`
  select (created_at at time zone ${zone})::date as day, 'payin'::text as kind, merchant_id,
    coalesce(channel_id, 0) as channel_id, currency,
    count(*)::int as finished_count,
    (count(*) filter (where ${paid}))::int as success_count,
    coalesce(sum(amount) filter (where ${paid}), 0)::bigint as success_amount,
    coalesce(sum(fee) filter (where ${paid}), 0)::bigint as success_fee,
    coalesce(sum(agent_commission) filter (where ${paid}), 0)::bigint as success_commission
  from payin_orders where ${inStates(status, payin.sets.ended)}
  group by 1, 3, 4, 5
  union all
  select (created_at at time zone ${zone})::date, 'payout', merchant_id, coalesce(channel_id, 0), currency,
    count(*)::int,
    (count(*) filter (where ${paidOut}))::int,
    coalesce(sum(amount) filter (where ${paidOut}), 0)::bigint,
    coalesce(sum(fee) filter (where ${paidOut}), 0)::bigint,
    0::bigint
  from payout_orders where ${inStates(status, payout.sets.ended)}
  group by 1, 3, 4, 5`;

/**
 * Rebuilds every row from the orders in `zone` and records the zone, in the caller's transaction or
 * its own: after a bulk load that bypassed the services (benchmark seed, demo workspace), or when the
 * business time zone changes. The ledger's daily movements are bucketed by the same stored zone, so
 * they are rebuilt with it. Full scans of the orders and postings: never on a request.
 */
export async function rebuildOrderStats(db: Db, zone: string): Promise<void> {
  const run = async (tx: Db) => {
    await tx.execute(sql`delete from order_stats_daily`);
    await tx.execute(sql`
      insert into order_stats_daily
        (day, kind, merchant_id, channel_id, currency, finished_count, success_count, success_amount, success_fee, success_commission)
      ${groupedOrders(sql`${zone}::text`)}`);
    await rebuildLedgerDaily(tx, sql`${zone}::text`);
    // Reconciliation's rollup (migration 0017: kept by triggers, its days cut in this zone too).
    await tx.execute(sql`select reconciliation_rebuild(${zone}::text)`);
    // The channel statistics' pay-time rollup (migration 0019, kept by triggers; its days in this zone).
    await tx.execute(sql`select pay_time_rebuild(${zone}::text)`);
    await tx.execute(sql`
      insert into parameters (key, value) values (${timeZoneParameter}, ${JSON.stringify(zone)}::jsonb)
      on conflict (key) do update set value = excluded.value, updated_at = now()`);
    // The planner's statistics of a table just rewritten whole (PGlite runs no autovacuum).
    await tx.execute(sql`analyze order_stats_daily`);
    await tx.execute(sql`analyze ledger_daily`);
    await tx.execute(sql`analyze reconciliation_daily`);
    await tx.execute(sql`analyze payin_pay_time_daily`);
  };
  // One transaction of its own, or a savepoint inside the caller's (a seed's).
  await db.transaction((tx) => run(tx as unknown as Db));
}

/** The zone the stored rows were built with. */
export async function storedOrderStatsZone(db: Db): Promise<string> {
  const [row] = rowsOf<{ zone: string }>(await db.execute(sql`select ${storedZone} as zone`));
  return row?.zone ?? defaultBusinessTimeZone;
}

/**
 * At start-up: rebuilds the rows when the business time zone is not the one they use. The zone is the
 * `business_time_zone` parameter when set (the parameter screen's), else BUSINESS_TIME_ZONE, else the default.
 */
export async function syncOrderStatsZone(
  deps: Pick<Deps, 'config' | 'database' | 'logger'>,
): Promise<boolean> {
  const db = deps.database.db;
  const wanted = await readParameter(db, 'business_time_zone', deps.config);
  if ((await storedOrderStatsZone(db)) === wanted) return false;
  const started = performance.now();
  await rebuildOrderStats(db, wanted);
  deps.logger.info(
    { zone: wanted, ms: Math.round(performance.now() - started) },
    'order stats rebuilt for a new business time zone',
  );
  return true;
}

export interface OrderStatsReport {
  ok: boolean;
  /** Rows whose figures differ from the GROUP BY over the orders (absent rows count as zero). */
  mismatches: {
    day: string;
    kind: string;
    merchantId: number;
    channelId: number;
    currency: string;
    stored: number[];
    fromOrders: number[];
  }[];
}

/**
 * The invariant checker (like `checkLedger`): the stored rows equal a GROUP BY over the orders, and so
 * does the pay-time rollup.
 * Run after every money test; a full scan, so never on a request.
 */
export async function checkOrderStats(db: Db): Promise<OrderStatsReport> {
  const rows = rowsOf<{
    day: string;
    kind: string;
    merchant_id: number;
    channel_id: number;
    currency: string;
    s: string;
    g: string;
  }>(
    await db.execute(sql`
      with g as (${groupedOrders(storedZone)})
      select coalesce(s.day, g.day)::text as day, coalesce(s.kind, g.kind) as kind,
        coalesce(s.merchant_id, g.merchant_id) as merchant_id, coalesce(s.channel_id, g.channel_id) as channel_id,
        coalesce(s.currency, g.currency) as currency,
        concat_ws(',', s.finished_count, s.success_count, s.success_amount, s.success_fee, s.success_commission) as s,
        concat_ws(',', g.finished_count, g.success_count, g.success_amount, g.success_fee, g.success_commission) as g
      from order_stats_daily s
      full join g on g.day = s.day and g.kind = s.kind and g.merchant_id = s.merchant_id
        and g.channel_id = s.channel_id and g.currency = s.currency
      where row(coalesce(s.finished_count, 0), coalesce(s.success_count, 0), coalesce(s.success_amount, 0),
          coalesce(s.success_fee, 0), coalesce(s.success_commission, 0))
        is distinct from row(coalesce(g.finished_count, 0), coalesce(g.success_count, 0),
          coalesce(g.success_amount, 0), coalesce(g.success_fee, 0), coalesce(g.success_commission, 0))
      order by 1, 2, 3, 4, 5
      limit 100`),
  );
  // The pay-time rollup (migration 0019) against the paid orders: a mismatch of kind `pay_time:<bucket>`.
  const payTimes = rowsOf<{ day: string; channel_id: number; bucket: number; s: number; g: number }>(
    await db.execute(sql`
      with g as (
        select (created_at at time zone ${storedZone})::date as day, coalesce(channel_id, 0) as channel_id,
          width_bucket(extract(epoch from paid_at - created_at)::float8, pay_time_bounds()) as bucket,
          count(*)::int as orders
        from payin_orders where status = 'paid' and paid_at is not null group by 1, 2, 3)
      select coalesce(s.day, g.day)::text as day, coalesce(s.channel_id, g.channel_id) as channel_id,
        coalesce(s.bucket, g.bucket) as bucket, coalesce(s.orders, 0) as s, coalesce(g.orders, 0) as g
      from (select day, channel_id, bucket, sum(orders)::int as orders from payin_pay_time_daily group by 1, 2, 3) s
      full join g on g.day = s.day and g.channel_id = s.channel_id and g.bucket = s.bucket
      where coalesce(s.orders, 0) <> coalesce(g.orders, 0)
      order by 1, 2, 3
      limit 100`),
  );
  const figures = (csv: string) => (csv ? csv.split(',').map(Number) : [0, 0, 0, 0, 0]);
  const mismatches = [
    ...rows.map((r) => ({
      day: r.day,
      kind: r.kind,
      merchantId: Number(r.merchant_id),
      channelId: Number(r.channel_id),
      currency: r.currency,
      stored: figures(r.s),
      fromOrders: figures(r.g),
    })),
    ...payTimes.map((r) => ({
      day: r.day,
      kind: `pay_time:${r.bucket}`,
      merchantId: 0,
      channelId: Number(r.channel_id),
      currency: '',
      stored: [Number(r.s)],
      fromOrders: [Number(r.g)],
    })),
  ];
  return { ok: mismatches.length === 0, mismatches };
}
