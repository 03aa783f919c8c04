import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { amount, amountOrZero, moneyOut, ratePercent, reservePercent } from '../money.ts';
import {
  adminPassword,
  code6,
  email,
  id,
  listOf,
  okFlag,
  page,
  pageSize,
  searchText,
  strictObject,
  username,
} from '../schemas.ts';

/** `D0` credits pay-ins as available at once; `T1`…`T30` credit them pending for N days. */
export const settlementCycle = z
  .string()
  .check(z.regex(/^(D0|T([1-9]|[12]\d|30))$/, { message: 'validation.settlementCycle' }));
const ipOrCidr = z.string().check(
  z.trim(),
  z.maxLength(64),
  // IPv6 may end in a dotted IPv4 (`::ffff:192.0.2.1`); the server checks every entry for real.
  z.regex(/^(\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?|[0-9a-fA-F:]+(\d{1,3}(\.\d{1,3}){3})?(\/\d{1,3})?)$/, {
    message: 'validation.ip',
  }),
);
export const ipWhitelist = z.array(ipOrCidr).check(z.maxLength(50));
const httpUrl = z
  .string()
  .check(z.trim(), z.maxLength(500), z.regex(/^https?:\/\/[^\s]+$/, { message: 'validation.url' }));
export const optionalUrl = z.union([httpUrl, z.literal('')]);
const exchangeRate = z
  .string()
  .check(z.trim(), z.regex(/^\d{1,12}(\.\d{1,6})?$/, { message: 'validation.exchangeRate' }));
const merchantName = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(100));
export const merchantCode = z
  .string()
  .check(z.trim(), z.regex(/^[A-Za-z0-9_-]{3,32}$/, { message: 'validation.code' }));
/** The most codes one names lookup takes: a page of any list. */
export const merchantNamesBatch = 100;
const currency = z.string().check(z.regex(/^[A-Z]{3}$/, { message: 'validation.currency' }));

export const channelAssignment = z.object({
  channelId: id,
  weight: z._default(z.number().check(z.int(), z.minimum(0), z.maximum(10_000)), 100),
});

/** A per-payer day count: a whole number from 1. */
const velocityCount = z.number().check(z.int(), z.minimum(1), z.maximum(1_000_000));

/** How long a rolling reserve is held: days after the payment's business day, 1 to 180. */
const reserveDays = z.number().check(z.int(), z.minimum(1), z.maximum(180));

/** The terms a platform user sets on a merchant (all optional on update). */
const terms = {
  agentId: z.optional(z.nullable(id)),
  collectionRate: z.optional(ratePercent),
  platformFee: z.optional(amountOrZero),
  payoutRate: z.optional(ratePercent),
  payoutFee: z.optional(amountOrZero),
  surcharge: z.optional(ratePercent),
  exchangeRate: z.optional(exchangeRate),
  minAmount: z.optional(amount),
  maxAmount: z.optional(amount),
  settlementCycle: z.optional(settlementCycle),
  /** A settlement application's fee: this percentage of its amount plus the fixed `settlementFee`. */
  settlementRate: z.optional(ratePercent),
  settlementFee: z.optional(amountOrZero),
  payoutIpWhitelist: z.optional(ipWhitelist),
  callbackUrl: z.optional(optionalUrl),
  channels: z.optional(z.array(channelAssignment).check(z.maxLength(50))),
  /** Velocity (docs/MONEY-BACK.md section 4): pay-ins one payer may make in a business day; null: no limit. */
  velocityPayinsPerDay: z.optional(z.nullable(velocityCount)),
  /** The amount one payer's pay-ins of a business day may add up to; null: no limit. */
  velocityAmountPerDay: z.optional(z.nullable(amount)),
  /**
   * Rolling reserve (docs/MONEY-BACK.md section 4): the share of each paid pay-in's net held, a
   * percentage with two decimals at most, up to 50; null or 0: none. Given with `reserveDays` (both or
   * neither, once merged with the stored terms: else 422 on the missing one).
   */
  reservePercent: z.optional(z.nullable(reservePercent)),
  reserveDays: z.optional(z.nullable(reserveDays)),
};

const minNotAboveMax = z.refine<{ minAmount?: number; maxAmount?: number }>(
  (v) => v.minAmount === undefined || v.maxAmount === undefined || v.maxAmount >= v.minAmount,
  { message: 'validation.maxBelowMin', path: ['maxAmount'] },
);

