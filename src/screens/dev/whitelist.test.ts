import { describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { parseWhitelist } from './whitelist.ts';

describe('payout IP whitelist as typed', () => {
  it('takes lines, commas (also the Chinese one) and spaces, and drops repeats', () => {
    expect(parseWhitelist('203.0.113.10\n 10.0.0.0/8, 2001:db8::/32，203.0.113.10  \n\n')).toEqual([
      '203.0.113.10',
      '10.0.0.0/8',
      '2001:db8::/32',
    ]);
    expect(parseWhitelist('  \n ')).toEqual([]);
  });

  it('hands the contract what it checks, so a wrong entry is found by its index', () => {
    const list = parseWhitelist('1.2.3.4\nnot-an-ip');
    const checked = endpoints.merchant.ipsUpdate.input.safeParse({ payoutIpWhitelist: list });
    expect(checked.success).toBe(false);
    expect(checked.error?.issues[0]?.path).toEqual(['payoutIpWhitelist', 1]);
  });
});
