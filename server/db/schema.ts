/**
 * The database schema. Migrations are generated from it (`npm run db:generate`) and committed;
 * rules the ORM cannot express (append-only triggers) live in hand-written migrations beside them.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  customType,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import {
  type ApprovalStatus,
  approval,
  type CallbackStatus,
  callback,
  type PayinStatus,
  type PayoutStatus,
  payin,
  payout,
  type RechargeStatus,
  recharge,
  type SettlementStatus,
  type SlipLineStatus,
  type SlipStatus,
  type StatementLineStatus,
  settlement,
  slip,
  slipLine,
  statementLine,
  type TelegramDeliveryStatus,
  type TnLineStatus,
  telegramDelivery,
  tnLine,
} from '../../contract/machines.ts';
import type { StatementMapping } from '../../contract/statementMapping.ts';
import {
  type ExceptionKind,
  exceptionKinds,
  type StatementSource,
  statementSources,
} from '../../contract/statementSource.ts';
import { statesSql } from './states.ts';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const createdAt = () => at('created_at').notNull().defaultNow();

/** A merchant (tenant): its terms, limits and keys. Rates are parts per million, amounts minor units. */
export const merchants = pgTable(
  'merchants',
  {
    id: serial('id').primaryKey(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    status: text('status').notNull().default('active').$type<'active' | 'frozen'>(),
    agentId: integer('agent_id').references(() => agents.id),
    currency: text('currency').notNull().default('INR'),
    /** Pay-in fee: round_half_up(amount × rate) + platform fee. */
    collectionRatePpm: integer('collection_rate_ppm').notNull().default(0),
    platformFee: bigint('platform_fee', { mode: 'number' }).notNull().default(0),
    /** Payout fee: round_half_up(amount × rate) + per-payout fee. */
    payoutRatePpm: integer('payout_rate_ppm').notNull().default(0),
    payoutFee: bigint('payout_fee', { mode: 'number' }).notNull().default(0),
    /** Shown to payers on top of the amount; set by the merchant on its fee screen. */
    surchargePpm: integer('surcharge_ppm').notNull().default(0),
    /** Settlement price for stablecoin settlements (units of currency per USDT), 6 decimals. */
    exchangeRate: numeric('exchange_rate', { precision: 18, scale: 6 }).notNull().default('0'),
    minAmount: bigint('min_amount', { mode: 'number' }).notNull().default(100),
    maxAmount: bigint('max_amount', { mode: 'number' }).notNull().default(100_000_000),
    /** 0 = D0 (credited available at once); N = T+N (credited pending, released N days later). */
    settlementDays: integer('settlement_days').notNull().default(0),
    /** Settlement fee (taking money out of a wallet): round_half_up(amount × rate) + fixed fee. */
    settlementRatePpm: integer('settlement_rate_ppm').notNull().default(0),
    settlementFee: bigint('settlement_fee', { mode: 'number' }).notNull().default(0),
    payoutIpWhitelist: jsonb('payout_ip_whitelist').notNull().$type<string[]>().default([]),
    callbackUrl: text('callback_url').notNull().default(''),
    /** API and webhook secrets, sealed with the server key: answered once, then only masked. */
    apiSecret: text('api_secret').notNull().default(''),
    webhookSecret: text('webhook_secret').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    unique('merchants_code_key').on(t.code),
    check('merchants_status', sql`${t.status} in ('active','frozen')`),
    check('merchants_amount_limits', sql`${t.minAmount} > 0 and ${t.maxAmount} >= ${t.minAmount}`),
    check(
      'merchants_rates',
      sql`${t.collectionRatePpm} between 0 and 1000000 and ${t.payoutRatePpm} between 0 and 1000000 and ${t.surchargePpm} between 0 and 1000000`,
    ),
    check('merchants_fees', sql`${t.platformFee} >= 0 and ${t.payoutFee} >= 0`),
    check(
      'merchants_settlement_fee',
      sql`${t.settlementRatePpm} between 0 and 1000000 and ${t.settlementFee} >= 0`,
    ),
    check('merchants_settlement_days', sql`${t.settlementDays} between 0 and 30`),
  ],
);

/** An agent: brings merchants and earns a commission on their pay-ins, out of the platform's fee. */
export const agents = pgTable(
  'agents',
  {
    id: serial('id').primaryKey(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    commissionPpm: integer('commission_ppm').notNull().default(0),
    status: text('status').notNull().default('active').$type<'active' | 'disabled'>(),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    unique('agents_code_key').on(t.code),
    check('agents_commission', sql`${t.commissionPpm} between 0 and 1000000`),
    check('agents_status', sql`${t.status} in ('active','disabled')`),
  ],
);

/** A payment channel: a provider behind an adapter, with its cost, limits and routing weight. */
export const channels = pgTable(
  'channels',
  {
    id: serial('id').primaryKey(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    adapter: text('adapter').notNull(),
    /** Provider credentials, sealed with the server key. */
    credentials: text('credentials').notNull().default(''),
    payinCostPpm: integer('payin_cost_ppm').notNull().default(0),
    payoutCostPpm: integer('payout_cost_ppm').notNull().default(0),
    payoutCostFixed: bigint('payout_cost_fixed', { mode: 'number' }).notNull().default(0),
    minAmount: bigint('min_amount', { mode: 'number' }).notNull().default(100),
    maxAmount: bigint('max_amount', { mode: 'number' }).notNull().default(1_000_000_000),
    weight: integer('weight').notNull().default(100),
    supportsPayin: boolean('supports_payin').notNull().default(true),
    supportsPayout: boolean('supports_payout').notNull().default(true),
    status: text('status').notNull().default('active').$type<'active' | 'disabled'>(),
    /** Adapter settings, e.g. the simulator's automatic mode `{auto, successRate, delayMs}`. */
    settings: jsonb('settings').notNull().$type<Record<string, unknown>>().default({}),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    unique('channels_code_key').on(t.code),
    check('channels_limits', sql`${t.minAmount} > 0 and ${t.maxAmount} >= ${t.minAmount}`),
    check('channels_weight', sql`${t.weight} between 0 and 10000`),
    check('channels_status', sql`${t.status} in ('active','disabled')`),
  ],
);

/** Which channels a merchant routes through, with what weight. */
export const merchantChannels = pgTable(
  'merchant_channels',
  {
    merchantId: integer('merchant_id')
      .notNull()
      .references(() => merchants.id, { onDelete: 'cascade' }),
    channelId: integer('channel_id')
      .notNull()
      .references(() => channels.id),
    weight: integer('weight').notNull().default(100),
    enabled: boolean('enabled').notNull().default(true),
  },
  (t) => [
    primaryKey({ columns: [t.merchantId, t.channelId] }),
    check('merchant_channels_weight', sql`${t.weight} between 0 and 10000`),
  ],
);

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    kind: text('kind').notNull().$type<'platform' | 'merchant'>(),
    merchantId: integer('merchant_id').references(() => merchants.id),
    username: text('username').notNull(),
    nickname: text('nickname').notNull(),
    email: text('email').notNull().default(''),
    avatar: text('avatar').notNull().default(''),
    introduction: text('introduction').notNull().default(''),
    passwordHash: text('password_hash').notNull(),
    status: text('status').notNull().default('active').$type<'active' | 'disabled'>(),
    /** TOTP seed, encrypted with the server key; null when no key is bound. */
    totpSecret: text('totp_secret'),
    /** Last accepted TOTP time step: a code is accepted only for a later step (no replay). */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }).notNull().default(0),
    lastLoginAt: at('last_login_at'),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    unique('users_username_key').on(t.username),
    index('users_merchant_idx').on(t.merchantId),
    check('users_kind', sql`${t.kind} in ('platform','merchant')`),
    check('users_tenant', sql`(${t.kind} = 'merchant') = (${t.merchantId} is not null)`),
    check('users_status', sql`${t.status} in ('active','disabled')`),
  ],
);

export const roles = pgTable(
  'roles',
  {
    id: serial('id').primaryKey(),
    kind: text('kind').notNull().$type<'platform' | 'merchant'>(),
    merchantId: integer('merchant_id').references(() => merchants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    perms: jsonb('perms').notNull().$type<string[]>().default([]),
    /** Seeded role: editable, not deletable. `builtinKey` names it for upgrades. */
    builtinKey: text('builtin_key'),
    /** A built-in role's permissions as the code defined them when last applied: what upgrades compare to. */
    seededPerms: jsonb('seeded_perms').$type<string[]>(),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    unique('roles_name_key').on(t.kind, t.merchantId, t.name).nullsNotDistinct(),
    check('roles_tenant', sql`(${t.kind} = 'merchant') = (${t.merchantId} is not null)`),
  ],
);

export const userRoles = pgTable(
  'user_roles',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    roleId: integer('role_id')
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.roleId] }), index('user_roles_role_idx').on(t.roleId)],
);

