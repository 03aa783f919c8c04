/**
 * SWIFT MT940 (customer statement) reader. Written here rather than taken from `mt940js`: that library reads
 * amounts through parseFloat, gives an entry date the value date's year without rolling over the year end,
 * maps two-digit years to 20xx only, throws on a whole file for one statement that does not add up or one
 * :61: it cannot match (`NOV ` and `S   ` transaction types), and crashes on text before the first tag; six
 * of the eight public sample files did not read with it.
 *
 * Line based and linear: each line is looked at a fixed number of times, and no regular expression here can
 * backtrack more than a few characters.
 */
import { hundredths, isDay, isoDay, narrationText, otherRefs, quote, refText } from './common.ts';
import type { FeedBalance, FeedEntry, FeedError, FeedRead, FeedStatement } from './feed.ts';

interface Tag {
  /** `20`, `28C`, `60F`, `61`, `86`, `NS` … */
  name: string;
  /** The field's lines, the first one without its `:tag:`. */
  lines: string[];
  /** 1-based line in the file, for messages. */
  line: number;
}

const tagLine = /^:(\d\d[A-Z]?|NS):/;
// Control characters (SOH/ETX framing of FIN messages, stray NULs) are no text; a TAB is a blank.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
const controls = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/g;

/**
 * Cheap sniff on the first 8 KB: a `:20:` line with a `:25:` or `:60F:`/`:60M:` line or a FIN text block
 * `{4:`; an MT942 (interim report: `{2:I942`, `:34F:`) is not a statement.
 */
