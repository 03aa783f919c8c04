import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { callback, payin, payout, recharge } from '../machines.ts';
import { amount, moneyOut } from '../money.ts';
import { field, rowSchema } from '../orderRow.ts';
import {
  actionReason,
  code6,
  cursor,
  id,
  isoTime,
  listOf,
  okFlag,
  page,
  pageSize,
  strictObject,
  utr,
} from '../schemas.ts';

export const payinStatus = z.enum(payin.states);
export const payoutStatus = z.enum(payout.states);
const rechargeStatus = z.enum(recharge.states);
export const pushStatus = z.enum(['unpushed', 'pushed']);

/** One status or several (a repeated query key). */
const oneOrMany = <T extends z.ZodMiniType>(item: T) =>
  z.optional(z.union([item, z.array(item).check(z.maxLength(10))]));

/**
 * Order lists: a period must be chosen (`from`, `to`), inside the last 60 days; `q` matches any of the
 * order's numbers (system, merchant, channel, UTR) whole or by prefix.
 */
const orderFilters = {
  from: isoTime,
  to: isoTime,
  merchantId: z.optional(id),
  channelId: z.optional(id),
  pushStatus: z.optional(pushStatus),
  q: z.optional(z.string().check(z.trim(), z.maxLength(64))),
  /** Several whole numbers at once (pasted into the console): orders matching any of them. */
  nos: z.optional(
    z.union([
      z.string().check(z.trim(), z.minLength(1), z.maxLength(64)),
      z.array(z.string().check(z.trim(), z.minLength(1), z.maxLength(64))).check(z.maxLength(100)),
    ]),
  ),
  pageSize,
  cursor,
};
/** The same filters without paging, for exports. */
const { pageSize: _pageSize, cursor: _cursor, ...exportFilters } = orderFilters;
export const exportFormat = z.enum(['csv', 'xlsx']);
/** Exports may cover at most one week (PRODUCT.md section 2). */
const periodWithinWeek = z.refine<{ from: string; to: string }>(
  (v) => new Date(v.to).getTime() - new Date(v.from).getTime() <= 7 * 86_400_000,
  { message: 'validation.periodWeek', path: ['to'] },
);
const periodInOrder = z.refine<{ from: string; to: string }>((v) => new Date(v.to) >= new Date(v.from), {
  message: 'validation.periodOrder',
  path: ['to'],
});

/** A hand action on money answers to a second factor: the acting user's Google code, and why. */
const secondFactor = { code: code6, reason: actionReason };
const merchantOrderNo = z
  .string()
  .check(z.trim(), z.regex(/^[A-Za-z0-9_.:-]{1,64}$/, { message: 'validation.orderNo' }));
const byOrder = z.object({ id: z.optional(id), orderNo: z.optional(z.string().check(z.maxLength(64))) });

const snapshot = z.unknown();
export const callbackAttempt = z.object({
  at: z.string(),
  manual: z.boolean(),
  httpStatus: z.nullable(z.number()),
  response: z.string(),
  durationMs: z.number(),
});
export const callbackEvent = z.object({
  messageId: z.string(),
  type: z.string(),
  url: z.string(),
  status: z.enum(callback.states),
  attempts: z.array(callbackAttempt),
  nextAttemptAt: z.nullable(z.string()),
});
export const postingRow = z.object({
  entryId: z.number(),
  entryKind: z.string(),
  ownerType: z.string(),
  ownerId: z.number(),
  account: z.string(),
  amount: moneyOut,
  balanceBefore: moneyOut,
  balanceAfter: moneyOut,
  at: z.string(),
});

/** The fields every order row begins with, in wire order. */
const orderHead = {
  id: field.id,
  orderNo: field.text,
  merchantOrderNo: field.text,
  merchantId: field.id,
  merchantCode: field.merchantCode,
  channelId: field.idOrNull,
  channelCode: field.channelCode,
  channelOrderId: field.textOrNull,
  currency: field.text,
  amount: field.money,
};

