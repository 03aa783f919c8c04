/**
 * Channel statistics (`GET /statOrder/channel`): the order statistics by channel, with the median time to
 * pay, the channel's cost at its current rates and what the platform kept of the fees.
 */
import { sql } from 'drizzle-orm';
import { payTimeBounds } from '../../../contract/endpoints/stat.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import type { Lang } from '../../http/i18n.ts';
import { rowsOf } from '../../ledger/index.ts';
import { isCalendarDay } from '../../lib/businessDay.ts';
import { badCursor, cursorParts, reportCursor } from './cursor.ts';
import { cellsOf, maxId, rateOf, type Sums } from './orders.ts';

export interface ChannelStatFilters {
  from: string;
  to: string;
  channelId: number | null;
}

/** Where a page continues: after `(day, channelId, currency)`. */
export interface ChannelStatKey {
  day: string;
  channelId: number;
  currency: string;
}

export function encodeChannelCursor(k: ChannelStatKey): string {
  return reportCursor(k.day, k.channelId, k.currency);
}

export function decodeChannelCursor(cursor: string, lang: Lang): ChannelStatKey {
  const [day = '', channel = '', currency = ''] = cursorParts(cursor, 3);
  const channelId = /^\d{1,10}$/.test(channel) ? Number(channel) : -1;
  if (!isCalendarDay(day) || channelId < 0 || channelId > maxId || !/^[A-Z]{3}$/.test(currency))
    throw badCursor(lang);
  return { day, channelId, currency };
}

/** Paid pay-ins per bucket of seconds to pay (`payTimeBounds`), index = bucket. */
type Buckets = number[];

const addBuckets = (into: Buckets, from: Buckets) => {
  from.forEach((n, i) => {
    into[i] = (into[i] ?? 0) + n;
  });
  return into;
};

/**
 * The median seconds to pay from bucket counts: the bucket holding the middle order, interpolated
 * linearly inside it (orders spread evenly over the bucket); in the open last bucket, its lower bound.
 * Null when none was paid.
 */
export function medianOf(buckets: Buckets): number | null {
  const n = buckets.reduce((a, b) => a + (b ?? 0), 0);
  if (n <= 0) return null;
  const half = n / 2;
  let below = 0;
  for (let i = 0; i < buckets.length; i++) {
    const here = buckets[i] ?? 0;
    if (here > 0 && below + here >= half) {
      const lower = i === 0 ? 0 : payTimeBounds[i - 1]!;
      const upper = payTimeBounds[i];
      if (upper === undefined) return lower;
      return Math.round(lower + ((half - below) / here) * (upper - lower));
    }
    below += here;
  }
  return null;
}

interface ChannelSums extends Sums {
  day: string;
  channel_id: number;
  channel_code: string;
  channel_name: string;
  currency: string;
  payin_cost: string;
  payout_cost: string;
}

/** Figures summed in JavaScript (totals and series add rows up, the cost included as each row rounded it). */
interface ChannelTally {
  payinCreated: number;
  payinEnded: number;
  payinPaid: number;
  payinAmount: number;
  payoutCreated: number;
  payoutEnded: number;
  payoutSucceeded: number;
  payoutAmount: number;
  cost: number;
  feeIncome: number;
  buckets: Buckets;
}

const emptyTally = (): ChannelTally => ({
  payinCreated: 0,
  payinEnded: 0,
  payinPaid: 0,
  payinAmount: 0,
  payoutCreated: 0,
  payoutEnded: 0,
  payoutSucceeded: 0,
  payoutAmount: 0,
  cost: 0,
  feeIncome: 0,
  buckets: [],
});

function addTally(t: ChannelTally, r: ChannelTally) {
  t.payinCreated += r.payinCreated;
  t.payinEnded += r.payinEnded;
  t.payinPaid += r.payinPaid;
  t.payinAmount += r.payinAmount;
  t.payoutCreated += r.payoutCreated;
  t.payoutEnded += r.payoutEnded;
  t.payoutSucceeded += r.payoutSucceeded;
  t.payoutAmount += r.payoutAmount;
  t.cost += r.cost;
  t.feeIncome += r.feeIncome;
  addBuckets(t.buckets, r.buckets);
}

function channelFigures(t: ChannelTally) {
  return {
    payinCreated: t.payinCreated,
    payinPaid: t.payinPaid,
    payinSuccessRate: rateOf(t.payinPaid, t.payinEnded),
    payinAmount: formatMinor(t.payinAmount),
    medianPaySeconds: medianOf(t.buckets),
    payoutCreated: t.payoutCreated,
    payoutSucceeded: t.payoutSucceeded,
    payoutSuccessRate: rateOf(t.payoutSucceeded, t.payoutEnded),
    payoutAmount: formatMinor(t.payoutAmount),
    channelCost: formatMinor(t.cost),
    feeIncome: formatMinor(t.feeIncome),
    margin: formatMinor(t.feeIncome - t.cost),
  };
}

