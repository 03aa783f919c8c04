/**
 * Orders: pay-ins, payouts, their unique numbers and proof images; callbacks to merchants (Standard Webhooks,
 * queued in the same transaction as the state change), gateway nonces; recharges; the simulator's transactions;
 * the order stats that dashboards and reports read instead of scanning the orders (PERFORMANCE.md rule 2).
 */
import { type SQLWrapper, sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  date,
  type ExtraConfigColumn,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import {
  callback,
  type PayinStatus,
  type PayoutStatus,
  payin,
  payout,
  recharge,
} from '../../../contract/machines.ts';
import { statesSql } from '../states.ts';
import {
  at,
  createdAt,
  cText,
  decided,
  machineStatus,
  machineStatusCheck,
  minorUnits,
  money,
  numberIndex,
  timestamps,
  uploadedFile,
} from './columns.ts';
import { channels, merchantRef } from './tenancy.ts';

export type { PayinStatus, PayoutStatus };

/**
 * What a pay-in and a payout both are: a merchant's order (under its own number too) of an amount, routed
 * to a channel that knows it by the channel's order id.
 */
const merchantOrder = () => ({
  merchantId: merchantRef(),
  merchantOrderNo: text('merchant_order_no').notNull(),
  channelId: integer('channel_id').references(() => channels.id),
  channelOrderId: text('channel_order_id'),
  ...money(),
});

/** Whether the order's last state was pushed to the merchant's callback URL. */
const pushStatus = () => text('push_status').notNull().default('unpushed').$type<'unpushed' | 'pushed'>();
const pushStatusCheck = (name: string, column: SQLWrapper) =>
  check(name, sql`${column} in ('unpushed','pushed')`);

/** The gateway's create request and answer, kept to replay it (the same request answers the same). */
const gatewayRequest = () => ({
  /** SHA-256 of the canonical create request: a replay with other content is a conflict. */
  requestHash: text('request_hash').notNull(),
  requestSnapshot: jsonb('request_snapshot'),
  responseSnapshot: jsonb('response_snapshot'),
});

/** The lists' order, newest first: a merchant's orders, and everyone's. */
const newestFirst = (
  table: string,
  t: { merchantId: ExtraConfigColumn; createdAt: ExtraConfigColumn; id: ExtraConfigColumn },
) => [
  index(`${table}_merchant_time_idx`).on(
    t.merchantId,
    t.createdAt.desc().nullsFirst(),
    t.id.desc().nullsFirst(),
  ),
  index(`${table}_time_idx`).on(t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
];

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
    ...merchantOrder(),
    /** What the payer actually paid (set when paid; a supplement may correct it). */
    paidAmount: minorUnits('paid_amount'),
    fee: minorUnits('fee').notNull().default(0),
    agentCommission: minorUnits('agent_commission').notNull().default(0),
    status: text('status').notNull().$type<PayinStatus>(),
    pushStatus: pushStatus(),
    /** `COLLATE "C"`, like `orderNo`. */
    utr: cText('utr'),
    notifyUrl: text('notify_url').notNull(),
    returnUrl: text('return_url'),
    payUrl: text('pay_url'),
    payer: jsonb('payer').$type<Record<string, unknown>>(),
    ...gatewayRequest(),
    /**
     * How it became paid: channel callback, supplement (UTR matched), a bank statement line (a supplement
     * whose source is the line) or forced supplement.
     */
    paidBy: text('paid_by').$type<'channel' | 'supplement' | 'statement' | 'force'>(),
    failureReason: text('failure_reason'),
    expiresAt: at('expires_at').notNull(),
    paidAt: at('paid_at'),
    callbackAt: at('callback_at'),
    ...timestamps(),
    /** The receiving account a bank channel assigned the order to (server/modules/receiving). */
    receivingAccountId: integer('receiving_account_id'),
    /** The UTR the payer says they paid with (normalised: trimmed, upper case): recorded, never trusted. */
    payerUtr: text('payer_utr'),
    /** What its refunds under way or paid add up to: never more than was paid (the check below). */
    refundedAmount: minorUnits('refunded_amount').notNull().default(0),
    /**
     * Who pays, for the merchant's velocity limits (docs/MONEY-BACK.md section 4): `phone:<n>` or
     * `email:<e>` from the creation's payer, else `ip:<address>` of the pay page's first view.
     */
    payerKey: text('payer_key'),
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
    /** A payer's pay-ins of one merchant since a day's start: the velocity count, one range read. */
    index('payin_orders_payer_day_idx')
      .on(t.merchantId, t.payerKey, t.createdAt)
      .where(sql`${t.payerKey} is not null`),
    /** Matching's amount candidates: the open pay-ins of one amount on one receiving account. */
    index('payin_orders_account_amount_idx')
      .on(t.receivingAccountId, t.amount, t.createdAt)
      .where(
        sql`${t.receivingAccountId} is not null and ${t.status} in (${statesSql(payin.actions.supplement.from)})`,
      ),
    ...newestFirst('payin_orders', t),
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
    machineStatusCheck('payin_orders_status', t.status, payin),
    pushStatusCheck('payin_orders_push_status', t.pushStatus),
    check(
      'payin_orders_amounts',
      sql`${t.amount} > 0 and ${t.fee} >= 0 and ${t.agentCommission} >= 0 and ${t.agentCommission} <= ${t.fee}`,
    ),
    check(
      'payin_orders_refunded',
      sql`${t.refundedAmount} >= 0 and ${t.refundedAmount} <= coalesce(${t.paidAmount}, 0)`,
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
    ...merchantOrder(),
    fee: minorUnits('fee').notNull(),
    status: text('status').notNull().$type<PayoutStatus>(),
    pushStatus: pushStatus(),
    accountName: text('account_name').notNull(),
    accountNumber: text('account_number').notNull(),
    ifsc: text('ifsc').notNull(),
    utr: text('utr'),
    notifyUrl: text('notify_url').notNull(),
    /** Where the order came from: the gateway API, the console (single transfer) or a bulk upload. */
    source: text('source').notNull().$type<'api' | 'console' | 'bulk'>(),
    ...gatewayRequest(),
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
    ...timestamps(),
    /** The refund whose money this payout carries (its hold comes from the collection balance). */
    refundId: integer('refund_id'),
  },
  (t) => [
    primaryKey({ name: 'payout_orders_pkey', columns: [t.id, t.createdAt] }),
    ...newestFirst('payout_orders', t),
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
    machineStatusCheck('payout_orders_status', t.status, payout),
    pushStatusCheck('payout_orders_push_status', t.pushStatus),
    check('payout_orders_amounts', sql`${t.amount} > 0 and ${t.fee} >= 0`),
  ],
);

/** An order's row of unique numbers: its id and `created_at` (the partition it is in), its number, the merchant's. */
const orderKeyColumns = <N>(orderNo: N) => ({
  id: bigint('id', { mode: 'number' }).primaryKey(),
  createdAt: at('created_at').notNull(),
  orderNo,
  merchantId: integer('merchant_id').notNull(),
  merchantOrderNo: text('merchant_order_no').notNull(),
});

/** Both numbers unique, under the constraint names they had on the order table (`payin_orders_…`). */
const orderKeyConstraints = (
  orders: string,
  t: { orderNo: ExtraConfigColumn; merchantId: ExtraConfigColumn; merchantOrderNo: ExtraConfigColumn },
) => [
  unique(`${orders}_order_no_key`).on(t.orderNo),
  unique(`${orders}_merchant_order_key`).on(t.merchantId, t.merchantOrderNo),
];

/**
 * The unique numbers of the pay-ins, one row per order (its id and `created_at`, the partition it is in):
 * a unique index on the partitioned `payin_orders` would have to hold `created_at`, so the uniqueness
 * across months lives here, kept by the triggers of migration 0020 (insert, number or UTR changed,
 * delete), under the constraint names these keys had on `payin_orders` (a duplicate still fails with
 * 23505 `payin_orders_merchant_order_key`...). A detached month's rows stay: its numbers stay taken.
 */
export const payinOrderKeys = pgTable(
  'payin_order_keys',
  { ...orderKeyColumns(cText('order_no').notNull()), utr: cText('utr') },
  (t) => [
    ...orderKeyConstraints('payin_orders', t),
    uniqueIndex('payin_orders_utr_key').on(t.utr).where(sql`${t.utr} is not null`),
  ],
);

/** The unique numbers of the payouts, as `payin_order_keys` (a payout's UTR is not unique). */
export const payoutOrderKeys = pgTable(
  'payout_order_keys',
  orderKeyColumns(text('order_no').notNull()),
  (t) => orderKeyConstraints('payout_orders', t),
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
    ...uploadedFile(),
  },
  (t) => [index('order_images_order_idx').on(t.orderId)],
);

