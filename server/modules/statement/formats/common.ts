/**
 * Rules both feed readers share: amounts as text into hundredths (never through a float), calendar days,
 * narration text and references.
 */

/** A narration is cut here (docs/STATEMENTS.md: narrations are stored and listed with every page). */
export const maxNarration = 1000;

/**
 * `digits` and the fraction as written into hundredths, or a reason it does not read. More than two decimals
 * are refused unless the extra digits are zeros (`12.500` is exactly 1250; `12.505` has no hundredths).
 */
export function hundredths(whole: string, fraction: string): number | string {
  if (!/^\d+$/.test(whole) || !/^\d*$/.test(fraction)) return 'not a number';
  const extra = fraction.slice(2);
  if (/[1-9]/.test(extra)) return 'more than two decimals';
  const digits = (whole + fraction.slice(0, 2).padEnd(2, '0')).replace(/^0+(?=\d)/, '');
  // 15 digits always fit a double exactly (2^53 has 16).
  if (digits.length > 15) return 'too large';
  return Number(digits);
}

export function isDay(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] ?? 0;
  return d <= days;
}

export const isoDay = (y: number, m: number, d: number) =>
  `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

/** Runs of blanks (tabs and line breaks too) made one, trimmed, cut at `maxNarration` characters. */
export function narrationText(parts: Iterable<string | null | undefined>): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const p of parts) {
    const t = p?.replace(/\s+/g, ' ').trim();
    // The same words twice (AddtlTxInf repeating Ustrd, one Ustrd on every transaction) read once.
    if (t && !seen.has(t)) {
      seen.add(t);
      kept.push(t);
    }
  }
  const s = kept.join(' ');
  if (s.length <= maxNarration) return s;
  // Cut on a code point, never between the halves of a surrogate pair.
  const cut = s.slice(0, maxNarration);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Placeholders banks write where a reference has no value (dashes too: Danske Bank's `…--//-`). */
const noReference = /^(?:NONREF|NOTPROVIDED|-+)$/i;

/** A reference trimmed (blanks made one), or null when empty or a placeholder. */
export function refText(s: string | null | undefined): string | null {
  const t = s?.replace(/\s+/g, ' ').trim();
  return t && !noReference.test(t) ? t : null;
}

/** References in order, without the entry's own `reference`, placeholders or repeats. */
export function otherRefs(reference: string | null, refs: Iterable<string | null | undefined>): string[] {
  const out: string[] = [];
  const seen = new Set<string>(reference === null ? [] : [reference]);
  for (const r of refs) {
    const t = refText(r);
    if (t !== null && !seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  }
  return out;
}

/** A piece of the file quoted in a message, cut short: a message never carries megabytes of input. */
export function quote(s: string): string {
  return `'${s.length > 40 ? `${s.slice(0, 40)}…` : s}'`;
}
