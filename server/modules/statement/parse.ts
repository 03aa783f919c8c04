/**
 * A bank statement read through a mapping (contract/statementMapping.ts; docs/STATEMENTS.md): lines
 * with a day, a direction, an exact amount in minor units, the balance, the UTR and the key that makes
 * re-importing idempotent; errors per row and per file; running-balance gaps as warnings. No database,
 * no clock: `parseOnThisThread` is pure and runs in the statement worker, `parseStatement` hands it to
 * that worker (workerPool.ts). The import endpoint saves what this answers.
 */
import { createHash } from 'node:crypto';
import { normalUtr } from '../../../contract/schemas.ts';
import type { StatementMapping } from '../../../contract/statementMapping.ts';
import {
  anyBankUtrPattern,
  detectDateForm,
  detectLayout,
  headerSearchRows,
  looseName,
  repeatsHeader,
} from './detect.ts';
import { type FeedFormat, feedLines, feedText } from './feedLines.ts';
import {
  type Cell,
  maxStatementRows,
  type ReadRefusal,
  readStatement,
  type SheetRow,
  type StatementFormat,
} from './read.ts';
import { type PackedResult, runInWorker, statementDeadlineMs } from './workerPool.ts';

export { maxStatementBytes, maxStatementRows, maxXlsxEntries, maxXlsxUnpacked } from './read.ts';

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

const fileError = (
  code: FileErrorCode,
  params?: Record<string, string | number>,
  key: string = code,
): Extract<ParseResult, { ok: false }> => ({
  ok: false,
  error: { code, key: `statement.${key}`, ...(params ? { params } : {}) },
});

/* ---------- amounts ---------- */

export interface ParsedAmount {
  /** Minor units, not negative. */
  minor: number;
  /** A minus sign, parentheses, or a trailing minus. */
  negative: boolean;
  /** A `Dr` or `Cr` written after (or before) the number. */
  mark: 'dr' | 'cr' | null;
}

/** Digits with Indian (`1,00,000`) or Western (`100,000`) grouping or none, at most two decimals. */
const amountBody = /^(\d{1,3}(?:,\d{3})+|\d{1,2}(?:,\d{2})*,\d{3}|\d+)(?:\.(\d{1,2}))?$/;

/**
 * A bank's amount text, exactly (string arithmetic, never a float): `1,00,000.00`, `12,345.5 Cr`,
 * `(500.00)`, `-500`, `500.00-`, `₹ 1,000`, `Rs. 250 Dr`. Answers null for anything else (three
 * decimals, letters, two signs).
 */
export function parseAmount(text: string): ParsedAmount | null {
  let s = text.trim().replace(/\s+/g, ' ');
  let mark: ParsedAmount['mark'] = null;
  const markAt = /^(?:(dr|cr)\.?\s*(.*)|(.*?)\s*(dr|cr)\.?)$/i.exec(s);
  if (markAt) {
    mark = (markAt[1] ?? markAt[4])!.toLowerCase() as 'dr' | 'cr';
    s = (markAt[2] ?? markAt[3])!;
  }
  let signs = 0;
  if (/^\(.*\)$/.test(s)) {
    signs++;
    s = s.slice(1, -1).trim();
  }
  if (/^[-+]/.test(s)) {
    if (s[0] === '-') signs++;
    s = s.slice(1).trim();
  } else if (s.endsWith('-')) {
    signs++;
    s = s.slice(0, -1).trim();
  }
  s = s.replace(/^(?:₹|rs\.?|inr)\s*/i, '');
  if (signs === 0 && /^-/.test(s)) {
    signs++;
    s = s.slice(1);
  }
  if (signs > 1) return null;
  const m = amountBody.exec(s);
  if (!m) return null;
  const whole = m[1]!.replaceAll(',', '');
  if (whole.replace(/^0+/, '').length > 13) return null;
  const minor = Number(whole) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return { minor, negative: signs === 1 && minor !== 0, mark };
}

/* ---------- dates ---------- */

