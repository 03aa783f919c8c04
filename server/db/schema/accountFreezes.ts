/**
 * Frozen receiving accounts (docs/MONEY-BACK.md section 3): a bank's freeze of one of our accounts, and
 * the merchants whose money it holds, one line each, with what was held from which wallet and what could
 * not be held. Written by hand in migration 0031.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  index,
  integer,
  pgTable,
  serial,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { accountFreeze } from '../../../contract/machines.ts';
import { statesSql } from '../states.ts';
import { at, createdAt, machineStatus, machineStatusCheck, minorUnits } from './columns.ts';
import { receivingAccounts } from './receiving.ts';

export const accountFreezes = pgTable(
  'account_freezes',
  {
    id: serial('id').primaryKey(),
    receivingAccountId: integer('receiving_account_id')
      .notNull()
      .references(() => receivingAccounts.id),
    currency: text('currency').notNull(),
    /** What the bank froze, minor units. */
    amount: minorUnits('amount').notNull(),
    /** The order or complaint the bank named. */
    reference: text('reference').notNull(),
    frozenAt: at('frozen_at').notNull(),
    /** The evidence: the bank's letter as the operator recorded it. */
    note: text('note').notNull().default(''),
    status: machineStatus(accountFreeze),
    /** What the account's paid orders could not cover: the platform's (no merchant's money held for it). */
    unattributed: minorUnits('unattributed').notNull(),
    /** Held from the merchants, and what their wallets could not cover (the lines' sums). */
    held: minorUnits('held').notNull(),
    unheld: minorUnits('unheld').notNull(),
    /** The bank's outcome, set once when settled (summing to `amount`). */
    released: minorUnits('released'),
    writtenOff: minorUnits('written_off'),
    settleReason: text('settle_reason'),
    recordedBy: integer('recorded_by').notNull(),
    createdAt: createdAt(),
    settledBy: integer('settled_by'),
    settledAt: at('settled_at'),
  },
  (t) => [
    machineStatusCheck('account_freezes_status', t.status, accountFreeze),
    check(
      'account_freezes_amounts',
      sql`${t.amount} > 0 and ${t.unattributed} >= 0 and ${t.held} >= 0 and ${t.unheld} >= 0 and ${t.unattributed} + ${t.held} + ${t.unheld} = ${t.amount}`,
    ),
    check(
      'account_freezes_settled',
      sql`(${t.status} = ${statesSql([accountFreeze.state.settled])}) = (${t.released} is not null and ${t.writtenOff} is not null and ${t.settledBy} is not null and ${t.settledAt} is not null)`,
    ),
    check(
      'account_freezes_outcome',
      sql`${t.released} is null or (${t.released} >= 0 and ${t.writtenOff} >= 0 and ${t.released} + ${t.writtenOff} = ${t.amount})`,
    ),
    /** Two people: whoever recorded the freeze never settles it. */
    check('account_freezes_two_people', sql`${t.settledBy} is null or ${t.settledBy} <> ${t.recordedBy}`),
    /** One open freeze per account: a second would attribute the same orders again. */
    uniqueIndex('account_freezes_open_key')
      .on(t.receivingAccountId)
      .where(sql`${t.status} = ${statesSql([accountFreeze.state.frozen])}`),
    index('account_freezes_time_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
  ],
);

/**
 * One merchant's share of a freeze: the sum of its orders paid into the account in the attributed window
 * (the oldest cut to fit), held from its wallets in the common order; the ledger's cause of its hold,
 * release and write-off (`account_freeze_line`, `<id>`).
 */
export const accountFreezeLines = pgTable(
  'account_freeze_lines',
  {
    id: serial('id').primaryKey(),
    freezeId: integer('freeze_id')
      .notNull()
      .references(() => accountFreezes.id),
    merchantId: integer('merchant_id').notNull(),
    currency: text('currency').notNull(),
    /** The merchant's share of the frozen amount. */
    amount: minorUnits('amount').notNull(),
    /** The pay-ins that made the share, newest first (the last one cut to fit). */
    orderIds: bigint('order_ids', { mode: 'number' }).array().notNull(),
    orderCount: integer('order_count').notNull(),
    heldCollectionAvailable: minorUnits('held_collection_available').notNull(),
    heldPayoutAvailable: minorUnits('held_payout_available').notNull(),
    /** What the wallets could not cover when recorded. */
    unheld: minorUnits('unheld').notNull(),
    /** The line's part of the bank's outcome, set once when settled. */
    released: minorUnits('released'),
    writtenOff: minorUnits('written_off'),
    createdAt: createdAt(),
  },
  (t) => [
    unique('account_freeze_lines_merchant_key').on(t.freezeId, t.merchantId),
    index('account_freeze_lines_merchant_idx').on(t.merchantId),
    check(
      'account_freeze_lines_amounts',
      sql`${t.amount} > 0 and ${t.heldCollectionAvailable} >= 0 and ${t.heldPayoutAvailable} >= 0 and ${t.unheld} >= 0 and ${t.heldCollectionAvailable} + ${t.heldPayoutAvailable} + ${t.unheld} = ${t.amount} and ${t.orderCount} = cardinality(${t.orderIds})`,
    ),
    check(
      'account_freeze_lines_outcome',
      sql`(${t.released} is null) = (${t.writtenOff} is null) and (${t.released} is null or (${t.released} >= 0 and ${t.writtenOff} >= 0 and ${t.released} + ${t.writtenOff} = ${t.amount}))`,
    ),
  ],
);
