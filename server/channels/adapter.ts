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

/**
 * Thrown by an adapter when the channel clearly declines to create an order, before anything was sent
 * or booked there: routing tries the next channel. Anything else an adapter throws from `createPayout`
 * (a timeout, a reset connection, a 5xx) is an unclear outcome: the payout may exist at the channel.
 */
export class ChannelRefused extends Error {}

/**
 * What a payout call to a channel gets: no transaction handle. The call goes out while no transaction of
 * ours is open, so a slow or lost answer never holds locks, and its outcome is recorded afterwards.
 */
export interface ChannelCallContext {
  deps: Deps;
  channel: Channel;
}

/** A payout as handed to a channel. */
export interface PayoutInstruction {
  /**
   * The channel books one payout per key, however many times it is sent: a second send (after a lost
   * answer) answers the first booking. Our order number, with the hold number after a retry.
   */
  idempotencyKey: string;
  orderNo: string;
  amount: number;
  currency: string;
  accountName: string;
  accountNumber: string;
  ifsc: string;
}

/** What a channel says about a payout it was asked about by idempotency key. */
export type ChannelPayoutState =
  | {
      found: true;
      channelOrderId: string;
      /** `pending`: booked and under way at the channel. */
      status: 'pending' | 'success' | 'failed';
      utr?: string | null;
      reason?: string | null;
    }
  /**
   * `definitive`: the channel states it never received the key (it may be sent again); otherwise it could
   * not tell (a record still being written, a partial outage) and the payout is left for a person.
   */
  | { found: false; definitive: boolean };

/** A provider behind one interface: create orders there, and ask it about payments by UTR. */
export interface ChannelAdapter {
  createPayin(
    ctx: ChannelContext,
    order: { orderNo: string; merchantId: number; amount: number; currency: string; expiresAt: Date },
  ): Promise<{
    channelOrderId: string;
    payUrl: string;
    /** The receiving account a bank channel assigned the order to (its capacity reserved in `tx`). */
    receivingAccountId?: number;
    /**
     * A channel whose books are in this database (the simulator) gives the statement that books the order
     * there instead of running it: it runs in the statement that inserts our order, one round trip.
     */
    book?: { text: string; params: unknown[] };
  }>;
  /** Sends a payout; idempotent on `idempotencyKey`. Throws `ChannelRefused` only when nothing was booked. */
  createPayout(ctx: ChannelCallContext, payout: PayoutInstruction): Promise<{ channelOrderId: string }>;
  /** Asks the channel about the payout sent with `idempotencyKey`; throws when the channel cannot be asked. */
  queryPayout(ctx: ChannelCallContext, idempotencyKey: string): Promise<ChannelPayoutState>;
  findUtr(ctx: ChannelContext, utr: string): Promise<ChannelPayment | null>;
}
