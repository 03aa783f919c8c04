/**
 * The shared hold (merchantHold.ts) on both databases: the common order, the shortfall, the release in
 * the reverse order, the spend; and on PostgreSQL, twenty holds at once never take more than the wallets
 * have.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../db/index.ts';
import { expectLedgerBalanced } from '../modules/payin/testkit.ts';
import { engines, startTestServer, type TestServer } from '../test/harness.ts';
import {
  holdFromMerchant,
  merchantAccount,
  merchantBalances,
  platformAccount,
  post,
  releaseMerchantHold,
  releaseSplit,
  spendMerchantHold,
} from './index.ts';

const cur = 'INR';

describe.each(engines)('merchant holds on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterEach(() => expectLedgerBalanced(s));
  afterAll(() => s.close());

  const cause = (kind: string) => ({ refType: 'test_hold', refId: randomUUID(), kind, at: s.clock.now() });
  async function funded(collection: number, payout: number) {
    const m = await s.makeMerchant();
    if (!collection && !payout) return m.id;
    await inTransaction(s.db, (tx) =>
      post(tx, {
        ...cause('test_funding'),
        lines: [
          { account: merchantAccount(m.id, 'collection_available', cur), amount: collection },
          { account: merchantAccount(m.id, 'payout_available', cur), amount: payout },
          { account: platformAccount('channel_clearing', cur), amount: -(collection + payout) },
        ],
      }),
    );
    return m.id;
  }

  it('takes collection first, then payout; the rest is the shortfall; gives back in reverse', async () => {
    const id = await funded(1_000, 500);
    const hold = await inTransaction(s.db, (tx) => holdFromMerchant(tx, cause('test_hold'), id, cur, 2_000));
    expect(hold).toMatchObject({
      held: { collection_available: 1_000, payout_available: 500 },
      total: 1_500,
      shortfall: 500,
    });
    expect(hold.entryId).toBeGreaterThan(0);
    expect(releaseSplit(hold.held, 700)).toEqual({ collection_available: 200, payout_available: 500 });
    await inTransaction(s.db, async (tx) => {
      await releaseMerchantHold(tx, cause('test_release'), id, cur, hold.held, 700);
      await spendMerchantHold(tx, cause('test_spend'), id, cur, 800, 'channel_clearing');
    });
    expect(await merchantBalances(s.db, id, cur)).toMatchObject({
      collection_available: 200,
      payout_available: 500,
      frozen: 0,
    });
    // Nothing to hold: no entry.
    const none = await funded(0, 0);
    const nothing = await inTransaction(s.db, (tx) => holdFromMerchant(tx, cause('test_hold'), none, cur, 5));
    expect(nothing).toMatchObject({ total: 0, shortfall: 5, entryId: null });
    expect(() => releaseSplit(hold.held, 1_501)).toThrow();
  });

  it.runIf(engine === 'postgres')('twenty holds at once never take more than the wallets have', async () => {
    const id = await funded(1_000, 500);
    const holds = await Promise.all(
      Array.from({ length: 20 }, () =>
        inTransaction(s.db, (tx) => holdFromMerchant(tx, cause('test_hold'), id, cur, 100)),
      ),
    );
    expect(holds.reduce((n, h) => n + h.total, 0)).toBe(1_500);
    expect(holds.reduce((n, h) => n + h.shortfall, 0)).toBe(500);
    expect(await merchantBalances(s.db, id, cur)).toMatchObject({
      collection_available: 0,
      payout_available: 0,
      frozen: 1_500,
    });
  });
});
