/**
 * Receiving accounts (OPERATIONS.md section 2): the bank accounts payers pay into. Public accounts are
 * the platform's own; donor cards are lent by account holders. A bank channel (adapter `bank`) routes each
 * pay-in to an eligible account bound to it (`cardBinding`), within its daily amount and count limits.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { amount, moneyOut, ratePercent } from '../money.ts';
import { id, ifscAnyCase, listOf, okFlag, page, pageSize, searchText, strictObject } from '../schemas.ts';
import { accountName, accountNumber } from './orders.ts';

export const receivingKinds = ['public', 'card'] as const;
export const receivingStatuses = ['active', 'paused', 'frozen'] as const;
export const holderStatuses = ['active', 'disabled'] as const;
export const holderNumberKinds = ['phone', 'upi'] as const;

/** A UPI virtual payment address: `name@handle`. */
export const vpa = z
  .string()
  .check(
    z.trim(),
    z.regex(/^[A-Za-z0-9._-]{2,64}@[A-Za-z][A-Za-z0-9.-]{1,31}$/, { message: 'validation.vpa' }),
  );
const bankName = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(100));
const personName = bankName;
const phone = z.string().check(z.trim(), z.regex(/^\+?[0-9]{8,15}$/, { message: 'validation.phone' }));
const idNumber = z
  .string()
  .check(z.trim(), z.minLength(4, { message: 'validation.idNumber' }), z.maxLength(40));
const dailyCount = z.number().check(z.int(), z.minimum(1), z.maximum(1_000_000));
/** A minute of the business day, `HH:MM`. */
const clock = z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'validation.clock' }));
const weight = z.number().check(z.int(), z.minimum(1), z.maximum(10_000));

/** Per-order minimum not above the maximum. */
const minNotAboveMax = z.refine<{ minAmount?: number | undefined; maxAmount?: number | undefined }>(
  (v) => v.minAmount === undefined || v.maxAmount === undefined || v.minAmount <= v.maxAmount,
  { message: 'validation.maxBelowMin', path: ['maxAmount'] },
);

/** A receiving account as lists and logs name it: the bank and the account number's last four digits. */
export const accountLabel = (a: { bankName: string; accountNumber: string }) =>
  `${a.bankName} ·${a.accountNumber.slice(-4)}`;

export const receivingAccountRow = z.object({
  id: z.number(),
  kind: z.enum(receivingKinds),
  bankName: z.string(),
  accountName: z.string(),
  accountNumber: z.string(),
  ifsc: z.string(),
  vpa: z.nullable(z.string()),
  dailyLimit: moneyOut,
  dailyCount: z.nullable(z.number()),
  minAmount: z.nullable(moneyOut),
  maxAmount: z.nullable(moneyOut),
  holderId: z.nullable(z.number()),
  holderName: z.nullable(z.string()),
  status: z.enum(receivingStatuses),
  lastKnownBalance: z.nullable(moneyOut),
  /** What the orders assigned to it today hold (pending and paid), in the business day. */
  todayAmount: moneyOut,
  todayCount: z.number(),
  createdAt: z.string(),
});

const accountFields = {
  bankName,
  accountName,
  accountNumber,
  ifsc: ifscAnyCase,
  vpa: z.optional(vpa),
  dailyLimit: amount,
  dailyCount: z.optional(dailyCount),
  minAmount: z.optional(amount),
  maxAmount: z.optional(amount),
};

const grants = { platform: ['operator', 'finance'] } as const;
const writes = { platform: ['operator'] } as const;

export const receivingAccount = {
  create: endpoint({
    method: 'POST',
    path: '/receivingAccount/create',
    caller: 'platform',
    grants: writes,
    input: strictObject({ kind: z.enum(receivingKinds), ...accountFields, holderId: z.optional(id) }).check(
      minNotAboveMax,
      z.refine((v) => (v.kind === 'card') === (v.holderId !== undefined), {
        message: 'validation.cardHolder',
        path: ['holderId'],
      }),
    ),
    output: z.object({ id: z.number() }),
  }),
  list: endpoint({
    method: 'GET',
    path: '/receivingAccount/list',
    caller: 'platform',
    grants,
    input: z.object({
      kind: z.optional(z.enum(receivingKinds)),
      status: z.optional(z.enum(receivingStatuses)),
      holderId: z.optional(id),
      q: searchText,
      page,
      pageSize,
    }),
    output: listOf(receivingAccountRow),
  }),
  info: endpoint({
    method: 'GET',
    path: '/receivingAccount/info',
    caller: 'platform',
    grants,
    input: z.object({ id }),
    output: receivingAccountRow,
  }),
  /** Changes what is given; a card keeps its kind. Limits are judged against what is stored. */
  update: endpoint({
    method: 'POST',
    path: '/receivingAccount/update',
    caller: 'platform',
    grants: writes,
    input: strictObject({
      id,
      bankName: z.optional(bankName),
      accountName: z.optional(accountName),
      ifsc: z.optional(ifscAnyCase),
      vpa: z.optional(z.nullable(vpa)),
      dailyLimit: z.optional(amount),
      dailyCount: z.optional(z.nullable(dailyCount)),
      minAmount: z.optional(z.nullable(amount)),
      maxAmount: z.optional(z.nullable(amount)),
      holderId: z.optional(id),
    }),
    output: okFlag,
  }),
  /**
   * Active, paused (takes no new orders) or frozen (the bank froze it: takes none until cleared). While a
   * recorded freeze (`accountFreeze.record`) is open, only `frozen` is accepted (409).
   */
  status: endpoint({
    method: 'POST',
    path: '/receivingAccount/status',
    caller: 'platform',
    grants: writes,
    input: strictObject({ id, status: z.enum(receivingStatuses) }),
    output: okFlag,
  }),
};