/** A pay-in order's row (list, detail head, actions' answers): its fields declared once (`orderRow.ts`). */
export const payinRowFields = {
  ...orderHead,
  paidAmount: field.moneyOrNull,
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

const listTotals = z.object({ count: z.number(), amount: moneyOut, countCapped: z.boolean() });

export const merchantOrder = {
  list: endpoint({
    method: 'GET',
    path: '/merchantOrder/list',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    input: z.object({ ...orderFilters, status: oneOrMany(payinStatus) }).check(periodInOrder),
    output: listOf(payinRow),
  }),
  info: endpoint({
    method: 'GET',
    path: '/merchantOrder/info',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    input: byOrder,
    output: z.object({
      ...payinRow.shape,
      agentCommission: moneyOut,
      /** The UTR the payer says they paid with (the pay page): recorded, never trusted. */
      payerUtr: z.nullable(z.string()),
      notifyUrl: z.string(),
      returnUrl: z.nullable(z.string()),
      payUrl: z.nullable(z.string()),
      failureReason: z.nullable(z.string()),
      requestSnapshot: snapshot,
      responseSnapshot: snapshot,
      callbacks: z.array(callbackEvent),
      postings: z.array(postingRow),
      images: z.array(
        z.object({
          id: z.number(),
          url: z.string(),
          mime: z.string(),
          size: z.number(),
          createdAt: z.string(),
        }),
      ),
    }),
  }),
  /** Count and amount of the filtered set (capped like list totals). */
  totals: endpoint({
    method: 'GET',
    path: '/merchantOrder/totals',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    input: z.object({ ...orderFilters, status: oneOrMany(payinStatus) }).check(periodInOrder),
    output: listTotals,
  }),
  /** The whole filtered set as a CSV or XLSX file, streamed (`download`: a file, not the envelope). */
  export: endpoint({
    method: 'GET',
    path: '/merchantOrder/export',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    download: true,
    input: z
      .object({ ...exportFilters, status: oneOrMany(payinStatus), format: exportFormat })
      .check(periodInOrder, periodWithinWeek),
    output: z.unknown(),
  }),
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
    maxBodyBytes: 3 * 1024 * 1024,
    input: strictObject({
      id,
      filename: z.string().check(z.maxLength(200)),
      mime: z.enum(['image/png', 'image/jpeg', 'image/webp']),
      dataBase64: z.string().check(z.maxLength(2_800_000)),
    }),
    output: z.object({ imageId: z.number() }),
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

export const merchantPayout = {
  list: endpoint({
    method: 'GET',
    path: '/merchantPayout/list',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    input: z.object({ ...orderFilters, status: oneOrMany(payoutStatus) }).check(periodInOrder),
    output: listOf(payoutRow),
  }),
  info: endpoint({
    method: 'GET',
    path: '/merchantPayout/info',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    input: byOrder,
    output: z.object({
      ...payoutRow.shape,
      notifyUrl: z.string(),
      requestSnapshot: snapshot,
      responseSnapshot: snapshot,
      callbacks: z.array(callbackEvent),
      postings: z.array(postingRow),
    }),
  }),
  totals: endpoint({
    method: 'GET',
    path: '/merchantPayout/totals',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    input: z.object({ ...orderFilters, status: oneOrMany(payoutStatus) }).check(periodInOrder),
    output: listTotals,
  }),
  /** The whole filtered set as a CSV or XLSX file, streamed (`download`: a file, not the envelope). */
  export: endpoint({
    method: 'GET',
    path: '/merchantPayout/export',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    download: true,
    input: z
      .object({ ...exportFilters, status: oneOrMany(payoutStatus), format: exportFormat })
      .check(periodInOrder, periodWithinWeek),
    output: z.unknown(),
  }),
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
  retry: endpoint({
    method: 'POST',
    path: '/merchantPayout/retry',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject({ id, ...secondFactor }),
    output: payoutRow,
  }),
  markSuccess: endpoint({
    method: 'POST',
    path: '/merchantPayout/markSuccess',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject({ id, utr: z.optional(utr), ...secondFactor }),
    output: payoutRow,
  }),
  markFailed: endpoint({
    method: 'POST',
    path: '/merchantPayout/markFailed',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject({ id, ...secondFactor }),
    output: payoutRow,
  }),
  push: endpoint({
    method: 'POST',
    path: '/merchantPayout/push',
    caller: 'both',
    grants: { platform: ['operator'], merchant: ['finance', 'operator', 'developer'] },
    input: strictObject({ id }),
    output: callbackAttempt,
  }),
};

/** The simulator channel's controls, in two parts registered with the pay-in and payout code. */
export const simulatorPay = {
  /** Settles a simulator pay-in as its channel callback would; `notify: false` loses the callback. */
  pay: endpoint({
    method: 'POST',
    path: '/simulator/pay',
    caller: 'platform',
    input: strictObject({
      orderNo: z.string().check(z.maxLength(64)),
      result: z.enum(['success', 'fail']),
      utr: z.optional(utr),
      notify: z.optional(z.boolean()),
    }),
    output: z.object({
      orderNo: z.string(),
      utr: z.nullable(z.string()),
      notified: z.boolean(),
      status: z.string(),
    }),
  }),
};

export const simulatorPayout = {
  payout: endpoint({
    method: 'POST',
    path: '/simulator/payout',
    caller: 'platform',
    input: strictObject({ orderNo: z.string().check(z.maxLength(64)), result: z.enum(['success', 'fail']) }),
    output: z.object({ orderNo: z.string(), status: z.string() }),
  }),
};

const balances = z.object({
  merchantId: z.number(),
  currency: z.string(),
  collection: z.object({ available: moneyOut, pending: moneyOut }),
  payout: z.object({ available: moneyOut }),
  frozen: moneyOut,
});

const walletOf = z.object({ merchantId: z.optional(id) });

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
        z.enum(['collection_available', 'collection_pending', 'payout_available', 'frozen']),
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
    caller: 'merchant',
    grants: { merchant: ['finance'] },
    input: strictObject({ amount, code: code6 }),
    output: z.object({ amount: moneyOut, collectionAfter: moneyOut, payoutAfter: moneyOut }),
  }),
  /** Moves collection available balance to payout available balance. */
  transfer: endpoint({
    method: 'POST',
    path: '/merchantWallet/transfer',
    caller: 'merchant',
    grants: { merchant: ['finance'] },
    input: strictObject({ amount, code: code6 }),
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
      reference: z
        .string()
        .check(
          z.trim(),
          z.toUpperCase(),
          z.minLength(1, { message: 'validation.required' }),
          z.maxLength(100),
        ),
      note: z.optional(z.string().check(z.maxLength(300))),
    }),
    output: rechargeRow,
  }),
  confirm: endpoint({
    method: 'POST',
    path: '/merchantRechargeLog/confirm',
    caller: 'platform',
    grants: { platform: ['finance'] },
    input: strictObject({ id, ...secondFactor }),
    output: rechargeRow,
  }),
  reject: endpoint({
    method: 'POST',
    path: '/merchantRechargeLog/reject',
    caller: 'platform',
    grants: { platform: ['finance'] },
    input: strictObject({ id, ...secondFactor }),
    output: rechargeRow,
  }),
};
