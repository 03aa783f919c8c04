/**
 * Disputes of paid pay-ins (docs/MONEY-BACK.md section 2): a chargeback, a payer's complaint or a payment
 * proved wrong, opened by the platform (any kind) or by the merchant's own users (a complaint or a wrong
 * payment against its own orders). While open, the disputed amount is held from the merchant's wallets;
 * a platform user other than the opener decides it won (released) or lost (a chargeback spent to channel
 * clearing, a complaint or wrong payment returned to the payer by a refund made from the hold).
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { dispute as machine } from '../machines.ts';
import { amount, moneyOut } from '../money.ts';
import {
  actionReason,
  code6,
  id,
  isoTime,
  listOf,
  noControlsButBreaks,
  pagePaging,
  proofImage,
  proofImageBodyBytes,
  strictObject,
} from '../schemas.ts';
import { refundPayee } from './refund.ts';

export const disputeStatus = z.enum(machine.states);
export const disputeKinds = ['chargeback', 'complaint', 'wrong_payment'] as const;
export const disputeKind = z.enum(disputeKinds);
/** The kinds a merchant's own users may open; a chargeback comes from the payer's bank to the platform. */
export const merchantDisputeKinds = ['complaint', 'wrong_payment'] as const;
/** What deciding a case may make of it. */
export const disputeOutcome = z.enum(['won', 'lost']);

const note = z.string().check(z.trim(), z.maxLength(2000), noControlsButBreaks);

export const disputeRow = z.object({
  id: z.number(),
  /** Ours: `DP` + time + random digits. */
  disputeNo: z.string(),
  merchantId: z.number(),
  merchantCode: z.string(),
  payinId: z.number(),
  orderNo: z.string(),
  merchantOrderNo: z.string(),
  kind: disputeKind,
  status: disputeStatus,
  currency: z.string(),
  amount: moneyOut,
  /** Held from the merchant's wallets at opening, and what they could not cover. */
  held: moneyOut,
  unheld: moneyOut,
  deadline: z.string(),
  /** Open past its deadline: listed first. */
  overdue: z.boolean(),
  /** The platform user who answers for it (username; null when nobody yet, or for a merchant reader). */
  owner: z.nullable(z.string()),
  ownerId: z.nullable(z.number()),
  /** Who opened it: `platform` or `merchant`, and the user (username for platform readers). */
  openedSide: z.enum(['platform', 'merchant']),
  openedBy: z.nullable(z.string()),
  reason: z.string(),
  /** Why it was decided or withdrawn. */
  outcomeReason: z.nullable(z.string()),
  decidedBy: z.nullable(z.string()),
  decidedAt: z.nullable(z.string()),
  /** The refund that returns a lost complaint's money to the payer. */
  refundId: z.nullable(z.number()),
  refundNo: z.nullable(z.string()),
  evidenceCount: z.number(),
  createdAt: z.string(),
});

export const disputeEvidence = z.object({
  id: z.number(),
  /** A note, or a file (an image of a bank letter, a screenshot) with its name. */
  note: z.string(),
  filename: z.nullable(z.string()),
  mime: z.nullable(z.string()),
  side: z.enum(['platform', 'merchant']),
  addedBy: z.nullable(z.string()),
  createdAt: z.string(),
});

export const disputeDetail = z.object({
  ...disputeRow.shape,
  heldCollectionAvailable: moneyOut,
  heldPayoutAvailable: moneyOut,
  evidence: z.array(disputeEvidence),
});

const reads = {
  platform: ['operator', 'finance'],
  merchant: ['finance', 'operator', 'developer'],
} as const;
const work = { platform: ['operator', 'finance'], merchant: ['finance', 'operator'] } as const;

export const disputeEndpoints = {
  /**
   * Opens a case against a paid pay-in (at most what was paid less what is refunded and what other open
   * cases dispute: 422) and holds its amount from the merchant's wallets in the same transaction; what
   * they cannot cover is recorded as unheld. A merchant user opens a complaint or a wrong payment against
   * its own orders only. The Google code of the user.
   */
  open: endpoint({
    method: 'POST',
    path: '/dispute/open',
    caller: 'both',
    grants: work,
    input: strictObject({
      payinId: id,
      kind: disputeKind,
      amount,
      /** When the answer is due (the bank's or the merchant's date); later than now. */
      deadline: isoTime,
      reason: actionReason,
      code: code6,
    }),
    output: disputeDetail,
  }),
  /** Open cases first (overdue, then by deadline), then the decided ones newest first. */
  list: endpoint({
    method: 'GET',
    path: '/dispute/list',
    caller: 'both',
    grants: reads,
    input: z.object({
      merchantId: z.optional(id),
      status: z.optional(disputeStatus),
      payinId: z.optional(id),
      ...pagePaging(20),
    }),
    output: listOf(disputeRow),
  }),
  info: endpoint({
    method: 'GET',
    path: '/dispute/info',
    caller: 'both',
    grants: reads,
    input: z.object({ id }),
    output: disputeDetail,
  }),
  /** A note or a file (PNG, JPEG or WebP, at most 2 MB) added to an open case, by either side. */
  evidence: endpoint({
    method: 'POST',
    path: '/dispute/evidence',
    caller: 'both',
    grants: work,
    maxBodyBytes: proofImageBodyBytes,
    input: strictObject({
      id,
      note,
      file: z.optional(strictObject(proofImage)),
    }),
    output: disputeDetail,
  }),
  /** An evidence file's content (base64). */
  evidenceFile: endpoint({
    method: 'GET',
    path: '/dispute/evidenceFile',
    caller: 'both',
    grants: reads,
    input: z.object({ id, evidenceId: id }),
    output: z.object({ filename: z.string(), mime: z.string(), dataBase64: z.string() }),
  }),
  /** Who answers for an open case: a platform user (null: nobody). */
  assign: endpoint({
    method: 'POST',
    path: '/dispute/assign',
    caller: 'platform',
    grants: { platform: ['operator', 'finance'] },
    input: strictObject({ id, ownerId: z.nullable(id) }),
    output: disputeDetail,
  }),
  /**
   * The case's outcome, by a platform user who did not open it (errno sameUser), with the Google code
   * and a reason. `won` releases the hold; `lost` spends it: a chargeback to channel clearing, a complaint
   * or wrong payment to the payer through a refund from the hold (`payee` when the order knows no account
   * of the payer). What was never held becomes the merchant's debt. Once (409).
   */
  decide: endpoint({
    method: 'POST',
    path: '/dispute/decide',
    caller: 'platform',
    grants: { platform: ['finance'] },
    input: strictObject({
      id,
      outcome: disputeOutcome,
      reason: actionReason,
      payee: z.optional(refundPayee),
      code: code6,
    }),
    output: disputeDetail,
  }),
  /**
   * Withdrawn by the side that opened it (or by the platform): the hold is released. The door
   * `dispute.withdraw` (contract/doors.ts): a reason and the Google code of the user, merchant or platform.
   */
  withdraw: endpoint({
    method: 'POST',
    path: '/dispute/withdraw',
    caller: 'both',
    grants: work,
    input: strictObject({ id, reason: actionReason, code: code6 }),
    output: disputeDetail,
  }),
};
