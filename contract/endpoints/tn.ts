/**
 * T+N settlement (OPERATIONS.md section 1, "T+N and D0"): a T+N merchant's pending collection is kept as
 * lines per (merchant, currency, order business day), each due on its order day plus the cycle's N; a
 * settlement run for business day D releases every pending line due on or before D into the merchant's
 * available collection balance. `/merchantSettlementtn/*` lists the lines (both kinds of user),
 * `/settlementtnLog/*` the runs and a run started by hand (platform).
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { tnLine } from '../machines.ts';
import { moneyOut } from '../money.ts';
import { code6, cursor, id, pageSize, strictObject } from '../schemas.ts';

/** Widest period of order days a list of lines covers (inclusive). */
export const tnListDays = 62;

/** A calendar date `YYYY-MM-DD` that exists (2026-02-30 does not). */
export const businessDay = z.string().check(
  z.regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'validation.day' }),
  z.refine(
    (v) => {
      const d = new Date(`${v}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v && v >= '2000-01-01';
    },
    { message: 'validation.day' },
  ),
);

/** Days from `from` to `to` (dates `YYYY-MM-DD`): 0 for the same day. */
export const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

/** `day` plus `n` calendar days (dates `YYYY-MM-DD`: no time zone involved). */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

export const tnLineStatus = z.enum(tnLine.states);
export const tnRunOutcome = z.enum(['running', 'succeeded', 'partial', 'failed']);

export const tnLineRow = z.object({
  id: z.number(),
  merchantId: z.number(),
  merchantCode: z.string(),
  currency: z.string(),
  /** The business day the orders were paid. */
  orderDay: z.string(),
  /** The first run day that releases it: the order day plus the merchant's N when they were paid. */
  dueDay: z.string(),
  orders: z.number(),
  /** What the payers paid. */
  gross: moneyOut,
  fee: moneyOut,
  /** What of the net went elsewhere than pending: the rolling reserve's share and debt repaid. */
  withheld: moneyOut,
  /** What the merchant gets when released: gross less fee less withheld (pending until then). */
  net: moneyOut,
  status: tnLineStatus,
  /** The run that released it. */
  runId: z.nullable(z.number()),
  releasedAt: z.nullable(z.string()),
});

export const tnRunRow = z.object({
  id: z.number(),
  /** The business day it ran for: it released the lines due on or before it. */
  day: z.string(),
  startedAt: z.string(),
  finishedAt: z.nullable(z.string()),
  /** Merchants, lines and amount released (failed merchants are not counted). */
  merchants: z.number(),
  lines: z.number(),
  amountReleased: moneyOut,
  outcome: tnRunOutcome,
  /** The platform user who ran it by hand; null for the daily job. */
  startedBy: z.nullable(z.string()),
  error: z.nullable(z.string()),
});

/** A run's outcome for one merchant and currency: released in one transaction, or failed whole. */
export const tnRunMerchantRow = z.object({
  merchantId: z.number(),
  merchantCode: z.string(),
  currency: z.string(),
  lines: z.number(),
  amount: moneyOut,
  outcome: z.enum(['released', 'failed']),
  error: z.nullable(z.string()),
});

export const merchantSettlementtn = {
  /**
   * Lines newest order day first. The order days `from`..`to` span at most 62 days; without them, the
   * 62 days up to today (business time). A merchant user sees its own lines whatever `merchantId` says.
   */
  list: endpoint({
    method: 'GET',
    path: '/merchantSettlementtn/list',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator'] },
    input: z
      .object({
        merchantId: z.optional(id),
        status: z.optional(tnLineStatus),
        from: z.optional(businessDay),
        to: z.optional(businessDay),
        cursor,
        pageSize,
      })
      .check(
        z.refine((v) => !v.from || !v.to || v.from <= v.to, {
          message: 'validation.periodOrder',
          path: ['to'],
        }),
        z.refine((v) => !v.from || !v.to || daysBetween(v.from, v.to) < tnListDays, {
          message: 'validation.dayPeriod',
          path: ['to'],
        }),
      ),
    output: z.object({
      list: z.array(tnLineRow),
      /** Lines of the filtered set. */
      total: z.number(),
      nextCursor: z.nullable(z.string()),
      /** The order days the list covers (the defaults filled in). */
      from: z.string(),
      to: z.string(),
      /** Sums of the filtered set, per currency. */
      totals: z.array(
        z.object({
          currency: z.string(),
          orders: z.number(),
          gross: moneyOut,
          fee: moneyOut,
          withheld: moneyOut,
          net: moneyOut,
        }),
      ),
    }),
  }),
};

export const settlementtnLog = {
  /** Runs, newest first. */
  list: endpoint({
    method: 'GET',
    path: '/settlementtnLog/list',
    caller: 'platform',
    grants: { platform: ['operator', 'finance'] },
    input: z.object({ outcome: z.optional(tnRunOutcome), cursor, pageSize }),
    output: z.object({ list: z.array(tnRunRow), total: z.number(), nextCursor: z.nullable(z.string()) }),
  }),
  /** One run with its outcome per merchant and currency. */
  info: endpoint({
    method: 'GET',
    path: '/settlementtnLog/info',
    caller: 'platform',
    grants: { platform: ['operator', 'finance'] },
    input: z.object({ id }),
    output: z.object({ ...tnRunRow.shape, merchantOutcomes: z.array(tnRunMerchantRow) }),
  }),
  /**
   * Runs the settlement for business day `day` (today or earlier) now: releases every pending line due on
   * or before it, one merchant at a time. A day that already ran releases nothing more.
   */
  run: endpoint({
    method: 'POST',
    path: '/settlementtnLog/run',
    caller: 'platform',
    grants: { platform: ['finance'] },
    input: strictObject({ day: businessDay, code: code6 }),
    output: tnRunRow,
  }),
};
