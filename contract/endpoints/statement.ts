/**
 * Bank statements (OPERATIONS.md section 2; docs/STATEMENTS.md): a receiving account's statement is
 * imported (CSV, XLSX or pasted text, read through a mapping saved per bank or given inline), previewed
 * with per-row errors first, saved once per line (re-importing adds nothing), and matched against the
 * pay-ins routed to the account. A person's statement (an upload or a paste) is evidence, not a decision
 * (docs/SECURITY.md): a credit carrying an open order's UTR and amount, or a debit naming a waiting slip
 * line, becomes `ready`, and pays or closes only when a finance user posts it with a Google code and a
 * reason (`accept`), within the day's sums of maker–checker (contract/doors.ts `statement.pay`). What
 * cannot pay waits in the exception queue (match to an order, or dismiss with a reason). Platform users
 * only: operators import and read, finance decides money.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { statementLine } from '../machines.ts';
import { moneyOut } from '../money.ts';
import { actionReason, id, listOf, moneyCode, okFlag, page, pageSize, strictObject } from '../schemas.ts';
import { statementMapping } from '../statementMapping.ts';
import { exceptionKinds, statementSources } from '../statementSource.ts';

export { exceptionKinds };

import { businessDay } from './tn.ts';

/** Reading and importing evidence. */
const grants = { platform: ['operator', 'finance'] } as const;
/** Deciding money with it (posting, matching): a money door, finance only. */
const moneyGrants = { platform: ['finance'] } as const;

/** A statement file may be at most 10 MB (server/modules/statement/read.ts); base64 makes it 4/3 larger. */
export const maxStatementUploadBytes = 14 * 1024 * 1024;

export const lineDirections = ['credit', 'debit'] as const;

const mappingName = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(100));

/** A saved mapping, or (id null) one of the built-in presets for Indian banks' exports (docs/STATEMENTS.md). */
export const statementMappingRow = z.object({
  id: z.nullable(z.number()),
  /** The built-in preset's key (`hdfc`, `icici`, `sbi`, `axis`), or null for a saved mapping. */
  preset: z.nullable(z.string()),
  name: z.string(),
  bankName: z.string(),
  mapping: statementMapping,
  updatedAt: z.nullable(z.string()),
});

/** A row the file could not be read at: the column (as the mapping names it) and a locale key. */
export const statementRowError = z.object({
  row: z.number(),
  column: z.string(),
  code: z.string(),
  message: z.string(),
});

/** A running balance that does not follow from the previous line (minor units as decimals). */
export const statementGap = z.object({ row: z.number(), expected: moneyOut, found: moneyOut });

/** What a statement line says, as the file gives it (its row) and as it is kept. */
const lineFields = {
  row: z.number(),
  day: z.string(),
  narration: z.string(),
  reference: z.nullable(z.string()),
  direction: z.enum(lineDirections),
  amount: moneyOut,
  balance: z.nullable(moneyOut),
  utr: z.nullable(z.string()),
  /** ISO 4217 when the file states it (MT940, camt.053); null: the account's own (INR). */
  currency: z.nullable(z.string()),
};

/** A line as the file gives it, before it is saved (the preview). */
export const previewLine = z.object({
  ...lineFields,
  /** Already saved for this account (a re-import): it will add nothing. */
  duplicate: z.boolean(),
});

export const importCounts = z.object({
  /** Lines the file holds. */
  lines: z.number(),
  /** Saved by this import (0 for a dry run: the lines that would be). */
  new: z.number(),
  duplicates: z.number(),
  /**
   * Of the new lines: matched (a feed's line paid an order, or a line proved an order already paid),
   * ready to post (a person's line that would pay an order or close a slip line), proposed for one click,
   * waiting as exceptions.
   */
  matched: z.number(),
  ready: z.number(),
  proposed: z.number(),
  exceptions: z.number(),
});

/** What an import's ready lines would pay (credits) when posted: their count and sum. */
export const wouldPay = z.object({ count: z.number(), sum: moneyOut });

