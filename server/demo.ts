/**
 * The demo workspace (first start with the embedded database, or DEMO=1): an agent, three merchants with
 * their owners, recharges, wallet transfers, and about 30 days of pay-ins and payouts in every state, so
 * a newcomer signs in to a business that looks alive.
 *
 * Everything happens in one transaction on an empty workspace (no merchant yet): the seed is all or
 * nothing, and a second start finds the merchants and does nothing. Time is a copy of the deps whose
 * clock walks the 30 days step by step, so every created, paid and completed time is where a live
 * system would have written it.
 *
 * The parts, in server/demo/: the business (who and how much), the seed's shared timeline (seed.ts), the
 * merchants, their wallets (recharges, transfers), pay-ins, payouts and callbacks. A representative part
 * of the orders (every special case, the last hours, and a sample of the rest) goes through the real
 * services; the bulk of ordinary orders is written by the bulk writer (demo/writer.ts), whose money goes
 * through the ledger's bulk path like every other balance. Callback history is written as the worker
 * would have left it: delivered, given up, or still retrying on the schedule, plus a few from the last
 * minutes that the worker delivers right after the start.
 */
import { inArray, sql } from 'drizzle-orm';
import { type Db, inTransaction } from './db/index.ts';
import {
  merchants,
  payinOrders,
  payoutOrders,
  recharges,
  systemMemos,
  users,
  webhookEvents,
} from './db/schema.ts';
import {
  demoAgent,
  demoFinanceUser,
  demoMerchantSpecs,
  demoOperatorUser,
  demoPlatformUsers,
  demoUsernames,
} from './demo/business.ts';
import { settleQueuedCallbacks } from './demo/callbacks.ts';
import { openDisputes } from './demo/disputes.ts';
import { openFreeze } from './demo/freeze.ts';
import { openMerchants, scheduleReceiversDown } from './demo/merchants.ts';
import { type LostCallback, planPayins, schedulePayins } from './demo/payins.ts';
import { planPayouts, schedulePayouts } from './demo/payouts.ts';
import { openReceiving } from './demo/receiving.ts';
import { openRefunds } from './demo/refunds.ts';
import { openRiskRules } from './demo/risk.ts';
import { openSeed } from './demo/seed.ts';
import { openPlatformUser, scheduleSettlements, scheduleTnRuns } from './demo/settlements.ts';
import { scheduleRecharges, scheduleTransfers } from './demo/wallets.ts';
import type { Deps } from './deps.ts';
import { businessTimeZoneOf, rebuildOrderStats } from './modules/dashboard/stats.ts';

export { demoCallbackUrls, mountDemoSink } from './demo/callbacks.ts';
export { demoAgent, demoFinanceUser, demoMerchantSpecs, demoOperatorUser, demoPlatformUsers, demoUsernames };

export interface DemoAccount {
  merchant: string;
  name: string;
  username: string;
  password: string;
  /** What is particular about this merchant, for the first-start banner. */
  note: string;
}

export interface DemoSeed {
  accounts: DemoAccount[];
  /** Payments the simulator recorded whose callback was lost: try UTR check, then Supplement. */
  lostCallbacks: LostCallback[];
  counts: {
    payins: Record<string, number>;
    payouts: Record<string, number>;
    recharges: Record<string, number>;
    transfers: number;
    callbacks: Record<string, number>;
    realPayins: number;
    realPayouts: number;
  };
  ms: number;
}

/**
 * Seeds the demo workspace if the workspace is empty (no merchant, none of the demo usernames); answers
 * what it made, or null when there was something already. One transaction: all or nothing.
 */
export async function seedDemo(deps: Deps, opts: { seed?: number } = {}): Promise<DemoSeed | null> {
  const started = performance.now();
  const result = await inTransaction(deps.database.db, async (tx) => {
    const [anyMerchant] = await tx.select({ id: merchants.id }).from(merchants).limit(1);
    if (anyMerchant) return null;
    const [taken] = await tx
      .select({ id: users.id })
      .from(users)
      .where(inArray(users.username, demoUsernames))
      .limit(1);
    if (taken) return null;
    const seeded = await seedInto(deps, tx as unknown as Db, opts.seed ?? 20_260_105);
    // Most orders were written in bulk past the services: the order stats are made from them once.
    await rebuildOrderStats(tx as unknown as Db, businessTimeZoneOf(deps.config));
    await seedNotices(deps, tx as unknown as Db);
    return seeded;
  });
  if (!result) return null;
  result.ms = Math.round(performance.now() - started);
  deps.logger.info(
    {
      ms: result.ms,
      payins: Object.values(result.counts.payins).reduce((s, n) => s + n, 0),
      payouts: Object.values(result.counts.payouts).reduce((s, n) => s + n, 0),
    },
    'demo workspace seeded',
  );
  return result;
}

