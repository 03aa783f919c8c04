/**
 * Telegram alerts (OPERATIONS.md section 4): an alert is recorded as one delivery per group that asked
 * for it, in the transaction of the event that causes it (an outbox: never for a rolled-back change, kept
 * over a restart), and sent later by the sender outside any transaction. Events that are states rather
 * than moments (a payout stuck, a balance below a floor, a channel's success rate falling) are found by a
 * periodic check. `dedupe_key` names the event, unique per group: each event alerts a group once, however
 * many checks or server processes see it.
 *
 * Texts carry order numbers, merchant and channel codes and amounts, never a secret, a payer's details or a
 * callback URL (whose query may hold a merchant's token).
 */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { TelegramAlertKind } from '../../../contract/endpoints/telegram.ts';
import { dispute, payin, payout } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import {
  merchants,
  payinOrders,
  payoutOrders,
  settlements,
  type TelegramAlerts,
  telegramDeliveries,
  telegramGroups,
  users,
} from '../../db/schema.ts';
import { inStates, statesSql } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { t } from '../../http/i18n.ts';
import { rowsOf } from '../../ledger/index.ts';
import { storedZone } from '../../lib/businessDay.ts';

type Group = typeof telegramGroups.$inferSelect;

/** The message of an alert, in English (the groups are the platform's own staff). */
export const alertText = (alert: TelegramAlertKind, params: Record<string, unknown>) =>
  t('en', `telegram.text.${alert}`, params);

/** The groups an event concerns: active, asking for the alert, following its merchant and channel. */
function follows(e: { merchantId?: number | null; channelId?: number | null }): SQL {
  // A dimension the event does not have (a settlement has no channel) filters nothing.
  const merchant =
    e.merchantId == null
      ? sql`true`
      : sql`(cardinality(${telegramGroups.merchantIds}) = 0 or ${e.merchantId}::int = any(${telegramGroups.merchantIds}))`;
  const channel =
    e.channelId == null
      ? sql`true`
      : sql`(cardinality(${telegramGroups.channelIds}) = 0 or ${e.channelId}::int = any(${telegramGroups.channelIds}))`;
  return sql`${telegramGroups.status} = 'active' and ${merchant} and ${channel}`;
}

async function record(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  rows: { groupId: number; alert: TelegramAlertKind; dedupeKey: string; text: string }[],
): Promise<number> {
  if (!rows.length) return 0;
  const now = deps.clock.now();
  const saved = await tx
    .insert(telegramDeliveries)
    .values(rows.map((r) => ({ ...r, nextAttemptAt: now, createdAt: now })))
    .onConflictDoNothing()
    .returning({ id: telegramDeliveries.id });
  return saved.length;
}

/** Records an event's alert for every group that wants it, in the caller's transaction. */
async function enqueueEvent(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  e: {
    alert: 'callbackGaveUp' | 'settlementApplied' | 'nearThreshold' | 'statementFeed';
    merchantId: number | null;
    channelId?: number | null;
    dedupeKey: string;
    text: string;
  },
): Promise<void> {
  const groups = await tx
    .select({ id: telegramGroups.id })
    .from(telegramGroups)
    .where(and(follows(e), sql`(${telegramGroups.alerts} ->> ${e.alert}) = 'true'`));
  await record(
    deps,
    tx,
    groups.map((g) => ({ groupId: g.id, alert: e.alert, dedupeKey: e.dedupeKey, text: e.text })),
  );
}

