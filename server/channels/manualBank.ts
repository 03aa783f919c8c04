/**
 * A manual bank channel: payouts an operator sends from the platform's own bank account on a withdrawal
 * slip (server/modules/slip). It accepts every payout at once (`processing`, its channel order id our
 * payout number) and never reports an outcome by itself: marking the payout's slip line withdrawn
 * settles it as a success, with the bank's reference. It carries no pay-ins.
 */
import { type ChannelAdapter, ChannelRefused } from './adapter.ts';

/** The adapter's name in `channels.adapter`. */
export const manualBankAdapterName = 'manual_bank';

export const manualBankAdapter: ChannelAdapter = {
  async createPayin() {
    throw new ChannelRefused('a manual bank channel carries no pay-ins');
  },
  async createPayout(_ctx, payout) {
    return { channelOrderId: payout.orderNo };
  },
  // It keeps no books: a payout not recorded as accepted was never received, and sending it again
  // books nothing twice (it is only accepted again).
  async queryPayout() {
    return { found: false, definitive: true };
  },
  async findUtr() {
    return null;
  },
};
