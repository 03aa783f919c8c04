import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { deviceTokens, loginTickets, mailOutbox, parameters, users } from '../../db/schema.ts';
import { sha256 } from '../../lib/crypto.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { codeAt } from './totp.ts';

const { auth } = endpoints;

describe.each(engines)('sign-in on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterAll(() => s.close());

  /** The code of the user's last reset mail, read from the outbox (no SMTP in the harness). */
  async function lastCodeFor(userId: number) {
    const [user] = await s.db.select().from(users).where(eq(users.id, userId));
    const rows = await s.db.select().from(mailOutbox).where(eq(mailOutbox.to, user!.email));
    return /\b(\d{6})\b/.exec(rows.at(-1)!.body!)![1]!;
  }

  /** A fresh user with a bound Google key, and the clock moved past the binding's time step. */
  async function boundUser(perms: string[] = []) {
    const u = await s.makeUser({ perms });
    const secret = await s.bindGoogle(u.token);
    s.clock.advance(30_000);
    return { ...u, secret };
  }

  it('stores passwords as Argon2id with the OWASP parameters', async () => {
    const u = await s.makeUser({ perms: [] });
    const [row] = await s.db.select().from(users).where(eq(users.id, u.id));
    expect(row!.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('answers an unknown user and a wrong password byte for byte alike', async () => {
    const u = await s.makeUser({ perms: [] });
    const unknown = await s.request('POST', '/api/auth/login', {
      body: { username: 'nobody_here', password: 'x' },
    });
    const wrong = await s.request('POST', '/api/auth/login', {
      body: { username: u.username, password: 'x' },
    });
    expect(unknown.json.errno).toBe(errno.badCredentials);
    expect(wrong.text).toBe(unknown.text);
    expect(wrong.status).toBe(unknown.status);
  });

  it('trims the username', async () => {
    const u = await s.makeUser({ perms: [] });
    const r = await s.call(auth.login, { username: `  ${u.username} `, password: u.password });
    expect(r.errno).toBe(0);
  });

  it('asks a bound user for the Google code (1002) and accepts each code once', async () => {
    const u = await boundUser();
    const noCode = await s.call(auth.login, { username: u.username, password: u.password });
    expect(noCode).toMatchObject({ errno: errno.secondStepNeeded, data: { step: 'google' } });
    const code = codeAt(u.secret, s.clock.now());
    expect((await s.call(auth.login, { username: u.username, password: u.password, code })).errno).toBe(0);
    // The same code again, inside its window: refused.
    expect((await s.call(auth.login, { username: u.username, password: u.password, code })).errno).toBe(
      errno.badCode,
    );
  });

  it('accepts the previous step once and refuses two steps away', async () => {
    const u = await boundUser();
    s.clock.advance(5 * 30_000);
    const at = (d: number) => codeAt(u.secret, new Date(s.clock.now().getTime() + d * 30_000));
    const login = (code: string) => s.call(auth.login, { username: u.username, password: u.password, code });
    expect((await login(at(-2))).errno).toBe(errno.badCode);
    expect((await login(at(2))).errno).toBe(errno.badCode);
    expect((await login(at(-1))).errno).toBe(0);
    expect((await login(at(-1))).errno).toBe(errno.badCode);
  });

  it('refuses a disabled account after a right password', async () => {
    const u = await s.makeUser({ perms: [] });
    await s.db.update(users).set({ status: 'disabled' }).where(eq(users.id, u.id));
    expect((await s.call(auth.login, { username: u.username, password: u.password })).errno).toBe(
      errno.accountDisabled,
    );
    expect((await s.call(auth.info, {}, u.token)).errno).toBe(errno.notSignedIn);
  });

  it('locks a username for 15 minutes after 5 failures from one address, for that address only', async () => {
    const u = await s.makeUser({ perms: [] });
    const from = (ip: string, password: string) =>
      s.call(auth.login, { username: u.username, password }, undefined, { 'x-forwarded-for': ip });
    for (let i = 0; i < 5; i++) expect((await from('10.9.0.1', 'Wrong-1')).errno).toBe(errno.badCredentials);
    // The guessing address is locked out, even with the right password...
    expect((await from('10.9.0.1', u.password)).errno).toBe(errno.accountLocked);
    // ...the owner signing in from elsewhere is not (a lockout anyone could cause for everyone was the hole).
    expect((await from('10.9.9.9', u.password)).errno).toBe(0);
    // Failures from several addresses do not add up to a lock of any of them.
    const v = await s.makeUser({ perms: [] });
    for (let i = 0; i < 5; i++) {
      const r = await s.call(auth.login, { username: v.username, password: 'Wrong-1' }, undefined, {
        'x-forwarded-for': `10.9.1.${i}`,
      });
      expect(r.errno).toBe(errno.badCredentials);
    }
    const fromFirst = await s.call(auth.login, { username: v.username, password: v.password }, undefined, {
      'x-forwarded-for': '10.9.1.0',
    });
    expect(fromFirst.errno).toBe(0);
    // The lock ends after 15 minutes.
    s.clock.advance(15 * 60_000 + 1000);
    expect((await from('10.9.0.1', u.password)).errno).toBe(0);
  });

  it('locks unknown usernames the same way, so lockout does not reveal who exists', async () => {
    for (let i = 0; i < 5; i++) await s.call(auth.login, { username: 'ghost_user', password: 'nope' });
    expect((await s.call(auth.login, { username: 'ghost_user', password: 'nope' })).errno).toBe(
      errno.accountLocked,
    );
  });

  it('counts wrong Google codes towards the lockout', async () => {
    const u = await boundUser();
    for (let i = 0; i < 5; i++) {
      expect(
        (await s.call(auth.login, { username: u.username, password: u.password, code: '000000' })).errno,
      ).toBe(errno.badCode);
    }
    const code = codeAt(u.secret, s.clock.now());
    expect((await s.call(auth.login, { username: u.username, password: u.password, code })).errno).toBe(
      errno.accountLocked,
    );
  });

  it('runs the two-step flow with a Google code and remembers the device for 30 days', async () => {
    const u = await boundUser();
    const first = await s.call(auth.loginPassword, { username: u.username, password: u.password });
    expect(first).toMatchObject({ errno: errno.secondStepNeeded, data: { step: 'google' } });
    const ticket = first.data.ticket as string;
    expect((await s.call(auth.loginGoogleCode, { ticket, code: '000000', remember: true })).errno).toBe(
      errno.badCode,
    );
    const done = await s.call(auth.loginGoogleCode, {
      ticket,
      code: codeAt(u.secret, s.clock.now()),
      remember: true,
    });
    expect(done.errno).toBe(0);
    expect(done.data.token).toBeTruthy();
    const deviceToken = done.data.deviceToken as string;
    expect(deviceToken).toBeTruthy();
    // The ticket is used up.
    expect((await s.call(auth.loginGoogleCode, { ticket, code: '123456' })).errno).toBe(errno.ticketInvalid);

    // Next time the device skips the second step, in both flows...
    s.clock.advance(29 * 86_400_000);
    const skipped = await s.call(auth.loginPassword, {
      username: u.username,
      password: u.password,
      deviceToken,
    });
    expect(skipped.errno).toBe(0);
    expect(
      (await s.call(auth.login, { username: u.username, password: u.password, deviceToken })).errno,
    ).toBe(0);
    // ...but not for another user, not forged, and not after 30 days.
    const other = await boundUser();
    expect(
      (await s.call(auth.loginPassword, { username: other.username, password: other.password, deviceToken }))
        .errno,
    ).toBe(errno.secondStepNeeded);
    const forged = `${deviceToken.split('.')[0]}.${'0'.repeat(64)}`;
    expect(
      (await s.call(auth.login, { username: u.username, password: u.password, deviceToken: forged })).errno,
    ).toBe(errno.secondStepNeeded);
    s.clock.advance(2 * 86_400_000);
    expect(
      (await s.call(auth.login, { username: u.username, password: u.password, deviceToken })).errno,
    ).toBe(errno.secondStepNeeded);
  });

  /** A bound user who signed in with "remember this device": its session and device token. */
  async function rememberedUser(opts: { email?: string } = {}) {
    const u = await s.makeUser({ perms: [], ...opts });
    const secret = await s.bindGoogle(u.token);
    s.clock.advance(30_000);
    const first = await s.call(auth.loginPassword, { username: u.username, password: u.password });
    const done = await s.call(auth.loginGoogleCode, {
      ticket: first.data.ticket,
      code: codeAt(secret, s.clock.now()),
      remember: true,
    });
    expect(done.errno).toBe(0);
    return { ...u, secret, session: done.data.token as string, deviceToken: done.data.deviceToken as string };
  }
  /** Whether the device token still skips the second step for this password. */
  const skips = async (u: { username: string }, password: string, deviceToken: string) =>
    (await s.call(auth.login, { username: u.username, password, deviceToken })).errno === 0;
  const recorded = async (deviceToken: string) => {
    const [row] = await s.db
      .select()
      .from(deviceTokens)
      .where(eq(deviceTokens.tokenHash, sha256(deviceToken)));
    return row;
  };

  it('records each device token server-side, only its hash, and accepts it only while recorded', async () => {
    const u = await rememberedUser();
    const row = await recorded(u.deviceToken);
    expect(row).toMatchObject({ userId: u.id, revokedAt: null, ip: '10.0.0.1' });
    expect(row!.expiresAt.getTime() - s.clock.now().getTime()).toBeGreaterThan(29 * 86_400_000);
    expect(JSON.stringify(await s.db.select().from(deviceTokens))).not.toContain(u.deviceToken);
    expect(await skips(u, u.password, u.deviceToken)).toBe(true);
    // A token the server no longer holds is worth nothing, however it was made.
    await s.db.delete(deviceTokens).where(eq(deviceTokens.tokenHash, sha256(u.deviceToken)));
    expect(await skips(u, u.password, u.deviceToken)).toBe(false);
  });

  it('signs out everywhere: every session and every remembered device of the user end', async () => {
    const u = await rememberedUser();
    s.clock.advance(30_000);
    const other = await s.login(u.username, u.password, codeAt(u.secret, s.clock.now()));
    const stranger = await s.makeUser({ perms: [] });
    expect((await s.call(auth.logoutAll, {}, u.session)).errno).toBe(0);
    for (const token of [u.session, other, u.token]) {
      expect((await s.call(auth.info, {}, token)).errno).toBe(errno.notSignedIn);
    }
    expect(await skips(u, u.password, u.deviceToken)).toBe(false);
    expect((await recorded(u.deviceToken))!.revokedAt).not.toBeNull();
    // Nobody else is signed out.
    expect((await s.call(auth.info, {}, stranger.token)).errno).toBe(0);
  });

  it('revokes remembered devices on a password change, a reset, an administrator setting the password or disabling the user, and a key reset or unbind', async () => {
    const adminToken = await s.adminToken();

    const own = await rememberedUser();
    const pw = { newPassword: 'Changed123x', confirmPassword: 'Changed123x' };
    expect((await s.call(auth.changePassword, { oldPassword: own.password, ...pw }, own.session)).errno).toBe(
      0,
    );
    expect(await skips(own, 'Changed123x', own.deviceToken)).toBe(false);

    const reset = await rememberedUser({ email: `reset.${Date.now()}@example.com` });
    await s.call(auth.sendEmailCode, { username: reset.username, purpose: 'reset' });
    const code = await lastCodeFor(reset.id);
    expect(
      (
        await s.call(auth.resetPassword, {
          username: reset.username,
          code,
          password: 'Reset1234x',
          confirmPassword: 'Reset1234x',
        })
      ).errno,
    ).toBe(0);
    expect(await skips(reset, 'Reset1234x', reset.deviceToken)).toBe(false);

    const byAdmin = await rememberedUser();
    expect(
      (await s.call(endpoints.admin.update, { id: byAdmin.id, password: 'ByAdmin123x' }, adminToken)).errno,
    ).toBe(0);
    expect(await skips(byAdmin, 'ByAdmin123x', byAdmin.deviceToken)).toBe(false);

    const disabled = await rememberedUser();
    expect(
      (await s.call(endpoints.admin.update, { id: disabled.id, status: 'disabled' }, adminToken)).errno,
    ).toBe(0);
    expect(
      (await s.call(endpoints.admin.update, { id: disabled.id, status: 'active' }, adminToken)).errno,
    ).toBe(0);
    expect(await skips(disabled, disabled.password, disabled.deviceToken)).toBe(false);

    // Without a key there is no second step to skip: the token's row shows the revocation.
    const rebound = await rememberedUser();
    expect((await s.call(endpoints.admin.resetGoogle, { id: rebound.id }, adminToken)).errno).toBe(0);
    expect((await recorded(rebound.deviceToken))!.revokedAt).not.toBeNull();

    const unbound = await rememberedUser();
    s.clock.advance(30_000);
    const unbind = await s.call(
      auth.googleUnbind,
      { code: codeAt(unbound.secret, s.clock.now()), password: unbound.password },
      unbound.session,
    );
    expect(unbind.errno).toBe(0);
    expect((await recorded(unbound.deviceToken))!.revokedAt).not.toBeNull();
    // The session that unbound goes on; the user's other sessions end.
    expect((await s.call(auth.info, {}, unbound.session)).errno).toBe(0);
    expect((await s.call(auth.info, {}, unbound.token)).errno).toBe(errno.notSignedIn);
  });

  it('runs the two-step flow with an e-mail code for a user with no Google key', async () => {
    const u = await s.makeUser({ perms: [], email: 'two.step@example.com' });
    const first = await s.call(auth.loginPassword, { username: u.username, password: u.password });
    expect(first).toMatchObject({
      errno: errno.secondStepNeeded,
      data: { step: 'email', sentTo: 'tw***@example.com' },
    });
    const [mail] = await s.db.select().from(mailOutbox).where(eq(mailOutbox.to, 'two.step@example.com'));
    const code = /\b(\d{6})\b/.exec(mail!.body!)![1]!;
    const done = await s.call(auth.loginEmailCode, { ticket: first.data.ticket, code });
    expect(done.errno).toBe(0);
    expect((await s.call(auth.info, {}, done.data.token)).data.username).toBe(u.username);
  });

  it('gives up a ticket after 5 wrong codes', async () => {
    const u = await boundUser();
    const { data } = await s.call(auth.loginPassword, { username: u.username, password: u.password });
    for (let i = 0; i < 5; i++) await s.call(auth.loginGoogleCode, { ticket: data.ticket, code: '000000' });
    const r = await s.call(auth.loginGoogleCode, {
      ticket: data.ticket,
      code: codeAt(u.secret, s.clock.now()),
    });
    expect([errno.ticketInvalid, errno.accountLocked]).toContain(r.errno);
  });

  it('holds users with no Google key to binding first when the platform parameter requires it', async () => {
    await s.db.insert(parameters).values({ key: 'require_google_auth', value: true });
    try {
      const u = await s.makeUser({ perms: ['GET /admin/list'] });
      expect((await s.call(auth.info, {}, u.token)).data.mustBindGoogle).toBe(true);
      expect((await s.call(endpoints.admin.list, {}, u.token)).errno).toBe(errno.bindGoogleFirst);
      await s.bindGoogle(u.token);
      expect((await s.call(endpoints.admin.list, {}, u.token)).errno).toBe(0);
    } finally {
      await s.db.delete(parameters).where(eq(parameters.key, 'require_google_auth'));
    }
  });
});

describe.each(engines)('sign-in rate limit per address on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine, { authLimit: 5 });
  });
  afterAll(() => s.close());

  it('answers 429 past the limit from one address and not from another', async () => {
    const from = (ip: string) =>
      s.call(auth.login, { username: 'someone', password: 'x' }, undefined, { 'x-forwarded-for': ip });
    for (let i = 0; i < 5; i++) expect((await from('10.1.1.1')).errno).not.toBe(errno.tooManyRequests);
    expect((await from('10.1.1.1')).errno).toBe(errno.tooManyRequests);
    expect((await from('10.1.1.2')).errno).not.toBe(errno.tooManyRequests);
  });
});

