/**
 * The order triage commands: the spec's routes and permissions, which actions an order's state and the
 * user's permissions allow, bulk actions on a checked selection, keys, and the palette's order search.
 */
import { describe, expect, it } from 'vitest';
import { endpoints, type Grants } from '../contract/index.ts';
import { type PayinAction, payin as payinMachine } from '../contract/machines.ts';
import {
  actionsFor,
  type Contexts,
  cheatSheet,
  globalActions,
  menuFor,
  type SearchContext,
  screenForPath,
  searchProviders,
} from './index.ts';
import { orderNumbersIn } from './search.ts';

const grants = (kind: Grants['kind'], ...perms: string[]): Grants => ({ kind, perms: new Set(perms) });
const ids = (list: readonly { id: string }[]) => list.map((c) => c.id);
const { merchantOrder, merchantPayout } = endpoints;

const payin = (
  status: Contexts['payin']['status'],
  extra: Partial<Contexts['payin']> = {},
): Contexts['payin'] => ({
  id: 11,
  refundedAmount: '0.00',
  orderNo: 'PI26112016200280863153',
  merchantOrderNo: 'ORD26112001463',
  merchantId: 1,
  merchantCode: 'M10001',
  channelId: 1,
  channelCode: 'simulator',
  channelOrderId: 'SIMP1',
  currency: 'INR',
  amount: '411.00',
  paidAmount: null,
  fee: '10.28',
  status,
  pushStatus: 'unpushed',
  utr: null,
  paidBy: null,
  createdAt: '2026-11-20T16:20:02Z',
  expiresAt: '2026-11-20T16:50:02Z',
  paidAt: null,
  callbackAt: null,
  ...extra,
});

const payout = (status: Contexts['payout']['status']): Contexts['payout'] => ({
  id: 21,
  orderNo: 'PO26112016200280863153',
  merchantOrderNo: 'PO26112016200280863153',
  merchantId: 1,
  merchantCode: 'M10001',
  channelId: 1,
  channelCode: 'simulator',
  channelOrderId: null,
  currency: 'INR',
  amount: '1500.00',
  fee: '15.00',
  status,
  pushStatus: 'unpushed',
  accountName: 'Ravi Kumar',
  accountNumber: '123456789012',
  ifsc: 'HDFC0001234',
  utr: null,
  source: 'console',
  failureReason: null,
  createdAt: '2026-11-20T16:20:02Z',
  completedAt: null,
  callbackAt: null,
});

const operator = grants('platform', '*');
const merchantOwner = grants('merchant', '*');

