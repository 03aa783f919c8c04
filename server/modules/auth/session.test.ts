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
