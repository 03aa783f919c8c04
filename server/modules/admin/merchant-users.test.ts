/**
 * The platform managing a merchant's users (OPERATIONS.md section 4): listed per merchant, disabled and
 * enabled, password and Google key reset with the operator's Google code; each change ends the user's
 * sessions where it takes access away, is logged without secrets and is told to the user by e-mail.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { mailOutbox, operationLog, users } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { codeAt } from '../auth/totp.ts';

const { merchantUser, auth, admin } = endpoints;

const mailsTo = (s: TestServer, to: string) =>
  s.db.select().from(mailOutbox).where(eq(mailOutbox.to, to)).orderBy(mailOutbox.id);

describe.each(engines)("a merchant's users managed by the platform on %s", (engine) => {
  let s: TestServer;
  let root: string;
  let operator: Awaited<ReturnType<TestServer['makeKeyHolder']>>;
  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    operator = await s.makeKeyHolder([
      merchantUser.list.permission,
      merchantUser.disable.permission,
      merchantUser.enable.permission,
      merchantUser.resetPassword.permission,
      merchantUser.resetGoogle.permission,
    ]);
  });
  afterAll(() => s.close());

  /** A merchant with its owner and a clerk (with an e-mail address), both signed in. */
  async function merchantWithClerk() {
    const m = await s.makeMerchant();
    const clerk = await s.makeUser({
      kind: 'merchant',
      perms: ['GET /log/list'],
      merchantId: m.id,
      email: `clerk.${m.code.toLowerCase()}@example.com`,
    });
    return { m, clerk, clerkEmail: `clerk.${m.code.toLowerCase()}@example.com` };
  }

  it("lists one merchant's users only, with roles, status, key and last sign-in", async () => {
    const { m, clerk } = await merchantWithClerk();
    const other = await merchantWithClerk();
    const r = await s.call(merchantUser.list, { merchantId: m.id }, operator.token);
    expect(r.errno).toBe(0);
    expect(r.data.total).toBe(2);
    expect(r.data.list.map((u: { username: string }) => u.username)).toEqual([
      m.ownerUsername,
      clerk.username,
    ]);
    expect(r.data.list.every((u: { merchantId: number }) => u.merchantId === m.id)).toBe(true);
    expect(r.data.list[0]).toMatchObject({
      status: 'active',
      googleBound: false,
      roles: [{ name: 'Owner' }],
    });
    expect(r.data.list[1].lastLoginAt).not.toBeNull();
    expect(r.data.list.map((u: { id: number }) => u.id)).not.toContain(other.clerk.id);
    const paged = await s.call(merchantUser.list, { merchantId: m.id, pageSize: 1 }, operator.token);
    const next = await s.call(
      merchantUser.list,
      { merchantId: m.id, pageSize: 1, cursor: paged.data.nextCursor },
      operator.token,
    );
    expect(next.data.list.map((u: { id: number }) => u.id)).toEqual([clerk.id]);
    expect((await s.call(merchantUser.list, { merchantId: 999_999 }, operator.token)).errno).toBe(
      errno.notFound,
    );
    expect((await s.call(merchantUser.list, {}, operator.token)).errno).toBe(errno.invalid);
    const badCursor = { merchantId: m.id, cursor: 'abc' };
    expect((await s.call(merchantUser.list, badCursor, operator.token)).errno).toBe(errno.invalid);
  });

  it('disables a user: its sessions end, its sign-in is refused, it is told; enabling lets it back', async () => {
    const { clerk, clerkEmail } = await merchantWithClerk();
    expect((await s.call(auth.info, {}, clerk.token)).errno).toBe(0);
    const r = await s.call(merchantUser.disable, { id: clerk.id }, operator.token);
    expect(r).toMatchObject({ errno: 0, data: { ok: true, mailed: true } });
    expect((await s.call(auth.info, {}, clerk.token)).errno).toBe(errno.notSignedIn);
    expect((await s.call(auth.login, { username: clerk.username, password: clerk.password })).errno).toBe(
      errno.accountDisabled,
    );
    const [mail] = await mailsTo(s, clerkEmail);
    expect(mail!.subject).toContain('disabled');
    expect(mail!.body).toContain(clerk.username);
    expect((await s.call(merchantUser.enable, { id: clerk.id }, operator.token)).data.mailed).toBe(true);
    expect((await s.call(auth.login, { username: clerk.username, password: clerk.password })).errno).toBe(0);
    expect(await mailsTo(s, clerkEmail)).toHaveLength(2);
  });

  it("keeps a merchant's last owner: disabling it answers 1020", async () => {
    const m = await s.makeMerchant();
    const [owner] = await s.db.select().from(users).where(eq(users.username, m.ownerUsername));
    expect((await s.call(merchantUser.disable, { id: owner!.id }, operator.token)).errno).toBe(
      errno.lastAdministrator,
    );
    expect((await s.login(m.ownerUsername, m.ownerPassword)).length).toBeGreaterThan(0);
  });

  it('resets a password with the operator’s code: the old one stops, sessions end, the e-mail leads to the reset', async () => {
    const { clerk, clerkEmail } = await merchantWithClerk();
    const bare = await s.call(merchantUser.resetPassword, { id: clerk.id }, operator.token);
    expect(bare.errno).toBe(errno.invalid);
    expect(
      (await s.call(merchantUser.resetPassword, { id: clerk.id, code: '000000' }, operator.token)).errno,
    ).toBe(errno.badCode);
    const code = operator.code();
    const r = await s.call(merchantUser.resetPassword, { id: clerk.id, code }, operator.token);
    expect(r).toMatchObject({ errno: 0, data: { ok: true, mailed: true } });
    expect((await s.call(auth.info, {}, clerk.token)).errno).toBe(errno.notSignedIn);
    expect((await s.call(auth.login, { username: clerk.username, password: clerk.password })).errno).toBe(
      errno.badCredentials,
    );
    const [told] = await mailsTo(s, clerkEmail);
    expect(told!.subject).toMatch(/password/i);
    expect(told!.body).toMatch(/Forgot password/);
    // The user sets a new password through the sign-in page's reset, with an e-mail code.
    expect((await s.call(auth.sendEmailCode, { username: clerk.username, purpose: 'reset' })).errno).toBe(0);
    const sent = (await mailsTo(s, clerkEmail)).at(-1)!;
    const emailCode = /\b(\d{6})\b/.exec(sent.body!)![1]!;
    const next = { username: clerk.username, password: 'NewPassw0rd', confirmPassword: 'NewPassw0rd' };
    expect((await s.call(auth.resetPassword, { ...next, code: emailCode })).errno).toBe(0);
    expect((await s.call(auth.login, { username: clerk.username, password: 'NewPassw0rd' })).errno).toBe(0);
    // Logged, with neither the operator's code nor any password written down.
    const trail = await s.db
      .select()
      .from(operationLog)
      .where(
        and(
          eq(operationLog.action, 'merchantUser.resetPassword'),
          eq(operationLog.target, `user:${clerk.id}`),
        ),
      )
      .orderBy(operationLog.id);
    expect(trail.map((row) => row.outcome)).toEqual(['failed', 'ok']);
    expect((trail[1]!.detail as { changes: unknown }).changes).toEqual({
      password: { before: '[redacted]', after: '[redacted]' },
    });
    expect(JSON.stringify(trail)).not.toContain(code);
  });

  it('refuses a password reset for a user without e-mail, before the code is spent', async () => {
    const m = await s.makeMerchant();
    const silent = await s.makeUser({ kind: 'merchant', perms: [], merchantId: m.id });
    const code = operator.code();
    const r = await s.call(merchantUser.resetPassword, { id: silent.id, code }, operator.token, {
      'accept-language': 'zh-CN',
    });
    expect(r.errno).toBe(errno.invalid);
    expect(r.data.fields[0]).toMatchObject({ path: 'id' });
    expect(r.data.fields[0].message).toMatch(/\p{Script=Han}/u);
    expect((await s.call(auth.info, {}, silent.token)).errno).toBe(0);
    // The same code still works for the next action.
    const { clerk } = await merchantWithClerk();
    expect((await s.call(merchantUser.resetPassword, { id: clerk.id, code }, operator.token)).errno).toBe(0);
  });

  it('resets a Google key: unbound, sessions ended, the user told; the next sign-in binds a new one', async () => {
    const { clerk, clerkEmail } = await merchantWithClerk();
    expect(
      (await s.call(merchantUser.resetGoogle, { id: clerk.id, code: operator.code() }, operator.token)).errno,
    ).toBe(errno.googleNotBound);
    const secret = await s.bindGoogle(clerk.token);
    s.clock.advance(30_000); // the binding spent this step's code
    const token = await s.login(clerk.username, clerk.password, codeAt(secret, s.clock.now()));
    const r = await s.call(merchantUser.resetGoogle, { id: clerk.id, code: operator.code() }, operator.token);
    expect(r).toMatchObject({ errno: 0, data: { ok: true, mailed: true } });
    expect((await s.call(auth.info, {}, token)).errno).toBe(errno.notSignedIn);
    const [row] = await s.db.select().from(users).where(eq(users.id, clerk.id));
    expect(row!.totpSecret).toBeNull();
    expect((await s.call(auth.login, { username: clerk.username, password: clerk.password })).errno).toBe(0);
    const mails = await mailsTo(s, clerkEmail);
    expect(mails.at(-1)!.subject).toMatch(/Google/);
    const trail = await s.db
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.action, 'merchantUser.resetGoogle'), eq(operationLog.outcome, 'ok')));
    expect(JSON.stringify(trail)).not.toContain(secret);
  });

  it('is for platform users holding the permission only, and never reaches a platform user', async () => {
    const { m, clerk } = await merchantWithClerk();
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    const merchantStar = await s.makeUser({ kind: 'merchant', perms: ['*'], merchantId: m.id });
    const lister = await s.makeUser({ perms: [merchantUser.list.permission] });
    for (const token of [owner, merchantStar.token]) {
      expect((await s.call(merchantUser.list, { merchantId: m.id }, token)).errno).toBe(errno.forbidden);
      expect((await s.call(merchantUser.disable, { id: clerk.id }, token)).errno).toBe(errno.forbidden);
    }
    expect((await s.call(merchantUser.list, { merchantId: m.id }, lister.token)).errno).toBe(0);
    expect((await s.call(merchantUser.disable, { id: clerk.id }, lister.token)).errno).toBe(errno.forbidden);
    expect(
      (await s.call(merchantUser.resetGoogle, { id: clerk.id, code: '123456' }, lister.token)).errno,
    ).toBe(errno.forbidden);
    // A platform user's id is not a merchant user: 404, and its account is untouched.
    const staff = await s.makeUser({ perms: [] });
    expect((await s.call(merchantUser.disable, { id: staff.id }, root)).errno).toBe(errno.notFound);
    expect((await s.call(auth.info, {}, staff.token)).errno).toBe(0);
    expect((await s.call(merchantUser.disable, { id: 'x' }, root)).errno).toBe(errno.invalid);
    expect((await s.call(merchantUser.disable, { id: clerk.id, extra: 1 }, root)).errno).toBe(errno.invalid);
    // The merchant's own administrators still manage it through /admin (unchanged).
    expect((await s.call(admin.list, {}, owner)).data.total).toBe(3);
  });
});
