import { expect, request } from '@playwright/test';
import { formatMinor, toMinor } from '../contract/money.ts';
import { nextCode, type Operator } from './orders-support.ts';
import { Api, baseURL } from './support.ts';

export interface BankPayin {
  orderNo: string;
  amount: string;
}

export interface BankWorkspace {
  channelId: number;
  accountId: number;
  accountNumber: string;
  merchantId: number;
  /** Today's business day, as the statement writes it (`YYYY-MM-DD`). */
  day: string;
  /** The pay-in whose payer submitted `utr` on the pay page. */
  withUtr: BankPayin & { utr: string };
  /** Two pay-ins of one amount: a credit of it without a UTR is ambiguous. */
  shared: [BankPayin, BankPayin];
  /** A statement reference no other run uses. */
  stamp: string;
  /** With `more`: a pay-in of an amount no other has (a credit of it is proposed), and one whose payer's UTR comes with another amount. */
  alone?: BankPayin;
  mismatched?: BankPayin & { utr: string };
}

/** `n` random digits, the first not 0 (account numbers, UTRs). */
export const digits = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    i === 0 ? 1 + Math.floor(Math.random() * 9) : Math.floor(Math.random() * 10),
  ).join('');

/** A bank as the set-up names it: the account's bank, its IFSC, its UPI handle, a word for codes and names. */
export interface Bank {
  name: string;
  ifsc: string;
  handle: string;
  word: string;
}

/**
 * As the platform admin: a bank channel, a public account of `bank` bound to it, and a merchant routed
 * through it only, whose owner's sign-in it answers. Names carry a stamp no other run uses.
 */
