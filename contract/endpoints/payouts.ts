/** The payout orders' endpoints, their row and the beneficiary's fields. */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { amount, moneyOut } from '../money.ts';
import { field, rowSchema } from '../orderRow.ts';
import { code6, id, strictObject, utr } from '../schemas.ts';
import {
  callbackAttempt,
  handDecision,
  merchantOrderNo,
  orderHead,
  orderInfoEndpoint,
  orderListEndpoints,
  payoutStatus,
  pushStatus,
  secondFactor,
} from './orderParts.ts';

/** A payout order's row, declared as the pay-in's is. */
export const payoutRowFields = {
  ...orderHead,
  fee: field.money,
  status: field.oneOf(payoutStatus),
  pushStatus: field.oneOf(pushStatus),
  accountName: field.text,
  accountNumber: field.text,
  ifsc: field.text,
  utr: field.textOrNull,
  source: field.oneOf(z.enum(['api', 'console', 'bulk'])),
  failureReason: field.textOrNull,
  createdAt: field.time,
  completedAt: field.timeOrNull,
  callbackAt: field.timeOrNull,
};
export const payoutRow = rowSchema(payoutRowFields);

export const accountName = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(100));
export const accountNumber = z
  .string()
  .check(z.trim(), z.regex(/^[0-9]{6,20}$/, { message: 'validation.accountNumber' }));
export const ifsc = z
  .string()
  .check(z.trim(), z.regex(/^[A-Z]{4}0[A-Z0-9]{6}$/, { message: 'validation.ifsc' }));

const lists = orderListEndpoints('/merchantPayout', payoutStatus, payoutRow);

export const merchantPayout = {
  list: lists.list,
  info: orderInfoEndpoint('/merchantPayout', payoutRow, { notifyUrl: z.string() }),
  totals: lists.totals,
  export: lists.export,
  /** A single transfer from the console, confirmed with the user's Google code. */
  create: endpoint({
    method: 'POST',
    path: '/merchantPayout/create',
    caller: 'merchant',
    grants: { merchant: ['finance'] },
    input: strictObject({
      amount,
      accountName,
      accountNumber,
      ifsc,
      merchantOrderNo: z.optional(merchantOrderNo),
      code: code6,
    }),
    output: payoutRow,
  }),
  /** Payouts from a CSV or XLSX file: every row valid or none created; errors per row. */
  bulkCreate: endpoint({
    method: 'POST',
    path: '/merchantPayout/bulkCreate',
    caller: 'merchant',
    grants: { merchant: ['finance'] },
    // A 5 MB file is about 7 MB of base64.
    maxBodyBytes: 7.5 * 1024 * 1024,
    input: strictObject({
      filename: z
        .string()
        .check(z.regex(/\.(csv|xlsx)$/i, { message: 'validation.bulkFile' }), z.maxLength(200)),
      dataBase64: z.string().check(z.maxLength(7_000_000)),
      code: code6,
      /** Validate and answer the preview only. */
      dryRun: z.optional(z.boolean()),
    }),
    output: z.object({
      valid: z.boolean(),
      rows: z.number(),
      total: moneyOut,
      fees: moneyOut,
      errors: z.array(z.object({ row: z.number(), field: z.string(), message: z.string() })),
      created: z.array(z.string()),
    }),
  }),
  /** Sends a failed payout again with a new hold. */
  retry: handDecision('/merchantPayout/retry', { platform: ['operator'] }, payoutRow),
  markSuccess: endpoint({
    method: 'POST',
    path: '/merchantPayout/markSuccess',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject({ id, utr: z.optional(utr), ...secondFactor }),
    output: payoutRow,
  }),
  markFailed: handDecision('/merchantPayout/markFailed', { platform: ['operator'] }, payoutRow),
  push: endpoint({
    method: 'POST',
    path: '/merchantPayout/push',
    caller: 'both',
    grants: { platform: ['operator'], merchant: ['finance', 'operator', 'developer'] },
    input: strictObject({ id }),
    output: callbackAttempt,
  }),
};
