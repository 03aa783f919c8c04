/** What the order endpoints share: the states, the list filters, callback and posting rows, a row's head. */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { callback, payin, payout, recharge } from '../machines.ts';
import { moneyOut } from '../money.ts';
import { field } from '../orderRow.ts';
import type { RoleGrants } from '../permissions.ts';
import { actionReason, cursor, id, isoTime, listOf, moneyCode, pageSize, strictObject } from '../schemas.ts';

export const payinStatus = z.enum(payin.states);
export const payoutStatus = z.enum(payout.states);
export const rechargeStatus = z.enum(recharge.states);
export const pushStatus = z.enum(['unpushed', 'pushed']);

/** One status or several (a repeated query key). */
export const oneOrMany = <T extends z.ZodMiniType>(item: T) =>
  z.optional(z.union([item, z.array(item).check(z.maxLength(10))]));

/**
 * Order lists: a period must be chosen (`from`, `to`), inside the last 60 days; `q` matches any of the
 * order's numbers (system, merchant, channel, UTR) whole or by prefix.
 */
export const orderFilters = {
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
const { pageSize: _pageSize, cursor: _cursor, ...withoutPaging } = orderFilters;
/** The same filters without paging, for exports. */
export const exportFilters = withoutPaging;
export const exportFormat = z.enum(['csv', 'xlsx']);
/** Exports may cover at most one week (PRODUCT.md section 2). */
export const periodWithinWeek = z.refine<{ from: string; to: string }>(
  (v) => new Date(v.to).getTime() - new Date(v.from).getTime() <= 7 * 86_400_000,
  { message: 'validation.periodWeek', path: ['to'] },
);
export const periodInOrder = z.refine<{ from: string; to: string }>(
  (v) => new Date(v.to) >= new Date(v.from),
  {
    message: 'validation.periodOrder',
    path: ['to'],
  },
);

/** A hand action on money answers to a second factor: the acting user's Google code, and why. */
export const secondFactor = { code: moneyCode, reason: actionReason };
/**
 * A platform user's hand decision on one record (a payout retried or failed, a recharge confirmed or
 * rejected): the record's id and the second factor in; the record as it now is out.
 */
export const handDecision = <R extends z.ZodMiniType>(path: string, grants: RoleGrants, row: R) =>
  endpoint({
    method: 'POST',
    path,
    caller: 'platform',
    grants,
    input: strictObject({ id, ...secondFactor }),
    output: row,
  });
export const merchantOrderNo = z
  .string()
  .check(z.trim(), z.regex(/^[A-Za-z0-9_.:-]{1,64}$/, { message: 'validation.orderNo' }));
export const byOrder = z.object({
  id: z.optional(id),
  orderNo: z.optional(z.string().check(z.maxLength(64))),
});

export const snapshot = z.unknown();
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
export const orderHead = {
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

export const listTotals = z.object({ count: z.number(), amount: moneyOut, countCapped: z.boolean() });

/** Who reads the orders: the platform's operators and finance, the merchant's finance, operators and developers. */
const orderGrants = {
  platform: ['operator', 'finance'],
  merchant: ['finance', 'operator', 'developer'],
} as const;

/**
 * An order list's endpoints, alike for pay-ins and payouts but for the path, the states and the row: a
 * page, the count and amount of the filtered set (capped like list totals), and the whole set as a CSV or
 * XLSX file, streamed (`download`: a file, not the envelope). `more`: the kind's own filters.
 */
export function orderListEndpoints<
  S extends z.ZodMiniType,
  R extends z.ZodMiniType,
  M extends z.core.$ZodShape = Record<never, never>,
>(base: '/merchantOrder' | '/merchantPayout', status: S, row: R, more?: M) {
  const grants = orderGrants;
  // The period checks read `from` and `to` alone; TypeScript cannot see them in a shape spread with `M`.
  const filtered = z
    .object({ ...orderFilters, ...(more as M), status: oneOrMany(status) })
    .check(periodInOrder as never);
  return {
    list: endpoint({
      method: 'GET',
      path: `${base}/list`,
      caller: 'both',
      grants,
      input: filtered,
      output: listOf(row),
    }),
    totals: endpoint({
      method: 'GET',
      path: `${base}/totals`,
      caller: 'both',
      grants,
      input: filtered,
      output: listTotals,
    }),
    export: endpoint({
      method: 'GET',
      path: `${base}/export`,
      caller: 'both',
      grants,
      download: true,
      input: z
        .object({ ...exportFilters, ...(more as M), status: oneOrMany(status), format: exportFormat })
        .check(periodInOrder as never, periodWithinWeek as never),
      output: z.unknown(),
    }),
  };
}

/**
 * An order's drawer (`{base}/info`): its row, what only its kind shows (`own`), then what every order
 * keeps (the gateway's request and answer, its callbacks, its postings), and `after` that.
 */
export function orderInfoEndpoint<
  R extends z.core.$ZodShape,
  O extends z.core.$ZodShape,
  A extends z.core.$ZodShape = Record<never, never>,
>(base: '/merchantOrder' | '/merchantPayout', row: z.ZodMiniObject<R>, own: O, after?: A) {
  return endpoint({
    method: 'GET',
    path: `${base}/info`,
    caller: 'both',
    grants: orderGrants,
    input: byOrder,
    output: z.object({
      ...row.shape,
      ...own,
      requestSnapshot: snapshot,
      responseSnapshot: snapshot,
      callbacks: z.array(callbackEvent),
      postings: z.array(postingRow),
      ...(after as A),
    }),
  });
}
