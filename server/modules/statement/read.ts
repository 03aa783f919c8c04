/**
 * A bank statement's cells, from a file (CSV or XLSX, told apart by content: an XLSX is a zip) or from
 * text pasted from a bank's web page (tab-separated, or columns lined up with spaces). Only reading:
 * what the cells mean is `parse.ts`'s; both run in the statement worker (workerPool.ts). Limits
 * (docs/STATEMENTS.md) are checked while reading, so a file past one stops there: its size before
 * decoding; lines, cells and a cell's length row by row as they are read; an XLSX's zip directory before
 * anything inflates, then each part as it inflates. A reader of another format hands its rows to the
 * same `RowKeeper`.
 */
import { Readable } from 'node:stream';
import type ExcelJS from 'exceljs';
import Papa from 'papaparse';
import yauzl from 'yauzl';

/** What an upload or a paste may weigh: a year of a busy account's statement as CSV is a few MB. */
export const maxStatementBytes = 10 * 1024 * 1024;
/** Lines below the header row. */
export const maxStatementRows = 200_000;
/** Cells a row may hold (a bank writes fewer than twenty columns); empty ones past it are dropped. */
export const maxStatementColumns = 100;
/** Characters a cell may hold: Excel's own limit, so no spreadsheet a bank writes passes it. */
export const maxCellLength = 32_767;
/** What an XLSX may unpack to, all parts together, and how many parts its zip may list. */
export const maxXlsxUnpacked = 50 * 1024 * 1024;
export const maxXlsxEntries = 200;

/** Rows searched for the header: banks put a dozen or more lines of account details above the table. */
export const headerSearchRows = 60;

/** How the statement came: a file's format told by its content, or pasted text. */
export type StatementFormat = 'csv' | 'xlsx' | 'xls' | 'text' | 'mt940' | 'camt053';

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
  | { code: 'tooManyRows'; params: { max: number } }
  | { code: 'tooWide'; params: { row: number; max: number } }
  | { code: 'cellTooLong'; params: { row: number; max: number } }
  | { code: 'unreadable' };

/**
 * The rows parse.ts reads: every non-blank row, and blank ones among the first rows or down to the
 * header row (where it looks for the header); `lastRow` is the last row the file has, blank or not.
 */
export type ReadResult =
  | { ok: true; format: StatementFormat; rows: SheetRow[]; lastRow: number }
  | ({ ok: false } & ReadRefusal);

const mb = (bytes: number) => bytes / (1024 * 1024);
const unpacked = {
  code: 'unpacked',
  params: { max: mb(maxXlsxUnpacked), entries: maxXlsxEntries },
} as const;

/** Thrown from inside a reader to stop it at the first limit passed. */
class Refused {
  constructor(readonly refusal: ReadRefusal) {}
}

/** Takes rows as a reader reads them, checks the limits on each and keeps what parse.ts reads. */
class RowKeeper {
  readonly rows: SheetRow[] = [];
  lastRow = 0;
  private lines = 0;

  /** `headerRow` 0: not known yet (detection looks for it among the first rows). */
  constructor(readonly headerRow: number) {}

  /** Forgets what was read (the file is read again another way). */
  reset(): void {
    this.rows.length = 0;
    this.lastRow = 0;
    this.lines = 0;
  }

  add(row: number, cells: Cell[]): void {
    if (cells.length > maxStatementColumns) {
      if (cells.slice(maxStatementColumns).some((c) => c !== ''))
        throw new Refused({ code: 'tooWide', params: { row, max: maxStatementColumns } });
      cells.length = maxStatementColumns;
    }
    let blank = true;
    for (const c of cells) {
      if (typeof c !== 'string') blank = false;
      else if (c !== '') {
        blank = false;
        if (c.length > maxCellLength)
          throw new Refused({ code: 'cellTooLong', params: { row, max: maxCellLength } });
      }
    }
    this.lastRow = row;
    // Header not known yet: the title rows above it count too, so they are allowed for.
    const most = maxStatementRows + (this.headerRow ? 0 : headerSearchRows);
    if (!blank && row > this.headerRow && ++this.lines > most)
      throw new Refused({ code: 'tooManyRows', params: { max: maxStatementRows } });
    if (!blank || row <= headerSearchRows || row <= this.headerRow) this.rows.push({ row, cells });
  }
}

/** UTF-8 (with or without BOM); bytes that are not UTF-8 are read as Windows-1252 (older exports). */
export function decodeText(buf: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buf);
  } catch {
    return new TextDecoder('windows-1252').decode(buf);
  }
}

/** A quote left open or text after a closing quote: the file is read again line by line. */
class BrokenQuotes {}

/**
 * The delimiter: a tab when the first lines split into more cells by tabs than by commas (SBI's "Excel"
 * download is tab-separated text), else a comma.
 */
