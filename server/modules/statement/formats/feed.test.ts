/**
 * The feed readers against the real public files in samples/feeds (numbers as SOURCES.md states them,
 * worked out there by hand) and the rules that are easy to get wrong: the entry date's year over the year
 * end, reversals and funds codes, comma decimals, NONREF, camt batches, hostile input.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { noBlowUpTimeoutMs, timeBound } from '../../../test/timeBound.ts';
import {
  type FeedEntry,
  type FeedRead,
  type FeedStatement,
  looksLikeCamt053,
  looksLikeMt940,
  readCamt053,
  readMt940,
} from './feed.ts';

const samples = join(import.meta.dirname, '../samples/feeds');
const sampleFiles = readdirSync(samples).filter((f) => /\.(?:sta|xml)$/.test(f));
const sample = (file: string) => readFileSync(join(samples, file), 'utf8');
const read = (file: string) => (file.endsWith('.xml') ? readCamt053 : readMt940)(sample(file));

/** `1234.56` (as SOURCES.md writes sums) into hundredths, by text. */
function cents(s: string): number {
  const m = /^(-?)(\d+)\.(\d\d)$/.exec(s);
  if (!m) throw new Error(`bad figure ${s}`);
  const v = Number(m[2]! + m[3]!);
  return m[1] ? -v : v;
}
/** A balance as MT940 writes it (`C090924DKK2478926,70`), signed hundredths. */
function swiftBalance(s: string): { date: string; amount: number; currency: string } {
  const m = /^([CD])(\d\d)(\d\d)(\d\d)([A-Z]{3})(\d+),(\d*)$/.exec(s);
  if (!m) throw new Error(`bad balance ${s}`);
  const v = Number(m[6]! + m[7]!.padEnd(2, '0'));
  return { date: `20${m[2]}-${m[3]}-${m[4]}`, amount: m[1] === 'D' ? -v : v, currency: m[5]! };
}

function ok(r: FeedRead) {
  if (!r.ok) throw new Error(`not read: ${r.detail}`);
  return r;
}
const entriesOf = (r: FeedRead) => ok(r).statements.flatMap((s) => s.entries);
const sum = (es: FeedEntry[]) => es.reduce((a, e) => a + e.amount, 0);
const net = (s: FeedStatement) =>
  s.entries.reduce((a, e) => a + (e.direction === 'credit' ? e.amount : -e.amount), 0);
const reconciles = (s: FeedStatement) =>
  !!s.opening && !!s.closing && s.opening.amount + net(s) === s.closing.amount;
const tally = (es: FeedEntry[]) => {
  const c = es.filter((e) => e.direction === 'credit');
  const d = es.filter((e) => e.direction === 'debit');
  return { credits: [c.length, sum(c)], debits: [d.length, sum(d)] };
};

interface Pin {
  format: 'mt940' | 'camt053';
  statements: number;
  /** FeedEntries: a camt batch split per transaction counts each transaction. */
  entries: number;
  /** camt: the Ntry elements, what SOURCES.md counts as entries. */
  ntries?: number;
  credits: [number, string];
  /** Direction debit, reversals of credits (RC) included. */
  debits: [number, string];
  reversals: number;
  currency: string;
  /** The first statement's opening and the last one's closing: day and signed amount. */
  opening: [string, string];
  closing: [string, string];
  /** Earliest and latest booking day. */
  dates: [string, string];
  /** Opening + entries = closing, per statement (SOURCES.md "balance check"). */
  reconciles: boolean[];
}

const all = (n: number, v: boolean) => Array.from({ length: n }, () => v);

/** SOURCES.md's figures, file by file. */
const pins: Record<string, Pin> = {
  'mt940-mt940rs-danskebank-dk.sta': {
    format: 'mt940',
    statements: 15,
    entries: 89,
    credits: [8, '3910886.35'],
    debits: [81, '2538433.58'],
    reversals: 0,
    currency: 'DKK',
    opening: ['2009-09-24', '2478926.70'],
    closing: ['2009-10-20', '3851379.47'],
    dates: ['2009-09-25', '2009-10-20'],
    reconciles: all(15, true),
  },
  'mt940-betterplace-dresdner-sepa.sta': {
    format: 'mt940',
    statements: 26,
    entries: 97,
    credits: [41, '5188474.94'],
    // 54 D (14457201.08) and 2 RC (409.76).
    debits: [56, '14457610.84'],
    reversals: 2,
    currency: 'EUR',
    opening: ['2007-09-03', '-1234718.36'],
    closing: ['2007-09-04', '50.05'],
    dates: ['2007-09-04', '2007-09-04'],
    reconciles: all(26, true),
  },
  'mt940-jejik-abnamro.sta': {
    format: 'mt940',
    statements: 2,
    entries: 10,
    credits: [0, '0.00'],
    debits: [10, '345.93'],
    reversals: 0,
    currency: 'EUR',
    opening: ['2011-05-22', '3236.28'],
    closing: ['2011-05-24', '1849.75'],
    dates: ['2011-05-23', '2011-05-24'],
    // Anonymised: neither statement adds up.
    reconciles: [false, false],
  },
  'mt940-jejik-ing.sta': {
    format: 'mt940',
    statements: 1,
    entries: 7,
    credits: [2, '4.68'],
    debits: [5, '50.27'],
    reversals: 0,
    currency: 'EUR',
    opening: ['2010-07-22', '0.00'],
    closing: ['2010-07-23', '3.47'],
    dates: ['2010-07-22', '2010-07-23'],
    reconciles: [false],
  },
  'mt940-jejik-postfinance.sta': {
    format: 'mt940',
    statements: 2,
    entries: 4,
    credits: [3, '239.30'],
    debits: [1, '79.90'],
    reversals: 0,
    currency: 'CHF',
    opening: ['2013-11-30', '0.00'],
    closing: ['2014-04-07', '159.60'],
    dates: ['2013-12-09', '2013-12-18'],
    reconciles: [true, false],
  },
  'mt940-jejik-sparkasse-interim.sta': {
    format: 'mt940',
    statements: 3,
    entries: 2,
    credits: [0, '0.00'],
    debits: [2, '40.00'],
    reversals: 0,
    currency: 'EUR',
    opening: ['2019-02-15', '194.57'],
    closing: ['2021-11-02', '0.00'],
    dates: ['2019-02-18', '2019-02-19'],
    reconciles: [true, true, true],
  },
  'mt940-wolph-sberbank-hu.sta': {
    format: 'mt940',
    statements: 1,
    entries: 3,
    credits: [0, '0.00'],
    debits: [3, '9437.00'],
    reversals: 0,
    currency: 'HUF',
    opening: ['2017-10-11', '627311.30'],
    closing: ['2017-10-11', '617874.30'],
    dates: ['2017-10-11', '2017-10-11'],
    reconciles: [true],
  },
  'mt940-wolph-mbank-pl.sta': {
    format: 'mt940',
    statements: 1,
    entries: 3,
    credits: [3, '0.03'],
    debits: [0, '0.00'],
    reversals: 0,
    currency: 'PLN',
    opening: ['2017-01-19', '0.40'],
    closing: ['2017-01-19', '0.43'],
    dates: ['2017-01-19', '2017-01-19'],
    reconciles: [true],
  },
  'camt053-iso20022-business-example-v04.xml': {
    format: 'camt053',
    statements: 1,
    entries: 3,
    ntries: 3,
    credits: [2, '135678.50'],
    debits: [1, '200000.00'],
    reversals: 0,
    currency: 'SEK',
    opening: ['2010-10-15', '500000.00'],
    closing: ['2010-10-18', '435678.50'],
    dates: ['2010-10-18', '2010-10-18'],
    reconciles: [true],
  },
  'camt053-fffs-finland-sample-v02.xml': {
    format: 'camt053',
    statements: 1,
    // 10 entries; entry 3 is three transactions with amounts, entry 10 two.
    entries: 13,
    ntries: 10,
    credits: [6, '23075.00'],
    debits: [7, '9430.17'],
    reversals: 0,
    currency: 'CHF',
    opening: ['2017-07-29', '10000.00'],
    closing: ['2017-07-29', '23644.83'],
    dates: ['2017-07-29', '2017-07-29'],
    reconciles: [true],
  },
};

