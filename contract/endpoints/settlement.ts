/**
 * Settlement applications (OPERATIONS.md section 1): money out of a merchant's collection wallet
 * (`/settlementPayment/*`) or payout wallet (`/settlementPayout/*`), one engine, the same endpoints for
 * each wallet; and the platform's real-time queue across both (`/settlementQuery/*`).
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { approval, settlement } from '../machines.ts';
import { amount, moneyOut } from '../money.ts';
import {
  actionReason,
  code6,
  cursorPaging,
  id,
  ifscAnyCase,
  isoTime,
  moneyCode,
  proofImage,
  proofImageBodyBytes,
  strictObject,
  uploadedImage,
} from '../schemas.ts';
import { postingRow } from './orders.ts';

export const settlementStatus = z.enum(settlement.states);
export const settlementType = z.enum(['bank', 'usdt']);
export const settlementWallet = z.enum(['collection', 'payout']);

const accountName = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(100));
/** A bank account (card) number: 6 to 20 digits. */
const cardNumber = z.string().check(z.trim(), z.regex(/^\d{6,20}$/, { message: 'validation.cardNumber' }));
/** Where USDT goes back: TRC20 (`T` + 33 base58 characters) or ERC20 (`0x` + 40 hex digits). */
const returnAddress = z
  .string()
  .check(
    z.trim(),
    z.regex(/^(T[1-9A-HJ-NP-Za-km-z]{33}|0x[0-9a-fA-F]{40})$/, { message: 'validation.returnAddress' }),
  );
/** Units of currency per USDT, at most 6 decimals, above zero. */
const price = z.string().check(
  z.trim(),
  z.regex(/^\d{1,12}(\.\d{1,6})?$/, { message: 'validation.price' }),
  z.refine((s) => Number(s) > 0, { message: 'validation.price' }),
);
/** A bank UTR or a chain transaction hash. */
const reference = z
  .string()
  .check(
    z.trim(),
    z.minLength(1, { message: 'validation.required' }),
    z.maxLength(100),
    z.regex(/^[A-Za-z0-9_-]+$/, { message: 'validation.reference' }),
  );

export const settlementRow = z.object({
  id: z.number(),
  settlementNo: z.string(),
  wallet: settlementWallet,
  merchantId: z.number(),
  merchantCode: z.string(),
  currency: z.string(),
  type: settlementType,
  amount: moneyOut,
  auditAmount: z.nullable(moneyOut),
  fee: moneyOut,
  status: settlementStatus,
  accountName: z.nullable(z.string()),
  cardNumber: z.nullable(z.string()),
  ifsc: z.nullable(z.string()),
  returnAddress: z.nullable(z.string()),
  price: z.nullable(z.string()),
  usdtAmount: z.nullable(z.string()),
  reference: z.nullable(z.string()),
  reason: z.nullable(z.string()),
  attachments: z.array(z.number()),
  /** A pending maker–checker request on it ("awaiting second approval"), with who asked. */
  approval: z.nullable(
    z.object({
      id: z.number(),
      status: z.enum(approval.states),
      requestedBy: z.string(),
      requestedAt: z.string(),
    }),
  ),
  /** The live withdrawal slip it is on, if any. */
  slipNo: z.nullable(z.string()),
  appliedBy: z.nullable(z.string()),
  confirmedBy: z.nullable(z.string()),
  completedBy: z.nullable(z.string()),
  createdAt: z.string(),
  confirmedAt: z.nullable(z.string()),
  completedAt: z.nullable(z.string()),
  failedAt: z.nullable(z.string()),
});

const listFilters = {
  /** The period of application, at most 60 days (checked by the server). */
  from: isoTime,
  to: isoTime,
  status: z.optional(settlementStatus),
  merchantId: z.optional(id),
  type: z.optional(settlementType),
  /** A settlement number, whole or its beginning. */
  q: z.optional(z.string().check(z.trim(), z.maxLength(64))),
  ...cursorPaging(),
};

const listAnswer = z.object({
  list: z.array(settlementRow),
  nextCursor: z.nullable(z.string()),
  /** Of the filtered set: count and sums. */
  totals: z.object({ count: z.number(), amount: moneyOut, auditAmount: moneyOut, fee: moneyOut }),
});

const applyInput = strictObject({
  type: settlementType,
  amount,
  accountName: z.optional(accountName),
  cardNumber: z.optional(cardNumber),
  ifsc: z.optional(ifscAnyCase),
  returnAddress: z.optional(returnAddress),
  code: code6,
}).check(
  z.refine((v) => (v.type === 'bank' ? !!(v.accountName && v.cardNumber && v.ifsc) : !!v.returnAddress), {
    message: 'validation.settlementDestination',
    path: ['type'],
  }),
);

