/**
 * The slip files byte for byte (docs/SLIPS.md): a fixed input gives these exact strings. A change of a
 * layout shows here first, and its documentation changes with it.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { bankName, bankText, type SlipFileInput, slipLayouts, writeSlipFile } from './formats.ts';

const input: SlipFileInput = {
  slipNo: 'WS26111512345',
  day: '2026-11-15',
  lines: [
    {
      objectType: 'settlement',
      objectNo: 'ST20261115000042',
      amount: 1_234_550,
      currency: 'INR',
      beneficiaryName: `Zoë D'Souza & Sons, "Traders"`,
      accountNumber: '123456789012',
      ifsc: 'HDFC0001234',
    },
    {
      objectType: 'payout',
      objectNo: 'PO26111510300012345678',
      amount: 20_000_000,
      currency: 'INR',
      beneficiaryName: '=SUM(A1) Shree Ganesh Enterprises Private Limited Mumbai',
      accountNumber: '000123456789',
      ifsc: 'ICIC0000999',
    },
  ],
};

describe('slip files', () => {
  it('generic CSV: BOM, documented header, RFC 4180 quoting, formula guard, CRLF', () => {
    const f = writeSlipFile('generic_csv', input);
    expect(f.fileName).toBe('WS26111512345.csv');
    expect(f.contentType).toBe('text/csv; charset=utf-8');
    expect(f.content).toBe(
      '\uFEFFLine No,Beneficiary Name,Account Number,IFSC,Amount,Currency,Narration,Our Reference\r\n' +
        `1,"Zoë D'Souza & Sons, ""Traders""",123456789012,HDFC0001234,12345.50,INR,Settlement ST20261115000042,ST20261115000042\r\n` +
        `2,'=SUM(A1) Shree Ganesh Enterprises Private Limited Mumbai,000123456789,ICIC0000999,200000.00,INR,Payout PO26111510300012345678,PO26111510300012345678\r\n`,
    );
    expect(f.lines).toEqual([
      { beneficiaryName: `Zoë D'Souza & Sons, "Traders"`, narration: 'Settlement ST20261115000042' },
      {
        beneficiaryName: '=SUM(A1) Shree Ganesh Enterprises Private Limited Mumbai',
        narration: 'Payout PO26111510300012345678',
      },
    ]);
    // A CSV reader gets the name back whole, its comma and quotes included.
    const rows = parse(f.content, { bom: true }) as string[][];
    expect(rows[1]![1]).toBe(`Zoë D'Souza & Sons, "Traders"`);
    expect(rows.map((r) => r.length)).toEqual([8, 8, 8]);
  });

  it('HDFC ENet: 28 fields, no header, NEFT below the RTGS minimum and RTGS from it, names cut to 35', () => {
    const f = writeSlipFile('hdfc_bulk', input);
    expect(f.fileName).toBe('WS26111512345-HDFC.txt');
    expect(f.content).toBe(
      'N,,123456789012,12345.50,Zoe DSouza and Sons Traders,,,,,,,,,WS26111512345001,ST20261115000042,,,,,,,,15/11/2026,,HDFC0001234,,,\r\n' +
        'R,,000123456789,200000.00,SUM A1 Shree Ganesh Enterprises Pri,,,,,,,,,WS26111512345002,PO26111510300012345678,,,,,,,,15/11/2026,,ICIC0000999,,,\r\n',
    );
    for (const record of f.content.trimEnd().split('\r\n')) expect(record.split(',')).toHaveLength(28);
    expect(f.lines).toEqual([
      { beneficiaryName: 'Zoe DSouza and Sons Traders', narration: 'ST20261115000042' },
      { beneficiaryName: 'SUM A1 Shree Ganesh Enterprises Pri', narration: 'PO26111510300012345678' },
    ]);
  });

  it('ICICI CIB: a header, seven fields, IMPS below the RTGS minimum and RTGS from it', () => {
    const f = writeSlipFile('icici_bulk', input);
    expect(f.fileName).toBe('WS26111512345-ICICI.csv');
    expect(f.content).toBe(
      'Transaction Type,Beneficiary Account No,Beneficiary Name,IFSC,Amount,Remarks,Customer Reference\r\n' +
        'IFC,123456789012,Zoe DSouza and Sons Traders,HDFC0001234,12345.50,ST20261115000042,WS26111512345001\r\n' +
        'RTG,000123456789,SUM A1 Shree Ganesh Enterprises Pri,ICIC0000999,200000.00,PO26111510300012345678,WS26111512345002\r\n',
    );
  });

  it('just below the RTGS minimum goes by NEFT (HDFC) or IMPS (ICICI)', () => {
    const one = { ...input, lines: [{ ...input.lines[1]!, amount: 19_999_999 }] };
    expect(writeSlipFile('hdfc_bulk', one).content.startsWith('N,')).toBe(true);
    expect(writeSlipFile('icici_bulk', one).content.split('\r\n')[1]!.startsWith('IFC,')).toBe(true);
  });

  it('cleans names to what the banks take: accents off, punctuation dropped, other scripts refused', () => {
    expect(bankText('  Ramírez-Núñez / Ltd.  ')).toBe('Ramirez Nunez Ltd');
    expect(bankText("M/S. O'Brien & Co (India)")).toBe('M S OBrien and Co India');
    expect(bankText('Ａｓｈａ')).toBe('Asha');
    expect(bankText('राम कुमार')).toBe('');
    expect(bankName('राम Kumar Verma', 35)).toBe('Kumar Verma');
    expect(bankName(`${'A'.repeat(34)} B`, 35)).toBe('A'.repeat(34));
    const name = (beneficiaryName: string) => ({ ...input.lines[0]!, beneficiaryName });
    expect(slipLayouts.hdfc_bulk.refusal(name('राम कुमार'))).toBe('slipName');
    expect(slipLayouts.icici_bulk.refusal(name('राम कुमार'))).toBe('slipName');
    expect(slipLayouts.generic_csv.refusal(name('राम कुमार'))).toBeNull();
    expect(slipLayouts.generic_csv.refusal(name('   '))).toBe('slipName');
  });

  it('refuses what a bank file cannot carry: another currency, a long account number', () => {
    const line = input.lines[0]!;
    expect(slipLayouts.hdfc_bulk.refusal({ ...line, currency: 'USD' })).toBe('slipCurrency');
    expect(slipLayouts.generic_csv.refusal({ ...line, currency: 'USD' })).toBeNull();
    const long = { ...line, accountNumber: '1'.repeat(26) };
    expect(slipLayouts.hdfc_bulk.refusal(long)).toBe('slipAccount');
    expect(slipLayouts.icici_bulk.refusal(long)).toBeNull();
  });

  it('never writes a separator or a non-ASCII byte into a bank file', () => {
    const f = writeSlipFile('hdfc_bulk', {
      ...input,
      lines: [{ ...input.lines[0]!, beneficiaryName: 'Ærø, “Ltd” ; naïve\tname\r\n' }],
    });
    expect(f.content).toMatch(/^[\x20-\x7e\r\n]*$/);
    expect(f.lines[0]!.beneficiaryName).toBe('r Ltd naive name');
  });
});
