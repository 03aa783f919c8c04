/**
 * A bank's feed format (MT940, camt.053: formats/) as statement lines. These files say what each field is,
 * so no mapping is read; they carry the currency, kept on each line. The balance is the statement's
 * (opening and closing), not the line's: a statement whose opening plus its entries is not its closing
 * is a balance gap on its last entry. An entry that does not read is a row error like a CSV row's.
 */
import { looksLikeCamt053, looksLikeMt940, readCamt053, readMt940 } from './formats/feed.ts';
import type { BalanceGap, RowError, StatementLine } from './parse.ts';
import { decodeText, maxStatementBytes, maxStatementRows } from './read.ts';

export type FeedFormat = 'mt940' | 'camt053';

/** The statement's text when it is one of the feed formats (told by content), else null. */
export function feedText(
  input: { file: Buffer } | { text: string },
): { format: FeedFormat; text: string } | null {
  const size = 'text' in input ? Buffer.byteLength(input.text, 'utf8') : input.file.length;
  if (size > maxStatementBytes) return null;
  if ('text' in input) return sniffed(input.text, () => input.text);
  const buf = input.file;
  // A zip (XLSX) or an OLE2 file (XLS) is no feed; binary junk neither.
  if (buf.length >= 4 && (buf.readUInt32LE(0) === 0x04034b50 || buf.readUInt32BE(0) === 0xd0cf11e0))
    return null;
  if (buf.subarray(0, 4096).includes(0)) return null;
  // The readers sniff their first 8 KB: a CSV is not decoded whole twice to learn it is no feed.
  return sniffed(decodeText(buf.subarray(0, sniffBytes)), () => decodeText(buf));
}

/** Bytes decoded to tell a feed: the readers look at their first 8,192 characters. */
const sniffBytes = 16 * 1024;

function sniffed(head: string, whole: () => string): { format: FeedFormat; text: string } | null {
  if (looksLikeMt940(head)) return { format: 'mt940', text: whole() };
  if (looksLikeCamt053(head)) return { format: 'camt053', text: whole() };
  return null;
}

export type FeedLines =
  | {
      ok: true;
      /** Without their UTR and key (parse.ts gives them, as for any statement). */
      lines: StatementLine[];
      errors: RowError[];
      warnings: BalanceGap[];
      /** The accounts the file's statements are of, as the bank names them (IBAN, account number). */
      accounts: string[];
      /** The UTR candidates of each line besides its narration: the bank's reference, then the others. */
      references: (string | null)[][];
    }
  | { ok: false; refusal: 'tooManyRows' | 'unreadable'; detail?: string };

/** Reads a feed file into lines. */
export function feedLines(format: FeedFormat, text: string): FeedLines {
  const read = format === 'mt940' ? readMt940(text) : readCamt053(text);
  if (!read.ok) return { ok: false, refusal: 'unreadable', detail: read.detail };
  const entries = read.statements.reduce((n, s) => n + s.entries.length, 0);
  if (entries > maxStatementRows || read.errors.length > maxStatementRows)
    return { ok: false, refusal: 'tooManyRows' };
  const lines: StatementLine[] = [];
  const references: (string | null)[][] = [];
  const warnings: BalanceGap[] = [];
  for (const s of read.statements) {
    for (const e of s.entries) {
      lines.push({
        row: e.row,
        date: e.date,
        narration: e.narration,
        reference: e.reference,
        direction: e.direction,
        amount: e.amount,
        balance: null,
        currency: e.currency,
        utr: null,
        dedupeKey: '',
      });
      references.push([e.reference, ...e.references]);
    }
    const last = s.entries.at(-1);
    if (s.opening && s.closing && last) {
      const moved = s.entries.reduce((n, e) => n + (e.direction === 'credit' ? e.amount : -e.amount), 0);
      const expected = s.opening.amount + moved;
      if (expected !== s.closing.amount) warnings.push({ row: last.row, expected, found: s.closing.amount });
    }
  }
  const errors: RowError[] = read.errors.map((e) => ({
    row: e.row,
    column: format === 'mt940' ? ':61:' : 'Ntry',
    code: e.code === 'entry' ? 'entry' : e.code,
    key: `statement.row.${e.code === 'entry' ? 'entry' : e.code}Feed`,
    params: { value: e.detail, statement: e.statement },
  }));
  const accounts = [...new Set(read.statements.map((s) => s.account))];
  return { ok: true, lines, errors, warnings, accounts, references };
}