describe('the public sample files (samples/feeds, SOURCES.md)', () => {
  it('has figures pinned here for every sample file', () => {
    expect(sampleFiles.filter((f) => !(f in pins))).toEqual([]);
    expect(Object.keys(pins).filter((f) => !sampleFiles.includes(f))).toEqual([]);
  });

  for (const file of sampleFiles) {
    it(`reads ${file} (whatever is pinned) without errors`, () => {
      const r = ok(read(file));
      expect(r.errors).toEqual([]);
      expect(r.format).toBe(file.endsWith('.xml') ? 'camt053' : 'mt940');
      expect(looksLikeMt940(sample(file))).toBe(r.format === 'mt940');
      expect(looksLikeCamt053(sample(file))).toBe(r.format === 'camt053');
      // Rows count 1, 2, 3 … through the file.
      expect(r.statements.flatMap((s) => s.entries.map((e) => e.row))).toEqual(
        Array.from({ length: r.statements.reduce((a, s) => a + s.entries.length, 0) }, (_, i) => i + 1),
      );
    });
  }

  for (const [file, pin] of Object.entries(pins)) {
    it(`${file}: ${pin.statements} statements, ${pin.entries} entries, sums and balances as SOURCES.md`, () => {
      const r = ok(read(file));
      const es = r.statements.flatMap((s) => s.entries);
      expect(r.format).toBe(pin.format);
      expect(r.statements).toHaveLength(pin.statements);
      expect(es).toHaveLength(pin.entries);
      if (pin.ntries !== undefined)
        expect(es.filter((e) => (e.batch?.index ?? 1) === 1)).toHaveLength(pin.ntries);
      expect(tally(es)).toEqual({
        credits: [pin.credits[0], cents(pin.credits[1])],
        debits: [pin.debits[0], cents(pin.debits[1])],
      });
      expect(es.filter((e) => e.reversal)).toHaveLength(pin.reversals);
      expect(new Set(es.map((e) => e.currency))).toEqual(new Set(es.length ? [pin.currency] : []));
      expect(new Set(r.statements.map((s) => s.currency))).toEqual(new Set([pin.currency]));
      expect(r.statements[0]!.opening).toEqual({
        date: pin.opening[0],
        amount: cents(pin.opening[1]),
        currency: pin.currency,
      });
      expect(r.statements.at(-1)!.closing).toEqual({
        date: pin.closing[0],
        amount: cents(pin.closing[1]),
        currency: pin.currency,
      });
      const days = es.map((e) => e.date).sort();
      expect([days[0], days.at(-1)]).toEqual(pin.dates);
      expect(r.statements.map(reconciles)).toEqual(pin.reconciles);
      for (const e of es) {
        expect(Number.isSafeInteger(e.amount) && e.amount > 0).toBe(true);
        expect(e.date).toMatch(/^\d{4}-\d\d-\d\d$/);
        expect(e.narration.length).toBeLessThanOrEqual(1000);
        expect(e.narration).toBe(e.narration.replace(/\s+/g, ' ').trim());
        expect(e.references).not.toContain(e.reference);
        expect(e.references.filter((x) => /^(?:NONREF|NOTPROVIDED|)$/.test(x))).toEqual([]);
      }
    });
  }

  it('Danske Bank: every statement as SOURCES.md tabulates it', () => {
    // # | :28C: | opening | closing | entries | C n/sum | D n/sum
    const table = `
      00001/001 C090924DKK2478926,70 C090930DKK1654095,16 7 2/7183.49 5/832015.03
      00002/001 C090930DKK1654095,16 C091001DKK1579323,50 3 1/993.75 2/75765.41
      00003/001 C091001DKK1579323,50 C091002DKK1415915,38 16 0/0.00 16/163408.12
      00004/001 C091002DKK1415915,38 C091005DKK1341596,48 9 0/0.00 9/74318.90
      00005/001 C091005DKK1341596,48 C091006DKK850453,81 2 1/3260.00 1/494402.67
      00006/001 C091006DKK850453,81 C091007DKK847136,71 1 0/0.00 1/3317.10
      00007/001 C091007DKK847136,71 C091009DKK706052,73 16 0/0.00 16/141083.98
      00008/001 C091009DKK706052,73 C091012DKK705077,48 2 0/0.00 2/975.25
      00009/001 C091012DKK705077,48 C091013DKK703158,75 3 0/0.00 3/1918.73
      00010/001 C091013DKK703158,75 C091014DKK626707,39 7 0/0.00 7/76451.36
      00011/001 C091014DKK626707,39 C091015DKK612129,81 3 0/0.00 3/14577.58
      00012/001 C091015DKK612129,81 C091016DKK2040421,62 14 2/1747425.00 12/319133.19
      00012/002 C091016DKK2040421,62 C091016DKK4112647,73 1 1/2072226.11 0/0.00
      00013/001 C091016DKK4112647,73 C091019DKK3859701,48 3 1/79798.00 2/332744.25
      00014/001 C091019DKK3859701,48 C091020DKK3851379,47 2 0/0.00 2/8322.01`;
    const r = ok(read('mt940-mt940rs-danskebank-dk.sta'));
    const rows = table.trim().split('\n');
    expect(r.statements).toHaveLength(rows.length);
    for (const [i, line] of rows.entries()) {
      const [seq, open, close, n, c, d] = line.trim().split(/\s+/) as [
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      const s = r.statements[i]!;
      const [cn, cs] = c.split('/') as [string, string];
      const [dn, ds] = d.split('/') as [string, string];
      expect(s.id).toBe(`3996-1234567890/${seq}`);
      expect(s.account).toBe('DABADKKK/1234567890');
      expect(s.opening).toEqual(swiftBalance(open));
      expect(s.closing).toEqual(swiftBalance(close));
      expect(s.entries).toHaveLength(Number(n));
      expect(tally(s.entries)).toEqual({ credits: [Number(cn), cents(cs)], debits: [Number(dn), cents(ds)] });
    }
  });

  it('Danske Bank: the pinned entries', () => {
    const r = ok(read('mt940-mt940rs-danskebank-dk.sta'));
    const [first] = r.statements[0]!.entries;
    // `:61:0909290929DK829419,78NTRFDansken`, no :86:: the customer reference is all there is to read.
    expect(first).toMatchObject({
      row: 1,
      date: '2009-09-29',
      valueDate: '2009-09-29',
      direction: 'debit',
      reversal: false,
      amount: 82941978,
      currency: 'DKK',
      reference: 'Dansken',
      references: [],
      narration: 'Dansken',
      transactionCode: 'NTRF',
    });
    const faktura = r.statements[0]!.entries.find((e) => e.reference === '1234567');
    expect(faktura).toMatchObject({
      date: '2009-09-29',
      valueDate: '2009-09-30',
      direction: 'credit',
      amount: 200000,
      references: ['DB faktura'],
      narration: 'DB faktura 1234567 Testkunde HOLMENS KANAL 2-12 1192 KOBENHAVN H',
      transactionCode: 'NMSC',
    });
    const rente = r.statements[0]!.entries.find((e) => e.reference === 'Rente');
    expect(rente).toMatchObject({
      date: '2009-09-30',
      valueDate: '2009-10-01',
      direction: 'credit',
      amount: 518349,
    });
    expect(r.statements.at(-1)!.entries.at(-1)).toMatchObject({
      date: '2009-10-20',
      direction: 'debit',
      amount: 300951,
      reference: 'DBT.Pet Van Park',
      // A line of the full 65 characters (`…NL47ABNAXXXX|558756…`) joins on without a blank.
      narration:
        'DBTS 1111272333/Bnf. PET VAN PARK AMSTERDAM/Bnf.acc. NL47ABNAXXXX558756/Our fee DKK 40,00/Foreign fee DKK 200,00',
    });
    // `Gebyrer ifolge//nota`: the bank reference is whatever follows `//`, as the format says.
    expect(r.statements[0]!.entries[1]).toMatchObject({ reference: 'nota', references: ['Gebyrer ifolge'] });
    // `DBT.banktesten--//-`: a dash is no bank reference, so the customer's.
    const dashes = r.statements.flatMap((s) => s.entries).find((e) => e.narration === 'DBT.banktesten---');
    expect(dashes).toMatchObject({ reference: 'DBT.banktesten--', references: [] });
    // The statement-level :86: (IBAN, BIC, address) before the first :61: belongs to no entry.
    expect(r.statements.flatMap((s) => s.entries).some((e) => e.narration.includes('DABADKKK'))).toBe(false);
  });

  it('Dresdner Bank SEPA: every statement as SOURCES.md tabulates it', () => {
    // # | :25: | :28C: | opening | closing | n | C n/sum | D n/sum | RC n/sum
    const table = `
      0194774600888 00004/00001 D070903EUR1234718,36 D070904EUR1237628,23 7 5/997241.96 1/999946.95 1/204.88
      0194777100888 00004/00001 D070903EUR970499,9 D070904EUR1455749,85 2 1/15000.05 1/500250.00 0/0.00
      0194778300888 00004/00001 D070903EUR1709296,34 D070904EUR2237334,85 5 3/125180.81 2/653219.32 0/0.00
      0194779500888 00004/00001 C070903EUR3192675,04 C070904EUR4242675,04 3 3/1050000.00 0/0.00 0/0.00
      0194780100888 00004/00001 D070903EUR2368827,87 D070904EUR3095522,14 5 1/204.88 3/726694.27 1/204.88
      0194780101888 00004/00001 C070903EUR152970,15 C070904EUR203960,2 1 1/50990.05 0/0.00 0/0.00
      0194781300888 00004/00001 D070903EUR40432,2 D070904EUR30503,83 4 1/19990.05 3/10061.68 0/0.00
      0194781300888 00004/00002 D070904EUR30503,83 D070904EUR100854,45 4 0/0.00 4/70350.62 0/0.00
      0194782500888 00004/00001 D070903EUR1552497,38 D070904EUR1358945,52 8 5/201202.10 3/7650.24 0/0.00
      0194782500888 00004/00002 D070904EUR1358945,52 D070904EUR2303471,11 3 0/0.00 3/944525.59 0/0.00
      0194783700888 00004/00001 D070903EUR3829477,87 D070904EUR2931994,84 6 2/915646.88 4/18163.85 0/0.00
      0194783700888 00004/00002 D070904EUR2931994,84 D070904EUR5019697,96 6 0/0.00 6/2087703.12 0/0.00
      0194784900888 00004/00001 D070903EUR5777585,57 D070904EUR6018113,38 6 2/171052.00 4/411579.81 0/0.00
      0194784900888 00004/00002 D070904EUR6018113,38 D070904EUR8844425,38 3 0/0.00 3/2826312.00 0/0.00
      0194784901888 00003/00001 C070903EUR13990,05 C070904EUR27980,1 1 1/13990.05 0/0.00 0/0.00
      0194785000888 00004/00001 D070903EUR3612519,02 D070904EUR3632585,04 5 0/0.00 5/20066.02 0/0.00
      0194785000888 00004/00002 D070904EUR3632585,04 D070904EUR3814901,47 5 0/0.00 5/182316.43 0/0.00
      0194785000888 00004/00003 D070904EUR3814901,47 D070904EUR5113593,52 2 0/0.00 2/1298692.05 0/0.00
      0194785001888 00004/00001 C070903EUR152970,15 C070904EUR203960,2 1 1/50990.05 0/0.00 0/0.00
      0194786200888 00004/00001 C070903EUR145964,58 C070904EUR238954,77 3 3/92990.19 0/0.00 0/0.00
      0194787400888 00004/00001 C070903EUR766656,49 C070904EUR1125250,4 4 3/360093.91 1/1500.00 0/0.00
      0194791600888 00004/00001 D070903EUR1970431,87 D070904EUR4472049,09 7 6/1070951.81 1/3572569.03 0/0.00
      0194791601888 00004/00001 D070903EUR324910,25 D070904EUR397310,25 3 2/52900.10 1/125300.10 0/0.00
      0194798900888 00004/00001 D070903EUR450, D070904EUR600, 1 0/0.00 1/150.00 0/0.00
      0194799000888 00004/00001 D070903EUR450, D070904EUR600, 1 0/0.00 1/150.00 0/0.00
      0194804000888 00001/00001 C070822EUR0, C070904EUR50,05 1 1/50.05 0/0.00 0/0.00`;
    const r = ok(read('mt940-betterplace-dresdner-sepa.sta'));
    const rows = table.trim().split('\n');
    expect(r.statements).toHaveLength(rows.length);
    const pair = (s: string) => {
      const [n, v] = s.split('/') as [string, string];
      return [Number(n), cents(v)];
    };
    for (const [i, line] of rows.entries()) {
      const [account, seq, open, close, n, c, d, rc] = line.trim().split(/\s+/) as string[];
      const s = r.statements[i]!;
      expect(s.account).toBe(`50880050/${account}`);
      expect(s.id.endsWith(`/${seq}`)).toBe(true);
      expect(s.opening).toEqual(swiftBalance(open!));
      expect(s.closing).toEqual(swiftBalance(close!));
      expect(s.entries).toHaveLength(Number(n));
      const plain = s.entries.filter((e) => !e.reversal);
      const reversed = s.entries.filter((e) => e.reversal);
      expect(tally(plain)).toEqual({ credits: pair(c!), debits: pair(d!) });
      // RC: reversals of credits, debits in effect.
      expect(reversed.every((e) => e.direction === 'debit')).toBe(true);
      expect([reversed.length, sum(reversed)]).toEqual(pair(rc!));
    }
    const values = r.statements.flatMap((s) => s.entries.map((e) => e.valueDate!)).sort();
    expect([values[0], values.at(-1)]).toEqual(['2007-09-04', '2007-09-07']);
  });

  it('Dresdner Bank SEPA: the pinned entries, structured :86: read', () => {
    const r = ok(read('mt940-betterplace-dresdner-sepa.sta'));
    expect(r.statements[0]!.entries[0]).toMatchObject({
      date: '2007-09-04',
      direction: 'credit',
      reversal: false,
      amount: 30000,
      reference: '0724710345313905',
      references: ['TFNr 40005 MSGID'],
      transactionCode: 'NTRF',
      // ?00 booking text, then ?20-?29 concatenated (`s|pezifizie|rt` were cut by width).
      narration:
        'RETOURE EREF+TFNR 40005 00005MTLG:Grund nicht spezifiziert Reject aus SEPA-Ueberweisungsauftrag',
    });
    // `RCR204,88NRTINONREF`: a reversal of a credit with funds code R.
    expect(r.statements[0]!.entries.find((e) => e.reversal)).toMatchObject({
      direction: 'debit',
      amount: 20488,
      reference: null,
      references: [],
      narration: 'SAMMLER/STORNO 0904059003',
      transactionCode: 'NRTI',
    });
    expect(r.statements[4]!.entries.find((e) => e.reversal)).toMatchObject({
      direction: 'debit',
      amount: 20488,
      reference: 'R724710290656678',
      references: ['MSGIDCTSc03MintT'],
      narration: 'SEPA-UEBERW/STORNO',
    });
    const s21 = r.statements[20]!;
    expect(s21.entries.find((e) => e.reference === '0724710333343453')).toMatchObject({
      date: '2007-09-04',
      valueDate: '2007-09-07',
      direction: 'credit',
      amount: 5099005,
      references: [],
      // ?32KARL?33        KAUFMANN: the name's two parts.
      narration:
        'GUTSCHRIFT KARL KAUFMANN EREF+EndToEndId TFNR 22 004 00001 SVWZ+Verw CTSc-01 BC-PPP TFNr 22 004',
    });
    // The marker `?22` is cut across the line break: `?2` / `2MTLG…`.
    expect(s21.entries.find((e) => e.amount === 150000)).toMatchObject({
      direction: 'debit',
      reference: '536D80EFEC56ACF8',
      references: ['KREF+'],
      narration:
        'SEPA-UEBERW KREF+TFNr 01022 MSGID CTSc-01 EBBMTLG:SEPA-Ueberweisungsauftrag Datei mit 0000001 Zahlungen',
    });
  });

  it('ABN AMRO: header lines between messages, :28: and :28C:, an empty line inside a field', () => {
    const r = ok(read('mt940-jejik-abnamro.sta'));
    expect(r.statements.map((s) => [s.id, s.account])).toEqual([
      ['ABN AMRO BANK NV/19321/1', '517852257'],
      ['ABN AMRO BANK NV/19322/1', '517852257'],
    ]);
    const [first, second] = r.statements;
    expect(first!.entries).toHaveLength(8);
    expect(sum(first!.entries)).toBe(32144);
    expect(sum(second!.entries)).toBe(2449);
    expect(first!.entries[0]).toMatchObject({
      date: '2011-05-24',
      direction: 'debit',
      amount: 900,
      reference: null,
      references: [],
      transactionCode: 'N192',
      narration:
        'GIRO 428428 KPN - DIGITENNE BETALINGSKENM. 000000042188659 5314606715 BETREFT FACTUUR D.D. 20-05-2011 INCL. 1,44 BTW',
    });
    expect(first!.entries[3]).toMatchObject({
      date: '2011-05-23',
      valueDate: '2011-05-22',
      amount: 1180,
      narration: 'BEA NR:XXX1234 22.05.11/14.25 MC DONALDS A44 LEIDEN,PAS999',
    });
    expect(second!.entries[1]).toMatchObject({
      date: '2011-05-24',
      amount: 1500,
      narration: '52.89.39.882 MYCOM DEN HAAG',
    });
    // Intermediate page: :60M:/:62M:.
    expect(second!.opening?.amount).toBe(287684);
    expect(second!.closing?.amount).toBe(184975);
  });

  it('ING: FIN blocks, no entry dates, `NOV ` types, a summary :86: after :62F:', () => {
    const r = ok(read('mt940-jejik-ing.sta'));
    const [s] = r.statements;
    expect(s).toMatchObject({ id: 'MPBZ/000', account: '0001234567', currency: 'EUR' });
    expect(s!.entries.filter((e) => e.date === '2010-07-22')).toHaveLength(6);
    expect(s!.entries[0]).toMatchObject({
      date: '2010-07-22',
      valueDate: '2010-07-22',
      direction: 'debit',
      amount: 2503,
      reference: null,
      transactionCode: 'NOV',
      narration:
        'RC AFREKENING BETALINGSVERKEER BETREFT REKENING 4715589 PERIODE: 01-10-2010 / 31-12-2010 ING Bank N.V. tarifering ING',
    });
    expect(s!.entries[2]).toMatchObject({
      amount: 111,
      reference: 'TMG TANGO',
      narration:
        '0111111111 ING iDEAL KN: TMG TANGO TRANSACTIENR 0050000534527978 10\u00ad06\u00ad2010 15:32 TMG TANGO ING Bank inzake GPKyoto',
    });
    expect(s!.entries[1]!.narration).toBe('0111111111 GPSEOUL SPOEDBETALING MPBZS1016000047 GPSEOUL');
    expect(s!.entries.at(-1)).toMatchObject({
      date: '2010-07-23',
      direction: 'credit',
      amount: 100,
      narration:
        '0111111111 Hr S Marechal ROSMALEN Hr S Marechal ROSMALEN Betaling transactiedatum: 22-07-2010',
    });
    expect(s!.entries.some((e) => e.narration.includes('D000004C000002'))).toBe(false);
  });

  it('PostFinance: SOH/ETX framing, two messages on one line, supplementary details, width-cut :86:', () => {
    const r = ok(read('mt940-jejik-postfinance.sta'));
    expect(r.statements.map((s) => s.id)).toEqual(['2014040708285927/999/1', '2014040708285928/999/2']);
    const es = r.statements.flatMap((s) => s.entries);
    expect(es[0]).toMatchObject({
      date: '2013-12-09',
      direction: 'credit',
      amount: 7970,
      // `01916//NONREF`: no bank reference, so the customer's.
      reference: '01916',
      references: ['20131209007602198765432000000012'],
      transactionCode: 'FMSC',
      narration:
        'GIRO AUS ONLINE-SIC 80532 AUFTRAGGEBER: JANE DOE EXAMPLESTRASSE 10 1234 XXXX 131209CH98765432 MITTEILUNGEN: RECHNUNG XXXXXXXXXXXX',
    });
    expect(es[2]).toMatchObject({
      date: '2013-12-16',
      direction: 'debit',
      amount: 7990,
      references: ['20131216007602112345678000000012'],
      narration:
        'GIRO AUS ONLINE-SIC 80701 AUFTRAGGEBER: XXXXXXXXX XXX XXXXXXXXSTRASSE 111 1234 XXXXXXXXXXXX 131216CH12345678 MITTEILUNGEN: 1 SONNENGLAESER',
    });
    expect(es[3]).toMatchObject({
      date: '2013-12-18',
      amount: 1010,
      reference: '01651',
      narration: 'EINZAHLUNGSSCHEIN',
    });
  });

  it('Sparkasse: LF only, `DR` is a debit with funds code R, a statement with no entries', () => {
    const r = ok(read('mt940-jejik-sparkasse-interim.sta'));
    expect(r.statements.map((s) => [s.id, s.entries.length])).toEqual([
      ['STARTUMSE/00000/001', 1],
      ['STARTUMSE/00000/001', 1],
      ['STARTUMSE/00215/00129', 0],
    ]);
    const [a, b] = r.statements.flatMap((s) => s.entries);
    expect(a).toMatchObject({
      date: '2019-02-18',
      direction: 'debit',
      reversal: false,
      amount: 2000,
      reference: null,
      transactionCode: 'N037',
      narration:
        'KARTENZAHLUNG ARAL AG SVWZ+2019-02-15T20.10 Debitk.4 2019-12 ABWA+Aral Tankstelle Chemnitz Leipziger Straße 257//Chemnitz/DE',
    });
    expect(b).toMatchObject({
      date: '2019-02-19',
      amount: 2000,
      narration: 'ONLINE-UEBERWEISUNG Max Mustermann SVWZ+Apple PayDATUM 19.02.2019, 13.24 UHR1.TAN 002153',
    });
  });

  it('Sberbank: :NS: instead of :86:, `DF` with funds code F, `S   ` transaction type', () => {
    const r = ok(read('mt940-wolph-sberbank-hu.sta'));
    expect(r.statements[0]).toMatchObject({
      id: 'STARTUMS/00046',
      account: '1966315302010001',
      currency: 'HUF',
    });
    const es = r.statements[0]!.entries;
    expect(es.map((e) => [e.amount, e.direction, e.reference, e.transactionCode])).toEqual([
      [240200, 'debit', 'X', 'S'],
      [346000, 'debit', 'X', 'S'],
      [357500, 'debit', 'X', 'S'],
    ]);
    // With no :86:, the :NS: lines are what there is to read.
    expect(es[0]!.narration).toContain('15ERGO Versicherung AG Fiokte 16lep');
    expect(es[1]!.narration).toContain('15ERGO Eletbiztosito Zrt.');
    expect(es[2]!.narration).toContain('09Tranz. Illet\ufffdk: 10.73HUF');
    // The statement-level :NS: (between :28: and :60F:) belongs to no entry.
    expect(es.some((e) => e.narration.includes('JOHN DOE'))).toBe(false);
  });

  it('mBank: bank references after `//`, supplementary details on the second :61: line', () => {
    const es = entriesOf(read('mt940-wolph-mbank-pl.sta'));
    expect(es.map((e) => [e.amount, e.reference, e.references])).toEqual([
      [1, 'MB170119012058', ['911-TRANSAKCJA IPH']],
      [1, 'MB170119012085', ['911-TRANSAKCJA IPH']],
      [1, 'MB170119012121', ['911-TRANSAKCJA IPH']],
    ]);
    expect(es[0]!.narration).toBe(
      '911 TRANSAKCJA COLLECT; ID IPH: XX000000000001; Z RACH.: 56114010810000267002001001; OD: JAN NOWAK UL. NIJAKA 1 M 2 31-234 KRAKOW; TYT.: PRZELEW SRODKOW ; TNR: 179171073864111.010001',
    );
    expect(es[2]!.narration.endsWith('TNR: 179171073864291.000001')).toBe(true);
  });

  it('ISO 20022 business example: DtTm booking dates, a batch without transactions, a foreign TxDtls/Amt', () => {
    const r = ok(read('camt053-iso20022-business-example-v04.xml'));
    expect(r.statements[0]).toMatchObject({
      id: 'AAAASESS-FP-STAT001',
      account: '50000000054910000003',
      currency: 'SEK',
    });
    const byRef = (ref: string) => r.statements[0]!.entries.find((e) => e.reference === ref);
    // One TxDtls (its Amt SEK 0): one entry with the entry's amount.
    expect(byRef('AAAASESS-FP-CN_98765/01')).toMatchObject({
      date: '2010-10-18',
      valueDate: '2010-10-18',
      direction: 'credit',
      amount: 10567850,
      references: ['MUELL/FINP/RA12345'],
      narration: 'MUELLER',
      transactionCode: 'PAYM/0001/0005',
      batch: null,
    });
    expect(byRef('AAAASESS-FP-ACCR-01')).toMatchObject({
      direction: 'debit',
      amount: 20000000,
      references: ['FINP-0055', 'FINP-0055/001'],
      batch: null,
    });
    // TxDtls/Amt EUR 3255 in a SEK statement: the entry's SEK 30000 is what the account moved.
    expect(byRef('AAAASESS-FP-CONF-FX')).toMatchObject({
      direction: 'credit',
      amount: 3000000,
      currency: 'SEK',
      references: ['AAAASS1085FINPSS', 'FP-004567-FX'],
    });
  });

  it('FFFS Finland: a batch of three split per transaction, two transactions sharing one AcctSvcrRef', () => {
    const r = ok(read('camt053-fffs-finland-sample-v02.xml'));
    const s = r.statements[0]!;
    expect(s).toMatchObject({ id: 'BANKSTMTID0972009/120', account: 'FI7433010001222090', currency: 'CHF' });
    const batch = s.entries.filter((e) => e.references.includes('091029ACCTSTMTARCH03'));
    expect(batch.map((e) => [e.row, e.amount, e.direction, e.reference, e.batch])).toEqual([
      [3, 200002, 'debit', '091029ARCH03001', { index: 1, count: 3 }],
      [4, 100001, 'debit', '091029ARCH03002', { index: 2, count: 3 }],
      [5, 123002, 'debit', '091029ARCH03003', { index: 3, count: 3 }],
    ]);
    expect(sum(batch)).toBe(423005);
    expect(batch[0]!.references).toEqual([
      'TITOT1106ID01',
      'MSGSCT0100',
      'CustRefForPmtBatch9',
      '091029ACCTSTMTARCH03',
      '3900',
    ]);
    expect(batch[1]!.narration).toBe('Creditor Company Invoices 123 and 321');
    expect(s.entries.find((e) => e.reference === '091029ACCTSTMTARCH06')).toMatchObject({
      date: '2017-07-29',
      valueDate: '2017-07-30',
      direction: 'credit',
      amount: 212000,
      // InstrId and TxId are the same: listed once.
      references: ['ISSRBKREF12345678'],
      narration: 'DEBTOR NAME INVOICE US20291092',
      transactionCode: 'PMNT/RCDT/XBCT',
    });
    expect(s.entries.find((e) => e.reference === '091029ACCTSTMTARCH08')).toMatchObject({
      amount: 1000000,
      references: ['EndToEndIdSCT01', 'RF98123456789012'],
      narration: 'DEBTOR',
    });
    // Entry 1: a batch of 4 with one TxDtls; entry 2: a batch with none. Each is one line.
    expect(s.entries[0]).toMatchObject({
      amount: 100012,
      batch: null,
      references: ['MSGSALA0001', 'CustRefForSalaBatch'],
    });
    expect(s.entries[1]).toMatchObject({ amount: 400000, batch: null });
    const charges = s.entries.filter((e) => e.transactionCode === 'PMNT/RCDT/CHRG');
    expect(charges.map((e) => [e.amount, e.reference, e.batch?.index])).toEqual([
      [10000, '091029ARCH09001', 1],
      [10000, '091029ARCH09001', 2],
    ]);
  });
});

/** A one-statement MT940 around the given :61:/:86: lines. */
const mt940 = (body: string, opening = 'C240101INR0,') =>
  `:20:TEST\r\n:25:123456789\r\n:28C:1/1\r\n:60F:${opening}\r\n${body}\r\n:62F:C240131INR0,\r\n-`;
const only = (text: string) => {
  const es = entriesOf(readMt940(text));
  expect(es).toHaveLength(1);
  return es[0]!;
};

describe('MT940 rules', () => {
  it('gives the entry date the year that puts it nearest the value date', () => {
    expect(only(mt940(':61:1912310102C1,NTRFX'))).toMatchObject({
      date: '2020-01-02',
      valueDate: '2019-12-31',
    });
    expect(only(mt940(':61:2001021231C1,NTRFX'))).toMatchObject({
      date: '2019-12-31',
      valueDate: '2020-01-02',
    });
    expect(only(mt940(':61:2406150614C1,NTRFX'))).toMatchObject({
      date: '2024-06-14',
      valueDate: '2024-06-15',
    });
    expect(only(mt940(':61:2403010229C1,NTRFX'))).toMatchObject({ date: '2024-02-29' });
    expect(only(mt940(':61:240301C1,NTRFX'))).toMatchObject({ date: '2024-03-01', valueDate: '2024-03-01' });
    // Years 00-79 are 20xx, 80-99 19xx.
    expect(only(mt940(':61:791231C1,NTRFX')).date).toBe('2079-12-31');
    expect(only(mt940(':61:800101C1,NTRFX')).date).toBe('1980-01-01');
    expect(only(mt940(':61:9912310101C1,NTRFX')).date).toBe('2000-01-01');
  });

  it('answers a date error for a day that does not exist, and reads on', () => {
    const r = ok(readMt940(mt940(':61:2503010229C1,NTRFX\r\n:61:250230C1,NTRFX\r\n:61:250301C5,NTRFY')));
    expect(r.errors.map((e) => [e.row, e.code, e.statement])).toEqual([
      [1, 'date', 1],
      [2, 'date', 1],
    ]);
    expect(r.statements[0]!.entries.map((e) => [e.row, e.amount])).toEqual([[3, 500]]);
  });

  it('reads C, D, RC and RD, with or without a funds code', () => {
    const es = entriesOf(
      readMt940(
        mt940(
          [
            ':61:240105C10,NTRFA',
            ':61:240105D10,NTRFB',
            ':61:240105RC10,NTRFC',
            ':61:240105RD10,NTRFD',
            ':61:240105CR10,NTRFE',
            ':61:240105DR10,NTRFF',
            ':61:240105RCR10,NTRFG',
            ':61:240105RDI10,NTRFH',
          ].join('\r\n'),
        ),
      ),
    );
    expect(es.map((e) => [e.reference, e.direction, e.reversal])).toEqual([
      ['A', 'credit', false],
      ['B', 'debit', false],
      ['C', 'debit', true],
      ['D', 'credit', true],
      ['E', 'credit', false],
      ['F', 'debit', false],
      ['G', 'debit', true],
      ['H', 'credit', true],
    ]);
  });

  it('reads comma decimals as text, never through a float', () => {
    const amounts = (xs: string[]) =>
      entriesOf(readMt940(mt940(xs.map((x) => `:61:240105C${x}NTRFX`).join('\r\n')))).map((e) => e.amount);
    expect(amounts(['1234,5', '1234,', '0,01', '1234,56', '0,1', '1,230', '000123,45'])).toEqual([
      123450, 123400, 1, 123456, 10, 123, 12345,
    ]);
    // 0.1 + 0.2 style: sums stay exact.
    expect(amounts(['0,10', '0,20']).reduce((a, b) => a + b)).toBe(30);
    expect(amounts(['9999999999999,99'])).toEqual([999999999999999]);
  });

  it('answers an amount error for three decimals, a point, zero or no amount', () => {
    for (const bad of ['12,345', '12.50', '1.234,56', '0,00', '', ',5', '1,2,3']) {
      const r = ok(readMt940(mt940(`:61:240105C${bad}NTRFX\r\n:61:240105C1,NTRFY`)));
      expect(r.errors.map((e) => [e.row, e.code])).toEqual([[1, 'amount']]);
      expect(r.statements[0]!.entries.map((e) => [e.row, e.reference])).toEqual([[2, 'Y']]);
    }
  });

  it('answers an entry error for a mark or a transaction type that is none', () => {
    const r = ok(
      readMt940(mt940(':61:240105X1,NTRFA\r\n:61:240105EC1,NTRFB\r\n:61:240105C1,12\r\n:61:240105C1,NTRFD')),
    );
    expect(r.errors.map((e) => [e.row, e.code])).toEqual([
      [1, 'entry'],
      [2, 'entry'],
      [3, 'entry'],
    ]);
    expect(r.statements[0]!.entries.map((e) => e.reference)).toEqual(['D']);
  });

  it('takes the bank reference, else the customer reference unless NONREF', () => {
    const pick = (line: string) => {
      const e = only(mt940(line));
      return [e.reference, e.references];
    };
    expect(pick(':61:240105C1,NTRFCUST1//BANK1')).toEqual(['BANK1', ['CUST1']]);
    expect(pick(':61:240105C1,NTRFNONREF//BANK1')).toEqual(['BANK1', []]);
    expect(pick(':61:240105C1,NTRFCUST1//NONREF')).toEqual(['CUST1', []]);
    expect(pick(':61:240105C1,NTRFNONREF')).toEqual([null, []]);
    expect(pick(':61:240105C1,NTRFCUST1')).toEqual(['CUST1', []]);
    expect(pick(':61:240105C1,NTRF')).toEqual([null, []]);
    expect(pick(':61:240105C1,NTRFSAME//SAME')).toEqual(['SAME', []]);
    expect(pick(':61:240105C1,NTRFCUST1//BANK1\r\n/OCMT/INR1,//CHGS/INR0,50')).toEqual([
      'BANK1',
      ['CUST1', '/OCMT/INR1,//CHGS/INR0,50'],
    ]);
  });

  it('reads structured :86: subfields and free :86: lines', () => {
    const e = only(
      mt940(
        [
          ':61:240105C1,NTRFNONREF',
          ':86:166?00GUTSCHRIFT?109310?20EREF+631512345678?21SVWZ+UPI payment fo?2',
          '2r order 42?30HDFC0001234?31IN12345?32ASHA?33 RAO?34000',
        ].join('\r\n'),
      ),
    );
    expect(e.narration).toBe('GUTSCHRIFT ASHA RAO EREF+631512345678 SVWZ+UPI payment for order 42');
    const free = only(
      mt940(
        [':61:240105C1,NTRFNONREF', `:86:${'A'.repeat(60)}BCDEF`, 'GHI', 'NEXT LINE  ', '  LAST'].join(
          '\r\n',
        ),
      ),
    );
    // A 65-character line was cut by width; shorter lines end where the bank meant.
    expect(free.narration).toBe(`${'A'.repeat(60)}BCDEFGHI NEXT LINE LAST`);
    // A question mark that is no subfield marker is text.
    expect(only(mt940(':61:240105C1,NTRFX\r\n:86:WHY? BECAUSE?')).narration).toBe('WHY? BECAUSE?');
  });

  it('cuts a narration at 1000 characters', () => {
    const long = Array.from({ length: 40 }, () => 'X'.repeat(64)).join('\r\n');
    const e = only(mt940(`:61:240105C1,NTRFX\r\n:86:${long}`));
    expect(e.narration).toHaveLength(1000);
  });

  it('reads several statements, with and without `-` between them, ignoring text outside', () => {
    const text = [
      'Some preamble a bank writes',
      mt940(':61:240105C1,NTRFA'),
      'ABNANL2A',
      '940',
      ':20:SECOND\r\n:25:987\r\n:60F:D240101USD5,\r\n:61:240105D1,NTRFB\r\n:62F:D240105USD6,',
      ':20:THIRD\r\n:25:987\r\n:60F:D240105USD6,\r\n:62F:D240105USD6,',
    ].join('\r\n');
    const r = ok(readMt940(text));
    expect(
      r.statements.map((s) => [
        s.id,
        s.account,
        s.currency,
        s.opening?.amount,
        s.closing?.amount,
        s.entries.length,
      ]),
    ).toEqual([
      ['TEST/1/1', '123456789', 'INR', 0, 0, 1],
      ['SECOND', '987', 'USD', -500, -600, 1],
      ['THIRD', '987', 'USD', -600, -600, 0],
    ]);
    expect(r.statements[1]!.entries[0]).toMatchObject({ row: 2, currency: 'USD', direction: 'debit' });
  });

  it('answers ok:false for what is not MT940, and never throws', () => {
    for (const text of [
      '',
      'Date,Narration,Amount\n01/11/26,UPI,1500.00',
      '<Document/>',
      '\u0000\u0001\u0002',
      ':25:ONLY\n:61:240105C1,NTRFX',
    ])
      expect(readMt940(text)).toMatchObject({ ok: false, format: 'mt940' });
    expect(readMt940(':20:X\n:60F:C240101INR0,\n')).toMatchObject({
      ok: false,
      detail: expect.stringContaining(':25:'),
    });
    expect(readMt940(':20:X\n:25:Y\n:61:240105C1,NTRFX')).toMatchObject({ ok: false });
  });

  it('answers a balance that does not read as an error of row 0, the statement still read', () => {
    const r = ok(readMt940(':20:X\n:25:Y\n:60F:C240101INR12,345\n:61:240105C1,NTRFX\n:62F:C240105INR1,\n-'));
    expect(r.errors.map((e) => [e.row, e.code, e.statement])).toEqual([[0, 'amount', 1]]);
    expect(r).toMatchObject({
      ok: true,
      statements: [{ currency: 'INR', opening: null, closing: { amount: 100 }, entries: [{ row: 1 }] }],
    });
    const dated = ok(readMt940(':20:X\n:25:Y\n:60F:C240101INR1,\n:62F:C249999INR1,\n-'));
    expect(dated.errors.map((e) => [e.row, e.code])).toEqual([[0, 'date']]);
    // With neither balance there is no currency: not a statement to import.
    expect(readMt940(':20:X\n:25:Y\n:60F:C24010INR1,\n:61:240105C1,NTRFX\n-')).toMatchObject({ ok: false });
  });

  it('never throws, whatever the text', () => {
    const pieces = fc.constantFrom(
      ':20:',
      ':25:',
      ':28C:',
      ':60F:',
      ':61:',
      ':86:',
      ':NS:',
      ':62F:',
      '\r\n',
      '\n',
      '-',
      '-}',
      '{4:',
      '{1:F01}',
      'C240101INR1,',
      '2401010101',
      'RC',
      'RD',
      '1,5',
      'NTRF',
      'NONREF',
      '//',
      '?20',
      '?2',
      '166',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string()), { maxLength: 60 }), (parts) => {
        const r = readMt940(parts.join(''));
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 500 },
    );
    for (const file of sampleFiles.filter((f) => f.endsWith('.sta'))) {
      const text = sample(file);
      fc.assert(
        fc.property(fc.nat(text.length), fc.nat(text.length), fc.string(), (a, b, s) => {
          const cut = text.slice(0, Math.min(a, b)) + s + text.slice(Math.max(a, b));
          expect(typeof readMt940(cut).ok).toBe('boolean');
        }),
        { numRuns: 50 },
      );
    }
  });

  it('sniffs MT940 and nothing else', () => {
    expect(looksLikeMt940(mt940(':61:240105C1,NTRFX'))).toBe(true);
    expect(looksLikeMt940('{1:F01X}{2:I940X}{4:\r\n:20:X\r\n:25:Y')).toBe(true);
    expect(looksLikeMt940('{1:F01X}{2:I942X}{4:\r\n:20:X\r\n:25:Y\r\n:34F:EURD1,')).toBe(false);
    expect(looksLikeMt940('Date,Narration\n:20:,x')).toBe(false);
    expect(looksLikeMt940('<?xml version="1.0"?><Document/>')).toBe(false);
  });
});

