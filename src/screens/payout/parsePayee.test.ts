import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountName, accountNumber, ifsc } from '../../../contract/endpoints/orders.ts';
import { amount, toMinor } from '../../../contract/money.ts';
import { type PayeeField, parsePayee } from './parsePayee.ts';

const ravi = {
  accountName: 'Ravi Kumar',
  accountNumber: '123456789012',
  ifsc: 'HDFC0001234',
  amount: '1500.00',
};
const read = (text: string) => parsePayee(text).payee;

describe('parsePayee', () => {
  it('reads a labelled message, one value a line', () => {
    expect(parsePayee('Name: Ravi Kumar\nA/c 123456789012\nIFSC HDFC0001234\nAmount 1,500.00')).toEqual({
      payee: ravi,
      unsure: [],
    });
  });

  it('reads other labels and spellings', () => {
    expect(
      read(
        'Beneficiary Name - Ravi Kumar\r\nAccount Number: 1234 5678 9012\r\nIFSC Code: hdfc0001234\r\nAmt: Rs. 1,500.00',
      ),
    ).toEqual(ravi);
    expect(
      read('Beneficiary: Ravi Kumar\nA/C No. 123456789012\nIFSC code HDFC0001234\nAmount (Rs): 1500.00'),
    ).toEqual(ravi);
  });

  it('reads Chinese labels with full-width colons', () => {
    expect(read('户名：Ravi Kumar\n账号：123456789012\n银行代码：HDFC0001234\n金额：1500.00')).toEqual(ravi);
  });

  it('reads a row copied from a spreadsheet (tabs), with or without its header row', () => {
    expect(read('Ravi Kumar\t123456789012\tHDFC0001234\t1500.00')).toEqual(ravi);
    expect(read('Account\tName\tIFSC\tAmount\n123456789012\tRavi Kumar\tHDFC0001234\t1500.00')).toEqual(ravi);
  });

  it('reads comma separated values without splitting a grouped amount', () => {
    expect(read('Ravi Kumar, 123456789012, HDFC0001234, 1,500.00')).toEqual(ravi);
    expect(read('Ravi Kumar,123456789012,HDFC0001234,1500.00')).toEqual(ravi);
  });

  it('tells the account from a plain amount by length, in any order', () => {
    expect(read('HDFC0001234;2500;Asha Rao;50100234567')).toEqual({
      accountName: 'Asha Rao',
      accountNumber: '50100234567',
      ifsc: 'HDFC0001234',
      amount: '2500',
    });
  });

  it('reads Indian digit grouping and the rupee sign', () => {
    expect(read('Name: Asha Rao\nAccount: 50100234567\nIFSC: SBIN0004321\nAmount: ₹2,50,000.50').amount).toBe(
      '250000.50',
    );
    expect(read('Amount: 12,34,56,789').amount).toBe('123456789');
    expect(read('Amount: Rs. 5,000/-').amount).toBe('5000');
  });

  it('reads everything from one line of prose', () => {
    expect(read('Name: Ravi Kumar A/c 123456789012 IFSC HDFC0001234 Amount 1,500.00')).toEqual(ravi);
  });

  it('proposes nothing it cannot see', () => {
    expect(parsePayee('hello')).toEqual({ payee: {}, unsure: [] });
    expect(parsePayee('')).toEqual({ payee: {}, unsure: [] });
    expect(parsePayee('IFSC ABCD1234567')).toEqual({ payee: {}, unsure: [] });
  });

  it('proposes values the contract schemas accept', () => {
    const p = read('Name: Ravi Kumar\nA/c 123456789012\nIFSC HDFC0001234\nAmount 1,500.00');
    expect(accountName.safeParse(p.accountName).success).toBe(true);
    expect(accountNumber.safeParse(p.accountNumber).success).toBe(true);
    expect(ifsc.safeParse(p.ifsc).success).toBe(true);
    expect(amount.safeParse(p.amount).data).toBe(150000);
  });
});