/** Sign-in sessions. Only a SHA-256 of the token is stored. */
export const sessions = pgTable(
  'sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    lastSeenAt: at('last_seen_at').notNull(),
    expiresAt: at('expires_at').notNull(),
    revokedAt: at('revoked_at'),
    ip: text('ip').notNull().default(''),
    userAgent: text('user_agent').notNull().default(''),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

/**
 * Failed sign-ins per username (known or not) and client address, for lockout: a lock slows that address
 * down for that name and leaves everyone else's sign-in alone.
 */
export const loginFailures = pgTable(
  'login_failures',
  {
    username: text('username').notNull(),
    address: text('address').notNull().default(''),
    failures: integer('failures').notNull().default(0),
    windowStartedAt: at('window_started_at').notNull(),
    lockedUntil: at('locked_until'),
  },
  (t) => [primaryKey({ columns: [t.username, t.address] })],
);

/**
 * "Skip the second step on this device for 30 days": each device token is recorded (only its SHA-256),
 * so signing out everywhere, a password change and a Google key reset revoke it.
 */
export const deviceTokens = pgTable(
  'device_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
    revokedAt: at('revoked_at'),
    ip: text('ip').notNull().default(''),
    userAgent: text('user_agent').notNull().default(''),
  },
  (t) => [index('device_tokens_user_idx').on(t.userId)],
);

/** Half-finished two-step sign-ins; the ticket itself is only stored hashed. */
export const loginTickets = pgTable('login_tickets', {
  ticketHash: text('ticket_hash').primaryKey(),
  userId: integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  step: text('step').notNull().$type<'google' | 'email'>(),
  expiresAt: at('expires_at').notNull(),
  attempts: integer('attempts').notNull().default(0),
  usedAt: at('used_at'),
});

/** E-mail verification codes (stored hashed): 6 digits, 10 minutes, 5 tries. */
export const emailCodes = pgTable(
  'email_codes',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose').notNull().$type<'reset' | 'login'>(),
    codeHash: text('code_hash').notNull(),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    usedAt: at('used_at'),
  },
  (t) => [index('email_codes_user_idx').on(t.userId, t.purpose)],
);

/** Append-only trail of sign-ins and writes; a trigger refuses UPDATE and DELETE. */
export const operationLog = pgTable(
  'operation_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: at('at').notNull().defaultNow(),
    userId: integer('user_id'),
    username: text('username').notNull().default(''),
    userKind: text('user_kind'),
    merchantId: integer('merchant_id'),
    ip: text('ip').notNull().default(''),
    requestId: text('request_id').notNull().default(''),
    action: text('action').notNull(),
    target: text('target').notNull().default(''),
    outcome: text('outcome').notNull().$type<'ok' | 'failed' | 'denied'>(),
    errno: integer('errno').notNull().default(0),
    detail: jsonb('detail'),
  },
  (t) => [
    index('operation_log_at_idx').on(t.at.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index('operation_log_merchant_idx').on(t.merchantId, t.at.desc().nullsFirst(), t.id.desc().nullsFirst()),
    check('operation_log_outcome', sql`${t.outcome} in ('ok','failed','denied')`),
  ],
);

/** Mail: every message sent or stored; the body is kept only when no SMTP server is configured. */
export const mailOutbox = pgTable('mail_outbox', {
  id: serial('id').primaryKey(),
  at: at('at').notNull().defaultNow(),
  to: text('to').notNull(),
  subject: text('subject').notNull(),
  body: text('body'),
  transport: text('transport').notNull().$type<'smtp' | 'outbox'>(),
  status: text('status').notNull().$type<'sent' | 'stored' | 'failed'>(),
  error: text('error'),
  /** The code a stored message carries: once it is used or expired, reading the outbox masks it. */
  emailCodeId: integer('email_code_id').references(() => emailCodes.id, { onDelete: 'set null' }),
});

/** Platform parameters (key → JSON value), e.g. `require_google_auth`. */
export const parameters = pgTable('parameters', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

// ---------------------------------------------------------------------------------------------------
// The ledger: nothing but server/ledger writes these tables.

/** Account kinds: a merchant's four wallets, an agent's payable commission, the platform's books. */
export const accountKinds = [
  'collection_available',
  'collection_pending',
  'payout_available',
  'frozen',
  'agent_commission_payable',
  'fee_income',
  'channel_clearing',
  'settlement_clearing',
  'payout_clearing',
  /** The platform's side of balance adjustments: what it gave (negative) or took (positive) by hand. */
  'balance_adjustment',
] as const;
export type AccountKind = (typeof accountKinds)[number];

/** A ledger account with its materialised balance; `version` numbers its postings without gaps. */
export const ledgerAccounts = pgTable(
  'ledger_accounts',
  {
    id: serial('id').primaryKey(),
    ownerType: text('owner_type').notNull().$type<'merchant' | 'agent' | 'platform'>(),
    /** Merchant or agent id; 0 for the platform. */
    ownerId: integer('owner_id').notNull(),
    kind: text('kind').notNull().$type<AccountKind>(),
    currency: text('currency').notNull(),
    balance: bigint('balance', { mode: 'number' }).notNull().default(0),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
    /** Clearing accounts mirror money held elsewhere and may go below zero; wallets never. */
    mayBeNegative: boolean('may_be_negative').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    unique('ledger_accounts_owner_key').on(t.ownerType, t.ownerId, t.kind, t.currency),
    check('ledger_accounts_non_negative', sql`${t.mayBeNegative} or ${t.balance} >= 0`),
    check('ledger_accounts_owner_type', sql`${t.ownerType} in ('merchant','agent','platform')`),
  ],
);

/** One money movement: postings that sum to zero per currency. `(refType, refId, kind)` happens once. */
export const journalEntries = pgTable(
  'journal_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: at('at').notNull().defaultNow(),
    kind: text('kind').notNull(),
    refType: text('ref_type').notNull(),
    refId: text('ref_id').notNull(),
    memo: text('memo').notNull().default(''),
    userId: integer('user_id'),
  },
  (t) => [unique('journal_entries_ref_key').on(t.refType, t.refId, t.kind)],
);

/** A line of an entry on one account, with the account's balance before and after. */
export const postings = pgTable(
  'postings',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    entryId: bigint('entry_id', { mode: 'number' })
      .notNull()
      .references(() => journalEntries.id),
    accountId: integer('account_id')
      .notNull()
      .references(() => ledgerAccounts.id),
    /** The account's version after this posting: 1, 2, 3… without gaps. */
    seq: bigint('seq', { mode: 'number' }).notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    balanceBefore: bigint('balance_before', { mode: 'number' }).notNull(),
    balanceAfter: bigint('balance_after', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    at: at('at').notNull().defaultNow(),
  },
  (t) => [
    unique('postings_account_seq_key').on(t.accountId, t.seq),
    index('postings_entry_idx').on(t.entryId),
    index('postings_account_at_idx').on(t.accountId, t.at.desc().nullsFirst(), t.id.desc().nullsFirst()),
    check(
      'postings_arithmetic',
      sql`${t.balanceAfter} = ${t.balanceBefore} + ${t.amount} and ${t.amount} <> 0`,
    ),
  ],
);

/**
 * What each account's postings added up to per business day (in the stored business time zone, the
 * order stats' days) and entry cause: the flows a report reads instead of summing millions of postings.
 * Kept by server/ledger in the transaction that posts (the account's lock orders writers to a row);
 * rebuilt from the postings with the order stats when the zone changes. `checkLedger` guards it.
 */
export const ledgerDaily = pgTable(
  'ledger_daily',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => ledgerAccounts.id),
    day: date('day', { mode: 'string' }).notNull(),
    /** The entries' `refType` and `kind`. */
    refType: text('ref_type').notNull(),
    kind: text('kind').notNull(),
    /** Sum of the postings' signed amounts, and how many there were. */
    amount: bigint('amount', { mode: 'number' }).notNull(),
    postings: integer('postings').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day, t.refType, t.kind] })],
);

// ---------------------------------------------------------------------------------------------------
// Orders

export type { PayinStatus, PayoutStatus };

const numberIndex = (name: string, column: string) =>
  index(name).using('btree', sql.raw(`${column} collate "C"`));

/**
 * Text compared byte by byte (`COLLATE "C"`): for a number whose unique index then also serves the prefix
 * search, instead of a second index kept up on every insert (the pay-in order number and UTR).
 */
const cText = customType<{ data: string; driverData: string }>({ dataType: () => 'text COLLATE "C"' });

/**
 * A pay-in (collection) order. Order numbers are searchable by prefix through `COLLATE "C"` indexes.
 *
 * Partitioned by month of `created_at` (migration 0020, `PARTITION BY RANGE (created_at)`; drizzle has no
 * DSL for it, so the partitioning lives in the SQL only): the primary key holds the partition key, the
 * indexes here are declared on the parent and exist on every partition, and the unique numbers live in
 * `payin_order_keys` (kept by triggers, under the constraint names these keys had on this table).
 */
