/** Which channel a pay-in goes to: the merchant's active routes that take the amount, tried in weighted order. */

import { and, eq, sql } from 'drizzle-orm';
import type { Channel } from '../../channels/adapter.ts';
import type { Db } from '../../db/index.ts';
import { channels, merchantChannels, parameters } from '../../db/schema.ts';

export interface Route {
  channel: Channel;
  weight: number;
}

/**
 * Routes able to carry `amount` (optionally only the channel named by code): the merchant's enabled routes
 * to active channels, as `routesOf` reads them. The pay-in expiry parameter comes with them, in the same
 * round trip (creation needs both; undefined when the merchant has no route).
 */
export async function candidateRoutes(
  tx: Db,
  merchantId: number,
  amount: number,
  channelCode?: string,
): Promise<{ routes: Route[]; expiryParameter: unknown }> {
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
        eq(merchantChannels.merchantId, merchantId),
        eq(merchantChannels.enabled, true),
        eq(channels.status, 'active'),
      ),
    );
  const routes = rows
    .filter(
      (r) =>
        r.channel.supportsPayin &&
        r.weight > 0 &&
        amount >= r.channel.minAmount &&
        amount <= r.channel.maxAmount &&
        (channelCode === undefined || r.channel.code === channelCode),
    )
    .sort((a, b) => a.channel.id - b.channel.id)
    .map((r) => ({ channel: r.channel, weight: r.weight }));
  const expiry = rows[0]?.expiry;
  return { routes, expiryParameter: typeof expiry === 'string' ? JSON.parse(expiry) : expiry };
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
