/**
 * One cell of a statement read exactly: amounts (string arithmetic, Indian and Western grouping, Dr/Cr),
 * days in a declared form, directions, references. Pure: the parser (sheetLines.ts) and detection use it.
 */
import type { Direction } from './parsed.ts';
import type { Cell } from './read.ts';

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

/** Header names compare trimmed, case and runs of blanks ignored. */
export const headerKey = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
export const text = (cell: Cell | undefined) =>
  cell === undefined ? '' : typeof cell === 'string' ? cell : cell.day;
export const blank = (s: string) => s === '' || /^-+$/.test(s);

/** A reference that says nothing: empty, dashes, `NA`, all zeros. */
export function cleanReference(s: string): string | null {
  const r = s.trim().replace(/\s+/g, ' ');
  if (r === '' || /^[-–/.]*$/.test(r) || /^n\/?a$/i.test(r) || /^0+$/.test(r)) return null;
  return r;
}

/** A direction column's cell: `Dr`, `D`, `Debit`, `Withdrawal` or `Cr`, `C`, `Credit`, `Deposit`. */
export function directionOf(cell: string): Direction | null {
  const c = cell.trim().replace(/\.$/, '').toLowerCase();
  if (/^(?:dr|d|debit|withdrawal)$/.test(c)) return 'debit';
  if (/^(?:cr|c|credit|deposit)$/.test(c)) return 'credit';
  return null;
}

/** What a dated row without an amount says when it is a balance, not a transaction. */
export const balanceWords = /\b(?:opening|closing|balance|b\/f|c\/f|brought\s+forward|carried\s+forward)\b/i;
