/**
 * Money on the wire: decimal strings with at most two decimals ("1234.50"), never floats.
 * Inside the system amounts are integer minor units (a JS number, always a safe integer);
 * rates are parts per million. Conversions live here, shared by server and console.
 */
import * as z from 'zod/mini';

/** The largest amount one order, fee or transfer may carry: 10,000,000,000.00. */
export const maxMinor = 1_000_000_000_000;

const decimal2 = /^(0|[1-9]\d{0,10})(\.\d{1,2})?$/;

/** "1234.5" → 123450. The caller has checked the format. */
export function toMinor(s: string): number {
  const [whole = '0', frac = ''] = s.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
}

/** 123450 → "1234.50"; negative amounts keep their sign (ledger postings). */
export function formatMinor(minor: number | bigint): string {
  // Whole numbers the driver gives as numbers (every amount below 2^53): number arithmetic, exact there
  // and far cheaper than BigInt (a list page formats some 60 amounts).
  if (typeof minor === 'number' && Number.isSafeInteger(minor)) {
    const abs = Math.abs(minor);
    const cents = abs % 100;
    return `${minor < 0 ? '-' : ''}${(abs - cents) / 100}.${cents < 10 ? '0' : ''}${cents}`;
  }
  const n = BigInt(minor);
  const sign = n < 0n ? '-' : '';
  const abs = n < 0n ? -n : n;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** A positive amount: decimal string, at most two decimals, above zero, at most `maxMinor`. */
export const amount = z.pipe(
  z.string().check(
    z.trim(),
    z.regex(decimal2, { message: 'validation.amount' }),
    z.refine((s) => toMinor(s) > 0 && toMinor(s) <= maxMinor, { message: 'validation.amountRange' }),
  ),
  z.transform(toMinor),
);

/** An amount that may be zero (fees, limits). */
export const amountOrZero = z.pipe(
  z.string().check(
    z.trim(),
    z.regex(decimal2, { message: 'validation.amount' }),
    z.refine((s) => toMinor(s) <= maxMinor, { message: 'validation.amountRange' }),
  ),
  z.transform(toMinor),
);

/** How amounts are answered. */
export const moneyOut = z.string();

/** A percentage rate with at most four decimals ("2.5" = 2.5 %), stored as parts per million. */
const rate4 = /^(0|[1-9]\d{0,2})(\.\d{1,4})?$/;
export function percentToPpm(s: string): number {
  const [whole = '0', frac = ''] = s.split('.');
  return Number(whole) * 10_000 + Number(frac.padEnd(4, '0'));
}
export function ppmToPercent(ppm: number): string {
  const whole = Math.floor(ppm / 10_000);
  const frac = String(ppm % 10_000)
    .padStart(4, '0')
    .replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : String(whole);
}
export const ratePercent = z.pipe(
  z.string().check(
    z.trim(),
    z.regex(rate4, { message: 'validation.rate' }),
    z.refine((s) => percentToPpm(s) <= 1_000_000, { message: 'validation.rate' }),
  ),
  z.transform(percentToPpm),
);

/**
 * A rolling reserve's share of each payment's net (docs/MONEY-BACK.md section 4): a percentage from 0 to
 * 50 with at most two decimals ("10" = 10 %), stored as basis points (1000); 0 means no reserve.
 */
const percent2 = /^(0|[1-9]\d?)(\.\d{1,2})?$/;
export function percentToBp(s: string): number {
  const [whole = '0', frac = ''] = s.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
}
/** 1000 → `10.00`: basis points as the percentage the form shows, two decimals. */
export const bpToPercent = (bp: number): string =>
  `${Math.floor(bp / 100)}.${String(bp % 100).padStart(2, '0')}`;
export const reservePercent = z.pipe(
  z.string().check(
    z.trim(),
    z.regex(percent2, { message: 'validation.reservePercent' }),
    z.refine((s) => percentToBp(s) <= 5_000, { message: 'validation.reservePercent' }),
  ),
  z.transform(percentToBp),
);

/** fee = round_half_up(amount × rate) + fixed, in integer arithmetic. */
export function feeOf(amountMinor: number, ratePpm: number, fixedMinor = 0): number {
  const variable = (BigInt(amountMinor) * BigInt(ratePpm) + 500_000n) / 1_000_000n;
  return Number(variable) + fixedMinor;
}
