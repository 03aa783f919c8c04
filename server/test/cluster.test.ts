/**
 * The server as `WORKERS=2` runs it (PostgreSQL): a primary and two worker processes sharing the port,
 * each with its own caches. A revoked permission or session is refused on the very next call whichever
 * worker takes it; background jobs handle each due order once; SIGTERM stops everything cleanly.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalString } from '../../contract/gateway.ts';
import type { Database } from '../db/index.ts';
import { channels, payinOrders, webhookEvents } from '../db/schema.ts';
import { hmacHex } from '../lib/crypto.ts';
import { codeAt, newTotpSecret } from '../modules/auth/totp.ts';
import { hasPostgres } from './pg.ts';
import { workersAdminPassword as adminPassword, startWorkersServer, type WorkersServer } from './workers.ts';

describe.skipIf(!hasPostgres)('WORKERS=2 on PostgreSQL', () => {
  let cluster: WorkersServer;
  let db: Database;
  let admin: string;
  const call: WorkersServer['call'] = (...args) => cluster.call(...args);
  const api: WorkersServer['api'] = (...args) => cluster.api(...args);
  const login: WorkersServer['login'] = (...args) => cluster.login(...args);
  const list = async (token: string) =>
    (await call('GET', '/api/admin/list', undefined, { 'admin-token': token })).json.errno;

  beforeAll(async () => {
    cluster = await startWorkersServer('cluster');
    ({ db, admin } = cluster);
  }, 120_000);

  afterAll(() => cluster?.stop());

  async function makeUser(perms: string[]) {
    const name = `c${randomBytes(4).toString('hex')}`;
    const role = await api('/role/create', { name: `role-${name}`, perms }, admin);
    expect(role.json.errno).toBe(0);
    const password = 'Passw0rd!x1';
    const user = await api(
      '/admin/create',
      { username: name, nickname: name, password, roleIds: [role.json.data.id] },
      admin,
    );
    expect(user.json.errno).toBe(0);
    return {
      id: user.json.data.id as number,
      roleId: role.json.data.id as number,
      token: await login(name, password),
    };
  }

  it('refuses a taken permission and a closed session on the very next call, on every worker', async () => {
    const u = await makeUser(['GET /admin/list', 'GET /log/list']);
    // Both workers serve (and keep) the session: calls alternate between them.
    for (let i = 0; i < 6; i++) expect(await list(u.token)).toBe(0);
    expect(
      (await api('/role/permissions', { id: u.roleId, perms: ['GET /log/list'] }, admin)).json.errno,
    ).toBe(0);
    const after = await Promise.all(Array.from({ length: 10 }, () => list(u.token)));
    expect(after).toEqual(Array(10).fill(403));

    const v = await makeUser(['GET /admin/list']);
    for (let i = 0; i < 6; i++) expect(await list(v.token)).toBe(0);
    expect((await api('/auth/logout', {}, v.token)).json.errno).toBe(0);
    const closed = await Promise.all(Array.from({ length: 10 }, () => list(v.token)));
    expect(closed).toEqual(Array(10).fill(501));
  });

  it('sees a reset API secret on every worker at once, and expires each due pay-in once', async () => {
    const [sim] = await db.db.select().from(channels).where(eq(channels.code, 'simulator'));
    const made = await api(
      '/merchant/create',
      {
        name: 'Cluster Shop',
        owner: { username: `o${randomBytes(4).toString('hex')}`, password: 'Owner1234' },
        channels: [{ channelId: sim!.id, weight: 100 }],
      },
      admin,
    );
    expect(made.json.errno).toBe(0);
    const { id: merchantId, code } = made.json.data as { id: number; code: string };
    let secret = made.json.data.apiSecret as string;
    const create = (merchantOrderNo: string) => {
      const body = JSON.stringify({
        merchantOrderNo,
        amount: '150.00',
        notifyUrl: 'http://127.0.0.1:9/hook',
      });
      const ts = String(Math.floor(Date.now() / 1000));
      const nonce = randomBytes(12).toString('base64url');
      return call('POST', '/gateway/v1/payin', body, {
        'x-merchant-id': code,
        'x-timestamp': ts,
        'x-nonce': nonce,
        'x-signature': hmacHex(secret, canonicalString(ts, nonce, 'POST', '/gateway/v1/payin', body)),
      });
    };
    const numbers = Array.from({ length: 30 }, (_, i) => `CL-${i}-${randomBytes(3).toString('hex')}`);
    const created = await Promise.all(numbers.map(create));
    expect(created.map((r) => r.status)).toEqual(Array(30).fill(201));
    // The same create again, concurrently on both workers: one order each, replayed.
    const again = await Promise.all(numbers.slice(0, 10).map(create));
    expect(again.map((r) => r.status)).toEqual(Array(10).fill(200));

    // A reset takes the acting user's Google code.
    const key = newTotpSecret();
    // Bound with the previous step's code (still inside the window), so the current step's is unused.
    const bound = await api(
      '/v1/auth/google/bind',
      { secret: key, code: codeAt(key, new Date(Date.now() - 30_000)), password: adminPassword },
      admin,
    );
    expect(bound.json.errno).toBe(0);
    const reset = await api(
      '/merchant/resetSecret',
      { id: merchantId, which: 'api', code: codeAt(key, new Date()) },
      admin,
    );
    expect(reset.json.errno).toBe(0);
    const refused = await Promise.all(Array.from({ length: 6 }, (_, i) => create(`CL-old-${i}`)));
    expect(refused.map((r) => r.status)).toEqual(Array(6).fill(401));
    secret = reset.json.data.apiSecret as string;
    expect((await create(`CL-new-${randomBytes(3).toString('hex')}`)).status).toBe(201);

    // Overdue: both workers run the expiry job; each order turns unpaid once, with one callback.
    await db.db
      .update(payinOrders)
      .set({ expiresAt: sql`now() - interval '1 minute'` })
      .where(and(eq(payinOrders.merchantId, merchantId), inArray(payinOrders.merchantOrderNo, numbers)));
    const t0 = Date.now();
    for (;;) {
      const [{ n }] = (await db.db
        .select({ n: sql<number>`count(*)::int` })
        .from(payinOrders)
        .where(
          and(
            eq(payinOrders.merchantId, merchantId),
            eq(payinOrders.status, 'pending'),
            inArray(payinOrders.merchantOrderNo, numbers),
          ),
        )) as [{ n: number }];
      if (Number(n) === 0) break;
      if (Date.now() - t0 > 30_000) throw new Error(`${n} still pending`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const events = await db.db
      .select({ orderId: webhookEvents.orderId, type: webhookEvents.type })
      .from(webhookEvents)
      .where(eq(webhookEvents.merchantId, merchantId));
    expect(events.filter((e) => e.type === 'payin.unpaid')).toHaveLength(30);
    expect(new Set(events.map((e) => e.orderId)).size).toBe(30);
  });

  it('stops the workers and itself on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) =>
      cluster.server.once('exit', (code) => resolve(code)),
    );
    cluster.server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(cluster.output()).not.toMatch(/worker died/);
  }, 30_000);
});
