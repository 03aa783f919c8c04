/**
 * A sheet's rows (CSV, XLSX, a paste) read into lines through a mapping: the layout found (detected, or
 * the header row and date form a mapping leaves out), then each row below the header read as a line, a row
 * error, or a row that is no transaction (a title, a legend, a balance, a repeated header).
 */
import type { StatementMapping } from '../../../contract/statementMapping.ts';
import {
  balanceWords,
  blank,
  cleanReference,
  directionOf,
  headerKey,
  parseAmount,
  parseDate,
  text,
} from './cells.ts';
import { detectDateForm, detectLayout, headerSearchRows, looseName, repeatsHeader } from './detect.ts';
import { balanceGaps, finishLines, totalsOf, utrsByPattern } from './lineKeys.ts';
import {
  type Direction,
  fileError,
  maxNarration,
  maxSkippedListed,
  type ParseResult,
  type RowError,
  type RowErrorCode,
  type SkipKind,
  type Skipped,
  type StatementLine,
} from './parsed.ts';
import type { Cell, ReadResult, SheetRow } from './read.ts';

type FileRefusal = Extract<ParseResult, { ok: false }>;
type Mapping = StatementMapping & { headerRow: number };
/** Where each mapped column is in the header (-1: not mapped). */
type Columns = Record<
  'date' | 'narration' | 'reference' | 'credit' | 'debit' | 'amount' | 'direction' | 'balance',
  number
>;

/** The mapping to read with (given, or detected), its header row found and its columns placed. */
function sheetLayout(
  rows: SheetRow[],
  lastRow: number,
  given: StatementMapping | null,
): FileRefusal | { mapping: Mapping; bank: string | null; header: SheetRow; at: Columns } {
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
      ? fileError('headerRow', { row: headerRow, rows: lastRow })
      : fileError('headerRow', { row: headerRow, rows: lastRow, found }, 'headerRowFound');
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
  const at: Columns = {
    date: col(mapping.dateColumn),
    narration: col(mapping.narrationColumn),
    reference: col(mapping.referenceColumn),
    credit: col(mapping.creditColumn),
    debit: col(mapping.debitColumn),
    amount: col(mapping.amountColumn),
    direction: col(mapping.directionColumn),
    balance: col(mapping.balanceColumn),
  };
  return { mapping: { ...mapping, headerRow }, bank, header, at };
}

/** The mapping's date form, or the one the date column reads in (null: a date cell no form reads). */
function dateFormOf(mapping: Mapping, body: SheetRow[], at: Columns): string | { unread: string } {
  if (mapping.dateFormat !== undefined) return mapping.dateFormat;
  const dateCells = body.flatMap((r) => {
    const c = r.cells[at.date];
    return typeof c === 'string' ? [c] : [];
  });
  const form = detectDateForm(dateCells, (c, f) => parseDate(c, f));
  // A sheet whose dates are all date cells needs no form; one whose dates read in none has no dates.
  if (form === null && dateCells.length) return { unread: dateCells[0]! };
  return form ?? 'dd/MM/yyyy';
}

/** How one row reads: a line, the row's errors, or a row that is no transaction. */
type RowReading = { line: StatementLine } | { errors: RowError[] } | { skip: SkipKind };

interface SheetReader {
  mapping: Mapping & { dateFormat: string };
  header: SheetRow;
  at: Columns;
}

type Fail = (column: string, code: RowErrorCode, params?: Record<string, string | number>) => void;

/** The row's direction and amount, from one signed amount column (with or without a direction column) or two. */
function rowAmount(r: SheetRow, { mapping, at }: SheetReader, fail: Fail): [Direction, number] | null {
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
      if (said === null) fail(mapping.directionColumn!, 'direction', { value: text(r.cells[at.direction]) });
      else if (own !== null && own !== said) fail(mapping.amountColumn!, 'amount', { value: raw });
      else return [said, a.minor];
    } else return [a.negative || a.mark === 'dr' ? 'debit' : 'credit', a.minor];
    return null;
  }
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
  if (credit === 'bad' || debit === 'bad') return null;
  if (credit !== null && debit !== null) fail(first, 'bothAmounts');
  else if (credit === null && debit === null) fail(first, 'noAmount');
  else return credit !== null ? ['credit', credit] : ['debit', debit!];
  return null;
}

/** The row's running balance (null when the column is not mapped or the cell is blank). */
function rowBalance(r: SheetRow, { mapping, at }: SheetReader, fail: Fail): number | null {
  if (at.balance < 0) return null;
  const raw = text(r.cells[at.balance]);
  if (blank(raw)) return null;
  const b = parseAmount(raw);
  if (!b) {
    fail(mapping.balanceColumn!, 'balance', { value: raw });
    return null;
  }
  return b.negative || b.mark === 'dr' ? -b.minor : b.minor;
}

