/**
 * Reports over the daily rollups (OPERATIONS.md section 3). `GET /statOrder/balance` answers a view of
 * the merchants' balances; `view=d0` is the D0 settlement summary (section 1): per merchant and business
 * day, the collection wallet (available + pending) from its opening balance to its closing one, each
 * column read from where it is kept, the closing checked against the ledger.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { moneyOut } from '../money.ts';
import { cursor, id } from '../schemas.ts';
import { businessDay, daysBetween } from './tn.ts';

/** Widest period of a balance view, in business days (inclusive). */
export const balanceViewDays = 62;
/** The period without `from`: this many business days up to `to` (inclusive). */
export const balanceViewDefaultDays = 7;

export const balanceView = z.enum(['d0']);

/**
 * The collection wallet's figures over one business day (a row) or the whole period (the totals).
 * Money leaving the wallet is positive in `settledOut` and `transferred`.
 */
const d0Figures = {
  currency: z.string(),
  /** The ledger's balance of the wallet when the day (the period) began. */
  opening: moneyOut,
  /** Pay-ins created that day and paid, their amounts and fees (as the order statistics count them). */
  paidCount: z.number(),
  gross: moneyOut,
  fees: moneyOut,
  /**
   * What payments credited to the wallet that day, net of fees (the ledger's `payin_paid` postings):
   * an order paid on a later day than it was created counts here on the day it was paid.
   */
  netCredited: moneyOut,
  /** Held for settlement applications of this wallet (amount + fee), less holds given back that day. */
  settledOut: moneyOut,
  /** Moved to the payout wallet by the merchant. */
  transferred: moneyOut,
  /** Balance adjustments by the platform (signed). */
  adjustments: moneyOut,
  /** opening + netCredited − settledOut − transferred + adjustments. */
  closing: moneyOut,
  /** The ledger's balance of the wallet when the day (the period) ended. */
  ledgerClosing: moneyOut,
  /** closing ≠ ledgerClosing: something moved the wallet that the columns do not account for. */
  mismatch: z.boolean(),
};

export const d0Row = z.object({
  day: z.string(),
  merchantId: z.number(),
  merchantCode: z.string(),
  ...d0Figures,
});

export const statOrder = {
  /**
   * `view=d0`: one row per merchant, currency and business day on which its collection wallet moved or
   * it had pay-ins paid, newest day first, then by merchant; `totals` per currency over the whole
   * filtered period (opening when it began, closing when it ended). A merchant user sees its own rows;
   * naming another merchant answers 404.
   */
  balance: endpoint({
    method: 'GET',
    path: '/statOrder/balance',
    caller: 'both',
    grants: { platform: ['finance', 'operator'], merchant: ['finance'] },
    input: z
      .object({
        view: balanceView,
        /** Business days, inclusive: `to` defaults to today, `from` to the week up to `to`. */
        from: z.optional(businessDay),
        to: z.optional(businessDay),
        merchantId: z.optional(id),
        cursor,
        pageSize: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100)), 50),
      })
      .check(
        z.refine((v) => !v.from || !v.to || v.from <= v.to, {
          message: 'validation.periodOrder',
          path: ['to'],
        }),
        z.refine((v) => !v.from || !v.to || daysBetween(v.from, v.to) < balanceViewDays, {
          message: 'validation.dayPeriod',
          path: ['to'],
        }),
      ),
    output: z.object({
      view: balanceView,
      /** The period answered (the defaults filled in), and the business time zone its days are cut in. */
      from: z.string(),
      to: z.string(),
      businessTimeZone: z.string(),
      list: z.array(d0Row),
      /** Rows of the whole period. */
      total: z.number(),
      nextCursor: z.nullable(z.string()),
      totals: z.array(z.object({ merchants: z.number(), ...d0Figures })),
    }),
  }),
};
