/**
 * UTR checks: where a payment's UTR can be found. Today that is the channels (each adapter's `findUtr`);
 * imported bank statements join as a second source when they exist (`statementSource` below is the seam).
 * And the guard of every write of a UTR (supplements, channel payments), which must stay unique.
 */
import { eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { normalUtr } from '../../../contract/schemas.ts';
import type { Channel, ChannelPayment } from '../../channels/adapter.ts';
import { adapterFor } from '../../channels/index.ts';
import { type Db, sqlState } from '../../db/index.ts';
import { payinOrders } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { channelUsable } from './routing.ts';

export interface UtrPayment extends Partial<Pick<ChannelPayment, 'channelOrderId' | 'orderNo'>> {
  source: 'channel' | 'statement';
  utr: string;
  amount: number;
  at: Date;
  account: string;
  /** The channel that reported it (channel source only). */
  channelId?: number;
}

export interface UtrSource {
  find(deps: Deps, tx: Db, utr: string, channels: readonly Channel[]): Promise<UtrPayment | null>;
}

/** Asks each given channel's adapter. */
export const channelSource: UtrSource = {
  async find(deps, tx, utr, channels) {
    for (const channel of channels) {
      // The simulator's books prove no payment while SIMULATOR is off: a supplement must not credit one.
      if (!channelUsable(deps, channel)) continue;
      const hit = await adapterFor(channel.adapter).findUtr({ deps, tx, channel }, utr);
      if (hit) return { ...hit, source: 'channel', channelId: channel.id };
    }
    return null;
  },
};

/**
 * Imported bank statements: not built yet. When statement import exists, this looks the UTR up in the
 * imported lines (amount, time, account) and answers `source: 'statement'`.
 */
export const statementSource: UtrSource = {
  async find() {
    return null;
  },
};

/** The sources a UTR check consults, in order; the first that knows the UTR answers. */
export const utrSources: UtrSource[] = [channelSource, statementSource];

export async function findPayment(
  deps: Deps,
  tx: Db,
  utr: string,
  channels: readonly Channel[],
): Promise<UtrPayment | null> {
  for (const source of utrSources) {
    const hit = await source.find(deps, tx, utr, channels);
    if (hit) return hit;
  }
  return null;
}

/** The order that already carries this UTR (in its normal form, as every order stores it), if any. */
export async function orderUsingUtr(tx: Db, utr: string) {
  const [row] = await tx
    .select({ id: payinOrders.id, orderNo: payinOrders.orderNo, merchantId: payinOrders.merchantId })
    .from(payinOrders)
    .where(eq(payinOrders.utr, normalUtr(utr)));
  return row;
}

/** Sets a UTR on an order; the unique index settles a race for the same UTR. */
export async function withUtrGuard<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (sqlState(err) === '23505') throw new AppError(errno.utrUsed);
    throw err;
  }
}