/** The endpoints of one wallet's settlements under `/{base}/…`. */
function settlementEndpoints(base: string) {
  return {
    list: endpoint({
      method: 'GET',
      path: `/${base}/list`,
      caller: 'both',
      grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator'] },
      input: z.object(listFilters),
      output: listAnswer,
    }),
    info: endpoint({
      method: 'GET',
      path: `/${base}/info`,
      caller: 'both',
      grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator'] },
      input: z.object({ id: z.optional(id), settlementNo: z.optional(z.string().check(z.maxLength(64))) }),
      output: z.object({
        ...settlementRow.shape,
        postings: z.array(postingRow),
      }),
    }),
    /** The merchant applies: holds amount + fee from the wallet's available balance. */
    create: endpoint({
      method: 'POST',
      path: `/${base}/create`,
      caller: 'merchant',
      grants: { merchant: ['finance'] },
      input: applyInput,
      output: settlementRow,
    }),
    /** While `to_be_confirmed`: a new amount (the hold follows) or destination. */
    update: endpoint({
      method: 'POST',
      path: `/${base}/update`,
      caller: 'merchant',
      grants: { merchant: ['finance'] },
      input: strictObject({
        id,
        amount: z.optional(amount),
        accountName: z.optional(accountName),
        cardNumber: z.optional(cardNumber),
        ifsc: z.optional(ifscAnyCase),
        returnAddress: z.optional(returnAddress),
        code: code6,
      }),
      output: settlementRow,
    }),
    /** Cancels a `to_be_confirmed` application (→ `failed`, reason "cancelled"): the hold is released. */
    delete: endpoint({
      method: 'POST',
      path: `/${base}/delete`,
      caller: 'merchant',
      grants: { merchant: ['finance'] },
      input: strictObject({ id }),
      output: settlementRow,
    }),
    /**
     * The platform approves `auditAmount` (≤ amount; the difference is released at once) and, for USDT,
     * the price. Above the maker–checker threshold this records a request a second user approves.
     */
    confirm: endpoint({
      method: 'POST',
      path: `/${base}/confirm`,
      caller: 'platform',
      grants: { platform: ['finance'] },
      input: strictObject({ id, auditAmount: amount, price: z.optional(price), code: moneyCode }),
      output: settlementRow,
    }),
    /** The money reached the merchant: the hold is spent. Never by the user who confirmed. */
    complete: endpoint({
      method: 'POST',
      path: `/${base}/complete`,
      caller: 'platform',
      grants: { platform: ['finance'] },
      input: strictObject({
        id,
        reference,
        attachments: z.optional(z.array(id).check(z.maxLength(5))),
        code: moneyCode,
      }),
      output: settlementRow,
    }),
    reject: endpoint({
      method: 'POST',
      path: `/${base}/reject`,
      caller: 'platform',
      grants: { platform: ['finance'] },
      input: strictObject({ id, reason: actionReason, code: moneyCode }),
      output: settlementRow,
    }),
    /** A proof image (PNG, JPEG or WebP, at most 2 MB, base64), attached later by `complete`. */
    uploadImage: endpoint({
      method: 'POST',
      path: `/${base}/uploadImage`,
      caller: 'platform',
      grants: { platform: ['finance'] },
      maxBodyBytes: proofImageBodyBytes,
      input: strictObject(proofImage),
      output: uploadedImage,
    }),
    /** A proof image of a settlement, for users who may see it. */
    image: endpoint({
      method: 'GET',
      path: `/${base}/image`,
      caller: 'both',
      grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator'] },
      input: z.object({ id }),
      output: z.object({
        id: z.number(),
        settlementId: z.number(),
        mime: z.string(),
        size: z.number(),
        dataBase64: z.string(),
      }),
    }),
  };
}

export const settlementPayment = settlementEndpoints('settlementPayment');
export const settlementPayout = settlementEndpoints('settlementPayout');

/** The endpoint set of a wallet's settlements. */
export const settlementOf = { collection: settlementPayment, payout: settlementPayout } as const;

/** The platform's real-time settlement queue: open applications of both wallets, oldest first. */
export const settlementQuery = {
  list: endpoint({
    method: 'GET',
    path: '/settlementQuery/list',
    caller: 'platform',
    grants: { platform: ['operator', 'finance'] },
    input: z.object({
      status: z.optional(z.enum(settlement.sets.open)),
      merchantId: z.optional(id),
      ...cursorPaging(50),
    }),
    output: z.object({
      list: z.array(z.object({ ...settlementRow.shape, ageSeconds: z.number() })),
      nextCursor: z.nullable(z.string()),
      /** Per open state: how many wait and what they hold. */
      summary: z.object({
        toConfirm: z.object({
          count: z.number(),
          amount: moneyOut,
          oldestAgeSeconds: z.nullable(z.number()),
        }),
        toComplete: z.object({
          count: z.number(),
          amount: moneyOut,
          oldestAgeSeconds: z.nullable(z.number()),
        }),
      }),
    }),
  }),
};
