import { describe, expect, it } from 'vitest';
import { payinRow } from '../../../contract/endpoints/orders.ts';
import { endpoints } from '../../../contract/index.ts';
import { type PageRow, type RowOrder, rowColumns, rowJson, rowView } from './views.ts';

/** A page row as the page statement gives it: the values in `rowColumns` order, times as epoch ms. */
const pageRowOf = (o: RowOrder, merchantCode: string, channelCode: string | null): PageRow => ({
  values: (Object.keys(rowColumns) as (keyof RowOrder)[]).map((key) => {
    const v = o[key];
    return v instanceof Date ? v.getTime() : v;
  }),
  merchantCode,
  channelCode,
});

const order = (over: Partial<RowOrder>): RowOrder => ({
  id: 1,
  orderNo: 'PI2611210000000001',
  merchantOrderNo: 'INV-1',
  merchantId: 7,
  channelId: 1,
  channelOrderId: 'SIMP0001',
  currency: 'INR',
  amount: 123_456,
  paidAmount: 123_456,
  fee: 2_469,
  status: 'paid',
  pushStatus: 'pushed',
  utr: '512345678901',
  paidBy: 'channel',
  createdAt: new Date('2026-11-21T10:00:00.120Z'),
  expiresAt: new Date('2026-11-21T10:30:00.000Z'),
  paidAt: new Date('2026-11-21T10:01:00.005Z'),
  callbackAt: new Date('2026-11-21T10:01:01.999Z'),
  ...over,
});

describe('rowJson', () => {
  it('writes exactly what JSON.stringify(rowView) writes, for every kind of value', () => {
    const cases: Array<[RowOrder, string, string | null]> = [
      [order({}), 'M20001', 'simulator'],
      // Nothing paid yet: the nullable columns null, no channel.
      [
        order({
          channelId: null,
          channelOrderId: null,
          paidAmount: null,
          status: 'pending',
          pushStatus: 'unpushed',
          utr: null,
          paidBy: null,
          paidAt: null,
          callbackAt: null,
        }),
        'M1',
        null,
      ],
      // Text a merchant chose: quotes, backslashes, control characters, non-Latin and astral characters.
      [
        order({ merchantOrderNo: 'INV/2026/"q"\\n\u0001\u2028订单🙂', amount: 1, fee: 0, paidAmount: 99 }),
        'M"2',
        'ch\\1',
      ],
      // The largest amounts the money rules allow, and times at the edges of days and years.
      [
        order({
          id: 9_007_199_254_740_991,
          amount: 99_999_999_999_99,
          paidAmount: 10,
          createdAt: new Date('2026-12-31T23:59:59.999Z'),
          expiresAt: new Date('2027-01-01T00:00:00.000Z'),
        }),
        'M3',
        'c',
      ],
    ];
    for (const [o, m, c] of cases) {
      const text = rowJson(pageRowOf(o, m, c));
      expect(text).toBe(JSON.stringify(rowView(o, m, c)));
      expect(payinRow.safeParse(JSON.parse(text)).success).toBe(true);
    }
  });

  it('is what the list endpoint answers rows as (its output schema is the row schema)', () => {
    const list = endpoints.merchantOrder.list.output.safeParse({
      list: [JSON.parse(rowJson(pageRowOf(order({}), 'M1', 'simulator')))],
      total: 1,
      totalCapped: false,
      nextCursor: null,
    });
    expect(list.success).toBe(true);
  });
});