export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** `webhook-id`: the same on every attempt of this event. */
    messageId: text('message_id').notNull(),
    merchantId: merchantRef(),
    /** What it is about: a pay-in, a payout, a settlement application or a refund (`orderId` is its id). */
    orderType: text('order_type').notNull().$type<'payin' | 'payout' | 'settlement' | 'refund' | 'dispute'>(),
    orderId: bigint('order_id', { mode: 'number' }).notNull(),
    type: text('type').notNull(),
    url: text('url').notNull(),
    payload: jsonb('payload').notNull(),
    status: machineStatus(callback),
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
    machineStatusCheck('webhook_events_status', t.status, callback),
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
    merchantId: merchantRef(),
    ...money(),
    status: machineStatus(recharge),
    reference: text('reference').notNull().default(''),
    note: text('note').notNull().default(''),
    createdBy: integer('created_by'),
    ...decided(),
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
    machineStatusCheck('recharges_status', t.status, recharge),
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
    amount: minorUnits('amount').notNull(),
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
    successAmount: minorUnits('success_amount').notNull().default(0),
    /** Fees of the successful ones, and the agents' commission out of them (pay-ins). */
    successFee: minorUnits('success_fee').notNull().default(0),
    successCommission: minorUnits('success_commission').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.day, t.kind, t.merchantId, t.channelId, t.currency] }),
    index('order_stats_daily_merchant_idx').on(t.merchantId, t.day),
    // No CHECK on the figures: an upsert's proposed row carries the change (which may be negative),
    // and PostgreSQL checks it before it finds the row to add it to. checkOrderStats guards them.
    check('order_stats_daily_kind', sql`${t.kind} in ('payin','payout')`),
  ],
);

/**
 * Paid pay-ins per business day of creation (the order statistics' day), channel and how long the payer
 * took (`bucket`: an index into the contract's pay-time bounds): what the channel statistics' median
 * time to pay is read from. Kept by a trigger on payin_orders (migration 0018), rebuilt with the order stats.
 * A cell is kept in `slot`s (its rows are summed when read): every payment of a channel falls in a few
 * cells, and one row a cell would queue every paying transaction behind the row's lock until commit
 * (migration 0035).
 */
export const payinPayTimeDaily = pgTable(
  'payin_pay_time_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    channelId: integer('channel_id').notNull(),
    bucket: integer('bucket').notNull(),
    slot: smallint('slot').notNull().default(0),
    orders: integer('orders').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.channelId, t.bucket, t.slot] })],
);
