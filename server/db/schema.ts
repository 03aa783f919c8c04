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
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  unique,
} from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const createdAt = () => at('created_at').notNull().defaultNow();

/** A merchant (tenant). The money core adds its rates, limits and keys. */
export const merchants = pgTable(
  'merchants',
  {
    id: serial('id').primaryKey(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    status: text('status').notNull().default('active'),
    createdAt: createdAt(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    unique('merchants_code_key').on(t.code),
    check('merchants_status', sql`${t.status} in ('active','frozen')`),
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

/** Failed sign-ins per username (known or not), for lockout. */
export const loginFailures = pgTable('login_failures', {
  username: text('username').primaryKey(),
  failures: integer('failures').notNull().default(0),
  windowStartedAt: at('window_started_at').notNull(),
  lockedUntil: at('locked_until'),
});

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
    index('operation_log_at_idx').on(t.at.desc(), t.id.desc()),
    index('operation_log_merchant_idx').on(t.merchantId, t.at.desc(), t.id.desc()),
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
});

/** Platform parameters (key → JSON value), e.g. `require_google_auth`. */
export const parameters = pgTable('parameters', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: at('updated_at').notNull().defaultNow(),
});
