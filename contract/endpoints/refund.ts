/**
 * Refunds of paid pay-ins (docs/MONEY-BACK.md section 1): asked from the console (platform or the
 * merchant's own users, with the Google code and a reason) or the gateway, up to what was paid, paid out
 * by a payout order of their own from the merchant's collection balance.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { refund } from '../machines.ts';
import { amount, moneyOut } from '../money.ts';
import { actionReason, code6, cursorPaging, id, listOf, strictObject } from '../schemas.ts';
import { accountName, accountNumber, ifsc } from './payouts.ts';

export const refundStatus = z.enum(refund.states);
export const refundSource = z.enum(['console', 'api']);

/** Where the money goes: the payer's bank account (the payout rails carry accounts). */
export const refundPayee = z.strictObject({ accountName, accountNumber, ifsc });

export const refundRow = z.object({
  id: z.number(),
  /** Ours: `RF` + time + random digits. */
  refundNo: z.string(),
  /** The merchant's own (the gateway's `refundNo`); ours when asked from the console. */
  merchantRefundNo: z.string(),
  merchantId: z.number(),
  merchantCode: z.string(),
  payinId: z.number(),
  orderNo: z.string(),
  merchantOrderNo: z.string(),
  currency: z.string(),
  amount: moneyOut,
  status: refundStatus,
  reason: z.string(),
  accountName: z.string(),
  accountNumber: z.string(),
  ifsc: z.string(),
  source: refundSource,
  /** The payout that carries the money, once decided; its status and the bank's UTR. */
  payoutId: z.nullable(z.number()),
  payoutNo: z.nullable(z.string()),
  payoutStatus: z.nullable(z.string()),
  utr: z.nullable(z.string()),
  failureReason: z.nullable(z.string()),
  /** Who asked (null: the merchant's server, through the gateway); usernames for platform readers. */
  requestedBy: z.nullable(z.string()),
  approvalId: z.nullable(z.number()),
  createdAt: z.string(),
  completedAt: z.nullable(z.string()),
});

/** A pay-in's refunds as its detail shows them: what was paid, what is refunded, what is left. */
export const orderRefunds = z.object({
  paidAmount: z.nullable(moneyOut),
  refundedAmount: moneyOut,
  /** Paid, less refunded, less what the order's open disputes hold. */
  refundable: moneyOut,
  list: z.array(refundRow),
});

const grants = { platform: ['operator', 'finance'], merchant: ['finance', 'operator'] } as const;

export const refundEndpoints = {
  /** Newest first; a merchant user sees its own merchant's. */
  list: endpoint({
    method: 'GET',
    path: '/refund/list',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    input: z.object({
      merchantId: z.optional(id),
      status: z.optional(refundStatus),
      /** Ours, the merchant's, or the pay-in's number (either). */
      search: z.optional(z.string().check(z.trim(), z.maxLength(64))),
      ...cursorPaging(50),
    }),
    output: listOf(refundRow),
  }),
  /** The refunds of one pay-in, with what is left to refund. */
  ofOrder: endpoint({
    method: 'GET',
    path: '/refund/ofOrder',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    input: z.object({ payinId: id }),
    output: orderRefunds,
  }),
  /**
   * Refunds `amount` of a paid pay-in (at most what is left), from the merchant's collection balance
   * (short: insufficientBalance). Above the day's sums it waits for a second platform user
   * (approvalRequested, the refund `requested`). `payee` when the order knows no account of the payer.
   */
  create: endpoint({
    method: 'POST',
    path: '/refund/create',
    caller: 'both',
    grants,
    input: strictObject({
      payinId: id,
      amount,
      reason: actionReason,
      payee: z.optional(refundPayee),
      code: code6,
    }),
    output: refundRow,
  }),
  /** Withdraws a refund still waiting for a second person: its amount is refundable again. */
  cancel: endpoint({
    method: 'POST',
    path: '/refund/cancel',
    caller: 'both',
    grants,
    input: strictObject({ id }),
    output: refundRow,
  }),
};
