/**
 * Who uses the platform and how it speaks to them: merchants (tenants), agents and channels; users, their
 * roles and sign-in, the trail of what they did; mail, parameters, the system memo and the Telegram bot.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  unique,
} from 'drizzle-orm/pg-core';
import { telegramDelivery } from '../../../contract/machines.ts';
import { statesSql } from '../states.ts';
import {
  at,
  createdAt,
  machineStatus,
  machineStatusCheck,
  minorUnits,
  switchStatus,
  switchStatusCheck,
  timestamps,
  updatedAt,
} from './columns.ts';

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
    platformFee: minorUnits('platform_fee').notNull().default(0),
    /** Payout fee: round_half_up(amount × rate) + per-payout fee. */
    payoutRatePpm: integer('payout_rate_ppm').notNull().default(0),
    payoutFee: minorUnits('payout_fee').notNull().default(0),
    /** Shown to payers on top of the amount; set by the merchant on its fee screen. */
    surchargePpm: integer('surcharge_ppm').notNull().default(0),
    /** Settlement price for stablecoin settlements (units of currency per USDT), 6 decimals. */
    exchangeRate: numeric('exchange_rate', { precision: 18, scale: 6 }).notNull().default('0'),
    minAmount: minorUnits('min_amount').notNull().default(100),
    maxAmount: minorUnits('max_amount').notNull().default(100_000_000),
    /** 0 = D0 (credited available at once); N = T+N (credited pending, released N days later). */
    settlementDays: integer('settlement_days').notNull().default(0),
    /** Settlement fee (taking money out of a wallet): round_half_up(amount × rate) + fixed fee. */
    settlementRatePpm: integer('settlement_rate_ppm').notNull().default(0),
    settlementFee: minorUnits('settlement_fee').notNull().default(0),
    payoutIpWhitelist: jsonb('payout_ip_whitelist').notNull().$type<string[]>().default([]),
    callbackUrl: text('callback_url').notNull().default(''),
    /** Velocity (docs/MONEY-BACK.md section 4): pay-ins per payer per business day; null: no limit. */
    velocityPayinsPerDay: integer('velocity_payins_per_day'),
    /** Amount per payer per business day, minor units; null: no limit. */
    velocityAmountPerDay: minorUnits('velocity_amount_per_day'),
    /** API and webhook secrets, sealed with the server key: answered once, then only masked. */
    apiSecret: text('api_secret').notNull().default(''),
    webhookSecret: text('webhook_secret').notNull().default(''),
    ...timestamps(),
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
    check(
      'merchants_velocity',
      sql`coalesce(${t.velocityPayinsPerDay}, 1) > 0 and coalesce(${t.velocityAmountPerDay}, 1) > 0`,
    ),
  ],
);

/** The merchant a record of money or orders belongs to. */
export const merchantRef = () =>
  integer('merchant_id')
    .notNull()
    .references(() => merchants.id);

