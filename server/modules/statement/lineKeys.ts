/**
 * What makes a read line a line of its account: its UTR, its identity (the key that makes re-importing
 * idempotent), the order the bank listed it in, the gaps in the running balance, the file's totals.
 */
import { createHash } from 'node:crypto';
import { normalUtr } from '../../../contract/schemas.ts';
import type { BalanceGap, StatementLine, Totals } from './parsed.ts';

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
export function balanceGaps(lines: StatementLine[], order: 'oldestFirst' | 'newestFirst'): BalanceGap[] {
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

/**
 * Gives the lines their UTR (the pattern's catch on the narration, else a reference that reads as one) and
 * their keys, and answers the order the bank listed them in.
 */
export function finishLines(
  lines: StatementLine[],
  caught: readonly (string | null)[],
  referenceOf: (line: StatementLine, i: number) => string | null,
): 'oldestFirst' | 'newestFirst' {
  lines.forEach((l, i) => {
    l.utr = utrOf(caught[i] ?? null, referenceOf(l, i));
  });
  const order = listingOrder(lines);
  keyLines(lines, order);
  return order;
}
