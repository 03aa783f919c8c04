/**
 * The paste helper of the single transfer: pulls the payee's name, account number, IFSC and the amount
 * out of whatever a merchant pastes: a labelled message ("Name: Ravi Kumar / A/c 1234… / IFSC HDFC0…
 * / Amount 1,500.00", in English or Chinese), or a row copied from a spreadsheet (tab, comma or
 * semicolon separated). It only proposes values; the contract's schemas judge them afterwards.
 */

export interface Payee {
  accountName?: string;
  accountNumber?: string;
  ifsc?: string;
  amount?: string;
}

const ifscShape = /\b([A-Za-z]{4}0[A-Za-z0-9]{6})\b/;
const labelEnd = String.raw`\s*(?:[:：=#-]\s*|\s+)`;

const labelled = {
  accountName: new RegExp(
    String.raw`(?:beneficiary(?:'s)?\s*name|account\s*holder(?:\s*name)?|a\/?c\s*holder(?:\s*name)?|holder\s*name|payee(?:\s*name)?|recipient(?:\s*name)?|name|收款人(?:姓名)?|户名|账户名|开户名|姓名)${labelEnd}([^\n\r\t:：]+)`,
    'i',
  ),
  accountNumber: new RegExp(
    String.raw`(?:a\/?c(?:count)?\.?\s*(?:no\.?|number|num|#)?|account\s*(?:no\.?|number|num|#)?|acct\.?\s*(?:no\.?|number)?|bank\s*account(?:\s*(?:no\.?|number))?|收款账号|银行账号|银行卡号|卡号|账号)${labelEnd}(\d[\d -]{4,28}\d)`,
    'i',
  ),
  ifsc: new RegExp(
    String.raw`(?:ifsc(?:\s*code)?|bank\s*code|branch\s*code|银行代码|银行编码)${labelEnd}([A-Za-z]{4}0[A-Za-z0-9]{6})\b`,
    'i',
  ),
  amount: new RegExp(
    String.raw`(?:amount|amt|payout|transfer|rs\.?|inr|₹|金额|转账金额|代付金额)${labelEnd}(?:rs\.?\s*|inr\s*|₹\s*)?(\d[\d,]*(?:\.\d{1,2})?)`,
    'i',
  ),
};

/** "1,500.00" → "1500.00"; "₹ 2,50,000" → "250000" (Indian grouping too). */
function cleanAmount(text: string): string {
  return text.replace(/^(?:rs\.?|inr|₹)\s*/i, '').replace(/[,\s]/g, '');
}

const cleanDigits = (text: string) => text.replace(/[\s-]/g, '');
const cleanName = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .replace(/[,;]+$/, '')
    .trim();

const amountShape = /^(?:rs\.?\s*|inr\s*|₹\s*)?(?:\d{1,3}(?:,\d{2,3})+|\d+)(?:\.\d{1,2})?$/i;
const digitsShape = /^\d[\d -]*\d$/;
const nameShape = /^[\p{L}][\p{L} .'-]*$/u;

/** Splits a pasted row into cells: tabs or line breaks, else commas and semicolons not inside an amount. */
function cellsOf(text: string): string[] {
  const lines = text.split(/[\r\n\t|]+/);
  return lines
    .flatMap((line) => line.split(/\s*[;；]\s*|\s*[,，]\s*(?!\d{3}(?:\D|$))/))
    .map((c) => c.trim())
    .filter(Boolean);
}

export function parsePayee(text: string): Payee {
  const out: Payee = {};
  const source = text.replace(/\u00a0/g, ' ');

  for (const line of source.split(/[\r\n]+/)) {
    if (!out.ifsc) {
      const m = labelled.ifsc.exec(line);
      if (m?.[1]) out.ifsc = m[1].toUpperCase();
    }
    if (!out.accountNumber) {
      const m = labelled.accountNumber.exec(line);
      if (m?.[1]) out.accountNumber = cleanDigits(m[1]);
    }
    if (!out.amount) {
      const m = labelled.amount.exec(line);
      if (m?.[1]) out.amount = cleanAmount(m[1]);
    }
    if (!out.accountName) {
      const m = labelled.accountName.exec(line);
      const name = m?.[1] ? cleanName(m[1]) : '';
      // "Name: Ravi Kumar A/c 1234…" on one line: the name stops where the next label starts.
      const stop = name.search(/\s(?:a\/?c|account|acct|ifsc|amount|amt|rs\.?|inr|₹)\b/i);
      const trimmed = stop > 0 ? name.slice(0, stop).trim() : name;
      if (trimmed && nameShape.test(trimmed)) out.accountName = trimmed;
    }
  }

  if (!out.ifsc) {
    const m = ifscShape.exec(source);
    if (m?.[1] && /[A-Z]{4}0/.test(m[1].toUpperCase())) out.ifsc = m[1].toUpperCase();
  }

  // Unlabelled cells: an IFSC is unmistakable; of the numbers, a grouped or decimal one is the amount
  // and the longest plain one the account; the first cell made of letters is the name.
  const cells = cellsOf(source);
  const numbers: string[] = [];
  for (const cell of cells) {
    if (ifscShape.test(cell) && cell.length === 11) continue;
    if (digitsShape.test(cell) && !/[,.]/.test(cell)) numbers.push(cleanDigits(cell));
    else if (!out.amount && amountShape.test(cell)) out.amount = cleanAmount(cell);
    else if (!out.accountName && nameShape.test(cell) && cell.length <= 100)
      out.accountName = cleanName(cell);
  }
  const plain = numbers.filter((n) => n !== out.accountNumber && n !== out.amount);
  if (!out.accountNumber) {
    const longest = [...plain].sort((a, b) => b.length - a.length)[0];
    if (longest && longest.length >= 6) {
      out.accountNumber = longest;
      plain.splice(plain.indexOf(longest), 1);
    }
  }
  if (!out.amount) {
    const short = plain.find((n) => n.length <= 11 && n !== out.accountNumber);
    if (short) out.amount = short;
  }
  return out;
}
