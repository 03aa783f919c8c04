import { describe, expect, it } from 'vitest';
import { payinRow, payoutRow } from '../../../contract/endpoints/orders.ts';
import { endpoints } from '../../../contract/index.ts';
import { payoutOrderRow } from '../orders/kinds.ts';
import type { PageRow } from '../orders/row.ts';
import type { PayoutOrder } from '../payout/service.ts';
import { payinOrderRow, type RowOrder } from './views.ts';

/** A page row as the page statement gives it: the values in the row's column order, times as epoch ms. */
const pageRowOf = <O extends object>(
  row: { columns: object },
  o: O,
  merchantCode: string,
  channelCode: string | null,
): PageRow => ({
  values: Object.keys(row.columns).map((key) => {
    const v = o[key as keyof O];
    return v instanceof Date ? v.getTime() : v;
  }),
  merchantCode,
  channelCode,
});
const rowJson = (o: RowOrder, m: string, c: string | null) =>
  payinOrderRow.json(pageRowOf(payinOrderRow, o, m, c));
const rowView = payinOrderRow.view;

const order = (over: Partial<RowOrder>): RowOrder => ({
  id: 1,
  refundedAmount: 0,
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
      const text = rowJson(o, m, c);
      expect(text).toBe(JSON.stringify(rowView(o, m, c)));
      expect(payinRow.safeParse(JSON.parse(text)).success).toBe(true);
    }
  });

  it('is what the list endpoint answers rows as (its output schema is the row schema)', () => {
    const list = endpoints.merchantOrder.list.output.safeParse({
      list: [JSON.parse(rowJson(order({}), 'M1', 'simulator'))],
      total: 1,
      totalCapped: false,
      nextCursor: null,
    });
    expect(list.success).toBe(true);
  });
});

describe('the payout row', () => {
  const payout = (over: Partial<PayoutOrder>): PayoutOrder => ({
    id: 5,
    refundId: null,
    orderNo: 'PO2611210000000001',
    merchantId: 7,
    merchantOrderNo: 'PAY-1',
    channelId: 1,
    channelOrderId: 'SIMQ0001',
    currency: 'INR',
    amount: 50_000,
    fee: 1_000,
    status: 'success',
    pushStatus: 'pushed',
    accountName: 'Asha "A" Verma\\',
    accountNumber: '123456789012',
    ifsc: 'HDFC0001234',
    utr: 'UTR123456',
    notifyUrl: 'https://m.example/cb',
    source: 'api',
    requestHash: 'x',
    requestSnapshot: null,
    responseSnapshot: null,
    failureReason: null,
    holds: 1,
    holdOpen: false,
    attempts: 1,
    nextAttemptAt: null,
    completedAt: new Date('2026-11-21T10:05:00.010Z'),
    callbackAt: null,
    createdBy: null,
    createdAt: new Date('2026-11-21T10:00:00.120Z'),
    updatedAt: new Date('2026-11-21T10:05:00.010Z'),
    ...over,
  });

  it('is written as JSON exactly as its view, and parses as the contract row, for every kind of value', () => {
    for (const [o, m, c] of [
      [payout({}), 'M20001', 'simulator'],
      [
        payout({ channelId: null, channelOrderId: null, utr: null, completedAt: null, status: 'queued' }),
        'M1',
        null,
      ],
      [
        payout({ status: 'failed', failureReason: 'declined\n"by bank"', callbackAt: new Date(0) }),
        'M"2',
        'c',
      ],
    ] as const) {
      const text = payoutOrderRow.json(pageRowOf(payoutOrderRow, o, m, c));
      expect(text).toBe(JSON.stringify(payoutOrderRow.view(o, m, c)));
      expect(payoutRow.safeParse(JSON.parse(text)).success).toBe(true);
    }
  });
});
