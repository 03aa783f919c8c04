/**
 * What reading a statement answers (parse.ts): its lines, the errors per row and per file, the gaps in the
 * running balance and the rows that are no transaction.
 */
import type { StatementMapping } from '../../../contract/statementMapping.ts';
import type { ReadRefusal, StatementFormat } from './read.ts';

export type Direction = 'credit' | 'debit';

export interface StatementLine {
  /** The row as a spreadsheet numbers it. */
  row: number;
  /** `YYYY-MM-DD`. */
  date: string;
  narration: string;
  reference: string | null;
  direction: Direction;
  /** Minor units, above zero. */
  amount: number;
  /** Minor units after this line (negative when overdrawn), or null when the file gives none. */
  balance: number | null;
  /** ISO 4217 when the file says it (MT940, camt.053); null: the account's own (INR). */
  currency: string | null;
  /** Trimmed, upper case. */
  utr: string | null;
  /** Unique per account: equal keys are the same bank line (re-imports add nothing). */
  dedupeKey: string;
}

export type RowErrorCode =
  | 'date'
  | 'amount'
  | 'balance'
  | 'bothAmounts'
  | 'noAmount'
  | 'missing'
  | 'narrationLong'
  | 'direction'
  /** A feed's entry (MT940, camt.053) that does not read. */
  | 'entry';

/** Longest narration a line keeps (banks write well under 300 characters); a longer cell is a row error. */
export const maxNarration = 1000;

export interface RowError {
  row: number;
  /** The column's header name as the mapping gives it. */
  column: string;
  code: RowErrorCode;
  /** A locale key (`statement.*`) and its parameters. */
  key: string;
  params?: Record<string, string | number>;
}

export interface BalanceGap {
  row: number;
  /** The balance the chronologically previous line and this line's amount give (minor units). */
  expected: number;
  /** The balance the file states. */
  found: number;
}

export type FileErrorCode =
  | ReadRefusal['code']
  | 'empty'
  | 'headerRow'
  | 'columns'
  /** No mapping given and no row among the first ones looks like a transaction table's header. */
  | 'noLayout'
  /** No mapping's date form given and none reads the file's dates. */
  | 'dateForm'
  | 'utrPatternSlow'
  /** Reading ran past its deadline (`statementDeadlineMs`). */
  | 'tooSlow'
  /** Every statement worker is taken and the queue is full: try again shortly. */
  | 'busy';

export interface FileError {
  code: FileErrorCode;
  key: string;
  params?: Record<string, string | number>;
}

/** Why a row below the header is no transaction. */
export type SkipKind = 'text' | 'header' | 'balance';

export interface SkippedRow {
  row: number;
  kind: SkipKind;
  /** The row's non-empty cells, at most 200 characters: what a person recognises it by. */
  text: string;
}

/** Rows skipped: all counted (blank ones too), the first `maxSkippedListed` non-blank ones listed. */
export interface Skipped {
  count: number;
  rows: SkippedRow[];
}

export const maxSkippedListed = 500;

/** Over every line the file holds, minor units. */
export interface Totals {
  credits: { count: number; sum: number };
  debits: { count: number; sum: number };
}

export type ParseResult =
  | {
      ok: true;
      format: StatementFormat;
      /** The mapping read with, its header row and date form as found (null for MT940 and camt.053). */
      mapping: (StatementMapping & { headerRow: number; dateFormat: string }) | null;
      /** No mapping was given: `mapping` is what detection found. */
      detected: boolean;
      /** The bank detection recognised (a preset's id), else null. */
      bank: string | null;
      lines: StatementLine[];
      errors: RowError[];
      warnings: BalanceGap[];
      /** How the bank listed the lines, read from their dates (or balances when all share one day). */
      order: 'oldestFirst' | 'newestFirst';
      /** Rows below the header that are no transaction (docs/STATEMENTS.md "Lines, rows and errors"). */
      skipped: Skipped;
      totals: Totals;
      /** A feed's statements name their accounts (IBAN, account number); null for other formats. */
      accounts: string[] | null;
    }
  | { ok: false; error: FileError };

export const fileError = (
  code: FileErrorCode,
  params?: Record<string, string | number>,
  key: string = code,
): Extract<ParseResult, { ok: false }> => ({
  ok: false,
  error: { code, key: `statement.${key}`, ...(params ? { params } : {}) },
});
