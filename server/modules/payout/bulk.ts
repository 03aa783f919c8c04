/**
 * Bulk payouts from a CSV or XLSX file: the first row names the columns (English or Chinese), every
 * further non-empty row is one payout. Rows are validated with the contract's own schemas; the caller
 * creates all of them or none.
 */
import { createInflateRaw } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import * as z from 'zod/mini';
import { merchantPayout } from '../../../contract/endpoints/orders.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Lang } from '../../http/i18n.ts';
import { t } from '../../http/i18n.ts';
import { fieldErrors } from '../../http/validation.ts';

export const maxBulkRows = 5000;
/** What an XLSX may unpack to, all its parts together: 5,000 rows take about 1 MB; a bomb, gigabytes. */
export const maxXlsxUnpacked = 20 * 1024 * 1024;

export type BulkField = 'accountName' | 'accountNumber' | 'ifsc' | 'amount' | 'merchantOrderNo';

/** Header spellings per field, compared after `normalise` (case, spaces, punctuation dropped). */
const aliases: Record<BulkField, string[]> = {
  accountName: [
    'accountname',
    'name',
    'beneficiaryname',
    'holdername',
    '账户名',
    '户名',
    '账户名称',
    '开户名',
    '收款人',
    '收款人姓名',
    '姓名',
  ],
  accountNumber: [
    'accountnumber',
    'accountno',
    'account',
    'bankaccount',
    '账号',
    '银行账号',
    '收款账号',
    '卡号',
    '银行卡号',
    '账户号码',
  ],
  ifsc: ['ifsc', 'ifsccode', 'bankcode', 'ifsc代码', '银行代码', '银行编码'],
  amount: ['amount', '金额', '代付金额', '付款金额', '转账金额'],
  merchantOrderNo: ['merchantorderno', 'orderno', 'merchantorder', '商户订单号', '订单号', '商户单号'],
};
const required: BulkField[] = ['accountName', 'accountNumber', 'ifsc', 'amount'];

const normalise = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s_\-.()（）*:：#]/g, '');

export interface BulkError {
  /** The row in the file as a spreadsheet numbers it (the header is row 1); 0 for the whole file. */
  row: number;
  field: string;
  message: string;
}

export interface BulkRow {
  row: number;
  amount: number;
  accountName: string;
  accountNumber: string;
  ifsc: string;
  merchantOrderNo?: string;
}

interface RawRow {
  row: number;
  cells: string[];
}

/** UTF-8 (with or without BOM); a file that is not valid UTF-8 is read as GB18030 (Excel's Chinese CSV). */
function decodeText(buf: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    return new TextDecoder('gb18030').decode(buf);
  }
}

function readCsv(buf: Buffer): RawRow[] {
  const records = parse(decodeText(buf), {
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
    trim: true,
  }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
  return records.map((r) => ({ row: r.info.lines, cells: r.record.map((c) => String(c ?? '')) }));
}

/** A cell as the text a person sees, without Excel's float noise (numbers keep their shortest form). */
function cellText(cell: ExcelJS.Cell): string {
  const v = cell.value;
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    if ('result' in v && v.result !== undefined) return String(v.result);
    if ('richText' in v) return v.richText.map((p) => p.text).join('');
    if ('text' in v) return String(v.text);
  }
  return cell.text ?? '';
}

/** What raw-deflated data inflates to, counted chunk by chunk and nothing kept; `tooBig` past `limit`. */
function inflatedLength(data: Buffer, limit: number): Promise<number | 'tooBig' | 'unreadable'> {
  return new Promise((resolve) => {
    const stream = createInflateRaw();
    let length = 0;
    stream.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) {
        resolve('tooBig');
        stream.destroy();
      }
    });
    stream.on('error', () => resolve('unreadable'));
    stream.on('end', () => resolve(length));
    stream.end(data);
  });
}

/**
 * Measures what a zip unpacks to before exceljs opens it, since exceljs inflates every part whole: the
 * sizes its central directory states must add up to at most `cap`, and so must what the entries
 * actually inflate to (a stated size may lie), each inflated as a stream that is counted and dropped,
 * stopped as soon as it passes what is left of `cap`. Every directory entry is counted, so entries sharing their data (an overlapping bomb) are
 * counted each time. Answers `tooBig`, `unreadable` (not a zip exceljs could read) or null.
 */
export async function unpackedSizeCheck(zip: Buffer, cap: number): Promise<'tooBig' | 'unreadable' | null> {
  const endSig = 0x06054b50;
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === endSig) {
      end = i;
      break;
    }
  }
  if (end < 0) return 'unreadable';
  const entries = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  // ZIP64 (more than 65,535 entries or 4 GB): no workbook of bulk payouts needs it.
  if (entries === 0xffff || at === 0xffffffff) return 'tooBig';
  const parts: { method: number; packed: number; offset: number }[] = [];
  let stated = 0;
  for (let n = 0; n < entries; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) return 'unreadable';
    stated += zip.readUInt32LE(at + 24);
    if (stated > cap) return 'tooBig';
    parts.push({
      method: zip.readUInt16LE(at + 10),
      packed: zip.readUInt32LE(at + 20),
      offset: zip.readUInt32LE(at + 42),
    });
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  let unpacked = 0;
  for (const part of parts) {
    const local = part.offset;
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== 0x04034b50) return 'unreadable';
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + part.packed);
    if (data.length !== part.packed) return 'unreadable';
    const left = cap - unpacked;
    if (part.method === 0) unpacked += data.length;
    else if (part.method === 8) {
      const length = await inflatedLength(data, left);
      if (typeof length !== 'number') return length;
      unpacked += length;
    } else return 'unreadable';
    if (unpacked > cap) return 'tooBig';
  }
  return null;
}

