/**
 * Receiving accounts (server/modules/receiving) and their bank statements (server/modules/statement):
 * mappings, imports, lines, feeds and the reconciliation.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { statementLine } from '../../../contract/machines.ts';
import type { StatementMapping } from '../../../contract/statementMapping.ts';
import {
  type ExceptionKind,
  exceptionKinds,
  type StatementSource,
  statementSources,
} from '../../../contract/statementSource.ts';
import { statesSql } from '../states.ts';
import {
  at,
  bytea,
  createdAt,
  cText,
  machineStatus,
  machineStatusCheck,
  minorUnits,
  switchStatus,
  switchStatusCheck,
  timestamps,
} from './columns.ts';
import { withdrawalSlipLines } from './moneyOut.ts';
import { channels } from './tenancy.ts';

/** A person who lends the platform bank accounts (donor cards), paid a commission on what they receive. */
export const accountHolders = pgTable(
  'account_holders',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    phone: text('phone').notNull(),
    idNumber: text('id_number').notNull(),
    commissionPpm: integer('commission_ppm').notNull().default(0),
    status: switchStatus(),
    ...timestamps(),
  },
  (t) => [
    switchStatusCheck('account_holders_status', t.status),
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
    dailyLimit: minorUnits('daily_limit').notNull(),
    /** Most orders per business day (none: no count limit). */
    dailyCount: integer('daily_count'),
    minAmount: minorUnits('min_amount'),
    maxAmount: minorUnits('max_amount'),
    holderId: integer('holder_id').references(() => accountHolders.id),
    status: text('status').notNull().default('active').$type<'active' | 'paused' | 'frozen'>(),
    lastKnownBalance: minorUnits('last_known_balance'),
    ...timestamps(),
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

/** The receiving account a record belongs to (its day, binding, statement, feed). */
const receivingAccountRef = () =>
  integer('account_id')
    .notNull()
    .references(() => receivingAccounts.id);

/**
 * A receiving account's business day: what the orders assigned to it hold (pending and paid). The bank
 * channel locks this one row to judge and reserve capacity; unpaid and failed orders give theirs back.
 */
export const receivingAccountDays = pgTable(
  'receiving_account_days',
  {
    accountId: receivingAccountRef(),
    day: date('day', { mode: 'string' }).notNull(),
    amount: minorUnits('amount').notNull().default(0),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day] })],
);

/** A receiving account bound to a bank channel: its weight, the merchants it serves (none: all), its hours. */
export const cardBindings = pgTable(
  'card_bindings',
  {
    id: serial('id').primaryKey(),
    accountId: receivingAccountRef(),
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
    status: switchStatus(),
    createdAt: createdAt(),
  },
  (t) => [
    unique('holder_numbers_value_key').on(t.kind, t.value),
    index('holder_numbers_holder_idx').on(t.holderId),
    check('holder_numbers_kind', sql`${t.kind} in ('phone','upi')`),
    switchStatusCheck('holder_numbers_status', t.status),
  ],
);

/** A statement mapping saved per bank (contract/statementMapping.ts): how its exports are read. */
export const statementMappings = pgTable(
  'statement_mappings',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    bankName: text('bank_name').notNull(),
    mapping: jsonb('mapping').notNull().$type<StatementMapping>(),
    createdBy: integer('created_by'),
    ...timestamps(),
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
    accountId: receivingAccountRef(),
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
    accountId: receivingAccountRef(),
    importId: integer('import_id')
      .notNull()
      .references(() => statementImports.id),
    /** The row in the file it came from. */
    row: integer('row').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    narration: text('narration').notNull(),
    reference: text('reference'),
    direction: text('direction').notNull().$type<'credit' | 'debit'>(),
    amount: minorUnits('amount').notNull(),
    balance: minorUnits('balance'),
    /** Normalised: trimmed, upper case. */
    utr: cText('utr'),
    /** ISO 4217 when the file says it (MT940, camt.053); null: the account's own (INR). */
    currency: text('currency'),
    dedupeKey: text('dedupe_key').notNull(),
    status: machineStatus(statementLine),
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
    machineStatusCheck('statement_lines_status', t.status, statementLine),
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
    accountId: receivingAccountRef(),
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
    ...timestamps(),
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
    paidSum: minorUnits('paid_sum').notNull().default(0),
    unprovedCount: integer('unproved_count').notNull().default(0),
    unprovedSum: minorUnits('unproved_sum').notNull().default(0),
    matchedCount: integer('matched_count').notNull().default(0),
    matchedSum: minorUnits('matched_sum').notNull().default(0),
    unmatchedCount: integer('unmatched_count').notNull().default(0),
    unmatchedSum: minorUnits('unmatched_sum').notNull().default(0),
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
    balance: minorUnits('balance').notNull(),
    /** Lines ending at this balance less lines starting from it. */
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day, t.balance] })],
);
