/**
 * The public pay page of the bank channel (OPERATIONS.md section 2): its two JSON calls, answered in the
 * usual `{errno, errmsg, data}` envelope without sign-in. Only what a payer needs leaves the server: no
 * merchant, fee or internal id. The page itself imports these as types only (its bundle carries no zod).
 */
import * as z from 'zod/mini';
import { moneyOut } from './money.ts';
import { strictObject, utr } from './schemas.ts';

/**
 * The order as the page shows it: `expired` is an unpaid order or a pending one past its expiry; a
 * creation that failed shows as `failed`.
 */
export const payPageStatuses = ['pending', 'paid', 'expired', 'failed'] as const;
export type PayPageStatus = (typeof payPageStatuses)[number];

/** Where to pay: the receiving account, shown only while the order is pending. */
export const payAccount = z.object({
  bankName: z.string(),
  accountName: z.string(),
  accountNumber: z.string(),
  ifsc: z.string(),
  vpa: z.nullable(z.string()),
});

/**
 * `GET /pay/:orderNo/info`. Anyone holding the order number reads it, so it tells what a payer needs to
 * pay an open order and, once the order is paid, expired or closed, its outcome alone: no amount, no
 * deadline, no account, no UTR.
 */
export const payInfo = z.object({
  orderNo: z.string(),
  status: z.enum(payPageStatuses),
  /** While pending only. */
  amount: z.nullable(moneyOut),
  currency: z.nullable(z.string()),
  expiresAt: z.nullable(z.string()),
  /** The server's clock when it answered: the countdown runs on it, not on the phone's clock. */
  now: z.string(),
  account: z.nullable(payAccount),
  /** `upi://pay?pa=…&pn=…&am=…&cu=INR&tn=<order no>`, and the same as a QR code (SVG text). */
  upiUri: z.nullable(z.string()),
  qrSvg: z.nullable(z.string()),
  /** While pending: the UTR the payer already submitted, its last four characters only (`••••1234`). */
  payerUtr: z.nullable(z.string()),
  returnUrl: z.nullable(z.string()),
  /** The platform's words for payers (parameter `pay_page_support_text`), plain text; null when empty. */
  supportText: z.nullable(z.string()),
});
export type PayInfo = z.output<typeof payInfo>;

/** `POST /pay/:orderNo/utr`: the UTR the payer says they paid with. */
export const payUtrInput = strictObject({ utr });
export const payUtrAnswer = z.object({ payerUtr: z.string() });
export type PayUtrAnswer = z.output<typeof payUtrAnswer>;

/** The largest body `POST /pay/:orderNo/utr` reads: `{"utr":"…"}` is a few dozen bytes. */
export const payUtrMaxBytes = 512;
