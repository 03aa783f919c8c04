/**
 * The paste helper of the single transfer: reads the payee's name, account number, IFSC and amount out
 * of what a merchant pastes: a labelled message (English or Chinese labels), a row copied from a
 * spreadsheet, values on one line or one a line, or a chat message ("Hi, please pay ₹1,25,000 to …").
 * Amounts may be grouped in lakhs and crores (1,25,000.50) or in thousands (125,000.50), with Rs., INR
 * or ₹ before and /- after. A field the text offers two values for, or a value it cannot read for sure,
 * is left empty and named in `unsure`: a wrong payee costs more than typing one field.
 */

export type PayeeField = 'accountName' | 'accountNumber' | 'ifsc' | 'amount';
export const payeeFields: readonly PayeeField[] = ['accountName', 'accountNumber', 'ifsc', 'amount'];

export type Payee = Partial<Record<PayeeField, string>>;

export interface PayeeReading {
  /** The values read for sure, as the contract's schemas take them ("125000.50", "HDFC0001234"). */
  payee: Payee;
  /** Fields left empty because the text offered competing values or one that could not be read. */
  unsure: PayeeField[];
}

/** What a label introduces: a payee field, a number beside the payee's (phone, reference), bank words. */
type LabelKind = PayeeField | 'aside' | 'bankInfo';

type Token =
  | { kind: 'label'; of: LabelKind }
  | { kind: 'ifsc' | 'number' | 'code' | 'word' | 'han' | 'mark'; text: string }
  | { kind: 'break'; text: '\t' | '\n' }
  | { kind: 'currency' | 'slashDash' };
/** A token with its line and whether white space stands before it. */
type Placed = Token & { line: number; spaced: boolean };

const latinLabels: Record<LabelKind, string[]> = {
  accountName: [
    String.raw`(?:beneficiary|bene|payee|recipient|receiver|account|a\/?c|acc)(?:'?s)?\s*(?:holder(?:'?s)?\s*)?name`,
    String.raw`name\s+of\s+(?:the\s+)?(?:beneficiary|account\s*holder|payee|recipient)`,
    String.raw`(?:account|a\/?c)\s*holder|holder(?:'?s)?\s*name|full\s+name`,
    "beneficiary(?:'s)?|payee|recipient|name",
  ],
  accountNumber: [
    String.raw`(?:(?:beneficiary|bene|bank|savings|sb)\s+)?(?:account|a\/?c|acc|acct)\.?(?:\s*(?:no|number|num|nos)\.?|\s*#)?`,
  ],
  ifsc: [String.raw`(?:bank\s*)?ifsc?(?:\s*code)?|ifs\s*code|bank\s*code`],
  amount: [String.raw`(?:(?:payout|payment|transfer|total|net|transaction)\s+)?(?:amount|amt)\.?`],
  aside: [
    String.raw`(?:mobile|mob|phone|ph|contact|whatsapp|tel)\.?(?:\s*(?:no|number|num)\.?)?`,
    String.raw`upi(?:\s*id)?|vpa|e-?mail`,
    String.raw`(?:ref(?:erence)?|invoice|inv|order|txn|transaction|utr|rrn|customer|cust)\.?(?:\s*(?:id|no|number|num)\.?|\s*#)?`,
    String.raw`(?:pan|gst|gstin|aadhaa?r|micr|swift)(?:\s*(?:no|number|code)\.?)?`,
    String.raw`(?:due\s+)?date|dated|time`,
  ],
  bankInfo: [String.raw`(?:bank|branch)(?:\s*name)?|address|city|state|remarks?|note|purpose|narration|memo`],
};