export const merchantDetail = z.object({
  id: z.number(),
  code: z.string(),
  name: z.string(),
  status: z.enum(['active', 'frozen']),
  currency: z.string(),
  agentId: z.nullable(z.number()),
  agentName: z.nullable(z.string()),
  collectionRate: z.string(),
  platformFee: moneyOut,
  payoutRate: z.string(),
  payoutFee: moneyOut,
  surcharge: z.string(),
  exchangeRate: z.string(),
  minAmount: moneyOut,
  maxAmount: moneyOut,
  settlementCycle: z.string(),
  settlementRate: z.string(),
  settlementFee: moneyOut,
  payoutIpWhitelist: z.array(z.string()),
  callbackUrl: z.string(),
  velocityPayinsPerDay: z.nullable(z.number()),
  velocityAmountPerDay: z.nullable(moneyOut),
  /** The rolling reserve's share (`10.00`) and days; both null: none. */
  reservePercent: z.nullable(z.string()),
  reserveDays: z.nullable(z.number()),
  /** Masked: the secrets are answered in full only when created or reset. */
  apiSecretMasked: z.string(),
  webhookSecretMasked: z.string(),
  channels: z.array(
    z.object({
      channelId: z.number(),
      code: z.string(),
      name: z.string(),
      weight: z.number(),
      enabled: z.boolean(),
    }),
  ),
  createdAt: z.string(),
});

const secrets = z.object({
  id: z.number(),
  code: z.string(),
  apiSecret: z.string(),
  webhookSecret: z.string(),
});

export const merchant = {
  create: endpoint({
    method: 'POST',
    path: '/merchant/create',
    caller: 'platform',
    input: strictObject({
      name: merchantName,
      code: z.optional(merchantCode),
      currency: z.optional(currency),
      owner: strictObject({
        username,
        password: adminPassword,
        email: z.optional(z.union([email, z.literal('')])),
      }),
      ...terms,
    }).check(minNotAboveMax),
    output: secrets,
  }),
  list: endpoint({
    method: 'GET',
    path: '/merchant/list',
    caller: 'platform',
    grants: { platform: ['operator', 'finance'] },
    input: z.object({
      page,
      pageSize,
      q: searchText,
      status: z.optional(z.enum(['active', 'frozen'])),
      agentId: z.optional(id),
    }),
    output: listOf(merchantDetail),
  }),
  /**
   * Merchants' names by their codes, for the platform's lists that show a code (the console's cache,
   * src/lib/merchantNames.ts): one code or several (a repeated query key), each once; unknown codes are
   * simply absent from the answer. Names are no secret to platform staff: every role that reads a list
   * (the auditor holds every GET).
   */
  names: endpoint({
    method: 'GET',
    path: '/merchant/names',
    caller: 'platform',
    grants: { platform: ['operator', 'finance'] },
    input: z.object({
      codes: z.pipe(
        z.union([merchantCode, z.array(merchantCode).check(z.minLength(1), z.maxLength(merchantNamesBatch))]),
        z.transform((codes) => [...new Set([codes].flat())]),
      ),
    }),
    output: z.object({ list: z.array(z.object({ code: z.string(), name: z.string() })) }),
  }),
  /** A merchant user reads its own merchant (`id` is ignored); a platform user names one. */
  info: endpoint({
    method: 'GET',
    path: '/merchant/info',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    input: z.object({ id: z.optional(id) }),
    output: merchantDetail,
  }),
  update: endpoint({
    method: 'POST',
    path: '/merchant/update',
    caller: 'platform',
    input: strictObject({ id, name: z.optional(merchantName), ...terms }).check(minNotAboveMax),
    output: okFlag,
  }),
  freeze: endpoint({
    method: 'POST',
    path: '/merchant/freeze',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject({ id, frozen: z.boolean(), reason: z.optional(z.string().check(z.maxLength(200))) }),
    output: okFlag,
  }),
  /**
   * New API and webhook secrets, answered once; the old ones stop working at once. Whoever holds the API
   * secret can pay out through the gateway: confirmed with the acting user's Google code.
   */
  resetSecret: endpoint({
    method: 'POST',
    path: '/merchant/resetSecret',
    caller: 'both',
    grants: { merchant: ['developer'] },
    input: strictObject({
      id: z.optional(id),
      which: z._default(z.enum(['api', 'webhook', 'both']), 'both'),
      code: code6,
    }),
    output: secrets,
  }),
  /** The addresses gateway payouts are accepted from; confirmed with the acting user's Google code. */
  ipsUpdate: endpoint({
    method: 'POST',
    path: '/merchant/ips/update',
    caller: 'both',
    grants: { merchant: ['developer'] },
    input: strictObject({ id: z.optional(id), payoutIpWhitelist: ipWhitelist, code: code6 }),
    output: okFlag,
  }),
  callbackUpdate: endpoint({
    method: 'POST',
    path: '/merchant/callback/update',
    caller: 'both',
    grants: { merchant: ['developer'] },
    input: strictObject({ id: z.optional(id), callbackUrl: optionalUrl }),
    output: okFlag,
  }),
  surchargeUpdate: endpoint({
    method: 'POST',
    path: '/merchant/aSurcharge/update',
    caller: 'both',
    grants: { merchant: ['finance'] },
    input: strictObject({ id: z.optional(id), surcharge: ratePercent }),
    output: okFlag,
  }),
};

const agentRow = z.object({
  id: z.number(),
  code: z.string(),
  name: z.string(),
  commissionRate: z.string(),
  status: z.enum(['active', 'disabled']),
  merchantCount: z.number(),
  commissionPayable: moneyOut,
  createdAt: z.string(),
});