/** A merchant callback the schedule gave up on (or whose receiver is gone): called where it gives up. */
export async function alertCallbackGaveUp(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  event: { id: number; merchantId: number; orderType: string; orderId: number; type: string },
  attempts: number,
  httpStatus: number | null,
): Promise<void> {
  const table =
    event.orderType === 'payin' ? payinOrders : event.orderType === 'payout' ? payoutOrders : undefined;
  const [order] = table
    ? await tx
        .select({ no: table.orderNo, channelId: table.channelId })
        .from(table)
        .where(eq(table.id, event.orderId))
    : await tx
        .select({ no: settlements.settlementNo, channelId: sql<number | null>`null` })
        .from(settlements)
        .where(eq(settlements.id, event.orderId));
  const [m] = await tx
    .select({ code: merchants.code })
    .from(merchants)
    .where(eq(merchants.id, event.merchantId));
  await enqueueEvent(deps, tx, {
    alert: 'callbackGaveUp',
    merchantId: event.merchantId,
    channelId: order?.channelId ?? null,
    dedupeKey: `callbackGaveUp:${event.id}`,
    text: alertText('callbackGaveUp', {
      merchant: m?.code ?? event.merchantId,
      type: event.type,
      no: order?.no ?? event.orderId,
      attempts,
      status: httpStatus ?? '-',
    }),
  });
}

/** A settlement a merchant (or the platform for it) applied for: called where the application is made. */
export async function alertSettlementApplied(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  s: { id: number; settlementNo: string; merchantId: number; amount: number; currency: string; type: string },
  merchantCode: string,
): Promise<void> {
  await enqueueEvent(deps, tx, {
    alert: 'settlementApplied',
    merchantId: s.merchantId,
    dedupeKey: `settlementApplied:${s.settlementNo}`,
    text: alertText('settlementApplied', {
      no: s.settlementNo,
      merchant: merchantCode,
      amount: formatMinor(s.amount),
      currency: s.currency,
      type: s.type,
    }),
  });
}

/**
 * A decision taken alone just below the maker–checker threshold, by a user or on a wallet that took
 * another such within the week (server/modules/approval/doors.ts): called where the decision is recorded.
 */
export async function alertNearThreshold(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  d: {
    door: string;
    userId: number;
    wallet: string;
    ref: string;
    amount: number;
    threshold: number;
    count: number;
  },
): Promise<void> {
  const [u] = await tx.select({ username: users.username }).from(users).where(eq(users.id, d.userId));
  const merchant = /^merchant:(\d+):/.exec(d.wallet);
  await enqueueEvent(deps, tx, {
    alert: 'nearThreshold',
    merchantId: merchant ? Number(merchant[1]) : null,
    dedupeKey: `nearThreshold:${d.door}:${d.ref}:${d.userId}`,
    text: alertText('nearThreshold', {
      user: u?.username ?? d.userId,
      amount: formatMinor(d.amount),
      door: d.door,
      ref: d.ref,
      wallet: d.wallet,
      count: d.count,
      threshold: formatMinor(d.threshold),
    }),
  });
}

/**
 * A receiving account's bank feed cannot be read, or refused a file (server/modules/statementFeed): called
 * where the failure is recorded, with the event's name (the caller rate-limits what it names).
 */
export async function alertStatementFeed(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  e: { dedupeKey: string; account: string; problem: string },
): Promise<void> {
  await enqueueEvent(deps, tx, {
    alert: 'statementFeed',
    merchantId: null,
    dedupeKey: e.dedupeKey,
    text: alertText('statementFeed', { account: e.account, problem: e.problem }),
  });
}

/** `p.merchant_id in (…)` for a group following some merchants; nothing for one following all. */
const within = (column: SQL, ids: readonly number[]) =>
  ids.length
    ? sql`and ${column} in (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )})`
    : sql``;

/** New alerts per group and kind per check: a channel outage must not queue thousands at once. */
const perCheck = 20;

/** Records what a periodic check found for group `g`: one alert a finding, its text the alert's message. */
function recordFound(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  g: Group,
  alert: TelegramAlertKind,
  found: readonly { dedupeKey: string; params: Record<string, unknown> }[],
): Promise<number> {
  return record(
    deps,
    tx,
    found.map((f) => ({ groupId: g.id, alert, dedupeKey: f.dedupeKey, text: alertText(alert, f.params) })),
  );
}