describe.runIf(engines.includes('postgres'))('one Google code, two concurrent sign-ins, on postgres', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('postgres');
  });
  afterAll(() => s.close());

  it('lets exactly one of them in', async () => {
    for (let round = 0; round < 5; round++) {
      const u = await s.makeUser({ perms: [] });
      const secret = await s.bindGoogle(u.token);
      s.clock.advance(30_000);
      const code = codeAt(secret, s.clock.now());
      const results = await Promise.all(
        Array.from({ length: 4 }, () =>
          s.call(auth.login, { username: u.username, password: u.password, code }),
        ),
      );
      expect(results.filter((r) => r.errno === 0)).toHaveLength(1);
      expect(results.filter((r) => r.errno === errno.badCode)).toHaveLength(3);
    }
  });
});

describe.each(engines)('REQUIRE_GOOGLE_AUTH=1 on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine, { config: { requireGoogleAuth: true } });
  });
  afterAll(() => s.close());

  it('holds users with no Google key to binding first, as the parameter does', async () => {
    const u = await s.makeUser({ perms: ['GET /admin/list'] });
    const signedIn = await s.call(auth.login, { username: u.username, password: u.password });
    expect(signedIn.data.mustBindGoogle).toBe(true);
    expect((await s.call(auth.info, {}, u.token)).data.mustBindGoogle).toBe(true);
    expect((await s.call(endpoints.admin.list, {}, u.token)).errno).toBe(errno.bindGoogleFirst);
    await s.bindGoogle(u.token);
    expect((await s.call(endpoints.admin.list, {}, u.token)).errno).toBe(0);
  });
});

