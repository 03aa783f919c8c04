/**
 * The gateway API for merchant systems (GATEWAY.md): its own registry, signed by the merchant's API
 * secret instead of a session. The server mounts it at `/gateway/v1` and documents it at
 * `/gateway/openapi.json`.
 */
import * as z from 'zod/mini';
import { disputeKind, disputeStatus } from './endpoints/dispute.ts';
import { accountName, accountNumber, ifsc, payinStatus } from './endpoints/orders.ts';
import { refundPayee, refundStatus } from './endpoints/refund.ts';
import { settlementRow } from './endpoints/settlement.ts';
import { payout } from './machines.ts';
import { amount, moneyOut } from './money.ts';

const merchantOrderNo = z
  .string()
  .check(z.trim(), z.regex(/^[A-Za-z0-9_.:-]{1,64}$/, { message: 'validation.orderNo' }));
const url = z.string().check(z.maxLength(500), z.regex(/^https?:\/\/\S+$/, { message: 'validation.url' }));

export const gatewayPayin = z.object({
  orderNo: z.string(),
  merchantOrderNo: z.string(),
  status: payinStatus,
  currency: z.string(),
  amount: moneyOut,
  paidAmount: z.nullable(moneyOut),
  fee: moneyOut,
  utr: z.nullable(z.string()),
  payUrl: z.nullable(z.string()),
  createdAt: z.string(),
  expiresAt: z.string(),
  paidAt: z.nullable(z.string()),
});

/**
 * A payout's status as merchants see it: our internal hand-over steps (`shownAsProcessing`:
 * submitting, needs review) are `processing` to them, so their status set stays the one GATEWAY.md
 * documents (queued, processing, success, failed, creation_failed).
 */
export const gatewayPayoutStatus = z.enum(payout.states.filter((s) => !payout.is('shownAsProcessing', s)));

export const gatewayPayout = z.object({
  orderNo: z.string(),
  merchantOrderNo: z.string(),
  status: gatewayPayoutStatus,
  currency: z.string(),
  amount: moneyOut,
  fee: moneyOut,
  utr: z.nullable(z.string()),
  failureReason: z.nullable(z.string()),
  createdAt: z.string(),
  completedAt: z.nullable(z.string()),
});

export interface GatewayEndpoint {
  id: string;
  /** What it does, as a merchant's developer reads it (the OpenAPI document's summary). */
  summary: string;
  /** More of what it does (GATEWAY.md), for the document's description. */
  description: string;
  method: 'GET' | 'POST';
  /** Hono path below the site root, e.g. `/gateway/v1/payin/:orderNo`. */
  path: string;
  /** Body (POST) or query (GET) schema. */
  input: z.ZodMiniType;
  output: z.ZodMiniType;
  /** HTTP status of a success. */
  status: 200 | 201;
}

const gw = (e: GatewayEndpoint) => e;

/** Pay-in creation and queries. */
export const payinGatewayEndpoints = {
  payinCreate: gw({
    id: 'payinCreate',
    summary: 'Create a pay-in order (a payment page for the payer)',
    description:
      'Answers 201 with the order and its `payUrl`; a repeat with the same merchantOrderNo and content answers the original (200, `Idempotent-Replayed: true`), with other content 409. The merchant hears the outcome by a signed callback to `notifyUrl`.',
    method: 'POST',
    path: '/gateway/v1/payin',
    status: 201,
    input: z.strictObject({
      merchantOrderNo,
      amount,
      notifyUrl: url,
      returnUrl: z.optional(url),
      payer: z.optional(
        z.strictObject({
          name: z.optional(z.string().check(z.maxLength(100))),
          email: z.optional(z.string().check(z.maxLength(254))),
          phone: z.optional(z.string().check(z.maxLength(32))),
          /** The payer's UPI ID (or bank account number), when the merchant knows it: met by the blocklist. */
          vpa: z.optional(z.string().check(z.maxLength(100))),
        }),
      ),
      /** A channel code to use instead of routing. */
      channel: z.optional(z.string().check(z.maxLength(32))),
    }),
    output: gatewayPayin,
  }),
  payinGet: gw({
    id: 'payinGet',
    summary: 'Read a pay-in order by its order number',
    description: 'The order as the callbacks carry it.',
    method: 'GET',
    path: '/gateway/v1/payin/:orderNo',
    status: 200,
    input: z.object({}),
    output: gatewayPayin,
  }),
  payinFind: gw({
    id: 'payinFind',
    summary: "Read a pay-in order by the merchant's order number",
    description: 'The order as the callbacks carry it; 404 when the merchant has no pay-in with that number.',
    method: 'GET',
    path: '/gateway/v1/payin',
    status: 200,
    input: z.object({ merchantOrderNo }),
    output: gatewayPayin,
  }),
  balance: gw({
    id: 'balance',
    summary: "Read the merchant's balances",
    description: 'Amounts are decimal strings with two decimals.',
    method: 'GET',
    path: '/gateway/v1/balance',
    status: 200,
    input: z.object({}),
    output: z.object({
      currency: z.string(),
      collection: z.object({ available: moneyOut, pending: moneyOut, frozen: moneyOut }),
      payout: z.object({ available: moneyOut, frozen: moneyOut }),
    }),
  }),
};

