/**
 * ISO 20022 camt.053 (bank-to-customer statement) reader, any version (001.02 to 001.13 share the paths read
 * here), through fast-xml-parser with namespace prefixes removed.
 *
 * Entities: a statement never needs a DTD, so a DOCTYPE or ENTITY declaration refuses the file before the
 * parser sees it, and the parser runs with processEntities off; the five predefined entities and numeric
 * character references are decoded here, in one linear pass over each value actually read. Nothing is
 * expanded from the document itself, so an entity bomb cannot grow memory.
 *
 * camt.052 (intraday account report) and camt.054 (notification) are refused: their entries may be pending
 * or are repeated in the day's camt.053, and only a booked statement proves money arrived.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { hundredths, isDay, narrationText, otherRefs, quote, refText } from './common.ts';
import type { FeedBalance, FeedEntry, FeedError, FeedRead, FeedStatement } from './feed.ts';

const camtNamespace = /^urn:iso:std:iso:20022:tech:xsd:(camt\.\d{3})\./;

/**
 * The root element's local name and namespace, read from its start tag after the XML declaration,
 * processing instructions and comments; null when `text` does not start as XML within `limit` characters.
 */
function rootOf(text: string, limit: number): { name: string; namespace: string | null } | null {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (i < limit && /\s/.test(text[i] ?? '')) i++;
    if (text[i] !== '<') return null;
    let end: number;
    if (text.startsWith('<?', i)) end = text.indexOf('?>', i) + 2;
    else if (text.startsWith('<!--', i)) end = text.indexOf('-->', i) + 3;
    else if (text.startsWith('<!DOCTYPE', i)) {
      // Skipped to find the root (the reader refuses the file); an internal subset ends with `]>`.
      const gt = text.indexOf('>', i);
      const subset = text.indexOf('[', i);
      end = subset >= 0 && subset < gt ? text.indexOf('>', text.indexOf(']', subset)) + 1 : gt + 1;
    } else break;
    if (end <= i || end > limit) return null;
    i = end;
  }
  const end = text.indexOf('>', i);
  if (end < 0 || end > limit) return null;
  const tag = /^<([A-Za-z_][\w.-]*)(?::([A-Za-z_][\w.-]*))?/.exec(text.slice(i, Math.min(end, i + 200)));
  if (!tag) return null;
  const prefix = tag[2] === undefined ? null : tag[1]!;
  const name = tag[2] ?? tag[1]!;
  const startTag = text.slice(i, end);
  const attr = prefix === null ? 'xmlns' : `xmlns:${prefix}`;
  const ns = new RegExp(`\\s${attr.replace(/[.-]/g, '\\$&')}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(startTag);
  return { name, namespace: ns?.[1] ?? ns?.[2] ?? null };
}

/** Cheap sniff on the first 8 KB: a root `Document` in a camt.053 namespace. */
export function looksLikeCamt053(text: string): boolean {
  const root = rootOf(text, Math.min(text.length, 8192));
  return root?.name === 'Document' && camtNamespace.exec(root.namespace ?? '')?.[1] === 'camt.053';
}

type Node = { [key: string]: unknown };

const parser = new XMLParser({
  // Ccy is the one attribute read; building the others would only cost time.
  ignoreAttributes: (name) => name !== 'Ccy',
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  // Values stay text: amounts and references are read as written, never through a number.
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  htmlEntities: false,
  cdataPropName: '#cdata',
  alwaysCreateTextNode: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Every element a list: a bank that repeats an element the reader expects once is still read.
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
});

const kids = (node: Node | undefined, name: string): Node[] => {
  const v = node?.[name];
  return Array.isArray(v) ? (v as Node[]) : [];
};

/** The first element down a path. */
function at(node: Node | undefined, ...path: string[]): Node | undefined {
  let n = node;
  for (const p of path) n = kids(n, p)[0];
  return n;
}

/** All elements down a path, in document order. */
function all(node: Node | undefined, ...path: string[]): Node[] {
  let level = node ? [node] : [];
  for (const p of path) level = level.flatMap((n) => kids(n, p));
  return level;
}

const predefined: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(
    /&(?:#(\d{1,7})|#x([0-9A-Fa-f]{1,6})|(lt|gt|amp|quot|apos));/g,
    (whole, dec, hex, name) => {
      if (name) return predefined[name as string]!;
      const cp = dec ? Number(dec) : Number.parseInt(hex as string, 16);
      return cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) && cp !== 0 ? String.fromCodePoint(cp) : whole;
    },
  );
}

/** An element's text (CDATA kept as written), trimmed, or null when absent or empty. */
function text(node: Node | undefined): string | null {
  if (!node) return null;
  const t = node['#text'];
  const cdata = kids(node, '#cdata')
    .map((c) => c['#text'])
    .filter((c): c is string => typeof c === 'string');
  const s = [typeof t === 'string' ? decode(t) : '', ...cdata].join(' ').trim();
  return s === '' ? null : s;
}

const textAt = (node: Node | undefined, ...path: string[]) => text(at(node, ...path));
const attr = (node: Node | undefined, name: string) => {
  const v = node?.[`@_${name}`];
  return typeof v === 'string' ? decode(v).trim() : null;
};

/** `2010-10-18`, `2017-04-01+02:00` or a DtTm `2010-10-18T13:15:00+01:00`: the day as the bank wrote it. */
function dayOf(s: string | null): string | null | 'bad' {
  if (s === null) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T+\-Z])/.exec(s);
  if (!m || !isDay(Number(m[1]), Number(m[2]), Number(m[3]))) return 'bad';
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/** Dt or DtTm inside a date choice (BookgDt, ValDt, Bal/Dt). */
const dateChoice = (node: Node | undefined) => dayOf(textAt(node, 'Dt') ?? textAt(node, 'DtTm'));

/** `105678.50`, `500000`, `905.3` into hundredths. */
function amountOf(s: string | null): number | string {
  if (s === null) return 'no amount';
  const m = /^(\d+)(?:\.(\d*))?$/.exec(s);
  if (!m) return `${quote(s)} is not an amount`;
  const v = hundredths(m[1]!, m[2] ?? '');
  return typeof v === 'number' ? v : `amount ${quote(s)}: ${v}`;
}

const balanceCode = (bal: Node) =>
  textAt(bal, 'Tp', 'CdOrPrtry', 'Cd') ?? textAt(bal, 'Tp', 'CdOrPrtry', 'Prtry');

/** A Bal: signed amount, its day and currency, or what does not read (`date …`, `amount …`). */
function balanceOf(bal: Node): FeedBalance | string {
  const amt = at(bal, 'Amt');
  const amount = amountOf(text(amt));
  if (typeof amount === 'string') return `amount: ${amount}`;
  const currency = attr(amt, 'Ccy');
  if (!currency) return 'amount: no currency';
  const sign = textAt(bal, 'CdtDbtInd');
  if (sign !== 'CRDT' && sign !== 'DBIT' && amount !== 0) return 'amount: no CdtDbtInd';
  const date = dateChoice(at(bal, 'Dt'));
  if (date === null || date === 'bad') return 'date: no day';
  return { date, amount: sign === 'DBIT' && amount !== 0 ? -amount : amount, currency };
}

const direction = (s: string | null) => (s === 'CRDT' ? 'credit' : s === 'DBIT' ? 'debit' : null);

interface Tx {
  node: Node;
  /** The amount in the entry's currency, when the transaction states one. */
  amount: number | null;
  direction: 'credit' | 'debit' | null;
  acctSvcrRef: string | null;
}

/** The counterparty's name: for a credit who paid (debtor), for a debit who was paid (creditor). */
function partyName(tx: Node, dir: 'credit' | 'debit'): string | null {
  const parties = at(tx, 'RltdPties');
  const [near, far] = dir === 'credit' ? ['Dbtr', 'UltmtDbtr'] : ['Cdtr', 'UltmtCdtr'];
  for (const p of [near, far]) {
    // v08 and later wrap the party: Dbtr/Pty/Nm; earlier Dbtr/Nm.
    const name = textAt(parties, p, 'Nm') ?? textAt(parties, p, 'Pty', 'Nm');
    if (name) return name;
  }
  return null;
}

/** ClrSysRef, TxId, EndToEndId, UETR, InstrId, MsgId, PmtInfId, Prtry refs: in that order. */
function txRefs(tx: Node): (string | null)[] {
  const refs = at(tx, 'Refs');
  return [
    ...['ClrSysRef', 'TxId', 'EndToEndId', 'UETR', 'InstrId', 'MsgId', 'PmtInfId'].map((k) =>
      textAt(refs, k),
    ),
    ...all(refs, 'Prtry', 'Ref').map(text),
  ];
}

const creditorRefs = (tx: Node) => all(tx, 'RmtInf', 'Strd', 'CdtrRefInf', 'Ref').map(text);
const unstructured = (tx: Node) => all(tx, 'RmtInf', 'Ustrd').map(text);

/** Reads every statement of a camt.053 document. Never throws. */
export function readCamt053(text: string): FeedRead {
  try {
    return read(text);
  } catch (e) {
    return {
      ok: false,
      format: 'camt053',
      detail: `unreadable: ${String((e as Error)?.message).slice(0, 200)}`,
    };
  }
}

function read(xml: string): FeedRead {
  const fail = (detail: string): FeedRead => ({ ok: false, format: 'camt053', detail });
  if (xml.includes('<!DOCTYPE') || xml.includes('<!ENTITY'))
    return fail('a DOCTYPE or ENTITY declaration is not allowed');
  const root = rootOf(xml, xml.length);
  if (!root) return fail('not an XML document');
  if (root.name !== 'Document') return fail(`the root element is ${root.name}, not Document`);
  const kind = camtNamespace.exec(root.namespace ?? '')?.[1];
  if (kind !== 'camt.053')
    return fail(
      kind
        ? `a ${kind} message, not a camt.053 statement`
        : `namespace ${quote(root.namespace ?? '')} is not camt.053`,
    );
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    return fail(`not well-formed XML: ${valid.err.msg.slice(0, 200)} (line ${valid.err.line})`);

  const doc = at(parser.parse(xml) as Node, 'Document');
  const stmts = all(doc, 'BkToCstmrStmt', 'Stmt');
  if (stmts.length === 0) return fail('no BkToCstmrStmt/Stmt');

  const statements: FeedStatement[] = [];
  const errors: FeedError[] = [];
  let row = 0;
  for (const [n, stmt] of stmts.entries()) {
    const statement = n + 1;
    const id = textAt(stmt, 'Id') ?? '';
    const seq = textAt(stmt, 'ElctrncSeqNb');
    const account = textAt(stmt, 'Acct', 'Id', 'IBAN') ?? textAt(stmt, 'Acct', 'Id', 'Othr', 'Id');
    if (!account) return fail(`statement ${statement} (${quote(id)}) has no Acct/Id (IBAN or Othr/Id)`);

    const balance = (codes: string[]): FeedBalance | null => {
      const bals = kids(stmt, 'Bal');
      const code = codes.find((c) => bals.some((b) => balanceCode(b) === c));
      const bal = bals.find((b) => balanceCode(b) === code);
      if (!bal) return null;
      const b = balanceOf(bal);
      if (typeof b === 'string') {
        errors.push({
          row: 0,
          code: b.startsWith('date') ? 'date' : 'amount',
          statement,
          detail: `balance ${code}: ${b}`,
        });
        return null;
      }
      return b;
    };
    const opening = balance(['OPBD', 'PRCD']);
    const closing = balance(['CLBD']);
    const currency =
      textAt(stmt, 'Acct', 'Ccy') ??
      opening?.currency ??
      closing?.currency ??
      attr(at(stmt, 'Ntry', 'Amt'), 'Ccy');
    if (!currency) return fail(`statement ${statement} (${quote(id)}) states no currency`);

    const entries: FeedEntry[] = [];
    for (const ntry of kids(stmt, 'Ntry')) {
      const amt = at(ntry, 'Amt');
      const amount = amountOf(text(amt));
      const ccy = attr(amt, 'Ccy') ?? currency;
      const dir = direction(textAt(ntry, 'CdtDbtInd'));
      // v02-v07 write <Sts>BOOK</Sts>, v08 and later <Sts><Cd>BOOK</Cd></Sts>.
      const status = textAt(ntry, 'Sts') ?? textAt(ntry, 'Sts', 'Cd') ?? textAt(ntry, 'Sts', 'Prtry');
      const booked = dateChoice(at(ntry, 'BookgDt'));
      const valued = dateChoice(at(ntry, 'ValDt'));
      const date = booked === 'bad' || valued === 'bad' ? null : (booked ?? valued);
      const problem: [FeedError['code'], string] | null =
        typeof amount === 'string'
          ? ['amount', amount]
          : amount === 0
            ? ['amount', 'amount is zero']
            : !dir
              ? ['entry', `CdtDbtInd ${quote(textAt(ntry, 'CdtDbtInd') ?? '')} is neither CRDT nor DBIT`]
              : status !== null && status !== 'BOOK'
                ? ['entry', `status ${quote(status)}: not booked`]
                : !date
                  ? [
                      'date',
                      booked === null && valued === null
                        ? 'no BookgDt or ValDt'
                        : 'BookgDt or ValDt is not a day',
                    ]
                  : null;
      if (problem || typeof amount === 'string' || !dir || !date) {
        const ref = textAt(ntry, 'AcctSvcrRef') ?? textAt(ntry, 'NtryRef');
        errors.push({
          row: ++row,
          code: problem?.[0] ?? 'entry',
          statement,
          detail: ref ? `entry ${quote(ref)}: ${problem?.[1]}` : `${problem?.[1]}`,
        });
        continue;
      }

      const reversal = /^(?:true|1)$/.test(textAt(ntry, 'RvslInd') ?? '');
      const entryRef = refText(textAt(ntry, 'AcctSvcrRef'));
      const addtl = textAt(ntry, 'AddtlNtryInf');
      const batches = all(ntry, 'NtryDtls', 'Btch');
      const batchRefs = batches.flatMap((b) => [textAt(b, 'MsgId'), textAt(b, 'PmtInfId')]);
      const domain = at(ntry, 'BkTxCd', 'Domn');
      const code =
        [textAt(domain, 'Cd'), textAt(domain, 'Fmly', 'Cd'), textAt(domain, 'Fmly', 'SubFmlyCd')]
          .filter((c) => c !== null)
          .join('/') ||
        textAt(ntry, 'BkTxCd', 'Prtry', 'Cd') ||
        null;
      const txs: Tx[] = all(ntry, 'NtryDtls', 'TxDtls').map((node) => {
        const txAmt = at(node, 'AmtDtls', 'TxAmt', 'Amt') ?? at(node, 'Amt');
        const a = amountOf(text(txAmt));
        return {
          node,
          amount: typeof a === 'number' && a > 0 && (attr(txAmt, 'Ccy') ?? ccy) === ccy ? a : null,
          direction: direction(textAt(node, 'CdtDbtInd')),
          acctSvcrRef: refText(textAt(node, 'Refs', 'AcctSvcrRef')),
        };
      });
      const base = {
        date,
        valueDate: valued,
        reversal,
        currency: ccy,
        transactionCode: code,
      };

      // A batch splits per transaction when every transaction states its amount in the entry's currency
      // and they add up to the entry: each is then a payment of its own (one pay-in among a bank's bulk
      // credit). Otherwise the entry is one line: its amount is what the account moved.
      const signedEntry = dir === 'credit' ? amount : -amount;
      const split =
        txs.length >= 2 &&
        txs.every((t) => t.amount !== null) &&
        txs.reduce((s, t) => s + ((t.direction ?? dir) === 'credit' ? t.amount! : -t.amount!), 0) ===
          signedEntry;

      if (split) {
        for (const [k, tx] of txs.entries()) {
          const txDir = tx.direction ?? dir;
          const reference = tx.acctSvcrRef ?? entryRef;
          entries.push({
            ...base,
            row: ++row,
            direction: txDir,
            amount: tx.amount!,
            reference,
            references: otherRefs(reference, [
              ...txRefs(tx.node),
              ...batchRefs,
              entryRef,
              ...creditorRefs(tx.node),
            ]),
            narration: narrationText([
              partyName(tx.node, txDir),
              ...unstructured(tx.node),
              textAt(tx.node, 'AddtlTxInf'),
              addtl,
            ]),
            batch: { index: k + 1, count: txs.length },
          });
        }
      } else {
        const reference = entryRef ?? txs.find((t) => t.acctSvcrRef !== null)?.acctSvcrRef ?? null;
        entries.push({
          ...base,
          row: ++row,
          direction: dir,
          amount,
          reference,
          references: otherRefs(reference, [
            ...txs.flatMap((t) => txRefs(t.node)),
            ...batchRefs,
            ...txs.map((t) => t.acctSvcrRef),
            ...txs.flatMap((t) => creditorRefs(t.node)),
          ]),
          narration: narrationText([
            ...txs.flatMap((t) => [
              partyName(t.node, dir),
              ...unstructured(t.node),
              textAt(t.node, 'AddtlTxInf'),
            ]),
            addtl,
          ]),
          batch: null,
        });
      }
    }
    statements.push({ id: seq ? `${id}/${seq}` : id, account, currency, opening, closing, entries });
  }
  return { ok: true, format: 'camt053', statements, errors };
}
