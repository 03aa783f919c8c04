/**
 * `GET /dashboard/summary`: the figures of today, the last 7 and the last 30 business days, a row per
 * day for the chart, per-channel success rates and the queues that need a person. Finished orders come
 * from the order stats (`order_stats_daily`), orders under way are counted live through their partial
 * indexes; nothing scans the orders. A platform user sees every merchant, a merchant user its own.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type DashboardQueue, dashboardQueues } from '../../../contract/endpoints/dashboard.ts';
import type { RiskRule } from '../../../contract/endpoints/risk.ts';
import { addDays } from '../../../contract/endpoints/tn.ts';
import { allows, endpoints } from '../../../contract/index.ts';
import { payin, payout } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { inStates } from '../../db/states.ts';
import { handle } from '../../http/handle.ts';
import type { SessionUser } from '../../http/session.ts';
import { rowsOf } from '../../ledger/index.ts';
import { merchantScope } from '../../list/scope.ts';
import { type OrderKind, storedZone } from './stats.ts';

/** The `status` column of the table a query reads. */
const status = sql.raw('status');

const ppm = (part: number, whole: number) => (whole > 0 ? Math.round((part * 1_000_000) / whole) : null);

/** Figures of one day, kind, currency and channel: stored (finished) plus live (under way). */
interface Cell {
  day: string;
  kind: OrderKind;
  currency: string;
  channelId: number;
  finished: number;
  success: number;
  amount: bigint;
  fee: bigint;
  commission: bigint;
  live: number;
}

interface Totals {
  count: number;
  finished: number;
  success: number;
  amount: bigint;
  fee: bigint;
}

const emptyTotals = (): Totals => ({ count: 0, finished: 0, success: 0, amount: 0n, fee: 0n });

/**
 * The business calendar around `now`: today in the stats' time zone and the instants its days start.
 * Asked of the database so that days are cut by the same time zone rules that bucketed the stats.
 */
async function calendar(db: Db, now: Date) {
  const [row] = rowsOf<{
    zone: string;
    today: string;
    from30: number;
    from7: number;
    from1: number;
    to: number;
  }>(
    await db.execute(sql`
      with z as (select ${storedZone} as zone),
      d as (select zone, ((${now.toISOString()}::timestamptz) at time zone zone)::date as today from z)
      select zone, today::text as today,
        (extract(epoch from ((today - 29)::timestamp at time zone zone)) * 1000)::float8 as from30,
        (extract(epoch from ((today - 6)::timestamp at time zone zone)) * 1000)::float8 as from7,
        (extract(epoch from (today::timestamp at time zone zone)) * 1000)::float8 as from1,
        (extract(epoch from ((today + 1)::timestamp at time zone zone)) * 1000)::float8 as "to"
      from d`),
  );
  if (!row) throw new Error('dashboard: no calendar');
  return {
    zone: row.zone,
    today: row.today,
    first: addDays(row.today, -29),
    last7: addDays(row.today, -6),
    from30: new Date(Number(row.from30)),
    from7: new Date(Number(row.from7)),
    from1: new Date(Number(row.from1)),
    to: new Date(Number(row.to)),
  };
}

/**
 * ` and <col> = <the merchant>` for the merchant in view (a merchant user's own, or the one a platform user
 * picked), nothing for the whole platform.
 */
const merchantFilter = (merchantId: number | undefined) => (col: string) =>
  merchantId === undefined ? sql`` : sql` and ${sql.raw(col)} = ${merchantId}`;

/**
 * Where each queue's rows are: its table (each count reads the partial or status index named beside it,
 * so a queue costs what waits, never the table), anything more its rows must be, and the column that
 * holds their merchant (null: the platform's own, never counted for a merchant user).
 */
const queueSource: Record<DashboardQueue, { table: string; also?: SQL; merchant: string | null }> = {
  // webhook_events_gave_up_idx; for orders only: the queue links into the order lists.
  callbacksGaveUp: {
    table: 'webhook_events',
    also: sql` and order_type in ('payin','payout')`,
    merchant: 'merchant_id',
  },
  // payout_orders' partial indexes of the orders under way
  payoutsQueued: { table: 'payout_orders', merchant: 'merchant_id' },
  payoutsProcessing: { table: 'payout_orders', merchant: 'merchant_id' },
  payoutsNeedReview: { table: 'payout_orders', merchant: 'merchant_id' },
  // recharges_status_idx
  rechargesPending: { table: 'recharges', merchant: 'merchant_id' },
  // settlements_open_idx
  settlementsToConfirm: { table: 'settlements', merchant: 'merchant_id' },
  settlementsToComplete: { table: 'settlements', merchant: 'merchant_id' },
  // approvals_pending_ref_key
  approvalsPending: { table: 'approvals', merchant: null },
  // statement_lines_open_idx
  statementExceptions: { table: 'statement_lines', merchant: null },
  // withdrawal_slips_waiting_idx
  slipsToWithdraw: { table: 'withdrawal_slips', merchant: null },
  // disputes_open_deadline_idx
  disputesOpen: { table: 'disputes', merchant: 'merchant_id' },
  disputesOverdue: { table: 'disputes', also: sql` and deadline <= now()`, merchant: 'merchant_id' },
};

