/**
 * The money screens' commands (wallet, recharges, development and fee settings): the spec's routes and
 * permissions, who sees them, and which recharge actions a row allows.
 */
import { describe, expect, it } from 'vitest';
import { endpoints, type Grants } from '../contract/index.ts';
import {
  actionsFor,
  type Contexts,
  cheatSheet,
  globalActions,
  menuFor,
  screenForPath,
  visibleScreens,
} from './index.ts';

const grants = (kind: Grants['kind'], ...perms: string[]): Grants => ({ kind, perms: new Set(perms) });
const ids = (list: readonly { id: string }[]) => list.map((c) => c.id);
const group = (g: Grants, name: string) =>
  menuFor(g).flatMap((e) => (e.kind === 'group' && e.group === name ? ids(e.items) : []));

const pending: Contexts['recharge'] = {
  id: 7,
  merchantId: 1,
  merchantCode: 'M10001',
  currency: 'INR',
  amount: '50000.00',
  status: 'pending',
  reference: 'UTR123456',
  note: '',
  rejectReason: null,
  createdAt: '2024-01-01T00:00:00Z',
  decidedAt: null,
};

describe('money screen commands', () => {
  it('declares the spec routes with the spec permissions', () => {
    const route = (path: string) => screenForPath(path)?.needs?.map((e) => e.permission);
    expect(route('/wallet')).toEqual([
      'POST /merchantWallet/info',
      'POST /merchantWallet/transfer',
      'POST /merchantWallet/transferVerify',
    ]);
    expect(route('/merchantrechargelog')).toEqual(['GET /merchantRechargeLog/list']);
    expect(route('/dev')).toEqual(['GET /merchant/info', 'POST /merchant/ips/update']);
    expect(route('/costManagement')).toEqual(['GET /merchant/info', 'POST /merchant/aSurcharge/update']);
  });

  it('gives a merchant owner the funds and settings groups', () => {
    const owner = grants('merchant', '*');
    expect(group(owner, 'funds')).toEqual([
      'merchantWallet.info',
      'merchantRechargeLog.list',
      'balanceAdjustment.list',
    ]);
    expect(group(owner, 'settings')).toEqual(['dev.settings', 'fees.settings']);
  });

  it('shows a merchant operator the wallet and recharges but not the settings it cannot open', () => {
    const operator = grants(
      'merchant',
      endpoints.merchantWallet.info.permission,
      endpoints.merchantRechargeLog.list.permission,
    );
    expect(ids(visibleScreens(operator))).toEqual(
      expect.arrayContaining(['merchantWallet.info', 'merchantRechargeLog.list']),
    );
    expect(ids(visibleScreens(operator))).not.toContain('dev.settings');
    // Transfers and recharges are the merchant's own acts: an operator without them gets neither.
    expect(ids(globalActions(operator))).not.toContain('merchantWallet.transfer');
    expect(ids(globalActions(operator))).not.toContain('merchantRechargeLog.create');
  });

  it('never offers a platform user the merchant-only transfer or recharge, even with *', () => {
    const admin = grants('platform', '*');
    const global = ids(globalActions(admin));
    expect(global).not.toContain('merchantWallet.transfer');
    expect(global).not.toContain('merchantRechargeLog.create');
    expect(ids(visibleScreens(admin))).toEqual(
      expect.arrayContaining([
        'merchantWallet.info',
        'merchantRechargeLog.list',
        'dev.settings',
        'fees.settings',
      ]),
    );
  });

  it('lets platform finance confirm or reject a pending recharge, and nothing once decided', () => {
    const finance = grants(
      'platform',
      endpoints.merchantRechargeLog.list.permission,
      endpoints.merchantRechargeLog.confirm.permission,
      endpoints.merchantRechargeLog.reject.permission,
    );
    expect(ids(actionsFor(finance, 'recharge', pending))).toEqual([
      'merchantRechargeLog.confirm',
      'merchantRechargeLog.reject',
    ]);
    expect(ids(actionsFor(finance, 'recharge', { ...pending, status: 'confirmed' }))).toEqual([]);
    expect(ids(actionsFor(finance, 'recharge', { ...pending, status: 'rejected' }))).toEqual([]);
    // A merchant user never decides its own recharge, even with *.
    expect(ids(actionsFor(grants('merchant', '*'), 'recharge', pending))).toEqual([]);
  });

  it('puts the keys on the cheat sheet', () => {
    const sheet = cheatSheet(grants('merchant', '*')).map((l) => `${l.section}:${l.keys[0]}=${l.command.id}`);
    expect(sheet).toEqual(
      expect.arrayContaining([
        'navigation:g w=merchantWallet.info',
        'navigation:g e=merchantRechargeLog.list',
        'navigation:g v=dev.settings',
        'navigation:g f=fees.settings',
        'global:t=merchantWallet.transfer',
      ]),
    );
    const platform = cheatSheet(grants('platform', '*')).map(
      (l) => `${l.section}:${l.keys[0]}=${l.command.id}`,
    );
    expect(platform).toEqual(
      expect.arrayContaining([
        'context.recharge:c=merchantRechargeLog.confirm',
        'context.recharge:r=merchantRechargeLog.reject',
      ]),
    );
  });

  it('has every money command titled in both languages', async () => {
    const { default: en } = await import('../locales/en.json');
    const { default: zh } = await import('../locales/zh_CN.json');
    const lookup = (table: unknown, key: string) =>
      key
        .split('.')
        .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], table);
    const { commands, titleKey } = await import('./index.ts');
    const mine = commands.filter((c) => /^(merchantWallet|merchantRechargeLog|dev|fees)\./.test(c.id));
    expect(mine.length).toBe(13);
    for (const c of mine) {
      expect(typeof lookup(en, titleKey(c.id)), c.id).toBe('string');
      expect(typeof lookup(zh, titleKey(c.id)), c.id).toBe('string');
    }
    expect(typeof lookup(zh, 'app.cheatSheet.sections.context.recharge')).toBe('string');
  });
});
