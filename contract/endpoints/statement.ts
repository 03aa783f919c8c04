/**
 * Bank statements (OPERATIONS.md section 2; docs/STATEMENTS.md): a receiving account's statement is
 * imported (CSV, XLSX or pasted text, read through a mapping saved per bank or given inline), previewed
 * with per-row errors first, saved once per line (re-importing adds nothing), and matched against the
 * pay-ins routed to the account: a credit carrying a pending order's UTR and amount pays it; what cannot
 * pay by itself waits in the exception queue for a person (match to an order, or dismiss with a reason).
 * Debits close withdrawal-slip lines by reference. Platform users only.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { statementLine } from '../machines.ts';
import { moneyOut } from '../money.ts';
import { actionReason, id, listOf, okFlag, page, pageSize, strictObject } from '../schemas.ts';
import { statementMapping } from '../statementMapping.ts';
import { businessDay } from './tn.ts';

const grants = { platform: ['operator', 'finance'] } as const;

/** A statement file may be at most 10 MB (server/modules/statement/read.ts); base64 makes it 4/3 larger. */
export const maxStatementUploadBytes = 14 * 1024 * 1024;

export const exceptionKinds = ['amount_mismatch', 'ambiguous', 'unmatched'] as const;
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
  /** Of the new lines: paid an order or closed a slip line, proposed for one click, waiting as exceptions. */
  matched: z.number(),
  proposed: z.number(),
  exceptions: z.number(),
});

export const importRow = z.object({
  id: z.number(),
  accountId: z.number(),
  accountLabel: z.string(),
  fileName: z.string(),
  format: z.string(),
  size: z.number(),
  sha256: z.string(),
  mappingName: z.nullable(z.string()),
  status: z.enum(['running', 'done']),
  lineCount: z.number(),
  /** Lines written so far (progress while `running`). */
  processed: z.number(),
  counts: importCounts,
  gaps: z.array(statementGap),
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
   * Reads a statement into a receiving account. `dryRun` answers the preview (counts, the first lines,
   * per-row errors, balance gaps) and writes nothing. Otherwise a file with any row error is refused
   * (`statementRows` 1050, the rows in `data.rows`) and writes nothing; a readable one is kept as the
   * audit copy, its new lines saved and matched. `key` (chosen by the caller) lets
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
        key: z.optional(z.string().check(z.regex(/^[A-Za-z0-9-]{8,64}$/))),
      })
      .check(
        z.refine((v) => (v.mappingId === undefined) !== (v.mapping === undefined), {
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
      counts: importCounts,
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
      kind: z.optional(z.enum([...exceptionKinds, 'proposed'])),
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
   * line). Refused when the amounts differ, the order cannot be supplemented, or the line's UTR is used.
   */
  match: endpoint({
    method: 'POST',
    path: '/statement/match',
    caller: 'platform',
    grants,
    input: strictObject({ lineId: id, orderId: id }),
    output: statementLineRow,
  }),
  /** Accepts proposals: each proposed line pays the order it proposes. */
  accept: endpoint({
    method: 'POST',
    path: '/statement/accept',
    caller: 'platform',
    grants,
    input: strictObject({ lineIds }),
    output: z.object({
      matched: z.number(),
      refused: z.array(z.object({ lineId: z.number(), message: z.string() })),
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
  /** Matching on demand: runs the open lines of an account (or all) through matching again. */
  rematch: endpoint({
    method: 'POST',
    path: '/statement/rematch',
    caller: 'platform',
    grants,
    input: strictObject({ accountId: z.optional(id) }),
    output: z.object({ matched: z.number(), proposed: z.number(), exceptions: z.number() }),
  }),
};