function delimiterOf(body: string): ',' | '\t' {
  let commas = 0;
  let tabs = 0;
  let n = 0;
  for (const line of linesOf(body)) {
    commas = Math.max(commas, line.split(',').length);
    tabs = Math.max(tabs, line.split('\t').length);
    if (++n >= headerSearchRows) break;
  }
  return tabs > commas ? '\t' : ',';
}

/**
 * RFC 4180 records (comma- or tab-separated), a quote inside an unquoted field kept as written. One line
 * break at the end ends the last record, it opens none. A quote left open or text after a closing quote
 * (Axis Bank's disclaimer footer opens a quote it never closes) reads the file again a line at a time,
 * each line a record whose quotes close at its end: a transaction is one line, and a footer's broken
 * text is then one skipped row instead of swallowing the file.
 */
function readCsv(text: string, keep: RowKeeper): void {
  const unmarked = text.replace(/^\uFEFF/, '');
  const end = unmarked.endsWith('\r\n') ? 2 : unmarked.endsWith('\n') || unmarked.endsWith('\r') ? 1 : 0;
  const body = unmarked.slice(0, unmarked.length - end);
  if (body === '') {
    if (unmarked !== '') keep.add(1, ['']);
    return;
  }
  const delimiter = delimiterOf(body);
  try {
    readRecords(body, delimiter, keep);
  } catch (err) {
    if (!(err instanceof BrokenQuotes)) throw err;
    keep.reset();
    let row = 0;
    for (const line of linesOf(body)) {
      const [cells] = Papa.parse<string[]>(line, { delimiter, quoteChar: '"', escapeChar: '"' }).data;
      keep.add(
        ++row,
        (cells ?? ['']).map((c) => c.trim()),
      );
    }
  }
}

function readRecords(body: string, delimiter: string, keep: RowKeeper): void {
  let row = 0;
  let failed: unknown;
  Papa.parse<string[]>(body, {
    delimiter,
    quoteChar: '"',
    escapeChar: '"',
    step(result, parser) {
      try {
        if (result.errors.length) throw new BrokenQuotes();
        keep.add(
          ++row,
          result.data.map((c) => c.trim()),
        );
      } catch (err) {
        failed = err;
        parser.abort();
      }
    },
  });
  if (failed) throw failed;
}

/** The lines of a text, whatever its line breaks, one at a time (a 10 MB paste is never split whole). */
function* linesOf(text: string): Generator<string> {
  const breaks = /\r\n|\r|\n/g;
  let start = 0;
  for (let m = breaks.exec(text); m; m = breaks.exec(text)) {
    yield text.slice(start, m.index);
    start = m.index + m[0].length;
  }
  yield text.slice(start);
}

/** Runs of text separated by at most one blank, with where each starts and ends. */
const spans = (line: string) =>
  [...line.matchAll(/\S+(?: \S+)*/g)].map((m) => ({
    text: m[0],
    start: m.index,
    end: m.index + m[0].length,
  }));

/**
 * Lines copied from a web page: tab-separated when any line holds a tab (a copied HTML table), else
 * columns lined up with spaces, cut where the header row's names stand (a value belongs to the header
 * it overlaps most, so a right-aligned amount or an empty column lands where it should), else CSV.
 */
