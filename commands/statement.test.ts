/**
 * The bank statement commands: the screens' routes and who sees them, which actions a statement line's
 * state offers on its row (and with several checked), the queue's keys, and where a reconciliation
 * figure leads.
 */
import { describe, expect, it } from 'vitest';
import { endpoints, type Grants } from '../contract/index.ts';
import { actionsFor, type Contexts, screenForPath, visibleScreens } from './index.ts';
import { creditsOfDay, paidOrdersOfDay } from './statement.ts';

const grants = (kind: Grants['kind'], ...perms: string[]): Grants => ({ kind, perms: new Set(perms) });
const ids = (list: readonly { id: string }[]) => list.map((c) => c.id);
const all = grants('platform', '*');
const { statement } = endpoints;

const line = (extra: Partial<Contexts['statementLineRow']> = {}): Contexts['statementLineRow'] => ({
  id: 9,
  accountId: 3,
  accountLabel: 'HDFC Bank ·1234',
  importId: 2,
  row: 4,
  day: '2026-11-20',
  narration: 'CASH DEPOSIT',
  reference: null,
  direction: 'credit',
  amount: '1500.00',
  balance: '101500.00',
  utr: null,
  currency: null,
  status: 'exception',
  exceptionKind: 'ambiguous',
  payinId: null,
  payinNo: null,
  candidateId: null,
  candidateNo: null,
  candidateAmount: null,
  slipLineId: null,
  slipNo: null,
  candidateSlipLineId: null,
  candidateSlipNo: null,
  source: 'upload',
  approvalId: null,
  reason: null,
  resolvedBy: null,
  resolvedAt: null,
  createdAt: '2026-11-20T10:00:00Z',
  ...extra,
});

const row = (extra: Partial<Contexts['accountRow']> = {}): Contexts['accountRow'] => ({
  day: '2026-11-20',
  accountId: 3,
  channelId: null,
  label: 'HDFC Bank ·1234',
  currency: 'INR',
  paid: { count: 2, sum: '3000.00' },
  matchedCredits: { count: 1, sum: '1500.00' },
  unmatchedCredits: { count: 0, sum: '0.00' },
  unproved: { count: 1, sum: '1500.00' },
  clearing: null,
  frozen: null,
  statement: null,
  difference: '1500.00',
  ...extra,
});

describe('statement commands', () => {
  it('routes the screens and shows them to platform users who may read statements only', () => {
    expect(screenForPath('/receiving/statements')?.id).toBe('statement.import');
    expect(screenForPath('/receiving/statement')?.id).toBe('statement.list');
    expect(screenForPath('/receiving/exceptions')?.id).toBe('statement.exceptions');
    expect(screenForPath('/stat/stataccount')?.id).toBe('statOrder.reconciliation');
    const merchant = ids(visibleScreens(grants('merchant', '*')));
    for (const id of ['statement.import', 'statement.exceptions', 'statOrder.reconciliation'])
      expect(merchant).not.toContain(id);
    // The balance endpoint alone (the D0 view's permission) does not open the reconciliation.
    expect(ids(visibleScreens(grants('platform', 'GET /statOrder/balance')))).not.toContain(
      'statOrder.reconciliation',
    );
    expect(ids(visibleScreens(grants('platform', statement.list.permission)))).toContain(
      'statOrder.reconciliation',
    );
  });

  it('offers match and dismiss on an open credit, accept only on a proposal, back to the queue on a dismissed line, nothing on a matched one', () => {
    expect(ids(actionsFor(all, 'statementLineRow', line()))).toEqual([
      'statement.match',
      'statement.dismiss',
      'statement.rematch',
    ]);
    expect(
      ids(actionsFor(all, 'statementLineRow', line({ status: 'proposed', candidateNo: 'PI1' }))),
    ).toEqual([
      'statement.match',
      'statement.accept',
      'statement.dismiss',
      'statement.rematch',
      'statement.order',
    ]);
    // A ready line (its UTR and amount name an order) is posted like a proposal.
    expect(ids(actionsFor(all, 'statementLineRow', line({ status: 'ready', candidateNo: 'PI3' })))).toEqual([
      'statement.match',
      'statement.accept',
      'statement.dismiss',
      'statement.rematch',
      'statement.order',
    ]);
    // Waiting in a second person's approval: nobody acts on it meanwhile but to look.
    expect(
      ids(actionsFor(all, 'statementLineRow', line({ status: 'ready', candidateNo: 'PI3', approvalId: 4 }))),
    ).toEqual(['statement.rematch', 'statement.order']);
    // A debit waits for a slip line, never for a pay-in.
    expect(ids(actionsFor(all, 'statementLineRow', line({ direction: 'debit' })))).not.toContain(
      'statement.match',
    );
    expect(ids(actionsFor(all, 'statementLineRow', line({ status: 'matched', payinNo: 'PI2' })))).toEqual([
      'statement.order',
    ]);
    expect(ids(actionsFor(all, 'statementLineRow', line({ status: 'dismissed' })))).toEqual([
      'statement.reopen',
    ]);
  });

  it('acts on the checked lines when several are checked, with the same keys', () => {
    const bulk = actionsFor(all, 'statementLineRow', line(), 3);
    expect(ids(bulk)).toContain('statement.acceptChecked');
    expect(ids(bulk)).toContain('statement.dismissChecked');
    // The keyboard runs the first action of the row's key that applies: with several checked, the bulk one.
    const byKey = (key: string) => bulk.find((a) => a.shortcut === key)?.id;
    expect(byKey('d')).toBe('statement.dismissChecked');
    expect(byKey('a')).toBe('statement.acceptChecked');
    expect(byKey('m')).toBe('statement.match');
    expect(byKey('R')).toBe('statement.rematch');
    const single = actionsFor(all, 'statementLineRow', line(), 1);
    expect(single.find((a) => a.shortcut === 'd')?.id).toBe('statement.dismiss');
  });

  it('offers the queue actions only to who holds their endpoints', () => {
    const reader = grants('platform', statement.exceptions.permission, statement.dismiss.permission);
    expect(ids(actionsFor(reader, 'statementLineRow', line()))).toEqual(['statement.dismiss']);
    // An operator imports and dismisses; posting is finance's.
    const operator = grants('platform', statement.import.permission, statement.dismiss.permission);
    expect(ids(actionsFor(operator, 'statementLineRow', line({ status: 'ready' })))).toEqual([
      'statement.dismiss',
    ]);
  });

  it('links a reconciliation difference to its lines', () => {
    expect(creditsOfDay(row())).toBe(
      '/receiving/statement?accountId=3&from=2026-11-20&to=2026-11-20&direction=credit&status=unmatched',
    );
    expect(creditsOfDay(row({ accountId: null, channelId: 7 }))).toBe(
      '/receiving/statement?from=2026-11-20&to=2026-11-20&direction=credit&status=unmatched',
    );
    expect(paidOrdersOfDay(row())).toBe(
      '/stat/unproved?day=2026-11-20&accountId=3&label=HDFC%20Bank%20%C2%B71234',
    );
    expect(paidOrdersOfDay(row({ accountId: null, channelId: 7, label: 'Bank' }))).toBe(
      '/stat/unproved?day=2026-11-20&channelId=7&label=Bank',
    );
    const offered = ids(actionsFor(all, 'accountRow', row()));
    expect(offered).toEqual(['statOrder.unprovedOrders', 'statOrder.accountLines']);
    expect(
      ids(actionsFor(all, 'accountRow', row({ unmatchedCredits: { count: 1, sum: '10.00' } }))),
    ).toContain('statOrder.unmatchedLines');
  });
});