export function looksLikeMt940(text: string): boolean {
  const head = text.slice(0, 8192);
  if (!/^(?:\{4:)?:20:/m.test(head)) return false;
  if (/\{2:[IO]942/.test(head) || /^:34F:/m.test(head)) return false;
  return /^:25[A-Z]?:/m.test(head) || /^:60[FM]:/m.test(head) || head.includes('{4:');
}

/** The file's fields, statement by statement: a `:20:` opens one, a `-` or `-}` line closes it. */
function statementsOf(text: string): Tag[][] {
  const statements: Tag[][] = [];
  let current: Tag[] | null = null;
  let tag: Tag | null = null;
  const lines = text.split(/\r\n|\r|\n/);

  const take = (raw: string, lineNo: number) => {
    const m = tagLine.exec(raw);
    if (m) {
      const name = m[1]!;
      tag = { name, lines: [raw.slice(m[0].length)], line: lineNo };
      if (name === '20') {
        current = [];
        statements.push(current);
      }
      // Fields outside a statement (after a `-`, before any `:20:`) belong to none.
      if (current) current.push(tag);
      else tag = null;
    } else if (tag) {
      tag.lines.push(raw);
    }
  };

  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.replace(controls, '');
    if (line.startsWith('-') && (line.startsWith('-}') || line.trim() === '-')) {
      current = null;
      tag = null;
      // PostFinance glues the next message on: `-}{5:…}{1:…}{2:…}{4:`.
      const body = line.lastIndexOf('{4:');
      if (body < 0) continue;
      line = line.slice(body + 3);
    } else if (/^\{\d:/.test(line)) {
      // FIN header blocks `{1:…}{2:…}{4:`: only what follows `{4:` is the message text.
      const body = line.lastIndexOf('{4:');
      if (body < 0) continue;
      line = line.slice(body + 3);
    }
    if (line.length > 0 || tag) take(line, i + 1);
  }
  return statements;
}

/** YYMMDD, 00-79 being 20xx. */
function yymmdd(s: string): { y: number; m: number; d: number } | null {
  if (!/^\d{6}$/.test(s)) return null;
  const yy = Number(s.slice(0, 2));
  const y = yy < 80 ? 2000 + yy : 1900 + yy;
  const m = Number(s.slice(2, 4));
  const d = Number(s.slice(4, 6));
  return isDay(y, m, d) ? { y, m, d } : null;
}

/**
 * The :61: entry date MMDD in the year that puts it nearest the value date: `0102` after value date
 * 31 December is next year, `1231` with value date 2 January the previous one.
 */
function entryDay(value: { y: number; m: number; d: number }, mmdd: string): string | null {
  const m = Number(mmdd.slice(0, 2));
  const d = Number(mmdd.slice(2, 4));
  if (m < 1 || m > 12 || d < 1 || d > 31) return null;
  const ordinal = (y: number, mm: number, dd: number) => (y * 12 + mm) * 31 + dd;
  const at = ordinal(value.y, value.m, value.d);
  let best = value.y;
  for (const y of [value.y - 1, value.y + 1]) {
    if (Math.abs(ordinal(y, m, d) - at) < Math.abs(ordinal(best, m, d) - at)) best = y;
  }
  return isDay(best, m, d) ? isoDay(best, m, d) : null;
}

/** An MT940 amount `1234,56`, `1234,5` or `1234,` into hundredths. */
function amountOf(s: string): number | string {
  const m = /^(\d+)(?:,(\d*))?$/.exec(s);
  if (!m) return `${quote(s)} is not an amount (digits and a decimal comma)`;
  const v = hundredths(m[1]!, m[2] ?? '');
  return typeof v === 'number' ? v : `amount ${quote(s)}: ${v}`;
}

/** :60F:/:62F: `C090924DKK2478926,70`. */
function balanceOf(tag: Tag): FeedBalance | { error: string; code: 'date' | 'amount' } {
  const s = tag.lines[0]!.trim();
  const m = /^([CD])(\d{6})([A-Z]{3})([\d,.]{1,20})$/.exec(s);
  if (!m) return { code: 'amount', error: `line ${tag.line}: :${tag.name}: ${quote(s)} does not read` };
  const day = yymmdd(m[2]!);
  if (!day) return { code: 'date', error: `line ${tag.line}: :${tag.name}: '${m[2]}' is not a day` };
  const amount = amountOf(m[4]!);
  if (typeof amount === 'string')
    return { code: 'amount', error: `line ${tag.line}: :${tag.name}: ${amount}` };
  return {
    date: isoDay(day.y, day.m, day.d),
    amount: m[1] === 'D' && amount !== 0 ? -amount : amount,
    currency: m[3]!,
  };
}

interface Line61 {
  date: string;
  valueDate: string;
  direction: 'credit' | 'debit';
  reversal: boolean;
  amount: number;
  type: string;
  customerRef: string;
  bankRef: string;
  supplementary: string;
}

/** :61: `YYMMDD[MMDD](C|D|RC|RD)[funds code]amount type customer-ref[//bank-ref]` and details on line 2. */
function line61(tag: Tag): Line61 | { code: FeedError['code']; error: string } {
  const s = tag.lines[0]!;
  const at = `line ${tag.line}: :61:`;
  const value = yymmdd(s.slice(0, 6));
  if (!value) return { code: 'date', error: `${at} value date '${s.slice(0, 6)}' is not a day` };
  let i = 6;
  let date = isoDay(value.y, value.m, value.d);
  if (/^\d{4}$/.test(s.slice(6, 10))) {
    const entry = entryDay(value, s.slice(6, 10));
    if (!entry) return { code: 'date', error: `${at} entry date '${s.slice(6, 10)}' is not a day` };
    date = entry;
    i = 10;
  }
  let mark = s[i] ?? '';
  if (mark === 'R') mark += s[i + 1] ?? '';
  if (mark !== 'C' && mark !== 'D' && mark !== 'RC' && mark !== 'RD')
    return {
      code: 'entry',
      error: `${at} ${quote(s.slice(i, i + 2))} is no debit/credit mark (C, D, RC, RD)`,
    };
  i += mark.length;
  // The funds code (commonly the currency's third letter): a letter before the amount, not a reversal.
  if (/[A-Z]/.test(s[i] ?? '')) i++;
  const amountText = /^[\d,.]{1,24}/.exec(s.slice(i, i + 24))?.[0] ?? '';
  const amount = amountOf(amountText);
  if (typeof amount === 'string') return { code: 'amount', error: `${at} ${amount}` };
  if (amount === 0) return { code: 'amount', error: `${at} amount is zero` };
  i += amountText.length;
  // Transaction type: one letter and three characters (`NTRF`, `N192`, ING's `NOV `, Sberbank's `S   `).
  const type = s.slice(i, i + 4);
  if (!/^[A-Z][A-Z0-9 ]{3}$/.test(type))
    return { code: 'entry', error: `${at} ${quote(type)} is no transaction type` };
  const rest = s.slice(i + 4);
  const cut = rest.indexOf('//');
  return {
    date,
    valueDate: isoDay(value.y, value.m, value.d),
    direction: mark === 'C' || mark === 'RD' ? 'credit' : 'debit',
    reversal: mark.length === 2,
    amount,
    type: type.trim(),
    customerRef: cut < 0 ? rest : rest.slice(0, cut),
    bankRef: cut < 0 ? '' : rest.slice(cut + 2),
    supplementary: tag.lines.slice(1).join(' '),
  };
}

/** SEPA keywords that open a remittance part (`EREF+`, `SVWZ+`, `IBAN+` …): read apart from what precedes. */
const sepaKey = /^(?:[A-Z]{4}|BIC)\+/;

/**
 * German structured :86: `GVC?00booking text?10…?20remittance…?32name?33name`. The field's lines are cut
 * at a fixed width, through words and even through a `?2|2` marker, so they join without a blank.
 */
function structured86(joined: string): string | null {
  const head = /^(?:\d{3})?([?>])\d\d/.exec(joined);
  if (!head) return null;
  const sep = head[1]!;
  const fields: [string, string][] = [];
  let i = joined.indexOf(sep);
  while (i >= 0) {
    const code = joined.slice(i + 1, i + 3);
    let next = i + 3;
    // A separator not followed by two digits is text.
    for (;;) {
      next = joined.indexOf(sep, next);
      if (next < 0 || /^\d\d$/.test(joined.slice(next + 1, next + 3))) break;
      next++;
    }
    fields.push([code, joined.slice(i + 3, next < 0 ? undefined : next)]);
    i = next;
  }
  const booking = fields.filter(([c]) => c === '00').map(([, v]) => v);
  const name = fields
    .filter(([c]) => c === '32' || c === '33')
    .map(([, v]) => v)
    .join('');
  let remittance = '';
  for (const [c, v] of fields) {
    if (!/^(?:2\d|6[0-3])$/.test(c)) continue;
    remittance += remittance && sepaKey.test(v) ? ` ${v}` : v;
  }
  return narrationText([...booking, name, remittance]);
}

/**
 * Free :86: text: a line of the full 65 characters was cut by width (PostFinance breaks `SONNE|NGLAESER`)
 * and joins on without a blank; a shorter line ended where the bank meant it to.
 */
function free86(lines: string[]): string {
  let s = lines[0] ?? '';
  for (let k = 1; k < lines.length; k++) s += (lines[k - 1]!.length >= 65 ? '' : ' ') + lines[k];
  return narrationText([s]);
}

function narration86(lines: string[]): string {
  return structured86(lines.join('')) ?? free86(lines);
}

/** Reads every statement of an MT940 file (several messages, FIN blocks or not). Never throws. */
export function readMt940(text: string): FeedRead {
  try {
    return read(text);
  } catch (e) {
    return {
      ok: false,
      format: 'mt940',
      detail: `unreadable: ${String((e as Error)?.message).slice(0, 200)}`,
    };
  }
}

function read(text: string): FeedRead {
  const groups = statementsOf(text.startsWith('\uFEFF') ? text.slice(1) : text);
  if (groups.length === 0) return { ok: false, format: 'mt940', detail: 'no :20: statement found' };
  const statements: FeedStatement[] = [];
  const errors: FeedError[] = [];
  let row = 0;

  for (const [n, tags] of groups.entries()) {
    const statement = n + 1;
    const first = (name: string) => tags.find((t) => t.name === name);
    const value = (t: Tag | undefined) => t?.lines[0]?.trim() ?? '';
    const account = value(first('25') ?? first('25P'));
    if (!account)
      return {
        ok: false,
        format: 'mt940',
        detail: `statement ${statement} (line ${tags[0]!.line}) has no :25: account`,
      };

    const balance = (t: Tag | undefined): FeedBalance | null => {
      if (!t) return null;
      const b = balanceOf(t);
      if ('error' in b) {
        errors.push({ row: 0, code: b.code, detail: b.error, statement });
        return null;
      }
      return b;
    };
    const opening = balance(tags.find((t) => t.name === '60F' || t.name === '60M'));
    const closing = balance(tags.findLast((t) => t.name === '62F' || t.name === '62M'));
    const currency = opening?.currency ?? closing?.currency;
    if (!currency)
      return {
        ok: false,
        format: 'mt940',
        detail: `statement ${statement} has no readable :60F: or :62F: balance (its currency)`,
      };
    if (opening && closing && opening.currency !== closing.currency)
      errors.push({
        row: 0,
        code: 'amount',
        statement,
        detail: `closing balance in ${closing.currency}, opening in ${opening.currency}`,
      });

    const seq = value(first('28C') ?? first('28'));
    const entries: FeedEntry[] = [];
    // :86: and :NS: belong to the :61: right before them; elsewhere they describe the statement.
    let open: { line: Line61; row: number; details: string[] | null; ns: string[] } | null = null;
    const close = () => {
      if (!open) return;
      const l = open.line;
      const customer = refText(l.customerRef);
      const reference = refText(l.bankRef) ?? customer;
      const references = otherRefs(reference, [l.customerRef, l.supplementary]);
      const narration = open.details
        ? narration86(open.details)
        : narrationText(open.ns.length > 0 ? open.ns : [customer, refText(l.supplementary)]);
      entries.push({
        row: open.row,
        date: l.date,
        valueDate: l.valueDate,
        direction: l.direction,
        reversal: l.reversal,
        amount: l.amount,
        currency,
        reference,
        references,
        narration,
        transactionCode: l.type || null,
        batch: null,
      });
      open = null;
    };
    let attached = false;
    for (const t of tags) {
      if (t.name === '61') {
        close();
        row++;
        const l = line61(t);
        if ('error' in l) errors.push({ row, code: l.code, detail: l.error, statement });
        else open = { line: l, row, details: null, ns: [] };
        attached = true;
      } else if (t.name === '86' && attached) {
        if (open) {
          open.details ??= [];
          for (const l of t.lines) open.details.push(l);
        }
      } else if (t.name === 'NS' && attached) {
        if (open) for (const l of t.lines) open.ns.push(l);
      } else {
        close();
        attached = false;
      }
    }
    close();
    statements.push({
      id: seq ? `${value(first('20'))}/${seq}` : value(first('20')),
      account,
      currency,
      opening,
      closing,
      entries,
    });
  }
  return { ok: true, format: 'mt940', statements, errors };
}
