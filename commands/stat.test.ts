/**
 * The report commands: the three statistics screens' routes, who is offered them (the channel statistics
 * are the platform's), and where an order statistics row leads (its merchant's pay-ins of that business
 * day in the order list: every one, or the paid ones), as a platform and as a merchant user.
 */
import { describe, expect, it } from 'vitest';
import { endpoints, type Grants } from '../contract/index.ts';
import { $businessTimeZone } from '../src/screens/stat/report.ts';
import { actionsFor, type Contexts, screenForPath, visibleScreens } from './index.ts';
import type { RunContext } from './types.ts';

const grants = (kind: Grants['kind'], ...perms: string[]): Grants => ({ kind, perms: new Set(perms) });
const ids = (list: readonly { id: string }[]) => list.map((c) => c.id);
const all = grants('platform', '*');

const row = (extra: Partial<Contexts['orderStatRow']> = {}): Contexts['orderStatRow'] => ({
  day: '2026-11-20',
  merchantId: 4,
  merchantCode: 'M10004',
  channelId: null,
  channelName: null,
  currency: 'INR',
  payinCreated: 10,
  payinPaid: 8,
  payinSuccessRate: 0.8,
  payinPaidAmount: '8000.00',
  payinFee: '200.00',
  payinNet: '7800.00',
  payoutCreated: 0,
  payoutSucceeded: 0,
  payoutAmount: '0.00',
  payoutFee: '0.00',
  ...extra,
});

/** Runs a row action and answers where it navigated. */
async function whereTo(
  id: string,
  target: Contexts['orderStatRow'],
  userKind: 'platform' | 'merchant',
): Promise<URL> {
  const action = actionsFor(all, 'orderStatRow', target).find((a) => a.id === id);
  if (!action) throw new Error(`${id} not offered`);
  let to = '';
  await (action.run as (c: RunContext, r: unknown) => Promise<void>)(
    { navigate: (path: string) => (to = path), userKind } as unknown as RunContext,
    target,
  );
  return new URL(to, 'http://console');
}

describe('report commands', () => {
  it('routes the three statistics screens, the channel statistics to the platform only', () => {
    expect(screenForPath('/stat/statorder')?.id).toBe('statOrder.orderStats');
    expect(screenForPath('/stat/statchannel')?.id).toBe('statOrder.channelStats');
    expect(screenForPath('/stat/statpayout')?.id).toBe('statOrder.payoutStats');
    const merchant = ids(visibleScreens(grants('merchant', '*')));
    expect(merchant).toContain('statOrder.orderStats');
    expect(merchant).toContain('statOrder.payoutStats');
    expect(merchant).not.toContain('statOrder.channelStats');
    const finance = ids(visibleScreens(grants('platform', endpoints.statOrder.list.permission)));
    expect(finance).toContain('statOrder.orderStats');
    expect(finance).not.toContain('statOrder.payoutStats');
  });

  it('opens a row’s pay-ins of its business day: every one (o) or the paid ones (p)', async () => {
    $businessTimeZone.set('Asia/Kolkata');
    const paid = await whereTo(
      'statOrder.paidPayinsOfDay',
      row({ channelId: 2, channelName: 'UPI' }),
      'platform',
    );
    expect(paid.pathname).toBe('/order');
    expect(paid.searchParams.get('merchantId')).toBe('4');
    expect(paid.searchParams.get('channelId')).toBe('2');
    expect(paid.searchParams.get('status')).toBe('paid');
    expect(new Date(paid.searchParams.get('from') as string).toISOString()).toBe('2026-11-19T18:30:00.000Z');
    const every = await whereTo('statOrder.payinsOfDay', row(), 'merchant');
    // A merchant user's list is its own: no merchant named, no state chosen.
    expect([...every.searchParams.keys()]).toEqual(['from', 'to']);
  });

  it('offers a row’s pay-ins only when it has some', () => {
    expect(ids(actionsFor(all, 'orderStatRow', row()))).toEqual([
      'statOrder.payinsOfDay',
      'statOrder.paidPayinsOfDay',
    ]);
    expect(ids(actionsFor(all, 'orderStatRow', row({ payinPaid: 0 })))).toEqual(['statOrder.payinsOfDay']);
    expect(ids(actionsFor(all, 'orderStatRow', row({ payinCreated: 0, payinPaid: 0 })))).toEqual([]);
  });
});
