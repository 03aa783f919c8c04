import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { mailOutbox, parameters, users } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { codeAt } from './totp.ts';

const { auth } = endpoints;

describe.each(engines)('sign-in on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterAll(() => s.close());

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

  it('locks a username after 5 failures for 15 minutes, whatever the address', async () => {
    const u = await s.makeUser({ perms: [] });
    for (let i = 0; i < 5; i++) {
      const r = await s.call(auth.login, { username: u.username, password: 'Wrong-1' }, undefined, {
        'x-forwarded-for': `10.9.0.${i}`,
      });
      expect(r.errno).toBe(errno.badCredentials);
    }
    // The right password is refused while locked, from any address.
    const locked = await s.call(auth.login, { username: u.username, password: u.password }, undefined, {
      'x-forwarded-for': '10.9.9.9',
    });
    expect(locked.errno).toBe(errno.accountLocked);
    s.clock.advance(15 * 60_000 + 1000);
    expect((await s.call(auth.login, { username: u.username, password: u.password })).errno).toBe(0);
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

  it('holds users with no Google key to binding first when the platform requires it', async () => {
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