/** Payout creation and queries. */
export const payoutGatewayEndpoints = {
  payoutCreate: gw({
    id: 'payoutCreate',
    summary: 'Create a payout order (the amount and fee are frozen at once)',
    description:
      'Answers 201 with the queued order; the amount and fee leave the available balance at once. Refused (403) from an address outside the payout whitelist; 422 over the balance.',
    method: 'POST',
    path: '/gateway/v1/payout',
    status: 201,
    input: z.strictObject({ merchantOrderNo, amount, accountName, accountNumber, ifsc, notifyUrl: url }),
    output: gatewayPayout,
  }),
  payoutGet: gw({
    id: 'payoutGet',
    summary: 'Read a payout order by its order number',
    description: 'The order as the callbacks carry it.',
    method: 'GET',
    path: '/gateway/v1/payout/:orderNo',
    status: 200,
    input: z.object({}),
    output: gatewayPayout,
  }),
  payoutFind: gw({
    id: 'payoutFind',
    summary: "Read a payout order by the merchant's order number",
    description: 'The order as the callbacks carry it; 404 when the merchant has no payout with that number.',
    method: 'GET',
    path: '/gateway/v1/payout',
    status: 200,
    input: z.object({ merchantOrderNo }),
    output: gatewayPayout,
  }),
};

/** A refund as the gateway answers it and its callbacks carry it (docs/MONEY-BACK.md section 1). */
export const gatewayRefund = z.object({
  /** The merchant's own refund number. */
  refundNo: z.string(),
  /** Ours. */
  platformRefundNo: z.string(),
  orderNo: z.string(),
  merchantOrderNo: z.string(),
  status: refundStatus,
  currency: z.string(),
  amount: moneyOut,
  /** The pay-in's paid amount, and what its refunds under way or paid add up to now. */
  paidAmount: moneyOut,
  refundedAmount: moneyOut,
  /** The bank's reference of the transfer back to the payer, once paid. */
  utr: z.nullable(z.string()),
  failureReason: z.nullable(z.string()),
  createdAt: z.string(),
  completedAt: z.nullable(z.string()),
});

const refundNo = merchantOrderNo;

/** Refunds of paid pay-ins. */
export const refundGatewayEndpoints = {
  refundCreate: gw({
    id: 'refundCreate',
    summary: 'Refund a paid pay-in, in full or in part',
    description:
      "Answers 201 with the refund: `processing` (its money is on its way back to the payer, held from the collection balance) or `requested` (above the day's limit, a platform user approves it first). Refused (403) from an address outside the payout whitelist, as payouts are: the money goes to an account the request may name. Never more than is left of what was paid (422); 422 with insufficientBalance when the collection balance does not cover it. `payee` is required when the order was not refunded before. A repeat with the same refundNo and content answers the original (200, `Idempotent-Replayed: true`), with other content 409. The outcome comes as a `payin.refunded` or `refund.failed` callback to the order's notifyUrl.",
    method: 'POST',
    path: '/gateway/v1/refund',
    status: 201,
    input: z.strictObject({
      orderNo: z.string().check(z.trim(), z.minLength(1), z.maxLength(64)),
      refundNo,
      amount,
      reason: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(200))),
      payee: z.optional(refundPayee),
    }),
    output: gatewayRefund,
  }),
  refundGet: gw({
    id: 'refundGet',
    summary: "Read a refund by the merchant's refund number",
    description:
      'The refund as its callbacks carry it; 404 when the merchant has no refund with that number.',
    method: 'GET',
    path: '/gateway/v1/refund/:refundNo',
    status: 200,
    input: z.object({}),
    output: gatewayRefund,
  }),
};

/**
 * The gateway registry: the parts whose routes exist. The server refuses to start when a registered
 * endpoint has no route; a part joins here together with its routes.
 */
