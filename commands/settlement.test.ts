/**
 * The settlement commands: the spec's routes and permissions, who applies and who decides, which
 * actions an application's state and wallet allow, the queue's keys, and finding one by its number.
 */
import { describe, expect, it } from 'vitest';
import { endpoints, type Grants } from '../contract/index.ts';
import { settlement as machine } from '../contract/machines.ts';
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

const grants = (kind: Grants['kind'], ...perms: string[]): Grants => ({ kind, perms: new Set(perms) });
const ids = (list: readonly { id: string }[]) => list.map((c) => c.id);
const group = (g: Grants) =>
  menuFor(g).flatMap((e) => (e.kind === 'group' && e.group === 'settlement' ? ids(e.items) : []));
const { settlementPayment, settlementPayout, settlementQuery } = endpoints;
const permsOf = (...list: { permission: string }[]) => list.map((e) => e.permission);

const application = (
  status: Contexts['settlement']['status'],
  extra: Partial<Contexts['settlement']> = {},
): Contexts['settlement'] => ({
  id: 5,
  settlementNo: 'ST2611200001',
  wallet: 'collection',
  merchantId: 1,
  merchantCode: 'M10001',
  currency: 'INR',
  type: 'bank',
  amount: '1500.00',
  auditAmount: null,
  fee: '12.00',
  status,
  accountName: 'Asha Rao',
  cardNumber: '123456789012',
  ifsc: 'HDFC0001234',
  returnAddress: null,
  price: null,
  usdtAmount: null,
  reference: null,
  reason: null,
  attachments: [],
  approval: null,
  slipNo: null,
  appliedBy: 'demo',
  confirmedBy: null,
  completedBy: null,
  createdAt: '2026-11-20T10:00:00Z',
  confirmedAt: null,
  completedAt: null,
  failedAt: null,
  ...extra,
});

/** The platform's built-in finance role as the contract grants it. */
const platformFinance = grants(
  'platform',
  ...permsOf(
    settlementQuery.list,
    ...Object.values(settlementPayment).filter((e) => e.caller !== 'merchant'),
    ...Object.values(settlementPayout).filter((e) => e.caller !== 'merchant'),
  ),
);
const merchantFinance = grants(
  'merchant',
  ...permsOf(
    ...Object.values(settlementPayment).filter((e) => e.caller !== 'platform'),
    ...Object.values(settlementPayout).filter((e) => e.caller !== 'platform'),
  ),
);