export const payinOrders = pgTable(
  'payin_orders',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    /** `COLLATE "C"`: its unique index serves equality and prefix search alike. */
    orderNo: cText('order_no').notNull(),
    merchantId: integer('merchant_id')
      .notNull()
      .references(() => merchants.id),
    merchantOrderNo: text('merchant_order_no').notNull(),
    channelId: integer('channel_id').references(() => channels.id),
    channelOrderId: text('channel_order_id'),
    currency: text('currency').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    /** What the payer actually paid (set when paid; a supplement may correct it). */
    paidAmount: bigint('paid_amount', { mode: 'number' }),
    fee: bigint('fee', { mode: 'number' }).notNull().default(0),
    agentCommission: bigint('agent_commission', { mode: 'number' }).notNull().default(0),
    status: text('status').notNull().$type<PayinStatus>(),
    pushStatus: text('push_status').notNull().default('unpushed').$type<'unpushed' | 'pushed'>(),
    /** `COLLATE "C"`, like `orderNo`. */
    utr: cText('utr'),
    notifyUrl: text('notify_url').notNull(),
    returnUrl: text('return_url'),
    payUrl: text('pay_url'),
    payer: jsonb('payer').$type<Record<string, unknown>>(),
    /** SHA-256 of the canonical create request: a replay with other content is a conflict. */
    requestHash: text('request_hash').notNull(),
    requestSnapshot: jsonb('request_snapshot'),
    responseSnapshot: jsonb('response_snapshot'),
    /**
     * How it became paid: channel callback, supplement (UTR matched), a bank statement line (a supplement
     * whose source is the line) or forced supplement.
     */
    paidBy: text('paid_by').$type<'channel' | 'supplement' | 'statement' | 'force'>(),
    failureReason: text('failure_reason'),
    expiresAt: at('expires_at').notNull(),
    paidAt: at('paid_at'),
    callbackAt: at('callback_at'),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
    /** The receiving account a bank channel assigned the order to (server/modules/receiving). */
    receivingAccountId: integer('receiving_account_id'),
    /** The UTR the payer says they paid with (normalised: trimmed, upper case): recorded, never trusted. */
    payerUtr: text('payer_utr'),
  },
  (t) => [
    primaryKey({ name: 'payin_orders_pkey', columns: [t.id, t.createdAt] }),
    /** Equality and prefix search on the number in each partition (unique in `payin_order_keys`). */
    index('payin_orders_order_no_idx').on(t.orderNo),
    index('payin_orders_receiving_account_idx')
      .on(t.receivingAccountId, t.createdAt.desc().nullsFirst())
      .where(sql`${t.receivingAccountId} is not null`),
    index('payin_orders_utr_idx').on(t.utr).where(sql`${t.utr} is not null`),
    /** A statement credit's UTR is looked up among what payers said (never unique: a payer may lie). */
    index('payin_orders_payer_utr_idx').on(t.payerUtr).where(sql`${t.payerUtr} is not null`),
    /** Matching's amount candidates: the open pay-ins of one amount on one receiving account. */
    index('payin_orders_account_amount_idx')
      .on(t.receivingAccountId, t.amount, t.createdAt)
      .where(
        sql`${t.receivingAccountId} is not null and ${t.status} in (${statesSql(payin.actions.supplement.from)})`,
      ),
    index('payin_orders_merchant_time_idx').on(
      t.merchantId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('payin_orders_time_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    /** A merchant's list by status (its console's tabs): the page is a range read, the capped total index-only. */
    index('payin_orders_merchant_status_time_idx').on(
      t.merchantId,
      t.status,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('payin_orders_pending_expiry_idx')
      .on(t.expiresAt)
      .where(sql`${t.status} = ${statesSql([payin.state.pending])}`),
    // The order number and the UTR are `COLLATE "C"` columns, so their indexes above serve the prefix
    // search as well; these two serve it across merchants, and by channel order id.
    numberIndex('payin_orders_merchant_order_no_c', 'merchant_order_no'),
    numberIndex('payin_orders_channel_order_id_c', 'channel_order_id'),
    check('payin_orders_status', sql`${t.status} in (${statesSql(payin.states)})`),
    check('payin_orders_push_status', sql`${t.pushStatus} in ('unpushed','pushed')`),
    check(
      'payin_orders_amounts',
      sql`${t.amount} > 0 and ${t.fee} >= 0 and ${t.agentCommission} >= 0 and ${t.agentCommission} <= ${t.fee}`,
    ),
  ],
);

/**
 * A payout order: amount plus fee is frozen at `queued` and spent or released exactly once. Partitioned by
 * month like `payin_orders`; its unique numbers live in `payout_order_keys`.
 */
export const payoutOrders = pgTable(
  'payout_orders',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    orderNo: text('order_no').notNull(),
    merchantId: integer('merchant_id')
      .notNull()
      .references(() => merchants.id),
    merchantOrderNo: text('merchant_order_no').notNull(),
    channelId: integer('channel_id').references(() => channels.id),
    channelOrderId: text('channel_order_id'),
    currency: text('currency').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    fee: bigint('fee', { mode: 'number' }).notNull(),
    status: text('status').notNull().$type<PayoutStatus>(),
    pushStatus: text('push_status').notNull().default('unpushed').$type<'unpushed' | 'pushed'>(),
    accountName: text('account_name').notNull(),
    accountNumber: text('account_number').notNull(),
    ifsc: text('ifsc').notNull(),
    utr: text('utr'),
    notifyUrl: text('notify_url').notNull(),
    /** Where the order came from: the gateway API, the console (single transfer) or a bulk upload. */
    source: text('source').notNull().$type<'api' | 'console' | 'bulk'>(),
    requestHash: text('request_hash').notNull(),
    requestSnapshot: jsonb('request_snapshot'),
    responseSnapshot: jsonb('response_snapshot'),
    failureReason: text('failure_reason'),
    /** Times the funds were frozen for this order (a retry freezes again). */
    holds: integer('holds').notNull().default(0),
    /** True while its funds are frozen: set at freeze, cleared by exactly one spend or release. */
    holdOpen: boolean('hold_open').notNull().default(false),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: at('next_attempt_at'),
    completedAt: at('completed_at'),
    callbackAt: at('callback_at'),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'payout_orders_pkey', columns: [t.id, t.createdAt] }),
    index('payout_orders_merchant_time_idx').on(
      t.merchantId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    index('payout_orders_time_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index('payout_orders_queue_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = ${statesSql([payout.state.queued])}`),
    /** The simulator's automatic mode and stuck-payout checks look at processing orders by age. */
    index('payout_orders_processing_idx')
      .on(t.updatedAt)
      .where(sql`${t.status} = ${statesSql([payout.state.processing])}`),
    numberIndex('payout_orders_order_no_c', 'order_no'),
    numberIndex('payout_orders_merchant_order_no_c', 'merchant_order_no'),
    numberIndex('payout_orders_channel_order_id_c', 'channel_order_id'),
    numberIndex('payout_orders_utr_c', 'utr'),
    /** Payouts a person must look at (an unclear channel outcome), and submissions under way, by age. */
    index('payout_orders_attention_idx')
      .on(t.updatedAt)
      .where(sql`${t.status} in (${statesSql(payout.sets.shownAsProcessing)})`),
    check('payout_orders_status', sql`${t.status} in (${statesSql(payout.states)})`),
    check('payout_orders_push_status', sql`${t.pushStatus} in ('unpushed','pushed')`),
    check('payout_orders_amounts', sql`${t.amount} > 0 and ${t.fee} >= 0`),
  ],
);

/**
 * The unique numbers of the pay-ins, one row per order (its id and `created_at`, the partition it is in):
 * a unique index on the partitioned `payin_orders` would have to hold `created_at`, so the uniqueness
 * across months lives here, kept by the triggers of migration 0020 (insert, number or UTR changed,
 * delete), under the constraint names these keys had on `payin_orders` (a duplicate still fails with
 * 23505 `payin_orders_merchant_order_key`...). A detached month's rows stay: its numbers stay taken.
 */
export const payinOrderKeys = pgTable(
  'payin_order_keys',
  {
    id: bigint('id', { mode: 'number' }).primaryKey(),
    createdAt: at('created_at').notNull(),
    orderNo: cText('order_no').notNull(),
    merchantId: integer('merchant_id').notNull(),
    merchantOrderNo: text('merchant_order_no').notNull(),
    utr: cText('utr'),
  },
  (t) => [
    unique('payin_orders_order_no_key').on(t.orderNo),
    unique('payin_orders_merchant_order_key').on(t.merchantId, t.merchantOrderNo),
    uniqueIndex('payin_orders_utr_key').on(t.utr).where(sql`${t.utr} is not null`),
  ],
);

/** The unique numbers of the payouts, as `payin_order_keys` (a payout's UTR is not unique). */
export const payoutOrderKeys = pgTable(
  'payout_order_keys',
  {
    id: bigint('id', { mode: 'number' }).primaryKey(),
    createdAt: at('created_at').notNull(),
    orderNo: text('order_no').notNull(),
    merchantId: integer('merchant_id').notNull(),
    merchantOrderNo: text('merchant_order_no').notNull(),
  },
  (t) => [
    unique('payout_orders_order_no_key').on(t.orderNo),
    unique('payout_orders_merchant_order_key').on(t.merchantId, t.merchantOrderNo),
  ],
);

/** Payment proof images attached to a pay-in; files live under DATA_DIR/uploads. */
export const orderImages = pgTable(
  'order_images',
  {
    id: serial('id').primaryKey(),
    /**
     * The pay-in (no foreign key: `payin_orders` is partitioned and its key holds `created_at`; the upload
     * route writes only for an order it has just read, and orders are never deleted but by detaching).
     */
    orderId: bigint('order_id', { mode: 'number' }).notNull(),
    path: text('path').notNull(),
    mime: text('mime').notNull(),
    size: integer('size').notNull(),
    userId: integer('user_id'),
    createdAt: createdAt(),
  },
  (t) => [index('order_images_order_idx').on(t.orderId)],
);

// ---------------------------------------------------------------------------------------------------
// Callbacks to merchants (Standard Webhooks), queued in the same transaction as the state change.

export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** `webhook-id`: the same on every attempt of this event. */
    messageId: text('message_id').notNull(),
    merchantId: integer('merchant_id')
      .notNull()
      .references(() => merchants.id),
    /** What it is about: a pay-in, a payout, or a settlement application (`orderId` is its id). */
    orderType: text('order_type').notNull().$type<'payin' | 'payout' | 'settlement'>(),
    orderId: bigint('order_id', { mode: 'number' }).notNull(),
    type: text('type').notNull(),
    url: text('url').notNull(),
    payload: jsonb('payload').notNull(),
    status: text('status').notNull().default(callback.initial).$type<CallbackStatus>(),
    /**
     * Which occurrence of this event type for the order: a payout retried after failing can fail again
     * (its second hold's outcome), which is a new event with its own `webhook-id`.
     */
    round: integer('round').notNull().default(1),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: at('next_attempt_at'),
    lockedUntil: at('locked_until'),
    deliveredAt: at('delivered_at'),
    createdAt: createdAt(),
  },
  (t) => [
    unique('webhook_events_message_key').on(t.messageId),
    unique('webhook_events_order_type_round_key').on(t.orderType, t.orderId, t.type, t.round),
    index('webhook_events_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = ${statesSql([callback.state.pending])}`),
    index('webhook_events_merchant_idx').on(t.merchantId, t.status),
    /** The dashboard's queue of callbacks that gave up, for every merchant at once. */
    index('webhook_events_gave_up_idx')
      .on(t.merchantId)
      .where(sql`${t.status} = ${statesSql([callback.state.gave_up])}`),
    check('webhook_events_status', sql`${t.status} in (${statesSql(callback.states)})`),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    eventId: bigint('event_id', { mode: 'number' })
      .notNull()
      .references(() => webhookEvents.id),
    at: at('at').notNull(),
    manual: boolean('manual').notNull().default(false),
    httpStatus: integer('http_status'),
    /** The first 500 characters of the answer, or the transport error. */
    response: text('response').notNull().default(''),
    durationMs: integer('duration_ms').notNull().default(0),
    userId: integer('user_id'),
  },
  (t) => [index('webhook_attempts_event_idx').on(t.eventId, t.at)],
);

/** Gateway nonces seen per merchant within the signing window (a replayed nonce is refused). */
export const gatewayNonces = pgTable(
  'gateway_nonces',
  {
    merchantId: integer('merchant_id').notNull(),
    nonce: text('nonce').notNull(),
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.merchantId, t.nonce] }),
    index('gateway_nonces_expiry_idx').on(t.expiresAt),
  ],
);

