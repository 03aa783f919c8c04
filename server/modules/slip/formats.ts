/**
 * The files a withdrawal slip is written as (docs/SLIPS.md, which has the field tables and samples):
 * a generic CSV for any bank or a spreadsheet, and two Indian banks' bulk NEFT/IMPS/RTGS uploads. Pure
 * functions of their input, so a fixed input gives the same bytes every time (the tests pin them).
 *
 * The banks' files carry only what their portals accept: printable ASCII, no commas, no quotes, so a
 * beneficiary name is cleaned (accents taken off, other characters dropped) and cut to the bank's
 * length; the narration carries our reference, the settlement or payout number.
 */
import type { SlipFormat } from '../../../contract/endpoints/slip.ts';
import { formatMinor } from '../../../contract/money.ts';
import { csvRecord, guardFormula } from '../export/stream.ts';

/** One line to write: a settlement or payout with its beneficiary. */
export interface SlipLineInput {
  objectType: 'settlement' | 'payout';
  /** The settlement or payout number: our reference. */
  objectNo: string;
  /** Minor units. */
  amount: number;
  currency: string;
  beneficiaryName: string;
  accountNumber: string;
  ifsc: string;
}

export interface SlipFileInput {
  slipNo: string;
  /** The business day the slip is written on (`YYYY-MM-DD`): the banks' transaction date. */
  day: string;
  lines: readonly SlipLineInput[];
}

/** What the file says of a line, kept on the line beside the file. */
export interface WrittenLine {
  beneficiaryName: string;
  narration: string;
}

export interface SlipFile {
  fileName: string;
  contentType: string;
  content: string;
  lines: WrittenLine[];
}

/** Why a line cannot go in a format's file: a message key under `validation.`. */
export type LineRefusal = 'slipCurrency' | 'slipName' | 'slipAccount';

interface Layout {
  contentType: string;
  refusal(line: SlipLineInput): LineRefusal | null;
  write(input: SlipFileInput): SlipFile;
}

/** The RBI's RTGS minimum, ₹2,00,000 (minor units): from it on a line goes by RTGS. */
export const rtgsMinimum = 20_000_000;

/** A slip line's number in the banks' references: three digits (a slip has at most 500 lines). */
const lineNo3 = (i: number) => String(i + 1).padStart(3, '0');

/**
 * Text as the banks' upload files take it: letters, digits and single spaces. Accents come off
 * (`é` → `e`, by Unicode decomposition), apostrophes and full stops join what they separate
 * (`O'Brien` → `OBrien`, `S.K.` → `SK`), `&` reads `and`, anything else (commas, quotes, slashes,
 * other scripts) becomes a space.
 */
