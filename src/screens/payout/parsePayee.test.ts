import { describe, expect, it } from 'vitest';
import { accountName, accountNumber, ifsc } from '../../../contract/endpoints/orders.ts';
import { amount } from '../../../contract/money.ts';
import { parsePayee } from './parsePayee.ts';

const ravi = {
  accountName: 'Ravi Kumar',
  accountNumber: '123456789012',
  ifsc: 'HDFC0001234',
  amount: '1500.00',
};

describe('parsePayee', () => {
  it('reads a labelled message, one value a line', () => {
    expect(parsePayee('Name: Ravi Kumar\nA/c 123456789012\nIFSC HDFC0001234\nAmount 1,500.00')).toEqual(ravi);
  });

  it('reads other labels and spellings', () => {
    expect(
      parsePayee(
        'Beneficiary Name - Ravi Kumar\r\nAccount Number: 1234 5678 9012\r\nIFSC Code: hdfc0001234\r\nAmt: Rs. 1,500.00',
      ),
    ).toEqual(ravi);
  });

  it('reads Chinese labels with full-width colons', () => {
    expect(parsePayee('户名：Ravi Kumar\n账号：123456789012\n银行代码：HDFC0001234\n金额：1500.00')).toEqual(
      ravi,
    );
  });

  it('reads a row copied from a spreadsheet (tabs)', () => {
    expect(parsePayee('Ravi Kumar\t123456789012\tHDFC0001234\t1500.00')).toEqual(ravi);
  });

  it('reads comma separated values without splitting a grouped amount', () => {
    expect(parsePayee('Ravi Kumar, 123456789012, HDFC0001234, 1,500.00')).toEqual(ravi);
    expect(parsePayee('Ravi Kumar,123456789012,HDFC0001234,1500.00')).toEqual(ravi);
  });

  it('tells the account from a plain amount by length, in any order', () => {
    expect(parsePayee('HDFC0001234;2500;Asha Rao;50100234567')).toEqual({
      accountName: 'Asha Rao',
      accountNumber: '50100234567',
      ifsc: 'HDFC0001234',
      amount: '2500',
    });
  });

  it('reads Indian digit grouping and the rupee sign', () => {
    expect(
      parsePayee('Name: Asha Rao\nAccount: 50100234567\nIFSC: SBIN0004321\nAmount: ₹2,50,000.50').amount,
    ).toBe('250000.50');
  });

  it('reads everything from one line of prose', () => {
    expect(parsePayee('Name: Ravi Kumar A/c 123456789012 IFSC HDFC0001234 Amount 1,500.00')).toEqual(ravi);
  });

  it('proposes nothing it cannot see', () => {
    expect(parsePayee('hello')).toEqual({ accountName: 'hello' });
    expect(parsePayee('')).toEqual({});
    expect(parsePayee('IFSC ABCD1234567')).toEqual({});
  });

  it('proposes values the contract schemas accept', () => {
    const p = parsePayee('Name: Ravi Kumar\nA/c 123456789012\nIFSC HDFC0001234\nAmount 1,500.00');
    expect(accountName.safeParse(p.accountName).success).toBe(true);
    expect(accountNumber.safeParse(p.accountNumber).success).toBe(true);
    expect(ifsc.safeParse(p.ifsc).success).toBe(true);
    expect(amount.safeParse(p.amount).data).toBe(150000);
  });
});
