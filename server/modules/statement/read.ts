/**
 * A bank statement's cells, from a file (CSV or XLSX, told apart by content: an XLSX is a zip) or from
 * text pasted from a bank's web page (tab-separated, or columns lined up with spaces). Only reading:
 * what the cells mean is `parse.ts`'s. Limits (docs/STATEMENTS.md) are checked before the expensive
 * step: the size before decoding, an XLSX's zip directory and what its parts inflate to before exceljs
 * opens it (exceljs inflates every part whole).
 */
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { unpackedSizeCheck } from '../payout/bulk.ts';

/** What an upload or a paste may weigh: a year of a busy account's statement as CSV is a few MB. */
export const maxStatementBytes = 10 * 1024 * 1024;
/** Lines below the header row. */
export const maxStatementRows = 200_000;
/** What an XLSX may unpack to, all parts together, and how many parts its zip may list. */
export const maxXlsxUnpacked = 50 * 1024 * 1024;
export const maxXlsxEntries = 200;

/** A cell: its text, or a day an XLSX stored as a date (`YYYY-MM-DD`). */
export type Cell = string | { day: string };

export interface SheetRow {
  /** As a spreadsheet numbers it: the file's record (CSV), the sheet's row (XLSX), the line (text). */
  row: number;
  cells: Cell[];
}

export type ReadRefusal =
  | { code: 'tooLarge'; params: { max: number } }
  | { code: 'unpacked'; params: { max: number; entries: number } }
  | { code: 'xls' }
  | { code: 'unreadable' };

export type ReadResult = { ok: true; rows: SheetRow[] } | ({ ok: false } & ReadRefusal);

const mb = (bytes: number) => bytes / (1024 * 1024);
const tooLarge = { ok: false, code: 'tooLarge', params: { max: mb(maxStatementBytes) } } as const;

/** UTF-8 (with or without BOM); bytes that are not UTF-8 are read as Windows-1252 (older exports). */
function decodeText(buf: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buf);
  } catch {
    return new TextDecoder('windows-1252').decode(buf);
  }
}

function readCsv(text: string): SheetRow[] {
  const records = parseCsv(text, {
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
  }) as string[][];
  return records.map((cells, i) => ({ row: i + 1, cells: cells.map((c) => String(c ?? '').trim()) }));
}

/** The number of entries the zip's end-of-central-directory record states, or null when there is none. */
function zipEntries(zip: Buffer): number | null {
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) return zip.readUInt16LE(i + 10);
  }
  return null;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** A cell as the text a person sees; numbers in their shortest form (never float noise), dates as days. */
function xlsxCell(cell: ExcelJS.Cell): Cell {
  const v = cell.value;
  if (v === null || v === undefined) return '';
  // exceljs gives a date cell as the instant of its serial read as UTC: the day is its UTC day.
  if (v instanceof Date)
    return Number.isNaN(v.getTime())
      ? ''
      : { day: `${v.getUTCFullYear()}-${pad2(v.getUTCMonth() + 1)}-${pad2(v.getUTCDate())}` };
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'object') {
    if ('result' in v && v.result !== undefined && v.result !== null) {
      if (v.result instanceof Date) return xlsxCell({ value: v.result } as ExcelJS.Cell);
      return typeof v.result === 'object' ? '' : String(v.result).trim();
    }
    if ('richText' in v)
      return v.richText
        .map((p) => p.text)
        .join('')
        .trim();
    if ('text' in v) return String(v.text).trim();
  }
  return '';
}

async function readXlsx(buf: Buffer): Promise<ReadResult> {
  const entries = zipEntries(buf);
  if (entries === null) return { ok: false, code: 'unreadable' };
  const unpacked = {
    ok: false,
    code: 'unpacked',
    params: { max: mb(maxXlsxUnpacked), entries: maxXlsxEntries },
  } as const;
  if (entries > maxXlsxEntries) return unpacked;
  const size = await unpackedSizeCheck(buf, maxXlsxUnpacked);
  if (size === 'tooBig') return unpacked;
  if (size === 'unreadable') return { ok: false, code: 'unreadable' };
  const book = new ExcelJS.Workbook();
  try {
    await book.xlsx.load(buf as unknown as ArrayBuffer);
  } catch {
    return { ok: false, code: 'unreadable' };
  }
  const sheet = book.worksheets[0];
  if (!sheet) return { ok: true, rows: [] };
  const rows: SheetRow[] = [];
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: Cell[] = [];
    for (let c = 1; c <= row.cellCount; c++) cells.push(xlsxCell(row.getCell(c)));
    rows.push({ row: rowNumber, cells });
  });
  return { ok: true, rows };
}

/**
 * Lines copied from a web page: tab-separated when any line holds a tab (a copied HTML table), else
 * columns lined up with spaces, cut where the header row's names stand (a value belongs to the header
 * it overlaps most, so a right-aligned amount or an empty column lands where it should), else CSV.
 */
export function readPasted(text: string, headerRow: number): SheetRow[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  if (lines.some((l) => l.includes('\t')))
    return lines.map((l, i) => ({ row: i + 1, cells: l.split('\t').map((c) => c.trim()) }));
  const header = lines[headerRow - 1];
  if (header === undefined || !/\S {2,}\S/.test(header)) return readCsv(text);
  const spans = (line: string) =>
    [...line.matchAll(/\S+(?: \S+)*/g)].map((m) => ({
      text: m[0],
      start: m.index,
      end: m.index + m[0].length,
    }));
  const columns = spans(header);
  return lines.map((line, i) => {
    const cells = columns.map(() => '');
    for (const token of spans(line)) {
      let best = 0;
      let bestScore = Number.NEGATIVE_INFINITY;
      columns.forEach((col, c) => {
        const overlap = Math.min(col.end, token.end) - Math.max(col.start, token.start);
        const score =
          overlap > 0 ? overlap : -Math.abs((col.start + col.end) / 2 - (token.start + token.end) / 2);
        if (score > bestScore) {
          bestScore = score;
          best = c;
        }
      });
      cells[best] = cells[best] ? `${cells[best]} ${token.text}` : token.text;
    }
    return { row: i + 1, cells };
  });
}

/** Reads a statement file (CSV or XLSX by its first bytes) or pasted text into rows of cells. */
export async function readStatement(
  input: { file: Buffer } | { text: string },
  headerRow: number,
): Promise<ReadResult> {
  if ('text' in input) {
    if (Buffer.byteLength(input.text, 'utf8') > maxStatementBytes) return tooLarge;
    return { ok: true, rows: readPasted(input.text, headerRow) };
  }
  const buf = input.file;
  if (buf.length > maxStatementBytes) return tooLarge;
  if (buf.length >= 4 && buf.readUInt32LE(0) === 0x04034b50) return readXlsx(buf);
  if (buf.length >= 8 && buf.readUInt32BE(0) === 0xd0cf11e0 && buf.readUInt32BE(4) === 0xa1b11ae1)
    return { ok: false, code: 'xls' };
  if (buf.includes(0)) return { ok: false, code: 'unreadable' };
  try {
    return { ok: true, rows: readCsv(decodeText(buf)) };
  } catch {
    return { ok: false, code: 'unreadable' };
  }
}
