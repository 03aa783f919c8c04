import * as z from 'zod/mini';
import { type Endpoint, endpoint } from '../endpoint.ts';
import {
  approval,
  callback,
  dispute,
  payout,
  recharge,
  settlement,
  slip,
  statementLine,
} from '../machines.ts';
import { moneyOut } from '../money.ts';
import { id } from '../schemas.ts';
import { approvalEndpoints } from './approval.ts';
import { disputeEndpoints } from './dispute.ts';
import { merchantOrder, merchantPayout, merchantRechargeLog } from './orders.ts';
import { riskRules } from './risk.ts';
import { settlementQuery } from './settlement.ts';
import { withdrawalSlip } from './slip.ts';
import { statement } from './statement.ts';

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

/** One queue of work waiting for a person: who may see it and which rows it counts. */
interface QueueDeclaration {
  /**
   * The list it links into: the queue is counted for a caller who may call one of these (and within the
   * caller's tenancy); for anyone else it is null. A platform-only list keeps a merchant user out.
   */
  needs: readonly Endpoint[];
  /** The states of its rows that wait (the server's count and the console's link filter read them). */
  states: readonly string[];
}

/**
 * The dashboard's queues, in the panel's order: each counted by the server (`dashboard.summary`'s and
 * `dashboard.queues`' `queues`) through a partial index of its waiting rows, and shown by the console
 * (the panel, the palette) with the link declared beside its key in `commands/queues.ts`.
 */
export const dashboardQueues = {
  /** Callbacks the schedule gave up on, for orders (the queue links into the order lists). */
  callbacksGaveUp: {
    needs: [merchantOrder.list, merchantPayout.list],
    states: [callback.state.gave_up],
  },
  payoutsQueued: { needs: [merchantPayout.list], states: payoutQueueStates.payoutsQueued },
  payoutsProcessing: { needs: [merchantPayout.list], states: payoutQueueStates.payoutsProcessing },
  /** Payouts whose hand-over to the channel had an unclear outcome: a person resolves each. */
  payoutsNeedReview: { needs: [merchantPayout.list], states: payoutQueueStates.payoutsNeedReview },
  rechargesPending: { needs: [merchantRechargeLog.list], states: recharge.from('confirm') },
  /** Applications waiting for the platform's confirmation (the real-time queue's first step). */
  settlementsToConfirm: { needs: [settlementQuery.list], states: settlement.from('confirm') },
  /** Confirmed applications waiting to be paid out and completed. */
  settlementsToComplete: { needs: [settlementQuery.list], states: settlement.from('complete') },
  /** Maker–checker requests waiting for a second platform user. */
  approvalsPending: { needs: [approvalEndpoints.list], states: approval.from('approve') },
  /** Statement lines waiting for a person: to post, proposed, or exceptions (the exception queue). */
  statementExceptions: { needs: [statement.exceptions], states: statementLine.sets.open },
  /** Withdrawal slips at the bank: lines still to be marked withdrawn (or dropped). */
  slipsToWithdraw: { needs: [withdrawalSlip.list], states: slip.from('withdraw') },
  /** Disputes still open (their amounts held from the merchants), and of those the ones past their deadline. */
  disputesOpen: { needs: [disputeEndpoints.list], states: dispute.sets.open },
  disputesOverdue: { needs: [disputeEndpoints.list], states: dispute.sets.open },
} as const satisfies Record<string, QueueDeclaration>;

export type DashboardQueue = keyof typeof dashboardQueues;

/** Each queue's count; null for a caller who may not see it. */
const queueCounts = z.object(
  Object.fromEntries(Object.keys(dashboardQueues).map((k) => [k, z.nullable(z.number())])) as {
    [K in DashboardQueue]: z.ZodMiniNullable<z.ZodMiniNumber>;
  },
);

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

const summaryGrants = {
  platform: ['operator', 'finance'],
  merchant: ['finance', 'operator', 'developer'],
} as const;

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
    grants: summaryGrants,
    /** One merchant's figures: a platform user's pick; a merchant user's own (another is 404). */
    input: z.object({ merchantId: z.optional(id) }),
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
      /** Work that needs a person, each a count behind a link into the filtered list (`dashboardQueues`). */
      queues: queueCounts,
      /** Requests the risk rules refused today, by rule (only rules that refused), most first. */
      riskRefusals: z.array(z.object({ rule: z.enum(riskRules), count: z.number() })),
    }),
  }),
  /** The queues alone, as the summary counts them: what the palette offers with its live counts. */
  queues: endpoint({
    method: 'GET',
    path: '/dashboard/queues',
    caller: 'both',
    grants: summaryGrants,
    input: z.object({}),
    output: queueCounts,
  }),
};