describe.runIf(engines.includes('postgres'))('sign-in tickets under concurrency on postgres', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('postgres');
  });
  afterAll(() => s.close());

  it('gives 20 parallel wrong Google codes on one ticket no more than its 5 tries', async () => {
    const u = await s.makeUser({ perms: [] });
    const secret = await s.bindGoogle(u.token);
    s.clock.advance(30_000);
    const first = await s.call(auth.loginPassword, { username: u.username, password: u.password });
    const ticket = first.data.ticket as string;
    const right = codeAt(secret, s.clock.now());
    const wrong = right === '000000' ? '111111' : '000000';
    // Each guess from its own address, so that the per-address lockout stays out of the count.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.call(auth.loginGoogleCode, { ticket, code: wrong }, undefined, {
          'x-forwarded-for': `10.7.0.${i}`,
        }),
      ),
    );
    expect(answers.filter((r) => r.errno === errno.badCode).length).toBeLessThanOrEqual(5);
    expect(answers.every((r) => r.errno === errno.badCode || r.errno === errno.ticketInvalid)).toBe(true);
    const [row] = await s.db
      .select()
      .from(loginTickets)
      .where(eq(loginTickets.ticketHash, sha256(ticket)));
    expect(row!.attempts).toBe(5);
    const late = await s.call(auth.loginGoogleCode, { ticket, code: right }, undefined, {
      'x-forwarded-for': '10.7.1.1',
    });
    expect(late.errno).toBe(errno.ticketInvalid);
  });

  it('redeems an e-mail sign-in ticket once among 10 parallel right codes', async () => {
    const u = await s.makeUser({ perms: [], email: `par.${Date.now()}@example.com` });
    const first = await s.call(auth.loginPassword, { username: u.username, password: u.password });
    expect(first.data.step).toBe('email');
    const [row] = await s.db.select().from(users).where(eq(users.id, u.id));
    const sent = await s.db.select().from(mailOutbox).where(eq(mailOutbox.to, row!.email));
    const right = /\b(\d{6})\b/.exec(sent.at(-1)!.body!)![1]!;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        s.call(auth.loginEmailCode, { ticket: first.data.ticket, code: right }),
      ),
    );
    expect(answers.filter((r) => r.errno === 0)).toHaveLength(1);
  });
});
