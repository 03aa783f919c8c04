/**
 * Exports of order lists as CSV or XLSX, streamed in constant memory: rows are read in keyset batches
 * (newest first, never OFFSET), one batch ahead of what is being written, and no further than the client
 * takes (the CSV is a pull stream; the XLSX writer waits on its backlog), so a slow download holds a
 * couple of batches, not the whole set.
 */
import { PassThrough, Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import ExcelJS from 'exceljs';
import { type Lang, t } from '../../http/i18n.ts';

export type ExportFormat = 'csv' | 'xlsx';

/** Where a batch ends (its last row's creation time and id, as the database wrote them): the next starts after it. */
export interface Keyset {
  at: string;
  id: string;
}

export interface Column<Row> {
  /** Locale key of the header, under `export.columns.`. */
  key: string;
  value(row: Row): string | null;
  /**
   * Text (anything but the export's own amounts and times): guarded against spreadsheet formulas in
   * CSV and XLSX, since numbers, names, UTRs and reasons come from merchants, payers and channels.
   */
  text?: boolean;
}

export interface ExportSource<Row> {
  columns: readonly Column<Row>[];
  /** The next batch after `after` (null: the first), at most `limit` rows, with where it ends. */
  batch(after: Keyset | null, limit: number): Promise<{ rows: Row[]; last: Keyset | null }>;
}

export const exportBatchSize = 2_000;
/** One sheet holds at most 1,048,576 rows (Excel's limit): the header and this many orders. */
export const rowsPerSheet = 1_048_575;

export const contentTypes: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, carriage return first) gets a
 * leading apostrophe (OWASP CSV injection). Text only: the export's own amounts (`-12.50`) keep their form.
 */
export const guardFormula = (v: string) => {
  const c = v.charCodeAt(0);
  // = + - @ TAB CR, by code: this runs for every text cell of a million-row export.
  return c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13 ? `'${v}` : v;
};

/** A row's cells for the XLSX writer, text formula-guarded as in CSV. */
function cellsOf<Row>(columns: readonly Column<Row>[], row: Row): (string | null)[] {
  return columns.map((c) => {
    const v = c.value(row);
    return v && c.text ? guardFormula(v) : v;
  });
}

