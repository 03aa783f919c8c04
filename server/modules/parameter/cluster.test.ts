/**
 * A parameter changed through one worker of a `WORKERS=2` server (PostgreSQL) is what the very next
 * requests see on both workers: new pay-ins' expiry (kept creation terms dropped by the change feed) and
 * the Google key requirement (kept sessions dropped the same way). Skipped without PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalString } from '../../../contract/gateway.ts';
import type { Database } from '../../db/index.ts';
import { channels, payinOrders } from '../../db/schema.ts';
import { hmacHex } from '../../lib/crypto.ts';
import { hasPostgres } from '../../test/pg.ts';
import {
  workersAdminPassword as adminPassword,
  startWorkersServer,
  type WorkersServer,
} from '../../test/workers.ts';
import { codeAt, newTotpSecret } from '../auth/totp.ts';

describe.skipIf(!hasPostgres)('a parameter change across WORKERS=2 on PostgreSQL', () => {
  let cluster: WorkersServer;
  let db: Database;
  let admin: string;
  const call: WorkersServer['call'] = (...args) => cluster.call(...args);
  const api: WorkersServer['api'] = (...args) => cluster.api(...args);
  const login: WorkersServer['login'] = (...args) => cluster.login(...args);

  beforeAll(async () => {
    cluster = await startWorkersServer('parameter');
    ({ db, admin } = cluster);
  }, 120_000);

  afterAll(() => cluster?.stop());

  it('new pay-ins on both workers expire after the new expiry, keyless users are held at once', async () => {
    // The admin's key, bound with the previous step's code: now's and the next step's stay unused.
    const key = newTotpSecret();
    const bound = await api(
      '/v1/auth/google/bind',
      { secret: key, code: codeAt(key, new Date(Date.now() - 30_000)), password: adminPassword },
      admin,
    );
    expect(bound.json.errno, bound.json.errmsg).toBe(0);

    const [sim] = await db.db.select().from(channels).where(eq(channels.code, 'simulator'));
    const made = await api(
      '/merchant/create',
      {
        name: 'Parameter Shop',
        owner: { username: `o${randomBytes(4).toString('hex')}`, password: 'Owner1234' },
        channels: [{ channelId: sim!.id, weight: 100 }],
      },
      admin,
    );
    expect(made.json.errno, made.json.errmsg).toBe(0);
    const { code: merchantCode, apiSecret } = made.json.data as { code: string; apiSecret: string };
    const create = (merchantOrderNo: string) => {
      const body = JSON.stringify({
        merchantOrderNo,
        amount: '150.00',
        notifyUrl: 'http://127.0.0.1:9/hook',
      });
      const ts = String(Math.floor(Date.now() / 1000));
      const nonce = randomBytes(12).toString('base64url');
      return call('POST', '/gateway/v1/payin', body, {
        'x-merchant-id': merchantCode,
        'x-timestamp': ts,
        'x-nonce': nonce,
        'x-signature': hmacHex(apiSecret, canonicalString(ts, nonce, 'POST', '/gateway/v1/payin', body)),
      });
    };
    const expiryMinutes = async (numbers: string[]) => {
      const rows = await db.db
        .select({ created: payinOrders.createdAt, expires: payinOrders.expiresAt })
        .from(payinOrders)
        .where(inArray(payinOrders.merchantOrderNo, numbers));
      expect(rows).toHaveLength(numbers.length);
      return [...new Set(rows.map((r) => (r.expires.getTime() - r.created.getTime()) / 60_000))];
    };
    const batch = async (tag: string) => {
      const numbers = Array.from({ length: 20 }, (_, i) => `P${tag}-${i}-${randomBytes(3).toString('hex')}`);
      const answers = await Promise.all(numbers.map(create));
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201));
      return numbers;
    };

    // Both workers create (and keep the merchant's creation terms) at the default expiry.
    expect(await expiryMinutes(await batch('a'))).toEqual([30]);
    const changed = await api(
      '/parameter/update',
      { key: 'payin_expiry_minutes', value: 11, code: codeAt(key, new Date()) },
      admin,
    );
    expect(changed.json.errno, changed.json.errmsg).toBe(0);
    // The very next creates, on both workers.
    expect(await expiryMinutes(await batch('b'))).toEqual([11]);

    // A keyless platform user whose session both workers keep.
    const name = `k${randomBytes(4).toString('hex')}`;
    const role = await api('/role/create', { name: `role-${name}`, perms: ['GET /admin/list'] }, admin);
    expect(role.json.errno, role.json.errmsg).toBe(0);
    const user = await api(
      '/admin/create',
      { username: name, nickname: name, password: 'Passw0rd!x1', roleIds: [role.json.data.id] },
      admin,
    );
    expect(user.json.errno, user.json.errmsg).toBe(0);
    const token = await login(name, 'Passw0rd!x1');
    const adminList = () => call('GET', '/api/admin/list', undefined, { 'admin-token': token });
    const before = await Promise.all(Array.from({ length: 6 }, adminList));
    expect(before.map((r) => r.json.errno)).toEqual(Array(6).fill(0));
    const held = await api(
      '/parameter/update',
      { key: 'require_google_auth', value: true, code: codeAt(key, new Date(Date.now() + 30_000)) },
      admin,
    );
    expect(held.json.errno, held.json.errmsg).toBe(0);
    const after = await Promise.all(Array.from({ length: 10 }, adminList));
    expect(after.map((r) => r.json.errno)).toEqual(Array(10).fill(1011));
  }, 60_000);
});