describe('settlement commands', () => {
  it('declares the spec routes with the spec permissions', () => {
    const route = (path: string) => screenForPath(path)?.needs?.map((e) => e.permission);
    expect(route('/settlementpayment')).toEqual(['GET /settlementPayment/list']);
    expect(route('/settlementpayout')).toEqual(['GET /settlementPayout/list']);
    expect(route('/settlementquery')).toEqual(['GET /settlementQuery/list']);
  });

  it('gives a merchant both wallets and the applications, and the platform the queue first', () => {
    expect(group(merchantFinance)).toEqual(['settlementPayment.list', 'settlementPayout.list']);
    expect(ids(globalActions(merchantFinance))).toEqual(
      expect.arrayContaining(['settlementPayment.create', 'settlementPayout.create']),
    );
    expect(group(platformFinance)).toEqual([
      'settlementQuery.list',
      'settlementPayment.list',
      'settlementPayout.list',
    ]);
    // Applying is the merchant's own act: a platform user never gets it, even with *.
    const admin = ids(globalActions(grants('platform', '*')));
    expect(admin).not.toContain('settlementPayment.create');
    expect(admin).not.toContain('settlementPayout.create');
  });

  it('lets the merchant edit and cancel only while the application waits, and never decide it', () => {
    const own = (s: Contexts['settlement']) => ids(actionsFor(grants('merchant', '*'), 'settlement', s));
    expect(own(application('to_be_confirmed'))).toEqual([
      'settlementPayment.update',
      'settlementPayment.delete',
    ]);
    for (const status of ['confirmed', 'settled', 'failed'] as const)
      expect(own(application(status)), status).toEqual([]);
  });

  it('offers platform finance each decision its state allows, on the wallet the row belongs to', () => {
    const on = (s: Contexts['settlement']) => ids(actionsFor(platformFinance, 'settlement', s));
    expect(on(application('to_be_confirmed'))).toEqual([
      'settlementPayment.confirm',
      'settlementPayment.reject',
    ]);
    expect(on(application('confirmed'))).toEqual(['settlementPayment.complete', 'settlementPayment.reject']);
    expect(on(application('confirmed', { wallet: 'payout' }))).toEqual([
      'settlementPayout.complete',
      'settlementPayout.reject',
    ]);
    expect(on(application('settled'))).toEqual([]);
    expect(on(application('failed'))).toEqual([]);
    // Every decision the machine allows has its command, and none it does not.
    for (const status of machine.states)
      for (const act of ['confirm', 'complete', 'reject'] as const)
        expect(on(application(status)).includes(`settlementPayment.${act}`), `${act} from ${status}`).toBe(
          machine.can(act, status),
        );
  });

  it('does not offer a second confirmation while one waits for approval', () => {
    const waiting = application('to_be_confirmed', {
      approval: { id: 3, status: 'pending', requestedBy: 'first', requestedAt: '2026-11-20T10:05:00Z' },
    });
    expect(ids(actionsFor(platformFinance, 'settlement', waiting))).toEqual(['settlementPayment.reject']);
  });

  it('gives a role holding one wallet nothing on the other wallet, and a reader no decision', () => {
    const collectionOnly = grants(
      'platform',
      ...permsOf(settlementQuery.list, settlementPayment.list, settlementPayment.confirm),
    );
    expect(ids(actionsFor(collectionOnly, 'settlement', application('to_be_confirmed')))).toEqual([
      'settlementPayment.confirm',
    ]);
    expect(
      ids(actionsFor(collectionOnly, 'settlement', application('to_be_confirmed', { wallet: 'payout' }))),
    ).toEqual([]);
    const operator = grants('platform', ...permsOf(settlementQuery.list, settlementPayment.list));
    expect(ids(actionsFor(operator, 'settlement', application('confirmed')))).toEqual([]);
  });

  it('puts the queue keys on the cheat sheet', () => {
    const sheet = cheatSheet(platformFinance).map((l) => `${l.section}:${l.keys[0]}=${l.command.id}`);
    expect(sheet).toEqual(
      expect.arrayContaining([
        'navigation:g q=settlementQuery.list',
        'context.settlement:c=settlementPayment.confirm',
        'context.settlement:o=settlementPayment.complete',
        'context.settlement:r=settlementPayment.reject',
      ]),
    );
  });
});

describe('finding a settlement by its number', () => {
  const provider = searchProviders.find((p) => p.id === 'settlement-collection');
  const lookback = { from: '2026-09-22T00:00:00.000Z', to: '2026-11-20T23:59:59.999Z' };
  const run = async (query: string, userKind: 'platform' | 'merchant', rows: Contexts['settlement'][]) => {
    const asked: unknown[] = [];
    const c = {
      call: async (_endpoint: unknown, input: unknown) => {
        asked.push(input);
        return { list: rows, nextCursor: null, totals: { count: rows.length } };
      },
      t: (key: string) => key,
      thousands: (v: string) => v,
      lookback,
      userKind,
    } as unknown as SearchContext;
    return { hits: await provider!.search(query, c), asked };
  };

  it('searches the number within the lists’ window and opens an open one over the platform’s queue', async () => {
    const { hits, asked } = await run(' ST2611 ', 'platform', [application('confirmed')]);
    expect(asked).toEqual([{ ...lookback, q: 'ST2611', pageSize: 5 }]);
    expect(hits.map((h) => h.route)).toEqual(['/settlementquery?wallet=collection&settlement=ST2611200001']);
  });

  it('opens a settled one, or any for a merchant, over its wallet’s list', async () => {
    const settled = await run('ST2611', 'platform', [application('settled')]);
    expect(settled.hits[0]?.route).toBe('/settlementpayment?range=60d&settlement=ST2611200001');
    const merchant = await run('ST2611', 'merchant', [application('to_be_confirmed')]);
    expect(merchant.hits[0]?.route).toBe('/settlementpayment?range=60d&settlement=ST2611200001');
  });

  it('asks nothing for text that is not a number', async () => {
    expect((await run('two words', 'platform', [])).asked).toEqual([]);
    expect((await run('ab', 'platform', [])).asked).toEqual([]);
  });
});