/**
 * The channel statistics of the whole period: a row per channel, day and currency (newest day first,
 * then by channel and currency), the page after `after`, the totals per currency and the series per day
 * and currency. A period is at most 62 days × the channels: small enough to sum here whole.
 * The channel's cost is worked out per row at its current rates, each part rounded half up: the pay-ins'
 * amount × `payin_cost_ppm`, the payouts' amount × `payout_cost_ppm`, plus `payout_cost_fixed` a payout.
 * The median of a channel's day is shared by its currencies' rows (the pay-time rollup has no currency);
 * a series or total merges the buckets of the channel-days it adds up.
 */
export async function channelStats(
  db: Db,
  f: ChannelStatFilters,
  after: ChannelStatKey | null,
  pageSize: number,
) {
  const cells = cellsOf({ ...f, merchantId: null }, 'channel');
  const [rows, times] = [
    rowsOf<ChannelSums & { zone: string }>(
      await db.execute(sql`
        with ${cells}
        select z.zone, g.*, ch.code as channel_code, ch.name as channel_name,
          round(g.payin_amount::numeric * ch.payin_cost_ppm / 1000000)::text as payin_cost,
          (round(g.payout_amount::numeric * ch.payout_cost_ppm / 1000000)
            + g.payout_succeeded::numeric * ch.payout_cost_fixed)::text as payout_cost
        from z left join (g join channels ch on ch.id = g.channel_id) on true
        order by g.day desc, g.channel_id, g.currency`),
    ),
    rowsOf<{ day: string; channel_id: number; bucket: number; orders: number }>(
      await db.execute(sql`
        select day::text as day, channel_id, bucket, orders from payin_pay_time_daily
        where day between ${f.from}::date and ${f.to}::date and orders <> 0
          ${f.channelId === null ? sql`and channel_id <> 0` : sql`and channel_id = ${f.channelId}`}`),
    ),
  ];
  const bucketsOf = new Map<string, Buckets>();
  for (const t of times) {
    const key = `${t.day}|${t.channel_id}`;
    const b = bucketsOf.get(key) ?? [];
    b[Number(t.bucket)] = (b[Number(t.bucket)] ?? 0) + Number(t.orders);
    bucketsOf.set(key, b);
  }
  const found = rows.filter((r) => r.day !== null);
  const tallies = found.map((r) => {
    const t: ChannelTally = {
      payinCreated: Number(r.payin_created),
      payinEnded: Number(r.payin_ended),
      payinPaid: Number(r.payin_paid),
      payinAmount: Number(r.payin_amount),
      payoutCreated: Number(r.payout_created),
      payoutEnded: Number(r.payout_ended),
      payoutSucceeded: Number(r.payout_succeeded),
      payoutAmount: Number(r.payout_amount),
      cost: Number(r.payin_cost) + Number(r.payout_cost),
      feeIncome: Number(r.payin_fee) - Number(r.payin_commission) + Number(r.payout_fee),
      buckets: bucketsOf.get(`${r.day}|${r.channel_id}`) ?? [],
    };
    return { r, t };
  });
  const totals = new Map<string, ChannelTally>();
  const series = new Map<string, ChannelTally & { day: string; currency: string }>();
  for (const { r, t } of tallies) {
    const total = totals.get(r.currency) ?? emptyTally();
    totals.set(r.currency, total);
    const key = `${r.day}|${r.currency}`;
    const s = series.get(key) ?? { ...emptyTally(), day: r.day, currency: r.currency };
    series.set(key, s);
    addTally(total, t);
    addTally(s, t);
  }
  const rest = after
    ? tallies.filter(
        ({ r }) =>
          r.day < after.day ||
          (r.day === after.day &&
            (Number(r.channel_id) > after.channelId ||
              (Number(r.channel_id) === after.channelId && r.currency > after.currency))),
      )
    : tallies;
  const page = rest.slice(0, pageSize);
  const last = page.at(-1)?.r;
  return {
    businessTimeZone: rows[0]!.zone,
    total: tallies.length,
    list: page.map(({ r, t }) => ({
      day: r.day,
      channelId: Number(r.channel_id),
      channelCode: r.channel_code,
      channelName: r.channel_name,
      currency: r.currency,
      ...channelFigures(t),
    })),
    nextCursor:
      rest.length > pageSize && last
        ? encodeChannelCursor({ day: last.day, channelId: Number(last.channel_id), currency: last.currency })
        : null,
    totals: [...totals.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([currency, t]) => ({ currency, ...channelFigures(t) })),
    series: [...series.values()]
      .sort((a, b) => (a.day === b.day ? (a.currency < b.currency ? -1 : 1) : a.day < b.day ? -1 : 1))
      .map((s) => ({ day: s.day, currency: s.currency, ...channelFigures(s) })),
  };
}
