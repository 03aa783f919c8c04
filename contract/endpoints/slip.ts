/**
 * Withdrawal slips (OPERATIONS.md section 1): money that leaves through a bank by hand (confirmed bank
 * settlements, payouts on a manual bank channel) goes out as a bank's bulk-transfer file an operator
 * uploads to the bank's portal. The file is kept as the audit copy; its lines are then marked withdrawn
 * with the bank's reference (completing their settlements and payouts) or dropped, or the slip voided.
 * The file layouts are in docs/SLIPS.md.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { slip, slipLine } from '../machines.ts';
import { moneyOut } from '../money.ts';
import { code6, id, listOf, moneyCode, page, pageSize, strictObject, utr } from '../schemas.ts';

/** The file layouts a slip can be written in (docs/SLIPS.md). */
export const slipFormats = ['generic_csv', 'hdfc_bulk', 'icici_bulk'] as const;
export const slipFormat = z.enum(slipFormats);
export type SlipFormat = (typeof slipFormats)[number];

/** What a line sends: a bank settlement or a payout on a manual bank channel. */
export const slipObjectType = z.enum(['settlement', 'payout']);

/** At most this many lines on one slip (a line's number is three digits in the banks' references). */
export const maxSlipLines = 500;

export const slipRow = z.object({
  id: z.number(),
  slipNo: z.string(),
  format: slipFormat,
  status: z.enum(slip.states),
  currency: z.string(),
  lineCount: z.number(),
  total: moneyOut,
  /** Lines by state: still at the bank, marked withdrawn, dropped. */
  lineCounts: z.object({ toBeWithdrawn: z.number(), withdrawn: z.number(), defunct: z.number() }),
  fileName: z.string(),
  /** The public account the bank pays it from (null: a slip written before it was asked). */
  accountId: z.nullable(z.number()),
  accountLabel: z.nullable(z.string()),
  createdBy: z.string(),
  createdAt: z.string(),
  decidedBy: z.nullable(z.string()),
  decidedAt: z.nullable(z.string()),
});

export const slipLineRow = z.object({
  id: z.number(),
  /** Its place in the file (1, 2, …). */
  lineNo: z.number(),
  objectType: slipObjectType,
  objectId: z.number(),
  /** The settlement or payout number: our reference, carried by the narration. */
  objectNo: z.string(),
  merchantId: z.number(),
  merchantCode: z.string(),
  amount: moneyOut,
  /** As the file carries it (cut and cleaned to the bank's rule). */
  beneficiaryName: z.string(),
  accountNumber: z.string(),
  ifsc: z.string(),
  narration: z.string(),
  status: z.enum(slipLine.states),
  /** The bank's reference (UTR) it was marked withdrawn with. */
  reference: z.nullable(z.string()),
  decidedBy: z.nullable(z.string()),
  decidedAt: z.nullable(z.string()),
});

const slipInfo = z.object({ ...slipRow.shape, lines: z.array(slipLineRow) });

/** Something that may go on a new slip. */
export const slipCandidate = z.object({
  objectType: slipObjectType,
  id: z.number(),
  /** The settlement or payout number. */
  objectNo: z.string(),
  merchantId: z.number(),
  merchantCode: z.string(),
  currency: z.string(),
  amount: moneyOut,
  beneficiaryName: z.string(),
  accountNumber: z.string(),
  ifsc: z.string(),
  /** When it became ready to send: the settlement's confirmation, the payout's creation. */
  readyAt: z.string(),
});

const objectIds = z._default(z.array(id).check(z.maxLength(maxSlipLines)), []);
const distinct = (ids: readonly number[]) => new Set(ids).size === ids.length;

const grants = { platform: ['finance'] } as const;

export const withdrawalSlip = {
  /** Confirmed bank settlements and processing manual-bank payouts on no live slip, oldest first. */
  candidates: endpoint({
    method: 'GET',
    path: '/withdrawalSlip/candidates',
    caller: 'platform',
    grants,
    input: z.object({}),
    output: z.object({ list: z.array(slipCandidate), total: z.number() }),
  }),
  /**
   * Writes a slip of the chosen objects in `format`, all or nothing: any that is not a candidate any
   * more refuses the whole slip (409). The file is kept and downloaded by `download`.
   */
  create: endpoint({
    method: 'POST',
    path: '/withdrawalSlip/create',
    caller: 'platform',
    grants,
    input: strictObject({
      format: slipFormat,
      /**
       * The public account the bank pays it from: only that account's statement debits may propose
       * closing its lines.
       */
      accountId: id,
      settlementIds: objectIds,
      payoutIds: objectIds,
      code: code6,
    }).check(
      z.refine((v) => v.settlementIds.length + v.payoutIds.length > 0, {
        message: 'validation.slipEmpty',
        path: ['settlementIds'],
      }),
      z.refine((v) => v.settlementIds.length + v.payoutIds.length <= maxSlipLines, {
        message: 'validation.slipTooLong',
        path: ['settlementIds'],
      }),
      z.refine((v) => distinct(v.settlementIds) && distinct(v.payoutIds), {
        message: 'validation.duplicate',
        path: ['settlementIds'],
      }),
    ),
    output: slipInfo,
  }),
  list: endpoint({
    method: 'GET',
    path: '/withdrawalSlip/list',
    caller: 'platform',
    grants,
    input: z.object({ status: z.optional(z.enum(slip.states)), page, pageSize }),
    output: listOf(slipRow),
  }),
  info: endpoint({
    method: 'GET',
    path: '/withdrawalSlip/info',
    caller: 'platform',
    grants,
    input: z.object({ id }),
    output: slipInfo,
  }),
  /** The kept file, byte for byte as it was handed out at creation (`download`: a file, not the envelope). */
  download: endpoint({
    method: 'GET',
    path: '/withdrawalSlip/download',
    caller: 'platform',
    grants,
    download: true,
    input: z.object({ id }),
    output: z.unknown(),
  }),
  /**
   * Marks lines withdrawn with the bank's reference: a settlement's is completed (never by the user who
   * confirmed it), a payout's marked successful. The slip is withdrawn once no line waits.
   */
  withdraw: endpoint({
    method: 'POST',
    path: '/withdrawalSlip/withdraw',
    caller: 'platform',
    grants,
    input: strictObject({
      id,
      lines: z.array(strictObject({ lineId: id, reference: utr })).check(
        z.minLength(1, { message: 'validation.required' }),
        z.maxLength(maxSlipLines),
        z.refine((ls) => distinct(ls.map((l) => l.lineId)), { message: 'validation.duplicate' }),
      ),
      code: moneyCode,
    }),
    output: slipInfo,
  }),
  /** A line the bank refused: dropped, its settlement or payout free for another slip. */
  drop: endpoint({
    method: 'POST',
    path: '/withdrawalSlip/drop',
    caller: 'platform',
    grants,
    input: strictObject({ id, lineId: id, code: moneyCode }),
    output: slipInfo,
  }),
  /** Voids a slip none of whose lines was withdrawn: every line dropped. */
  void: endpoint({
    method: 'POST',
    path: '/withdrawalSlip/void',
    caller: 'platform',
    grants,
    input: strictObject({ id, code: moneyCode }),
    output: slipInfo,
  }),
};
