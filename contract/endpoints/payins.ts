/** The pay-in (collection) orders' endpoints and their row. */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { amount, moneyOut } from '../money.ts';
import { field, rowSchema } from '../orderRow.ts';
import { id, okFlag, proofImage, proofImageBodyBytes, strictObject, uploadedImage, utr } from '../schemas.ts';
import {
  callbackAttempt,
  merchantOrderNo,
  orderHead,
  orderInfoEndpoint,
  orderListEndpoints,
  payinStatus,
  pushStatus,
  secondFactor,
} from './orderParts.ts';

/** A pay-in order's row (list, detail head, actions' answers): its fields declared once (`orderRow.ts`). */
export const payinRowFields = {
  ...orderHead,
  paidAmount: field.moneyOrNull,
  /** What its refunds under way or paid add up to (docs/MONEY-BACK.md section 1). */
  refundedAmount: field.money,
  fee: field.money,
  status: field.oneOf(payinStatus),
  pushStatus: field.oneOf(pushStatus),
  utr: field.textOrNull,
  paidBy: field.textOrNull,
  createdAt: field.time,
  expiresAt: field.time,
  paidAt: field.timeOrNull,
  callbackAt: field.timeOrNull,
};
export const payinRow = rowSchema(payinRowFields);

// The orders routed to one receiving account (its row's `o`): through `payin_orders_receiving_account_idx`.
const lists = orderListEndpoints('/merchantOrder', payinStatus, payinRow, {
  receivingAccountId: z.optional(id),
});

export const merchantOrder = {
  list: lists.list,
  info: orderInfoEndpoint(
    '/merchantOrder',
    payinRow,
    {
      agentCommission: moneyOut,
      /** The UTR the payer says they paid with (the pay page): recorded, never trusted. */
      payerUtr: z.nullable(z.string()),
      notifyUrl: z.string(),
      returnUrl: z.nullable(z.string()),
      payUrl: z.nullable(z.string()),
      failureReason: z.nullable(z.string()),
    },
    {
      images: z.array(
        z.object({
          id: z.number(),
          url: z.string(),
          mime: z.string(),
          size: z.number(),
          createdAt: z.string(),
        }),
      ),
    },
  ),
  totals: lists.totals,
  export: lists.export,
  /** A pay-in made from the console (e.g. a payment link for a customer), through the same path as the gateway. */
  create: endpoint({
    method: 'POST',
    path: '/merchantOrder/create',
    caller: 'merchant',
    grants: { merchant: ['operator'] },
    input: strictObject({
      amount,
      merchantOrderNo: z.optional(merchantOrderNo),
      notifyUrl: z.optional(z.string().check(z.maxLength(500))),
    }),
    output: payinRow,
  }),
  /** Corrects the notify URL of an order that is not final yet. */
  update: endpoint({
    method: 'POST',
    path: '/merchantOrder/update',
    caller: 'both',
    grants: { platform: ['operator'], merchant: ['operator', 'developer'] },
    input: strictObject({
      id,
      notifyUrl: z
        .string()
        .check(z.regex(/^https?:\/\/\S+$/, { message: 'validation.url' }), z.maxLength(500)),
    }),
    output: okFlag,
  }),
  /** Deletes an order through which no money moved (creation failed, or unpaid / failed and never paid). */
  delete: endpoint({
    method: 'POST',
    path: '/merchantOrder/delete',
    caller: 'platform',
    input: strictObject({ id }),
    output: okFlag,
  }),
  /** Looks a UTR up at the order's channel and in imported bank statements. */
  utrCheck: endpoint({
    method: 'POST',
    path: '/merchantOrder/utrCheck',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['operator'] },
    input: strictObject({ utr, id: z.optional(id) }),
    output: z.object({
      found: z.boolean(),
      source: z.nullable(z.enum(['channel', 'statement'])),
      amount: z.nullable(moneyOut),
      at: z.nullable(z.string()),
      account: z.nullable(z.string()),
      channelOrderId: z.nullable(z.string()),
      /** The order that already used this UTR, if any. */
      usedBy: z.nullable(z.string()),
      /** True when it was found, is unused and matches the order given by `id`. */
      matchesOrder: z.nullable(z.boolean()),
    }),
  }),
  /** Pays a pending, unpaid or failed order whose UTR a check confirms and no order used before. */
  supplement: endpoint({
    method: 'POST',
    path: '/merchantOrder/supplement',
    caller: 'both',
    grants: { platform: ['operator'], merchant: ['operator'] },
    input: strictObject({ id, utr, paidAmount: z.optional(amount) }),
    output: payinRow,
  }),
  /** Pays an order without a UTR match: its own permission, and the caller's Google code. */
  forceSupplement: endpoint({
    method: 'POST',
    path: '/merchantOrder/forceSupplement',
    caller: 'platform',
    input: strictObject({ id, ...secondFactor, utr: z.optional(utr), paidAmount: z.optional(amount) }),
    output: payinRow,
  }),
  /** Attaches a payment proof image (PNG, JPEG or WebP, at most 2 MB, base64). */
  uploadImage: endpoint({
    method: 'POST',
    path: '/merchantOrder/uploadImage',
    caller: 'both',
    grants: { platform: ['operator'], merchant: ['operator'] },
    maxBodyBytes: proofImageBodyBytes,
    input: strictObject({ id, ...proofImage }),
    output: uploadedImage,
  }),
  /** Sends the merchant callback again now (a manual attempt). */
  push: endpoint({
    method: 'POST',
    path: '/merchantOrder/push',
    caller: 'both',
    grants: { platform: ['operator'], merchant: ['operator', 'developer'] },
    input: strictObject({ id }),
    output: callbackAttempt,
  }),
  /** A payment proof image (base64), for users who may open its order. */
  image: endpoint({
    method: 'GET',
    path: '/merchantOrder/image',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    input: z.object({ id }),
    output: z.object({
      id: z.number(),
      orderId: z.number(),
      mime: z.string(),
      size: z.number(),
      dataBase64: z.string(),
    }),
  }),
};
