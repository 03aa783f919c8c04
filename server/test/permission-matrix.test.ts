/**
 * P22: every endpoint x every point of view matches the permission matrix; default deny.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Errno, httpStatus } from '../../contract/errno.ts';
import { allEndpoints, type Caller, type Endpoint, endpoints } from '../../contract/index.ts';
import { operationLog, users } from '../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from './harness.ts';

/**
 * The matrix: every endpoint's caller kind, generated from the registry into a committed file and read back
 * from it, so the HTTP checks below test the endpoints against the file, not against themselves. A new
 * endpoint, or a change of who may call one, fails the first test until the file is written again on
 * purpose (`vitest -u`) and its diff read.
 */
const matrixFile = './__snapshots__/permission-matrix.txt';
const matrixLine = (ep: Endpoint) => `${ep.id} ${ep.caller} ${ep.permission}`;
const matrix: Record<string, Caller> = Object.fromEntries(
  readFileSync(new URL(matrixFile, import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ') as [string, Caller]),
);

/** The outbox's string too, as a role stored before the outbox became super administrators' only holds it. */
const limitedPerms = ['GET /admin/list', 'GET /log/list', 'GET /mailOutbox/list'];

interface PointOfView {
  name: string;
  /** null: anonymous. */
  kind: 'platform' | 'merchant' | null;
  perms: string[];
  userId?: number;
  token?: string;
  /** A fresh token of the same user, for calls that end the session. */
  throwaway?: () => Promise<string>;
}

type Outcome = 'not signed in' | 'forbidden' | 'allowed';

/** What the matrix says a point of view gets from an endpoint. */
function expectedOutcome(pov: PointOfView, id: string, permission: string): Outcome {
  const caller = matrix[id];
  if (caller === 'public') return 'allowed';
  if (pov.kind === null) return 'not signed in';
  if (caller === 'session') return 'allowed';
  // Super administrators only: no role grants it, so holding its permission string opens nothing.
  if (caller === 'superAdmin')
    return pov.kind === 'platform' && pov.perms.includes('*') ? 'allowed' : 'forbidden';
  const kindMay = caller === 'both' || caller === pov.kind;
  return kindMay && (pov.perms.includes('*') || pov.perms.includes(permission)) ? 'allowed' : 'forbidden';
}

/** Errnos that mean the call was stopped before the handler by authentication or authorisation. */
const stoppedAtTheDoor: number[] = [
  errno.notSignedIn,
  errno.sessionExpired,
  errno.forbidden,
  errno.bindGoogleFirst,
];

describe('the permission matrix', () => {
  it('lists every endpoint of the registry with its caller kind, and nothing else', async () => {
    for (const ep of allEndpoints) expect(ep.permission).toBe(`${ep.method} ${ep.path}`);
    await expect(`${allEndpoints.map(matrixLine).join('\n')}\n`).toMatchFileSnapshot(matrixFile);
  });
});

describe.each(engines)('permission matrix on %s', (engine) => {
  let s: TestServer;
  const povs: PointOfView[] = [];
  const denied: Array<{ requestId: string; action: string; userId: number }> = [];
  let forbiddenAnswers = 0;

  beforeAll(async () => {
    s = await startTestServer(engine);
    const merchant = await s.makeMerchant();
    const user = async (
      name: string,
      kind: 'platform' | 'merchant',
      perms: string[],
    ): Promise<PointOfView> => {
      const u = await s.makeUser({
        kind,
        perms,
        ...(kind === 'merchant' ? { merchantId: merchant.id } : {}),
      });
      return {
        name,
        kind,
        perms,
        userId: u.id,
        token: u.token,
        throwaway: () => s.login(u.username, u.password),
      };
    };
    const [adminRow] = await s.db.select({ id: users.id }).from(users).where(eq(users.username, 'admin'));
    povs.push(
      { name: 'anonymous', kind: null, perms: [] },
      await user('platform, no permissions', 'platform', []),
      await user('platform, limited role', 'platform', limitedPerms),
      await user('merchant, *', 'merchant', ['*']),
      await user('merchant, no permissions', 'merchant', []),
      await user('merchant, limited role', 'merchant', limitedPerms),
      {
        name: 'platform, * (admin)',
        kind: 'platform',
        perms: ['*'],
        userId: adminRow!.id,
        token: await s.adminToken(),
        throwaway: () => s.adminToken(),
      },
    );
  });
  afterAll(() => s.close());

  it.each(allEndpoints.map((ep) => [ep.id, ep] as const))(
    '%s answers every point of view as the matrix says',
    async (id, ep) => {
      const mismatches: string[] = [];
      for (const pov of povs) {
        const want = expectedOutcome(pov, id, `${ep.method} ${ep.path}`);
        // Signing out would end the token the other endpoints reuse: use a throwaway one.
        const token = ep.id === 'auth.logout' && pov.throwaway ? await pov.throwaway() : pov.token;
        const requestId = randomUUID();
        const res = await s.request(...requestOf(ep, token, requestId));
        const got = res.json?.errno;
        // Signing out everywhere ended the token the other endpoints reuse too: take a new one.
        if (ep.id === 'auth.logoutAll' && pov.throwaway) pov.token = await pov.throwaway();
        const where = `${pov.name}: HTTP ${res.status} errno ${got} ${res.json?.errmsg ?? res.text.slice(0, 80)}`;
        if (typeof got !== 'number' || res.status !== httpStatus[got as Errno]) {
          mismatches.push(`${where} (not an envelope with the HTTP status beside its errno)`);
          continue;
        }
        if (want === 'not signed in' && got !== errno.notSignedIn) mismatches.push(`${where}, wanted 501`);
        if (want === 'forbidden') {
          if (got !== errno.forbidden) mismatches.push(`${where}, wanted 403`);
          else {
            forbiddenAnswers++;
            denied.push({ requestId, action: ep.id, userId: pov.userId! });
          }
        }
        if (want === 'allowed') {
          if (stoppedAtTheDoor.includes(got) || got === errno.internal)
            mismatches.push(`${where}, wanted to reach the handler`);
          const fields = (res.json.data as { fields?: unknown[] } | null)?.fields;
          if (got === errno.invalid && !(Array.isArray(fields) && fields.length > 0)) {
            mismatches.push(`${where}: 422 without field errors`);
          }
        }
        if (ep.id === 'auth.logout' && token && want === 'allowed') {
          if (got !== errno.ok) mismatches.push(`${where}: logout failed`);
          const after = await s.call(endpoints.auth.info, {}, token);
          if (after.errno !== errno.notSignedIn)
            mismatches.push(`${pov.name}: the token still works after logout`);
          if (pov.token && (await s.call(endpoints.auth.info, {}, pov.token)).errno !== errno.ok) {
            mismatches.push(`${pov.name}: logout of another session ended this one`);
          }
        }
      }
      expect(mismatches).toEqual([]);
    },
  );

  it('wrote exactly one "denied" row for every 403, naming the user and the endpoint', async () => {
    expect(forbiddenAnswers).toBeGreaterThan(40);
    const rows = await s.db
      .select()
      .from(operationLog)
      .where(
        inArray(
          operationLog.requestId,
          denied.map((d) => d.requestId),
        ),
      );
    expect(rows.length).toBe(denied.length);
    for (const d of denied) {
      const row = rows.find((r) => r.requestId === d.requestId);
      expect(row, d.action).toMatchObject({
        action: d.action,
        userId: d.userId,
        outcome: 'denied',
        errno: errno.forbidden,
      });
    }
    const allDenied = await s.db
      .select({ id: operationLog.id })
      .from(operationLog)
      .where(eq(operationLog.outcome, 'denied'));
    expect(allDenied.length).toBe(denied.length);
  });

  it("ends a disabled user's live session at its next call (501), whether disabled by an admin or in the database", async () => {
    const admin = await s.adminToken();
    const byAdmin = await s.makeUser({ perms: ['GET /admin/list'] });
    const inDb = await s.makeUser({ perms: ['GET /admin/list'] });
    for (const u of [byAdmin, inDb])
      expect((await s.call(endpoints.admin.list, {}, u.token)).errno).toBe(errno.ok);

    expect((await s.call(endpoints.admin.update, { id: byAdmin.id, status: 'disabled' }, admin)).errno).toBe(
      errno.ok,
    );
    // Without the session revocation that admin.update does: only the account status says no.
    await s.db.update(users).set({ status: 'disabled' }).where(eq(users.id, inDb.id));

    for (const u of [byAdmin, inDb]) {
      expect((await s.call(endpoints.admin.list, {}, u.token)).errno, u.username).toBe(errno.notSignedIn);
      expect((await s.call(endpoints.auth.info, {}, u.token)).errno, u.username).toBe(errno.notSignedIn);
      expect((await s.call(endpoints.auth.login, { username: u.username, password: u.password })).errno).toBe(
        errno.accountDisabled,
      );
    }
    // Enabling again does not bring back the session the admin ended, only the one that was merely refused.
    await s.db
      .update(users)
      .set({ status: 'active' })
      .where(inArray(users.id, [byAdmin.id, inDb.id]));
    expect((await s.call(endpoints.auth.info, {}, byAdmin.token)).errno).toBe(errno.notSignedIn);
    expect((await s.call(endpoints.auth.info, {}, inDb.token)).errno).toBe(errno.ok);
  });
});

/** An endpoint called with an empty input: GET without a query, POST with `{}`. */
function requestOf(
  ep: Endpoint,
  token: string | undefined,
  requestId: string,
): [string, string, { body?: unknown; token?: string; headers: Record<string, string> }] {
  const headers = { 'x-request-id': requestId };
  return ep.method === 'GET'
    ? ['GET', `/api${ep.path}`, { token, headers }]
    : ['POST', `/api${ep.path}`, { body: {}, token, headers }];
}