/**
 * A list of the platform's business set-up (agents, channels): operators and finance page through it and
 * search it by text.
 */
const setupList = <R extends z.ZodMiniType>(path: string, row: R) =>
  endpoint({
    method: 'GET',
    path,
    caller: 'platform',
    grants: { platform: ['operator', 'finance'] },
    input: z.object({ page, pageSize, q: searchText }),
    output: listOf(row),
  });

export const agent = {
  list: setupList('/agent/list', agentRow),
  create: endpoint({
    method: 'POST',
    path: '/agent/create',
    caller: 'platform',
    input: strictObject({ name: merchantName, code: z.optional(merchantCode), commissionRate: ratePercent }),
    output: z.object({ id: z.number(), code: z.string() }),
  }),
  update: endpoint({
    method: 'POST',
    path: '/agent/update',
    caller: 'platform',
    input: strictObject({
      id,
      name: z.optional(merchantName),
      commissionRate: z.optional(ratePercent),
      status: z.optional(z.enum(['active', 'disabled'])),
    }),
    output: okFlag,
  }),
};

const channelRow = z.object({
  id: z.number(),
  code: z.string(),
  name: z.string(),
  adapter: z.string(),
  payinCostRate: z.string(),
  payoutCostRate: z.string(),
  payoutCostFixed: moneyOut,
  minAmount: moneyOut,
  maxAmount: moneyOut,
  weight: z.number(),
  supportsPayin: z.boolean(),
  supportsPayout: z.boolean(),
  status: z.enum(['active', 'disabled']),
  settings: z.record(z.string(), z.unknown()),
  hasCredentials: z.boolean(),
  createdAt: z.string(),
});

const simulatorSettings = z.object({
  auto: z.optional(z.boolean()),
  successRate: z.optional(z.number().check(z.minimum(0), z.maximum(100))),
  delayMs: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(600_000))),
  /** Share (0–100) of automatic payments whose callback to us is lost. */
  lostCallbackRate: z.optional(z.number().check(z.minimum(0), z.maximum(100))),
});

const channelFields = {
  name: merchantName,
  payinCostRate: z.optional(ratePercent),
  payoutCostRate: z.optional(ratePercent),
  payoutCostFixed: z.optional(amountOrZero),
  minAmount: z.optional(amount),
  maxAmount: z.optional(amount),
  weight: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(10_000))),
  supportsPayin: z.optional(z.boolean()),
  supportsPayout: z.optional(z.boolean()),
  status: z.optional(z.enum(['active', 'disabled'])),
  /** Provider credentials; stored sealed, never answered back. */
  credentials: z.optional(z.record(z.string(), z.string().check(z.maxLength(2000)))),
  settings: z.optional(simulatorSettings),
};

/**
 * The adapters a channel can be created with (server/channels): the simulator, a bank sent by hand on
 * slips (payouts), or the bank channel collecting into receiving accounts (pay-ins).
 */
export const channelAdapters = ['simulator', 'manual_bank', 'bank'] as const;

export const channel = {
  list: setupList('/channel/list', channelRow),
  create: endpoint({
    method: 'POST',
    path: '/channel/create',
    caller: 'platform',
    input: strictObject({ code: merchantCode, adapter: z.enum(channelAdapters), ...channelFields }).check(
      minNotAboveMax,
      // A manual bank channel sends payouts on withdrawal slips: there is no pay page to collect through.
      z.refine((v) => !(v.adapter === 'manual_bank' && v.supportsPayin === true), {
        message: 'validation.manualBankNoPayin',
        path: ['supportsPayin'],
      }),
    ),
    output: z.object({ id: z.number() }),
  }),
  update: endpoint({
    method: 'POST',
    path: '/channel/update',
    caller: 'platform',
    input: strictObject({ id, ...channelFields, name: z.optional(merchantName) }).check(minNotAboveMax),
    output: okFlag,
  }),
};

const moneyRow = z.object({ currency: z.string(), total: moneyOut });

export const ledger = {
  /**
   * The books' health: every entry balanced, totals zero, every before/after chain unbroken, the daily
   * movements what the postings add up to.
   */
  trialBalance: endpoint({
    method: 'GET',
    path: '/ledger/trialBalance',
    caller: 'platform',
    grants: { platform: ['finance'] },
    input: z.object({}),
    output: z.object({
      balanced: z.boolean(),
      totals: z.array(moneyRow),
      accounts: z.array(
        z.object({
          ownerType: z.string(),
          ownerId: z.number(),
          kind: z.string(),
          currency: z.string(),
          balance: moneyOut,
        }),
      ),
      unbalancedEntries: z.array(
        z.object({ entryId: z.number(), currency: z.nullable(z.string()), sum: moneyOut }),
      ),
      brokenChains: z.array(z.object({ accountId: z.number(), seq: z.number() })),
      accountMismatches: z.array(z.object({ accountId: z.number() })),
      /** Days whose stored daily movements of an account differ from its postings. */
      dailyMismatches: z.array(z.object({ accountId: z.number(), day: z.string() })),
    }),
  }),
};
