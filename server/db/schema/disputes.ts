/**
 * Disputes of paid pay-ins (docs/MONEY-BACK.md section 2): the case, its hold (what each wallet gave at
 * opening, and what they could not cover), and its evidence. The case is the hold's cause in the ledger
 * (`ref_type` 'dispute'): held once at opening, released or spent once when it ends.
 */
import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, serial, text, unique } from 'drizzle-orm/pg-core';
import { dispute } from '../../../contract/machines.ts';
import { at, createdAt, machineStatus, machineStatusCheck, minorUnits, timestamps } from './columns.ts';
import { merchantRef } from './tenancy.ts';

export const disputes = pgTable(
  'disputes',
  {
    id: serial('id').primaryKey(),
    disputeNo: text('dispute_no').notNull(),
    merchantId: merchantRef(),
    /** The pay-in: its id and `created_at` (the partition it is in), and its numbers for lists. */
    payinId: bigint('payin_id', { mode: 'number' }).notNull(),
    payinCreatedAt: at('payin_created_at').notNull(),
    orderNo: text('order_no').notNull(),
    merchantOrderNo: text('merchant_order_no').notNull(),
    kind: text('kind').notNull().$type<'chargeback' | 'complaint' | 'wrong_payment'>(),
    status: machineStatus(dispute),
    currency: text('currency').notNull(),
    amount: minorUnits('amount').notNull(),
    /** What the hold took from each wallet at opening (released in the reverse order). */
    heldCollectionAvailable: minorUnits('held_collection_available').notNull().default(0),
    heldPayoutAvailable: minorUnits('held_payout_available').notNull().default(0),
    /** What the wallets could not cover: a lost case makes it the merchant's debt. */
    unheldAmount: minorUnits('unheld_amount').notNull().default(0),
    deadline: at('deadline').notNull(),
    ownerId: integer('owner_id'),
    openedSide: text('opened_side').notNull().$type<'platform' | 'merchant'>(),
    openedBy: integer('opened_by').notNull(),
    reason: text('reason').notNull(),
    outcomeReason: text('outcome_reason'),
    decidedBy: integer('decided_by'),
    decidedAt: at('decided_at'),
    /** The refund that pays a lost complaint or wrong payment back to the payer. */
    refundId: integer('refund_id'),
    ...timestamps(),
  },
  (t) => [
    unique('disputes_no_key').on(t.disputeNo),
    index('disputes_merchant_time_idx').on(t.merchantId, t.createdAt.desc().nullsFirst(), t.id.desc()),
    index('disputes_payin_idx').on(t.payinId),
    /** The open cases by deadline: the list's first rows and the deadline alerts' check. */
    index('disputes_open_deadline_idx').on(t.deadline).where(sql`${t.status} = 'open'`),
    machineStatusCheck('disputes_status', t.status, dispute),
    check('disputes_amount', sql`${t.amount} > 0`),
    check('disputes_kind', sql`${t.kind} in ('chargeback','complaint','wrong_payment')`),
    check('disputes_opened_side', sql`${t.openedSide} in ('platform','merchant')`),
    check(
      'disputes_hold',
      sql`${t.heldCollectionAvailable} >= 0 and ${t.heldPayoutAvailable} >= 0 and ${t.unheldAmount} >= 0
        and ${t.heldCollectionAvailable} + ${t.heldPayoutAvailable} + ${t.unheldAmount} = ${t.amount}`,
    ),
  ],
);

/** A note or a file added to a case, by either side; never changed or removed. */
export const disputeEvidence = pgTable(
  'dispute_evidence',
  {
    id: serial('id').primaryKey(),
    disputeId: integer('dispute_id')
      .notNull()
      .references(() => disputes.id),
    note: text('note').notNull(),
    filename: text('filename'),
    side: text('side').notNull().$type<'platform' | 'merchant'>(),
    /** The stored file (path under DATA_DIR/uploads, its type and size), when one was added. */
    path: text('path'),
    mime: text('mime'),
    size: integer('size'),
    userId: integer('user_id'),
    createdAt: createdAt(),
  },
  (t) => [index('dispute_evidence_dispute_idx').on(t.disputeId, t.id)],
);
