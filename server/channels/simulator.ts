/**
 * The built-in simulator channel: an in-process "bank" with its own books (simulator_transactions),
 * so the whole money flow runs on one machine. Orders are settled by the simulator endpoints (the
 * simulated users screen) or automatically at the channel's success rate; a settled payment can lose
 * its callback to us, leaving a UTR for a UTR check and a supplement to find.
 */
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { simulatorTransactions } from '../db/schema.ts';
import { type ChannelAdapter, ChannelRefused } from './adapter.ts';

export interface SimulatorSettings {
  auto: boolean;
  successRate: number;
  delayMs: number;
  lostCallbackRate: number;
  /** Share (0–100) of creations the simulator declines, to exercise routing to the next channel. */
  refuseRate: number;
}

export function simulatorSettings(raw: Record<string, unknown>): SimulatorSettings {
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) ? v : d);
  return {
    auto: raw.auto === true,
    successRate: num(raw.successRate, 90),
    delayMs: num(raw.delayMs, 2000),
    lostCallbackRate: num(raw.lostCallbackRate, 0),
    refuseRate: num(raw.refuseRate, 0),
  };
}

const channelOrderId = (prefix: string) =>
  `${prefix}${Date.now().toString(36).toUpperCase()}${randomBytes(4).toString('hex').toUpperCase()}`;

/** A UTR as Indian banks print them: 12 digits. */
export const newUtr = () => String(100_000_000_000 + Math.floor(Math.random() * 899_999_999_999));

/** The simulator's payout order id: one per idempotency key. */
const payoutChannelOrderId = (idempotencyKey: string) => `SIMO${idempotencyKey}`;

const insertPayinSql = `insert into simulator_transactions (channel_order_id, kind, order_no, amount, status)
  values ($1, 'payin', $2, $3, 'pending')`;

export const simulatorAdapter: ChannelAdapter = {
  async createPayin({ channel }, order) {
    if (Math.random() * 100 < simulatorSettings(channel.settings).refuseRate)
      throw new ChannelRefused('simulator declined');
    const id = channelOrderId('SIMP');
    // Booked by the statement that inserts the order (`book`): one round trip on every simulated creation.
    return {
      channelOrderId: id,
      payUrl: `/sim/pay/${order.orderNo}`,
      book: { text: insertPayinSql, params: [id, order.orderNo, order.amount] },
    };
  },
  // Its books are in this database: each booking is one statement of its own (never in a transaction of
  // the caller's, as a remote channel's would not be), keyed by a channel order id made from the
  // idempotency key, so the unique channel order id books a payout once however often it is sent.
  async createPayout({ deps, channel }, payout) {
    const db = deps.database.db;
    const id = payoutChannelOrderId(payout.idempotencyKey);
    const [booked] = await db
      .select({ id: simulatorTransactions.id })
      .from(simulatorTransactions)
      .where(eq(simulatorTransactions.channelOrderId, id));
    // A payout sent again answers its booking: a refusal now would misstate what the channel holds.
    if (booked) return { channelOrderId: id };
    if (Math.random() * 100 < simulatorSettings(channel.settings).refuseRate)
      throw new ChannelRefused('simulator declined');
    await db
      .insert(simulatorTransactions)
      .values({
        channelOrderId: id,
        kind: 'payout',
        orderNo: payout.orderNo,
        amount: payout.amount,
        status: 'pending',
        account: `${payout.accountName} ${payout.accountNumber} ${payout.ifsc}`,
      })
      .onConflictDoNothing({ target: simulatorTransactions.channelOrderId });
    return { channelOrderId: id };
  },
  // Definitive when absent: a booking is one committed statement, so what is not there was never booked.
  async queryPayout({ deps }, idempotencyKey) {
    const [row] = await deps.database.db
      .select()
      .from(simulatorTransactions)
      .where(
        and(
          eq(simulatorTransactions.channelOrderId, payoutChannelOrderId(idempotencyKey)),
          eq(simulatorTransactions.kind, 'payout'),
        ),
      );
    if (!row) return { found: false, definitive: true };
    return {
      found: true,
      channelOrderId: row.channelOrderId,
      status: row.status === 'fail' ? 'failed' : row.status,
      utr: row.utr,
      reason: row.status === 'fail' ? 'Declined by the simulator bank' : null,
    };
  },
  async findUtr({ tx }, utr) {
    const [row] = await tx
      .select()
      .from(simulatorTransactions)
      .where(
        and(
          eq(simulatorTransactions.utr, utr),
          eq(simulatorTransactions.kind, 'payin'),
          eq(simulatorTransactions.status, 'success'),
        ),
      );
    if (!row) return null;
    return {
      utr,
      amount: row.amount,
      at: row.settledAt ?? row.createdAt,
      account: row.account,
      channelOrderId: row.channelOrderId,
      orderNo: row.orderNo,
    };
  },
};
