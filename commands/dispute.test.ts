/**
 * The dispute commands: what a case's state and the user's permissions offer (the platform's finance
 * decides, a merchant's user adds evidence and withdraws, a decided case only opens its pay-in), and `D` on
 * a paid pay-in with something left of what was paid.
 */
import { describe, expect, it } from 'vitest';
import { endpoints, type Grants } from '../contract/index.ts';
import { actionsFor, type Contexts, screenForPath } from './index.ts';

const grants = (kind: Grants['kind'], ...perms: string[]): Grants => ({ kind, perms: new Set(perms) });
const ids = (list: readonly { id: string }[]) => list.map((c) => c.id);
const { dispute: d, merchantOrder } = endpoints;

const dispute = (status: Contexts['dispute']['status']): Contexts['dispute'] => ({
  id: 7,
  disputeNo: 'DP26113001020312345',
  merchantId: 1,
  merchantCode: 'M10001',
  payinId: 11,
  orderNo: 'PI26112016200280863153',
  merchantOrderNo: 'ORD26112001463',
  kind: 'complaint',
  status,
  currency: 'INR',
  amount: '400.00',
  held: '400.00',
  unheld: '0.00',
  deadline: '2026-12-07T10:00:00Z',
  overdue: false,
  owner: null,
  ownerId: null,
  openedSide: 'platform',
  openedBy: 'ops',
  reason: 'Payer says the goods never came',
  outcomeReason: null,
  decidedBy: null,
  decidedAt: null,
  refundId: null,
  refundNo: null,
  evidenceCount: 0,
  createdAt: '2026-11-30T01:02:03Z',
});

describe('dispute commands', () => {
  it('has its screen at /dispute', () => {
    expect(screenForPath('/dispute')?.id).toBe('dispute.list');
  });

  it('offers an open case what each side may do to it, and a decided one only its pay-in', () => {
    const finance = grants(
      'platform',
      ...[d.evidence, d.assign, d.decide, d.withdraw, merchantOrder.list].map((e) => e.permission),
    );
    expect(ids(actionsFor(finance, 'dispute', dispute('open')))).toEqual([
      'dispute.order',
      'dispute.evidence',
      'dispute.assign',
      'dispute.win',
      'dispute.lose',
      'dispute.withdraw',
    ]);
    // A merchant's user never assigns or decides: those endpoints are the platform's.
    expect(ids(actionsFor(grants('merchant', '*'), 'dispute', dispute('open')))).toEqual([
      'dispute.order',
      'dispute.evidence',
      'dispute.withdraw',
    ]);
    for (const status of ['won', 'lost', 'withdrawn'] as const)
      expect(ids(actionsFor(finance, 'dispute', dispute(status)))).toEqual(['dispute.order']);
  });
});
