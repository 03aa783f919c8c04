/**
 * Reports over the daily rollups (OPERATIONS.md section 3). `GET /statOrder/balance` answers a view of
 * the merchants' balances; `view=d0` is the D0 settlement summary (section 1): per merchant and business
 * day, the collection wallet (available + pending) from its opening balance to its closing one, each
 * column read from where it is kept, the closing checked against the ledger.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { moneyOut } from '../money.ts';
import { cursor, id, pageSizeOf } from '../schemas.ts';
import { exportFormat } from './orders.ts';
import { businessDay, daysBetween } from './tn.ts';

/** Widest period of a balance view, in business days (inclusive). */
export const balanceViewDays = 62;
/** The period without `from`: this many business days up to `to` (inclusive). */
export const balanceViewDefaultDays = 7;

export const balanceView = z.enum(['d0', 'account', 'merchant']);

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
  /**
   * The rolling reserve settlement runs released into the wallet that day (docs/MONEY-BACK.md section 4);
   * a payment's reserve share and the debt it repaid never reach the wallet, so `netCredited` is without them.
   */
  reserveReleased: moneyOut,
  /** Held for settlement applications of this wallet (amount + fee), less holds given back that day. */
  settledOut: moneyOut,
  /** Moved to the payout wallet by the merchant. */
  transferred: moneyOut,
  /** Balance adjustments by the platform (signed). */
  adjustments: moneyOut,
  /** Held for frozen receiving accounts that day, less what their settlements gave back (signed). */
  frozen: moneyOut,
  /**
   * What frozen accounts' settlements wrote off that day of the merchant's holds (outside the wallet: it
   * left the wallet when held, so it is not in the closing).
   */
  writtenOff: moneyOut,
  /** opening + netCredited + reserveReleased − settledOut − transferred + adjustments − frozen. */
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

/**
 * What the account's statements say of the day (by account only; null by channel, or when all is well):
 * `missing`, orders were paid into it and no statement line of that day is kept (not imported yet, or
 * lost); `gap`, the day's running balance does not run on from the account's previous day with lines, or
 * breaks within the day (lines between two imports, or of the day, are missing).
 */
export const statementCoverage = z.enum(['missing', 'gap']);

export const accountRow = z.object({
  day: z.string(),
  accountId: z.nullable(z.number()),
  channelId: z.nullable(z.number()),
  /** The account (bank and masked number) or the channel's name. */
  label: z.string(),
  ...accountFigures,
  statement: z.nullable(statementCoverage),
  /**
   * By account: what a bank's freeze (`accountFreeze.record`) held of the account's money when the day
   * ended, the line between the book and the bank (bank balance = book balance − frozen); null by channel.
   */
  frozen: z.nullable(moneyOut),
});

/**
 * Settlement statistics (`view=merchant`, `/stat/statpayout`): one merchant wallet over the period, from
 * the ledger's daily movements (`ledger_daily`). `collection` is the collection wallet (available plus
 * pending, as in the D0 summary), `payout` the payout wallet. Money leaving the wallet is negative: every
 * movement column is signed as it changes the wallet, so opening + the movements = closing.
 */
export const merchantWallet = z.enum(['collection', 'payout']);
/** The movement columns between opening and closing, in the order the report shows them. */
export const walletMovements = [
  'collected',
  'payouts',
  'settlements',
  'recharges',
  'transfers',
  'adjustments',
  'other',
] as const;
const merchantFigures = {
  wallet: merchantWallet,
  currency: z.string(),
  /** The ledger's balance when the period began. */
  opening: moneyOut,
  /** Pay-ins paid, net of fees (collection). */
  collected: moneyOut,
  /** Payouts: amount and fee held, less holds given back (payout). */
  payouts: moneyOut,
  /** Settlement applications: held (amount + fee), less holds given back. */
  settlements: moneyOut,
  /** Recharges confirmed (payout). */
  recharges: moneyOut,
  /** Transfers between the merchant's wallets: out of collection, into payout. */
  transfers: moneyOut,
  /** Balance adjustments by the platform. */
  adjustments: moneyOut,
  /** Any other movement of the wallet (none is expected: a figure here is worth a look). */
  other: moneyOut,
  /** opening + every movement. */
  closing: moneyOut,
  /** The ledger's balance when the period ended. */
  ledgerClosing: moneyOut,
  /** closing ≠ ledgerClosing. */
  mismatch: z.boolean(),
};

