import { eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { mailOutbox } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { codeAt } from './totp.ts';

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

  it('resets a forgotten password with an e-mail code from the outbox', async () => {
    const u = await s.makeUser({ perms: [], email: 'reset.me@example.com' });
    const sent = await s.call(auth.sendEmailCode, { username: u.username, purpose: 'reset' });
    expect(sent).toMatchObject({ errno: 0, data: { sentTo: 're***@example.com' } });
    const mail = await lastMailTo(s, 'reset.me@example.com');
    expect(mail).toMatchObject({ transport: 'outbox', status: 'stored' });
    const code = codeIn(mail!.body!);
    const wrong = code === '000000' ? '111111' : '000000';
    const body = { username: u.username, password: 'NewPassw0rd', confirmPassword: 'NewPassw0rd' };
    expect((await s.call(auth.resetPassword, { ...body, code: wrong })).errno).toBe(errno.badCode);
    expect((await s.call(auth.resetPassword, { ...body, code })).errno).toBe(0);
    // Used once; the old session is gone; the new password works and the old one does not.
    expect((await s.call(auth.resetPassword, { ...body, code })).errno).toBe(errno.codeExpired);
    expect((await s.call(auth.info, {}, u.token)).errno).toBe(errno.notSignedIn);
    expect((await s.call(auth.login, { username: u.username, password: u.password })).errno).toBe(
      errno.badCredentials,
    );
    expect((await s.call(auth.login, { username: u.username, password: 'NewPassw0rd' })).errno).toBe(0);
  });

  it('lets an e-mail code expire after 10 minutes and limits one code a minute', async () => {
    const u = await s.makeUser({ perms: [], email: 'slow@example.com' });
    expect((await s.call(auth.sendEmailCode, { username: u.username, purpose: 'reset' })).errno).toBe(0);
    expect((await s.call(auth.sendEmailCode, { username: u.username, purpose: 'reset' })).errno).toBe(
      errno.codeTooSoon,
    );
    const code = codeIn((await lastMailTo(s, 'slow@example.com'))!.body!);
    s.clock.advance(10 * 60_000 + 1000);
    const r = await s.call(auth.resetPassword, {
      username: u.username,
      code,
      password: 'NewPassw0rd',
      confirmPassword: 'NewPassw0rd',
    });
    expect(r.errno).toBe(errno.codeExpired);
  });

  it('tells an account with no e-mail, and an unknown one alike, to contact the administrator', async () => {
    const u = await s.makeUser({ perms: [] });
    const none = await s.call(auth.sendEmailCode, { username: u.username, purpose: 'reset' });
    const unknown = await s.call(auth.sendEmailCode, { username: 'no_such_user', purpose: 'reset' });
    expect(none.errno).toBe(errno.noEmail);
    expect(unknown).toEqual(none);
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
    expect((await s.call(auth.googleBind, { secret, code: '000000' }, u.token)).errno).toBe(errno.badCode);
    expect(
      (await s.call(auth.googleBind, { secret, code: codeAt(secret, s.clock.now()) }, u.token)).errno,
    ).toBe(0);
    expect((await s.call(auth.googleBindInfo, {}, u.token)).data).toEqual({ bound: true });
    expect(
      (await s.call(auth.googleBind, { secret, code: codeAt(secret, s.clock.now()) }, u.token)).errno,
    ).toBe(errno.googleAlreadyBound);
    s.clock.advance(30_000);
    const code = codeAt(secret, s.clock.now());
    expect((await s.call(auth.googleUnbind, { code, password: 'wrong' }, u.token)).errno).toBe(
      errno.badCredentials,
    );
    expect((await s.call(auth.googleUnbind, { code, password: u.password }, u.token)).errno).toBe(0);
    expect((await s.call(auth.googleBindInfo, {}, u.token)).data.bound).toBe(false);
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