/** A one-statement camt.053 around the given entries. */
const camt = (ntries: string, ns = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.02') =>
  `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="${ns}">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>M1</MsgId><CreDtTm>2024-01-31T18:00:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>S1</Id><ElctrncSeqNb>7</ElctrncSeqNb>
      <Acct><Id><Othr><Id>50100012345678</Id></Othr></Id><Ccy>INR</Ccy></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="INR">1000.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Dt><Dt>2024-01-01</Dt></Dt></Bal>
      <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="INR">500.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><DtTm>2024-01-31T23:59:59+05:30</DtTm></Dt></Bal>
      ${ntries}
    </Stmt>
  </BkToCstmrStmt>
</Document>`;
const ntry = (inner: string, amount = '1500.00', ind = 'CRDT') =>
  `<Ntry><Amt Ccy="INR">${amount}</Amt><CdtDbtInd>${ind}</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2024-01-15</Dt></BookgDt><ValDt><Dt>2024-01-16</Dt></ValDt>${inner}</Ntry>`;
const tx = (amount: string | null, inner = '', ind = '') =>
  `<TxDtls>${amount === null ? '' : `<AmtDtls><TxAmt><Amt Ccy="INR">${amount}</Amt></TxAmt></AmtDtls>`}${ind ? `<CdtDbtInd>${ind}</CdtDbtInd>` : ''}${inner}</TxDtls>`;

describe('camt.053 rules', () => {
  it('reads the statement, its balances and an entry', () => {
    const r = ok(
      readCamt053(
        camt(
          ntry(
            `<AcctSvcrRef>631512345678</AcctSvcrRef><NtryDtls>${tx(
              null,
              '<Refs><EndToEndId>NOTPROVIDED</EndToEndId><TxId>T1</TxId><ClrSysRef>C1</ClrSysRef><UETR>U1</UETR><Prtry><Tp>UTR</Tp><Ref>P1</Ref></Prtry></Refs><RltdPties><Dbtr><Nm>ASHA  RAO</Nm></Dbtr><Cdtr><Nm>PAYGATE</Nm></Cdtr></RltdPties><RmtInf><Ustrd>UPI/631512345678</Ustrd><Ustrd>order 42</Ustrd><Strd><CdtrRefInf><Ref>RF18539007547034</Ref></CdtrRefInf></Strd></RmtInf><AddtlTxInf>via NPCI</AddtlTxInf>',
            )}</NtryDtls><AddtlNtryInf>UPI CREDIT</AddtlNtryInf>`,
          ),
        ),
      ),
    );
    expect(r.statements).toEqual([
      {
        id: 'S1/7',
        account: '50100012345678',
        currency: 'INR',
        opening: { date: '2024-01-01', amount: -100000, currency: 'INR' },
        closing: { date: '2024-01-31', amount: 50000, currency: 'INR' },
        entries: [
          {
            row: 1,
            date: '2024-01-15',
            valueDate: '2024-01-16',
            direction: 'credit',
            reversal: false,
            amount: 150000,
            currency: 'INR',
            reference: '631512345678',
            references: ['C1', 'T1', 'U1', 'P1', 'RF18539007547034'],
            narration: 'ASHA RAO UPI/631512345678 order 42 via NPCI UPI CREDIT',
            transactionCode: null,
            batch: null,
          },
        ],
      },
    ]);
    expect(r.errors).toEqual([]);
  });

  it('splits a batch per transaction when each states its amount and they add up', () => {
    const es = entriesOf(
      readCamt053(
        camt(
          ntry(
            `<AcctSvcrRef>BATCH1</AcctSvcrRef><NtryDtls><Btch><MsgId>BM</MsgId><PmtInfId>BP</PmtInfId></Btch>${tx('1000.00', '<Refs><AcctSvcrRef>T1</AcctSvcrRef><EndToEndId>E1</EndToEndId></Refs><RltdPties><Dbtr><Nm>ONE</Nm></Dbtr></RltdPties>')}${tx('700.00', '<Refs><EndToEndId>E2</EndToEndId></Refs><RltdPties><Cdtr><Nm>TWO</Nm></Cdtr></RltdPties>', 'DBIT')}</NtryDtls><NtryDtls>${tx('1200.00', '<RltdPties><Dbtr><Pty><Nm>THREE</Nm></Pty></Dbtr></RltdPties>')}</NtryDtls>`,
            '1500.00',
          ) + ntry('<AcctSvcrRef>NEXT</AcctSvcrRef>', '1.00'),
        ),
      ),
    );
    expect(
      es.map((e) => [e.row, e.direction, e.amount, e.reference, e.references, e.narration, e.batch]),
    ).toEqual([
      [1, 'credit', 100000, 'T1', ['E1', 'BM', 'BP', 'BATCH1'], 'ONE', { index: 1, count: 3 }],
      // Its own CdtDbtInd: a debit inside a net credit.
      [2, 'debit', 70000, 'BATCH1', ['E2', 'BM', 'BP'], 'TWO', { index: 2, count: 3 }],
      [3, 'credit', 120000, 'BATCH1', ['BM', 'BP'], 'THREE', { index: 3, count: 3 }],
      [4, 'credit', 100, 'NEXT', [], '', null],
    ]);
  });

  it('keeps a batch whole when a transaction has no amount, another currency, or the sum differs', () => {
    const whole = (txs: string) => {
      const es = entriesOf(
        readCamt053(camt(ntry(`<AcctSvcrRef>B</AcctSvcrRef><NtryDtls>${txs}</NtryDtls>`, '1500.00'))),
      );
      return es.map((e) => [e.amount, e.batch]);
    };
    expect(whole(tx('1000.00') + tx(null))).toEqual([[150000, null]]);
    expect(whole(tx('1000.00') + tx('400.00'))).toEqual([[150000, null]]);
    expect(whole(tx('1000.00') + tx('500.00').replace('Ccy="INR"', 'Ccy="USD"'))).toEqual([[150000, null]]);
    expect(whole(tx('1500.00'))).toEqual([[150000, null]]);
    expect(whole(tx('1500.00') + tx('0.00'))).toEqual([[150000, null]]);
    // TxDtls/Amt (v04 and later) when AmtDtls says nothing.
    const v04 = `<TxDtls><Amt Ccy="INR">1000.00</Amt></TxDtls><TxDtls><Amt Ccy="INR">500.00</Amt></TxDtls>`;
    expect(whole(v04).map(([a]) => a)).toEqual([100000, 50000]);
  });

  it('reads a reversal: RvslInd with CdtDbtInd as booked, on every transaction of a batch', () => {
    const es = entriesOf(
      readCamt053(
        camt(
          ntry('<RvslInd>true</RvslInd>', '10.00', 'DBIT') +
            ntry('<RvslInd>false</RvslInd>', '10.00', 'CRDT') +
            ntry('<RvslInd>1</RvslInd>', '10.00', 'CRDT') +
            // A returned direct debit batch: two transactions reversed together.
            ntry(`<RvslInd>true</RvslInd><NtryDtls>${tx('6.00')}${tx('4.00')}</NtryDtls>`, '10.00', 'DBIT'),
        ),
      ),
    );
    expect(es.map((e) => [e.direction, e.reversal, e.amount])).toEqual([
      ['debit', true, 1000],
      ['credit', false, 1000],
      ['credit', true, 1000],
      ['debit', true, 600],
      ['debit', true, 400],
    ]);
  });

  it('gives an entry in another currency than the account its own currency', () => {
    const r = ok(
      readCamt053(
        camt(ntry('<AcctSvcrRef>FX</AcctSvcrRef>', '25.00').replace('Ccy="INR"', 'Ccy="USD"') + ntry('')),
      ),
    );
    expect(r.statements[0]!.currency).toBe('INR');
    expect(r.statements[0]!.entries.map((e) => [e.currency, e.amount])).toEqual([
      ['USD', 2500],
      ['INR', 150000],
    ]);
    // No Acct/Ccy: the balances' currency.
    const noCcy = ok(readCamt053(camt(ntry('')).replace('<Ccy>INR</Ccy>', '')));
    expect(noCcy.statements[0]!.currency).toBe('INR');
  });

  it('takes BookgDt, else ValDt; a date-time gives the day the bank wrote', () => {
    const dated = (inner: string) =>
      readCamt053(
        camt(`<Ntry><Amt Ccy="INR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>${inner}</Ntry>`),
      );
    expect(entriesOf(dated('<BookgDt><DtTm>2024-01-15T23:30:00-05:00</DtTm></BookgDt>'))[0]).toMatchObject({
      date: '2024-01-15',
      valueDate: null,
    });
    expect(entriesOf(dated('<ValDt><Dt>2024-01-16+05:30</Dt></ValDt>'))[0]).toMatchObject({
      date: '2024-01-16',
      valueDate: '2024-01-16',
    });
    expect(ok(dated('')).errors).toMatchObject([{ row: 1, code: 'date' }]);
    expect(ok(dated('<BookgDt><Dt>2023-02-29</Dt></BookgDt>')).errors).toMatchObject([
      { row: 1, code: 'date' },
    ]);
  });

  it('answers entry errors and reads on', () => {
    const r = ok(
      readCamt053(
        camt(
          [
            ntry('<AcctSvcrRef>A</AcctSvcrRef>', '12.345'),
            ntry('<AcctSvcrRef>B</AcctSvcrRef>', '12,50'),
            ntry('<AcctSvcrRef>C</AcctSvcrRef>', '0.00'),
            ntry('<AcctSvcrRef>D</AcctSvcrRef>', '1.00', 'BOTH'),
            ntry('<AcctSvcrRef>E</AcctSvcrRef>').replace('<Sts>BOOK</Sts>', '<Sts><Cd>PDNG</Cd></Sts>'),
            ntry('<AcctSvcrRef>F</AcctSvcrRef>', '12.500'),
            ntry('<AcctSvcrRef>G</AcctSvcrRef>').replace('<Sts>BOOK</Sts>', '<Sts><Cd>BOOK</Cd></Sts>'),
          ].join(''),
        ),
      ),
    );
    expect(r.errors.map((e) => [e.row, e.code])).toEqual([
      [1, 'amount'],
      [2, 'amount'],
      [3, 'amount'],
      [4, 'entry'],
      [5, 'entry'],
    ]);
    // Zeros past the hundredths are the same amount.
    expect(r.statements[0]!.entries.map((e) => [e.row, e.reference, e.amount])).toEqual([
      [6, 'F', 1250],
      [7, 'G', 150000],
    ]);
  });

  it('reads a prefixed namespace, entities and CDATA', () => {
    const xml = camt(
      ntry(
        '<AcctSvcrRef>R&amp;1</AcctSvcrRef><AddtlNtryInf>A &lt;B&gt; &quot;C&quot; &apos;D&apos; &#233;&#x20AC; &unknown; <![CDATA[x &amp; <y>]]></AddtlNtryInf>',
      ),
    )
      .replace('<Document xmlns=', '<c:Document xmlns:c=')
      .replace('</Document>', '</c:Document>')
      .replace(/<(\/?)(BkToCstmrStmt|Stmt)>/g, '<$1c:$2>');
    expect(looksLikeCamt053(xml)).toBe(true);
    expect(entriesOf(readCamt053(xml))[0]).toMatchObject({
      reference: 'R&1',
      narration: 'A <B> "C" \'D\' é€ &unknown; x &amp; <y>',
    });
  });

  it('refuses camt.052, camt.054 and other XML, and says why', () => {
    for (const [ns, why] of [
      ['urn:iso:std:iso:20022:tech:xsd:camt.052.001.02', 'camt.052'],
      ['urn:iso:std:iso:20022:tech:xsd:camt.054.001.08', 'camt.054'],
      ['urn:iso:std:iso:20022:tech:xsd:pain.001.001.03', 'not camt.053'],
      ['http://example.com', 'not camt.053'],
    ] as const) {
      expect(looksLikeCamt053(camt('', ns))).toBe(false);
      expect(readCamt053(camt('', ns))).toMatchObject({
        ok: false,
        format: 'camt053',
        detail: expect.stringContaining(why),
      });
    }
    expect(readCamt053('<Other xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"/>')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('Other'),
    });
  });

  it('answers ok:false for what is not a readable camt.053, and never throws', () => {
    const bad = [
      '',
      'not xml',
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt></BkToCstmrStmt></Document>',
      '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt/></Document>',
      camt('').replace(/<Acct>.*?<\/Acct>/s, ''),
      camt('')
        .replace(/<Bal>.*<\/Bal>/s, '')
        .replace('<Ccy>INR</Ccy>', ''),
      `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}</Document>`,
    ];
    for (const text of bad) expect(readCamt053(text)).toMatchObject({ ok: false, format: 'camt053' });
    const text = sample('camt053-fffs-finland-sample-v02.xml');
    fc.assert(
      fc.property(fc.nat(text.length), fc.nat(text.length), fc.string(), (a, b, s) => {
        const cut = text.slice(0, Math.min(a, b)) + s + text.slice(Math.max(a, b));
        expect(typeof readCamt053(cut).ok).toBe('boolean');
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a billion-laughs DOCTYPE at once, and expands no entity of the document', () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE Document [
  <!ENTITY lol "lol">
  ${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('\n  ')}
]>
${camt(ntry('<AddtlNtryInf>&lol9;</AddtlNtryInf>')).replace(/^<\?xml[^>]*>\s*/, '')}`;
    // Sniffed as camt.053 so that the reader, not a CSV parse, answers it.
    expect(looksLikeCamt053(laughs)).toBe(true);
    const started = performance.now();
    expect(readCamt053(laughs)).toMatchObject({ ok: false, detail: expect.stringContaining('DOCTYPE') });
    expect(performance.now() - started).toBeLessThan(timeBound(1000));
    // Without the declaration the reference is text as written, never looked up.
    expect(entriesOf(readCamt053(camt(ntry('<AddtlNtryInf>&lol9;</AddtlNtryInf>'))))[0]!.narration).toBe(
      '&lol9;',
    );
  });
});

describe('10 MB inputs', { timeout: noBlowUpTimeoutMs }, () => {
  const tenMb = 10 * 1024 * 1024;

  it('reads a 10 MB MT940 in reasonable time', () => {
    const parts = [':20:BIG\r\n:25:50100012345678\r\n:28C:1/1\r\n:60F:C240101INR0,\r\n'];
    let size = parts[0]!.length;
    let total = 0;
    for (let i = 0; size < tenMb - 200; i++) {
      const amount = (i % 9000) + 1;
      total += amount * 100 + 56;
      const p = `:61:2401150115C${amount},56NTRFNONREF//UTR${String(i).padStart(12, '0')}\r\n:86:UPI-ASHA RAO-asha.rao@okicici-ICIC0001234-${String(i).padStart(12, '0')}-PAYMENT\r\n`;
      parts.push(p);
      size += p.length;
    }
    parts.push(`:62F:C240131INR${Math.floor(total / 100)},${String(total % 100).padStart(2, '0')}\r\n-`);
    const started = performance.now();
    const r = ok(readMt940(parts.join('')));
    expect(performance.now() - started).toBeLessThan(timeBound(15_000));
    expect(r.statements[0]!.entries).toHaveLength(parts.length - 2);
    expect(reconciles(r.statements[0]!)).toBe(true);
  });

  const head = ':20:X\n:25:Y\n:60F:C240101INR0,\n:61:2401010101C1,NTRFX\n';
  const hostileMt940: [string, () => string][] = [
    ['one :86: line', () => `${head}:86:${'a '.repeat(tenMb / 2)}`],
    ['a million :86: fields', () => head + ':86:x\n'.repeat(tenMb / 6)],
    ['question marks', () => `${head}:86:166?00${'?2?'.repeat(tenMb / 3)}`],
    ['a million subfields', () => `${head}:86:166?00${'?20EREF+x'.repeat(tenMb / 9)}`],
    ['newlines', () => '\n'.repeat(tenMb)],
    ['braces', () => `:20:${'{'.repeat(tenMb)}`],
  ];
  for (const [shape, make] of hostileMt940) {
    it(`reads a hostile 10 MB MT940 (${shape}) in reasonable time`, () => {
      const text = make();
      const started = performance.now();
      expect(typeof readMt940(text).ok).toBe('boolean');
      expect(performance.now() - started).toBeLessThan(timeBound(15_000));
    });
  }

  it('reads a 10 MB camt.053 in reasonable time', () => {
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size < tenMb - 2000; i++) {
      const p = ntry(
        `<AcctSvcrRef>UTR${i}</AcctSvcrRef><NtryDtls>${tx(null, `<Refs><EndToEndId>E2E${i}</EndToEndId></Refs><RltdPties><Dbtr><Nm>ASHA RAO</Nm></Dbtr></RltdPties><RmtInf><Ustrd>UPI payment ${i}</Ustrd></RmtInf>`)}</NtryDtls>`,
      );
      parts.push(p);
      size += p.length;
    }
    const started = performance.now();
    const r = ok(readCamt053(camt(parts.join(''))));
    expect(performance.now() - started).toBeLessThan(timeBound(20_000));
    expect(r.statements[0]!.entries).toHaveLength(parts.length);
  });

  const ns = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.02';
  const hostileXml: [string, () => string][] = [
    [
      'a million attributes',
      () =>
        `<Document xmlns="${ns}"><BkToCstmrStmt ${Array.from({ length: tenMb / 11 }, (_, i) => `a${i}="1"`).join(' ')}/></Document>`,
    ],
    [
      'a million elements',
      () =>
        `<Document xmlns="${ns}"><BkToCstmrStmt>${'<Stmt/>'.repeat(tenMb / 7)}</BkToCstmrStmt></Document>`,
    ],
    [
      'entities',
      () =>
        `<Document xmlns="${ns}"><BkToCstmrStmt><Stmt><Id>${'a&amp;'.repeat(tenMb / 6)}</Id></Stmt></BkToCstmrStmt></Document>`,
    ],
    ['angle brackets', () => `<Document xmlns="${ns}">${'<'.repeat(tenMb)}</Document>`],
  ];
  for (const [shape, make] of hostileXml) {
    it(`refuses a hostile 10 MB camt.053 (${shape}) in reasonable time`, () => {
      const text = make();
      const started = performance.now();
      expect(readCamt053(text)).toMatchObject({ ok: false });
      expect(performance.now() - started).toBeLessThan(timeBound(20_000));
    });
  }
});