export function bankText(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/['’.]/g, '')
    .replace(/&/g, ' and ')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim();
}

/** A beneficiary name for a bank's file: cleaned (`bankText`), then cut to `max` characters. */
export function bankName(name: string, max: number): string {
  return bankText(name).slice(0, max).trimEnd();
}

/** `2026-11-15` → `15/11/2026`. */
const ddmmyyyy = (day: string) => `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}`;

/** Our numbers are letters and digits: anything else would break a bank's record, and is our bug. */
function reference(objectNo: string, max: number): string {
  if (!/^[A-Za-z0-9]+$/.test(objectNo) || objectNo.length > max)
    throw new Error(`slip: reference ${objectNo} does not fit a bank narration of ${max}`);
  return objectNo;
}

/** A bank's file must be plain ASCII without separators inside fields: checked once written. */
function asciiRecords(records: readonly (readonly string[])[], header?: string): string {
  let out = header ? `${header}\r\n` : '';
  for (const fields of records) {
    for (const f of fields)
      if (!/^[\x20-\x7e]*$/.test(f) || f.includes(','))
        throw new Error(`slip: a bank field holds a character its file cannot carry: ${JSON.stringify(f)}`);
    out += `${fields.join(',')}\r\n`;
  }
  return out;
}

/** Refusals every bank file shares: rupees only, a name left after cleaning, an account that fits. */
function bankRefusal(line: SlipLineInput, accountMax: number): LineRefusal | null {
  if (line.currency !== 'INR') return 'slipCurrency';
  if (!bankText(line.beneficiaryName)) return 'slipName';
  if (!/^[0-9A-Za-z]+$/.test(line.accountNumber) || line.accountNumber.length > accountMax)
    return 'slipAccount';
  return null;
}

/**
 * The generic CSV (RFC 4180, UTF-8 with a byte order mark so spreadsheets read non-Latin names, CRLF):
 * the beneficiary name as the merchant gave it, formula-guarded as the exports are.
 */
const genericHeader = [
  'Line No',
  'Beneficiary Name',
  'Account Number',
  'IFSC',
  'Amount',
  'Currency',
  'Narration',
  'Our Reference',
];

const genericCsv: Layout = {
  contentType: 'text/csv; charset=utf-8',
  refusal: (line) => (line.beneficiaryName.trim() ? null : 'slipName'),
  write(input) {
    const lines: WrittenLine[] = [];
    let content = `\uFEFF${csvRecord(genericHeader)}`;
    input.lines.forEach((l, i) => {
      const name = l.beneficiaryName.replace(/\s+/g, ' ').trim();
      const narration = `${l.objectType === 'settlement' ? 'Settlement' : 'Payout'} ${l.objectNo}`;
      lines.push({ beneficiaryName: name, narration });
      content += csvRecord([
        String(i + 1),
        guardFormula(name),
        l.accountNumber,
        l.ifsc,
        formatMinor(l.amount),
        l.currency,
        narration,
        l.objectNo,
      ]);
    });
    return { fileName: `${input.slipNo}.csv`, contentType: this.contentType, content, lines };
  },
};

/**
 * HDFC Bank ENet bulk upload (vendor payments): 28 comma-separated fields, no header, CRLF. NEFT (`N`)
 * below the RTGS minimum, RTGS (`R`) from it: ENet's bulk file carries no IMPS.
 */
export const hdfc = { nameMax: 35, accountMax: 25, narrationMax: 30, customerRefMax: 20 } as const;

const hdfcBulk: Layout = {
  contentType: 'text/plain; charset=us-ascii',
  refusal: (line) => bankRefusal(line, hdfc.accountMax),
  write(input) {
    const lines: WrittenLine[] = [];
    const date = ddmmyyyy(input.day);
    const records = input.lines.map((l, i) => {
      const name = bankName(l.beneficiaryName, hdfc.nameMax);
      const narration = reference(l.objectNo, hdfc.narrationMax);
      const customerRef = `${input.slipNo}${lineNo3(i)}`.slice(0, hdfc.customerRefMax);
      lines.push({ beneficiaryName: name, narration });
      return [
        l.amount >= rtgsMinimum ? 'R' : 'N', // 1 transaction type
        '', // 2 beneficiary code (ad hoc beneficiaries have none)
        l.accountNumber, // 3 beneficiary account number
        formatMinor(l.amount), // 4 instrument amount
        name, // 5 beneficiary name
        '', // 6 drawee location (drafts only)
        '', // 7 print location (drafts only)
        '', // 8 beneficiary address 1
        '', // 9 beneficiary address 2
        '', // 10 beneficiary address 3
        '', // 11 beneficiary address 4
        '', // 12 beneficiary address 5
        '', // 13 instruction reference number
        customerRef, // 14 customer reference number (comes back in the reverse file)
        narration, // 15 payment details 1
        '', // 16 payment details 2
        '', // 17 payment details 3
        '', // 18 payment details 4
        '', // 19 payment details 5
        '', // 20 payment details 6
        '', // 21 payment details 7
        '', // 22 cheque number
        date, // 23 transaction date
        '', // 24 MICR number
        l.ifsc, // 25 IFSC
        '', // 26 beneficiary bank name
        '', // 27 beneficiary bank branch name
        '', // 28 beneficiary e-mail
      ];
    });
    return {
      fileName: `${input.slipNo}-HDFC.txt`,
      contentType: this.contentType,
      content: asciiRecords(records),
      lines,
    };
  },
};

/**
 * ICICI Bank CIB bulk payment: a header row and seven comma-separated fields, CRLF. IMPS (`IFC`) below
 * the RTGS minimum, RTGS (`RTG`) from it, with CIB's transaction codes.
 */
export const icici = { nameMax: 35, accountMax: 34, narrationMax: 30, customerRefMax: 20 } as const;

const iciciHeader =
  'Transaction Type,Beneficiary Account No,Beneficiary Name,IFSC,Amount,Remarks,Customer Reference';

const iciciBulk: Layout = {
  contentType: 'text/csv; charset=us-ascii',
  refusal: (line) => bankRefusal(line, icici.accountMax),
  write(input) {
    const lines: WrittenLine[] = [];
    const records = input.lines.map((l, i) => {
      const name = bankName(l.beneficiaryName, icici.nameMax);
      const narration = reference(l.objectNo, icici.narrationMax);
      lines.push({ beneficiaryName: name, narration });
      return [
        l.amount >= rtgsMinimum ? 'RTG' : 'IFC',
        l.accountNumber,
        name,
        l.ifsc,
        formatMinor(l.amount),
        narration,
        `${input.slipNo}${lineNo3(i)}`.slice(0, icici.customerRefMax),
      ];
    });
    return {
      fileName: `${input.slipNo}-ICICI.csv`,
      contentType: this.contentType,
      content: asciiRecords(records, iciciHeader),
      lines,
    };
  },
};

export const slipLayouts: Record<SlipFormat, Layout> = {
  generic_csv: genericCsv,
  hdfc_bulk: hdfcBulk,
  icici_bulk: iciciBulk,
};

/** Writes the slip's file in `format`; every line must have passed the format's `refusal` first. */
export function writeSlipFile(format: SlipFormat, input: SlipFileInput): SlipFile {
  return slipLayouts[format].write(input);
}
