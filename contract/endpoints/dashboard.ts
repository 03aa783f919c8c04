import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { payout } from '../machines.ts';
import { moneyOut } from '../money.ts';

/**
 * The payout states each of the dashboard's payout queues counts (and its link lists): those waiting
 * for a worker, those waiting for a person, and the rest of the orders under way (being handed to the
 * channel, or with it). Together they are `underWay`, each order in exactly one.
 */
export const payoutQueueStates = {
  payoutsQueued: payout.from('claim'),
  payoutsProcessing: payout.sets.underWay.filter(
    (s) => !payout.can('claim', s) && !payout.is('needsPerson', s),
  ),
  payoutsNeedReview: payout.sets.needsPerson,
} as const;

/** Figures of one kind of order over a period, per currency. */
const orderFigures = z.object({
  currency: z.string(),
  /** Orders created in the period (every state but the never-visible `creating`). */
  count: z.number(),
  /** Of those, paid (pay-ins) or successful (payouts). */
  successCount: z.number(),
  /** Orders that reached an end state (paid/success, failed, unpaid, creation failed): the rate's base. */
  finishedCount: z.number(),
  /** Amount of the successful orders (their order amounts, as the list's totals add them up). */
  amount: moneyOut,
  /**
   * Fees of the successful orders: for a platform user the platform's fee income (pay-in fees less the
   * agents' commission, plus payout fees, as the ledger books them); for a merchant user the fees it paid.
   */
  fee: moneyOut,
  /** successCount / finishedCount in parts per million; null when nothing finished. */
  successRatePpm: z.nullable(z.number()),
});

/**
 * Today, or the last 7 / 30 business days counting today. Days are calendar days in the business time
 * zone; orders count on the day they were created, so `from`..`to` on the list gives the same figures.
 */
const period = z.object({
  /** Start of the period (inclusive) and end (exclusive, the end of today), as instants. */
  from: z.string(),
  to: z.string(),
  payin: z.array(orderFigures),
  payout: z.array(orderFigures),
});

export const dashboard = {
  /**
   * The dashboard's figures, read from the order rollups (never a scan of the orders): a platform
   * user sees every merchant, a merchant user its own. Days are business days in the platform's
   * business time zone (`businessTimeZone`).
   */
  summary: endpoint({
    method: 'GET',
    path: '/dashboard/summary',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    input: z.object({}),
    output: z.object({
      businessTimeZone: z.string(),
      today: period,
      last7Days: period,
      last30Days: period,
      /** One row per business day of the last 30 (oldest first), for the chart. */
      daily: z.array(
        z.object({
          date: z.string(),
          currency: z.string(),
          payinCount: z.number(),
          payinSuccessCount: z.number(),
          payinAmount: moneyOut,
          payoutCount: z.number(),
          payoutSuccessCount: z.number(),
          payoutAmount: moneyOut,
          fee: moneyOut,
        }),
      ),
      /** Per channel over the last 7 days. */
      channels: z.array(
        z.object({
          channelId: z.number(),
          channelCode: z.string(),
          channelName: z.string(),
          payinCount: z.number(),
          payinSuccessCount: z.number(),
          payinFinishedCount: z.number(),
          successRatePpm: z.nullable(z.number()),
        }),
      ),
      /** Work that needs a person, each a count behind a link into the filtered list. */
      queues: z.object({
        callbacksGaveUp: z.number(),
        payoutsQueued: z.number(),
        payoutsProcessing: z.number(),
        /** Payouts whose hand-over to the channel had an unclear outcome: a person resolves each. */
        payoutsNeedReview: z.number(),
        /** null for users who may not see recharges. */
        rechargesPending: z.nullable(z.number()),
      }),
    }),
  }),
};