/** The dashboard's notices (system memo): one pinned for the platform's staff, one for the merchants. */
async function seedNotices(deps: Deps, tx: Db) {
  const [admin] = await tx
    .select({ id: users.id })
    .from(users)
    .where(inArray(users.username, ['admin']));
  if (!admin) return;
  const at = deps.clock.now();
  await tx.insert(systemMemos).values([
    {
      title: 'Month-end close',
      body: 'Statements of every receiving account are imported by 10:00.\nThe exception queue is empty before the T+N run.',
      pinned: true,
      audience: 'platform',
      createdBy: admin.id,
      createdAt: at,
      updatedAt: at,
    },
    {
      title: 'Bank holiday on the 25th',
      body: 'Bank settlements applied on the 25th are paid the next working day; UPI collections run as usual.',
      pinned: false,
      audience: 'everyone',
      createdBy: admin.id,
      createdAt: at,
      updatedAt: at,
    },
  ]);
}

async function seedInto(deps: Deps, tx: Db, seedNumber: number): Promise<DemoSeed> {
  const seed = await openSeed(deps, tx, seedNumber);
  const ms = await openMerchants(seed);
  const finance = await openPlatformUser(seed, demoFinanceUser);
  const operator = await openPlatformUser(seed, demoOperatorUser);

  // The plan, drawn from the seeded generator; then its steps on the timeline, run in time order. The
  // order of these calls is the order of the draws: changing it changes the workspace.
  const arrivals = planPayins(seed, ms);
  const payouts = planPayouts(seed, ms);
  scheduleRecharges(seed, ms);
  scheduleTransfers(seed, ms);
  scheduleReceiversDown(seed, ms);
  const lost: LostCallback[] = [];
  schedulePayins(seed, arrivals, lost);
  schedulePayouts(seed, payouts);
  await scheduleTnRuns(seed);
  scheduleSettlements(seed, ms, finance);
  await seed.run();
  await openReceiving(seed, ms, { finance, operator });
  await openRefunds(seed, ms, finance);
  await openRiskRules(seed, ms, operator);
  await openFreeze(seed, ms, finance);
  await openDisputes(seed, ms, { finance, operator });

  await settleQueuedCallbacks(seed);
  // The simulator adapter stamps its books with database time; give them the time of their orders.
  await tx.execute(sql`
    update simulator_transactions s set created_at = o.created_at
    from payin_orders o where s.kind = 'payin' and o.channel_order_id = s.channel_order_id
      and s.created_at > o.created_at`);
  await tx.execute(sql`
    update simulator_transactions s set created_at = o.created_at
    from payout_orders o where s.kind = 'payout' and o.channel_order_id = s.channel_order_id
      and s.created_at > o.created_at`);

  // ---- what was made ----
  const countBy = async (q: Promise<{ k: string; n: number }[]>) =>
    Object.fromEntries((await q).map((r) => [r.k, Number(r.n)]));
  const n = sql<number>`count(*)::int`;
  const counts: DemoSeed['counts'] = {
    payins: await countBy(
      tx.select({ k: payinOrders.status, n }).from(payinOrders).groupBy(payinOrders.status),
    ),
    payouts: await countBy(
      tx.select({ k: payoutOrders.status, n }).from(payoutOrders).groupBy(payoutOrders.status),
    ),
    recharges: await countBy(tx.select({ k: recharges.status, n }).from(recharges).groupBy(recharges.status)),
    transfers: seed.counts.transfers,
    callbacks: await countBy(
      tx.select({ k: webhookEvents.status, n }).from(webhookEvents).groupBy(webhookEvents.status),
    ),
    realPayins: seed.counts.realPayins,
    realPayouts: seed.counts.realPayouts,
  };
  // Lost callbacks of the demo merchant first: its owner can try them.
  lost.sort((x, y) => (x.merchant === y.merchant ? 0 : x.merchant === 'M10001' ? -1 : 1));
  return {
    accounts: ms.map((m) => ({
      merchant: m.spec.code,
      name: m.spec.name,
      username: m.spec.owner.username,
      password: m.spec.owner.password,
      note: m.spec.note,
    })),
    lostCallbacks: lost,
    counts,
    ms: 0,
  };
}
