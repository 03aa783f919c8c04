/** The ledger: nothing but server/ledger writes these tables. */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  unique,
} from 'drizzle-orm/pg-core';
import { at, createdAt, minorUnits } from './columns.ts';

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
  /** What a merchant owes the platform (a negative balance): a lost dispute its wallets could not cover. */
  'merchant_debt',
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
    balance: minorUnits('balance').notNull().default(0),
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
    amount: minorUnits('amount').notNull(),
    balanceBefore: minorUnits('balance_before').notNull(),
    balanceAfter: minorUnits('balance_after').notNull(),
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
    amount: minorUnits('amount').notNull(),
    postings: integer('postings').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day, t.refType, t.kind] })],
);
