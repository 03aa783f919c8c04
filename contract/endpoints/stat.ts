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

export const balanceView = z.enum(['d0', 'account']);

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

/** One business day's proof of collection, as a figure: how many and how much (minor units as decimals). */
const countSum = z.object({ count: z.number(), sum: moneyOut });

/**
 * Reconciliation's figures (OPERATIONS.md section 2): what was paid against what the statements prove.
 * Every difference is linked to its lines: `unmatchedCredits` to the statement list of that day and account
 * (open credits), `unproved` to the paid orders with no statement line.
 */
const accountFigures = {
  currency: z.string(),
  /**
   * Pay-ins routed to the account (or channel) and paid, on the day the money arrived: the day of the
   * statement line that proves one, else the business day it was paid (unproved).
   */
  paid: countSum,
  /** Statement credits of that day that paid an order (matched). */
  matchedCredits: countSum,
  /** Statement credits of that day still open or dismissed: money in that no order accounts for. */
  unmatchedCredits: countSum,
  /** Paid orders with no statement line (forced, or paid by the channel's word). */
  unproved: countSum,
  /**
   * The channel clearing account's movement that day in the ledger, as the ledger signs it (a pay-in paid
   * moves it by minus what the payer paid). The ledger keeps one clearing account per currency for every
   * channel, so each channel's row of a day shows the same figure. Null when grouped by account.
   */
  clearing: z.nullable(moneyOut),
  /** paid − matched credits: zero when every payment is proved by the bank. */
  difference: moneyOut,
};

export const accountRow = z.object({
  day: z.string(),
  accountId: z.nullable(z.number()),
  channelId: z.nullable(z.number()),
  /** The account (bank and masked number) or the channel's name. */
  label: z.string(),
  ...accountFigures,
});

const period = {
  /** The period answered (the defaults filled in), and the business time zone its days are cut in. */
  from: z.string(),
  to: z.string(),
  businessTimeZone: z.string(),
  /** Rows of the whole period. */
  total: z.number(),
  nextCursor: z.nullable(z.string()),
};

/** A paid order no statement line proves (reconciliation's `unproved`): what to look into. */
export const unprovedOrder = z.object({
  id: z.number(),
  orderNo: z.string(),
  merchantCode: z.string(),
  amount: moneyOut,
  paidAmount: moneyOut,
  paidBy: z.nullable(z.string()),
  paidAt: z.string(),
  utr: z.nullable(z.string()),
  accountLabel: z.string(),
});

/** At most this many unproved orders are listed for one row. */
export const unprovedLimit = 500;

export const statOrder = {
  /**
   * `view=d0`: one row per merchant, currency and business day on which its collection wallet moved or
   * it had pay-ins paid, newest day first, then by merchant; `totals` per currency over the whole
   * filtered period (opening when it began, closing when it ended). A merchant user sees its own rows;
   * naming another merchant answers 404.
   * `view=account` (reconciliation, `/stat/stataccount`; platform users only, a merchant user gets 403):
   * one row per business day, receiving account (or bank channel) and currency with paid orders or
   * statement credits, newest day first, then by account (channel) id; by channel, credits that paid no
   * order count under their account's bank channel, or under none (`channelId` null, `label` empty).
   */
  balance: endpoint({
    method: 'GET',
    path: '/statOrder/balance',
    caller: 'both',
    grants: { platform: ['finance', 'operator'], merchant: ['finance'] },
    input: z
      .object({
        view: balanceView,
        /** `view=account`: a row per receiving account (default) or per bank channel. */
        by: z.optional(z.enum(['account', 'channel'])),
        accountId: z.optional(id),
        channelId: z.optional(id),
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
    output: z.discriminatedUnion('view', [
      z.object({
        view: z.literal('d0'),
        ...period,
        list: z.array(d0Row),
        totals: z.array(z.object({ merchants: z.number(), ...d0Figures })),
      }),
      z.object({
        view: z.literal('account'),
        by: z.enum(['account', 'channel']),
        ...period,
        list: z.array(accountRow),
        totals: z.array(z.object(accountFigures)),
      }),
    ]),
  }),
  /**
   * The paid orders behind a reconciliation row's `unproved` figure: paid that business day into the
   * receiving account (or through the bank channel) with no statement line, oldest payment first, at most
   * `unprovedLimit` (`capped` says there were more). Platform users only.
   */
  unproved: endpoint({
    method: 'GET',
    path: '/statOrder/unproved',
    caller: 'platform',
    grants: { platform: ['finance', 'operator'] },
    input: z.object({ day: businessDay, accountId: z.optional(id), channelId: z.optional(id) }),
    output: z.object({ list: z.array(unprovedOrder), capped: z.boolean() }),
  }),
};