const hanLabels: Record<LabelKind, string[]> = {
  accountName: [
    '收款人姓名',
    '收款人名称',
    '收款人户名',
    '收款户名',
    '收款人',
    '账户名称',
    '账户名',
    '户名',
    '开户名',
    '开户人',
    '持卡人',
    '姓名',
    '名字',
  ],
  accountNumber: ['收款账号', '收款账户', '银行账号', '银行账户', '银行卡号', '账户号码', '卡号', '账号'],
  ifsc: [String.raw`ifsc\s*(?:代码|编码|码)`, '银行代码', '银行编码'],
  amount: ['转账金额', '代付金额', '付款金额', '打款金额', '金额'],
  aside: ['手机号码', '手机号', '手机', '联系电话', '电话', '订单号', '单号', '日期', '时间', '邮箱'],
  bankInfo: ['开户银行', '开户行', '银行名称', '支行', '备注'],
};

const labelReaders = (Object.keys(latinLabels) as LabelKind[]).flatMap((of) => [
  {
    of,
    re: new RegExp(String.raw`(?<![\p{L}\p{N}])(?:${latinLabels[of].join('|')})(?![\p{L}\p{N}])`, 'iuy'),
  },
  { of, re: new RegExp(hanLabels[of].join('|'), 'iuy') },
]);

const notHan = String.raw`(?!\p{Script=Han})`;
const tokenReaders: [Exclude<Token['kind'], 'label' | 'break'>, RegExp][] = [
  // An e-mail address, a UPI ID or a link is one token, so no part of it reads as a name.
  ['mark', /(?:https?:\/\/|www\.)\S+|[\w.+-]+@[\w.-]+/uy],
  ['ifsc', /(?<![\p{L}\p{N}])[A-Za-z]{4}0[A-Za-z0-9]{6}(?![\p{L}\p{N}])/uy],
  ['currency', /₹|(?<![\p{L}\p{N}])(?:rs\.?|inr|rupees?)(?!\p{L})/iuy],
  ['slashDash', /\/-/y],
  // Letters and digits together ("ABCD1234567", "XXXX1234", "INV2024"): neither a name nor a number.
  ['code', /(?<![\p{L}\p{N}])[A-Za-z][A-Za-z\d]*\d[A-Za-z\d]*(?![\p{L}\p{N}])/uy],
  // Digits with the commas and dots of an amount, or the / : - of a date, a time or a hyphenated number.
  ['number', /\d(?:[\d,.]|[/:-](?=\d))*/y],
  ['han', /\p{Script=Han}/uy],
  ['word', new RegExp(String.raw`${notHan}[\p{L}\p{M}](?:${notHan}[\p{L}\p{M}'’.-])*`, 'uy')],
];

function tokenize(text: string): Placed[] {
  const tokens: Placed[] = [];
  let line = 0;
  let spaced = true;
  let at = 0;
  const push = (token: Token, length: number) => {
    tokens.push({ ...token, line, spaced });
    spaced = false;
    at += length;
  };
  while (at < text.length) {
    const c = text[at] as string;
    if (c === '\n' || c === '\r' || c === '\t') {
      push({ kind: 'break', text: c === '\t' ? c : '\n' }, c === '\r' && text[at + 1] === '\n' ? 2 : 1);
      if (c !== '\t') line++;
      spaced = true;
      continue;
    }
    // White space, and the invisible variation selector after an emoji.
    if (/\s|\u200b|\ufe0f/u.test(c)) {
      at++;
      spaced = true;
      continue;
    }
    let label: { of: LabelKind; end: number } | null = null;
    for (const { of, re } of labelReaders) {
      re.lastIndex = at;
      if (re.test(text) && re.lastIndex > (label?.end ?? at)) label = { of, end: re.lastIndex };
    }
    if (label) {
      push({ kind: 'label', of: label.of }, label.end - at);
      continue;
    }
    const read = tokenReaders.find(([, re]) => {
      re.lastIndex = at;
      return re.test(text);
    });
    if (read) {
      const [kind, re] = read;
      re.lastIndex = at;
      let value = (re.exec(text) as RegExpExecArray)[0];
      // A sentence's full stop or a list's comma after a number is not part of it.
      if (kind === 'number') value = value.replace(/[,.]+$/, '');
      push(kind === 'currency' || kind === 'slashDash' ? { kind } : { kind, text: value }, value.length);
    } else {
      const mark = String.fromCodePoint(text.codePointAt(at) as number);
      push({ kind: 'mark', text: mark }, mark.length);
    }
  }
  return tokens;
}