/**
 * The queues waiting for a person (`dashboardQueues`), in one statement: each counted for a caller who
 * may call its list, within the caller's tenancy; null where the caller may not see it. `more` names
 * further columns the same statement answers (the summary's currencies), so a caller asks once.
 */
export async function queueCounts(
  db: Db,
  user: SessionUser,
  more: Record<string, SQL> = {},
  merchantId: number | undefined = merchantScope(user, undefined),
): Promise<{ counts: Record<DashboardQueue, number | null>; more: Record<string, unknown> }> {
  const keys = Object.keys(dashboardQueues) as DashboardQueue[];
  const ofTenant = merchantFilter(merchantId);
  // One merchant in view: the platform's own queues (no merchant in their rows) are not its.
  const seen = keys.filter(
    (k) =>
      allows(user, dashboardQueues[k].needs) &&
      (merchantId === undefined || queueSource[k].merchant !== null),
  );
  const count = (k: DashboardQueue) => {
    const q = queueSource[k];
    return sql`(select count(*)::int from ${sql.identifier(q.table)} where ${inStates(status, dashboardQueues[k].states)}${q.also ?? sql``}${q.merchant ? ofTenant(q.merchant) : sql``}) as ${sql.identifier(k)}`;
  };
  const columns = [
    ...seen.map(count),
    ...Object.entries(more).map(([name, value]) => sql`${value} as ${sql.identifier(name)}`),
  ];
  const [row] = columns.length
    ? rowsOf<Record<string, unknown>>(await db.execute(sql`select ${sql.join(columns, sql`, `)}`))
    : [];
  const counts = Object.fromEntries(
    keys.map((k) => [k, seen.includes(k) ? Number(row?.[k] ?? 0) : null]),
  ) as Record<DashboardQueue, number | null>;
  return { counts, more: row ?? {} };
}

/**
 * The dashboard's figures, of the whole platform or of one merchant: a merchant user's own (naming another
 * is 404), or the one a platform user picked (`merchantId`).
 */
