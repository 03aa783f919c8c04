import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';

describe.each(engines)('sessions on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterAll(() => s.close());

  it('answers the signed-in user with perms, roles and merchant', async () => {
    const token = await s.adminToken();
    const info = await s.call(endpoints.auth.info, {}, token);
    expect(info.errno).toBe(0);
    expect(info.data).toMatchObject({ username: 'admin', kind: 'platform', merchantId: null, perms: ['*'] });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('lists where the caller is signed in: its own open sessions, this one marked, no token', async () => {
    const user = await s.makeUser({ perms: [] });
    s.clock.advance(1000); // the later sign-in is the more recently used
    const other = await s.login(user.username, user.password);
    const ended = await s.login(user.username, user.password);
    expect((await s.call(endpoints.auth.logout, {}, ended)).errno).toBe(0);
    await s.adminToken(); // another user's session is not the caller's business
    const mine = await s.call(endpoints.auth.sessions, {}, user.token);
    expect(mine.errno).toBe(0);
    expect(mine.data.total).toBe(2);
    expect(mine.data.list.map((r: { current: boolean }) => r.current).sort()).toEqual([false, true]);
    expect(JSON.stringify(mine.data)).not.toContain(user.token);
    expect(Object.keys(mine.data.list[0]).sort()).toEqual([
      'createdAt',
      'current',
      'expiresAt',
      'ip',
      'lastSeenAt',
      'userAgent',
    ]);
    // Seen from the other session, that one is the current one; a bad page size changes nothing.
    const there = await s.call(endpoints.auth.sessions, { pageSize: 1 }, other);
    expect(there.data).toMatchObject({ total: 2, list: [{ current: true }] });
    expect((await s.call(endpoints.auth.sessions, { pageSize: 0 }, other)).errno).toBe(errno.invalid);
    // Sign out everywhere: nothing is left to list, and the token no longer answers.
    expect((await s.call(endpoints.auth.logoutAll, {}, other)).errno).toBe(0);
    expect((await s.call(endpoints.auth.sessions, {}, user.token)).errno).toBe(errno.notSignedIn);
  });

  it('gives a new token at every sign-in and ends it at logout', async () => {
    const a = await s.adminToken();
    const b = await s.adminToken();
    expect(a).not.toBe(b);
    expect((await s.call(endpoints.auth.logout, {}, a)).errno).toBe(0);
    expect((await s.call(endpoints.auth.info, {}, a)).errno).toBe(errno.notSignedIn);
    expect((await s.call(endpoints.auth.info, {}, b)).errno).toBe(0);
  });

  it('expires an idle session (506) and one past its absolute lifetime (506)', async () => {
    const idle = await s.adminToken();
    s.clock.advance(30 * 60_000 + 1000);
    expect((await s.call(endpoints.auth.info, {}, idle)).errno).toBe(errno.sessionExpired);

    // Used every 29 minutes, it is never idle, yet it ends 12 hours after sign-in.
    const busy = await s.adminToken();
    let used = 0;
    for (;;) {
      s.clock.advance(29 * 60_000);
      used += 29;
      const r = await s.call(endpoints.auth.info, {}, busy);
      if (used < 12 * 60) {
        expect(r.errno).toBe(0);
      } else {
        expect(r.errno).toBe(errno.sessionExpired);
        break;
      }
    }
  });

  it('answers 501 for a missing or made-up token', async () => {
    expect((await s.call(endpoints.auth.info, {})).errno).toBe(errno.notSignedIn);
    expect((await s.call(endpoints.auth.info, {}, 'x'.repeat(43))).errno).toBe(errno.notSignedIn);
  });
});