/** A merchant's top-up of its payout wallet: submitted by the merchant, confirmed or rejected by the platform. */
export const recharges = pgTable(
  'recharges',
  {
    id: serial('id').primaryKey(),
    merchantId: integer('merchant_id')
      .notNull()
      .references(() => merchants.id),
    currency: text('currency').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    status: text('status').notNull().default(recharge.initial).$type<RechargeStatus>(),
    reference: text('reference').notNull().default(''),
    note: text('note').notNull().default(''),
    createdBy: integer('created_by'),
    decidedBy: integer('decided_by'),
    decidedAt: at('decided_at'),
    rejectReason: text('reject_reason'),
    createdAt: createdAt(),
  },
  (t) => [
    index('recharges_merchant_idx').on(t.merchantId, t.createdAt.desc().nullsFirst()),
    index('recharges_status_idx').on(t.status, t.createdAt.desc().nullsFirst()),
    /** One bank transfer credits once: a reference (stored trimmed, upper case) is the merchant's once, a rejected one aside. */
    uniqueIndex('recharges_reference_key')
      .on(t.merchantId, t.reference)
      .where(sql`${t.reference} <> '' and ${t.status} <> ${statesSql([recharge.state.rejected])}`),
    check('recharges_status', sql`${t.status} in (${statesSql(recharge.states)})`),
    check('recharges_amount', sql`${t.amount} > 0`),
  ],
);

/**
 * The simulator channel's own books: what the "bank" saw. A payment can be recorded here with its UTR
 * while its callback to us is lost, so that a UTR check finds it and a supplement can follow.
 */
export const simulatorTransactions = pgTable(
  'simulator_transactions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    channelOrderId: text('channel_order_id').notNull(),
    kind: text('kind').notNull().$type<'payin' | 'payout'>(),
    orderNo: text('order_no').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    status: text('status').notNull().$type<'pending' | 'success' | 'fail'>(),
    utr: text('utr'),
    account: text('account').notNull().default(''),
    notified: boolean('notified').notNull().default(false),
    createdAt: createdAt(),
    settledAt: at('settled_at'),
  },
  (t) => [
    unique('simulator_transactions_channel_order_key').on(t.channelOrderId),
    uniqueIndex('simulator_transactions_utr_key').on(t.utr).where(sql`${t.utr} is not null`),
  ],
);

// ---------------------------------------------------------------------------------------------------
// Order stats: what dashboards and reports read instead of scanning the orders (PERFORMANCE.md rule 2).

/**
 * Finished orders per business day (of their creation, in `BUSINESS_TIME_ZONE`), merchant, channel, kind
 * and currency. Kept by the write path in the transaction that moves an order into or out of an end
 * state (`server/modules/dashboard/stats.ts`); orders still under way are counted live instead.
 */
export const orderStatsDaily = pgTable(
  'order_stats_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    kind: text('kind').notNull().$type<'payin' | 'payout'>(),
    merchantId: integer('merchant_id').notNull(),
    /** 0: no channel (refused at creation, or a payout no channel took). */
    channelId: integer('channel_id').notNull(),
    currency: text('currency').notNull(),
    /** Orders in an end state: pay-ins paid, failed, unpaid, creation failed; payouts success, failed, creation failed. */
    finishedCount: integer('finished_count').notNull().default(0),
    /** Of those, paid (pay-ins) or successful (payouts). */
    successCount: integer('success_count').notNull().default(0),
    /** Order amounts of the successful ones (the amount the list's totals add up). */
    successAmount: bigint('success_amount', { mode: 'number' }).notNull().default(0),
    /** Fees of the successful ones, and the agents' commission out of them (pay-ins). */
    successFee: bigint('success_fee', { mode: 'number' }).notNull().default(0),
    successCommission: bigint('success_commission', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.day, t.kind, t.merchantId, t.channelId, t.currency] }),
    index('order_stats_daily_merchant_idx').on(t.merchantId, t.day),
    // No CHECK on the figures: an upsert's proposed row carries the change (which may be negative),
    // and PostgreSQL checks it before it finds the row to add it to. checkOrderStats guards them.
    check('order_stats_daily_kind', sql`${t.kind} in ('payin','payout')`),
  ],
);

// ---------------------------------------------------------------------------------------------------
// Money out (OPERATIONS.md section 1): settlements, maker–checker approvals, T+N runs, withdrawal slips.

/**
 * A settlement application: money out of a merchant's collection or payout wallet. Its hold (amount +
 * fee, frozen) is open while the status is in `settlement.sets.open` (OPERATIONS.md section 1).
 */
