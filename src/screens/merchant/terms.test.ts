import { describe, expect, it } from 'vitest';
import { ipWhitelist } from '../../../contract/endpoints/merchant.ts';
import { ratePercent, rateTone } from '../dashboard/rates.ts';
import { cycleLabel, limitsLabel, percent, whitelistOf } from './terms.ts';

describe('merchant terms on screen', () => {
  it('writes settlement cycles as the business does', () => {
    expect(cycleLabel('D0')).toBe('D0');
    expect(cycleLabel('T1')).toBe('T+1');
    expect(cycleLabel('T30')).toBe('T+30');
  });

  it('shows limits and rates with separators and units', () => {
    expect(limitsLabel('500.00', '1000000.00')).toBe('500.00 – 10,00,000.00');
    expect(percent('2.75')).toBe('2.75 %');
  });

  it('splits a pasted whitelist into entries the contract checks one by one', () => {
    const entries = whitelistOf(
      ' 203.0.113.7,198.51.100.0/24\n\n2001:db8::1 ；10.0.0.1，10.0.0.2; 10.0.0.3、',
    );
    expect(entries).toEqual([
      '203.0.113.7',
      '198.51.100.0/24',
      '2001:db8::1',
      '10.0.0.1',
      '10.0.0.2',
      '10.0.0.3',
    ]);
    expect(ipWhitelist.safeParse(entries).success).toBe(true);
    // A wrong entry is refused by its index, so the form can name it.
    const checked = ipWhitelist.safeParse(whitelistOf('10.0.0.1, office-router'));
    expect(checked.error?.issues.map((i) => i.path.join('.'))).toEqual(['1']);
    expect(whitelistOf('')).toEqual([]);
  });

  it('reads success rates from parts per million', () => {
    expect(ratePercent(null)).toBe('—');
    expect(ratePercent(808_383)).toBe('80.8 %');
    expect(ratePercent(1_000_000)).toBe('100.0 %');
    expect([null, 950_000, 900_000, 899_999, 700_000, 699_999].map(rateTone)).toEqual([
      'ok',
      'ok',
      'ok',
      'warn',
      'warn',
      'bad',
    ]);
  });
});