function readPasted(text: string, keep: RowKeeper): void {
  const body = text.replace(/^\uFEFF/, '');
  if (body.includes('\t')) {
    let row = 0;
    for (const line of linesOf(body))
      keep.add(
        ++row,
        line.split('\t').map((c) => c.trim()),
      );
    return;
  }
  // The header's line: the mapping's, else (detection) the first lined-up line that names a date.
  let header: string | undefined;
  let n = 0;
  for (const line of linesOf(body)) {
    n++;
    if (keep.headerRow ? n === keep.headerRow : /\S {2,}\S/.test(line) && /date|日期/i.test(line)) {
      header = line;
      break;
    }
    if (n >= Math.max(keep.headerRow, headerSearchRows)) break;
  }
  if (header === undefined || !/\S {2,}\S/.test(header)) {
    readCsv(text, keep);
    return;
  }
  const columns = spans(header);
  // Each value is weighed against every column: a header of thousands of names would be quadratic.
  if (columns.length > maxStatementColumns)
    throw new Refused({ code: 'tooWide', params: { row: n, max: maxStatementColumns } });
  let row = 0;
  for (const line of linesOf(body)) {
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
    keep.add(++row, cells);
  }
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** A number format showing a date (exceljs's test: a date letter outside quotes and brackets). */
const isDateFormat = (format: string | undefined) =>
  !!format && /[ymdhMsb]/.test(format.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));

/** A cell as the text a person sees; numbers in their shortest form (never float noise), dates as days. */
function xlsxCell(cell: ExcelJS.Cell, date1904: boolean): Cell {
  const v = cell.value;
  if (v === null || v === undefined) return '';
  // The streaming reader leaves a formula's result a serial where a date format shows a day.
  if (typeof v === 'object' && 'formula' in v && typeof v.result === 'number' && isDateFormat(cell.numFmt))
    return xlsxCell(
      {
        value: new Date(Math.round((v.result - 25569 + (date1904 ? 1462 : 0)) * 86_400_000)),
      } as ExcelJS.Cell,
      date1904,
    );
  // exceljs gives a date cell as the instant of its serial read as UTC: the day is its UTC day.
  if (v instanceof Date)
    return Number.isNaN(v.getTime())
      ? ''
      : { day: `${v.getUTCFullYear()}-${pad2(v.getUTCMonth() + 1)}-${pad2(v.getUTCDate())}` };
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'object') {
    if ('result' in v && v.result !== undefined && v.result !== null) {
      if (v.result instanceof Date) return xlsxCell({ value: v.result } as ExcelJS.Cell, date1904);
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

/**
 * exceljs's streaming reader fed part by part. Its own `parse()` walks the zip's local headers in file
 * order (entries the directory does not list included) and spools a sheet met before the shared strings
 * to a temporary file; these are the steps it takes for each part, which we call in the order we need.
 */
interface XlsxParts {
  workbookRels?: { Id: string; Target: string }[];
  properties?: { model?: { date1904?: boolean } };
  model?: { sheets?: { rId: string }[] };
  _parseRels(part: Readable): Promise<void>;
  _parseWorkbook(part: Readable): Promise<void>;
  _parseStyles(part: Readable): Promise<void>;
  _parseSharedStrings(part: Readable): AsyncGenerator<unknown>;
  _parseWorksheet(
    chunks: AsyncIterable<Buffer>,
    sheetNo: string,
  ): Iterable<{ value: AsyncIterable<ExcelJS.Row> }>;
}

/**
 * The first sheet's rows. The zip's directory must list at most `maxXlsxEntries` parts stating at most
 * `maxXlsxUnpacked` together, and a part inflating past what it states is refused as it inflates, so
 * nothing ever inflates past the limit; rows are read one by one from the sheet as it inflates.
 */
async function readXlsx(buf: Buffer, keep: RowKeeper): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(buf, { lazyEntries: true, validateEntrySizes: false });
  } catch {
    throw new Refused({ code: 'unreadable' });
  }
  if (zip.entryCount > maxXlsxEntries) throw new Refused(unpacked);
  const parts = new Map<string, yauzl.Entry>();
  let stated = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      stated += entry.uncompressedSize;
      parts.set(entry.fileName.replace(/^\//, ''), entry);
    }
  } catch {
    throw new Refused({ code: 'unreadable' });
  }
  if (stated > maxXlsxUnpacked) throw new Refused(unpacked);

  async function* inflated(entry: yauzl.Entry): AsyncGenerator<Buffer> {
    let stream: Readable;
    try {
      stream = await zip.openReadStreamPromise(entry);
    } catch {
      throw new Refused({ code: 'unreadable' });
    }
    let length = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        length += chunk.length;
        if (length > entry.uncompressedSize) throw new Refused(unpacked);
        yield chunk;
      }
    } catch (err) {
      throw err instanceof Refused ? err : new Refused({ code: 'unreadable' });
    } finally {
      stream.destroy();
    }
  }
  const part = (name: string) => {
    const entry = parts.get(name);
    return entry && Readable.from(inflated(entry));
  };

  // Loaded for an XLSX only: exceljs is half a second of a cold worker's start, a paste needs none of it.
  const { default: excel } = await import('exceljs');
  const book = new excel.stream.xlsx.WorkbookReader(Readable.from([]), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  }) as unknown as XlsxParts;
  const rels = part('xl/_rels/workbook.xml.rels');
  const workbook = part('xl/workbook.xml');
  if (!rels || !workbook) throw new Refused({ code: 'unreadable' });
  await book._parseRels(rels);
  await book._parseWorkbook(workbook);
  const styles = part('xl/styles.xml');
  if (styles) await book._parseStyles(styles);
  const strings = part('xl/sharedStrings.xml');
  // Caching, it yields nothing: one step reads the whole part.
  if (strings) await book._parseSharedStrings(strings).next();

  // The first sheet in the workbook's order (as exceljs's `worksheets[0]`), wherever its part lies.
  const first = book.model?.sheets?.[0];
  const target = book.workbookRels?.find((r) => r.Id === first?.rId)?.Target;
  if (!target) return;
  const name = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
  const entry = parts.get(name);
  if (!entry) throw new Refused({ code: 'unreadable' });
  const date1904 = book.properties?.model?.date1904 === true;
  for (const { value: sheet } of book._parseWorksheet(inflated(entry), /(\d+)\.xml$/.exec(name)?.[1] ?? ''))
    for await (const row of sheet) {
      if (!row.hasValues) continue;
      const cells: Cell[] = [];
      for (let c = 1; c <= row.cellCount; c++) cells.push(xlsxCell(row.getCell(c), date1904));
      keep.add(row.number, cells);
    }
}