/** Reads one row below the header. */
function readRow(r: SheetRow, reader: SheetReader, mappedAt: number[]): RowReading {
  const { mapping, header, at } = reader;
  if (repeatsHeader(r.cells, header.cells, mappedAt)) return { skip: 'header' };
  const dateCell = r.cells[at.date];
  const date = dateCell === undefined ? null : parseDate(dateCell, mapping.dateFormat);
  const amounts = [at.credit, at.debit, at.amount].filter((i) => i >= 0).map((i) => text(r.cells[i]));
  const hasAmount = amounts.some((a) => !blank(a) && parseAmount(a) !== null);
  // Not a transaction: a title, a legend, a disclaimer, a footer, an opening-balance label, a section
  // name. A row with no day in the date column is one unless it carries an amount (then a bad date
  // would hide money: a row error).
  if (date === null && !(hasAmount && /\d/.test(text(dateCell)))) return { skip: 'text' };
  const narration = text(r.cells[at.narration]).replace(/\s+/g, ' ').trim();
  // A dated row with no amount at all that says it is a balance (opening, closing, brought forward), or
  // says nothing (a page footer that starts with the day it was printed).
  if (date !== null && amounts.every(blank)) {
    if (balanceWords.test(narration)) return { skip: 'balance' };
    if (narration === '') return { skip: 'text' };
  }

  const errors: RowError[] = [];
  const fail: Fail = (column, code, params) =>
    errors.push({ row: r.row, column, code, key: `statement.row.${code}`, ...(params ? { params } : {}) });
  for (const [field, i] of [
    ['narrationColumn', at.narration],
    ['creditColumn', at.credit],
    ['debitColumn', at.debit],
    ['amountColumn', at.amount],
    ['directionColumn', at.direction],
  ] as const)
    if (i >= 0 && i >= r.cells.length) fail(mapping[field]!, 'missing');
  if (errors.length) return { errors };

  if (!date) fail(mapping.dateColumn, 'date', { value: text(dateCell), format: mapping.dateFormat });
  const moved = rowAmount(r, reader, fail);
  const balance = rowBalance(r, reader, fail);
  // Stored and sent back with every list page: a cell of a megabyte is not a bank's narration.
  if (narration.length > maxNarration)
    fail(mapping.narrationColumn, 'narrationLong', { max: maxNarration, length: narration.length });
  if (errors.length || !date || !moved) return { errors };
  const [direction, amount] = moved;
  const reference = at.reference >= 0 ? cleanReference(text(r.cells[at.reference])) : null;
  return {
    line: {
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
    },
  };
}

/** The row listed among the skipped ones: its non-blank cells, joined and cut short. */
function skippedRow(r: SheetRow, kind: SkipKind) {
  const cells = r.cells.map(text).filter((c) => c !== '');
  return { row: r.row, kind, text: cells.join(' · ').replace(/\s+/g, ' ').slice(0, 200) };
}

/**
 * A sheet read into lines. Without a mapping the layout is detected from the file (detect.ts); a mapping
 * without `headerRow` or `dateFormat` has them found. `onUtrPattern` is told when the mapping's UTR
 * pattern starts (what a deadline then stops is the pattern, not the file).
 */
export function parseSheet(
  read: Extract<ReadResult, { ok: true }>,
  given: StatementMapping | null,
  onUtrPattern: () => void,
): ParseResult {
  const rows = read.rows;
  if (!rows.some((r) => r.cells.some((c) => text(c) !== ''))) return fileError('empty');
  const layout = sheetLayout(rows, read.lastRow, given);
  if ('ok' in layout) return layout;
  const { bank, header, at } = layout;
  const body = rows.filter((r) => r.row > layout.mapping.headerRow && r.cells.some((c) => text(c) !== ''));
  const dateFormat = dateFormOf(layout.mapping, body, at);
  if (typeof dateFormat !== 'string') return fileError('dateForm', { value: dateFormat.unread });
  const mapping = { ...layout.mapping, dateFormat };

  const lines: StatementLine[] = [];
  const errors: RowError[] = [];
  const skipped: Skipped = { count: read.lastRow - mapping.headerRow - body.length, rows: [] };
  const mappedAt = Object.values(at).filter((i) => i >= 0);
  for (const r of body) {
    const reading = readRow(r, { mapping, header, at }, mappedAt);
    if ('line' in reading) lines.push(reading.line);
    else if ('errors' in reading) errors.push(...reading.errors);
    else {
      skipped.count++;
      if (skipped.rows.length < maxSkippedListed) skipped.rows.push(skippedRow(r, reading.skip));
    }
  }
  if (!lines.length && !errors.length) return fileError('empty');
  if (mapping.utrPattern) onUtrPattern();
  const caught = mapping.utrPattern
    ? utrsByPattern(
        mapping.utrPattern,
        lines.map((l) => l.narration),
      )
    : [];
  const order = finishLines(lines, caught, (l) => l.reference);
  return {
    ok: true,
    format: read.format,
    mapping,
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
