/**
 * Tenancy sweep over the merchant, agent, channel, ledger, wallet, recharge and dashboard areas: merchant A's
 * owner calls every endpoint with merchant B's ids and gets 403 / 404 or its own data, never B's,
 * and nothing of B changes.
 */
import { randomUUID } from 'node:crypto';
import { asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Endpoint, endpoints } from '../../../contract/index.ts';
import { inTransaction } from '../../db/index.ts';
import { ledgerAccounts, merchantChannels, merchants, postings, recharges, users } from '../../db/schema.ts';
import { checkLedger } from '../../ledger/check.ts';
import { merchantAccount, platformAccount, post } from '../../ledger/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { codeAt } from '../auth/totp.ts';

const areas = {
  merchant: endpoints.merchant,
  agent: endpoints.agent,
  channel: endpoints.channel,
  ledger: endpoints.ledger,
  merchantWallet: endpoints.merchantWallet,
  merchantRechargeLog: endpoints.merchantRechargeLog,
  dashboard: endpoints.dashboard,
};
type SweptId = { [G in keyof typeof areas]: `${G}.${keyof (typeof areas)[G] & string}` }[keyof typeof areas];

/** What A's owner may get back: refused, or an answer about its own merchant. */
type Expect = 'forbidden' | 'notFound' | 'own';