// What the review of issue 25 found the earlier helper doing (each of these failed before).
describe('parsePayee: the review’s examples', () => {
  it('reads 1,25,000.50 (lakh grouping) as one lakh twenty-five thousand and fifty paise, not 1', () => {
    expect(read('Ravi Kumar\t123456789012\tHDFC0001234\t1,25,000.50')).toEqual({
      ...ravi,
      amount: '125000.50',
    });
  });

  it('reads name, account, IFSC and a lakh-grouped amount on one line', () => {
    expect(parsePayee('Ramesh Kumar 50100234567890 HDFC0001234 1,25,000')).toEqual({
      payee: {
        accountName: 'Ramesh Kumar',
        accountNumber: '50100234567890',
        ifsc: 'HDFC0001234',
        amount: '125000',
      },
      unsure: [],
    });
  });

  it('never takes a greeting for the payee’s name', () => {
    const chat = 'Hi, please pay ₹1,25,000 to Ramesh Kumar\nA/c 50100234567890\nIFSC HDFC0001234\nThanks 🙏';
    expect(read(chat)).toEqual({
      accountName: 'Ramesh Kumar',
      accountNumber: '50100234567890',
      ifsc: 'HDFC0001234',
      amount: '125000',
    });
    expect(read('Hi, please pay the amount below').accountName).toBeUndefined();
  });
});

describe('parsePayee: chat messages', () => {
  it('reads "please pay <name> <amount>" and ignores the addressee and the sender', () => {
    expect(
      parsePayee(
        'Hi Suresh,\nplease pay Ramesh Kumar Rs. 5,000/-\n50100234567890\nHDFC0001234\nRegards,\nAnil Sharma\n+91 98765 43210',
      ),
    ).toEqual({
      payee: {
        accountName: 'Ramesh Kumar',
        accountNumber: '50100234567890',
        ifsc: 'HDFC0001234',
        amount: '5000',
      },
      unsure: [],
    });
  });

  it('reads a labelled block after a sentence, and a one-line request', () => {
    const expected = {
      accountName: 'Ramesh Kumar',
      accountNumber: '50100234567890',
      ifsc: 'HDFC0001234',
      amount: '5000',
    };
    expect(
      read(
        'Dear Sir, kindly transfer Rs. 5,000/- to the account below:\nBeneficiary: Ramesh Kumar\nA/C No: 50100234567890\nIFSC Code: HDFC0001234\nThanks',
      ),
    ).toEqual(expected);
    expect(
      read(
        'Hello sir 👋 kindly transfer INR 5000 to Ramesh Kumar, account number 50100234567890, IFSC HDFC0001234. Thank you!',
      ),
    ).toEqual(expected);
  });

  it('puts phone numbers and references aside', () => {
    expect(
      read(
        'Name: Ravi Kumar\nMobile: 98765 43210\nA/c 123456789012\nIFSC HDFC0001234\nRef 4521\nAmount 1,500.00',
      ),
    ).toEqual(ravi);
  });
});

describe('parsePayee: leaves a field empty and says so when unsure', () => {
  it('two long digit runs that could each be the account', () => {
    expect(parsePayee('Ramesh Kumar 50100234567890 50100234567891 HDFC0001234 1,25,000')).toEqual({
      payee: { accountName: 'Ramesh Kumar', ifsc: 'HDFC0001234', amount: '125000' },
      unsure: ['accountNumber'],
    });
  });

  it('two amounts, or one written some other way', () => {
    expect(parsePayee('Please pay ₹5,000 to Ravi Kumar. Amount: 50,000').unsure).toEqual(['amount']);
    expect(parsePayee('Amount: 1.250,50')).toEqual({ payee: {}, unsure: ['amount'] });
    expect(parsePayee('Ravi Kumar 123456789012 HDFC0001234 12,5').unsure).toEqual(['amount']);
  });

  it('a long bare number beside a labelled account, which may be the amount', () => {
    expect(parsePayee('kindly transfer 779181963 to Ravi Kumar\nA/c 123456789012\nIFSC HDFC0001234')).toEqual(
      {
        payee: { accountName: 'Ravi Kumar', accountNumber: '123456789012', ifsc: 'HDFC0001234' },
        unsure: ['amount'],
      },
    );
  });

  it('a name that runs into a bank’s name, or a label followed by something else', () => {
    expect(parsePayee('pay Ramesh Kumar HDFC Bank 50100234567890 5000').unsure).toEqual(['accountName']);
    expect(parsePayee('Name: Ravi Kumar please send today').unsure).toEqual(['accountName']);
    expect(parsePayee('IFSC: HDFC 0001234').unsure).toEqual(['ifsc']);
  });

  it('an account in groups with no amount anywhere: the last group may be the amount', () => {
    expect(parsePayee('A/c 1234 5678 9012 1500\nIFSC HDFC0001234')).toEqual({
      payee: { ifsc: 'HDFC0001234' },
      unsure: ['accountNumber'],
    });
  });
});

// The property: a payee rendered in any form the helper claims to read comes back exactly, or with the
// field left empty; never a wrong value. Where the form leaves no doubt, all four come back.

