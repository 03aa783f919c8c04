import type { Db } from '../db/index.ts';
import type { channels } from '../db/schema.ts';
import type { Deps } from '../deps.ts';

export type Channel = typeof channels.$inferSelect;

export interface ChannelContext {
  deps: Deps;
  tx: Db;
  channel: Channel;
}

/** A payment the channel saw, as a UTR check reports it. */
export interface ChannelPayment {
  utr: string;
  amount: number;
  at: Date;
  account: string;
  channelOrderId: string;
  /** Our order number the channel recorded it against. */
  orderNo: string;
}

/** Thrown by an adapter when the channel declines to create an order: routing tries the next channel. */
export class ChannelRefused extends Error {}

/** A provider behind one interface: create orders there, and ask it about payments by UTR. */
export interface ChannelAdapter {
  createPayin(
    ctx: ChannelContext,
    order: { orderNo: string; amount: number; currency: string; expiresAt: Date },
  ): Promise<{
    channelOrderId: string;
    payUrl: string;
    /**
     * A channel whose books are in this database (the simulator) gives the statement that books the order
     * there instead of running it: it runs in the statement that inserts our order, one round trip.
     */
    book?: { text: string; params: unknown[] };
  }>;
  createPayout(
    ctx: ChannelContext,
    order: {
      orderNo: string;
      amount: number;
      currency: string;
      accountName: string;
      accountNumber: string;
      ifsc: string;
    },
  ): Promise<{ channelOrderId: string }>;
  findUtr(ctx: ChannelContext, utr: string): Promise<ChannelPayment | null>;
}