export const settlements = pgTable(
  'settlements',
  {
    id: serial('id').primaryKey(),
    settlementNo: text('settlement_no').notNull(),
    /** The wallet the money leaves: `collection` (settlementPayment) or `payout` (settlementPayout). */
    wallet: text('wallet').notNull().$type<'collection' | 'payout'>(),
    merchantId: integer('merchant_id')
      .notNull()
      .references(() => merchants.id),
    currency: text('currency').notNull(),
    type: text('type').notNull().$type<'bank' | 'usdt'>(),
    /** Applied amount; the hold is amount + fee until a confirmation lowers it to auditAmount + fee. */
    amount: bigint('amount', { mode: 'number' }).notNull(),
    auditAmount: bigint('audit_amount', { mode: 'number' }),
    fee: bigint('fee', { mode: 'number' }).notNull(),
    status: text('status').notNull().default(settlement.initial).$type<SettlementStatus>(),
    accountName: text('account_name'),
    cardNumber: text('card_number'),
    ifsc: text('ifsc'),
    returnAddress: text('return_address'),
    /** Units of currency per USDT, set at confirmation (usdt). */
    price: numeric('price', { precision: 18, scale: 6 }),
    /** auditAmount ÷ price, rounded down to 6 decimals (usdt). */
    usdtAmount: numeric('usdt_amount', { precision: 24, scale: 6 }),
    /** Proof images (order_images ids) attached at completion. */
    attachments: jsonb('attachments').notNull().$type<number[]>().default([]),
    /** Bank UTR or chain transaction hash, at completion. */
    reference: text('reference'),
    reason: text('reason'),
    appliedBy: integer('applied_by'),
    confirmedBy: integer('confirmed_by'),
    confirmedAt: at('confirmed_at'),
    completedBy: integer('completed_by'),
    completedAt: at('completed_at'),
    failedBy: integer('failed_by'),
    failedAt: at('failed_at'),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    unique('settlements_no_key').on(t.settlementNo),
    index('settlements_merchant_idx').on(
      t.merchantId,
      t.wallet,
      t.createdAt.desc().nullsFirst(),
      t.id.desc(),
    ),
    index('settlements_created_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc()),
    /** The real-time queue: open applications, oldest first. */
    index('settlements_open_idx')
      .on(t.createdAt, t.id)
      .where(sql`${t.status} in (${statesSql(settlement.sets.open)})`),
    check('settlements_status', sql`${t.status} in (${statesSql(settlement.states)})`),
    check('settlements_wallet', sql`${t.wallet} in ('collection','payout')`),
    check('settlements_type', sql`${t.type} in ('bank','usdt')`),
    check(
      'settlements_amounts',
      sql`${t.amount} > 0 and ${t.fee} >= 0 and (${t.auditAmount} is null or ${t.auditAmount} between 1 and ${t.amount})`,
    ),
    /** Nobody completes what they confirmed (maker–checker), whatever the code above does. */
    check('settlements_maker_checker', sql`${t.completedBy} is null or ${t.completedBy} <> ${t.confirmedBy}`),
  ],
);

/**
 * A settlement's proof image (a bank receipt, a chain explorer page): uploaded by a platform user first,
 * then attached by the completion that names it (`settlementId` set once). Files live under DATA_DIR/uploads.
 */
export const settlementImages = pgTable(
  'settlement_images',
  {
    id: serial('id').primaryKey(),
    settlementId: integer('settlement_id').references(() => settlements.id),
    path: text('path').notNull(),
    mime: text('mime').notNull(),
    size: integer('size').notNull(),
    userId: integer('user_id'),
    createdAt: createdAt(),
  },
  (t) => [index('settlement_images_settlement_idx').on(t.settlementId)],
);

/**
 * A maker–checker request: an action above the threshold (a settlement's confirmation, a forced
 * supplement, a manual payout success, a balance adjustment) waits here until a second platform user
 * approves it. `payload` holds the action's input; one pending request per object.
 */
export const approvals = pgTable(
  'approvals',
  {
    id: serial('id').primaryKey(),
    /** The action: `settlement.confirm`, `payin.force`, `payout.markSuccess`, `wallet.adjust`. */
    action: text('action').notNull(),
    /** The object it acts on, e.g. `settlement` 12. */
    refType: text('ref_type').notNull(),
    refId: text('ref_id').notNull(),
    merchantId: integer('merchant_id'),
    currency: text('currency').notNull(),
    /** The amount that made it need a second person (minor units). */
    amount: bigint('amount', { mode: 'number' }).notNull(),
    payload: jsonb('payload').notNull().$type<Record<string, unknown>>().default({}),
    reason: text('reason').notNull().default(''),
    status: text('status').notNull().default(approval.initial).$type<ApprovalStatus>(),
    requestedBy: integer('requested_by').notNull(),
    requestedAt: at('requested_at').notNull().defaultNow(),
    decidedBy: integer('decided_by'),
    decidedAt: at('decided_at'),
    decisionNote: text('decision_note'),
    /** Users besides the requester who may not decide it: the importers of the statement it pays from. */
    barred: integer('barred').array().notNull().default(sql`'{}'::integer[]`),
  },
  (t) => [
    /** A second request for an object while one is pending is refused. */
    uniqueIndex('approvals_pending_ref_key')
      .on(t.refType, t.refId)
      .where(sql`${t.status} = ${statesSql([approval.state.pending])}`),
    index('approvals_requested_idx').on(t.requestedAt.desc().nullsFirst(), t.id.desc()),
    check('approvals_status', sql`${t.status} in (${statesSql(approval.states)})`),
    /** A user never approves their own request. */
    check('approvals_second_person', sql`${t.decidedBy} is null or ${t.decidedBy} <> ${t.requestedBy}`),
    check('approvals_barred', sql`${t.decidedBy} is null or not (${t.decidedBy} = any(${t.barred}))`),
  ],
);

/**
 * What one platform user decided without a second person (contract/doors.ts): the day's sums of a user,
 * of a wallet and of a person's statement are read here before a door lets one more decision through
 * alone, and written in the decision's own transaction (a rolled-back decision leaves no row).
 */
export const decisionsAlone = pgTable(
  'decisions_alone',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** The door (`payin.force`, `statement.pay`…). */
    door: text('door').notNull(),
    userId: integer('user_id').notNull(),
    /** The wallet the money moved in or out of: `merchant:<id>:<collection|payout>:<currency>`, `agent:<id>:<currency>`. */
    wallet: text('wallet').notNull(),
    /** The person's statement it paid from (`statementImport:<id>`), whose total counts too. */
    evidence: text('evidence'),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    /** The object: `payin:<id>`, `statementLine:<id>`… */
    ref: text('ref').notNull(),
    at: at('at').notNull(),
  },
  (t) => [
    index('decisions_alone_user_idx').on(t.userId, t.at),
    index('decisions_alone_wallet_idx').on(t.wallet, t.at),
    index('decisions_alone_evidence_idx').on(t.evidence).where(sql`${t.evidence} is not null`),
    check('decisions_alone_amount', sql`${t.amount} > 0`),
  ],
);

/**
 * A T+N settlement line: a merchant's pending collection net of one business day (`orderDay`, the day
 * the orders were paid in the business time zone), due on `dueDay` (orderDay + the cycle's N when paid).
 * Released once, by the run of a day on or after its due day; `collection_pending` equals the sum of
 * a merchant's pending lines.
 */
export const tnLines = pgTable(
  'tn_lines',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    merchantId: integer('merchant_id')
      .notNull()
      .references(() => merchants.id),
    currency: text('currency').notNull(),
    orderDay: date('order_day', { mode: 'string' }).notNull(),
    dueDay: date('due_day', { mode: 'string' }).notNull(),
    orders: integer('orders').notNull().default(0),
    gross: bigint('gross', { mode: 'number' }).notNull().default(0),
    fee: bigint('fee', { mode: 'number' }).notNull().default(0),
    net: bigint('net', { mode: 'number' }).notNull().default(0),
    status: text('status').notNull().default(tnLine.initial).$type<TnLineStatus>(),
    runId: integer('run_id'),
    releasedAt: at('released_at'),
  },
  (t) => [
    unique('tn_lines_key').on(t.merchantId, t.currency, t.orderDay, t.dueDay),
    /** What a run for day D releases: pending lines due on or before D. */
    index('tn_lines_due_idx')
      .on(t.dueDay, t.merchantId)
      .where(sql`${t.status} = ${statesSql([tnLine.state.pending])}`),
    index('tn_lines_order_day_idx').on(t.orderDay, t.merchantId),
    check('tn_lines_status', sql`${t.status} in (${statesSql(tnLine.states)})`),
    check('tn_lines_days', sql`${t.dueDay} > ${t.orderDay}`),
    check('tn_lines_figures', sql`${t.orders} >= 0 and ${t.net} = ${t.gross} - ${t.fee}`),
  ],
);

/** A settlement run for one business day: started by the daily job (startedBy null) or a platform user. */
export const tnRuns = pgTable(
  'tn_runs',
  {
    id: serial('id').primaryKey(),
    day: date('day', { mode: 'string' }).notNull(),
    startedBy: integer('started_by'),
    startedAt: at('started_at').notNull().defaultNow(),
    finishedAt: at('finished_at'),
    merchants: integer('merchants').notNull().default(0),
    lines: integer('lines').notNull().default(0),
    amountReleased: bigint('amount_released', { mode: 'number' }).notNull().default(0),
    /** `running`, then `succeeded`, `partial` (some merchants failed) or `failed`. */
    outcome: text('outcome')
      .notNull()
      .default('running')
      .$type<'running' | 'succeeded' | 'partial' | 'failed'>(),
    error: text('error'),
  },
  (t) => [
    index('tn_runs_started_idx').on(t.startedAt.desc().nullsFirst(), t.id.desc()),
    /** The daily job runs a day once (a user may run it again: it releases nothing more). */
    uniqueIndex('tn_runs_job_day_key').on(t.day).where(sql`${t.startedBy} is null`),
    check('tn_runs_outcome', sql`${t.outcome} in ('running','succeeded','partial','failed')`),
  ],
);

/** A run's outcome for one merchant (and currency): released in its own transaction, or failed whole. */
export const tnRunMerchants = pgTable(
  'tn_run_merchants',
  {
    runId: integer('run_id')
      .notNull()
      .references(() => tnRuns.id),
    merchantId: integer('merchant_id').notNull(),
    currency: text('currency').notNull(),
    lines: integer('lines').notNull().default(0),
    amount: bigint('amount', { mode: 'number' }).notNull().default(0),
    outcome: text('outcome').notNull().$type<'released' | 'failed'>(),
    error: text('error'),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.merchantId, t.currency] }),
    check('tn_run_merchants_outcome', sql`${t.outcome} in ('released','failed')`),
  ],
);

