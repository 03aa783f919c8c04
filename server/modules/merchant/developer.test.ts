/**
 * The development settings are a money path: whoever sets the API secret and the payout IP whitelist
 * can send payouts through the gateway. Both changes need the acting user's Google code and are logged.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { merchants, operationLog, roles } from '../../db/schema.ts';
import { ipAllowed } from '../../gateway/ip.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { codeAt } from '../auth/totp.ts';

const { merchant, admin } = endpoints;

describe.each(engines)('development settings on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let rootSecret: string;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    rootSecret = await s.bindGoogle(root);
  });
  afterAll(() => s.close());

  const row = async (id: number) => (await s.db.select().from(merchants).where(eq(merchants.id, id)))[0]!;
  /** A fresh code for the next 30-second step (a step's code is accepted once). */
  const nextCode = (secret: string) => {
    s.clock.advance(30_000);
    return codeAt(secret, s.clock.now());
  };

  /** A merchant and a user of it holding the built-in developer role, signed in. */
  async function developerOf() {
    const m = await s.makeMerchant();
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    const [dev] = await s.db
      .select()
      .from(roles)
      .where(and(eq(roles.merchantId, m.id), eq(roles.builtinKey, 'developer')));
    const username = `dev_${m.code.toLowerCase()}`;
    const made = await s.call(
      admin.create,
      { username, nickname: 'Dev', password: 'Devpass1', roleIds: [dev!.id] },
      owner,
    );
    expect(made.errno, made.errmsg).toBe(0);
    return { m, token: await s.login(username, 'Devpass1') };
  }

  it('a developer resets the API secret only with their own Google code', async () => {
    const { m, token } = await developerOf();
    const before = await row(m.id);
    // No code: refused as invalid input, nothing changed.
    const bare = await s.call(merchant.resetSecret, { which: 'api' }, token);
    expect(bare.errno, bare.errmsg).toBe(errno.invalid);
    expect(bare.data.fields.map((f: { path: string }) => f.path)).toContain('code');
    // A code without a bound key: 1010.
    expect((await s.call(merchant.resetSecret, { which: 'api', code: '123456' }, token)).errno).toBe(
      errno.googleNotBound,
    );
    const secret = await s.bindGoogle(token);
    expect((await s.call(merchant.resetSecret, { which: 'api', code: '000000' }, token)).errno).toBe(
      errno.badCode,
    );
    expect(await row(m.id)).toEqual(before);

    const code = nextCode(secret);
    const ok = await s.call(merchant.resetSecret, { which: 'api', code }, token);
    expect(ok.errno, ok.errmsg).toBe(0);
    expect(s.deps.sealer.open((await row(m.id)).apiSecret)).toBe(ok.data.apiSecret);
    // The same code again (a replay) is refused.
    expect((await s.call(merchant.resetSecret, { which: 'api', code }, token)).errno).toBe(errno.badCode);

    // Logged: every attempt, the code and the secrets never written down.
    const trail = await s.db
      .select()
      .from(operationLog)
      .where(
        and(eq(operationLog.action, 'merchant.resetSecret'), eq(operationLog.target, `merchant:${m.id}`)),
      )
      .orderBy(operationLog.id);
    expect(trail.map((r) => r.outcome)).toEqual(['failed', 'failed', 'ok', 'failed']);
    const done = trail.find((r) => r.outcome === 'ok')!;
    expect((done.detail as { changes: unknown }).changes).toEqual({
      apiSecret: { before: '[redacted]', after: '[redacted]' },
    });
    const text = JSON.stringify(trail);
    expect(text).not.toContain(ok.data.apiSecret);
    expect(text).not.toContain(m.apiSecret);
    expect(text).not.toContain(code);
  });

  it('a developer changes the payout IP whitelist only with their own Google code, logged before and after', async () => {
    const { m, token } = await developerOf();
    const bare = await s.call(merchant.ipsUpdate, { payoutIpWhitelist: ['0.0.0.0/0'] }, token);
    expect(bare.errno, bare.errmsg).toBe(errno.invalid);
    expect(
      (await s.call(merchant.ipsUpdate, { payoutIpWhitelist: ['192.0.2.1'], code: '123456' }, token)).errno,
    ).toBe(errno.googleNotBound);
    const secret = await s.bindGoogle(token);
    expect(
      (await s.call(merchant.ipsUpdate, { payoutIpWhitelist: ['192.0.2.1'], code: '000000' }, token)).errno,
    ).toBe(errno.badCode);
    expect((await row(m.id)).payoutIpWhitelist).toEqual([]);

    const ok = await s.call(
      merchant.ipsUpdate,
      { payoutIpWhitelist: ['192.0.2.1', '198.51.100.0/24'], code: nextCode(secret) },
      token,
    );
    expect(ok.errno, ok.errmsg).toBe(0);
    expect((await row(m.id)).payoutIpWhitelist).toEqual(['192.0.2.1', '198.51.100.0/24']);
    const [last] = await s.db
      .select()
      .from(operationLog)
      .where(
        and(
          eq(operationLog.action, 'merchant.ipsUpdate'),
          eq(operationLog.target, `merchant:${m.id}`),
          eq(operationLog.outcome, 'ok'),
        ),
      );
    expect((last!.detail as { changes: unknown }).changes).toEqual({
      payoutIpWhitelist: { before: [], after: ['192.0.2.1', '198.51.100.0/24'] },
    });
  });

  it('refuses a whitelist of everyone or of ranges broader than /16 (IPv4) or /32 (IPv6), naming each entry', async () => {
    const m = await s.makeMerchant();
    const entries = [
      '203.0.113.7',
      '0.0.0.0/0',
      '10.0.0.0/8',
      '172.16.0.0/12',
      '::/0',
      '2001:db8::/16',
      '198.51.100.0/16',
      '2001:db8::/32',
      '::ffff:0.0.0.0/96',
      '::ffff:10.0.0.0/104',
    ];
    const res = await s.call(
      merchant.ipsUpdate,
      { id: m.id, payoutIpWhitelist: entries, code: nextCode(rootSecret) },
      root,
    );
    expect(res.errno, res.errmsg).toBe(errno.invalid);
    const paths = res.data.fields.map((f: { path: string }) => f.path);
    expect(paths).toEqual([1, 2, 3, 4, 5, 8, 9].map((i) => `payoutIpWhitelist.${i}`));
    expect(res.data.fields[0].message).toMatch(/too broad/i);
    expect((await row(m.id)).payoutIpWhitelist).toEqual([]);

    // The same rule on the platform's create and update of a merchant.
    const made = await s.call(
      merchant.create,
      {
        name: 'Broad',
        owner: { username: `broad_${m.code.toLowerCase()}`, password: 'Owner1234' },
        payoutIpWhitelist: ['0.0.0.0/0'],
      },
      root,
    );
    expect(made.errno).toBe(errno.invalid);
    expect(made.data.fields[0].path).toBe('payoutIpWhitelist.0');
    const up = await s.call(merchant.update, { id: m.id, payoutIpWhitelist: ['1.2.3.4', '::/0'] }, root);
    expect(up.errno).toBe(errno.invalid);
    expect(up.data.fields[0].path).toBe('payoutIpWhitelist.1');
  });

  it('takes IPv4-mapped IPv6 as the IPv4 address or range it names', async () => {
    const m = await s.makeMerchant();
    const res = await s.call(
      merchant.ipsUpdate,
      {
        id: m.id,
        payoutIpWhitelist: ['::ffff:192.0.2.9', '::FFFF:198.51.100.0/120', '192.0.2.9', '203.0.113.0/16'],
        code: nextCode(rootSecret),
      },
      root,
    );
    expect(res.errno, res.errmsg).toBe(0);
    // Stored in IPv4 form, duplicates dropped once written alike.
    expect((await row(m.id)).payoutIpWhitelist).toEqual(['192.0.2.9', '198.51.100.0/24', '203.0.113.0/16']);
    expect((await s.call(merchant.info, { id: m.id }, root)).data.payoutIpWhitelist).toEqual([
      '192.0.2.9',
      '198.51.100.0/24',
      '203.0.113.0/16',
    ]);
  });
});

describe('the payout whitelist match', () => {
  it('compares IPv4-mapped addresses and entries as IPv4', () => {
    expect(ipAllowed('::ffff:198.51.100.7', ['198.51.100.0/24'])).toBe(true);
    expect(ipAllowed('198.51.100.7', ['::ffff:198.51.100.0/120'])).toBe(true);
    expect(ipAllowed('198.51.100.7', ['::ffff:198.51.100.7'])).toBe(true);
    expect(ipAllowed('198.51.101.7', ['::ffff:198.51.100.0/120'])).toBe(false);
    expect(ipAllowed('2001:db8::1', ['2001:db8::/32'])).toBe(true);
  });

  it('never lets an entry broader than the rule allows match (a list stored before the rule)', () => {
    for (const entry of ['0.0.0.0/0', '10.0.0.0/8', '::/0', '2001::/16', '::ffff:0.0.0.0/96'])
      expect(ipAllowed('10.1.2.3', [entry]) || ipAllowed('2001:db8::1', [entry]), entry).toBe(false);
    expect(ipAllowed('10.1.2.3', ['0.0.0.0/0', '10.1.2.3'])).toBe(true);
  });
});
