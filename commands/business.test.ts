import { describe, expect, it } from 'vitest';
import { endpoints, type Grants } from '../contract/index.ts';
import { actionsFor, type Contexts, cheatSheet, menuFor, visibleScreens } from './index.ts';

const grants = (kind: Grants['kind'], ...perms: string[]): Grants => ({ kind, perms: new Set(perms) });
const ids = (list: readonly { id: string }[]) => list.map((c) => c.id);
const businessScreens = [
  'merchant.list',
  'agent.list',
  'channel.list',
  'simulator.list',
  'merchantUser.list',
  'receivingAccount.public',
  'receivingAccount.cards',
  'accountHolder.list',
  'cardBinding.list',
  'holderNumber.list',
  'accountFreeze.list',
  'statement.import',
  'statement.list',
  'statement.exceptions',
  'agentCommission.statement',
  'blocklist.list',
];

const merchant: Contexts['merchant'] = {
  id: 7,
  code: 'M10007',
  name: 'Acme',
  status: 'active',
  currency: 'INR',
  agentId: null,
  agentName: null,
  collectionRate: '2.5',
  platformFee: '0.00',
  payoutRate: '1',
  payoutFee: '5.00',
  settlementRate: '0',
  settlementFee: '0.00',
  surcharge: '0',
  exchangeRate: '0',
  minAmount: '1.00',
  maxAmount: '1000000.00',
  settlementCycle: 'D0',
  payoutIpWhitelist: [],
  callbackUrl: '',
  velocityPayinsPerDay: null,
  velocityAmountPerDay: null,
  reservePercent: null,
  reserveDays: null,
  apiSecretMasked: 'sk_12345…abcd',
  webhookSecretMasked: 'whsec_12…abcd',
  channels: [],
  createdAt: '2026-11-01T00:00:00Z',
};

describe('business commands', () => {
  it('gives platform users the business group and keeps it from merchant users, even with *', () => {
    const menu = menuFor(grants('platform', '*'));
    const business = menu.find((e) => e.kind === 'group' && e.group === 'business');
    expect(business?.kind === 'group' && ids(business.items)).toEqual(businessScreens);
    const merchantSees = ids(visibleScreens(grants('merchant', '*')));
    for (const id of businessScreens) expect(merchantSees).not.toContain(id);
  });

  it('opens the merchant screen for a user holding only the freeze endpoint', () => {
    expect(ids(visibleScreens(grants('platform', endpoints.merchant.freeze.permission)))).toContain(
      'merchant.list',
    );
  });

  it('offers freeze on an active merchant and unfreeze on a frozen one, on the same key', () => {
    const all = grants('platform', '*');
    const active = ids(actionsFor(all, 'merchant', merchant));
    expect(active).toContain('merchant.freeze');
    expect(active).not.toContain('merchant.unfreeze');
    const frozen = ids(actionsFor(all, 'merchant', { ...merchant, status: 'frozen' }));
    expect(frozen).toContain('merchant.unfreeze');
    expect(frozen).not.toContain('merchant.freeze');
    const keys = cheatSheet(all).filter((l) => l.section === 'context.merchant');
    expect(keys.filter((l) => l.keys.includes('z')).map((l) => l.command.id)).toEqual([
      'merchant.freeze',
      'merchant.unfreeze',
    ]);
  });

  it('gives a reader of the merchant list no action that changes a merchant', () => {
    const reader = grants(
      'platform',
      endpoints.merchant.list.permission,
      endpoints.merchantOrder.list.permission,
    );
    expect(ids(actionsFor(reader, 'merchant', merchant))).toEqual(['merchant.payins']);
  });

  it('lets only holders of the simulator endpoints pay or fail simulator orders', () => {
    const payer = grants('platform', endpoints.simulator.pay.permission);
    const payin = {} as Contexts['simulatorPayin'];
    const payout = {} as Contexts['simulatorPayout'];
    expect(ids(actionsFor(payer, 'simulatorPayin', payin))).toEqual([
      'simulator.pay',
      'simulator.payLost',
      'simulator.fail',
    ]);
    expect(ids(actionsFor(payer, 'simulatorPayout', payout))).toEqual([]);
    expect(ids(actionsFor(grants('merchant', '*'), 'simulatorPayin', payin))).toEqual([]);
  });

  it('switches an agent between disable and enable by its status', () => {
    const all = grants('platform', '*');
    const agent: Contexts['agent'] = {
      id: 1,
      code: 'A10001',
      name: 'North',
      commissionRate: '0.8',
      status: 'active',
      merchantCount: 2,
      commissionPayable: '10.00',
      createdAt: '2026-11-01T00:00:00Z',
    };
    expect(ids(actionsFor(all, 'agent', agent))).toEqual([
      'agent.edit',
      'agent.disable',
      'agent.merchants',
      'agent.commission',
      'agent.payCommission',
    ]);
    expect(ids(actionsFor(all, 'agent', { ...agent, status: 'disabled' }))).toEqual([
      'agent.edit',
      'agent.enable',
      'agent.merchants',
      'agent.commission',
      'agent.payCommission',
    ]);
  });
});