/** An Excel 97–2003 workbook (OLE2 compound file, BIFF8): ICICI's and SBI's retail downloads. */
const isXls = (buf: Buffer) =>
  buf.length >= 8 && buf.readUInt32BE(0) === 0xd0cf11e0 && buf.readUInt32BE(4) === 0xa1b11ae1;

/**
 * The first sheet of a legacy `.xls`, through SheetJS (its npm mirror `@e965/xlsx`, loaded for an `.xls`
 * only). The file is at most 10 MB and read whole in the worker; rows past the limit are not built
 * (`sheetRows`), and a sheet cut there is refused like any other over the limit. A date cell (a number
 * in a date format) gives its day; a number reads as its shortest decimal, as in an XLSX.
 */
async function readXls(buf: Buffer, keep: RowKeeper): Promise<void> {
  const XLSX = await import('@e965/xlsx');
  const most = maxStatementRows + headerSearchRows + Math.max(keep.headerRow, 1);
  let book: import('@e965/xlsx').WorkBook;
  try {
    book = XLSX.read(buf, { type: 'buffer', dense: true, sheetRows: most + 1, cellHTML: false });
  } catch {
    throw new Refused({ code: 'unreadable' });
  }
  const sheet = book.Sheets[book.SheetNames[0] ?? ''];
  if (!sheet) throw new Refused({ code: 'unreadable' });
  if (sheet['!fullref'] && XLSX.utils.decode_range(sheet['!fullref']).e.r >= most)
    throw new Refused({ code: 'tooManyRows', params: { max: maxStatementRows } });
  const date1904 = book.Workbook?.WBProps?.date1904 === true;
  const data = (sheet['!data'] ?? []) as (import('@e965/xlsx').CellObject | undefined)[][];
  data.forEach((cells, r) => {
    if (!cells) return;
    const row: Cell[] = [];
    for (let c = 0; c < cells.length; c++) {
      const cell = cells[c];
      if (!cell || cell.v === undefined || cell.t === 'e' || cell.t === 'z') row.push('');
      else if (cell.t === 'n' && typeof cell.v === 'number' && cell.z && XLSX.SSF.is_date(cell.z)) {
        const d = XLSX.SSF.parse_date_code(cell.v, { date1904 }) as { y: number; m: number; d: number };
        row.push({ day: `${d.y}-${pad2(d.m)}-${pad2(d.d)}` });
      } else if (cell.t === 'd' && cell.v instanceof Date)
        row.push({ day: cell.v.toISOString().slice(0, 10) });
      else row.push(String(cell.v).trim());
    }
    while (row.length && row.at(-1) === '') row.pop();
    if (row.length) keep.add(r + 1, row);
  });
}

/** The refusal's figures when the input is over `maxStatementBytes` (told by its length alone), else null. */
export function tooLarge(input: { file: Buffer } | { text: string }): { max: number } | null {
  const bytes = 'text' in input ? Buffer.byteLength(input.text, 'utf8') : input.file.length;
  return bytes > maxStatementBytes ? { max: mb(maxStatementBytes) } : null;
}

/**
 * Reads a statement file (told by its first bytes: a zip is an XLSX, an OLE2 file an `.xls`, anything else
 * text) or pasted text into rows of cells. `headerRow` null: not known (detection finds it).
 */
export async function readStatement(
  input: { file: Buffer } | { text: string },
  headerRow: number | null,
): Promise<ReadResult> {
  const large = tooLarge(input);
  if (large) return { ok: false, code: 'tooLarge', params: large };
  const keep = new RowKeeper(headerRow ?? 0);
  let format: StatementFormat;
  try {
    if ('text' in input) {
      format = 'text';
      readPasted(input.text, keep);
    } else {
      const buf = input.file;
      if (buf.length >= 4 && buf.readUInt32LE(0) === 0x04034b50) {
        format = 'xlsx';
        await readXlsx(buf, keep);
      } else if (isXls(buf)) {
        format = 'xls';
        await readXls(buf, keep);
      } else if (buf.includes(0)) return { ok: false, code: 'unreadable' };
      else {
        format = 'csv';
        readCsv(decodeText(buf), keep);
      }
    }
  } catch (err) {
    if (err instanceof Refused) return { ok: false, ...err.refusal };
    throw err;
  }
  return { ok: true, format, rows: keep.rows, lastRow: keep.lastRow };
}