async function stuckPayouts(deps: Pick<Deps, 'clock'>, tx: Db, g: Group, minutes: number, now: Date) {
  const cutoff = new Date(now.getTime() - minutes * 60_000).toISOString();
  // Under way as equalities (inStates): each is read through its partial index on status. An IN list
  // implies none of them, and the planner then read every payout, once a minute per group.
  const rows = rowsOf<{ no: string; status: string; amount: number; currency: string; merchant: string }>(
    await tx.execute(sql`
      select p.order_no as no, p.status, p.amount::bigint as amount, p.currency, m.code as merchant
      from payout_orders p join merchants m on m.id = p.merchant_id
      where ${inStates(sql`p.status`, payout.sets.underWay)}
        and p.created_at < ${cutoff}::timestamptz
        ${within(sql`p.merchant_id`, g.merchantIds)} ${within(sql`p.channel_id`, g.channelIds)}
        and not exists (select 1 from telegram_deliveries d
          where d.group_id = ${g.id} and d.dedupe_key = 'payoutStuck:' || p.order_no)
      order by p.created_at limit ${perCheck}`),
  );
  return recordFound(
    deps,
    tx,
    g,
    'payoutStuck',
    rows.map((r) => ({
      dedupeKey: `payoutStuck:${r.no}`,
      params: {
        no: r.no,
        merchant: r.merchant,
        status: r.status,
        minutes,
        amount: formatMinor(Number(r.amount)),
        currency: r.currency,
      },
    })),
  );
}

async function lowPayoutBalances(deps: Pick<Deps, 'clock'>, tx: Db, g: Group, floor: number, now: Date) {
  const rows = rowsOf<{ id: number; code: string; balance: number; currency: string; day: string }>(
    await tx.execute(sql`
      select m.id, m.code, a.balance::bigint as balance, a.currency,
        to_char(${now.toISOString()}::timestamptz at time zone ${storedZone}, 'YYYY-MM-DD') as day
      from ledger_accounts a join merchants m on m.id = a.owner_id
      where a.owner_type = 'merchant' and a.kind = 'payout_available' and a.balance < ${floor}
        and m.status = 'active' ${within(sql`m.id`, g.merchantIds)}
      order by m.id limit ${perCheck}`),
  );
  return recordFound(
    deps,
    tx,
    g,
    'payoutBalance',
    rows.map((r) => ({
      // Once a business day per merchant: a wallet that stays low is said again the next day.
      dedupeKey: `payoutBalance:${r.id}:${r.day}`,
      params: {
        merchant: r.code,
        balance: formatMinor(Number(r.balance)),
        floor: formatMinor(floor),
        currency: r.currency,
      },
    })),
  );
}

/** Pay-ins a channel must have decided in the last hour before its success rate means anything. */
export const channelRateMinimumOrders = 20;

async function fallingChannels(deps: Pick<Deps, 'clock'>, tx: Db, g: Group, floorPct: number, now: Date) {
  const since = new Date(now.getTime() - 3600_000).toISOString();
  // Decided pay-ins only: one still pending is neither a success nor a failure yet.
  const rows = rowsOf<{ id: number; code: string; paid: number; total: number }>(
    await tx.execute(sql`
      select c.id, c.code, (count(*) filter (where p.status in (${statesSql(payin.sets.succeeded)})))::int as paid,
        count(*)::int as total
      from payin_orders p join channels c on c.id = p.channel_id
      where p.created_at >= ${since}::timestamptz and p.created_at < ${now.toISOString()}::timestamptz
        and p.status in (${statesSql(payin.sets.ended)})
        ${within(sql`p.merchant_id`, g.merchantIds)} ${within(sql`p.channel_id`, g.channelIds)}
      group by c.id, c.code
      having count(*) >= ${channelRateMinimumOrders}`),
  );
  const hour = now.toISOString().slice(0, 13);
  return recordFound(
    deps,
    tx,
    g,
    'channelRate',
    rows
      .filter((r) => r.paid * 100 < floorPct * r.total)
      .map((r) => ({
        dedupeKey: `channelRate:${r.id}:${hour}`,
        params: {
          channel: r.code,
          rate: ((r.paid * 100) / r.total).toFixed(1),
          paid: r.paid,
          total: r.total,
          floor: floorPct,
        },
      })),
  );
}