export async function bankAccount(admin: Api, bank: Bank, accountDigits = 12) {
  const stamp = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`.toUpperCase();
  const word = bank.word.toLowerCase();
  const channel = await admin.ok<{ id: number }>('POST', '/channel/create', {
    code: `e2e${word}${stamp.toLowerCase()}`,
    name: `E2E ${bank.word} ${stamp}`,
    adapter: 'bank',
    minAmount: '1.00',
    maxAmount: '1000000.00',
  });
  const accountNumber = digits(accountDigits);
  const account = await admin.ok<{ id: number }>('POST', '/receivingAccount/create', {
    kind: 'public',
    bankName: bank.name,
    accountName: `E2E ${bank.word} Collections ${stamp}`,
    accountNumber,
    ifsc: bank.ifsc,
    vpa: `e2e${word}${stamp.toLowerCase()}@${bank.handle}`,
    dailyLimit: '1000000.00',
  });
  await admin.ok('POST', '/cardBinding/create', {
    accountId: account.id,
    channelId: channel.id,
    weight: 100,
  });
  const owner = { username: `e2e_${word}_${stamp.toLowerCase()}`, password: 'E2ePassw0rd!' };
  const merchant = await admin.ok<{ id: number }>('POST', '/merchant/create', {
    name: `E2E ${bank.word} Merchant ${stamp}`,
    owner,
    channels: [{ channelId: channel.id, weight: 100 }],
  });
  return {
    stamp,
    channelId: channel.id,
    accountId: account.id,
    accountNumber,
    merchantId: merchant.id,
    owner,
  };
}

/**
 * As the platform admin: an HDFC account (`bankAccount`); then, as that merchant's owner, three pay-ins
 * (two of one amount), and on the pay page of the third a UTR the payer submits. Amounts carry random
 * paise so no other run's orders are candidates.
 */
export async function bankWorkspace(admin: Api, more = false): Promise<BankWorkspace> {
  const { stamp, channelId, accountId, accountNumber, merchantId, owner } = await bankAccount(admin, {
    name: 'HDFC Bank',
    ifsc: 'HDFC0001234',
    handle: 'hdfcbank',
    word: 'Bank',
  });

  const http = await request.newContext({ baseURL, extraHTTPHeaders: { 'Accept-Language': 'en' } });
  try {
    const login = await (await http.post('/api/auth/login', { data: owner })).json();
    expect(login.errno, `sign-in of ${owner.username}: ${login.errmsg}`).toBe(0);
    const headers = { 'admin-token': login.data.token as string };
    const create = async (amount: string): Promise<BankPayin> => {
      const answer = await (
        await http.post('/api/merchantOrder/create', { data: { amount }, headers })
      ).json();
      expect(answer.errno, `pay-in of ${amount}: ${answer.errmsg}`).toBe(0);
      return { orderNo: answer.data.orderNo, amount: answer.data.amount };
    };
    const sharedAmount = formatMinor(150_000 + Math.floor(Math.random() * 9_999));
    const shared: [BankPayin, BankPayin] = [await create(sharedAmount), await create(sharedAmount)];
    const paid = await create(formatMinor(250_000 + Math.floor(Math.random() * 9_999)));
    const payerUtr = async (orderNo: string) => {
      const utr = digits(12);
      const sent = await (await http.post(`/pay/${orderNo}/utr`, { data: { utr } })).json();
      expect(sent.errno, `payer UTR: ${sent.errmsg}`).toBe(0);
      return utr;
    };
    const utr = await payerUtr(paid.orderNo);
    const extra: Pick<BankWorkspace, 'alone' | 'mismatched'> = {};
    if (more) {
      extra.alone = await create(formatMinor(350_000 + Math.floor(Math.random() * 9_999)));
      const mismatched = await create(formatMinor(450_000 + Math.floor(Math.random() * 9_999)));
      extra.mismatched = { ...mismatched, utr: await payerUtr(mismatched.orderNo) };
    }

    const period = await admin.ok<{ to: string }>('GET', '/statOrder/balance', { view: 'account' });
    return {
      channelId,
      accountId,
      accountNumber,
      merchantId,
      day: period.to,
      withUtr: { ...paid, utr },
      shared,
      stamp,
      ...extra,
    };
  } finally {
    await http.dispose();
  }
}

/** `2026-11-24` → `24/11/26`, HDFC's date. */
const hdfcDay = (day: string) => `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(2, 4)}`;
/** An amount cell, quoted as the bank's export quotes its grouped amounts. */
const plain = (amount: string) => `"${amount}"`;

/**
 * An HDFC statement (the preset's layout) of the workspace's day with two credits: the payer's UPI
 * payment carrying the UTR and amount of `withUtr`, and a deposit of the shared amount without a UTR.
 * The balances run on from an opening of 10,000.00.
 */
export function hdfcStatement(w: BankWorkspace): string {
  const day = hdfcDay(w.day);
  let balance = 1_000_000;
  const credit = (narration: string, reference: string, amount: string) => {
    balance += toMinor(amount);
    return `${day},${narration},${reference},${day},,${plain(amount)},${plain(formatMinor(balance))}`;
  };
  const upi = (utr: string) => `UPI-ASHA RAO-asha.rao@okicici-ICIC0001234-${utr}-PAYMENT`;
  return [
    'Date,Narration,Chq./Ref.No.,Value Dt,Withdrawal Amt.,Deposit Amt.,Closing Balance',
    credit(upi(w.withUtr.utr), `0000${w.withUtr.utr}`, w.withUtr.amount),
    credit(`CASH DEPOSIT ${w.stamp}`, '', w.shared[0].amount),
    ...(w.alone ? [credit(`CASH DEPOSIT ${w.stamp} A`, '', w.alone.amount)] : []),
    ...(w.mismatched
      ? [
          credit(
            upi(w.mismatched.utr),
            `0000${w.mismatched.utr}`,
            formatMinor(toMinor(w.mismatched.amount) + 100),
          ),
          credit(`NEFT CR-SBIN0001234-UNKNOWN PAYER ${w.stamp}`, '', '777.77'),
        ]
      : []),
    '',
  ].join('\n');
}

/** Imports `text` into the workspace's account through the API, read with the HDFC preset. */
export async function importByApi(admin: Api, w: BankWorkspace, text: string) {
  const mappings = await admin.ok<{ list: { preset: string | null; mapping: unknown }[] }>(
    'GET',
    '/statementMapping/list',
  );
  const hdfc = mappings.list.find((m) => m.preset === 'hdfc');
  if (!hdfc) throw new Error('no HDFC preset');
  return admin.ok<{ importId: number; counts: Record<string, number> }>('POST', '/statement/import', {
    accountId: w.accountId,
    mapping: hdfc.mapping,
    text,
  });
}

/**
 * Posts an import's ready lines as `user` (a key holder: posting is a money decision, docs/SECURITY.md),
 * signed in afresh; answers what it paid.
 */
export async function postByApi(user: Operator, importId: number) {
  const api = await Api.create();
  try {
    await api.signInWithCode(user.username, user.password, await nextCode(user.secret));
    return await api.ok<{ matched: number; approval: unknown }>('POST', '/statement/accept', {
      importId,
      reason: 'statement checked',
      code: await nextCode(user.secret),
    });
  } finally {
    await api.dispose();
  }
}
