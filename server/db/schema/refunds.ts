/**
 * Money going back (docs/MONEY-BACK.md): refunds of paid pay-ins. A refund reserves its amount in the
 * pay-in's `refunded_amount` (the order table's check keeps it at or under the paid amount) and moves its
 * money by a payout order whose `refund_id` names it.
 */
import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, serial, text, unique } from 'drizzle-orm/pg-core';
import { refund } from '../../../contract/machines.ts';
import { at, machineStatus, machineStatusCheck, minorUnits, timestamps } from './columns.ts';
import { merchantRef } from './tenancy.ts';

export const refunds = pgTable(
  'refunds',
  {
    id: serial('id').primaryKey(),
    refundNo: text('refund_no').notNull(),
    merchantId: merchantRef(),
    /** The merchant's own number, unique per merchant: the gateway's idempotency key. */
    merchantRefundNo: text('merchant_refund_no').notNull(),
    /** The pay-in: its id and `created_at` (the partition it is in), and its number for lists. */
    payinId: bigint('payin_id', { mode: 'number' }).notNull(),
    payinCreatedAt: at('payin_created_at').notNull(),
    orderNo: text('order_no').notNull(),
    merchantOrderNo: text('merchant_order_no').notNull(),
    currency: text('currency').notNull(),
    amount: minorUnits('amount').notNull(),
    status: machineStatus(refund),
    reason: text('reason').notNull(),
    accountName: text('account_name').notNull(),
    accountNumber: text('account_number').notNull(),
    ifsc: text('ifsc').notNull(),
    source: text('source').notNull().$type<'console' | 'api'>(),
    /** SHA-256 of the canonical gateway request: the same number with other content is a conflict. */
    requestHash: text('request_hash').notNull(),
    /** The payout carrying the money (its id and `created_at`), once the refund is decided. */
    payoutId: bigint('payout_id', { mode: 'number' }),
    payoutCreatedAt: at('payout_created_at'),
    failureReason: text('failure_reason'),
    /** The console user who asked; null when the merchant's server asked through the gateway. */
    requestedBy: integer('requested_by'),
    approvalId: integer('approval_id'),
    completedAt: at('completed_at'),
    /** The gateway's first answer, replayed byte for byte to a repeat. */
    responseSnapshot: jsonb('response_snapshot'),
    ...timestamps(),
  },
  (t) => [
    unique('refunds_no_key').on(t.refundNo),
    unique('refunds_merchant_no_key').on(t.merchantId, t.merchantRefundNo),
    index('refunds_merchant_time_idx').on(t.merchantId, t.createdAt.desc().nullsFirst(), t.id.desc()),
    index('refunds_time_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc()),
    index('refunds_payin_idx').on(t.payinId),
    index('refunds_payout_idx').on(t.payoutId).where(sql`${t.payoutId} is not null`),
    machineStatusCheck('refunds_status', t.status, refund),
    check('refunds_amount', sql`${t.amount} > 0`),
    check('refunds_source', sql`${t.source} in ('console','api')`),
  ],
);
