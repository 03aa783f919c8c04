/** A merchant's wallet: its balances, its recharges and their log. */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { amount, moneyOut } from '../money.ts';
import {
  bankReference,
  code6,
  cursor,
  id,
  isoTime,
  listOf,
  page,
  pageSize,
  strictObject,
} from '../schemas.ts';
import { handDecision, postingRow, rechargeStatus } from './orderParts.ts';

const balances = z.object({
  merchantId: z.number(),
  currency: z.string(),
  collection: z.object({ available: moneyOut, pending: moneyOut }),
  payout: z.object({ available: moneyOut }),
  frozen: moneyOut,
  /** The rolling reserve held until its lines are released (docs/MONEY-BACK.md section 4). */
  reserve: moneyOut,
  /** What the merchant owes the platform (its `merchant_debt`, shown positive); next collections repay it. */
  owed: moneyOut,
});

const walletOf = z.object({ merchantId: z.optional(id) });

/**
 * What a transfer from collection to payout balance asks, and of whom: the check (`transferVerify`) takes
 * exactly what the transfer itself takes, so a transfer that passes the check is the one that is made.
 */
const transferRequest = {
  caller: 'merchant',
  grants: { merchant: ['finance'] },
  input: strictObject({ amount, code: code6 }),
} as const;

export const merchantWallet = {
  /** Balances; a merchant user reads its own, a platform user names the merchant. */
  info: endpoint({
    method: 'POST',
    path: '/merchantWallet/info',
    caller: 'both',
    grants: { platform: ['operator', 'finance', 'auditor'], merchant: ['finance', 'operator'] },
    input: strictObject(walletOf.shape),
    output: balances,
  }),
  /** The balance change log: the postings of the merchant's wallets, newest first. */
  log: endpoint({
    method: 'GET',
    path: '/merchantWallet/log',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator'] },
    input: z.object({
      merchantId: z.optional(id),
      account: z.optional(
        z.enum([
          'collection_available',
          'collection_pending',
          'payout_available',
          'frozen',
          'reserve',
          'merchant_debt',
        ]),
      ),
      kind: z.optional(z.string().check(z.maxLength(40))),
      from: z.optional(isoTime),
      to: z.optional(isoTime),
      pageSize,
      cursor,
    }),
    output: listOf(postingRow),
  }),
  /** Checks a transfer from collection to payout balance (and the Google code) without moving money. */
  transferVerify: endpoint({
    method: 'POST',
    path: '/merchantWallet/transferVerify',
    ...transferRequest,
    output: z.object({ amount: moneyOut, collectionAfter: moneyOut, payoutAfter: moneyOut }),
  }),
  /** Moves collection available balance to payout available balance. */
  transfer: endpoint({
    method: 'POST',
    path: '/merchantWallet/transfer',
    ...transferRequest,
    output: balances,
  }),
};

const rechargeRow = z.object({
  id: z.number(),
  merchantId: z.number(),
  merchantCode: z.string(),
  currency: z.string(),
  amount: moneyOut,
  status: rechargeStatus,
  reference: z.string(),
  note: z.string(),
  rejectReason: z.nullable(z.string()),
  createdAt: z.string(),
  decidedAt: z.nullable(z.string()),
});

export const merchantRechargeLog = {
  list: endpoint({
    method: 'GET',
    path: '/merchantRechargeLog/list',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator'] },
    input: z.object({
      page,
      pageSize,
      status: z.optional(rechargeStatus),
      merchantId: z.optional(id),
    }),
    output: listOf(rechargeRow),
  }),
  /** A merchant reports a bank transfer to the platform to top up its payout balance. */
  create: endpoint({
    method: 'POST',
    path: '/merchantRechargeLog/create',
    caller: 'merchant',
    grants: { merchant: ['finance'] },
    input: strictObject({
      amount,
      /** The bank's reference of the transfer: one recharge per reference and merchant, in any case. */
      reference: bankReference(),
      note: z.optional(z.string().check(z.maxLength(300))),
    }),
    output: rechargeRow,
  }),
  confirm: handDecision('/merchantRechargeLog/confirm', { platform: ['finance'] }, rechargeRow),
  reject: handDecision('/merchantRechargeLog/reject', { platform: ['finance'] }, rechargeRow),
};
