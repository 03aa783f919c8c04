import { describe, expect, it } from 'vitest';
import { rateBases, ratePercent } from './rates.ts';

describe('dashboard rates', () => {
  it('names the rate over ended orders and gives the rate over all created beside it', () => {
    // "Orders 16, Paid 4": 50 % of the 8 that ended, 25 % of the 16 created.
    expect(ratePercent(500_000)).toBe('50.0 %');
    expect(rateBases({ count: 16, successCount: 4, finishedCount: 8 })).toEqual({
      ended: '8',
      created: '16',
      rate: '25.0 %',
    });
    expect(rateBases({ count: 0, successCount: 0, finishedCount: 0 }).rate).toBe('—');
    expect(rateBases({ count: 1234, successCount: 1234, finishedCount: 1234 })).toMatchObject({
      created: '1,234',
      rate: '100.0 %',
    });
  });
});
