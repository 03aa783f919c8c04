/**
 * A statement's layout read from the file itself (docs/STATEMENTS.md "Detection"): where the table's
 * header is, which column is which (by the names Indian banks write, compared loosely), the date form
 * that reads the dates, the bank where the header or the title block says it, and the UTR pattern. What it
 * finds is an ordinary mapping: the import answers it and the person may correct and save it.
 */
import type { StatementMapping } from '../../../contract/statementMapping.ts';
import { statementPresets } from './presets.ts';
import { type Cell, headerSearchRows, type SheetRow } from './read.ts';

export { headerSearchRows };

const cellText = (cell: Cell | undefined) =>
  cell === undefined ? '' : typeof cell === 'string' ? cell : cell.day;

/**
 * A header name as compared: lower case, the currency in brackets dropped (`(INR )`, `(₹)`, `in Rs.`),
 * anything not a letter or digit made one blank: `Withdrawal Amount (INR )` and `withdrawal amount` meet.
 */
export function looseName(name: string): string {
  return name
    .toLowerCase()
    .replace(/\(\s*(?:inr|rs\.?|₹)\s*\)|\bin\s+(?:inr|rs\.?)(?=\s|$)|₹/g, ' ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

type Role = 'date' | 'narration' | 'reference' | 'debit' | 'credit' | 'amount' | 'direction' | 'balance';

/** Names by role, most specific first (a transaction date before a value date). Compared loosely. */
const names: Record<Role, string[]> = {
  date: [
    'txn date',
    'transaction date',
    'tran date',
    'trans date',
    'date',
    'txn posted date',
    'transaction posted date',
    'posting date',
    'post date',
    'booking date',
    'value date',
    'value dt',
    '日期',
    '交易日期',
  ],
  narration: [
    'narration',
    'description',
    'particulars',
    'transaction remarks',
    'remarks',
    'transaction details',
    'transaction description',
    'transaction particulars',
    'details',
    'narrative',
    '摘要',
    '说明',
  ],
  reference: [
    'chq ref no',
    'chq ref number',
    'ref no cheque no',
    'cheque no ref no',
    'chq no ref no',
    'reference no',
    'reference number',
    'ref no',
    'reference',
    'utr',
    'utr no',
    'utr number',
    'cheque no',
    'cheque number',
    'chq no',
    'chqno',
    'chq',
    'instrument no',
    'transaction id',
    'tran id',
    '参考号',
  ],
  debit: [
    'withdrawal amt',
    'withdrawal amount',
    'withdrawals',
    'withdrawal',
    'withdrawal dr',
    'debit',
    'debit amount',
    'debits',
    'debit dr',
    'dr',
    'dr amount',
    '支出',
    '借方',
  ],
  credit: [
    'deposit amt',
    'deposit amount',
    'deposits',
    'deposit',
    'deposit cr',
    'credit',
    'credit amount',
    'credits',
    'credit cr',
    'cr',
    'cr amount',
    '收入',
    '贷方',
  ],
  amount: ['amount', 'transaction amount', 'txn amount', 'amt', '金额'],
  direction: [
    'dr cr',
    'cr dr',
    'debit credit',
    'credit debit',
    'd c',
    'c d',
    'type',
    'txn type',
    'transaction type',
  ],
  balance: [
    'closing balance',
    'balance',
    'running balance',
    'available balance',
    'closing bal',
    'bal',
    'balance amount',
    '余额',
  ],
};

/** What a header cell may say when no name above is it exactly (a bank's own spelling). */
const words: [Role, RegExp][] = [
  ['balance', /\bbalance\b/],
  ['debit', /\b(?:withdrawal|debit)s?\b/],
  ['credit', /\b(?:deposit|credit)s?\b/],
  ['narration', /\b(?:narration|description|particulars|remarks)\b/],
  ['reference', /\b(?:ref|reference|chq|cheque|utr)\b/],
  ['date', /\bdate\b/],
];

/** The columns a header row names, by role: the first cell of each (exact names before words). */
function rolesOf(cells: readonly Cell[]): Map<Role, string> {
  const loose = cells.map((c) => looseName(cellText(c)));
  const found = new Map<Role, string>();
  const taken = new Set<number>();
  const take = (role: Role, i: number) => {
    found.set(role, cellText(cells[i]).trim());
    taken.add(i);
  };
  for (const role of Object.keys(names) as Role[])
    for (const name of names[role]) {
      const i = loose.findIndex((l, j) => l === name && !taken.has(j));
      if (i >= 0) {
        take(role, i);
        break;
      }
    }
  for (const [role, re] of words) {
    if (found.has(role)) continue;
    const i = loose.findIndex((l, j) => re.test(l) && !taken.has(j));
    if (i >= 0) take(role, i);
  }
  return found;
}

const isHeader = (roles: Map<Role, string>) =>
  roles.has('date') &&
  roles.has('narration') &&
  (roles.has('debit') || roles.has('credit') || roles.has('amount'));

/** Date forms tried, day first (Indian banks') before month first. */
const dateForms = [
  'd/M/yyyy',
  'd/M/yy',
  'd-M-yyyy',
  'd-M-yy',
  'd.M.yyyy',
  'd.M.yy',
  'd-MMM-yyyy',
  'd-MMM-yy',
  'd MMM yyyy',
  'd MMM yy',
  'd/MMM/yyyy',
  'd/MMM/yy',
  'd MMM, yyyy',
  'MMM d, yyyy',
  'yyyy-M-d',
  'yyyy/M/d',
  'M/d/yyyy',
  'M/d/yy',
];

/** The same form with two-digit days and months (`dd/MM/yyyy`), which is how a person writes it. */
const padded = (form: string) => form.replace(/\bd\b/, 'dd').replace(/\bM\b/, 'MM');

/**
 * The form that reads the most of `cells` (day first on a tie), written padded when that reads as many.
 * Null when none reads any of them (or there are none: XLSX dates need no form).
 */
export function detectDateForm(
  cells: readonly string[],
  parse: (cell: string, form: string) => string | null,
): string | null {
  const sample = cells.filter((c) => /\d/.test(c)).slice(0, 500);
  let best: string | null = null;
  let bestCount = 0;
  for (const form of dateForms) {
    const n = sample.filter((c) => parse(c, form) !== null).length;
    if (n > bestCount) {
      best = form;
      bestCount = n;
    }
  }
  if (best === null) return null;
  const tidy = padded(best);
  return sample.filter((c) => parse(c, tidy) !== null).length === bestCount ? tidy : best;
}

/**
 * A UTR in any common Indian narration: the first twelve-digit number standing alone after UPI or IMPS
 * (the RRN a payer quotes), or after NEFT or RTGS the bank's UTR (four letters of the sender's IFSC, a
 * letter or digit, then ten digits or more).
 */
export const anyBankUtrPattern =
  '(?:\\b(?:UPI|IMPS)\\b.*?(?<![A-Za-z0-9])(?=\\d{12}(?![A-Za-z0-9]))|\\b(?:NEFT|RTGS)\\b.*?(?<![A-Za-z0-9])(?=[A-Za-z]{4}[A-Za-z0-9]\\d{10,17}(?![A-Za-z0-9])))(\\d{12}|[A-Za-z]{4}[A-Za-z0-9]\\d{10,17})';

/** Words of a title block that name the bank. */
const bankWords: [string, RegExp][] = [
  ['hdfc', /\bhdfc\s*bank\b/i],
  ['icici', /\bicici\s*bank\b/i],
  ['sbi', /\bstate\s+bank\s+of\s+india\b|\bsbi\b/i],
  ['axis', /\baxis\s*bank\b/i],
  ['kotak', /\bkotak\b/i],
];

export interface Detected {
  mapping: StatementMapping & { headerRow: number };
  /** A preset's id when the header or the title block says the bank; else null. */
  bank: string | null;
}

/** The header row: the first of the first rows that names a date, a narration and an amount. */
export function findHeaderRow(rows: readonly SheetRow[]): SheetRow | null {
  for (const r of rows) {
    if (r.row > headerSearchRows) return null;
    if (isHeader(rolesOf(r.cells))) return r;
  }
  return null;
}

/**
 * A mapping read from the file's first rows; `dateCells` are the date column's cells below the header
 * (the caller knows them once the header is found). Null when no row looks like a transaction table's header.
 */
export function detectLayout(rows: readonly SheetRow[]): Detected | null {
  const header = findHeaderRow(rows);
  if (!header) return null;
  const roles = rolesOf(header.cells);
  const amount = roles.has('debit') || roles.has('credit') ? {} : { amountColumn: roles.get('amount')! };
  const mapping: StatementMapping & { headerRow: number } = {
    headerRow: header.row,
    dateColumn: roles.get('date')!,
    narrationColumn: roles.get('narration')!,
    ...(roles.has('reference') ? { referenceColumn: roles.get('reference')! } : {}),
    ...(roles.has('debit') ? { debitColumn: roles.get('debit')! } : {}),
    ...(roles.has('credit') ? { creditColumn: roles.get('credit')! } : {}),
    ...amount,
    ...('amountColumn' in amount && roles.has('direction')
      ? { directionColumn: roles.get('direction')! }
      : {}),
    ...(roles.has('balance') ? { balanceColumn: roles.get('balance')! } : {}),
  };
  const bank = bankOf(rows, header);
  const preset = statementPresets.find((p) => p.id === bank);
  mapping.utrPattern = preset?.mapping.utrPattern ?? anyBankUtrPattern;
  return { mapping, bank };
}

/** The bank whose preset names every column of this header, else the one the title block names. */
function bankOf(rows: readonly SheetRow[], header: SheetRow): string | null {
  const have = new Set(header.cells.map((c) => looseName(cellText(c))));
  for (const p of statementPresets) {
    const m = p.mapping;
    const cols = [m.dateColumn, m.narrationColumn, m.referenceColumn, m.debitColumn, m.creditColumn]
      .concat([m.amountColumn, m.directionColumn, m.balanceColumn])
      .filter((c): c is string => !!c);
    if (cols.every((c) => have.has(looseName(c)))) return p.id;
  }
  const title = rows
    .filter((r) => r.row < header.row)
    .flatMap((r) => r.cells.map(cellText))
    .join(' ');
  return bankWords.find(([, re]) => re.test(title))?.[0] ?? null;
}

/** A row that repeats the header's names in the mapped columns (a header printed again on each page). */
export function repeatsHeader(cells: readonly Cell[], header: readonly Cell[], columns: readonly number[]) {
  return columns.every((i) => i >= 0 && looseName(cellText(cells[i])) === looseName(cellText(header[i])));
}
