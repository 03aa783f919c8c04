import { and, count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import {
  agents,
  channels,
  merchantChannels,
  merchants,
  operationLog,
  roles,
  userRoles,
  users,
} from '../../db/schema.ts';
import { checkLedger } from '../../ledger/check.ts';
import { merchantBalances } from '../../ledger/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { codeAt } from '../auth/totp.ts';

const { merchant, agent, channel, ledger, auth } = endpoints;

let seq = 0;
const uniq = (p: string) => `${p}${Date.now().toString(36)}${++seq}`;

describe.each(engines)('merchants, agents and channels on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let simulatorId: number;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    const [sim] = await s.db.select().from(channels).where(eq(channels.code, 'simulator'));
    simulatorId = sim!.id;
  });
  afterEach(async () => {
    expect((await checkLedger(s.db)).balanced).toBe(true);
  });
  afterAll(() => s.close());

  const counts = async () => ({
    merchants: (await s.db.select({ n: count() }).from(merchants))[0]!.n,
    users: (await s.db.select({ n: count() }).from(users))[0]!.n,
    links: (await s.db.select({ n: count() }).from(merchantChannels))[0]!.n,
  });
  const row = async (id: number) => (await s.db.select().from(merchants).where(eq(merchants.id, id)))[0]!;
  /** A user's Google key (bound once per token); the key and whitelist changes are confirmed with it. */
  const keys = new Map<string, string>();
  const googleKeyOf = async (token: string) => {
    if (!keys.has(token)) keys.set(token, await s.bindGoogle(token));
    return keys.get(token)!;
  };
  /** A code of the next 30-second step: a step's code is accepted once. */
  const nextCode = (key: string) => {
    s.clock.advance(30_000);
    return codeAt(key, s.clock.now());
  };

  const create = (extra: Record<string, unknown> = {}) => {
    const username = uniq('own_');
    return s.call(
      merchant.create,
      {
        name: 'Acme Payments Ltd',
        owner: { username, password: 'Owner1234', email: `${username}@example.com` },
        collectionRate: '2.5',
        payoutRate: '1',
        payoutFee: '5.00',
        platformFee: '0.50',
        minAmount: '100.00',
        maxAmount: '50000.00',
        settlementCycle: 'T3',
        payoutIpWhitelist: ['203.0.113.7', '198.51.100.0/24'],
        callbackUrl: 'https://acme.example/notify',
        exchangeRate: '83.25',
        // Routes are never implied: a merchant created without them has none.
        channels: [{ channelId: simulatorId, weight: 100 }],
        ...extra,
      },
      root,
    );
  };

  it('creates a merchant, answers its secrets once and shows them masked afterwards', async () => {
    const res = await create();
    expect(res.errno, res.errmsg).toBe(0);
    const { id, code, apiSecret, webhookSecret } = res.data;
    expect(apiSecret).toMatch(/^sk_[0-9a-f]{64}$/);
    expect(webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);

    const stored = await row(id);
    // Sealed at rest: the column holds neither secret, and the server key opens it to the answered one.
    expect(stored.apiSecret).not.toContain(apiSecret.slice(3, 20));
    expect(stored.webhookSecret).not.toContain(webhookSecret.slice(6, 20));
    expect(s.deps.sealer.open(stored.apiSecret)).toBe(apiSecret);
    expect(s.deps.sealer.open(stored.webhookSecret)).toBe(webhookSecret);
    expect(stored).toMatchObject({
      collectionRatePpm: 25_000,
      payoutRatePpm: 10_000,
      payoutFee: 500,
      platformFee: 50,
      minAmount: 10_000,
      maxAmount: 5_000_000,
      settlementDays: 3,
    });

    const info = await s.call(merchant.info, { id }, root);
    expect(info.errno, info.errmsg).toBe(0);
    expect(info.data).toMatchObject({
      id,
      code,
      status: 'active',
      currency: 'INR',
      collectionRate: '2.5',
      payoutRate: '1',
      payoutFee: '5.00',
      platformFee: '0.50',
      surcharge: '0',
      exchangeRate: '83.25',
      minAmount: '100.00',
      maxAmount: '50000.00',
      settlementCycle: 'T3',
      payoutIpWhitelist: ['203.0.113.7', '198.51.100.0/24'],
      callbackUrl: 'https://acme.example/notify',
      apiSecretMasked: `${apiSecret.slice(0, 8)}…${apiSecret.slice(-4)}`,
      webhookSecretMasked: `${webhookSecret.slice(0, 8)}…${webhookSecret.slice(-4)}`,
      channels: [
        { channelId: simulatorId, code: 'simulator', name: 'Simulator', weight: 100, enabled: true },
      ],
    });
    // Neither a read nor the operation log ever holds the secret again.
    const text = JSON.stringify([info, await s.call(merchant.list, { q: code }, root)]);
    expect(text).not.toContain(apiSecret);
    expect(text).not.toContain(webhookSecret);
    const trail = await s.db
      .select()
      .from(operationLog)
      .where(eq(operationLog.target, `merchant:${id}`));
    expect(trail).toHaveLength(1);
    expect(trail[0]).toMatchObject({ action: 'merchant.create', outcome: 'ok' });
    expect((trail[0]!.detail as { changes: Record<string, unknown> }).changes).toMatchObject({
      merchantCode: { before: null, after: code },
      collectionRate: { before: null, after: '2.5' },
      settlementCycle: { before: null, after: 'T3' },
    });
    expect(JSON.stringify(trail)).not.toContain(apiSecret);
    expect(JSON.stringify(trail)).not.toContain(webhookSecret);
    // Its four wallets exist, all empty.
    expect(await merchantBalances(s.db, id, 'INR')).toMatchObject({
      collection_available: 0,
      collection_pending: 0,
      payout_available: 0,
      frozen: 0,
    });
  });

  it('creates the owner, who signs in, holds the owner role and reads only its own merchant', async () => {
    const username = uniq('boss_');
    const res = await s.call(
      merchant.create,
      { name: 'Owner Check', owner: { username, password: 'Owner1234' }, settlementCycle: 'D0' },
      root,
    );
    expect(res.errno, res.errmsg).toBe(0);
    const token = await s.login(username, 'Owner1234');
    const me = await s.call(auth.info, {}, token);
    expect(me.data).toMatchObject({ kind: 'merchant', merchantId: res.data.id, perms: ['*'] });
    const held = await s.db
      .select({ key: roles.builtinKey, merchantId: roles.merchantId })
      .from(userRoles)
      .innerJoin(roles, eq(roles.id, userRoles.roleId))
      .innerJoin(users, eq(users.id, userRoles.userId))
      .where(eq(users.username, username));
    expect(held).toEqual([{ key: 'owner', merchantId: res.data.id }]);

    // A merchant user reads its own merchant: without an id, and with another merchant's id alike.
    const other = await s.makeMerchant();
    for (const input of [{}, { id: other.id }]) {
      const info = await s.call(merchant.info, input, token);
      expect(info.errno, info.errmsg).toBe(0);
      expect(info.data).toMatchObject({ id: res.data.id, code: res.data.code, settlementCycle: 'D0' });
    }
    // Platform-only endpoints stay closed to it, owner or not.
    expect((await s.call(merchant.list, {}, token)).errno).toBe(errno.forbidden);
    expect((await s.call(merchant.update, { id: res.data.id, name: 'x' }, token)).errno).toBe(
      errno.forbidden,
    );
    // A platform user must name the merchant.
    const missing = await s.call(merchant.info, {}, root);
    expect(missing.errno).toBe(errno.invalid);
    expect(missing.data.fields[0].path).toBe('id');
    expect((await s.call(merchant.info, { id: 999_999 }, root)).errno).toBe(errno.notFound);
  });

  it('refuses invalid terms with 422 and writes nothing', async () => {
    const before = await counts();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ minAmount: '500.00', maxAmount: '100.00' }, 'maxAmount'],
      // Only the minimum given, above the default maximum.
      [{ minAmount: '2000000.00', maxAmount: undefined }, 'maxAmount'],
      [{ collectionRate: '100.5' }, 'collectionRate'],
      [{ payoutRate: '1.23456' }, 'payoutRate'],
      [{ surcharge: '-1' }, 'surcharge'],
      [{ payoutFee: '1.234' }, 'payoutFee'],
      [{ settlementCycle: 'T31' }, 'settlementCycle'],
      [{ settlementCycle: 'D1' }, 'settlementCycle'],
      [{ settlementCycle: 't3' }, 'settlementCycle'],
      [{ payoutIpWhitelist: ['not-an-ip'] }, 'payoutIpWhitelist.0'],
      [{ payoutIpWhitelist: ['1.2.3.4', '999.1.1.1'] }, 'payoutIpWhitelist.1'],
      [{ payoutIpWhitelist: ['10.0.0.0/33'] }, 'payoutIpWhitelist.0'],
      [{ payoutIpWhitelist: ['::1/129'] }, 'payoutIpWhitelist.0'],
      [{ callbackUrl: 'ftp://x.example' }, 'callbackUrl'],
      [{ channels: [{ channelId: simulatorId }, { channelId: simulatorId }] }, 'channels.1.channelId'],
    ];
    for (const [terms, path] of cases) {
      const res = await create({ minAmount: undefined, maxAmount: undefined, ...terms });
      expect(res.errno, `${JSON.stringify(terms)}: ${res.errmsg}`).toBe(errno.invalid);
      expect(res.data.fields.map((f: { path: string }) => f.path)).toContain(path);
    }
    const maxBelowMin = await create({ minAmount: '2000000.00', maxAmount: undefined });
    expect(maxBelowMin.data.fields[0].message).toBe('The maximum amount may not be lower than the minimum');
    expect(await counts()).toEqual(before);
  });

  it('refuses a taken code or owner name, an unknown agent or channel, and writes nothing', async () => {
    const first = await create();
    const before = await counts();
    expect((await create({ code: first.data.code })).errno).toBe(errno.conflict);
    const [owner] = await s.db.select().from(users).where(eq(users.merchantId, first.data.id));
    const dup = await s.call(
      merchant.create,
      { name: 'Dup', owner: { username: owner!.username, password: 'Owner1234' } },
      root,
    );
    expect(dup.errno).toBe(errno.usernameTaken);
    expect((await create({ agentId: 999_999 })).errno).toBe(errno.notFound);
    expect((await create({ channels: [{ channelId: 999_999, weight: 5 }] })).errno).toBe(errno.notFound);
    expect(await counts()).toEqual(before);
  });

  it('lists merchants by code prefix or name infix, with the agent name, page by page', async () => {
    const ag = await s.call(agent.create, { name: 'North Agency', commissionRate: '0.3' }, root);
    expect(ag.errno, ag.errmsg).toBe(0);
    const tag = uniq('Zq');
    const made = [];
    for (let i = 0; i < 3; i++) {
      const r = await create({ name: `Shop ${tag} ${i}`, code: `${tag}${i}`, agentId: ag.data.id });
      expect(r.errno, r.errmsg).toBe(0);
      made.push(r.data);
    }
    const byName = await s.call(merchant.list, { q: tag.toLowerCase(), pageSize: 2 }, root);
    expect(byName.errno, byName.errmsg).toBe(0);
    expect(byName.data.total).toBe(3);
    expect(byName.data.list.map((m: { code: string }) => m.code)).toEqual([`${tag}2`, `${tag}1`]);
    expect(byName.data.list[0]).toMatchObject({ agentId: ag.data.id, agentName: 'North Agency' });
    const page2 = await s.call(merchant.list, { q: tag, pageSize: 2, page: 2 }, root);
    expect(page2.data.list.map((m: { code: string }) => m.code)).toEqual([`${tag}0`]);
    // The code matches by prefix only; the name anywhere.
    expect((await s.call(merchant.list, { q: `${tag}1` }, root)).data.total).toBe(1);
    expect((await s.call(merchant.list, { q: tag.slice(1) }, root)).data.total).toBe(3);
    expect((await s.call(merchant.list, { q: '%' }, root)).data.total).toBe(0);
    expect((await s.call(merchant.list, { agentId: ag.data.id }, root)).data.total).toBe(3);
    const agents_ = await s.call(agent.list, { q: ag.data.code }, root);
    expect(agents_.data.list).toEqual([
      expect.objectContaining({
        id: ag.data.id,
        merchantCount: 3,
        commissionRate: '0.3',
        commissionPayable: '0.00',
      }),
    ]);
  });

  it('lists the merchant whose whole name or code was typed first, then names that begin with it', async () => {
    const tag = uniq('Rk');
    // Made in this order, so that the newest holding the text come last: without the ranking a page of
    // two showed "… 2 1" and "… 2 0", never "… 2" itself.
    for (const name of [`${tag} Stores 2`, `Big ${tag} Stores 2`, `${tag} Stores 21`, `${tag} Stores 20`]) {
      const r = await create({ name, code: uniq('RK') });
      expect(r.errno, r.errmsg).toBe(0);
    }
    const names = async (q: string) =>
      (await s.call(merchant.list, { q, pageSize: 2 }, root)).data.list.map((m: { name: string }) => m.name);
    expect(await names(`${tag} stores 2`)).toEqual([`${tag} Stores 2`, `${tag} Stores 20`]);
    // A word inside names: names that begin with it first (newest first among them).
    expect(await names(`${tag}`)).toEqual([`${tag} Stores 20`, `${tag} Stores 21`]);
  });

  it('updates terms, checks max ≥ min against stored values, and replaces the channel set', async () => {
    const { data } = await create();
    const id = data.id;
    const extra = await s.call(
      channel.create,
      { code: uniq('ch_'), name: 'Second', adapter: 'simulator' },
      root,
    );
    expect(extra.errno, extra.errmsg).toBe(0);

    const up = await s.call(
      merchant.update,
      {
        id,
        name: 'Acme Renamed',
        collectionRate: '3',
        settlementCycle: 'D0',
        surcharge: '0.75',
        channels: [{ channelId: extra.data.id, weight: 30 }],
      },
      root,
    );
    expect(up.errno, up.errmsg).toBe(0);
    const info = await s.call(merchant.info, { id }, root);
    expect(info.data).toMatchObject({
      name: 'Acme Renamed',
      collectionRate: '3',
      settlementCycle: 'D0',
      surcharge: '0.75',
      channels: [expect.objectContaining({ channelId: extra.data.id, weight: 30 })],
    });
    expect((await row(id)).settlementDays).toBe(0);

    // Stored max is 50,000.00: a minimum above it alone is refused, and so is a maximum under the stored minimum.
    const snapshot = await row(id);
    for (const input of [{ minAmount: '60000.00' }, { maxAmount: '50.00' }]) {
      const res = await s.call(merchant.update, { id, ...input }, root);
      expect(res.errno, JSON.stringify(input)).toBe(errno.invalid);
      expect(res.data.fields[0]).toMatchObject({ path: 'maxAmount' });
    }
    expect(await row(id)).toEqual(snapshot);
    expect(
      (await s.call(merchant.update, { id, minAmount: '60000.00', maxAmount: '70000.00' }, root)).errno,
    ).toBe(0);
    expect(await row(id)).toMatchObject({ minAmount: 6_000_000, maxAmount: 7_000_000 });

    // The operation log has the before and after of what changed.
    const [last] = await s.db
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.action, 'merchant.update'), eq(operationLog.target, `merchant:${id}`)))
      .orderBy(operationLog.id)
      .limit(1);
    expect((last!.detail as { changes: unknown }).changes).toMatchObject({
      name: { before: 'Acme Payments Ltd', after: 'Acme Renamed' },
      collectionRate: { before: '2.5', after: '3' },
      settlementCycle: { before: 'T3', after: 'D0' },
      channels: {
        before: [{ channelId: simulatorId, weight: 100 }],
        after: [{ channelId: extra.data.id, weight: 30 }],
      },
    });
    expect((await s.call(merchant.update, { id: 999_999, name: 'x' }, root)).errno).toBe(errno.notFound);
  });

  it('freezes and unfreezes a merchant', async () => {
    const { data } = await create();
    const frozen = await s.call(merchant.freeze, { id: data.id, frozen: true, reason: 'chargebacks' }, root);
    expect(frozen.errno, frozen.errmsg).toBe(0);
    expect((await row(data.id)).status).toBe('frozen');
    expect((await s.call(merchant.info, { id: data.id }, root)).data.status).toBe('frozen');
    expect((await s.call(merchant.list, { status: 'frozen', q: data.code }, root)).data.total).toBe(1);
    expect((await s.call(merchant.freeze, { id: data.id, frozen: false }, root)).errno).toBe(0);
    expect((await row(data.id)).status).toBe('active');
    const trail = await s.db
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.action, 'merchant.freeze'), eq(operationLog.target, `merchant:${data.id}`)))
      .orderBy(operationLog.id);
    expect(trail.map((r) => r.detail)).toEqual([
      { reason: 'chargebacks', changes: { status: { before: 'active', after: 'frozen' } } },
      { changes: { status: { before: 'frozen', after: 'active' } } },
    ]);
    expect((await s.call(merchant.freeze, { id: 999_999, frozen: true }, root)).errno).toBe(errno.notFound);
  });

  it('resets secrets: the stored sealed secret changes, the new one is answered once', async () => {
    const m = await s.makeMerchant();
    const before = await row(m.id);
    const rootKey = await googleKeyOf(root);
    const api = await s.call(merchant.resetSecret, { id: m.id, which: 'api', code: nextCode(rootKey) }, root);
    expect(api.errno, api.errmsg).toBe(0);
    expect(api.data).toMatchObject({ id: m.id, code: m.code, webhookSecret: '' });
    expect(api.data.apiSecret).not.toBe(m.apiSecret);
    const afterApi = await row(m.id);
    expect(afterApi.apiSecret).not.toBe(before.apiSecret);
    expect(s.deps.sealer.open(afterApi.apiSecret)).toBe(api.data.apiSecret);
    expect(afterApi.webhookSecret).toBe(before.webhookSecret);

    // The owner resets its own merchant's secrets (both by default); another merchant's id is refused.
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    const ownerKey = await googleKeyOf(owner);
    const other = await s.makeMerchant();
    const otherBefore = await row(other.id);
    expect(
      (await s.call(merchant.resetSecret, { id: other.id, code: nextCode(ownerKey) }, owner)).errno,
    ).toBe(errno.notFound);
    expect(await row(other.id)).toEqual(otherBefore);
    const both = await s.call(merchant.resetSecret, { code: nextCode(ownerKey) }, owner);
    expect(both.errno, both.errmsg).toBe(0);
    const afterBoth = await row(m.id);
    expect(s.deps.sealer.open(afterBoth.apiSecret)).toBe(both.data.apiSecret);
    expect(s.deps.sealer.open(afterBoth.webhookSecret)).toBe(both.data.webhookSecret);
    expect(both.data.webhookSecret).not.toBe(m.webhookSecret);
    const info = await s.call(merchant.info, {}, owner);
    expect(info.data.apiSecretMasked).toBe(
      `${both.data.apiSecret.slice(0, 8)}…${both.data.apiSecret.slice(-4)}`,
    );

    const missing = await s.call(merchant.resetSecret, { code: nextCode(rootKey) }, root);
    expect(missing.errno).toBe(errno.invalid);
    expect(missing.data.fields[0].path).toBe('id');
    const trail = await s.db
      .select()
      .from(operationLog)
      .where(eq(operationLog.action, 'merchant.resetSecret'));
    const text = JSON.stringify(trail);
    for (const secret of [api.data.apiSecret, both.data.apiSecret, both.data.webhookSecret])
      expect(text).not.toContain(secret);
  });

  it('lets the owner and the platform edit the IP whitelist, callback URL and surcharge', async () => {
    const m = await s.makeMerchant();
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    const ownerKey = await googleKeyOf(owner);
    const ips = await s.call(
      merchant.ipsUpdate,
      { payoutIpWhitelist: ['192.0.2.1', '2001:db8::/32', '192.0.2.1'], code: nextCode(ownerKey) },
      owner,
    );
    expect(ips.errno, ips.errmsg).toBe(0);
    expect((await row(m.id)).payoutIpWhitelist).toEqual(['192.0.2.1', '2001:db8::/32']);
    expect(
      (
        await s.call(
          merchant.ipsUpdate,
          { payoutIpWhitelist: ['300.0.0.1'], code: nextCode(ownerKey) },
          owner,
        )
      ).errno,
    ).toBe(errno.invalid);
    expect(
      (await s.call(merchant.callbackUpdate, { callbackUrl: 'https://m.example/cb' }, owner)).errno,
    ).toBe(0);
    expect((await s.call(merchant.surchargeUpdate, { surcharge: '1.25' }, owner)).errno).toBe(0);
    expect(await row(m.id)).toMatchObject({ callbackUrl: 'https://m.example/cb', surchargePpm: 12_500 });
    // The platform names the merchant; without it, 422.
    expect((await s.call(merchant.callbackUpdate, { id: m.id, callbackUrl: '' }, root)).errno).toBe(0);
    expect((await s.call(merchant.callbackUpdate, { callbackUrl: '' }, root)).errno).toBe(errno.invalid);
    const rootKey = await googleKeyOf(root);
    expect(
      (await s.call(merchant.ipsUpdate, { id: m.id, payoutIpWhitelist: [], code: nextCode(rootKey) }, root))
        .errno,
    ).toBe(0);
    expect((await s.call(merchant.surchargeUpdate, { id: m.id, surcharge: '0' }, root)).errno).toBe(0);
    expect(await row(m.id)).toMatchObject({ callbackUrl: '', payoutIpWhitelist: [], surchargePpm: 0 });
  });

  it('manages agents', async () => {
    const code = uniq('AG');
    const created = await s.call(agent.create, { name: 'South', code, commissionRate: '0.25' }, root);
    expect(created.errno, created.errmsg).toBe(0);
    expect(created.data.code).toBe(code);
    expect((await s.call(agent.create, { name: 'Again', code, commissionRate: '1' }, root)).errno).toBe(
      errno.conflict,
    );
    expect(
      (await s.call(agent.update, { id: created.data.id, commissionRate: '0.5', status: 'disabled' }, root))
        .errno,
    ).toBe(0);
    const [row_] = await s.db.select().from(agents).where(eq(agents.id, created.data.id));
    expect(row_).toMatchObject({ commissionPpm: 5_000, status: 'disabled', name: 'South' });
    expect((await s.call(agent.update, { id: 999_999, name: 'x' }, root)).errno).toBe(errno.notFound);
    expect((await s.call(agent.create, { name: 'Bad', commissionRate: '101' }, root)).errno).toBe(
      errno.invalid,
    );
  });

  it('manages channels: credentials sealed and never answered, limits checked, the simulator built in', async () => {
    const list = await s.call(channel.list, { q: 'simulator' }, root);
    expect(list.data.list).toEqual([
      expect.objectContaining({
        code: 'simulator',
        adapter: 'simulator',
        status: 'active',
        hasCredentials: false,
      }),
    ]);
    const code = uniq('bank_');
    const created = await s.call(
      channel.create,
      {
        code,
        name: 'Bank A',
        adapter: 'simulator',
        payinCostRate: '1.2',
        minAmount: '10.00',
        maxAmount: '1000.00',
        credentials: { apiKey: 'super-secret-key-123' },
        settings: { auto: true, successRate: 80 },
      },
      root,
    );
    expect(created.errno, created.errmsg).toBe(0);
    const [stored] = await s.db.select().from(channels).where(eq(channels.id, created.data.id));
    expect(stored!.credentials).not.toContain('super-secret-key-123');
    expect(JSON.parse(s.deps.sealer.open(stored!.credentials))).toEqual({ apiKey: 'super-secret-key-123' });
    const shown = await s.call(channel.list, { q: code }, root);
    expect(shown.data.list[0]).toMatchObject({
      code,
      payinCostRate: '1.2',
      minAmount: '10.00',
      maxAmount: '1000.00',
      hasCredentials: true,
      settings: { auto: true, successRate: 80 },
    });
    expect(JSON.stringify(shown)).not.toContain('super-secret-key-123');
    const trail = await s.db
      .select()
      .from(operationLog)
      .where(eq(operationLog.target, `channel:${created.data.id}`));
    expect(JSON.stringify(trail)).not.toContain('super-secret-key-123');

    // Settings merge; credentials cleared with an empty set; max ≥ min against the stored values.
    expect(
      (await s.call(channel.update, { id: created.data.id, settings: { delayMs: 5 } }, root)).errno,
    ).toBe(0);
    expect((await s.call(channel.update, { id: created.data.id, credentials: {} }, root)).errno).toBe(0);
    const after = (await s.call(channel.list, { q: code }, root)).data.list[0];
    expect(after).toMatchObject({
      hasCredentials: false,
      settings: { auto: true, successRate: 80, delayMs: 5 },
    });
    expect((await s.call(channel.update, { id: created.data.id, minAmount: '5000.00' }, root)).errno).toBe(
      errno.invalid,
    );
    expect((await s.call(channel.create, { code, name: 'Dup', adapter: 'simulator' }, root)).errno).toBe(
      errno.conflict,
    );
    // Neither code nor adapter can be changed, the simulator's included.
    for (const input of [
      { id: simulatorId, code: 'other' },
      { id: simulatorId, adapter: 'bank' },
    ]) {
      expect((await s.call(channel.update, input, root)).errno).toBe(errno.invalid);
    }
    expect((await s.call(channel.update, { id: simulatorId, weight: 50 }, root)).errno).toBe(0);
    const [sim] = await s.db.select().from(channels).where(eq(channels.id, simulatorId));
    expect(sim).toMatchObject({ code: 'simulator', adapter: 'simulator', weight: 50 });
    expect((await s.call(channel.update, { id: 999_999, weight: 1 }, root)).errno).toBe(errno.notFound);
  });

  it('seeds built-in roles whose money permissions fit the job', async () => {
    const { merchantWallet: w, merchantRechargeLog: r } = endpoints;
    const m = await s.makeMerchant();
    const mine = await s.db.select().from(roles).where(eq(roles.merchantId, m.id));
    const platform = await s.db.select().from(roles).where(eq(roles.kind, 'platform'));
    const perms = (list: typeof mine, key: string) => list.find((x) => x.builtinKey === key)!.perms;
    expect(perms(mine, 'finance')).toEqual(
      expect.arrayContaining(
        [w.info, w.log, w.transferVerify, w.transfer, r.list, r.create].map((e) => e.permission),
      ),
    );
    expect(perms(mine, 'developer')).toEqual(
      expect.arrayContaining(
        [merchant.resetSecret, merchant.callbackUpdate, merchant.ipsUpdate].map((e) => e.permission),
      ),
    );
    for (const key of ['developer', 'operator'])
      expect(perms(mine, key)).not.toContain(w.transfer.permission);
    expect(perms(mine, 'finance')).not.toContain(merchant.resetSecret.permission);
    expect(perms(platform, 'finance')).toEqual(
      expect.arrayContaining([r.confirm, r.reject, ledger.trialBalance].map((e) => e.permission)),
    );
    expect(perms(platform, 'operator')).toContain(merchant.freeze.permission);
    expect(perms(platform, 'operator')).not.toContain(r.confirm.permission);
    expect(perms(platform, 'auditor')).toEqual(
      expect.arrayContaining(
        [merchant.list, merchant.info, w.log, r.list, ledger.trialBalance].map((e) => e.permission),
      ),
    );

    // A developer of the merchant, made by its owner, gets the key screen and not the money.
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    const dev = mine.find((x) => x.builtinKey === 'developer')!;
    const username = uniq('dev_');
    const made = await s.call(
      endpoints.admin.create,
      { username, nickname: 'Dev', password: 'Devpass1', roleIds: [dev.id] },
      owner,
    );
    expect(made.errno, made.errmsg).toBe(0);
    const token = await s.login(username, 'Devpass1');
    expect(
      (await s.call(merchant.callbackUpdate, { callbackUrl: 'https://dev.example/cb' }, token)).errno,
    ).toBe(0);
    expect((await s.call(w.info, {}, token)).errno).toBe(errno.forbidden);
    expect((await s.call(w.transfer, { amount: '1.00', code: '123456' }, token)).errno).toBe(errno.forbidden);
  });

  it('answers the trial balance: balanced, every account with its balance as a decimal string', async () => {
    const res = await s.call(ledger.trialBalance, {}, root);
    expect(res.errno, res.errmsg).toBe(0);
    expect(res.data).toMatchObject({
      balanced: true,
      unbalancedEntries: [],
      brokenChains: [],
      accountMismatches: [],
    });
    expect(res.data.totals.every((t: { total: string }) => t.total === '0.00')).toBe(true);
    expect(res.data.accounts).toContainEqual({
      ownerType: 'platform',
      ownerId: 0,
      kind: 'fee_income',
      currency: 'INR',
      balance: '0.00',
    });
  });
});
