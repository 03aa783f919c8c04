/**
 * The bank channel: pay-ins collected into the receiving accounts bound to it (public accounts and donor
 * cards, server/modules/receiving). Creating a pay-in picks an eligible account by weight and reserves its
 * daily capacity in the caller's transaction (nothing is called outside this database); the payer is sent
 * to this server's pay page. It refuses (`ChannelRefused`) when no account can take the order, so creation
 * goes on to the next channel. It carries no payouts, and knows of no payment by itself: orders are proved
 * paid by bank statements or an operator.
 */
import { assignAccount } from '../modules/receiving/capacity.ts';
import { type ChannelAdapter, ChannelRefused } from './adapter.ts';

/** The adapter's name in `channels.adapter`. */
export const bankAdapterName = 'bank';

export const bankAdapter: ChannelAdapter = {
  async createPayin({ deps, tx, channel }, order) {
    const accountId = await assignAccount(tx, {
      channelId: channel.id,
      merchantId: order.merchantId,
      amount: order.amount,
      now: deps.clock.now(),
    });
    if (accountId === null) throw new ChannelRefused('no receiving account can take the order');
    return { channelOrderId: order.orderNo, payUrl: `/pay/${order.orderNo}`, receivingAccountId: accountId };
  },
  async createPayout() {
    throw new ChannelRefused('a bank channel carries no payouts');
  },
  async queryPayout() {
    return { found: false, definitive: true };
  },
  async findUtr() {
    return null;
  },
};
