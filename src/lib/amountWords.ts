import type { Language } from './settings.ts';

/**
 * An amount in rupees written out, as the confirmation of a payout shows it beside the number, so that
 * a digit too many or too few reads as a different sum ("One lakh twenty-five thousand" is not
 * "Twelve lakh fifty thousand").
 *
 * English counts the Indian way: crore (10^7), lakh (10^5), thousand, hundred; "rupee"/"paisa" for one,
 * "rupees"/"paise" otherwise, joined by "and": "One lakh twenty-five thousand rupees and fifty paise".
 *
 * Chinese counts in groups of four digits (万 10^4, 亿 10^8) with the everyday numerals 一二三 (the
 * banker's capitals 壹贰叁 serve cheques against forgery; this is for reading); 零 stands once for each
 * run of missing digits inside the number (十万零五, 一亿零一万), a leading 一十 is said 十 (十二万);
 * then 卢比 for rupees and 派萨 for paise: 1,25,000.50 → 十二万五千卢比五十派萨.
 */
export function amountInWords(minor: number, language: Language): string {
  const rupees = Math.floor(minor / 100);
  const paise = minor % 100;
  return language === 'zh_CN' ? chinese(rupees, paise) : english(rupees, paise);
}

const ones = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const tens = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

function belowHundred(n: number): string {
  if (n < 20) return ones[n] as string;
  const unit = n % 10;
  return `${tens[Math.floor(n / 10)]}${unit ? `-${ones[unit]}` : ''}`;
}

function belowThousand(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  return [hundreds ? `${ones[hundreds]} hundred` : '', rest ? belowHundred(rest) : '']
    .filter(Boolean)
    .join(' ');
}

/** A whole number above zero in crores, lakhs and thousands; above 99 crore the crores count on. */
function indian(n: number): string {
  const crores = Math.floor(n / 10_000_000);
  const lakhs = Math.floor(n / 100_000) % 100;
  const thousands = Math.floor(n / 1000) % 100;
  return [
    crores ? `${indian(crores)} crore` : '',
    lakhs ? `${belowHundred(lakhs)} lakh` : '',
    thousands ? `${belowHundred(thousands)} thousand` : '',
    n % 1000 ? belowThousand(n % 1000) : '',
  ]
    .filter(Boolean)
    .join(' ');
}

function english(rupees: number, paise: number): string {
  const parts = [
    rupees ? `${indian(rupees)} ${rupees === 1 ? 'rupee' : 'rupees'}` : '',
    paise ? `${belowHundred(paise)} ${paise === 1 ? 'paisa' : 'paise'}` : '',
  ].filter(Boolean);
  const text = parts.length ? parts.join(' and ') : 'zero rupees';
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const digits = '零一二三四五六七八九';
const places = ['', '十', '百', '千'];
const groups = ['', '万', '亿', '万亿'];

/** 1 to 9999: 一千零五, 三百四十五. */
function group(n: number): string {
  let out = '';
  let gap = false;
  for (let place = 3; place >= 0; place--) {
    const d = Math.floor(n / 10 ** place) % 10;
    if (d === 0) {
      gap ||= out !== '';
      continue;
    }
    out += `${gap ? '零' : ''}${digits[d]}${places[place]}`;
    gap = false;
  }
  return out;
}

function chineseNumber(n: number): string {
  let out = '';
  let gap = false;
  for (let g = groups.length - 1; g >= 0; g--) {
    const part = Math.floor(n / 10_000 ** g) % 10_000;
    if (part === 0) {
      gap ||= out !== '';
      continue;
    }
    // A missing group, or a group under a thousand after a higher one, is read with 零.
    out += `${gap || (out && part < 1000) ? '零' : ''}${group(part)}${groups[g]}`;
    gap = false;
  }
  return out.replace(/^一十/, '十');
}

function chinese(rupees: number, paise: number): string {
  if (!rupees && !paise) return '零卢比';
  return `${rupees ? `${chineseNumber(rupees)}卢比` : ''}${paise ? `${chineseNumber(paise)}派萨` : ''}`;
}
