import { and, eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { inTransaction } from '../../db/index.ts';
import { loginFailures, mailOutbox, operationLog, sessions, users } from '../../db/schema.ts';
import { sha256 } from '../../lib/crypto.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { checkEmailCode } from './emailCode.ts';
import { codeAt, newTotpSecret } from './totp.ts';

const { auth, admin } = endpoints;

async function lastMailTo(s: TestServer, to: string) {
  const rows = await s.db.select().from(mailOutbox).where(eq(mailOutbox.to, to));
  return rows.at(-1);
}
const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;

describe.each(engines)('passwords and the second factor on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterAll(() => s.close());

  /** The sign-in lockout's counts for a name (every address). */
  const signInFailures = (username: string) =>
    s.db.select().from(loginFailures).where(eq(loginFailures.username, username));
  /** Wrong current passwords a session gave so far. */
  const passwordFailuresOf = async (token: string) =>
    (
      await s.db
        .select()
        .from(sessions)
        .where(eq(sessions.tokenHash, sha256(token)))
    )[0]!.passwordFailures;

  it('resets a forgotten password with an e-mail code from the outbox', async () => {
    const u = await s.makeUser({ perms: [], email: 'reset.me@example.com' });
    const sent = await s.call(auth.sendEmailCode, { username: u.username, purpose: 'reset' });
    expect(sent).toMatchObject({ errno: 0, data: { ok: true } });
    const mail = await lastMailTo(s, 'reset.me@example.com');
    expect(mail).toMatchObject({ transport: 'outbox', status: 'stored' });
    const code = codeIn(mail!.body!);
    const wrong = code === '000000' ? '111111' : '000000';
    const body = { username: u.username, password: 'NewPassw0rd', confirmPassword: 'NewPassw0rd' };
    expect((await s.call(auth.resetPassword, { ...body, code: wrong })).errno).toBe(errno.badCode);
    expect((await s.call(auth.resetPassword, { ...body, code })).errno).toBe(0);
    // Used once; the old session is gone; the new password works and the old one does not.
    expect((await s.call(auth.resetPassword, { ...body, code })).errno).toBe(errno.badCode);
    expect((await s.call(auth.info, {}, u.token)).errno).toBe(errno.notSignedIn);
    expect((await s.call(auth.login, { username: u.username, password: u.password })).errno).toBe(
      errno.badCredentials,
    );
    expect((await s.call(auth.login, { username: u.username, password: 'NewPassw0rd' })).errno).toBe(0);
  });

  it('lets an e-mail code expire after 10 minutes', async () => {
    const u = await s.makeUser({ perms: [], email: 'slow@example.com' });
    expect((await s.call(auth.sendEmailCode, { username: u.username, purpose: 'reset' })).errno).toBe(0);
    const code = codeIn((await lastMailTo(s, 'slow@example.com'))!.body!);
    s.clock.advance(10 * 60_000 + 1000);
    const r = await s.call(auth.resetPassword, {
      username: u.username,
      code,
      password: 'NewPassw0rd',
      confirmPassword: 'NewPassw0rd',
    });
    expect(r.errno).toBe(errno.badCode);
  });

  it('sends at most one code a minute: a request within it answers alike, sends nothing, voids nothing', async () => {
    const u = await s.makeUser({ perms: [], email: 'once.a.minute@example.com' });
    const first = await s.call(auth.sendEmailCode, { username: u.username, purpose: 'reset' });
    const code = codeIn((await lastMailTo(s, 'once.a.minute@example.com'))!.body!);
    s.clock.advance(30_000);
    const again = await s.call(auth.sendEmailCode, { username: u.username, purpose: 'reset' });
    expect(again).toEqual(first);
    const mails = () => s.db.select().from(mailOutbox).where(eq(mailOutbox.to, 'once.a.minute@example.com'));
    expect(await mails()).toHaveLength(1);
    // The pending code still works: a stranger's requests cannot void it more than once a minute.
    const body = { username: u.username, password: 'NewPassw0rd', confirmPassword: 'NewPassw0rd' };
    expect((await s.call(auth.resetPassword, { ...body, code })).errno).toBe(0);
    // A minute after the last code, a new one is sent.
    s.clock.advance(31_000);
    expect(await s.call(auth.sendEmailCode, { username: u.username, purpose: 'reset' })).toEqual(first);
    expect(await mails()).toHaveLength(2);
  });

  it('answers sendCode alike for a real account, one without e-mail, a disabled one and an unknown name', async () => {
    const real = await s.makeUser({ perms: [], email: 'real.one@example.com' });
    const none = await s.makeUser({ perms: [] });
    const off = await s.makeUser({ perms: [], email: 'disabled.one@example.com' });
    await s.db.update(users).set({ status: 'disabled' }).where(eq(users.id, off.id));
    const send = (username: string) => s.call(auth.sendEmailCode, { username, purpose: 'reset' });
    const answer = await send(real.username);
    expect(answer).toMatchObject({ errno: 0, data: { ok: true } });
    // No masked address before the code is proved: it would tell that the account exists.
    expect(JSON.stringify(answer)).not.toContain('example.com');
    for (const username of [none.username, off.username, 'no_such_user']) {
      expect(await send(username)).toEqual(answer);
    }
    expect(await lastMailTo(s, 'real.one@example.com')).toBeTruthy();
    expect(await lastMailTo(s, 'disabled.one@example.com')).toBeUndefined();
  });

  it('answers a reset alike for an unknown name, an account without e-mail, a disabled one and a wrong code', async () => {
    const real = await s.makeUser({ perms: [], email: 'real.two@example.com' });
    const none = await s.makeUser({ perms: [] });
    const off = await s.makeUser({ perms: [], email: 'disabled.two@example.com' });
    await s.call(auth.sendEmailCode, { username: real.username, purpose: 'reset' });
    await s.call(auth.sendEmailCode, { username: off.username, purpose: 'reset' });
    const realCode = codeIn((await lastMailTo(s, 'real.two@example.com'))!.body!);
    const offCode = codeIn((await lastMailTo(s, 'disabled.two@example.com'))!.body!);
    // A code sent before the account was disabled does not reset it afterwards.
    await s.db.update(users).set({ status: 'disabled' }).where(eq(users.id, off.id));
    const reset = (username: string, code: string) =>
      s.call(auth.resetPassword, { username, code, password: 'NewPassw0rd', confirmPassword: 'NewPassw0rd' });
    const wrong = await reset(real.username, realCode === '000000' ? '111111' : '000000');
    expect(wrong.errno).toBe(errno.badCode);
    expect(await reset(none.username, '123456')).toEqual(wrong);
    expect(await reset('no_such_user_2', '123456')).toEqual(wrong);
    expect(await reset(off.username, offCode)).toEqual(wrong);
    await s.db.update(users).set({ status: 'active' }).where(eq(users.id, off.id));
    expect((await s.call(auth.login, { username: off.username, password: off.password })).errno).toBe(0);
  });

  it('checks the password rules and "password inconsistency" in both languages', async () => {
    const u = await s.makeUser({ perms: [] });
    const weak = await s.call(
      auth.changePassword,
      { oldPassword: u.password, newPassword: 'short1A', confirmPassword: 'short1A' },
      u.token,
    );
    expect(weak.errno).toBe(errno.invalid);
    expect(weak.data.fields[0]).toMatchObject({ path: 'newPassword' });
    const mismatch = await s.call(
      auth.changePassword,
      { oldPassword: u.password, newPassword: 'Abcdefgh12', confirmPassword: 'Abcdefgh13' },
      u.token,
      { 'accept-language': 'zh-CN,zh;q=0.9' },
    );
    expect(mismatch.errno).toBe(errno.invalid);
    expect(mismatch.data.fields[0]).toMatchObject({
      path: 'confirmPassword',
      message: '两次输入的密码不一致',
    });
    const en = await s.call(
      auth.changePassword,
      { oldPassword: u.password, newPassword: 'Abcdefgh12', confirmPassword: 'x' },
      u.token,
    );
    expect(en.errmsg).toMatch(/Password inconsistency/);
  });

  it('changes the own password: wrong old one refused, other sessions ended, this one kept', async () => {
    const u = await s.makeUser({ perms: [] });
    const other = await s.login(u.username, u.password);
    const body = { newPassword: 'Changed123x', confirmPassword: 'Changed123x' };
    expect((await s.call(auth.changePassword, { oldPassword: 'Wrong', ...body }, u.token)).errno).toBe(
      errno.wrongOldPassword,
    );
    expect((await s.call(auth.changePassword, { oldPassword: u.password, ...body }, u.token)).errno).toBe(0);
    expect((await s.call(auth.info, {}, u.token)).errno).toBe(0);
    expect((await s.call(auth.info, {}, other)).errno).toBe(errno.notSignedIn);
    expect((await s.call(auth.login, { username: u.username, password: 'Changed123x' })).errno).toBe(0);
  });

  it('binds with a QR, refuses a second binding, unbinds with password and code', async () => {
    const u = await s.makeUser({ perms: [] });
    const info = await s.call(auth.googleBindInfo, {}, u.token);
    expect(info.data).toMatchObject({ bound: false });
    expect(info.data.qr).toMatch(/^data:image\/png;base64,/);
    expect(info.data.otpauthUrl).toContain(info.data.secret);
    const secret = info.data.secret as string;
    const password = u.password;
    expect((await s.call(auth.googleBind, { secret, code: '000000', password }, u.token)).errno).toBe(
      errno.badCode,
    );
    expect(
      (await s.call(auth.googleBind, { secret, code: codeAt(secret, s.clock.now()), password }, u.token))
        .errno,
    ).toBe(0);
    expect((await s.call(auth.googleBindInfo, {}, u.token)).data).toEqual({ bound: true });
    expect(
      (await s.call(auth.googleBind, { secret, code: codeAt(secret, s.clock.now()), password }, u.token))
        .errno,
    ).toBe(errno.googleAlreadyBound);
    s.clock.advance(30_000);
    const code = codeAt(secret, s.clock.now());
    expect((await s.call(auth.googleUnbind, { code, password: 'wrong' }, u.token)).errno).toBe(
      errno.badCredentials,
    );
    expect((await s.call(auth.googleUnbind, { code, password: u.password }, u.token)).errno).toBe(0);
    expect((await s.call(auth.googleBindInfo, {}, u.token)).data.bound).toBe(false);
  });

  it('binds a first key only with the current password, a wrong one counting against the session', async () => {
    const u = await s.makeUser({ perms: [] });
    const secret = (await s.call(auth.googleBindInfo, {}, u.token)).data.secret as string;
    const code = codeAt(secret, s.clock.now());
    const missing = await s.call(auth.googleBind, { secret, code }, u.token);
    expect(missing.errno).toBe(errno.invalid);
    expect(missing.data.fields[0]).toMatchObject({ path: 'password' });
    expect((await s.call(auth.googleBind, { secret, code, password: 'Not-it-1' }, u.token)).errno).toBe(
      errno.badCredentials,
    );
    expect(await signInFailures(u.username)).toEqual([]);
    expect(await passwordFailuresOf(u.token)).toBe(1);
    expect((await s.call(auth.googleBind, { secret, code, password: u.password }, u.token)).errno).toBe(0);
    // Nor does a session bind a key over a name locked for its address.
    const v = await s.makeUser({ perms: [] });
    for (let i = 0; i < 5; i++) await s.call(auth.login, { username: v.username, password: 'Wrong-1' });
    const vSecret = (await s.call(auth.googleBindInfo, {}, v.token)).data.secret as string;
    const locked = await s.call(
      auth.googleBind,
      { secret: vSecret, code: codeAt(vSecret, s.clock.now()), password: v.password },
      v.token,
    );
    expect(locked.errno).toBe(errno.accountLocked);
  });

  it('changes the own e-mail only with the current password; other profile fields need none', async () => {
    const u = await s.makeUser({ perms: [], email: 'before@example.com' });
    const email = 'after@example.com';
    const missing = await s.call(auth.updateProfile, { email }, u.token);
    expect(missing.errno).toBe(errno.invalid);
    expect(missing.data.fields[0]).toMatchObject({ path: 'password' });
    expect((await s.call(auth.updateProfile, { email, password: 'Not-it-1' }, u.token)).errno).toBe(
      errno.badCredentials,
    );
    expect(await signInFailures(u.username)).toEqual([]);
    expect(await passwordFailuresOf(u.token)).toBe(1);
    const [unchanged] = await s.db.select().from(users).where(eq(users.id, u.id));
    expect(unchanged!.email).toBe('before@example.com');
    expect((await s.call(auth.updateProfile, { email, password: u.password }, u.token)).errno).toBe(0);
    // The nickname, and the e-mail it already has, need no password.
    expect((await s.call(auth.updateProfile, { nickname: 'Renamed', email }, u.token)).errno).toBe(0);
    const [row] = await s.db.select().from(users).where(eq(users.id, u.id));
    expect(row).toMatchObject({ email, nickname: 'Renamed' });
  });

  it('refuses control characters in the name and the introduction, in both languages, and changes nothing', async () => {
    const u = await s.makeUser({ perms: [] });
    for (const input of [{ nickname: 'Ravi\u0007' }, { introduction: 'Line one\nline\u0000two' }]) {
      const refused = await s.call(auth.updateProfile, input, u.token);
      expect(refused.errno).toBe(errno.invalid);
      expect(refused.data.fields[0].message).toBe('Control characters are not allowed here');
      const zh = await s.call(auth.updateProfile, input, u.token, { 'accept-language': 'zh-CN' });
      expect(zh.data.fields[0].message).toBe('此处不允许使用控制字符');
    }
    const [row] = await s.db.select().from(users).where(eq(users.id, u.id));
    expect(row!.nickname).not.toContain('\u0007');
    expect(row!.introduction).toBe('');
    // Line breaks stay allowed in the introduction.
    expect((await s.call(auth.updateProfile, { introduction: 'Line one\nline two' }, u.token)).errno).toBe(0);
  });

  // Issue 29: a wrong current password given from a session counts against that session, never towards
  // the sign-in lockout; the fifth ends the session (docs/SECURITY.md, sessionPassword.ts).
  it('never lets wrong current passwords from a session lock sign-in: the fifth ends that session alone, and nothing changes', async () => {
    const u = await s.makeUser({ perms: [], email: 'owner.before@example.com' });
    const other = await s.login(u.username, u.password);
    const [before] = await s.db.select().from(users).where(eq(users.id, u.id));
    const guess = (token: string, i: number) =>
      s.call(auth.updateProfile, { email: 'thief@example.com', password: `Guess-${i}-x` }, token);
    for (let i = 1; i <= 4; i++) expect((await guess(u.token, i)).errno).toBe(errno.badCredentials);
    expect((await s.call(auth.info, {}, u.token)).errno).toBe(errno.ok);
    expect(await signInFailures(u.username)).toEqual([]);
    // The fifth ends the session: answered as any ended session, and so is everything after it.
    expect((await guess(u.token, 5)).errno).toBe(errno.notSignedIn);
    expect((await s.call(auth.info, {}, u.token)).errno).toBe(errno.notSignedIn);
    expect((await guess(u.token, 6)).errno).toBe(errno.notSignedIn);
    // The user's other session goes on.
    expect((await s.call(auth.info, {}, other)).errno).toBe(errno.ok);
    // A new session gets five more and ends alike: ten wrong passwords from one address, no lock.
    const again = await s.login(u.username, u.password);
    for (let i = 7; i <= 10; i++) expect((await guess(again, i)).errno).toBe(errno.badCredentials);
    expect((await guess(again, 11)).errno).toBe(errno.notSignedIn);
    expect(await signInFailures(u.username)).toEqual([]);
    // Nothing else changed: the e-mail address, the password (the user signs in with it).
    const [after] = await s.db.select().from(users).where(eq(users.id, u.id));
    expect(after).toMatchObject({ email: before!.email, passwordHash: before!.passwordHash });
    expect((await s.call(auth.login, { username: u.username, password: u.password })).errno).toBe(errno.ok);
    // The operation log: each wrong one counted, and the fifth's entry says the session ended.
    const entries = await s.db
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.action, 'auth.updateProfile'), eq(operationLog.userId, u.id)))
      .orderBy(operationLog.id);
    expect(entries.map((e) => e.errno)).toEqual([
      ...[1, 2, 3, 4].map(() => errno.badCredentials),
      errno.notSignedIn,
      ...[1, 2, 3, 4].map(() => errno.badCredentials),
      errno.notSignedIn,
    ]);
    expect(entries.every((e) => e.outcome === 'failed')).toBe(true);
    expect(entries[3]!.detail).toEqual({ passwordFailures: 4 });
    expect(entries[4]!.detail).toEqual({ passwordFailures: 5, sessionEnded: 'wrongPasswords' });
  });

  it.each([
    ['auth.changePassword', errno.wrongOldPassword],
    ['auth.googleBind', errno.badCredentials],
    ['auth.googleUnbind', errno.badCredentials],
  ] as const)(
    'gives %s the same rule: a wrong current password counts against the session, the fifth ends it',
    async (id, wrongErrno) => {
      const u = await s.makeUser({ perms: [] });
      const secret = id === 'auth.googleUnbind' ? await s.bindGoogle(u.token) : newTotpSecret();
      s.clock.advance(30_000);
      const [before] = await s.db.select().from(users).where(eq(users.id, u.id));
      const wrong = (i: number) => {
        const password = `Guess-${i}-x`;
        const code = codeAt(secret, s.clock.now());
        if (id === 'auth.changePassword') {
          const body = { oldPassword: password, newPassword: 'Changed123x', confirmPassword: 'Changed123x' };
          return s.call(auth.changePassword, body, u.token);
        }
        if (id === 'auth.googleBind') return s.call(auth.googleBind, { secret, code, password }, u.token);
        return s.call(auth.googleUnbind, { code, password }, u.token);
      };
      for (let i = 1; i <= 4; i++) expect((await wrong(i)).errno).toBe(wrongErrno);
      expect((await wrong(5)).errno).toBe(errno.notSignedIn);
      expect((await s.call(auth.info, {}, u.token)).errno).toBe(errno.notSignedIn);
      // Nothing changed (password, key, its last step), and signing in is not locked.
      const [after] = await s.db.select().from(users).where(eq(users.id, u.id));
      expect(after).toEqual(before);
      expect(await signInFailures(u.username)).toEqual([]);
      const signIn = await s.call(auth.loginPassword, { username: u.username, password: u.password });
      expect(signIn.errno).toBe(id === 'auth.googleUnbind' ? errno.secondStepNeeded : errno.ok);
    },
  );

  it("counts a session's wrong passwords over its life: a right one in between takes nothing back", async () => {
    const u = await s.makeUser({ perms: [], email: 'life.before@example.com' });
    const change = { newPassword: 'Changed123x', confirmPassword: 'Changed123x' };
    for (let i = 1; i <= 2; i++) {
      const wrongOld = await s.call(auth.changePassword, { oldPassword: `Guess-${i}-x`, ...change }, u.token);
      expect(wrongOld.errno).toBe(errno.wrongOldPassword);
      const wrongEmail = await s.call(
        auth.updateProfile,
        { email: 'life.thief@example.com', password: `Guess-${i}-y` },
        u.token,
      );
      expect(wrongEmail.errno).toBe(errno.badCredentials);
    }
    // The right password before the fifth does what it was given for, and only that.
    const right = await s.call(
      auth.updateProfile,
      { email: 'life.after@example.com', password: u.password },
      u.token,
    );
    expect(right.errno).toBe(errno.ok);
    expect(await passwordFailuresOf(u.token)).toBe(4);
    const [before] = await s.db.select().from(users).where(eq(users.id, u.id));
    expect(before!.email).toBe('life.after@example.com');
    // The fifth wrong one still ends the session; the password stays as it was.
    const fifth = await s.call(auth.changePassword, { oldPassword: 'Guess-5-x', ...change }, u.token);
    expect(fifth.errno).toBe(errno.notSignedIn);
    const [after] = await s.db.select().from(users).where(eq(users.id, u.id));
    expect(after).toEqual(before);
    expect((await s.call(auth.login, { username: u.username, password: u.password })).errno).toBe(errno.ok);
  });

  it("lets an administrator reset another user's key (rebind), ending that user's sessions", async () => {
    const adminToken = await s.adminToken();
    const u = await s.makeUser({ perms: [] });
    await s.bindGoogle(u.token);
    expect((await s.call(admin.resetGoogle, { id: u.id }, adminToken)).errno).toBe(0);
    expect((await s.call(auth.info, {}, u.token)).errno).toBe(errno.notSignedIn);
    const fresh = await s.login(u.username, u.password);
    expect((await s.call(auth.googleBindInfo, {}, fresh)).data.bound).toBe(false);
    expect((await s.call(admin.resetGoogle, { id: u.id }, adminToken)).errno).toBe(errno.googleNotBound);
  });
});

