import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { inTransaction } from '../../db/index.ts';
import { journalEntries, loginFailures, operationLog } from '../../db/schema.ts';
import { checkLedger } from '../../ledger/check.ts';
import { merchantAccount, merchantBalances, platformAccount, post } from '../../ledger/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { codeAt } from '../auth/totp.ts';

const { merchantWallet: wallet } = endpoints;
const cur = 'INR';

describe.each(engines)('merchant wallet on %s', (engine) => {
  let s: TestServer;
  let root: string;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
  });
  afterEach(async () => {
    expect((await checkLedger(s.db)).balanced).toBe(true);
  });
  afterAll(() => s.close());

  /** Money arriving in a merchant's collection balance, as a paid pay-in would bring it. */
  const fund = (merchantId: number, amount: number, kind = 'test_payin') =>
    inTransaction(s.db, (tx) =>
      post(tx, {
        kind,
        refType: 'test',
        refId: randomUUID(),
        at: s.clock.now(),
        lines: [
          { account: platformAccount('channel_clearing', cur), amount: -amount },
          { account: merchantAccount(merchantId, 'collection_available', cur), amount },
        ],
      }),
    );

  /** A merchant with money, its owner signed in with a Google key. */
  async function setup(balance = 100_000) {
    const m = await s.makeMerchant();
    if (balance) await fund(m.id, balance);
    const token = await s.login(m.ownerUsername, m.ownerPassword);
    const secret = await s.bindGoogle(token);
    // The bind used this step's code; later codes belong to later steps.
    s.clock.advance(30_000);
    return { m, token, secret, code: () => codeAt(secret, s.clock.now()) };
  }

  it('shows balances: a merchant user its own, a platform user the merchant it names', async () => {
    const { m, token } = await setup(12_345);
    const own = await s.call(wallet.info, {}, token);
    expect(own.errno, own.errmsg).toBe(0);
    expect(own.data).toEqual({
      merchantId: m.id,
      currency: 'INR',
      collection: { available: '123.45', pending: '0.00' },
      payout: { available: '0.00' },
      frozen: '0.00',
      reserve: '0.00',
      owed: '0.00',
    });
    expect((await s.call(wallet.info, { merchantId: m.id }, root)).data).toEqual(own.data);
    const missing = await s.call(wallet.info, {}, root);
    expect(missing.errno).toBe(errno.invalid);
    expect(missing.data.fields[0].path).toBe('merchantId');
    expect((await s.call(wallet.info, { merchantId: 999_999 }, root)).errno).toBe(errno.notFound);
  });

  it('previews a transfer without moving money or spending the code, then transfers with it', async () => {
    const { m, token, code } = await setup(100_000);
    const c = code();
    const preview = await s.call(wallet.transferVerify, { amount: '250.00', code: c }, token);
    expect(preview.errno, preview.errmsg).toBe(0);
    expect(preview.data).toEqual({ amount: '250.00', collectionAfter: '750.00', payoutAfter: '250.00' });
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({
      collection_available: 100_000,
      payout_available: 0,
    });

    // The same code still works for the real transfer (the preview did not consume it) …
    const done = await s.call(wallet.transfer, { amount: '250.00', code: c }, token);
    expect(done.errno, done.errmsg).toBe(0);
    expect(done.data).toMatchObject({ collection: { available: '750.00' }, payout: { available: '250.00' } });
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({
      collection_available: 75_000,
      payout_available: 25_000,
    });
    // … but only once, for the transfer and for a preview alike.
    expect((await s.call(wallet.transfer, { amount: '1.00', code: c }, token)).errno).toBe(errno.badCode);
    expect((await s.call(wallet.transferVerify, { amount: '1.00', code: c }, token)).errno).toBe(
      errno.badCode,
    );
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({
      collection_available: 75_000,
      payout_available: 25_000,
    });

    // One entry of kind wallet_transfer; the change log shows both sides with before and after.
    const log = await s.call(wallet.log, {}, token);
    expect(log.errno, log.errmsg).toBe(0);
    expect(log.data.total).toBe(3);
    expect(log.data.list.slice(0, 2)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          entryKind: 'wallet_transfer',
          ownerType: 'merchant',
          ownerId: m.id,
          account: 'collection_available',
          amount: '-250.00',
          balanceBefore: '1000.00',
          balanceAfter: '750.00',
        }),
        expect.objectContaining({
          entryKind: 'wallet_transfer',
          account: 'payout_available',
          amount: '250.00',
          balanceBefore: '0.00',
          balanceAfter: '250.00',
        }),
      ]),
    );
    expect(log.data.list[0].entryId).toBe(log.data.list[1].entryId);
    expect(log.data.list[2]).toMatchObject({
      entryKind: 'test_payin',
      amount: '1000.00',
      balanceAfter: '1000.00',
    });
    const trail = await s.db
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.action, 'merchantWallet.transfer'), eq(operationLog.outcome, 'ok')));
    expect(trail.at(-1)!.detail).toMatchObject({
      amount: '250.00',
      changes: {
        collection_available: { before: '1000.00', after: '750.00' },
        payout_available: { before: '0.00', after: '250.00' },
      },
    });
    expect(JSON.stringify(trail)).not.toContain(c);
  });

  it('refuses a wrong code and counts it towards the lockout, moving nothing', async () => {
    const { m, token, code, secret } = await setup(10_000);
    const wrong = code() === '000000' ? '111111' : '000000';
    expect((await s.call(wallet.transfer, { amount: '10.00', code: wrong }, token)).errno).toBe(
      errno.badCode,
    );
    expect((await s.call(wallet.transferVerify, { amount: '10.00', code: wrong }, token)).errno).toBe(
      errno.badCode,
    );
    // A code from a step long past is wrong too.
    const old = codeAt(secret, new Date(s.clock.now().getTime() - 10 * 60_000));
    expect((await s.call(wallet.transfer, { amount: '10.00', code: old }, token)).errno).toBe(errno.badCode);
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({
      collection_available: 10_000,
      payout_available: 0,
    });
    const [failures] = await s.db
      .select()
      .from(loginFailures)
      .where(eq(loginFailures.username, m.ownerUsername));
    expect(failures!.failures).toBe(3);
    // Five failures lock the name: even the right code is refused until the lock ends.
    await s.call(wallet.transfer, { amount: '10.00', code: wrong }, token);
    await s.call(wallet.transfer, { amount: '10.00', code: wrong }, token);
    expect((await s.call(wallet.transfer, { amount: '10.00', code: code() }, token)).errno).toBe(
      errno.accountLocked,
    );
    s.clock.advance(16 * 60_000);
    expect((await s.call(wallet.transfer, { amount: '10.00', code: code() }, token)).errno).toBe(0);
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({
      collection_available: 9_000,
      payout_available: 1_000,
    });
  });

  it('refuses an insufficient balance (1019), changing nothing, and the code it accepted stays spent', async () => {
    const { m, token, code } = await setup(5_000);
    const entries = (await s.db.select().from(journalEntries)).length;
    const c = code();
    expect((await s.call(wallet.transferVerify, { amount: '50.01', code: c }, token)).errno).toBe(
      errno.insufficientBalance,
    );
    expect((await s.call(wallet.transfer, { amount: '50.01', code: c }, token)).errno).toBe(
      errno.insufficientBalance,
    );
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({
      collection_available: 5_000,
      payout_available: 0,
    });
    expect((await s.db.select().from(journalEntries)).length).toBe(entries);
    // The transfer rolled back, but not the code's use: a code seen once is never good again.
    expect((await s.call(wallet.transfer, { amount: '50.00', code: c }, token)).errno).toBe(errno.badCode);
    s.clock.advance(30_000);
    const ok = await s.call(wallet.transfer, { amount: '50.00', code: code() }, token);
    expect(ok.errno, ok.errmsg).toBe(0);
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({
      collection_available: 0,
      payout_available: 5_000,
    });
  });

  it('needs a bound Google key (1010) and a merchant user', async () => {
    const m = await s.makeMerchant();
    await fund(m.id, 1_000);
    const token = await s.login(m.ownerUsername, m.ownerPassword);
    expect((await s.call(wallet.transferVerify, { amount: '1.00', code: '123456' }, token)).errno).toBe(
      errno.googleNotBound,
    );
    expect((await s.call(wallet.transfer, { amount: '1.00', code: '123456' }, token)).errno).toBe(
      errno.googleNotBound,
    );
    expect((await s.call(wallet.transfer, { amount: '1.00', code: '123456' }, root)).errno).toBe(
      errno.forbidden,
    );
    for (const amount of ['0', '-1.00', '1.001', '1e3']) {
      expect((await s.call(wallet.transfer, { amount, code: '123456' }, token)).errno).toBe(errno.invalid);
    }
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({ collection_available: 1_000 });
  });

  it('pages the change log newest first by keyset, with filters', async () => {
    const { m, token, code } = await setup(0);
    for (let i = 1; i <= 7; i++) {
      await fund(m.id, i * 100);
      s.clock.advance(1_000);
    }
    const t0 = s.clock.now();
    s.clock.advance(30_000);
    expect((await s.call(wallet.transfer, { amount: '5.00', code: code() }, token)).errno).toBe(0);

    const seen: Array<{ amount: string; at: string }> = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const res = await s.call(wallet.log, { pageSize: 3, ...(cursor ? { cursor } : {}) }, token);
      expect(res.errno, res.errmsg).toBe(0);
      expect(res.data.total).toBe(9);
      seen.push(...res.data.list);
      cursor = res.data.nextCursor ?? undefined;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(9);
    const times = seen.map((r) => r.at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(seen.slice(2).map((r) => r.amount)).toEqual([
      '7.00',
      '6.00',
      '5.00',
      '4.00',
      '3.00',
      '2.00',
      '1.00',
    ]);

    const payout = await s.call(wallet.log, { account: 'payout_available' }, token);
    expect(payout.data.list.map((r: { amount: string }) => r.amount)).toEqual(['5.00']);
    const byKind = await s.call(wallet.log, { kind: 'test_payin' }, token);
    expect(byKind.data.total).toBe(7);
    const until = await s.call(wallet.log, { to: t0.toISOString() }, token);
    expect(until.data.total).toBe(7);
    const since = await s.call(wallet.log, { from: t0.toISOString() }, token);
    expect(since.data.total).toBe(2);
    // A platform user names the merchant; the same rows.
    const asPlatform = await s.call(wallet.log, { merchantId: m.id, pageSize: 100 }, root);
    expect(asPlatform.data.list).toEqual(seen);
    expect((await s.call(wallet.log, {}, root)).errno).toBe(errno.invalid);
    expect((await s.call(wallet.log, { cursor: 'AAAA' }, token)).errno).toBe(errno.invalid);
    expect((await s.call(wallet.log, { from: '0000-01-01T00:00:00Z' }, token)).errno).toBe(errno.invalid);
  });
});