export const gatewayEndpoints = {
  ...payinGatewayEndpoints,
  ...payoutGatewayEndpoints,
  ...refundGatewayEndpoints,
};

export const allGatewayEndpoints: readonly GatewayEndpoint[] = Object.values(
  gatewayEndpoints as Record<string, GatewayEndpoint>,
);

/** A dispute of a pay-in as its `dispute.updated` callback carries it (docs/MONEY-BACK.md section 2). */
export const gatewayDispute = z.object({
  /** Ours. */
  disputeNo: z.string(),
  orderNo: z.string(),
  merchantOrderNo: z.string(),
  kind: disputeKind,
  /** `open`, then `won`, `lost` or `withdrawn`. */
  status: disputeStatus,
  currency: z.string(),
  amount: moneyOut,
  /** Held from the merchant's balances while open, and what they could not cover. */
  held: moneyOut,
  unheld: moneyOut,
  deadline: z.string(),
  reason: z.string(),
  outcomeReason: z.nullable(z.string()),
  createdAt: z.string(),
  decidedAt: z.nullable(z.string()),
});

/** Callback event types (`type` in the callback body). */
export const callbackTypes = [
  'payin.paid',
  'payin.failed',
  'payin.unpaid',
  'payout.success',
  'payout.failed',
  /** A settlement application entered a status (applied, confirmed, settled, failed). */
  'settlement.updated',
  /** A refund of a pay-in was paid out to the payer. */
  'payin.refunded',
  /** A refund ended without paying (failed, rejected, cancelled): its amount is refundable again. */
  'refund.failed',
  /** A dispute of a pay-in was opened (its amount held) or ended (won, lost, withdrawn). */
  'dispute.updated',
] as const;
export type CallbackType = (typeof callbackTypes)[number];

/** What each callback says (the gateway document's webhooks). */
export const callbackSummary: Record<CallbackType, string> = {
  'payin.paid': 'A pay-in was paid',
  'payin.failed': 'A pay-in failed',
  'payin.unpaid': 'A pay-in expired unpaid',
  'payout.success': 'A payout was paid out',
  'payout.failed': 'A payout failed (its amount and fee are back in the payout balance)',
  'settlement.updated': 'A settlement application entered a status',
  'payin.refunded': 'A refund of a pay-in was paid out to the payer',
  'refund.failed': 'A refund ended without paying (failed, rejected or cancelled)',
  'dispute.updated': 'A dispute of a pay-in was opened (its amount held) or ended (won, lost or withdrawn)',
};

/**
 * A settlement application as its `settlement.updated` callback carries it: what the merchant applied for
 * and what became of it, without who on the platform worked on it.
 */
export const gatewaySettlement = z.pick(settlementRow, {
  settlementNo: true,
  wallet: true,
  type: true,
  currency: true,
  amount: true,
  auditAmount: true,
  fee: true,
  status: true,
  accountName: true,
  cardNumber: true,
  ifsc: true,
  returnAddress: true,
  price: true,
  usdtAmount: true,
  reference: true,
  reason: true,
  createdAt: true,
  confirmedAt: true,
  completedAt: true,
  failedAt: true,
});

/**
 * The `data` of each callback type (the body is `{type, data}`): an order as its query answers it, or a
 * settlement application. Every type has one.
 */
export const callbackData = {
  'payin.paid': gatewayPayin,
  'payin.failed': gatewayPayin,
  'payin.unpaid': gatewayPayin,
  'payout.success': gatewayPayout,
  'payout.failed': gatewayPayout,
  'settlement.updated': gatewaySettlement,
  'payin.refunded': gatewayRefund,
  'refund.failed': gatewayRefund,
  'dispute.updated': gatewayDispute,
} as const satisfies Record<CallbackType, z.ZodMiniType>;

/** Signing: the canonical string the merchant signs with HMAC-SHA256 (lowercase hex) under its API secret. */
export function canonicalString(
  timestamp: string,
  nonce: string,
  method: string,
  pathWithQuery: string,
  rawBody: string,
) {
  return `${timestamp}\n${nonce}\n${method.toUpperCase()}\n${pathWithQuery}\n${rawBody}`;
}

/**
 * Signing window, nonce rules and the signature's form: 64 lowercase hex characters, as GATEWAY.md says
 * (anything else, upper case included, is refused with 401 before the signature is compared).
 */
export const signing = {
  windowSeconds: 300,
  nonce: /^[A-Za-z0-9_-]{16,64}$/,
  signature: /^[0-9a-f]{64}$/,
};