/** Over every line the file holds (duplicates included), to check against the bank's own summary. */
export const statementTotals = z.object({
  credits: z.object({ count: z.number(), sum: moneyOut }),
  debits: z.object({ count: z.number(), sum: moneyOut }),
});

export const skipKinds = ['text', 'header', 'balance'] as const;

/** Rows below the header that are no transaction: all counted (blank ones too), the first 500 listed. */
export const statementSkipped = z.object({
  count: z.number(),
  rows: z.array(z.object({ row: z.number(), kind: z.enum(skipKinds), text: z.string() })),
});

/** How the statement came, told by its content. */
export const statementFormats = ['csv', 'xlsx', 'xls', 'text', 'mt940', 'camt053'] as const;

export const importRow = z.object({
  id: z.number(),
  accountId: z.number(),
  accountLabel: z.string(),
  fileName: z.string(),
  format: z.enum(statementFormats),
  /** No mapping was chosen: the layout was detected (`bank`: the preset it recognised, if any). */
  detected: z.boolean(),
  bank: z.nullable(z.string()),
  /** Null for imports made before totals were kept. */
  totals: z.nullable(statementTotals),
  skipped: statementSkipped,
  /** Rows left out because the importer chose to import the rest. */
  errorRows: z.array(statementRowError),
  /** `upload`, `paste` or `feed`: only a feed's lines pay by themselves. */
  source: z.enum(statementSources),
  size: z.number(),
  sha256: z.string(),
  mappingName: z.nullable(z.string()),
  status: z.enum(['running', 'done']),
  lineCount: z.number(),
  /** Lines written so far (progress while `running`). */
  processed: z.number(),
  counts: importCounts,
  gaps: z.array(statementGap),
  /** Its credits ready to post now. */
  wouldPay,
  createdBy: z.nullable(z.string()),
  createdAt: z.string(),
  finishedAt: z.nullable(z.string()),
});

export const statementLineRow = z.object({
  id: z.number(),
  accountId: z.number(),
  accountLabel: z.string(),
  importId: z.number(),
  ...lineFields,
  status: z.enum(statementLine.states),
  exceptionKind: z.nullable(z.enum(exceptionKinds)),
  /** The pay-in it paid. */
  payinId: z.nullable(z.number()),
  payinNo: z.nullable(z.string()),
  /** The pay-in it proposes, or whose UTR it carries with another amount. */
  candidateId: z.nullable(z.number()),
  candidateNo: z.nullable(z.string()),
  candidateAmount: z.nullable(moneyOut),
  /** The withdrawal-slip line a debit closed, and its slip. */
  slipLineId: z.nullable(z.number()),
  slipNo: z.nullable(z.string()),
  /** The waiting slip line a `ready` debit would close when posted, and its slip. */
  candidateSlipLineId: z.nullable(z.number()),
  candidateSlipNo: z.nullable(z.string()),
  /** Where the statement came from (`upload`, `paste`, `feed`). */
  source: z.enum(statementSources),
  /** The pending approval request it waits in (posted above the day's sums), or null. */
  approvalId: z.nullable(z.number()),
  reason: z.nullable(z.string()),
  resolvedBy: z.nullable(z.string()),
  resolvedAt: z.nullable(z.string()),
  createdAt: z.string(),
});

const lineIds = z.array(id).check(z.minLength(1), z.maxLength(200));

export const statementMappingEndpoints = {
  /** Saved mappings first (by name), then the built-in presets. */
  list: endpoint({
    method: 'GET',
    path: '/statementMapping/list',
    caller: 'platform',
    grants,
    input: z.object({}),
    output: z.object({ list: z.array(statementMappingRow) }),
  }),
  /** Saves a mapping under a name (a new one without `id`); a taken name answers 409. */
  save: endpoint({
    method: 'POST',
    path: '/statementMapping/save',
    caller: 'platform',
    grants,
    input: strictObject({
      id: z.optional(id),
      name: mappingName,
      bankName: mappingName,
      mapping: statementMapping,
    }),
    output: z.object({ id: z.number() }),
  }),
  delete: endpoint({
    method: 'POST',
    path: '/statementMapping/delete',
    caller: 'platform',
    grants,
    input: strictObject({ id }),
    output: okFlag,
  }),
};