/** A withdrawal slip: a bank bulk-transfer file, kept as the audit copy. */
export const withdrawalSlips = pgTable(
  'withdrawal_slips',
  {
    id: serial('id').primaryKey(),
    slipNo: text('slip_no').notNull(),
    /** `generic_csv`, or a bank's bulk upload layout. */
    format: text('format').notNull(),
    status: text('status').notNull().default(slip.initial).$type<SlipStatus>(),
    currency: text('currency').notNull(),
    lineCount: integer('line_count').notNull(),
    total: bigint('total', { mode: 'number' }).notNull(),
    fileName: text('file_name').notNull(),
    /** The file exactly as it was handed out. */
    content: text('content').notNull(),
    /**
     * The public account the bank pays it from: only that account's statement debits may propose closing
     * its lines. Null for slips written before it was asked (their lines close by hand only).
     */
    accountId: integer('account_id').references(() => receivingAccounts.id),
    createdBy: integer('created_by').notNull(),
    createdAt: createdAt(),
    decidedBy: integer('decided_by'),
    decidedAt: at('decided_at'),
  },
  (t) => [
    unique('withdrawal_slips_no_key').on(t.slipNo),
    index('withdrawal_slips_created_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc()),
    check('withdrawal_slips_status', sql`${t.status} in (${statesSql(slip.states)})`),
  ],
);

/** A slip's line: one bank settlement or one payout on a manual bank channel. */
export const withdrawalSlipLines = pgTable(
  'withdrawal_slip_lines',
  {
    id: serial('id').primaryKey(),
    slipId: integer('slip_id')
      .notNull()
      .references(() => withdrawalSlips.id),
    objectType: text('object_type').notNull().$type<'settlement' | 'payout'>(),
    objectId: bigint('object_id', { mode: 'number' }).notNull(),
    merchantId: integer('merchant_id').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    beneficiaryName: text('beneficiary_name').notNull(),
    accountNumber: text('account_number').notNull(),
    ifsc: text('ifsc').notNull(),
    /** Our reference as the bank's narration carries it (the settlement or payout number). */
    narration: text('narration').notNull(),
    status: text('status').notNull().default(slipLine.initial).$type<SlipLineStatus>(),
    reference: text('reference'),
    decidedBy: integer('decided_by'),
    decidedAt: at('decided_at'),
  },
  (t) => [
    index('withdrawal_slip_lines_slip_idx').on(t.slipId, t.id),
    /** A settlement or payout is on at most one live slip. */
    uniqueIndex('withdrawal_slip_lines_live_key')
      .on(t.objectType, t.objectId)
      .where(sql`${t.status} in (${statesSql(slipLine.sets.live)})`),
    check('withdrawal_slip_lines_status', sql`${t.status} in (${statesSql(slipLine.states)})`),
    check('withdrawal_slip_lines_object_type', sql`${t.objectType} in ('settlement','payout')`),
    check('withdrawal_slip_lines_amount', sql`${t.amount} > 0`),
  ],
);

// ---- receiving accounts (server/modules/receiving) ----------------------------------------------

/** A person who lends the platform bank accounts (donor cards), paid a commission on what they receive. */
export const accountHolders = pgTable(
  'account_holders',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    phone: text('phone').notNull(),
    idNumber: text('id_number').notNull(),
    commissionPpm: integer('commission_ppm').notNull().default(0),
    status: text('status').notNull().default('active').$type<'active' | 'disabled'>(),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    check('account_holders_status', sql`${t.status} in ('active','disabled')`),
    check('account_holders_commission', sql`${t.commissionPpm} between 0 and 1000000`),
  ],
);

/** A bank account payers pay into: the platform's own (`public`) or a donor card (`card`, with its holder). */
export const receivingAccounts = pgTable(
  'receiving_accounts',
  {
    id: serial('id').primaryKey(),
    kind: text('kind').notNull().$type<'public' | 'card'>(),
    bankName: text('bank_name').notNull(),
    accountName: text('account_name').notNull(),
    accountNumber: text('account_number').notNull(),
    ifsc: text('ifsc').notNull(),
    vpa: text('vpa'),
    /** Most money received per business day, minor units. */
    dailyLimit: bigint('daily_limit', { mode: 'number' }).notNull(),
    /** Most orders per business day (none: no count limit). */
    dailyCount: integer('daily_count'),
    minAmount: bigint('min_amount', { mode: 'number' }),
    maxAmount: bigint('max_amount', { mode: 'number' }),
    holderId: integer('holder_id').references(() => accountHolders.id),
    status: text('status').notNull().default('active').$type<'active' | 'paused' | 'frozen'>(),
    lastKnownBalance: bigint('last_known_balance', { mode: 'number' }),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    unique('receiving_accounts_number_key').on(t.ifsc, t.accountNumber),
    check('receiving_accounts_kind', sql`${t.kind} in ('public','card')`),
    check('receiving_accounts_status', sql`${t.status} in ('active','paused','frozen')`),
    check('receiving_accounts_holder', sql`(${t.kind} = 'card') = (${t.holderId} is not null)`),
    check(
      'receiving_accounts_limits',
      sql`${t.dailyLimit} > 0 and (${t.dailyCount} is null or ${t.dailyCount} > 0) and (${t.minAmount} is null or ${t.minAmount} > 0) and (${t.maxAmount} is null or ${t.maxAmount} >= coalesce(${t.minAmount}, 1))`,
    ),
  ],
);

/**
 * A receiving account's business day: what the orders assigned to it hold (pending and paid). The bank
 * channel locks this one row to judge and reserve capacity; unpaid and failed orders give theirs back.
 */
export const receivingAccountDays = pgTable(
  'receiving_account_days',
  {
    accountId: integer('account_id')
      .notNull()
      .references(() => receivingAccounts.id),
    day: date('day', { mode: 'string' }).notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull().default(0),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day] })],
);

/** A receiving account bound to a bank channel: its weight, the merchants it serves (none: all), its hours. */
export const cardBindings = pgTable(
  'card_bindings',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => receivingAccounts.id),
    channelId: integer('channel_id')
      .notNull()
      .references(() => channels.id),
    weight: integer('weight').notNull().default(100),
    merchantIds: integer('merchant_ids').array().notNull().default(sql`'{}'::integer[]`),
    /** Minutes of the business day (0–1439) between which it takes orders; `to` before `from` spans midnight. */
    activeFrom: integer('active_from'),
    activeTo: integer('active_to'),
    createdAt: createdAt(),
  },
  (t) => [
    unique('card_bindings_account_channel_key').on(t.accountId, t.channelId),
    index('card_bindings_channel_idx').on(t.channelId),
    check('card_bindings_weight', sql`${t.weight} between 1 and 10000`),
    check(
      'card_bindings_hours',
      sql`(${t.activeFrom} is null) = (${t.activeTo} is null) and coalesce(${t.activeFrom}, 0) between 0 and 1439 and coalesce(${t.activeTo}, 0) between 0 and 1439`,
    ),
  ],
);

/** A phone number or UPI handle registered to an account holder, and the cards it links to. */
export const holderNumbers = pgTable(
  'holder_numbers',
  {
    id: serial('id').primaryKey(),
    holderId: integer('holder_id')
      .notNull()
      .references(() => accountHolders.id),
    kind: text('kind').notNull().$type<'phone' | 'upi'>(),
    value: text('value').notNull(),
    accountIds: integer('account_ids').array().notNull().default(sql`'{}'::integer[]`),
    status: text('status').notNull().default('active').$type<'active' | 'disabled'>(),
    createdAt: createdAt(),
  },
  (t) => [
    unique('holder_numbers_value_key').on(t.kind, t.value),
    index('holder_numbers_holder_idx').on(t.holderId),
    check('holder_numbers_kind', sql`${t.kind} in ('phone','upi')`),
    check('holder_numbers_status', sql`${t.status} in ('active','disabled')`),
  ],
);

// ---- bank statements (server/modules/statement) -----------------------------------------------

/** Bytes as the driver gives them (PostgreSQL `bytea`). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });

/** A statement mapping saved per bank (contract/statementMapping.ts): how its exports are read. */
export const statementMappings = pgTable(
  'statement_mappings',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    bankName: text('bank_name').notNull(),
    mapping: jsonb('mapping').notNull().$type<StatementMapping>(),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [unique('statement_mappings_name_key').on(t.name)],
);

/**
 * One import of a statement into a receiving account: the file exactly as it came (the audit copy), the
 * mapping it was read with, and what it gave. `status` is `running` while its lines are written in
 * batches (`processed` of `lineCount`: the console's progress), then `done`.
 */
