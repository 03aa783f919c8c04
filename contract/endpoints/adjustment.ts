/**
 * Balance adjustments (OPERATIONS.md section 4): the platform credits or debits a merchant's wallet with a
 * reason, as one journal entry of kind `adjustment`. Above the `maker_checker_threshold` the call becomes a
 * request (errno approvalRequested, approval action `wallet.adjust`) that a second platform user approves.
 * Agents' commission: a statement per agent and period, and commission paid out with a bank reference.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { amount, moneyOut } from '../money.ts';
import {
  actionReason,
  bankReference,
  code6,
  cursorPaging,
  id,
  listOf,
  noControls,
  strictObject,
} from '../schemas.ts';
import { periodChecks, reportPeriod } from './stat.ts';

/** The merchant wallets an adjustment may move (the ledger accounts the merchant spends from). */
export const adjustmentWallets = ['collection_available', 'payout_available'] as const;
export const adjustmentWallet = z.enum(adjustmentWallets);
export const adjustmentDirection = z.enum(['credit', 'debit']);

export const adjustmentRow = z.object({
  id: z.number(),
  merchantId: z.number(),
  merchantCode: z.string(),
  merchantName: z.string(),
  wallet: adjustmentWallet,
  currency: z.string(),
  /** Signed: a credit is positive, a debit negative. */
  amount: moneyOut,
  reason: z.string(),
  /** Platform usernames; null for merchant users (the platform's people are not theirs to know). */
  requestedBy: z.nullable(z.string()),
  approvedBy: z.nullable(z.string()),
  approvalId: z.nullable(z.number()),
  createdAt: z.string(),
});

export const balanceAdjustment = {
  /** Newest first; a merchant user sees its own merchant's, as its wallet log already shows them. */
  list: endpoint({
    method: 'GET',
    path: '/balanceAdjustment/list',
    caller: 'both',
    grants: { platform: ['finance'], merchant: ['finance'] },
    input: z.object({
      merchantId: z.optional(id),
      ...cursorPaging(50),
    }),
    output: listOf(adjustmentRow),
  }),
  /** Moves the money now, or above the threshold answers approvalRequested with `{approvalId}`. */
  create: endpoint({
    method: 'POST',
    path: '/balanceAdjustment/create',
    caller: 'platform',
    grants: { platform: ['finance'] },
    input: strictObject({
      merchantId: id,
      wallet: adjustmentWallet,
      direction: adjustmentDirection,
      amount,
      reason: actionReason,
      code: code6,
    }),
    output: adjustmentRow,
  }),
};

/** What one merchant of the agent brought over the period (pay-ins created in it and paid). */
export const commissionMerchantRow = z.object({
  merchantId: z.number(),
  merchantCode: z.string(),
  merchantName: z.string(),
  currency: z.string(),
  paidCount: z.number(),
  paidAmount: moneyOut,
  commission: moneyOut,
});

export const commissionPaymentRow = z.object({
  id: z.number(),
  agentId: z.number(),
  currency: z.string(),
  amount: moneyOut,
  reference: z.string(),
  note: z.string(),
  paidBy: z.string(),
  createdAt: z.string(),
});

/** A bank's reference: one payment per reference and agent, in any case. */
const reference = bankReference(noControls);

export const agentCommission = {
  /**
   * Per merchant of the agent over business days `from`–`to` (≤ 62, default the last 7): pay-ins paid,
   * their amount and the agent's commission (the order statistics' rollup), with totals per currency, the
   * payable balance now and the payments made in the period.
   */
  statement: endpoint({
    method: 'GET',
    path: '/agentCommission/statement',
    caller: 'platform',
    grants: { platform: ['finance'] },
    input: z.object({ agentId: id, ...reportPeriod }).check(...periodChecks),
    output: z.object({
      agentId: z.number(),
      agentCode: z.string(),
      agentName: z.string(),
      commissionRate: z.string(),
      from: z.string(),
      to: z.string(),
      businessTimeZone: z.string(),
      rows: z.array(commissionMerchantRow),
      totals: z.array(
        z.object({ currency: z.string(), paidCount: z.number(), paidAmount: moneyOut, commission: moneyOut }),
      ),
      /** The agent's payable commission now, per currency. */
      payable: z.array(z.object({ currency: z.string(), balance: moneyOut })),
      /** Commission paid out in the period, newest first. */
      payments: z.array(commissionPaymentRow),
    }),
  }),
  /**
   * Pays commission out of the agent's payable balance (never more: errno insufficientBalance); the
   * reference is the bank transfer's (errno referenceTaken when this agent already has it). Above the
   * threshold it becomes a request for a second person (approvalRequested).
   */
  pay: endpoint({
    method: 'POST',
    path: '/agentCommission/pay',
    caller: 'platform',
    grants: { platform: ['finance'] },
    input: strictObject({
      agentId: id,
      currency: z
        .string()
        .check(z.trim(), z.toUpperCase(), z.regex(/^[A-Z]{3}$/, { message: 'validation.currency' })),
      amount,
      reference,
      note: z.optional(z.string().check(z.trim(), z.maxLength(300), noControls)),
      code: code6,
    }),
    output: commissionPaymentRow,
  }),
};