/** "1,25,000.50", "125,000.50", "125000.5" → the digits the contract takes ("125000.50"); else null. */
export function readAmount(chunk: string): string | null {
  const m = /^([1-9]\d?(?:,\d{2})*,\d{3}|[1-9]\d{0,2}(?:,\d{3})+|0|[1-9]\d*)(\.\d{1,2})?$/.exec(chunk);
  if (!m?.[1]) return null;
  const value = m[1].replace(/,/g, '') + (m[2] ?? '');
  return /[1-9]/.test(value) ? value : null;
}

const words = (list: string) => new Set(list.split(' '));
const greetings = words(
  'hi hii hiii hello helo hey heya dear namaste namaskar namaskaram vanakkam greetings good morning afternoon evening gm',
);
const closings = words('thanks thank thankyou thx thnx thanx ty tq regards rgds cheers');
const moneyVerbs = words('pay paying transfer send remit credit deposit give payment');
/** Words that end a name read after "pay" or "to" cleanly ("pay Ravi Kumar for March"). */
const nameEnds = words('to for at in on from by via with and as of the this that his her their my our your');
/** Bank words: a name that runs into one may have the bank's name at its end ("Kumar HDFC Bank"). */
const bankWords = words('bank branch ltd limited pvt private co cooperative');
/** Words that are never part of a payee's name: a run holding one is a greeting or a sentence. */
const notName = new Set([
  ...greetings,
  ...closings,
  ...moneyVerbs,
  ...nameEnds,
  ...bankWords,
  ...words(
    'a an i me we us you he she it they them him its is are am was were be been do did done can could would should will need want have has had make made get let know request please pls plz kindly urgent urgently asap today now tomorrow here there below above following details detail account amount money fund funds sum salary rent payout sir madam mam maam ji bhai bhaiya sahab yes no ok okay sent received ifsc neft imps rtgs upi cash only rupees rupee paise lakh lakhs lac lacs crore crores thousand hundred one two three four five six seven eight nine ten twenty fifty hdfc icici sbi axis kotak pnb bob canara idbi indusind federal boi uco iob',
  ),
]);

