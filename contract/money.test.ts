import { describe, expect, it } from 'vitest';
import { formatMinor, toMinor } from './money.ts';

describe('formatMinor', () => {
  it('writes minor units as a two-decimal amount, numbers and bigints alike', () => {
    const cases: Array<[number | bigint, string]> = [
      [0, '0.00'],
      [-0, '0.00'],
      [5, '0.05'],
      [50, '0.50'],
      [100, '1.00'],
      [123_450, '1234.50'],
      [-123_456, '-1234.56'],
      [-7, '-0.07'],
      [Number.MAX_SAFE_INTEGER, '90071992547409.91'],
      [-Number.MAX_SAFE_INTEGER, '-90071992547409.91'],
      [9_007_199_254_740_993n, '90071992547409.93'],
      [-1n, '-0.01'],
    ];
    for (const [minor, text] of cases) expect(formatMinor(minor), String(minor)).toBe(text);
  });

  it('agrees between the number and the bigint paths, and round-trips through toMinor', () => {
    for (let minor = -25_000; minor <= 25_000; minor += 7) {
      expect(formatMinor(minor)).toBe(formatMinor(BigInt(minor)));
      if (minor > 0) expect(toMinor(formatMinor(minor))).toBe(minor);
    }
  });

  it('refuses what is not a whole number of minor units', () => {
    expect(() => formatMinor(1.5)).toThrow();
    expect(() => formatMinor(Number.NaN)).toThrow();
  });
});