export const statementImports = pgTable(
  'statement_imports',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => receivingAccounts.id),
    /** A key the console chose, to follow the import's progress while the request runs. */
    key: text('key'),
    fileName: text('file_name').notNull(),
    /** `csv`, `xlsx`, `xls`, `mt940`, `camt053` or `text` (pasted). */
    format: text('format').notNull(),
    /**
     * Where the statement came from (contract/endpoints/statement.ts `statementSources`): a file a person
     * uploaded, text a person pasted, or the bank's own feed. Only a feed's lines pay by themselves.
     */
    source: text('source').notNull().$type<StatementSource>(),
    sha256: text('sha256').notNull(),
    size: integer('size').notNull(),
    content: bytea('content').notNull(),
    /** The mapping read with, as found (header row, date form); `{}` for MT940 and camt.053. */
    mapping: jsonb('mapping').notNull().$type<StatementMapping | Record<string, never>>(),
    mappingId: integer('mapping_id').references(() => statementMappings.id),
    /** No mapping was chosen: `mapping` is what detection found; `bank` the preset it recognised. */
    detected: boolean('detected').notNull().default(false),
    bank: text('bank'),
    /** Over all the file's lines, minor units (null for imports before totals were kept). */
    totals: jsonb('totals').$type<{
      credits: { count: number; sum: number };
      debits: { count: number; sum: number };
    }>(),
    /** Rows that are no transaction: counted, the first ones listed. */
    skipped: jsonb('skipped')
      .notNull()
      .default(sql`'{"count":0,"rows":[]}'::jsonb`)
      .$type<{ count: number; rows: { row: number; kind: string; text: string }[] }>(),
    /** Rows that could not be read, left out because the importer chose to import the rest. */
    errorRows: jsonb('error_rows')
      .notNull()
      .default(sql`'[]'::jsonb`)
      .$type<
        { row: number; column: string; code: string; key: string; params?: Record<string, string | number> }[]
      >(),
    status: text('status').notNull().default('running').$type<'running' | 'done'>(),
    lineCount: integer('line_count').notNull(),
    processed: integer('processed').notNull().default(0),
    newCount: integer('new_count').notNull().default(0),
    duplicateCount: integer('duplicate_count').notNull().default(0),
    matchedCount: integer('matched_count').notNull().default(0),
    readyCount: integer('ready_count').notNull().default(0),
    proposedCount: integer('proposed_count').notNull().default(0),
    exceptionCount: integer('exception_count').notNull().default(0),
    /** Running-balance gaps the file shows: `[{row, expected, found}]`. */
    gaps: jsonb('gaps')
      .notNull()
      .default(sql`'[]'::jsonb`)
      .$type<{ row: number; expected: number; found: number }[]>(),
    createdBy: integer('created_by').notNull(),
    createdAt: createdAt(),
    finishedAt: at('finished_at'),
  },
  (t) => [
    index('statement_imports_account_idx').on(t.accountId, t.id.desc()),
    uniqueIndex('statement_imports_key').on(t.key).where(sql`${t.key} is not null`),
    check('statement_imports_status', sql`${t.status} in ('running','done')`),
    check(
      'statement_imports_source',
      sql`${t.source} in (${sql.raw(statementSources.map((v) => `'${v}'`).join(','))})`,
    ),
  ],
);

/**
 * A line of a receiving account's bank statement. Unique per account by `dedupeKey` (the bank's
 * reference, or date + direction + amount + narration + balance): re-importing adds nothing. A line pays
 * at most one pay-in and a pay-in is paid by at most one line (both unique); a debit may close one
 * withdrawal-slip line.
 */
export const statementLines = pgTable(
  'statement_lines',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => receivingAccounts.id),
    importId: integer('import_id')
      .notNull()
      .references(() => statementImports.id),
    /** The row in the file it came from. */
    row: integer('row').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    narration: text('narration').notNull(),
    reference: text('reference'),
    direction: text('direction').notNull().$type<'credit' | 'debit'>(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    balance: bigint('balance', { mode: 'number' }),
    /** Normalised: trimmed, upper case. */
    utr: cText('utr'),
    /** ISO 4217 when the file says it (MT940, camt.053); null: the account's own (INR). */
    currency: text('currency'),
    dedupeKey: text('dedupe_key').notNull(),
    status: text('status').notNull().default(statementLine.initial).$type<StatementLineStatus>(),
    /** Why an `exception` line waits (contract `exceptionKinds`). */
    exceptionKind: text('exception_kind').$type<ExceptionKind>(),
    /** The pay-in it paid (`matched`). */
    payinId: bigint('payin_id', { mode: 'number' }),
    /** The pay-in it proposes (`proposed`), or the one whose UTR it carries with another amount (`amount_mismatch`). */
    candidatePayinId: bigint('candidate_payin_id', { mode: 'number' }),
    slipLineId: integer('slip_line_id').references(() => withdrawalSlipLines.id),
    /** The waiting slip line a `ready` debit proposes to close. */
    candidateSlipLineId: integer('candidate_slip_line_id').references(() => withdrawalSlipLines.id),
    /** The approval request it waits in, while that request is pending (posting above the day's sums). */
    approvalId: integer('approval_id'),
    /** Why a person dismissed it. */
    reason: text('reason'),
    resolvedBy: integer('resolved_by'),
    resolvedAt: at('resolved_at'),
    createdAt: createdAt(),
  },
  (t) => [
    unique('statement_lines_dedupe_key').on(t.accountId, t.dedupeKey),
    uniqueIndex('statement_lines_payin_key').on(t.payinId).where(sql`${t.payinId} is not null`),
    uniqueIndex('statement_lines_slip_line_key').on(t.slipLineId).where(sql`${t.slipLineId} is not null`),
    /** The account's statement flow, by day. */
    index('statement_lines_account_day_idx').on(t.accountId, t.day, t.id),
    /** The exception queue, oldest first. */
    index('statement_lines_open_idx')
      .on(t.createdAt, t.id)
      .where(sql`${t.status} in (${statesSql(statementLine.sets.open)})`),
    index('statement_lines_utr_idx').on(t.utr).where(sql`${t.utr} is not null`),
    /** The orders open credit lines name already (matching gives no second line the same order). */
    index('statement_lines_candidate_idx')
      .on(t.accountId, t.candidatePayinId)
      .where(
        sql`${t.status} in (${statesSql(statementLine.sets.postable)}) and ${t.candidatePayinId} is not null`,
      ),
    check('statement_lines_status', sql`${t.status} in (${statesSql(statementLine.states)})`),
    check('statement_lines_direction', sql`${t.direction} in ('credit','debit')`),
    check('statement_lines_amount', sql`${t.amount} > 0`),
    check(
      'statement_lines_exception_kind',
      sql`(${t.status} = ${statesSql([statementLine.state.exception])}) = (${t.exceptionKind} is not null) and coalesce(${t.exceptionKind}, 'unmatched') in (${sql.raw(exceptionKinds.map((k) => `'${k}'`).join(','))})`,
    ),
    check(
      'statement_lines_matched',
      sql`${t.status} <> ${statesSql([statementLine.state.matched])} or ${t.payinId} is not null or ${t.slipLineId} is not null`,
    ),
  ],
);

/** What a feed's last listing showed of a file matching its pattern (a file is taken once it stands still). */
export interface FeedSighting {
  size: number;
  /** Modification time, seconds since the epoch (as SFTP gives it). */
  mtime: number;
  /** When this name was first listed, ISO. */
  firstSeenAt: string;
  /** Handled at this size and time (imported, refused or a duplicate): not downloaded again. */
  done?: boolean;
}

/**
 * A receiving account's bank feed (docs/STATEMENTS.md "Bank feed (SFTP)"): the bank's host-to-host SFTP
 * folder, polled by the `statement-feed` job; each file imported once as the bank's word (`source: feed`).
 * The private key is sealed (server/lib/crypto.ts) and never answered or logged; the server's host key
 * must match `hostKeyFingerprint` (no trust on first use). `leaseUntil`/`leaseOwner`: one poll of a feed at
 * a time across server processes (compare-and-set).
 */
export const statementFeeds = pgTable(
  'statement_feeds',
  {
    id: serial('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => receivingAccounts.id),
    host: text('host').notNull(),
    port: integer('port').notNull().default(22),
    username: text('username').notNull(),
    /** The client's private key (OpenSSH or PEM text), sealed. */
    privateKeySealed: text('private_key_sealed').notNull(),
    /** The server's host key as OpenSSH prints it: `SHA256:<base64, no padding>`. */
    hostKeyFingerprint: text('host_key_fingerprint').notNull(),
    folder: text('folder').notNull(),
    /** A file-name glob (`*` and `?`), matched case-insensitively (statementFeed/glob.ts). */
    pattern: text('pattern').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /** The platform user who saved it: its imports are in this user's name. */
    importAs: integer('import_as').notNull(),
    /** The files matching the pattern at the last poll, by name. */
    sightings: jsonb('sightings').notNull().default(sql`'{}'::jsonb`).$type<Record<string, FeedSighting>>(),
    lastPolledAt: at('last_polled_at'),
    lastError: text('last_error'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    /** When a failure of the connection was last alerted (at most once an hour). */
    lastAlertAt: at('last_alert_at'),
    leaseUntil: at('lease_until'),
    leaseOwner: text('lease_owner'),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    unique('statement_feeds_account_key').on(t.accountId),
    check('statement_feeds_port', sql`${t.port} between 1 and 65535`),
  ],
);

/**
 * A file a feed downloaded: imported (`importId`) or refused (`error`, its reason in English), once per
 * content (unique `sha256` per feed), whatever its name or however often it is dropped. A file too large
 * to download has no hash.
 */
export const statementFeedFiles = pgTable(
  'statement_feed_files',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    feedId: integer('feed_id')
      .notNull()
      .references(() => statementFeeds.id, { onDelete: 'cascade' }),
    remoteName: text('remote_name').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    mtime: at('mtime').notNull(),
    sha256: text('sha256'),
    importId: integer('import_id').references(() => statementImports.id),
    error: text('error'),
    firstSeenAt: at('first_seen_at').notNull(),
    importedAt: at('imported_at'),
  },
  (t) => [
    unique('statement_feed_files_content_key').on(t.feedId, t.sha256),
    index('statement_feed_files_feed_idx').on(t.feedId, t.id.desc()),
  ],
);

/**
 * Reconciliation's figures (`GET /statOrder/balance?view=account`, server/modules/stat/account.ts) per
 * business day (in the stored business time zone), receiving account, channel and currency. Kept by
 * database triggers (migration `0017_reconciliation_rollup`) on `payin_orders` and `statement_lines`, so
 * every path that pays an order or writes, matches or dismisses a line keeps it, in the same transaction.
 * - paid, unproved: pay-ins with a receiving account, on the day they were paid; unproved when no
 *   statement line points at them (forced, supplemented or paid by the channel's word);
 * - matched, unmatched: statement credits on the line's own day; a matched one under the channel and
 *   currency of the pay-in it paid, an open or dismissed one under channel 0 and rupees (receiving
 *   accounts are Indian bank accounts).
 */
export const reconciliationDaily = pgTable(
  'reconciliation_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    accountId: integer('account_id').notNull(),
    /** 0: no channel known (a credit that paid no order). */
    channelId: integer('channel_id').notNull(),
    currency: text('currency').notNull(),
    paidCount: integer('paid_count').notNull().default(0),
    paidSum: bigint('paid_sum', { mode: 'number' }).notNull().default(0),
    unprovedCount: integer('unproved_count').notNull().default(0),
    unprovedSum: bigint('unproved_sum', { mode: 'number' }).notNull().default(0),
    matchedCount: integer('matched_count').notNull().default(0),
    matchedSum: bigint('matched_sum', { mode: 'number' }).notNull().default(0),
    unmatchedCount: integer('unmatched_count').notNull().default(0),
    unmatchedSum: bigint('unmatched_sum', { mode: 'number' }).notNull().default(0),
  },
  // No CHECK on the figures, as in order_stats_daily: an upsert's proposed row carries a signed change.
  (t) => [primaryKey({ columns: [t.day, t.accountId, t.channelId, t.currency] })],
);

