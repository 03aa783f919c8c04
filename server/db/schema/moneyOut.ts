/**
 * Money out (OPERATIONS.md section 1): settlements, maker–checker approvals, T+N runs, withdrawal slips; and
 * money moved by hand: balance adjustments and commission paid to agents.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  check,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { approval, reserveLine, settlement, slip, slipLine, tnLine } from '../../../contract/machines.ts';
import { statesSql } from '../states.ts';
import {
  at,
  createdAt,
  decided,
  machineStatus,
  machineStatusCheck,
  minorUnits,
  money,
  timestamps,
  uploadedFile,
} from './columns.ts';
import { receivingAccounts } from './receiving.ts';
import { agents, merchantRef } from './tenancy.ts';

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
    merchantId: merchantRef(),
    currency: text('currency').notNull(),
    type: text('type').notNull().$type<'bank' | 'usdt'>(),
    /** Applied amount; the hold is amount + fee until a confirmation lowers it to auditAmount + fee. */
    amount: minorUnits('amount').notNull(),
    auditAmount: minorUnits('audit_amount'),
    fee: minorUnits('fee').notNull(),
    status: machineStatus(settlement),
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
    ...timestamps(),
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
    machineStatusCheck('settlements_status', t.status, settlement),
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
    ...uploadedFile(),
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
    amount: minorUnits('amount').notNull(),
    payload: jsonb('payload').notNull().$type<Record<string, unknown>>().default({}),
    reason: text('reason').notNull().default(''),
    status: machineStatus(approval),
    requestedBy: integer('requested_by').notNull(),
    requestedAt: at('requested_at').notNull().defaultNow(),
    ...decided(),
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
    machineStatusCheck('approvals_status', t.status, approval),
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
    amount: minorUnits('amount').notNull(),
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
 * a merchant's pending lines. `net` is what went to pending: the orders' gross less fees less what was
 * `withheld` from it (the rolling reserve's share and debt recovery, credited elsewhere).
 */
export const tnLines = pgTable(
  'tn_lines',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    merchantId: merchantRef(),
    currency: text('currency').notNull(),
    orderDay: date('order_day', { mode: 'string' }).notNull(),
    dueDay: date('due_day', { mode: 'string' }).notNull(),
    orders: integer('orders').notNull().default(0),
    gross: minorUnits('gross').notNull().default(0),
    fee: minorUnits('fee').notNull().default(0),
    withheld: minorUnits('withheld').notNull().default(0),
    net: minorUnits('net').notNull().default(0),
    status: machineStatus(tnLine),
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
    machineStatusCheck('tn_lines_status', t.status, tnLine),
    check('tn_lines_days', sql`${t.dueDay} > ${t.orderDay}`),
    check(
      'tn_lines_figures',
      sql`${t.orders} >= 0 and ${t.withheld} >= 0 and ${t.net} = ${t.gross} - ${t.fee} - ${t.withheld}`,
    ),
  ],
);

/**
 * A rolling reserve line (docs/MONEY-BACK.md section 4): what a merchant's payments put in its `reserve`
 * account to be released on `releaseDay` (the payment's business day + the merchant's reserve days).
 * Released once, by the settlement run of a day on or after it (`reserve_release`, reserve →
 * collection_available); `reserve` equals the sum of a merchant's held lines (`checkReserveLines`).
 */
export const reserveLines = pgTable(
  'reserve_lines',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    merchantId: merchantRef(),
    currency: text('currency').notNull(),
    releaseDay: date('release_day', { mode: 'string' }).notNull(),
    orders: integer('orders').notNull().default(0),
    amount: minorUnits('amount').notNull().default(0),
    status: machineStatus(reserveLine),
    runId: integer('run_id'),
    releasedAt: at('released_at'),
  },
  (t) => [
    unique('reserve_lines_key').on(t.merchantId, t.currency, t.releaseDay),
    /** What a run for day D releases: held lines due on or before D. */
    index('reserve_lines_due_idx')
      .on(t.releaseDay, t.merchantId)
      .where(sql`${t.status} = ${statesSql([reserveLine.state.held])}`),
    machineStatusCheck('reserve_lines_status', t.status, reserveLine),
    check('reserve_lines_figures', sql`${t.orders} >= 0 and ${t.amount} >= 0`),
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
    amountReleased: minorUnits('amount_released').notNull().default(0),
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
    amount: minorUnits('amount').notNull().default(0),
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
    status: machineStatus(slip),
    currency: text('currency').notNull(),
    lineCount: integer('line_count').notNull(),
    total: minorUnits('total').notNull(),
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
    ...decided(),
  },
  (t) => [
    unique('withdrawal_slips_no_key').on(t.slipNo),
    index('withdrawal_slips_created_idx').on(t.createdAt.desc().nullsFirst(), t.id.desc()),
    /** Slips still at the bank: the dashboard's queue counts them, the list filtered to them reads them. */
    index('withdrawal_slips_waiting_idx')
      .on(t.createdAt, t.id)
      .where(sql`${t.status} = ${statesSql([slip.state.to_be_withdrawn])}`),
    machineStatusCheck('withdrawal_slips_status', t.status, slip),
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
    amount: minorUnits('amount').notNull(),
    beneficiaryName: text('beneficiary_name').notNull(),
    accountNumber: text('account_number').notNull(),
    ifsc: text('ifsc').notNull(),
    /** Our reference as the bank's narration carries it (the settlement or payout number). */
    narration: text('narration').notNull(),
    status: machineStatus(slipLine),
    reference: text('reference'),
    ...decided(),
  },
  (t) => [
    index('withdrawal_slip_lines_slip_idx').on(t.slipId, t.id),
    /** A settlement or payout is on at most one live slip. */
    uniqueIndex('withdrawal_slip_lines_live_key')
      .on(t.objectType, t.objectId)
      .where(sql`${t.status} in (${statesSql(slipLine.sets.live)})`),
    machineStatusCheck('withdrawal_slip_lines_status', t.status, slipLine),
    check('withdrawal_slip_lines_object_type', sql`${t.objectType} in ('settlement','payout')`),
    check('withdrawal_slip_lines_amount', sql`${t.amount} > 0`),
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
    merchantId: merchantRef(),
    /** `collection_available` or `payout_available`. */
    wallet: text('wallet').notNull().$type<'collection_available' | 'payout_available'>(),
    currency: text('currency').notNull(),
    /** Signed minor units: a credit is positive, a debit negative. */
    amount: minorUnits('amount').notNull(),
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
    ...money(),
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