const firstNames = ['Ramesh', 'Priya', 'Venkatesh', 'Lakshmi', 'Mohammed', 'Gurpreet', 'Anjali', 'Joseph'];
const middle = ['', 'K', 'R.', 'Kumar'];
const surnames = ['Sharma', 'Iyer', 'Reddy', 'Nair', 'Khan', 'Singh', 'Banerjee', "D'Souza", 'Das', 'Devi'];

const payees = fc.record({
  name: fc
    .tuple(
      fc.constantFrom(...firstNames),
      fc.constantFrom(...middle),
      fc.constantFrom(...surnames),
      fc.boolean(),
    )
    .map(([first, mid, last, upper]) => {
      const name = [first, mid, last].filter(Boolean).join(' ');
      return upper ? name.toUpperCase() : name;
    }),
  account: fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 9, maxLength: 18 }),
  ifsc: fc.stringMatching(/^[A-Z]{4}0[A-Z0-9]{6}$/),
  // Paise to 99,99,99,999.99 rupees; whole rupees often, as people pay them.
  minor: fc.oneof(
    fc.integer({ min: 1, max: 9_999_999_999 }),
    fc.integer({ min: 1, max: 99_999 }),
    fc.integer({ min: 1, max: 999_999_999 }).map((rupees) => rupees * 100),
  ),
});

const groupings = {
  lakh: (n: string) => n.replace(/(\d)(?=(\d\d)*\d{3}$)/g, '$1,'),
  western: (n: string) => n.replace(/(\d)(?=(\d{3})+$)/g, '$1,'),
  plain: (n: string) => n,
};

const amounts = fc
  .record({
    grouping: fc.constantFrom(...(Object.keys(groupings) as (keyof typeof groupings)[])),
    paise: fc.constantFrom('always', 'when any'),
    before: fc.constantFrom('', 'Rs. ', 'Rs', 'Rs.', 'INR ', '₹', '₹ '),
    after: fc.constantFrom('', '', '/-'),
  })
  .map((style) => (minor: number) => {
    const rupees = String(Math.floor(minor / 100));
    const paise = String(minor % 100).padStart(2, '0');
    const decimals = style.paise === 'always' || paise !== '00' ? `.${paise}` : '';
    const text = `${style.before}${groupings[style.grouping](rupees)}${decimals}${style.after}`;
    // A bare number of nine digits or more may as well be an account: only a label settles it.
    const sure = !/^\d+$/.test(text) || text.length < 9;
    return { text, sure };
  });

type Rendered = { text: string; sure: boolean };
type Payee = { name: string; account: string; ifsc: string; amount: Rendered };

const pick = <T>(list: readonly T[], seed: number) => list[seed % list.length] as T;
const shuffled = <T>(list: T[], seed: number) =>
  list
    .map((value, i) => ({ value, order: (seed * (i + 7) * 2654435761) % 997 }))
    .sort((a, b) => a.order - b.order)
    .map((x) => x.value);