export const accountHolderRow = z.object({
  id: z.number(),
  name: z.string(),
  phone: z.string(),
  idNumber: z.string(),
  commissionRate: z.string(),
  status: z.enum(holderStatuses),
  cardCount: z.number(),
  createdAt: z.string(),
});

export const accountHolder = {
  create: endpoint({
    method: 'POST',
    path: '/accountHolder/create',
    caller: 'platform',
    grants: writes,
    input: strictObject({ name: personName, phone, idNumber, commissionRate: ratePercent }),
    output: z.object({ id: z.number() }),
  }),
  list: endpoint({
    method: 'GET',
    path: '/accountHolder/list',
    caller: 'platform',
    grants,
    input: z.object({
      status: z.optional(z.enum(holderStatuses)),
      q: searchText,
      page,
      pageSize,
    }),
    output: listOf(accountHolderRow),
  }),
  update: endpoint({
    method: 'POST',
    path: '/accountHolder/update',
    caller: 'platform',
    grants: writes,
    input: strictObject({
      id,
      name: z.optional(personName),
      phone: z.optional(phone),
      idNumber: z.optional(idNumber),
      commissionRate: z.optional(ratePercent),
      status: z.optional(z.enum(holderStatuses)),
    }),
    output: okFlag,
  }),
};

export const cardBindingRow = z.object({
  id: z.number(),
  accountId: z.number(),
  accountLabel: z.string(),
  channelId: z.number(),
  channelCode: z.string(),
  weight: z.number(),
  merchantIds: z.array(z.number()),
  activeFrom: z.nullable(z.string()),
  activeTo: z.nullable(z.string()),
  createdAt: z.string(),
});

export const cardBinding = {
  create: endpoint({
    method: 'POST',
    path: '/cardBinding/create',
    caller: 'platform',
    grants: writes,
    input: strictObject({
      accountId: id,
      channelId: id,
      weight,
      merchantIds: z._default(z.array(id).check(z.maxLength(500)), []),
      activeFrom: z.optional(clock),
      activeTo: z.optional(clock),
    }).check(
      z.refine((v) => (v.activeFrom === undefined) === (v.activeTo === undefined), {
        message: 'validation.hoursPair',
        path: ['activeTo'],
      }),
      z.refine((v) => new Set(v.merchantIds).size === v.merchantIds.length, {
        message: 'validation.duplicate',
        path: ['merchantIds'],
      }),
    ),
    output: z.object({ id: z.number() }),
  }),
  list: endpoint({
    method: 'GET',
    path: '/cardBinding/list',
    caller: 'platform',
    grants,
    input: z.object({ accountId: z.optional(id), channelId: z.optional(id), page, pageSize }),
    output: listOf(cardBindingRow),
  }),
  delete: endpoint({
    method: 'POST',
    path: '/cardBinding/delete',
    caller: 'platform',
    grants: writes,
    input: strictObject({ id }),
    output: okFlag,
  }),
};

export const holderNumberRow = z.object({
  id: z.number(),
  holderId: z.number(),
  holderName: z.string(),
  kind: z.enum(holderNumberKinds),
  value: z.string(),
  accountIds: z.array(z.number()),
  status: z.enum(holderStatuses),
  createdAt: z.string(),
});

const accountIds = z._default(z.array(id).check(z.maxLength(100)), []);

export const holderNumber = {
  create: endpoint({
    method: 'POST',
    path: '/holderNumber/create',
    caller: 'platform',
    grants: writes,
    input: strictObject({
      holderId: id,
      kind: z.enum(holderNumberKinds),
      value: z.string().check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(80)),
      accountIds,
    }).check(
      z.refine(
        (v) => (v.kind === 'upi' ? vpa.safeParse(v.value).success : phone.safeParse(v.value).success),
        {
          message: 'validation.holderNumber',
          path: ['value'],
        },
      ),
    ),
    output: z.object({ id: z.number() }),
  }),
  list: endpoint({
    method: 'GET',
    path: '/holderNumber/list',
    caller: 'platform',
    grants,
    input: z.object({ holderId: z.optional(id), page, pageSize }),
    output: listOf(holderNumberRow),
  }),
  update: endpoint({
    method: 'POST',
    path: '/holderNumber/update',
    caller: 'platform',
    grants: writes,
    input: strictObject({
      id,
      accountIds: z.optional(z.array(id).check(z.maxLength(100))),
      status: z.optional(z.enum(holderStatuses)),
    }),
    output: okFlag,
  }),
};
