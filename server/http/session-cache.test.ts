/**
 * Resolved sessions kept in memory (`resolveSession`) never outlive what they were read from: a revoked
 * session, a disabled user, a taken permission or a changed Google rule is refused on the very next call,
 * whether the change came through the API, straight into the database, or from another server process.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../contract/index.ts';
import { type Database, inTransaction, openDatabase } from '../db/index.ts';
import { parameters, roles, sessions, users } from '../db/schema.ts';
import { gatewayRoutes, routes } from '../routes.ts';
import { engines, errno, startTestServer, type TestServer } from '../test/harness.ts';
import { createApp } from './app.ts';

describe.each(engines)('kept sessions on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
  });
  afterAll(() => s.close());

  const canList = async (token: string) => (await s.call(endpoints.admin.list, {}, token)).errno;

  it('answers from memory while nothing changed: no query on a repeated call', async () => {
    const u = await s.makeUser({ perms: ['GET /admin/list'] });
    expect(await canList(u.token)).toBe(errno.ok);
    const before = s.deps.database.changes.version;
    const queries: string[] = [];
    const client = (s.db as unknown as { $client: { query: (...a: unknown[]) => unknown } }).$client;
    const original = client.query;
    client.query = function (this: unknown, ...a: unknown[]) {
      queries.push(String(typeof a[0] === 'string' ? a[0] : (a[0] as { text?: string })?.text));
      return original.apply(this, a);
    };
    try {
      expect(await s.call(endpoints.auth.info, {}, u.token)).toMatchObject({ errno: 0 });
    } finally {
      client.query = original;
    }
    expect(s.deps.database.changes.version).toBe(before);
    expect(queries.filter((q) => /from "sessions"/.test(q))).toEqual([]);
  });

  it('refuses a session revoked by logout, by a password change elsewhere, or in the database', async () => {
    const a = await s.makeUser({ perms: ['GET /admin/list'] });
    expect(await canList(a.token)).toBe(errno.ok);
    expect((await s.call(endpoints.auth.logout, {}, a.token)).errno).toBe(errno.ok);
    expect(await canList(a.token)).toBe(errno.notSignedIn);

    const b = await s.makeUser({ perms: ['GET /admin/list'] });
    expect(await canList(b.token)).toBe(errno.ok);
    // As an operator would, outside the server: the trigger's notification reaches this process.
    await s.db.update(sessions).set({ revokedAt: new Date() }).where(eq(sessions.userId, b.id));
    expect(await canList(b.token)).toBe(errno.notSignedIn);

    const c = await s.makeUser({ perms: ['GET /admin/list'] });
    expect(await canList(c.token)).toBe(errno.ok);
    await s.db.update(users).set({ status: 'disabled' }).where(eq(users.id, c.id));
    expect(await canList(c.token)).toBe(errno.notSignedIn);
  });

  it('refuses a permission taken from the role, through the API or in the database', async () => {
    const u = await s.makeUser({ perms: ['GET /admin/list', 'GET /log/list'] });
    expect(await canList(u.token)).toBe(errno.ok);
    const set = await s.call(
      endpoints.role.setPermissions,
      { id: u.roleId, perms: ['GET /log/list'] },
      admin,
    );
    expect(set.errno).toBe(errno.ok);
    expect(await canList(u.token)).toBe(errno.forbidden);
    await s.db
      .update(roles)
      .set({ perms: ['GET /admin/list'] })
      .where(eq(roles.id, u.roleId));
    expect(await canList(u.token)).toBe(errno.ok);
    expect((await s.call(endpoints.log.list, {}, u.token)).errno).toBe(errno.forbidden);
  });

  it('applies a changed Google rule on the next call, and a rolled-back change never', async () => {
    const u = await s.makeUser({ perms: ['GET /admin/list'] });
    expect(await canList(u.token)).toBe(errno.ok);
    // A change that rolls back notifies nobody and changes nothing.
    await expect(
      inTransaction(s.db, async (tx) => {
        await tx
          .insert(parameters)
          .values({ key: 'require_google_auth', value: true })
          .onConflictDoUpdate({ target: parameters.key, set: { value: true } });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await canList(u.token)).toBe(errno.ok);
    await s.db
      .insert(parameters)
      .values({ key: 'require_google_auth', value: true })
      .onConflictDoUpdate({ target: parameters.key, set: { value: true } });
    try {
      expect(await canList(u.token)).toBe(errno.bindGoogleFirst);
    } finally {
      await s.db.update(parameters).set({ value: false }).where(eq(parameters.key, 'require_google_auth'));
    }
    expect(await canList(u.token)).toBe(errno.ok);
  });

  it('keeps idle and absolute expiry exact', async () => {
    const u = await s.makeUser({ perms: ['GET /admin/list'] });
    expect(await canList(u.token)).toBe(errno.ok);
    // Inside the 30 s it may answer from memory; the session stays alive by use.
    s.clock.advance(29_000);
    expect(await canList(u.token)).toBe(errno.ok);
    s.clock.advance(30 * 60_000 + 1_000);
    expect(await canList(u.token)).toBe(errno.sessionExpired);
    const v = await s.makeUser({ perms: ['GET /admin/list'] });
    for (let used = 0; used < 12 * 60; used += 20) {
      expect(await canList(v.token)).toBe(errno.ok);
      s.clock.advance(20 * 60_000);
    }
    expect(await canList(v.token)).toBe(errno.sessionExpired);
  });
});

describe.skipIf(!engines.includes('postgres'))(
  'kept sessions across two server processes (PostgreSQL)',
  () => {
    let s: TestServer;
    let other: Database;
    let otherApp: ReturnType<typeof createApp>;
    let admin: string;
    beforeAll(async () => {
      s = await startTestServer('postgres');
      admin = await s.adminToken();
      // A second server on the same database, as another process would be: its own pool, feed and caches.
      const pool = (s.db as unknown as { $client: { options: { connectionString: string } } }).$client;
      const url = pool.options.connectionString;
      other = await openDatabase({ url, poolSize: 4, migrate: false });
      otherApp = createApp({ ...s.deps, database: other }, routes, gatewayRoutes);
    });
    afterAll(async () => {
      s.deps.database.changes.handOver(undefined);
      await other?.close();
      await s.close();
    });

    const listOn = async (app: ReturnType<typeof createApp>, token: string) => {
      const res = await app.request('http://localhost/api/admin/list', {
        headers: { 'admin-token': token, 'x-forwarded-for': '10.0.0.2' },
      });
      return ((await res.json()) as { errno: number }).errno;
    };
    /** Calls until the answer is not `while`, for at most `ms`; answers it and how long it took. */
    const until = async (app: ReturnType<typeof createApp>, token: string, ms: number) => {
      const t0 = performance.now();
      for (;;) {
        const e = await listOn(app, token);
        if (e !== errno.ok || performance.now() - t0 > ms) return { errno: e, ms: performance.now() - t0 };
      }
    };

    it('hears the other process through LISTEN/NOTIFY: a revoked session is refused there within moments', async () => {
      expect(other.changes.live).toBe(true);
      const u = await s.makeUser({ perms: ['GET /admin/list', 'GET /log/list'] });
      expect(await listOn(otherApp, u.token)).toBe(errno.ok);
      expect(await listOn(otherApp, u.token)).toBe(errno.ok);
      expect(
        (await s.call(endpoints.role.setPermissions, { id: u.roleId, perms: ['GET /log/list'] }, admin))
          .errno,
      ).toBe(errno.ok);
      const seen = await until(otherApp, u.token, 2_000);
      expect(seen.errno).toBe(errno.forbidden);
      expect(seen.ms).toBeLessThan(2_000);
    });

    it('with a hand-over (as WORKERS wire it), the other process refuses on the very next call', async () => {
      // What server/main.ts does between workers: the committing process tells the other before it answers.
      s.deps.database.changes.handOver(async () => other.changes.bump());
      for (let i = 0; i < 5; i++) {
        const u = await s.makeUser({ perms: ['GET /admin/list'] });
        expect(await listOn(otherApp, u.token)).toBe(errno.ok);
        expect(await listOn(otherApp, u.token)).toBe(errno.ok);
        expect((await s.call(endpoints.auth.logout, {}, u.token)).errno).toBe(errno.ok);
        expect(await listOn(otherApp, u.token)).toBe(errno.notSignedIn);
      }
      const v = await s.makeUser({ perms: ['GET /admin/list'] });
      expect(await listOn(otherApp, v.token)).toBe(errno.ok);
      expect((await s.call(endpoints.admin.update, { id: v.id, roleIds: [] }, admin)).errno).toBe(errno.ok);
      expect(await listOn(otherApp, v.token)).toBe(errno.forbidden);
    });

    it('keeps nothing while its listening connection is down, and forgets everything when it is back', async () => {
      const u = await s.makeUser({ perms: ['GET /admin/list'] });
      expect(await listOn(otherApp, u.token)).toBe(errno.ok);
      // Cut the other process's listening connection from the server side.
      await s.db.execute(
        sql`select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and query = 'listen paygate_changes' and pid <> pg_backend_pid()
            and backend_type = 'client backend'`,
      );
      const t0 = performance.now();
      while (other.changes.live && performance.now() - t0 < 2_000)
        await new Promise((r) => setTimeout(r, 10));
      expect(other.changes.live).toBe(false);
      // Down: every call reads the database, so a change is seen whatever becomes of notifications.
      await s.db.update(sessions).set({ revokedAt: new Date() }).where(eq(sessions.userId, u.id));
      expect(await listOn(otherApp, u.token)).toBe(errno.notSignedIn);
      const t1 = performance.now();
      while (!other.changes.live && performance.now() - t1 < 5_000)
        await new Promise((r) => setTimeout(r, 50));
      expect(other.changes.live).toBe(true);
    });
  },
);