/** How long before an open dispute's deadline each alert is said (the last at the deadline itself). */
export const disputeAlertStages = [
  { stage: '48h', beforeMs: 48 * 3_600_000 },
  { stage: '4h', beforeMs: 4 * 3_600_000 },
  { stage: 'due', beforeMs: 0 },
] as const;

/**
 * Open disputes whose deadline is within 48 hours: each stage it reached is said once (the nearest one
 * reached only, so a case opened 3 hours before its deadline says "4h" and later "due", never "48h").
 */
async function disputeDeadlines(deps: Pick<Deps, 'clock'>, tx: Db, g: Group, now: Date) {
  const horizon = new Date(now.getTime() + disputeAlertStages[0].beforeMs).toISOString();
  const rows = rowsOf<{
    no: string;
    kind: string;
    amount: number;
    currency: string;
    merchant: string;
    deadline: Date | string;
  }>(
    await tx.execute(sql`
      select d.dispute_no as no, d.kind, d.amount::bigint as amount, d.currency, m.code as merchant, d.deadline
      from disputes d join merchants m on m.id = d.merchant_id
      where ${inStates(sql`d.status`, dispute.sets.open)} and d.deadline <= ${horizon}::timestamptz ${within(sql`d.merchant_id`, g.merchantIds)}
      order by d.deadline limit ${perCheck}`),
  );
  const found = rows.flatMap((r) => {
    const left = new Date(r.deadline).getTime() - now.getTime();
    const reached = disputeAlertStages.filter((s) => left <= s.beforeMs).at(-1);
    if (!reached) return [];
    return [
      {
        dedupeKey: `disputeDeadline:${r.no}:${reached.stage}`,
        params: {
          no: r.no,
          merchant: r.merchant,
          kind: r.kind,
          amount: formatMinor(Number(r.amount)),
          currency: r.currency,
          deadline: new Date(r.deadline).toISOString().slice(0, 16).replace('T', ' '),
          left: reached.stage === 'due' ? 'now' : reached.stage,
        },
      },
    ];
  });
  return recordFound(deps, tx, g, 'disputeDeadline', found);
}

/**
 * The periodic check (once a minute): stuck payouts, low payout wallets, falling channels and dispute
 * deadlines, for each active group by its own thresholds. Answers how many alerts it recorded.
 */
export async function runTelegramChecks(deps: Pick<Deps, 'clock' | 'database'>): Promise<number> {
  const db = deps.database.db;
  const groups = await db.select().from(telegramGroups).where(eq(telegramGroups.status, 'active'));
  const now = deps.clock.now();
  let n = 0;
  for (const g of groups) {
    const a: TelegramAlerts = g.alerts;
    if (a.payoutStuckMinutes) n += await stuckPayouts(deps, db, g, a.payoutStuckMinutes, now);
    if (a.payoutBalanceFloor != null) n += await lowPayoutBalances(deps, db, g, a.payoutBalanceFloor, now);
    if (a.channelSuccessFloorPct) n += await fallingChannels(deps, db, g, a.channelSuccessFloorPct, now);
    if (a.disputeDeadline) n += await disputeDeadlines(deps, db, g, now);
  }
  return n;
}

/** A test message to one group, recorded like an alert (each test is its own event). */
export async function enqueueTest(deps: Pick<Deps, 'clock'>, tx: Db, g: Group): Promise<number> {
  const now = deps.clock.now();
  const [row] = await tx
    .insert(telegramDeliveries)
    .values({
      groupId: g.id,
      alert: 'test',
      dedupeKey: `test:${now.getTime()}:${Math.random().toString(36).slice(2, 10)}`,
      text: alertText('test', { name: g.name }),
      nextAttemptAt: now,
      createdAt: now,
    })
    .returning({ id: telegramDeliveries.id });
  return row!.id;
}