/** A cell that must be quoted in CSV (RFC 4180): it holds the separator, a quote or a line break. */
const needsQuotes = /[",\r\n]/;
const quotes = /"/g;

/** A cell as CSV writes it: quoted, with its quotes doubled, when it holds a comma, a quote or a line break. */
const csvCell = (v: string) => (needsQuotes.test(v) ? `"${v.replace(quotes, '""')}"` : v);

/**
 * One CSV record, CRLF-terminated; null and empty cells write nothing. What csv-stringify 6 writes with
 * `record_delimiter: 'windows'`, byte for byte (`cells.test.ts`), at a quarter of its cost (the largest
 * share of the export's own time at a million rows, bench/RESULTS.md), except that a cell with a lone CR
 * or LF is quoted here as RFC 4180 asks (csv-stringify 6.9 left it bare: a reader saw two records).
 */
export const csvRecord = (cells: readonly (string | null)[]) =>
  `${cells.map((v) => (v ? csvCell(v) : '')).join(',')}\r\n`;

/** A batch as CSV records, free text formula-guarded; each cell goes straight into the text, no array per row. */
function csvRecords<Row>(columns: readonly Column<Row>[], rows: readonly Row[]): string {
  let out = '';
  const last = columns.length - 1;
  for (const row of rows) {
    for (let i = 0; i <= last; i++) {
      const c = columns[i]!;
      let v = c.value(row);
      if (v) {
        if (c.text) v = guardFormula(v);
        out += csvCell(v);
      }
      out += i === last ? '\r\n' : ',';
    }
  }
  return out;
}

export const headersOf = <Row>(columns: readonly Column<Row>[], lang: Lang) =>
  columns.map((c) => t(lang, `export.columns.${c.key}`));

/**
 * Every batch of the source, the first one given (it was read before the answer began). The next batch
 * is asked for before this one is handed on, so the database works while this process writes: at most
 * two batches are held. (Reading several ranges at once, each batch's end found ahead from the index,
 * was measured slower on 2 cores: bench/RESULTS.md, Exports.)
 */
async function* batchesOf<Row>(
  source: ExportSource<Row>,
  first: { rows: Row[]; last: Keyset | null },
  size: number,
): AsyncGenerator<Row[]> {
  let current = first;
  while (current.rows.length) {
    const next = current.rows.length === size && current.last ? source.batch(current.last, size) : null;
    // Handled here too, in case the reader stops before it is awaited.
    next?.catch(() => {});
    yield current.rows;
    if (!next) return;
    current = await next;
  }
}

/** CSV with a UTF-8 byte order mark (so spreadsheet programs read the Chinese headers right), CRLF rows. */
async function* csvChunks<Row>(
  source: ExportSource<Row>,
  first: { rows: Row[]; last: Keyset | null },
  lang: Lang,
  size: number,
): AsyncGenerator<Buffer> {
  yield Buffer.from(`\uFEFF${csvRecord(headersOf(source.columns, lang))}`);
  for await (const rows of batchesOf(source, first, size))
    yield Buffer.from(csvRecords(source.columns, rows));
}

/** Bytes the XLSX writer may hold on the way to the client before the export waits for it. */
export const maxXlsxBacklog = 4 * 1024 * 1024;

type StreamState = { length: number; pipes?: unknown };
type Piped = { _writableState?: StreamState; _readableState?: StreamState };

/**
 * Bytes of a sheet on their way to the client and not taken yet: the sheet's XML in its own buffer
 * (before the zip starts reading it), then in every stream of the zip's pipeline (its compressor, the
 * zip's own output, `out`). exceljs 4.4 hands the XML on without waiting, and the archiver's output
 * buffers whatever its compressor makes, so this is what grows when the client or the compressor is
 * slower than the rows come. Reads the streams' own counters (exceljs's StreamBuf, readable-stream
 * states): `export.test.ts` fails if a new exceljs moves them.
 */
export function xlsxBacklog(sheet: ExcelJS.Worksheet): number {
  const buf = (sheet as unknown as { stream: { buffers?: { length: number }[]; pipes?: Piped[] } }).stream;
  if (!Array.isArray(buf.buffers) || !Array.isArray(buf.pipes))
    throw new Error('exceljs sheet stream without buffers and pipes: check xlsxBacklog against its version');
  let bytes = buf.buffers.reduce((n, b) => n + b.length, 0);
  let next: Piped | undefined = buf.pipes[0];
  for (let hop = 0; next && hop < 10; hop++) {
    bytes += (next._writableState?.length ?? 0) + (next._readableState?.length ?? 0);
    const pipes = next._readableState?.pipes;
    next = (Array.isArray(pipes) ? pipes[0] : pipes) as Piped | undefined;
  }
  return bytes;
}

/**
 * XLSX through exceljs's streaming writer (rows go to the zip as they come; no shared strings, no
 * styles), its zip piped into `out`. After each batch, the next is read only once what is held on the
 * way to the client is under `maxXlsxBacklog`, so a slow client or a slow compressor holds the export
 * back instead of filling memory.
 */
function xlsxStream<Row>(
  source: ExportSource<Row>,
  first: { rows: Row[]; last: Keyset | null },
  lang: Lang,
  size: number,
  onError: (err: unknown) => void,
): Readable {
  const out = new PassThrough({ highWaterMark: 256 * 1024 });
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: false,
    useSharedStrings: false,
  });
  const headers = headersOf(source.columns, lang);
  const sheetName = (n: number) => `${t(lang, 'export.sheet')}${n > 1 ? ` ${n}` : ''}`;
  const run = async () => {
    let sheetNo = 1;
    let sheet = book.addWorksheet(sheetName(sheetNo));
    sheet.addRow(headers).commit();
    let inSheet = 0;
    for await (const rows of batchesOf(source, first, size)) {
      // The client went away (or the answer was never sent): stop reading.
      if (out.destroyed) return;
      for (const r of rows) {
        if (inSheet === rowsPerSheet) {
          sheet.commit();
          sheet = book.addWorksheet(sheetName(++sheetNo));
          sheet.addRow(headers).commit();
          inSheet = 0;
        }
        sheet.addRow(cellsOf(source.columns, r)).commit();
        inSheet++;
      }
      while (xlsxBacklog(sheet) > maxXlsxBacklog && !out.destroyed) await sleep(2);
      if (out.destroyed) return;
    }
    sheet.commit();
    await book.commit();
  };
  run().catch((err) => {
    if (out.destroyed) return;
    onError(err);
    out.destroy(err instanceof Error ? err : new Error(String(err)));
  });
  return out;
}

/**
 * The file as a Node readable: `first` is the first batch, read by the caller before answering, so a
 * failure there still answers the envelope. A failure later ends the download early (`onError` logs it).
 */
export function exportStream<Row>(
  source: ExportSource<Row>,
  first: { rows: Row[]; last: Keyset | null },
  format: ExportFormat,
  lang: Lang,
  onError: (err: unknown) => void,
  size = exportBatchSize,
): Readable {
  if (format === 'xlsx') return xlsxStream(source, first, lang, size, onError);
  const readable = Readable.from(csvChunks(source, first, lang, size), {
    objectMode: false,
    highWaterMark: 1 << 20,
  });
  readable.on('error', onError);
  return readable;
}