describe('order commands', () => {
  it('declares the spec routes with the spec permissions, in the orders group', () => {
    expect(screenForPath('/order')?.needs?.map((e) => e.permission)).toEqual([
      'GET /merchantOrder/list',
      'POST /merchantOrder/create',
      'POST /merchantOrder/update',
      'POST /merchantOrder/delete',
    ]);
    expect(screenForPath('/payout')?.needs?.map((e) => e.permission)).toEqual([
      'GET /merchantPayout/list',
      'POST /merchantPayout/create',
      'POST /merchantPayout/bulkCreate',
    ]);
    const orders = menuFor(grants('merchant', merchantPayout.list.permission)).find(
      (e) => e.kind === 'group' && e.group === 'orders',
    );
    expect(orders?.kind === 'group' && ids(orders.items)).toEqual(['merchantPayout.list']);
  });

  it('offers what a waiting or expired pay-in allows: UTR check, supplement, forced supplement, image', () => {
    const unpaid = ids(actionsFor(operator, 'payin', payin('unpaid')));
    expect(unpaid).toEqual([
      'merchantOrder.utrCheck',
      'merchantOrder.supplement',
      'merchantOrder.forceSupplement',
      'merchantOrder.uploadImage',
      'merchantOrder.push',
      'merchantOrder.update',
      'merchantOrder.delete',
    ]);
    // Paid is final: nothing that would pay it again; a payment seen through its channel cannot be deleted.
    // A paid order may be refunded or disputed while something is left of what was paid.
    const paid = { paidAt: '2026-11-20T16:22:00Z', paidAmount: '411.00' };
    expect(ids(actionsFor(operator, 'payin', payin('paid', paid)))).toEqual([
      'merchantOrder.uploadImage',
      'merchantOrder.push',
      'refund.create',
      'dispute.open',
    ]);
    expect(ids(actionsFor(operator, 'payin', payin('paid', { ...paid, refundedAmount: '411.00' })))).toEqual([
      'merchantOrder.uploadImage',
      'merchantOrder.push',
    ]);
    expect(ids(actionsFor(operator, 'payin', payin('creation_failed')))).toEqual(['merchantOrder.delete']);
  });

  it('offers each order action in exactly the states its declaration allows', () => {
    const commandOf: Partial<Record<PayinAction, string>> = {
      utrCheck: 'merchantOrder.utrCheck',
      supplement: 'merchantOrder.supplement',
      force: 'merchantOrder.forceSupplement',
      uploadImage: 'merchantOrder.uploadImage',
      push: 'merchantOrder.push',
      update: 'merchantOrder.update',
      delete: 'merchantOrder.delete',
      refund: 'refund.create',
    };
    for (const state of payinMachine.states) {
      const shown = ids(actionsFor(operator, 'payin', payin(state, { paidAmount: '411.00' })));
      for (const [action, id] of Object.entries(commandOf) as [PayinAction, string][])
        expect(shown.includes(id), `${id} on ${state}`).toBe(payinMachine.can(action, state));
    }
  });

  it('keeps platform-only actions from merchant users and needs the permission for each', () => {
    expect(ids(actionsFor(merchantOwner, 'payin', payin('pending')))).toEqual([
      'merchantOrder.utrCheck',
      'merchantOrder.supplement',
      'merchantOrder.uploadImage',
      'merchantOrder.update',
    ]);
    const checker = grants('platform', merchantOrder.utrCheck.permission);
    expect(ids(actionsFor(checker, 'payin', payin('failed')))).toEqual(['merchantOrder.utrCheck']);
    expect(ids(actionsFor(merchantOwner, 'payout', payout('processing')))).toEqual([]);
    expect(ids(actionsFor(operator, 'payout', payout('processing')))).toEqual([
      'merchantPayout.markSuccess',
      'merchantPayout.markFailed',
    ]);
    // An unclear hand-over is resolved by a person, never retried (it would send the payout twice);
    // a hand-over under way is left to its worker.
    expect(ids(actionsFor(operator, 'payout', payout('needs_review')))).toEqual([
      'merchantPayout.markSuccess',
      'merchantPayout.markFailed',
    ]);
    expect(ids(actionsFor(operator, 'payout', payout('submitting')))).toEqual([]);
    expect(ids(actionsFor(operator, 'payout', payout('failed')))).toEqual([
      'merchantPayout.retry',
      'merchantPayout.push',
    ]);
    // A payout no channel took was announced to its merchant as well: its callback may be pushed again.
    expect(ids(actionsFor(operator, 'payout', payout('creation_failed')))).toEqual(['merchantPayout.push']);
  });

  it('turns p and u into bulk actions while two or more rows are checked', () => {
    const actions = actionsFor(operator, 'payin', payin('paid'), 2);
    expect(ids(actions).slice(0, 2)).toEqual(['merchantOrder.bulkPush', 'merchantOrder.bulkUtrCheck']);
    expect(ids(actionsFor(operator, 'payin', payin('paid')))).not.toContain('merchantOrder.bulkPush');
    expect(ids(actionsFor(operator, 'payout', payout('success'), 2))).toContain('merchantPayout.bulkPush');
    expect(ids(actionsFor(operator, 'payout', payout('success'), 1))).not.toContain(
      'merchantPayout.bulkPush',
    );
  });

  it('gives merchants the single transfer and the bulk file, not platform users', () => {
    expect(ids(globalActions(merchantOwner))).toEqual(
      expect.arrayContaining([
        'merchantPayout.create',
        'merchantPayout.bulkCreate',
        'merchantOrder.utrLookup',
      ]),
    );
    expect(ids(globalActions(operator))).not.toContain('merchantPayout.create');
  });

  it('lists the order keys on the cheat sheet under the order sections', () => {
    const lines = cheatSheet(operator).filter((l) => l.section === 'context.payin');
    expect(lines.map((l) => [l.command.id, l.keys.join(',')])).toEqual(
      expect.arrayContaining([
        ['merchantOrder.utrCheck', 'u'],
        ['merchantOrder.supplement', 's'],
        ['merchantOrder.forceSupplement', 'S'],
        ['merchantOrder.push', 'p'],
      ]),
    );
    expect(cheatSheet(operator).find((l) => l.command.id === 'merchantOrder.list')?.keys).toEqual(['g o']);
  });
});

describe('palette order search', () => {
  it('reads one number, or several pasted at once, and nothing else', () => {
    expect(orderNumbersIn(' PI26112016200280863153 ')).toEqual(['PI26112016200280863153']);
    expect(orderNumbersIn('PI1001\nPI1002, PI1003；PI1002')).toEqual(['PI1001', 'PI1002', 'PI1003']);
    expect(orderNumbersIn('single transfer!')).toEqual([]);
    expect(orderNumbersIn('ab')).toEqual([]);
  });

  it("asks the list by prefix for one number and by whole numbers for several, over the lists' window", async () => {
    const provider = searchProviders.find((p) => p.id === 'payin')!;
    const asked: Record<string, unknown>[] = [];
    const row = payin('paid');
    const lookback = { from: '2026-09-22T00:00:00.000Z', to: '2026-11-20T23:59:59.999Z' };
    const c = {
      call: async (_endpoint: unknown, input: Record<string, unknown>) => {
        asked.push(input);
        return { list: [row], total: 1, totalCapped: false, nextCursor: null };
      },
      t: (key: string) => key,
      thousands: String,
      lookback,
    } as unknown as SearchContext;
    const one = await provider.search('ORD2611', c);
    expect(asked[0]).toMatchObject({ q: 'ORD2611', pageSize: 5, ...lookback });
    expect(one.map((h) => h.route)).toEqual([`/order?range=60d&order=${row.orderNo}`]);

    const several = await provider.search('PI1 PI2', c);
    expect(asked[1]).toMatchObject({ nos: ['PI1', 'PI2'] });
    expect(asked[1]).not.toHaveProperty('q');
    expect(several[0]?.route).toBe('/order?range=60d&nos=PI1&nos=PI2');
  });
});