/**
 * The loose ends of each account's running balance by day (docs/STATEMENTS.md "Reconciliation knows what is
 * missing"), kept by a trigger on `statement_lines` (migration `0025_statement_balance_ends`): every line
 * with a balance adds 1 at the balance after it and takes 1 at the balance before it (its balance less its
 * signed amount). A day's lines that run as one chain cancel out but for two ends, -1 at the day's
 * opening and +1 at its closing, in whatever order the bank listed them; more ends than two say lines of
 * the day are missing. Rows at 0 are removed. The day's opening against the previous day's closing tells
 * a gap between two imports with two index probes, where reading the day's lines cost 30 ms a row.
 */
export const statementBalanceEnds = pgTable(
  'statement_balance_ends',
  {
    accountId: integer('account_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    balance: bigint('balance', { mode: 'number' }).notNull(),
    /** Lines ending at this balance less lines starting from it. */
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day, t.balance] })],
);

// ---------------------------------------------------------------------------------------------------
// Reports and configuration (OPERATIONS.md sections 3 and 4).

/**
 * Paid pay-ins per business day of creation (the order statistics' day), channel and how long the payer
 * took (`bucket`: an index into the contract's pay-time bounds): what the channel statistics' median
 * time to pay is read from. Kept by a trigger on payin_orders (migration 0018), rebuilt with the order stats.
 */
export const payinPayTimeDaily = pgTable(
  'payin_pay_time_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    channelId: integer('channel_id').notNull(),
    bucket: integer('bucket').notNull(),
    orders: integer('orders').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.channelId, t.bucket] })],
);

/** Dashboard notices (the system memo): plain text, shown to platform users, merchant users or both. */
export const systemMemos = pgTable(
  'system_memos',
  {
    id: serial('id').primaryKey(),
    title: text('title').notNull(),
    body: text('body').notNull().default(''),
    pinned: boolean('pinned').notNull().default(false),
    audience: text('audience').notNull().$type<'platform' | 'merchants' | 'everyone'>(),
    createdBy: integer('created_by').notNull(),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('system_memos_order_idx').on(t.pinned.desc(), t.createdAt.desc(), t.id.desc()),
    check('system_memos_audience', sql`${t.audience} in ('platform','merchants','everyone')`),
  ],
);

/** The platform's Telegram bot: one row, its token sealed with the server key. */
export const telegramBot = pgTable(
  'telegram_bot',
  {
    id: integer('id').primaryKey().default(1),
    /** The bot token, sealed (server/lib/crypto.ts); never answered, logged or sent anywhere but the API. */
    tokenSealed: text('token_sealed').notNull(),
    updatedBy: integer('updated_by'),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [check('telegram_bot_one_row', sql`${t.id} = 1`)],
);

/** The alerts a Telegram group asked for; null or false: not wanted. */
export interface TelegramAlerts {
  callbackGaveUp: boolean;
  /** A payout still under way this many minutes after it was created. */
  payoutStuckMinutes: number | null;
  settlementApplied: boolean;
  /** Repeated amounts decided alone just below the maker–checker threshold (absent in older groups). */
  nearThreshold?: boolean;
  /** A bank feed that cannot be read, or a file of it refused (absent in older groups). */
  statementFeed?: boolean;
  /** A merchant's payout wallet below this many minor units. */
  payoutBalanceFloor: number | null;
  /** A channel's pay-in success rate over the last hour below this percentage. */
  channelSuccessFloorPct: number | null;
}

/** A Telegram group the platform alerts, with the merchants and channels it follows (empty: all). */
export const telegramGroups = pgTable(
  'telegram_groups',
  {
    id: serial('id').primaryKey(),
    chatId: text('chat_id').notNull(),
    name: text('name').notNull(),
    merchantIds: integer('merchant_ids').array().notNull().default(sql`'{}'::integer[]`),
    channelIds: integer('channel_ids').array().notNull().default(sql`'{}'::integer[]`),
    alerts: jsonb('alerts').notNull().$type<TelegramAlerts>(),
    status: text('status').notNull().default('active').$type<'active' | 'disabled'>(),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    unique('telegram_groups_chat_key').on(t.chatId),
    check('telegram_groups_status', sql`${t.status} in ('active','disabled')`),
  ],
);

/**
 * One alert to one group, recorded before it is sent and retried until the API takes it. `dedupeKey`
 * names the event (`callbackGaveUp:<event id>`, `payoutStuck:<order no>`…): an event alerts a group once.
 */
export const telegramDeliveries = pgTable(
  'telegram_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    groupId: integer('group_id')
      .notNull()
      .references(() => telegramGroups.id, { onDelete: 'cascade' }),
    /** The alert kind (`test` for a test message). */
    alert: text('alert').notNull(),
    dedupeKey: text('dedupe_key').notNull(),
    text: text('text').notNull(),
    status: text('status').notNull().default(telegramDelivery.initial).$type<TelegramDeliveryStatus>(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: at('next_attempt_at').notNull().defaultNow(),
    lastError: text('last_error'),
    sentAt: at('sent_at'),
    createdAt: createdAt(),
  },
  (t) => [
    unique('telegram_deliveries_event_key').on(t.groupId, t.dedupeKey),
    index('telegram_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = ${statesSql([telegramDelivery.state.pending])}`),
    index('telegram_deliveries_created_idx').on(t.createdAt.desc(), t.id.desc()),
    check('telegram_deliveries_status', sql`${t.status} in (${statesSql(telegramDelivery.states)})`),
  ],
);

/**
 * A balance adjustment the platform applied to a merchant's wallet (a journal entry of kind `adjustment`).
 * Written once, when the money moves: directly, or when a second user approves the request
 * (`approvalId`, approvals action `wallet.adjust`); a pending or rejected request lives in approvals.
 */
export const balanceAdjustments = pgTable(
  'balance_adjustments',
  {
    id: serial('id').primaryKey(),
    merchantId: integer('merchant_id')
      .notNull()
      .references(() => merchants.id),
    /** `collection_available` or `payout_available`. */
    wallet: text('wallet').notNull().$type<'collection_available' | 'payout_available'>(),
    currency: text('currency').notNull(),
    /** Signed minor units: a credit is positive, a debit negative. */
    amount: bigint('amount', { mode: 'number' }).notNull(),
    reason: text('reason').notNull(),
    requestedBy: integer('requested_by').notNull(),
    approvalId: integer('approval_id'),
    approvedBy: integer('approved_by'),
    entryId: bigint('entry_id', { mode: 'number' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    unique('balance_adjustments_approval_key').on(t.approvalId),
    index('balance_adjustments_merchant_idx').on(t.merchantId, t.createdAt.desc(), t.id.desc()),
    index('balance_adjustments_created_idx').on(t.createdAt.desc(), t.id.desc()),
    check('balance_adjustments_wallet', sql`${t.wallet} in ('collection_available','payout_available')`),
    check('balance_adjustments_amount', sql`${t.amount} <> 0`),
  ],
);

/** Commission the platform paid an agent out of its payable balance (a journal entry), with the bank's reference. */
export const agentCommissionPayments = pgTable(
  'agent_commission_payments',
  {
    id: serial('id').primaryKey(),
    agentId: integer('agent_id')
      .notNull()
      .references(() => agents.id),
    currency: text('currency').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    reference: text('reference').notNull(),
    note: text('note').notNull().default(''),
    paidBy: integer('paid_by').notNull(),
    entryId: bigint('entry_id', { mode: 'number' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    unique('agent_commission_payments_reference_key').on(t.agentId, t.reference),
    index('agent_commission_payments_agent_idx').on(t.agentId, t.createdAt.desc(), t.id.desc()),
    check('agent_commission_payments_amount', sql`${t.amount} > 0`),
  ],
);