async function readXlsx(buf: Buffer): Promise<RawRow[] | 'tooMany' | 'tooBig'> {
  const size = await unpackedSizeCheck(buf, maxXlsxUnpacked);
  if (size === 'tooBig') return 'tooBig';
  if (size === 'unreadable') throw new Error('not a zip');
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(buf as unknown as ArrayBuffer);
  const ws = wb.worksheets[0];
  if (!ws) return [];
  if (ws.actualRowCount > maxBulkRows + 1) return 'tooMany';
  const out: RawRow[] = [];
  ws.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: string[] = [];
    for (let c = 1; c <= row.cellCount; c++) cells.push(cellText(row.getCell(c)).trim());
    if (cells.some((c) => c !== '')) out.push({ row: rowNumber, cells });
  });
  return out;
}

/** The schemas of a console single transfer, so a bulk row is held to exactly the same rules. */
const shape = merchantPayout.create.input.shape;
const rowSchemas = {
  accountName: shape.accountName,
  accountNumber: shape.accountNumber,
  ifsc: shape.ifsc,
  amount: shape.amount,
  merchantOrderNo: shape.merchantOrderNo,
} as const;

/**
 * Reads the file and validates every row; answers the rows and the errors (in the caller's language).
 * Business checks that need the database (limits, balance, numbers already used) are the caller's.
 */
export async function readBulkFile(
  filename: string,
  data: Buffer,
  lang: Lang,
  /** The merchant's amount limits (minor units), checked on every row whose amount reads. */
  limits?: { min: number; max: number },
): Promise<{ rows: BulkRow[]; errors: BulkError[]; rowCount: number }> {
  const fileError = (key: string, params?: Record<string, unknown>) => ({
    rowCount: 0,
    rows: [],
    errors: [{ row: 0, field: 'file', message: t(lang, key, params) }],
  });
  let raw: RawRow[];
  try {
    if (/\.xlsx$/i.test(filename)) {
      const read = await readXlsx(data);
      if (read === 'tooMany') return fileError('validation.bulkRows', { max: maxBulkRows });
      if (read === 'tooBig')
        return fileError('validation.bulkUnpacked', { max: maxXlsxUnpacked / (1024 * 1024) });
      raw = read;
    } else raw = readCsv(data);
  } catch {
    return fileError('validation.bulkUnreadable');
  }
  const [header, ...body] = raw;
  if (!header || !body.length) return fileError('validation.bulkEmpty');
  if (body.length > maxBulkRows) return fileError('validation.bulkRows', { max: maxBulkRows });

  const columns = new Map<BulkField, number>();
  header.cells.forEach((name, i) => {
    const n = normalise(name);
    for (const [field, names] of Object.entries(aliases) as [BulkField, string[]][]) {
      if (!columns.has(field) && names.includes(n)) columns.set(field, i);
    }
  });
  const missing = required.filter((f) => !columns.has(f));
  if (missing.length) {
    return {
      rowCount: body.length,
      rows: [],
      errors: missing.map((f) => ({
        row: header.row,
        field: f,
        message: t(lang, 'validation.bulkColumn', { column: f }),
      })),
    };
  }

  const rows: BulkRow[] = [];
  const errors: BulkError[] = [];
  const seen = new Map<string, number>();
  for (const r of body) {
    const cell = (f: BulkField) => {
      const i = columns.get(f);
      return i === undefined ? '' : (r.cells[i] ?? '').trim();
    };
    const value: Record<string, unknown> = {};
    let ok = true;
    for (const field of Object.keys(rowSchemas) as BulkField[]) {
      const text = cell(field);
      if (field === 'merchantOrderNo' && text === '') continue;
      const parsed = z.safeParse(rowSchemas[field] as z.ZodMiniType, text);
      if (!parsed.success) {
        ok = false;
        for (const e of fieldErrors(parsed.error.issues, lang).slice(0, 1))
          errors.push({ row: r.row, field, message: e.message });
        continue;
      }
      value[field] = parsed.data;
      if (
        field === 'amount' &&
        limits &&
        ((parsed.data as number) < limits.min || (parsed.data as number) > limits.max)
      ) {
        ok = false;
        errors.push({
          row: r.row,
          field,
          message: t(lang, 'validation.amountLimits', {
            min: formatMinor(limits.min),
            max: formatMinor(limits.max),
          }),
        });
      }
    }
    const no = value.merchantOrderNo as string | undefined;
    if (no !== undefined) {
      const first = seen.get(no);
      if (first !== undefined) {
        ok = false;
        errors.push({
          row: r.row,
          field: 'merchantOrderNo',
          message: t(lang, 'validation.bulkRepeated', { row: first }),
        });
      } else seen.set(no, r.row);
    }
    if (ok) rows.push({ row: r.row, ...(value as Omit<BulkRow, 'row'>) });
  }
  return { rows, errors, rowCount: body.length };
}