export async function dashboardSummary(db: Db, user: SessionUser, now: Date, named?: number) {
  const tenant = user.kind === 'merchant' ? user.merchantId! : null;
  const merchantId = merchantScope(user, named);
  const cal = await calendar(db, now);
  const ofTenant = merchantFilter(merchantId);

  const stored = rowsOf<{
    day: string;
    kind: OrderKind;
    currency: string;
    channel_id: number;
    finished: number;
    success: number;
    amount: string;
    fee: string;
    commission: string;
  }>(
    await db.execute(sql`
      select day::text as day, kind, currency, channel_id,
        sum(finished_count)::int as finished, sum(success_count)::int as success,
        sum(success_amount)::text as amount, sum(success_fee)::text as fee,
        sum(success_commission)::text as commission
      from order_stats_daily
      where day between ${cal.first}::date and ${cal.today}::date${ofTenant('merchant_id')}
      group by day, kind, currency, channel_id`),
  );
  // Under way: few rows at any time (a pay-in is pending for minutes), each read through its partial index.
  // A pay-in is stored once its channel answered, so of its under-way states only `pending` is ever read.
  const live = rowsOf<{ day: string; kind: OrderKind; currency: string; channel_id: number; n: number }>(
    await db.execute(sql`
      select ((created_at at time zone ${cal.zone})::date)::text as day, 'payin' as kind, currency,
        coalesce(channel_id, 0) as channel_id, count(*)::int as n
      from payin_orders
      where ${inStates(status, [payin.state.pending])} and created_at >= ${cal.from30}${ofTenant('merchant_id')}
      group by 1, 3, 4
      union all
      select ((created_at at time zone ${cal.zone})::date)::text, 'payout', currency, coalesce(channel_id, 0), count(*)::int
      from payout_orders
      where ${inStates(status, payout.sets.underWay)}
        and created_at >= ${cal.from30}${ofTenant('merchant_id')}
      group by 1, 3, 4`),
  );
  // The queues and the merchants' currencies in one statement.
  const queued = await queueCounts(
    db,
    user,
    {
      currencies: sql`(select string_agg(distinct currency, ',') from merchants where true${ofTenant('id')})`,
    },
    merchantId,
  );
  const merchantCurrencies = queued.more.currencies as string | null | undefined;
  const cells: Cell[] = [
    ...stored.map((r) => ({
      day: r.day,
      kind: r.kind,
      currency: r.currency,
      channelId: Number(r.channel_id),
      finished: Number(r.finished),
      success: Number(r.success),
      amount: BigInt(r.amount),
      fee: BigInt(r.fee),
      commission: BigInt(r.commission),
      live: 0,
    })),
    ...live.map((r) => ({
      day: r.day,
      kind: r.kind,
      currency: r.currency,
      channelId: Number(r.channel_id),
      finished: 0,
      success: 0,
      amount: 0n,
      fee: 0n,
      commission: 0n,
      live: Number(r.n),
    })),
  ];
  const currencies = [
    ...new Set([
      ...(merchantCurrencies ? merchantCurrencies.split(',') : []),
      ...cells.map((c) => c.currency),
    ]),
  ].sort();
  // A merchant sees the fees it paid; the platform its fee income (less the agents' commission).
  const feeOf = (c: Cell) => (tenant === null ? c.fee - c.commission : c.fee);
  const add = (t: Totals, c: Cell) => {
    t.count += c.finished + c.live;
    t.finished += c.finished;
    t.success += c.success;
    t.amount += c.amount;
    t.fee += feeOf(c);
  };

  const period = (from: Date, fromDay: string) => {
    const figures = (kind: OrderKind) =>
      currencies.map((currency) => {
        const t = emptyTotals();
        for (const c of cells) if (c.kind === kind && c.currency === currency && c.day >= fromDay) add(t, c);
        return {
          currency,
          count: t.count,
          successCount: t.success,
          finishedCount: t.finished,
          amount: formatMinor(t.amount),
          fee: formatMinor(t.fee),
          successRatePpm: ppm(t.success, t.finished),
        };
      });
    return {
      from: from.toISOString(),
      to: cal.to.toISOString(),
      payin: figures('payin'),
      payout: figures('payout'),
    };
  };

  const daily = [];
  for (let i = 0; i < 30; i++) {
    const day = addDays(cal.first, i);
    for (const currency of currencies) {
      const pin = emptyTotals();
      const pout = emptyTotals();
      for (const c of cells) {
        if (c.day === day && c.currency === currency) add(c.kind === 'payin' ? pin : pout, c);
      }
      daily.push({
        date: day,
        currency,
        payinCount: pin.count,
        payinSuccessCount: pin.success,
        payinAmount: formatMinor(pin.amount),
        payoutCount: pout.count,
        payoutSuccessCount: pout.success,
        payoutAmount: formatMinor(pout.amount),
        fee: formatMinor(pin.fee + pout.fee),
      });
    }
  }

  const byChannel = new Map<number, Totals>();
  for (const c of cells) {
    if (c.kind !== 'payin' || c.channelId === 0 || c.day < cal.last7) continue;
    const t = byChannel.get(c.channelId) ?? emptyTotals();
    add(t, c);
    byChannel.set(c.channelId, t);
  }
  const names = byChannel.size
    ? rowsOf<{ id: number; code: string; name: string }>(
        await db.execute(
          sql`select id, code, name from channels where id in (${sql.join(
            [...byChannel.keys()].map((id) => sql`${id}`),
            sql`, `,
          )})`,
        ),
      )
    : [];
  const channels = names
    .map((ch) => {
      const t = byChannel.get(Number(ch.id))!;
      return {
        channelId: Number(ch.id),
        channelCode: ch.code,
        channelName: ch.name,
        payinCount: t.count,
        payinSuccessCount: t.success,
        payinFinishedCount: t.finished,
        successRatePpm: ppm(t.success, t.finished),
      };
    })
    .sort((a, b) => b.payinCount - a.payinCount || a.channelCode.localeCompare(b.channelCode));

  // Today's refusals by the risk rules, through risk_refusals_at_idx.
  const refusals = rowsOf<{ rule: RiskRule; n: number }>(
    await db.execute(sql`
      select rule, count(*)::int as n from risk_refusals
      where at >= ${cal.from1} and at < ${cal.to}${ofTenant('merchant_id')}
      group by rule order by 2 desc, 1`),
  );

  return {
    businessTimeZone: cal.zone,
    today: period(cal.from1, cal.today),
    last7Days: period(cal.from7, cal.last7),
    last30Days: period(cal.from30, cal.first),
    daily,
    channels,
    queues: queued.counts,
    riskRefusals: refusals.map((r) => ({ rule: r.rule, count: Number(r.n) })),
  };
}

export const dashboardRoutes = [
  handle(endpoints.dashboard.summary, async ({ input, user, tx, deps }) =>
    dashboardSummary(tx, user, deps.clock.now(), input.merchantId),
  ),
  handle(endpoints.dashboard.queues, async ({ user, tx }) => (await queueCounts(tx, user)).counts),
];
