/** Which channel a pay-in goes to: the merchant's active routes that take the amount, tried in weighted order. */

import { and, eq, ne, type SQL, sql } from 'drizzle-orm';
import type { Channel } from '../../channels/adapter.ts';
import { simulatorOn } from '../../config.ts';
import { type Db, whenCommitted } from '../../db/index.ts';
import { agents, channels, merchantChannels, parameters } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { FeedKept } from '../../lib/feedKept.ts';

/**
 * Whether a channel may carry orders at all (pay-ins, payouts, UTR look-ups): the simulator settles
 * without a bank, so it carries them only while SIMULATOR is on (`simulatorOn`).
 */
export function channelUsable(
  deps: Pick<Deps, 'config' | 'database'>,
  channel: { adapter: string },
): boolean {
  return channel.adapter !== 'simulator' || simulatorOn(deps.config, deps.database.engine);
}

/** `channelUsable` as a condition on `channels`, for queries that pick channels (undefined: all are). */
export function usableChannelsWhere(deps: Pick<Deps, 'config' | 'database'>): SQL | undefined {
  return simulatorOn(deps.config, deps.database.engine) ? undefined : ne(channels.adapter, 'simulator');
}

export interface Route {
  channel: Channel;
  weight: number;
}

/** What a creation needs to know of its merchant besides the merchant row. */
export interface CreationTerms {
  /** The merchant's enabled routes to active channels, by channel id (amounts not judged yet). */
  routes: Route[];
  /** The raw `payin_expiry_minutes` parameter (undefined when the merchant has no route). */
  expiryParameter: unknown;
  /** The agent's commission rate when the merchant has an active agent, else null. */
  agentCommissionPpm: number | null;
}

/** Per open database and merchant id: valid while the change feed stays at the version read. */
const kept = new FeedKept<number, CreationTerms>(10_000);

/**
 * The creation terms of a merchant. Every signed create needs them, and they change only through the
 * console: they are kept in memory while the change feed (server/db/index.ts) shows no change to
 * channels, merchant_channels, agents or parameters (nor any other watched table) since they were read,
 * so a console change applies to the very next creation in every server process. Routes through a
 * channel that may not carry orders (`channelUsable`) are left out.
 */
export async function creationTerms(
  deps: Pick<Deps, 'database' | 'config'>,
  tx: Db,
  merchant: { id: number; agentId: number | null },
): Promise<CreationTerms> {
  const terms = await keptTerms(deps, tx, merchant);
  // Judged on every read, not kept: the switch is configuration, which the change feed does not see.
  return terms.routes.every((r) => channelUsable(deps, r.channel))
    ? terms
    : { ...terms, routes: terms.routes.filter((r) => channelUsable(deps, r.channel)) };
}

async function keptTerms(
  deps: Pick<Deps, 'database'>,
  tx: Db,
  merchant: { id: number; agentId: number | null },
): Promise<CreationTerms> {
  const { database } = deps;
  const hit = kept.get(database, merchant.id);
  if (hit) return hit;
  const read = kept.mark(database);
  const rows = await tx
    .select({
      channel: channels,
      weight: merchantChannels.weight,
      expiry: sql<unknown>`(select ${parameters.value} from ${parameters} where ${parameters.key} = 'payin_expiry_minutes')`,
    })
    .from(merchantChannels)
    .innerJoin(channels, eq(channels.id, merchantChannels.channelId))
    .where(
      and(
        eq(merchantChannels.merchantId, merchant.id),
        eq(merchantChannels.enabled, true),
        eq(channels.status, 'active'),
      ),
    );
  const expiry = rows[0]?.expiry;
  let agentCommissionPpm: number | null = null;
  if (merchant.agentId !== null) {
    const [agent] = await tx.select().from(agents).where(eq(agents.id, merchant.agentId));
    if (agent?.status === 'active') agentCommissionPpm = agent.commissionPpm;
  }
  const terms: CreationTerms = {
    routes: rows
      .map((r) => ({ channel: r.channel, weight: r.weight }))
      .sort((a, b) => a.channel.id - b.channel.id),
    expiryParameter: typeof expiry === 'string' ? JSON.parse(expiry) : expiry,
    agentCommissionPpm,
  };
  // Kept once what was read is committed (the transaction may have changed them itself), and only if
  // nothing moved the feed meanwhile (a committed change of this transaction does, before this runs).
  whenCommitted(tx, () => kept.keep(database, merchant.id, terms, read));
  return terms;
}

/** Routes able to carry `amount` (optionally only the channel named by code), by channel id. */
export function routesFor(routes: readonly Route[], amount: number, channelCode?: string): Route[] {
  return routes.filter(
    (r) =>
      r.channel.supportsPayin &&
      r.weight > 0 &&
      amount >= r.channel.minAmount &&
      amount <= r.channel.maxAmount &&
      (channelCode === undefined || r.channel.code === channelCode),
  );
}

/**
 * A weighted random order without replacement: the first is picked with probability weight / total,
 * the next among the rest the same way, and so on. `random` returns [0, 1).
 */
export function weightedOrder<T extends { weight: number }>(items: readonly T[], random = Math.random): T[] {
  const rest = [...items];
  const out: T[] = [];
  while (rest.length) {
    const total = rest.reduce((s, r) => s + r.weight, 0);
    let x = random() * total;
    let i = 0;
    for (; i < rest.length - 1; i++) {
      x -= rest[i]!.weight;
      if (x < 0) break;
    }
    out.push(...rest.splice(i, 1));
  }
  return out;
}