export const statement = {
  /**
   * Reads a statement into a receiving account. Without `mappingId` or `mapping` the layout is detected
   * from the file (answered as `mapping`, to correct and save); MT940 and camt.053 need none. `dryRun`
   * answers the preview (counts, totals, skipped rows, the first lines, per-row errors, balance gaps) and
   * writes nothing. Otherwise a file with any row error is refused (`statementRows` 1050, the rows in
   * `data.rows`) and writes nothing, unless `skipRowErrors` (import the rest; the error rows are kept on
   * the import); a readable one is kept as the audit copy, its new lines saved and matched. `key` (chosen by the caller) lets
   * `GET /statement/importInfo` follow a large import while this request runs.
   */
  import: endpoint({
    method: 'POST',
    path: '/statement/import',
    caller: 'platform',
    grants,
    maxBodyBytes: maxStatementUploadBytes,
    input: z
      .strictObject({
        accountId: id,
        mappingId: z.optional(id),
        mapping: z.optional(statementMapping),
        /** The file's bytes, base64. */
        file: z.optional(z.string().check(z.maxLength(maxStatementUploadBytes))),
        fileName: z.optional(z.string().check(z.trim(), z.maxLength(200))),
        /** Pasted text (CSV or tab-separated). */
        text: z.optional(z.string().check(z.maxLength(10 * 1024 * 1024))),
        dryRun: z.optional(z.boolean()),
        skipRowErrors: z.optional(z.boolean()),
        key: z.optional(z.string().check(z.regex(/^[A-Za-z0-9-]{8,64}$/))),
      })
      .check(
        z.refine((v) => v.mappingId === undefined || v.mapping === undefined, {
          message: 'statement.mappingChoice',
          path: ['mappingId'],
        }),
        z.refine((v) => (v.file === undefined) !== (v.text === undefined), {
          message: 'statement.fileChoice',
          path: ['file'],
        }),
      ),
    output: z.object({
      /** The saved import (null for a dry run). */
      importId: z.nullable(z.number()),
      format: z.enum(statementFormats),
      /** The mapping read with: the one chosen, its header row and date form as found, or the detected one. */
      mapping: z.nullable(statementMapping),
      detected: z.boolean(),
      bank: z.nullable(z.string()),
      totals: statementTotals,
      skipped: statementSkipped,
      counts: importCounts,
      /** What its ready lines would pay when posted (nothing for a dry run). */
      wouldPay,
      errors: z.array(statementRowError),
      gaps: z.array(statementGap),
      /** The first 100 lines as read. */
      preview: z.array(previewLine),
    }),
  }),
  /** An import's progress and counts, by the key its request carried. */
  importInfo: endpoint({
    method: 'GET',
    path: '/statement/importInfo',
    caller: 'platform',
    grants,
    input: z.object({ key: z.string().check(z.regex(/^[A-Za-z0-9-]{8,64}$/)) }),
    output: importRow,
  }),
  /** The imports, newest first. */
  imports: endpoint({
    method: 'GET',
    path: '/statement/imports',
    caller: 'platform',
    grants,
    input: z.object({ accountId: z.optional(id), page, pageSize }),
    output: listOf(importRow),
  }),
  /** The imported file, byte for byte (the audit copy). */
  file: endpoint({
    method: 'GET',
    path: '/statement/file',
    caller: 'platform',
    grants,
    download: true,
    input: z.object({ id }),
    output: z.unknown(),
  }),
  /** Statement lines with their match state: an account's statement flow (by day, then file order). */
  list: endpoint({
    method: 'GET',
    path: '/statement/list',
    caller: 'platform',
    grants,
    input: z.object({
      accountId: z.optional(id),
      importId: z.optional(id),
      /** A state, or `unmatched`: any but matched (reconciliation's unmatched credits). */
      status: z.optional(z.enum([...statementLine.states, 'unmatched'])),
      direction: z.optional(z.enum(lineDirections)),
      from: z.optional(businessDay),
      to: z.optional(businessDay),
      /** A UTR, reference or words of the narration. */
      q: z.optional(z.string().check(z.trim(), z.maxLength(100))),
      page,
      pageSize,
    }),
    output: listOf(statementLineRow),
  }),
  /** The exception queue: open lines (proposed and exceptions), oldest first. */
  exceptions: endpoint({
    method: 'GET',
    path: '/statement/exceptions',
    caller: 'platform',
    grants,
    input: z.object({
      accountId: z.optional(id),
      kind: z.optional(z.enum([...exceptionKinds, statementLine.state.proposed, statementLine.state.ready])),
      page,
      pageSize,
    }),
    output: z.object({
      ...listOf(statementLineRow).shape,
      /** Open lines by kind (`proposed` and each exception kind), over the whole queue. */
      byKind: z.record(z.string(), z.number()),
    }),
  }),
  /**
   * Resolves an open credit line by paying the chosen pay-in with it (a supplement whose source is the
   * line), on the caller's Google code and reason. Refused when the amounts differ, the order cannot be
   * supplemented, or the line's UTR is used; beyond the day's sums it is recorded as an approval request
   * (1043 with `approvalId`) a second platform user decides, never the caller or the statement's importer.
   */
  match: endpoint({
    method: 'POST',
    path: '/statement/match',
    caller: 'platform',
    grants: moneyGrants,
    input: strictObject({ lineId: id, orderId: id, reason: actionReason, code: moneyCode }),
    output: statementLineRow,
  }),
  /**
   * Posts lines (`lineIds`, or every ready line of `importId`), on the caller's Google code and reason:
   * a ready or proposed credit pays the order it names, a ready debit closes its slip line by the slip's
   * own rule. Each line on its own: one refused leaves the others done. Credits beyond the day's sums
   * wait together in one approval request (`approval`) for a second platform user.
   */
  accept: endpoint({
    method: 'POST',
    path: '/statement/accept',
    caller: 'platform',
    grants: moneyGrants,
    input: z
      .strictObject({
        lineIds: z.optional(lineIds),
        importId: z.optional(id),
        reason: actionReason,
        code: moneyCode,
      })
      .check(
        z.refine((v) => (v.lineIds === undefined) !== (v.importId === undefined), {
          message: 'validation.required',
          path: ['lineIds'],
        }),
      ),
    output: z.object({
      matched: z.number(),
      refused: z.array(z.object({ lineId: z.number(), message: z.string() })),
      /** The request the lines beyond the day's sums wait in, or null. */
      approval: z.nullable(z.object({ id: z.number(), lines: z.number(), amount: moneyOut })),
    }),
  }),
  /** Sets open lines aside with a reason (one or many). */
  dismiss: endpoint({
    method: 'POST',
    path: '/statement/dismiss',
    caller: 'platform',
    grants,
    input: z
      .strictObject({ lineId: z.optional(id), lineIds: z.optional(lineIds), reason: actionReason })
      .check(
        z.refine((v) => (v.lineId === undefined) !== (v.lineIds === undefined), {
          message: 'validation.required',
          path: ['lineId'],
        }),
      ),
    output: z.object({ dismissed: z.number() }),
  }),
  /**
   * Takes dismissals back (the dismissal's undo): the lines are matched again at once, and one that would
   * pay an order waits `ready` for a person instead. All or none (409 with the ids no longer dismissed).
   */
  reopen: endpoint({
    method: 'POST',
    path: '/statement/reopen',
    caller: 'platform',
    grants,
    input: strictObject({ lineIds }),
    output: z.object({
      reopened: z.number(),
      matched: z.number(),
      ready: z.number(),
      proposed: z.number(),
      exceptions: z.number(),
    }),
  }),
  /** Matching on demand: runs the open lines of an account (or all) through matching again. */
  rematch: endpoint({
    method: 'POST',
    path: '/statement/rematch',
    caller: 'platform',
    grants,
    input: strictObject({ accountId: z.optional(id) }),
    output: z.object({
      matched: z.number(),
      ready: z.number(),
      proposed: z.number(),
      exceptions: z.number(),
    }),
  }),
};