const key = (word: string) => word.toLowerCase().replace(/[.’']+$/, '');
/** A word of a name; a lone capital is an initial ("Ramesh A Kumar"), not the article. */
const isNameWord = (word: string) =>
  /^\p{Lu}\.?$/u.test(word) || (!notName.has(key(word)) && /\p{L}/u.test(word) && word.length <= 30);

/** The name as written, single spaced, without a sentence's full stop after a last word of 3+ letters. */
function nameOf(run: string[]): string | null {
  if (run.length === 0 || run.length > 6 || !run.every(isNameWord)) return null;
  const name = run.join(' ').replace(/(\p{L}{3,})\.$/u, '$1');
  return name.length <= 100 ? name : null;
}

/** One value a field could take, at a level of trust; `null` competes but is never taken. */
type Offer = (field: PayeeField, level: number, value: string | null) => void;

/** Reads the payee out of pasted text. Pure: the same text always gives the same reading. */
export function parsePayee(text: string): PayeeReading {
  const tokens = tokenize(text);
  const taken = new Set<number>();
  const offers: Record<PayeeField, { level: number; value: string | null }[]> = {
    accountName: [],
    accountNumber: [],
    ifsc: [],
    amount: [],
  };
  const offer: Offer = (field, level, value) => offers[field].push({ level, value });

  const grouped = readLabelled(tokens, taken, offer);
  const longNumbers = readBare(tokens, taken, offer);

  // The most trusted level decides; two different values there, or an unreadable one, leave it unsure.
  const payee: Payee = {};
  const unsure = new Set<PayeeField>();
  for (const field of payeeFields) {
    if (offers[field].length === 0) continue;
    const top = Math.max(...offers[field].map((o) => o.level));
    const values = offers[field].filter((o) => o.level === top).map((o) => o.value?.toLowerCase() ?? null);
    const value = offers[field].find((o) => o.level === top)?.value;
    if (value && new Set(values).size === 1) payee[field] = value;
    else unsure.add(field);
  }
  // "A/c 1234 5678 9012 1500" and no amount anywhere: the last group may be the amount.
  if (grouped && payee.accountNumber && !payee.amount && !unsure.has('amount')) {
    delete payee.accountNumber;
    unsure.add('accountNumber');
  }
  // "transfer 779181963 to … A/c 5809…": a long number that is not the account may be the amount.
  if (!payee.amount && longNumbers.some((n) => n !== payee.accountNumber && n.length <= 11))
    unsure.add('amount');
  return { payee, unsure: payeeFields.filter((f) => unsure.has(f)) };
}

/**
 * Values after their labels (level 2, amounts 3): "Name: Ravi Kumar", "A/c 1234…", "金额：1500". A label
 * followed by a separator (":", "-") and then something that is not its value makes the field unsure.
 * Answers whether the account number was read from groups ("1234 5678 9012").
 */
function readLabelled(tokens: Placed[], taken: Set<number>, offer: Offer): boolean {
  let grouped = false;
  const readAfter = (label: Placed & { kind: 'label' }, i: number) => {
    taken.add(i);
    let j = i + 1;
    let explicit = false;
    let crossed = false;
    for (; j < tokens.length; j++) {
      const t = tokens[j] as Placed;
      if (t.kind === 'mark' && /^[:：=#\-–—]$/.test(t.text)) explicit = true;
      // The value in the next cell ("Name⇥Ravi") or, after a colon, on the next line ("Name:⏎Ravi").
      else if (t.kind === 'break' && !crossed && (explicit || t.text === '\t')) crossed = true;
      else if (
        !(t.kind === 'mark' && /^[()（）]$/.test(t.text)) &&
        !(t.kind === 'word' && /^(?:is|in|of)$/i.test(t.text)) &&
        !(t.kind === 'currency' && label.of === 'amount')
      )
        break;
      taken.add(j);
    }
    const value = tokens[j];
    if (!value || value.kind === 'label' || value.kind === 'break') return;
    const onLine = (k: number) => tokens[k]?.line === value.line && tokens[k]?.kind !== 'break';
    const textAt = (k: number) => (tokens[k] as { text?: string }).text ?? '';

    switch (label.of) {
      case 'accountName': {
        let k = j;
        while (onLine(k) && tokens[k]?.kind === 'word') taken.add(k++);
        if (k > j)
          offer('accountName', 2, nameOf(tokens.slice(j, k).map((t) => (t as { text: string }).text)));
        else if (explicit) offer('accountName', 2, null);
        return;
      }
      case 'accountNumber': {
        if (value.kind !== 'number') {
          if (explicit) offer('accountNumber', 2, null);
          return;
        }
        // "1234 5678 9012": three or more groups of one width (the last may be shorter), or two equal.
        const groups = [value.text];
        const width = value.text.length;
        let k = j + 1;
        while (
          /^\d{3,6}$/.test(value.text) &&
          onLine(k) &&
          tokens[k]?.kind === 'number' &&
          /^\d+$/.test(textAt(k)) &&
          textAt(k).length <= width &&
          (groups.at(-1) as string).length === width
        )
          groups.push(textAt(k++));
        const isGroups = groups.length >= 3 || (groups.length === 2 && groups[1]?.length === width);
        const used = isGroups ? groups : [value.text];
        for (let n = j; n < j + used.length; n++) taken.add(n);
        grouped ||= used.length > 1;
        const digits = used.join('').replace(/-/g, '');
        offer('accountNumber', 2, /^\d{6,20}$/.test(digits) ? digits : null);
        return;
      }
      case 'ifsc':
        if (value.kind === 'ifsc') {
          taken.add(j);
          offer('ifsc', 2, value.text.toUpperCase());
        } else if (explicit && /word|number|code/.test(value.kind)) offer('ifsc', 2, null);
        return;
      case 'amount':
        if (value.kind !== 'number') {
          if (explicit && value.kind === 'word') offer('amount', 3, null);
          return;
        }
        taken.add(j);
        for (let k = j + 1; onLine(k) && /slashDash|currency/.test(tokens[k]?.kind ?? ''); k++) taken.add(k);
        offer('amount', 3, readAmount(value.text));
        return;
      case 'aside':
        // "Mobile: …" to the line's end; "Mob 98765 43210" its numbers, which come in groups.
        if (!explicit && !/number|mark/.test(value.kind)) return;
        for (let k = j; onLine(k) && tokens[k]?.kind !== 'label'; k++) {
          if (!explicit && k > j && tokens[k]?.spaced && tokens[k]?.kind !== 'number') break;
          taken.add(k);
        }
        return;
      case 'bankInfo':
        if (explicit) for (let k = j; onLine(k) && tokens[k]?.kind !== 'label'; k++) taken.add(k);
    }
  };
  tokens.forEach((token, i) => {
    if (token.kind === 'label') readAfter(token, i);
  });
  return grouped;
}

/**
 * Values without a label: an IFSC (level 1); numbers by their shape (an amount with ₹/Rs/INR or /- at
 * level 3, grouped or with paise 2, plain up to 8 digits 1; 9 to 18 plain digits an account, level 1);
 * the payee's name after "pay" or "to" (level 2) or alone in its cell (level 1). Greetings and what
 * follows "Thanks" or "Regards" (the sender) are never read. Answers the long plain numbers it saw.
 */
function readBare(tokens: Placed[], taken: Set<number>, offer: Offer): string[] {
  const closing = tokens.findIndex((t, i) => !taken.has(i) && t.kind === 'word' && closings.has(key(t.text)));
  const end = closing < 0 ? tokens.length : closing;
  const free = (k: number) => k >= 0 && k < end && !taken.has(k);
  const isWord = (k: number) => tokens[k]?.kind === 'word' || tokens[k]?.kind === 'han';
  const linesOf = (match: (t: Placed) => boolean) => new Set(tokens.filter(match).map((t) => t.line));
  const linesWithValues = linesOf((t) => t.kind === 'number' || t.kind === 'ifsc');
  const linesWithMoneyVerb = linesOf((t) => t.kind === 'word' && moneyVerbs.has(key(t.text)));
  const greeted = new Set<number>();
  const longNumbers: string[] = [];

  for (let i = 0; i < end; i++) {
    if (!free(i)) continue;
    const token = tokens[i] as Placed;
    if (token.kind === 'ifsc') offer('ifsc', 1, token.text.toUpperCase());
    else if (token.kind === 'number') readNumber(i);
    else if (token.kind === 'mark' && token.text === '+') {
      // "+91 98765 43210" is a phone number.
      while (free(i + 1) && tokens[i + 1]?.kind === 'number' && tokens[i + 1]?.line === token.line) i++;
    } else if (isWord(i)) {
      let stop = i;
      while (free(stop) && isWord(stop) && tokens[stop]?.line === token.line) stop++;
      readWords(i, stop);
      i = stop - 1;
    }
  }
  return longNumbers;

  function readNumber(i: number) {
    const token = tokens[i] as Placed & { text: string };
    const [before, after, afterNext] = [tokens[i - 1], tokens[i + 1], tokens[i + 2]];
    const near = (t: Placed | undefined) => t?.line === token.line;
    // A currency sign belongs to the number after it; to the one before only when none follows.
    const marked =
      (near(before) && before?.kind === 'currency') ||
      (near(after) && after?.kind === 'slashDash') ||
      (near(after) && after?.kind === 'currency' && !(near(afterNext) && afterNext?.kind === 'number'));
    if (marked) return offer('amount', 3, readAmount(token.text));
    if (near(after) && after?.kind === 'word' && !after.spaced) return; // "12th"
    const chunk = token.text;
    if (/^\d+$/.test(chunk)) {
      if (chunk.length >= 9) {
        longNumbers.push(chunk);
        return offer('accountNumber', 1, chunk.length <= 18 ? chunk : null);
      }
      if (chunk.length > 1 && chunk.startsWith('0')) return;
      return offer('amount', 1, chunk);
    }
    if (/^\d+(?:-\d+)+$/.test(chunk)) {
      // A hyphenated number may be the account (or a phone): it competes, it is never taken.
      const digits = chunk.replace(/-/g, '').length;
      return digits >= 9 && digits <= 18 ? offer('accountNumber', 1, null) : undefined;
    }
    if (/[:/-]|^\d{1,2}\.\d{1,2}\.\d{2,4}$/.test(chunk)) return; // a date or a time
    const amount = readAmount(chunk);
    if (amount) return offer('amount', 2, amount);
    // "2500,50100234567" from a row separated by bare commas: its cells, each on its own.
    const cells = chunk.split(',');
    if (
      cells.length > 1 &&
      cells.every((c) => /^\d+(?:\.\d+)?$/.test(c)) &&
      cells.some((c) => /^\d{4,}$/.test(c))
    ) {
      for (const cell of cells) {
        if (/^\d{9,18}$/.test(cell)) offer('accountNumber', 1, cell);
        else offer('amount', cell.includes('.') ? 2 : 1, readAmount(cell));
      }
      return;
    }
    offer('amount', 2, null); // "1.250,50", "12,5": an amount written some other way
  }

  function readWords(start: number, stop: number) {
    const run = tokens.slice(start, stop).map((t) => (t.kind === 'word' ? t.text : ''));
    const line = (tokens[start] as Placed).line;
    const beside = (t: Placed | undefined) => t?.line === line && t.kind === 'label' && t.of === 'bankInfo';
    const nearBank = beside(tokens[start - 1]) || beside(tokens[stop]);
    let afterVerb = false;

    // After "pay", or after "to" on a line that pays or transfers, stands the payee, up to a word that
    // ends a name ("for", "at"), a value or the line's end. A bank word after it makes it unsure.
    run.forEach((word, k) => {
      const w = key(word);
      const han = (tokens[start + k] as { text?: string }).text === '给';
      if (!(w === 'pay' || w === 'paying' || han || (w === 'to' && linesWithMoneyVerb.has(line)))) return;
      let m = k + 1;
      while (m < run.length && isNameWord(run[m] as string)) m++;
      if (m === k + 1) return;
      afterVerb = true;
      const next = m < run.length ? key(run[m] as string) : null;
      const clean = next === null ? !beside(tokens[stop]) : nameEnds.has(next);
      offer('accountName', 2, clean ? nameOf(run.slice(k + 1, m)) : null);
    });
    if (run.some((w) => greetings.has(key(w)))) greeted.add(line);
    if (afterVerb) return;

    // Alone in its cell, never after a greeting on its line ("Hi Ramesh," names the reader); one word
    // only beside the other values ("Ravi⇥1234…"), not on a line of its own ("Urgent").
    if (greeted.has(line) || nearBank || !run.every((w) => isNameWord(w))) return;
    if (run.length >= 2 || linesWithValues.has(line)) offer('accountName', 1, nameOf(run));
  }
}