/** An agent: brings merchants and earns a commission on their pay-ins, out of the platform's fee. */
export const agents = pgTable(
  'agents',
  {
    id: serial('id').primaryKey(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    commissionPpm: integer('commission_ppm').notNull().default(0),
    status: switchStatus(),
    ...timestamps(),
  },
  (t) => [
    unique('agents_code_key').on(t.code),
    check('agents_commission', sql`${t.commissionPpm} between 0 and 1000000`),
    switchStatusCheck('agents_status', t.status),
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
    payoutCostFixed: minorUnits('payout_cost_fixed').notNull().default(0),
    minAmount: minorUnits('min_amount').notNull().default(100),
    maxAmount: minorUnits('max_amount').notNull().default(1_000_000_000),
    weight: integer('weight').notNull().default(100),
    supportsPayin: boolean('supports_payin').notNull().default(true),
    supportsPayout: boolean('supports_payout').notNull().default(true),
    status: switchStatus(),
    /** Adapter settings, e.g. the simulator's automatic mode `{auto, successRate, delayMs}`. */
    settings: jsonb('settings').notNull().$type<Record<string, unknown>>().default({}),
    ...timestamps(),
  },
  (t) => [
    unique('channels_code_key').on(t.code),
    check('channels_limits', sql`${t.minAmount} > 0 and ${t.maxAmount} >= ${t.minAmount}`),
    check('channels_weight', sql`${t.weight} between 0 and 10000`),
    switchStatusCheck('channels_status', t.status),
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
    status: switchStatus(),
    /** TOTP seed, encrypted with the server key; null when no key is bound. */
    totpSecret: text('totp_secret'),
    /** Last accepted TOTP time step: a code is accepted only for a later step (no replay). */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }).notNull().default(0),
    lastLoginAt: at('last_login_at'),
    ...timestamps(),
  },
  (t) => [
    unique('users_username_key').on(t.username),
    index('users_merchant_idx').on(t.merchantId),
    check('users_kind', sql`${t.kind} in ('platform','merchant')`),
    check('users_tenant', sql`(${t.kind} = 'merchant') = (${t.merchantId} is not null)`),
    switchStatusCheck('users_status', t.status),
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
    ...timestamps(),
  },
  (t) => [
    unique('roles_name_key').on(t.kind, t.merchantId, t.name).nullsNotDistinct(),
    check('roles_tenant', sql`(${t.kind} = 'merchant') = (${t.merchantId} is not null)`),
  ],
);

/** The user a sign-in record belongs to, gone with the user. */
export const userRef = () =>
  integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' });

export const userRoles = pgTable(
  'user_roles',
  {
    userId: userRef(),
    roleId: integer('role_id')
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.roleId] }), index('user_roles_role_idx').on(t.roleId)],
);

/** A token given to a user, kept only as its SHA-256. */
const userToken = () => ({
  tokenHash: text('token_hash').primaryKey(),
  userId: userRef(),
  createdAt: createdAt(),
});
/** Until when a token holds, when it was revoked, and the client it was given to. */
const tokenLifetime = () => ({
  expiresAt: at('expires_at').notNull(),
  revokedAt: at('revoked_at'),
  ip: text('ip').notNull().default(''),
  userAgent: text('user_agent').notNull().default(''),
});

/** Sign-in sessions. Only a SHA-256 of the token is stored. */
export const sessions = pgTable(
  'sessions',
  {
    ...userToken(),
    lastSeenAt: at('last_seen_at').notNull(),
    ...tokenLifetime(),
    /** Until when one Google code stands in for the code of queue decisions (the money session), if open. */
    moneyUntil: at('money_until'),
    /**
     * Wrong current passwords given from this session (changing the password or the e-mail, binding or
     * unbinding a Google key): they do not count towards the sign-in lockout; the fifth ends the session.
     */
    passwordFailures: integer('password_failures').notNull().default(0),
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
    ...userToken(),
    ...tokenLifetime(),
  },
  (t) => [index('device_tokens_user_idx').on(t.userId)],
);

/** Half-finished two-step sign-ins; the ticket itself is only stored hashed. */
export const loginTickets = pgTable('login_tickets', {
  ticketHash: text('ticket_hash').primaryKey(),
  userId: userRef(),
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
    userId: userRef(),
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
  updatedAt: updatedAt(),
});

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
    ...timestamps(),
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
    updatedAt: updatedAt(),
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
  /** An open dispute's deadline near or passed (absent in older groups). */
  disputeDeadline?: boolean;
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
    status: switchStatus(),
    ...timestamps(),
  },
  (t) => [
    unique('telegram_groups_chat_key').on(t.chatId),
    switchStatusCheck('telegram_groups_status', t.status),
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
    status: machineStatus(telegramDelivery),
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
    machineStatusCheck('telegram_deliveries_status', t.status, telegramDelivery),
  ],
);