describe.each(engines)('tenancy of the money areas on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let a: Awaited<ReturnType<TestServer['makeMerchant']>>;
  let b: Awaited<ReturnType<TestServer['makeMerchant']>>;
  let aToken: string;
  let aSecret: string;
  let bRecharge: number;

  const fund = (merchantId: number, amount: number) =>
    inTransaction(s.db, (tx) =>
      post(tx, {
        kind: 'test_payin',
        refType: 'test',
        refId: randomUUID(),
        at: s.clock.now(),
        lines: [
          { account: platformAccount('channel_clearing', 'INR'), amount: -amount },
          { account: merchantAccount(merchantId, 'collection_available', 'INR'), amount },
        ],
      }),
    );

  /** Everything of B that A could read or change. */
  async function stateOfB() {
    const accounts = await s.db
      .select()
      .from(ledgerAccounts)
      .where(eq(ledgerAccounts.ownerId, b.id))
      .orderBy(asc(ledgerAccounts.id));
    const merchantAccounts = accounts.filter((x) => x.ownerType === 'merchant');
    return {
      merchant: (await s.db.select().from(merchants).where(eq(merchants.id, b.id)))[0],
      channels: await s.db.select().from(merchantChannels).where(eq(merchantChannels.merchantId, b.id)),
      users: await s.db.select().from(users).where(eq(users.merchantId, b.id)).orderBy(asc(users.id)),
      recharges: await s.db
        .select()
        .from(recharges)
        .where(eq(recharges.merchantId, b.id))
        .orderBy(asc(recharges.id)),
      accounts: merchantAccounts,
      postings: await s.db
        .select()
        .from(postings)
        .where(
          inArray(
            postings.accountId,
            merchantAccounts.map((x) => x.id),
          ),
        )
        .orderBy(asc(postings.id)),
    };
  }

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    a = await s.makeMerchant();
    b = await s.makeMerchant();
    await fund(a.id, 100_000);
    await fund(b.id, 200_000);
    aToken = await s.login(a.ownerUsername, a.ownerPassword);
    aSecret = await s.bindGoogle(aToken);
    const bToken = await s.login(b.ownerUsername, b.ownerPassword);
    await s.bindGoogle(bToken);
    const r = await s.call(
      endpoints.merchantRechargeLog.create,
      { amount: '10.00', reference: 'B-REF' },
      bToken,
    );
    bRecharge = r.data.id;
    const done = await s.call(
      endpoints.merchantRechargeLog.create,
      { amount: '20.00', reference: 'B-REF2' },
      bToken,
    );
    const rootKey = await s.bindGoogle(root);
    s.clock.advance(30_000);
    const confirmed = await s.call(
      endpoints.merchantRechargeLog.confirm,
      { id: done.data.id, code: codeAt(rootKey, s.clock.now()), reason: 'statement matched' },
      root,
    );
    expect(confirmed.errno, confirmed.errmsg).toBe(0);
  });
  afterAll(() => s.close());

  it("never lets merchant A's owner read or change anything of merchant B", async () => {
    const before = await stateOfB();
    const nextCode = () => {
      s.clock.advance(30_000);
      return codeAt(aSecret, s.clock.now());
    };
    const sweep: Record<SweptId, [Expect, () => Record<string, unknown>]> = {
      'merchant.create': [
        'forbidden',
        () => ({ name: 'X', owner: { username: 'x_sweep', password: 'Owner1234' } }),
      ],
      'merchant.list': ['forbidden', () => ({ q: b.code })],
      'merchant.names': ['forbidden', () => ({ codes: [b.code] })],
      'merchant.info': ['own', () => ({ id: b.id })],
      'merchant.update': ['forbidden', () => ({ id: b.id, name: 'pwned' })],
      'merchant.freeze': ['forbidden', () => ({ id: b.id, frozen: true })],
      'merchant.resetSecret': ['notFound', () => ({ id: b.id, code: nextCode() })],
      'merchant.ipsUpdate': [
        'notFound',
        () => ({ id: b.id, payoutIpWhitelist: ['198.51.100.66'], code: nextCode() }),
      ],
      'merchant.callbackUpdate': ['notFound', () => ({ id: b.id, callbackUrl: 'https://evil.example/cb' })],
      'merchant.surchargeUpdate': ['notFound', () => ({ id: b.id, surcharge: '9' })],
      'agent.list': ['forbidden', () => ({})],
      'agent.create': ['forbidden', () => ({ name: 'Evil', commissionRate: '50' })],
      'agent.update': ['forbidden', () => ({ id: 1, commissionRate: '50' })],
      'channel.list': ['forbidden', () => ({})],
      'channel.create': ['forbidden', () => ({ code: 'evil_ch', name: 'Evil', adapter: 'simulator' })],
      'channel.update': ['forbidden', () => ({ id: 1, status: 'disabled' })],
      'ledger.trialBalance': ['forbidden', () => ({})],
      'merchantWallet.info': ['own', () => ({ merchantId: b.id })],
      'merchantWallet.log': ['own', () => ({ merchantId: b.id, pageSize: 100 })],
      'merchantWallet.transferVerify': ['own', () => ({ amount: '1.00', code: nextCode() })],
      'merchantWallet.transfer': ['own', () => ({ amount: '1.00', code: nextCode() })],
      'merchantRechargeLog.list': ['own', () => ({ merchantId: b.id, pageSize: 100 })],
      'merchantRechargeLog.create': ['own', () => ({ amount: '5.00', reference: 'A-REF' })],
      'merchantRechargeLog.confirm': [
        'forbidden',
        () => ({ id: bRecharge, code: nextCode(), reason: 'sabotage' }),
      ],
      'merchantRechargeLog.reject': [
        'forbidden',
        () => ({ id: bRecharge, code: nextCode(), reason: 'sabotage' }),
      ],
      // Another merchant named is not found (a platform user's pick); the queues take no merchant.
      'dashboard.summary': ['notFound', () => ({ merchantId: b.id })],
      'dashboard.queues': ['own', () => ({ merchantId: b.id })],
    };
    const swept = Object.values(areas).flatMap((area) => Object.values(area as Record<string, Endpoint>));
    expect(Object.keys(sweep).sort()).toEqual(swept.map((e) => e.id).sort());

    for (const ep of swept) {
      const [expected, input] = sweep[ep.id as SweptId];
      const res = await s.call(ep, input(), aToken);
      const text = JSON.stringify(res.data);
      if (expected === 'forbidden') expect(res.errno, ep.id).toBe(errno.forbidden);
      else if (expected === 'notFound') expect(res.errno, ep.id).toBe(errno.notFound);
      else {
        expect(res.errno, `${ep.id}: ${res.errmsg}`).toBe(0);
        expect(text, ep.id).not.toContain(b.code);
        // Every merchant the answer names is A.
        const named = [...text.matchAll(/"(?:merchantId|ownerId)":(\d+)/g)].map((m) => Number(m[1]));
        expect(
          named.filter((id) => id !== a.id),
          ep.id,
        ).toEqual([]);
        if (ep.id === 'merchant.info') expect(res.data.id).toBe(a.id);
        // A's own recharge waiting (made above in this sweep), not B's as well.
        if (ep.id === 'dashboard.summary') expect(res.data.queues.rechargesPending).toBe(1);
        if (ep.id === 'dashboard.queues') expect(res.data.rechargesPending).toBe(1);
      }
    }
    // A's own transfer and recharge happened on A; B is exactly as it was.
    expect(await stateOfB()).toEqual(before);
    expect((await checkLedger(s.db)).balanced).toBe(true);
  });

  it('answers a platform user the merchant it names, and B stays readable to the platform', async () => {
    const info = await s.call(endpoints.merchant.info, { id: b.id }, root);
    expect(info.data).toMatchObject({ id: b.id, code: b.code });
    const wallet = await s.call(endpoints.merchantWallet.info, { merchantId: b.id }, root);
    expect(wallet.data).toMatchObject({ merchantId: b.id, collection: { available: '2000.00' } });
    expect((await checkLedger(s.db)).balanced).toBe(true);
  });
});
