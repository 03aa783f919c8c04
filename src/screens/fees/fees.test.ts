import { describe, expect, it } from 'vitest';
import { feesFor } from './fees.ts';

const terms = { collectionRate: '2.5', platformFee: '1.00', payoutRate: '1.2', payoutFee: '5.00' };

describe('fee calculator', () => {
  it('computes pay-in and payout fees as the server does', () => {
    // 1,000.00 × 2.5 % = 25.00, + 1.00 fixed; payout 1,000.00 × 1.2 % = 12.00, + 5.00.
    expect(feesFor(100_000, terms)).toEqual({
      payinFee: '26.00',
      payinCredited: '974.00',
      payoutFee: '17.00',
      payoutDebited: '1017.00',
    });
  });

  it('rounds half up in minor units', () => {
    // 0.10 × 2.5 % = 0.0025 → 0.00; 0.20 × 2.5 % = 0.005 → 0.01.
    expect(feesFor(10, { ...terms, platformFee: '0.00' }).payinFee).toBe('0.00');
    expect(feesFor(20, { ...terms, platformFee: '0.00' }).payinFee).toBe('0.01');
    // 1.25 % of 0.40 = 0.005 → 0.01.
    expect(feesFor(40, { ...terms, payoutRate: '1.25', payoutFee: '0.00' }).payoutFee).toBe('0.01');
  });

  it('never charges a pay-in more than its amount', () => {
    expect(feesFor(50, terms)).toMatchObject({ payinFee: '0.50', payinCredited: '0.00' });
  });
});