/** Every form the helper claims to read; `labelled` forms must always come back whole. */
const forms: Record<string, { labelled: boolean; render: (p: Payee, seed: number) => string }> = {
  labelledEnglish: {
    labelled: true,
    render: (p, seed) => {
      const sep = pick([': ', ' - ', ' ', ':', ' : '], seed);
      const lines = [
        `${pick(['Name', 'Beneficiary', 'Beneficiary Name', 'Account Holder', 'Payee'], seed)}${sep}${p.name}`,
        `${pick(['A/c', 'A/C No', 'A/c No.', 'Account Number', 'Acc No', 'Bank Account'], seed + 1)}${sep}${p.account}`,
        `${pick(['IFSC', 'IFSC Code', 'IFSC code'], seed + 2)}${sep}${p.ifsc}`,
        `${pick(['Amount', 'Amt', 'Amount (Rs)', 'Payout amount'], seed + 3)}${sep}${p.amount.text}`,
      ];
      return shuffled(lines, seed).join(pick(['\n', '\r\n', ' '], seed + 4));
    },
  },
  labelledChinese: {
    labelled: true,
    render: (p, seed) => {
      const sep = pick(['：', ':', ': '], seed);
      return shuffled(
        [
          `${pick(['收款人', '户名', '收款人姓名'], seed)}${sep}${p.name}`,
          `${pick(['账号', '银行卡号', '收款账号'], seed + 1)}${sep}${p.account}`,
          `${pick(['IFSC代码', '银行代码'], seed + 2)}${sep}${p.ifsc}`,
          `${pick(['金额', '代付金额'], seed + 3)}${sep}${p.amount.text}`,
        ],
        seed,
      ).join('\n');
    },
  },
  oneLine: {
    labelled: false,
    render: (p, seed) => shuffled([p.name, p.account, p.ifsc, p.amount.text], seed).join(' '),
  },
  spreadsheetRow: {
    labelled: false,
    render: (p, seed) => shuffled([p.name, p.account, p.ifsc, p.amount.text], seed).join('\t'),
  },
  commaSeparated: {
    labelled: false,
    render: (p, seed) => shuffled([p.name, p.account, p.ifsc, p.amount.text], seed).join(', '),
  },
  linePerValue: {
    labelled: false,
    render: (p, seed) => shuffled([p.name, p.account, p.ifsc, p.amount.text], seed).join('\n'),
  },
  chatPayTo: {
    labelled: false,
    render: (p, seed) =>
      [
        pick(['Hi', 'Hi 👋', 'Hello sir', 'Good morning', 'Namaste 🙏', 'Dear Sir,'], seed),
        `${pick(['Please pay', 'kindly transfer', 'Kindly send', 'pls pay', 'Please make a payment of'], seed + 1)} ${p.amount.text} to ${p.name}`,
        `A/c ${p.account}`,
        `IFSC ${p.ifsc}`,
        pick(
          ['Thanks', 'Thanks 🙏', 'Thank you!', 'Regards,\nAnil Mehta', 'Thanks & regards\nSuresh Iyer'],
          seed + 2,
        ),
      ].join('\n'),
  },
  chatPayName: {
    labelled: false,
    render: (p, seed) =>
      [
        `${pick(['Hi', 'Hello', 'Hey 😊', 'Good evening'], seed)}, ${pick(['please', 'kindly', 'pls'], seed + 1)} pay ${p.name} ${p.amount.text}`,
        p.account,
        p.ifsc,
        pick(['Thanks', 'Thank you 🙏', 'Regards\nAnil Mehta\n+91 98765 43210'], seed + 2),
      ].join('\n'),
  },
  chatOneLine: {
    labelled: false,
    render: (p, seed) =>
      `${pick(['Hi 👋', 'Hello sir,', 'Dear Sir,'], seed)} ${pick(['please pay', 'kindly transfer'], seed + 1)} ${p.amount.text} to ${p.name}, A/c no ${p.account}, IFSC ${p.ifsc}. ${pick(['Thanks', 'Thank you!'], seed + 2)}`,
  },
};

describe('parsePayee: property', () => {
  it('gives back each generated value exactly or leaves it empty, and all four where the form is sure', () => {
    fc.assert(
      fc.property(
        payees,
        amounts,
        fc.constantFrom(...Object.keys(forms)),
        fc.nat(),
        (payee, amountStyle, form, seed) => {
          const rendered = amountStyle(payee.minor);
          const { labelled, render } = forms[form] as (typeof forms)[string];
          const text = render({ ...payee, amount: rendered }, seed);
          const { payee: got, unsure } = parsePayee(text);
          const expected: Record<PayeeField, string> = {
            accountName: payee.name,
            accountNumber: payee.account,
            ifsc: payee.ifsc,
            amount: String(payee.minor),
          };
          const gotMinor = got.amount === undefined ? undefined : String(toMinor(got.amount));
          for (const field of ['accountName', 'accountNumber', 'ifsc'] as const)
            if (got[field] !== undefined)
              expect(got[field], `${field} of ${JSON.stringify(text)}`).toBe(expected[field]);
          if (gotMinor !== undefined)
            expect(gotMinor, `amount of ${JSON.stringify(text)}`).toBe(expected.amount);
          if (labelled || rendered.sure) {
            expect(unsure, JSON.stringify(text)).toEqual([]);
            expect(Object.keys(got).sort(), JSON.stringify(text)).toEqual([
              'accountName',
              'accountNumber',
              'amount',
              'ifsc',
            ]);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('leaves the account empty when a second long digit run competes with it', () => {
    fc.assert(
      fc.property(payees, payees, fc.nat(), (payee, other, seed) => {
        fc.pre(other.account !== payee.account);
        const text = shuffled([payee.name, payee.account, other.account, payee.ifsc], seed).join(' ');
        const reading = parsePayee(text);
        expect(reading.payee.accountNumber).toBeUndefined();
        expect(reading.unsure).toContain('accountNumber');
      }),
      { numRuns: 300 },
    );
  });
});