const months = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
/** `Jan`, `January`, `Sept` (any case) → 1…12; 0 for anything else. */
const monthOf = (name: string) => {
  const n = name.toLowerCase();
  return months.findIndex((m) => m === n || m.slice(0, 3) === n || (n === 'sept' && m === 'september')) + 1;
};

interface DateReader {
  regex: RegExp;
  fields: ('d' | 'M' | 'MMM' | 'y2' | 'y4')[];
}

const readers = new Map<string, DateReader>();

/**
 * A date format's reader: `d`/`dd` day, `M`/`MM` month, `MMM` month name (`Jan`, `January`, any case),
 * `yy`/`yyyy` year (`yy` is 2000 + yy); anything else stands for itself, a blank for any run of blanks.
 * A time after the date (`10:15`, `10:15:22 AM`) is allowed and ignored.
 */
function dateReader(format: string): DateReader {
  const cached = readers.get(format);
  if (cached) return cached;
  const fields: DateReader['fields'] = [];
  let source = '';
  const groups: Record<string, [string, DateReader['fields'][number]]> = {
    yyyy: ['(\\d{4})', 'y4'],
    yy: ['(\\d{2})', 'y2'],
    MMM: ['([A-Za-z]{3,9})\\.?', 'MMM'],
    MM: ['(\\d{2})', 'M'],
    M: ['(\\d{1,2})', 'M'],
    dd: ['(\\d{2})', 'd'],
    d: ['(\\d{1,2})', 'd'],
  };
  for (const token of format.match(/yyyy|yy|MMM|MM|M|dd|d|\s+|./g) ?? []) {
    const group = groups[token];
    if (group) {
      source += group[0];
      fields.push(group[1]);
    } else if (/^\s+$/.test(token)) source += '\\s+';
    else source += token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  const reader = {
    regex: new RegExp(`^${source}(?:[ T]+\\d{1,2}:\\d{2}(?::\\d{2})?(?:\\s*[AaPp][Mm])?)?$`),
    fields,
  };
  readers.set(format, reader);
  return reader;
}

/** `YYYY-MM-DD` of a cell read in the declared format, or null when it is not a real day in it. */
export function parseDate(cell: Cell, format: string): string | null {
  if (typeof cell !== 'string') return cell.day;
  const { regex, fields } = dateReader(format);
  const m = regex.exec(cell.trim());
  if (!m) return null;
  let d = 0;
  let mo = 0;
  let y = 0;
  fields.forEach((f, i) => {
    const v = m[i + 1]!;
    if (f === 'd') d = Number(v);
    else if (f === 'M') mo = Number(v);
    else if (f === 'y2') y = 2000 + Number(v);
    else if (f === 'y4') y = Number(v);
    else mo = monthOf(v);
  });
  if (mo < 1 || mo > 12 || d < 1 || y < 1900) return null;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d > days) return null;
  return `${y}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/* ---------- lines ---------- */

/** Header names compare trimmed, case and runs of blanks ignored. */
const headerKey = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
const text = (cell: Cell | undefined) =>
  cell === undefined ? '' : typeof cell === 'string' ? cell : cell.day;
const blank = (s: string) => s === '' || /^-+$/.test(s);

/** A reference that says nothing: empty, dashes, `NA`, all zeros. */
function cleanReference(s: string): string | null {
  const r = s.trim().replace(/\s+/g, ' ');
  if (r === '' || /^[-–/.]*$/.test(r) || /^n\/?a$/i.test(r) || /^0+$/.test(r)) return null;
  return r;
}

/** At least six digits: every UTR and RRN has them; a word a pattern caught has none. */
const digits = (s: string) => (s.match(/\d/g)?.length ?? 0) >= 6;

/**
 * A reference that reads as a UTR: 10 to 32 letters and digits, at least six of them digits, not a
 * number padded with zeros (HDFC's `000000281862`, its own reference, is no payer's UTR).
 */
export function looksLikeUtr(reference: string): boolean {
  const r = normalUtr(reference);
  return /^[A-Z0-9]{10,32}$/.test(r) && digits(r) && !r.startsWith('000');
}

/** The pattern's first group on the narration when it reads as a UTR, else the reference when it does. */
function utrOf(matched: string | null, reference: string | null): string | null {
  const found = matched === null ? null : normalUtr(matched);
  if (found && /^[A-Z0-9]{6,32}$/.test(found) && digits(found)) return found;
  return reference && looksLikeUtr(reference) ? normalUtr(reference) : null;
}

/**
 * The pattern's first group on each narration. A pattern a person writes may backtrack catastrophically
 * (`(a+)+x`) and JavaScript's regular expressions have no time limit: it runs in the statement worker,
 * under the statement's deadline (`utrPatternSlow` when that is what ran past it).
 */
export function utrsByPattern(pattern: string, narrations: readonly string[]): (string | null)[] {
  const re = new RegExp(pattern, 'i');
  return narrations.map((n) => {
    const m = re.exec(n);
    return m && m[1] !== undefined ? m[1] : null;
  });
}

/**
 * What a line says, as its identity within its account reads it: day, direction, amount, narration,
 * reference and running balance, joined by a separator no cell keeps. A bank's reference alone is no
 * identity (SBI writes `TRANSFER FROM <account>` there for every transfer from that account).
 */
export function lineContent(line: Omit<StatementLine, 'dedupeKey' | 'row' | 'utr' | 'currency'>): string {
  return [
    line.date,
    line.direction,
    String(line.amount),
    line.narration,
    line.reference ?? '',
    line.balance === null ? '' : String(line.balance),
  ].join('\x1f');
}

/**
 * The line's identity within its account (docs/STATEMENTS.md "Line identity"): its content and how many
 * lines of the same content the file listed before it on that day, oldest first. Two lines of one file are
 * never the same line; the same file imported again, or a later download that overlaps it, gives the
 * lines it shares the same keys. Hashed (SHA-256, hex) so the key is short whatever the narration; the
 * migration that brought it in computes the same hash in SQL.
 */
export function dedupeKey(content: string, occurrence: number): string {
  return createHash('sha256').update(`${content}\x1f${occurrence}`).digest('hex');
}

/** Gives each line its key, counting equal lines in the order the bank booked them. */
function keyLines(lines: StatementLine[], order: 'oldestFirst' | 'newestFirst'): void {
  const seen = new Map<string, number>();
  const walk = order === 'oldestFirst' ? lines : [...lines].reverse();
  for (const l of walk) {
    const content = lineContent(l);
    const n = seen.get(content) ?? 0;
    seen.set(content, n + 1);
    l.dedupeKey = dedupeKey(content, n);
  }
}

const signed = (l: StatementLine) => (l.direction === 'credit' ? l.amount : -l.amount);

/** Balance gaps walking the lines oldest first: each balance must be the previous one ± its amount. */
function balanceGaps(lines: StatementLine[], order: 'oldestFirst' | 'newestFirst'): BalanceGap[] {
  const seq = order === 'oldestFirst' ? lines : [...lines].reverse();
  const gaps: BalanceGap[] = [];
  for (let i = 1; i < seq.length; i++) {
    const prev = seq[i - 1]!;
    const cur = seq[i]!;
    if (prev.balance === null || cur.balance === null) continue;
    const expected = prev.balance + signed(cur);
    if (expected !== cur.balance) gaps.push({ row: cur.row, expected, found: cur.balance });
  }
  return gaps.sort((a, b) => a.row - b.row);
}

function listingOrder(lines: StatementLine[]): 'oldestFirst' | 'newestFirst' {
  const first = lines[0]?.date ?? '';
  const last = lines.at(-1)?.date ?? '';
  if (first !== last) return first < last ? 'oldestFirst' : 'newestFirst';
  return balanceGaps(lines, 'newestFirst').length < balanceGaps(lines, 'oldestFirst').length
    ? 'newestFirst'
    : 'oldestFirst';
}

/** The first of the first rows that holds every named column (where the header is). */
function rowWithColumns(rows: SheetRow[], wanted: string[]): number | null {
  for (const r of rows) {
    if (r.row > headerSearchRows) break;
    const index = columnIndex(r.cells);
    if (wanted.every((w) => columnAt(index, w) !== undefined)) return r.row;
  }
  return null;
}

type MappedColumn = Exclude<keyof StatementMapping, 'headerRow' | 'dateFormat' | 'utrPattern'>;
const mappedColumns: MappedColumn[] = [
  'dateColumn',
  'narrationColumn',
  'referenceColumn',
  'creditColumn',
  'debitColumn',
  'amountColumn',
  'directionColumn',
  'balanceColumn',
];

export interface ParseOptions {
  /** How long reading may run once a worker has taken it (default `statementDeadlineMs`). */
  deadlineMs?: number;
}

/**
 * Reads and interprets a statement in the statement worker, off the server's event loop; the mapping
 * has passed `statementMapping`.
 */
export async function parseStatement(
  input: { file: Buffer } | { text: string },
  mapping: StatementMapping | null,
  options: ParseOptions = {},
): Promise<ParseResult> {
  const read = await readPacked(input, mapping, options);
  if (!read.ok) return read;
  return {
    ...read,
    lines: await read.lines.all(),
    errors: await read.errors.all(),
    warnings: await read.warnings.all(),
  };
}

/**
 * `parseStatement` with its lists left packed, unpacked as they are walked: an import of 200,000 lines
 * never holds them all on the server's thread at once.
 */
export async function readPacked(
  input: { file: Buffer } | { text: string },
  mapping: StatementMapping | null,
  options: ParseOptions = {},
): Promise<PackedResult> {
  const deadlineMs = options.deadlineMs ?? statementDeadlineMs;
  const outcome = await runInWorker({ input, mapping }, deadlineMs);
  if ('stopped' in outcome)
    return outcome.stopped === 'busy'
      ? fileError('busy')
      : fileError(outcome.stopped, { seconds: Math.ceil(deadlineMs / 1000) });
  return outcome.result;
}

/**
 * `parseStatement`'s work, on the calling thread: the statement worker's. Without a mapping the layout is
 * detected from the file (detect.ts); a mapping without `headerRow` or `dateFormat` has them found.
 * `onUtrPattern` is told when the mapping's UTR pattern starts (what a deadline then stops is the pattern,
 * not the file).
 */
export async function parseOnThisThread(
  input: { file: Buffer } | { text: string },
  given: StatementMapping | null,
  onUtrPattern: () => void,
): Promise<ParseResult> {
  const feed = feedText(input);
  if (feed) return parseFeed(feed.format, feed.text, onUtrPattern);
  const read = await readStatement(input, given?.headerRow ?? null);
  if (!read.ok) return fileError(read.code, 'params' in read ? read.params : undefined);
  const rows = read.rows;
  if (!rows.some((r) => r.cells.some((c) => text(c) !== ''))) return fileError('empty');

  let mapping: StatementMapping;
  let bank: string | null = null;
  if (given) mapping = { ...given };
  else {
    const detected = detectLayout(rows);
    if (!detected) return fileError('noLayout', { rows: headerSearchRows });
    mapping = detected.mapping;
    bank = detected.bank;
  }
  const wanted = mappedColumns.flatMap((f) => (mapping[f] ? [mapping[f]] : []));
  if (mapping.headerRow === undefined) {
    const found = rowWithColumns(rows, wanted);
    if (found === null) return fileError('columns', { row: 0, columns: wanted.join(', ') }, 'columnsNowhere');
    mapping.headerRow = found;
  }
  const headerRow = mapping.headerRow;
  const header = rows.find((r) => r.row === headerRow);
  if (!header) {
    const found = rowWithColumns(rows, wanted);
    return found === null
      ? fileError('headerRow', { row: headerRow, rows: read.lastRow })
      : fileError('headerRow', { row: headerRow, rows: read.lastRow, found }, 'headerRowFound');
  }
  const index = columnIndex(header.cells);
  const missing = wanted.filter((w) => columnAt(index, w) === undefined);
  if (missing.length) {
    const found = rowWithColumns(rows, wanted);
    const params = { row: headerRow, columns: missing.join(', ') };
    return found === null
      ? fileError('columns', params)
      : fileError('columns', { ...params, found }, 'columnsFound');
  }
  const col = (name: string | undefined) => (name === undefined ? -1 : columnAt(index, name)!);
  const at = {
    date: col(mapping.dateColumn),
    narration: col(mapping.narrationColumn),
    reference: col(mapping.referenceColumn),
    credit: col(mapping.creditColumn),
    debit: col(mapping.debitColumn),
    amount: col(mapping.amountColumn),
    direction: col(mapping.directionColumn),
    balance: col(mapping.balanceColumn),
  };

  const body = rows.filter((r) => r.row > headerRow && r.cells.some((c) => text(c) !== ''));
  if (mapping.dateFormat === undefined) {
    const dateCells = body.flatMap((r) => {
      const c = r.cells[at.date];
      return typeof c === 'string' ? [c] : [];
    });
    const form = detectDateForm(dateCells, (c, f) => parseDate(c, f));
    // A sheet whose dates are all date cells needs no form; one whose dates read in none has no dates.
    if (form === null && dateCells.length) return fileError('dateForm', { value: dateCells[0]! });
    mapping.dateFormat = form ?? 'dd/MM/yyyy';
  }
  const dateFormat = mapping.dateFormat;

  const lines: StatementLine[] = [];
  const errors: RowError[] = [];
  const skipped: Skipped = { count: read.lastRow - headerRow - body.length, rows: [] };
  const mappedAt = Object.values(at).filter((i) => i >= 0);
  const skip = (r: SheetRow, kind: SkipKind) => {
    skipped.count++;
    if (skipped.rows.length < maxSkippedListed)
      skipped.rows.push({
        row: r.row,
        kind,
        text: r.cells
          .map(text)
          .filter((c) => c !== '')
          .join(' · ')
          .replace(/\s+/g, ' ')
          .slice(0, 200),
      });
  };
  const amountCells = [at.credit, at.debit, at.amount].filter((i) => i >= 0);
  for (const r of body) {
    if (repeatsHeader(r.cells, header.cells, mappedAt)) {
      skip(r, 'header');
      continue;
    }
    const dateCell = r.cells[at.date];
    const date = dateCell === undefined ? null : parseDate(dateCell, dateFormat);
    const amounts = amountCells.map((i) => text(r.cells[i]));
    const hasAmount = amounts.some((a) => !blank(a) && parseAmount(a) !== null);
    // Not a transaction: a title, a legend, a disclaimer, a footer, an opening-balance label, a section
    // name. A row with no day in the date column is one unless it carries an amount (then a bad date
    // would hide money: a row error).
    if (date === null && !(hasAmount && /\d/.test(text(dateCell)))) {
      skip(r, 'text');
      continue;
    }
    const narration = text(r.cells[at.narration]).replace(/\s+/g, ' ').trim();
    // A dated row with no amount at all that says it is a balance (opening, closing, brought forward), or
    // says nothing (a page footer that starts with the day it was printed).
    if (date !== null && amounts.every(blank)) {
      if (balanceWords.test(narration)) {
        skip(r, 'balance');
        continue;
      }
      if (narration === '') {
        skip(r, 'text');
        continue;
      }
    }

    const rowErrors: RowError[] = [];
    const fail = (column: string, code: RowErrorCode, params?: Record<string, string | number>) =>
      rowErrors.push({
        row: r.row,
        column,
        code,
        key: `statement.row.${code}`,
        ...(params ? { params } : {}),
      });

    for (const [field, i] of [
      ['narrationColumn', at.narration],
      ['creditColumn', at.credit],
      ['debitColumn', at.debit],
      ['amountColumn', at.amount],
      ['directionColumn', at.direction],
    ] as const)
      if (i >= 0 && i >= r.cells.length) fail(mapping[field]!, 'missing');
    if (rowErrors.length) {
      errors.push(...rowErrors);
      continue;
    }

    if (!date) fail(mapping.dateColumn, 'date', { value: text(dateCell), format: dateFormat });

    let direction: Direction | null = null;
    let amount = 0;
    if (at.amount >= 0) {
      const raw = text(r.cells[at.amount]);
      const a = blank(raw) ? null : parseAmount(raw);
      const said = at.direction >= 0 ? directionOf(text(r.cells[at.direction])) : null;
      if (blank(raw)) fail(mapping.amountColumn!, 'noAmount');
      else if (!a || (a.negative && a.mark === 'cr')) fail(mapping.amountColumn!, 'amount', { value: raw });
      else if (a.minor === 0) fail(mapping.amountColumn!, 'noAmount');
      else if (at.direction >= 0) {
        // The direction column says which way; the amount must not say otherwise.
        const own = a.negative || a.mark === 'dr' ? 'debit' : a.mark === 'cr' ? 'credit' : null;
        if (said === null)
          fail(mapping.directionColumn!, 'direction', { value: text(r.cells[at.direction]) });
        else if (own !== null && own !== said) fail(mapping.amountColumn!, 'amount', { value: raw });
        else [direction, amount] = [said, a.minor];
      } else {
        direction = a.negative || a.mark === 'dr' ? 'debit' : 'credit';
        amount = a.minor;
      }
    } else {
      const side = (i: number, name: string | undefined, dir: Direction) => {
        if (i < 0) return null;
        const raw = text(r.cells[i]);
        if (blank(raw)) return null;
        const a = parseAmount(raw);
        // A credit written negative or marked Dr contradicts its column; a debit may carry a minus.
        if (!a || (dir === 'credit' ? a.negative || a.mark === 'dr' : a.mark === 'cr')) {
          fail(name!, 'amount', { value: raw });
          return 'bad';
        }
        return a.minor === 0 ? null : a.minor;
      };
      const credit = side(at.credit, mapping.creditColumn, 'credit');
      const debit = side(at.debit, mapping.debitColumn, 'debit');
      const first = (mapping.creditColumn ?? mapping.debitColumn)!;
      if (credit !== 'bad' && debit !== 'bad') {
        if (credit !== null && debit !== null) fail(first, 'bothAmounts');
        else if (credit === null && debit === null) fail(first, 'noAmount');
        else [direction, amount] = credit !== null ? ['credit', credit] : ['debit', debit!];
      }
    }

    let balance: number | null = null;
    if (at.balance >= 0) {
      const raw = text(r.cells[at.balance]);
      if (!blank(raw)) {
        const b = parseAmount(raw);
        if (!b) fail(mapping.balanceColumn!, 'balance', { value: raw });
        else balance = b.negative || b.mark === 'dr' ? -b.minor : b.minor;
      }
    }

    // Stored and sent back with every list page: a cell of a megabyte is not a bank's narration.
    if (narration.length > maxNarration)
      fail(mapping.narrationColumn, 'narrationLong', { max: maxNarration, length: narration.length });
    if (rowErrors.length || !date || !direction) {
      errors.push(...rowErrors);
      continue;
    }
    const reference = at.reference >= 0 ? cleanReference(text(r.cells[at.reference])) : null;
    lines.push({
      row: r.row,
      date,
      narration,
      reference,
      direction,
      amount,
      balance,
      currency: null,
      utr: null,
      dedupeKey: '',
    });
  }
  if (!lines.length && !errors.length) return fileError('empty');
  if (mapping.utrPattern) onUtrPattern();
  const matched = mapping.utrPattern
    ? utrsByPattern(
        mapping.utrPattern,
        lines.map((l) => l.narration),
      )
    : [];
  lines.forEach((l, i) => {
    l.utr = utrOf(matched[i] ?? null, l.reference);
  });

  const order = listingOrder(lines);
  keyLines(lines, order);
  return {
    ok: true,
    format: read.format,
    mapping: mapping as StatementMapping & { headerRow: number; dateFormat: string },
    detected: given === null,
    bank,
    lines,
    errors,
    warnings: balanceGaps(lines, order),
    order,
    skipped,
    totals: totalsOf(lines),
    accounts: null,
  };
}

/**
 * A feed (MT940, camt.053): its own fields, no mapping (one given is not read). The UTR: the pattern for
 * any bank on the narration, else the first of the entry's references that reads as a UTR.
 */
function parseFeed(format: FeedFormat, text: string, onUtrPattern: () => void): ParseResult {
  const read = feedLines(format, text);
  if (!read.ok)
    return read.refusal === 'tooManyRows'
      ? fileError('tooManyRows', { max: maxStatementRows })
      : fileError('unreadable', { format: feedNames[format], detail: read.detail ?? '' }, 'feedUnreadable');
  const { lines } = read;
  if (!lines.length && !read.errors.length) return fileError('empty');
  onUtrPattern();
  const matched = utrsByPattern(
    anyBankUtrPattern,
    lines.map((l) => l.narration),
  );
  lines.forEach((l, i) => {
    const reference = read.references[i]!.find((r) => r !== null && looksLikeUtr(r)) ?? null;
    l.utr = utrOf(matched[i] ?? null, reference);
  });
  const order = listingOrder(lines);
  keyLines(lines, order);
  return {
    ok: true,
    format,
    mapping: null,
    detected: false,
    bank: null,
    lines,
    errors: read.errors,
    warnings: read.warnings,
    order,
    skipped: { count: 0, rows: [] },
    totals: totalsOf(lines),
    accounts: read.accounts,
  };
}

const feedNames: Record<FeedFormat, string> = { mt940: 'MT940', camt053: 'camt.053' };

/** A direction column's cell: `Dr`, `D`, `Debit`, `Withdrawal` or `Cr`, `C`, `Credit`, `Deposit`. */
function directionOf(cell: string): Direction | null {
  const c = cell.trim().replace(/\.$/, '').toLowerCase();
  if (/^(?:dr|d|debit|withdrawal)$/.test(c)) return 'debit';
  if (/^(?:cr|c|credit|deposit)$/.test(c)) return 'credit';
  return null;
}

/** What a dated row without an amount says when it is a balance, not a transaction. */
const balanceWords = /\b(?:opening|closing|balance|b\/f|c\/f|brought\s+forward|carried\s+forward)\b/i;

/** The count and the sum of the credits and of the debits: the bank's own summary says the same. */
export function totalsOf(lines: readonly Pick<StatementLine, 'direction' | 'amount'>[]): Totals {
  const totals: Totals = { credits: { count: 0, sum: 0 }, debits: { count: 0, sum: 0 } };
  for (const l of lines) {
    const side = l.direction === 'credit' ? totals.credits : totals.debits;
    side.count++;
    side.sum += l.amount;
  }
  return totals;
}

/** Header names by their key (trimmed, case and blanks ignored) and loosely (detect.ts `looseName`). */
function columnIndex(cells: readonly Cell[]): { exact: Map<string, number>; loose: Map<string, number> } {
  const exact = new Map<string, number>();
  const loose = new Map<string, number>();
  cells.forEach((c, i) => {
    const k = headerKey(text(c));
    if (k && !exact.has(k)) exact.set(k, i);
    const l = looseName(text(c));
    if (l && !loose.has(l)) loose.set(l, i);
  });
  return { exact, loose };
}

/** A mapped column's place: its exact name first, else the same name loosely (`(INR)` and `(INR )`). */
function columnAt(index: ReturnType<typeof columnIndex>, name: string): number | undefined {
  return index.exact.get(headerKey(name)) ?? index.loose.get(looseName(name));
}