export const merchantBalanceRow = z.object({
  merchantId: z.number(),
  merchantCode: z.string(),
  merchantName: z.string(),
  ...merchantFigures,
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

/** A report's period: business days, inclusive; `to` defaults to today, `from` to the week up to `to`. */
export const reportPeriod = { from: z.optional(businessDay), to: z.optional(businessDay) };
/** A period given whole: `from` not after `to`, at most `balanceViewDays` days. */
export const periodChecks = [
  z.refine<{ from?: string; to?: string }>((v) => !v.from || !v.to || v.from <= v.to, {
    message: 'validation.periodOrder',
    path: ['to'],
  }),
  z.refine<{ from?: string; to?: string }>(
    (v) => !v.from || !v.to || daysBetween(v.from, v.to) < balanceViewDays,
    { message: 'validation.dayPeriod', path: ['to'] },
  ),
] as const;
const pageSize = pageSizeOf(50);

/**
 * A statistics report's answer: the period, a page of its rows, and the figures added up per currency
 * over the whole period (`totals`) and per day and currency (`series`, the chart's).
 */
const statReport = <R extends z.ZodMiniType, F extends z.core.$ZodShape>(row: R, figures: F) =>
  z.object({
    ...period,
    list: z.array(row),
    totals: z.array(z.object({ currency: z.string(), ...figures })),
    series: z.array(z.object({ day: z.string(), currency: z.string(), ...figures })),
  });
/** A query-string switch: `true`/`1` or `false`/`0`. */
const flag = z.pipe(
  z.enum(['true', 'false', '1', '0']),
  z.transform((v) => v === 'true' || v === '1'),
);
/** What the order statistics are filtered by, on screen and in their file alike. */
const orderStatFilters = {
  ...reportPeriod,
  merchantId: z.optional(id),
  channelId: z.optional(id),
  byChannel: z.optional(flag),
};

/**
 * The pay-time rollup's buckets (`payin_pay_time_daily`, migration 0019): upper bounds in seconds from a
 * pay-in's creation to its payment. Bucket 0 is [0, first bound), bucket i [bound i−1, bound i), the last
 * one (index = the bounds' length) everything from the last bound on. The migration's `pay_time_bounds()`
 * holds the same list (a test compares them); changing it means rebuilding the rollup.
 */
export const payTimeBounds = [
  15, 30, 45, 60, 90, 120, 180, 240, 300, 420, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400,
  21600, 43200, 86400,
] as const;

/** Success rate as a fraction 0–1 (successes ÷ orders that ended), null when none ended. */
const rate = z.nullable(z.number());

/**
 * The order statistics' figures. An order counts on the business day it was created; `payinCreated` and
 * `payoutCreated` count every order of the day whatever its state (as the order list does), the others
 * only paid pay-ins and successful payouts (as the list's totals do).
 */
const orderFigures = {
  payinCreated: z.number(),
  payinPaid: z.number(),
  /** payinPaid ÷ pay-ins that ended (paid, unpaid, failed, creation failed). */
  payinSuccessRate: rate,
  /** Order amounts of the paid pay-ins (gross). */
  payinPaidAmount: moneyOut,
  /** Their fees (a merchant user: the fees it paid). */
  payinFee: moneyOut,
  /** payinPaidAmount − payinFee. */
  payinNet: moneyOut,
  payoutCreated: z.number(),
  payoutSucceeded: z.number(),
  payoutAmount: moneyOut,
  payoutFee: moneyOut,
};

export const orderStatRow = z.object({
  day: z.string(),
  merchantId: z.number(),
  merchantCode: z.string(),
  /** With `byChannel`: the channel (null: none took the order); otherwise null. */
  channelId: z.nullable(z.number()),
  channelName: z.nullable(z.string()),
  currency: z.string(),
  ...orderFigures,
});

/**
 * The channel statistics' figures. `channelCost` is worked out at the channel's current rates (the orders
 * do not record what the channel charged); `feeIncome` is what the platform kept of the fees (pay-in fees
 * less the agents' commission, plus payout fees); `margin` = feeIncome − channelCost.
 */
const channelFigures = {
  payinCreated: z.number(),
  payinPaid: z.number(),
  payinSuccessRate: rate,
  payinAmount: moneyOut,
  /** Median seconds from creation to payment, from the pay-time rollup's buckets (interpolated); null when none paid. */
  medianPaySeconds: z.nullable(z.number()),
  payoutCreated: z.number(),
  payoutSucceeded: z.number(),
  payoutSuccessRate: rate,
  payoutAmount: moneyOut,
  channelCost: moneyOut,
  feeIncome: moneyOut,
  margin: moneyOut,
};

export const channelStatRow = z.object({
  day: z.string(),
  channelId: z.number(),
  channelCode: z.string(),
  channelName: z.string(),
  currency: z.string(),
  ...channelFigures,
});

export const statOrder = {
  /**
   * `view=d0`: one row per merchant, currency and business day on which its collection wallet moved or
   * it had pay-ins paid, newest day first, then by merchant; `totals` per currency over the whole
   * filtered period (opening when it began, closing when it ended). A merchant user sees its own rows;
   * naming another merchant answers 404.
   * `view=merchant` (settlement statistics, `/stat/statpayout`): one row per merchant, wallet and currency
   * over the whole period (merchants by id, collection before payout), `totals` per wallet and currency; a
   * merchant user sees its own rows.
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
        ...reportPeriod,
        merchantId: z.optional(id),
        cursor,
        pageSize: pageSizeOf(50),
      })
      .check(...periodChecks),
    output: z.discriminatedUnion('view', [
      z.object({
        view: z.literal('d0'),
        ...period,
        list: z.array(d0Row),
        totals: z.array(z.object({ merchants: z.number(), ...d0Figures })),
      }),
      z.object({
        view: z.literal('merchant'),
        ...period,
        list: z.array(merchantBalanceRow),
        totals: z.array(z.object({ merchants: z.number(), ...merchantFigures })),
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
  /**
   * Order statistics (`/stat/statorder`, OPERATIONS.md section 3): per business day (of creation) and
   * merchant, or per day, merchant and channel (`byChannel`), newest day first, then by merchant (and
   * channel) id; `totals` per currency over the whole filtered period; `series` per day and currency for
   * the chart. Read from the daily rollups, never the orders. A merchant user sees its own rows (naming
   * another merchant answers 404) and no channel.
   */
  list: endpoint({
    method: 'GET',
    path: '/statOrder/list',
    caller: 'both',
    grants: { platform: ['finance', 'operator'], merchant: ['finance'] },
    input: z.object({ ...orderStatFilters, cursor, pageSize }).check(...periodChecks),
    output: statReport(orderStatRow, orderFigures),
  }),
  /** The order statistics of the same filters as one file (every row, then the totals). */
  listExport: endpoint({
    method: 'GET',
    path: '/statOrder/list/export',
    download: true,
    caller: 'both',
    grants: { platform: ['finance', 'operator'], merchant: ['finance'] },
    input: z.object({ ...orderStatFilters, format: exportFormat }).check(...periodChecks),
    output: z.unknown(),
  }),
  /**
   * Channel statistics (`/stat/statchannel`; platform users only): per channel, business day (of creation)
   * and currency, newest day first, then by channel id; `totals` per currency; `series` per day and currency.
   */
  channel: endpoint({
    method: 'GET',
    path: '/statOrder/channel',
    caller: 'platform',
    grants: { platform: ['finance', 'operator'] },
    input: z.object({ ...reportPeriod, channelId: z.optional(id), cursor, pageSize }).check(...periodChecks),
    output: statReport(channelStatRow, channelFigures),
  }),
  /** The channel statistics of the same filters as one file. */
  channelExport: endpoint({
    method: 'GET',
    path: '/statOrder/channel/export',
    download: true,
    caller: 'platform',
    grants: { platform: ['finance', 'operator'] },
    input: z
      .object({ ...reportPeriod, channelId: z.optional(id), format: exportFormat })
      .check(...periodChecks),
    output: z.unknown(),
  }),
  /** The settlement statistics (`view=merchant`) of the same filters as one file. */
  balanceExport: endpoint({
    method: 'GET',
    path: '/statOrder/balance/export',
    download: true,
    caller: 'both',
    grants: { platform: ['finance', 'operator'], merchant: ['finance'] },
    input: z
      .object({ ...reportPeriod, merchantId: z.optional(id), format: exportFormat })
      .check(...periodChecks),
    output: z.unknown(),
  }),
};