describe.each(engines)('mail through a real SMTP server on %s', (engine) => {
  const received: { to: string; text: string }[] = [];
  let smtp: SMTPServer;
  let s: TestServer;
  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (chunk: Buffer) => {
          raw += chunk.toString('utf8');
        });
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), text: raw });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as { port: number }).port;
    s = await startTestServer(engine, { smtpUrl: `smtp://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await s.close();
    await new Promise<void>((resolve) => smtp.close(resolve));
  });

  it('delivers the reset code by SMTP and keeps no copy of the body', async () => {
    const u = await s.makeUser({ perms: [], email: 'smtp.user@example.com' });
    expect((await s.call(auth.sendEmailCode, { username: u.username, purpose: 'reset' })).errno).toBe(0);
    for (let i = 0; i < 100 && !received.length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(received[0]?.to).toBe('smtp.user@example.com');
    const code = codeIn(received[0]!.text.replace(/=\r?\n/g, ''));
    let row = await lastMailTo(s, 'smtp.user@example.com');
    for (let i = 0; i < 50 && !row; i++) {
      await new Promise((r) => setTimeout(r, 50));
      row = await lastMailTo(s, 'smtp.user@example.com');
    }
    expect(row!).toMatchObject({ transport: 'smtp', status: 'sent', body: null });
    const r = await s.call(auth.resetPassword, {
      username: u.username,
      code,
      password: 'ViaSmtp123',
      confirmPassword: 'ViaSmtp123',
    });
    expect(r.errno).toBe(0);
  });
});

describe.runIf(engines.includes('postgres'))('e-mail codes under concurrency on postgres', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('postgres');
  });
  afterAll(() => s.close());

  it('gives 20 parallel wrong guesses no more than the 5 tries; the right code is refused after', async () => {
    const u = await s.makeUser({ perms: [], email: 'guessed@example.com' });
    await s.call(auth.sendEmailCode, { username: u.username, purpose: 'reset' });
    const code = codeIn((await lastMailTo(s, 'guessed@example.com'))!.body!);
    const wrong = code === '000000' ? '111111' : '000000';
    const guesses = await Promise.all(
      Array.from({ length: 20 }, () =>
        inTransaction(s.db, (tx) => checkEmailCode(s.deps, tx, u.id, 'reset', wrong)),
      ),
    );
    expect(guesses.filter((r) => r === errno.badCode).length).toBeLessThanOrEqual(5);
    expect(await inTransaction(s.db, (tx) => checkEmailCode(s.deps, tx, u.id, 'reset', code))).toBe(
      errno.codeExpired,
    );
  });

  it('gives 12 parallel wrong current passwords from one session no more than its 5 tries', async () => {
    const u = await s.makeUser({ perms: [] });
    const change = { newPassword: 'Changed123x', confirmPassword: 'Changed123x' };
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.call(auth.changePassword, { oldPassword: `Guess-${i}-x`, ...change }, u.token),
      ),
    );
    // Four are told the password is wrong; the fifth ended the session, and every other found it ended.
    expect(answers.filter((a) => a.errno === errno.wrongOldPassword)).toHaveLength(4);
    expect(answers.filter((a) => a.errno === errno.notSignedIn)).toHaveLength(8);
    expect((await s.call(auth.login, { username: u.username, password: u.password })).errno).toBe(errno.ok);
  });

  it('redeems a right reset code once among 10 parallel requests', async () => {
    const u = await s.makeUser({ perms: [], email: 'raced@example.com' });
    await s.call(auth.sendEmailCode, { username: u.username, purpose: 'reset' });
    const code = codeIn((await lastMailTo(s, 'raced@example.com'))!.body!);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        s.call(auth.resetPassword, {
          username: u.username,
          code,
          password: `Raced-Pw-${i}x`,
          confirmPassword: `Raced-Pw-${i}x`,
        }),
      ),
    );
    expect(answers.filter((r) => r.errno === 0)).toHaveLength(1);
    expect(answers.filter((r) => r.errno !== 0).every((r) => r.errno === errno.badCode)).toBe(true);
  });
});
