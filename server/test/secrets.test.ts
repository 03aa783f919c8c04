/**
 * P23: security operations leave an append-only, secret-free trail. A scenario of sign-ins (all flows,
 * right and wrong), Google binding, password changes and resets, and administrator edits runs once;
 * then the operation log and the captured structured log are searched for every secret it used.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { desc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Endpoint, endpoints } from '../../contract/index.ts';
import { sqlState } from '../db/index.ts';
import { mailOutbox, operationLog } from '../db/schema.ts';
import { codeAt } from '../modules/auth/totp.ts';
import { adminPassword, engines, errno, startTestServer, type TestServer } from './harness.ts';

interface Made {
  requestId: string;
  ep: Endpoint;
  errno: number;
  /** The server's clock when the call was made (it only moves when the test moves it). */
  at: number;
  /** The username a sign-in attempt was for. */
  attempt?: string;
}

const signIns = new Set([
  'auth.login',
  'auth.loginPassword',
  'auth.loginGoogleCode',
  'auth.loginEmailCode',
  'auth.resetPassword',
]);

describe.each(engines)('secrets and the operation log on %s', (engine) => {
  let s: TestServer;
  const sink: string[] = [];
  const secrets = new Map<string, string>();
  const made: Made[] = [];
  /** Who a two-step ticket belongs to: the second step names no user. */
  const ticketOwner = new Map<string, string>();
  const keep = (what: string, value: unknown) => {
    expect(typeof value === 'string' && value.length >= 6, what).toBe(true);
    secrets.set(value as string, what);
    return value as string;
  };
  const step = () => s.clock.advance(31_000);

  async function call(ep: Endpoint, input: Record<string, unknown>, token?: string) {
    const requestId = randomUUID();
    const res = await s.call(ep, input, token, { 'x-request-id': requestId });
    const attempt = (input.username ?? ticketOwner.get(String(input.ticket))) as string | undefined;
    made.push({
      requestId,
      ep,
      errno: res.errno,
      at: s.clock.now().getTime(),
      ...(signIns.has(ep.id) ? { attempt } : {}),
    });
    if (typeof res.data?.ticket === 'string') ticketOwner.set(res.data.ticket, String(input.username));
    return res;
  }
  const ok = async (ep: Endpoint, input: Record<string, unknown>, token?: string) => {
    const res = await call(ep, input, token);
    expect(res.errno, `${ep.id}: ${res.errmsg}`).toBe(errno.ok);
    return res.data;
  };
  const refused = async (code: number, ep: Endpoint, input: Record<string, unknown>, token?: string) => {
    const res = await call(ep, input, token);
    expect(res.errno, `${ep.id}: ${res.errmsg}`).toBe(code);
    return res.data;
  };
  const lastMailCode = async (to: string) => {
    const [mail] = await s.db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.to, to))
      .orderBy(desc(mailOutbox.id))
      .limit(1);
    const code = mail?.body?.match(/\b(\d{6})\b/)?.[1];
    expect(code, 'a code in the outbox').toBeDefined();
    return code!;
  };
  /** A six-digit code that is not `right` (nor a neighbouring TOTP step's code). */
  const wrongCode = (...right: string[]) => {
    for (;;) {
      const c = String(randomInt(100_000, 1_000_000));
      if (!right.includes(c)) return c;
    }
  };
  const totpWrong = (secret: string) =>
    wrongCode(...[-30_000, 0, 30_000].map((d) => codeAt(secret, new Date(s.clock.now().getTime() + d))));

  beforeAll(async () => {
    s = await startTestServer(engine, { logSink: sink });
    const alice = { username: 'alice_secret', email: 'alice@example.com' };

    // Platform administrator: right and wrong passwords, and an unknown user.
    keep('admin password', adminPassword);
    const admin = keep(
      'admin token',
      (await ok(endpoints.auth.login, { username: 'admin', password: adminPassword })).token,
    );
    await refused(errno.badCredentials, endpoints.auth.login, {
      username: 'admin',
      password: keep('wrong', 'Wr0ng-Passw0rd!'),
    });
    await refused(errno.badCredentials, endpoints.auth.login, {
      username: 'nobody',
      password: keep('wrong', 'N0body-S3cret!'),
    });

    // The administrator creates a user with a password, then renames it and sets another password.
    const { id } = await ok(
      endpoints.admin.create,
      { ...alice, nickname: 'Alice', password: keep('initial password', 'Al1ce-Initial-Pw') },
      admin,
    );
    await ok(
      endpoints.admin.update,
      { id, nickname: 'Alice B', password: keep('reset password', 'Al1ce-Reset-Pw') },
      admin,
    );
    let password = 'Al1ce-Reset-Pw';

    // A merchant: its owner's password, and the API and webhook signing secrets, answered once at
    // creation and at every reset (by the platform and by the owner).
    const shop = await ok(
      endpoints.merchant.create,
      {
        name: 'Secret Shop',
        owner: {
          username: 'shop_owner',
          password: keep('owner password', 'Sh0p-Owner-Pw'),
          email: 'shop@example.com',
        },
      },
      admin,
    );
    keep('API secret', shop.apiSecret);
    keep('webhook secret', shop.webhookSecret);
    // A reset takes the acting user's Google code (bound through the harness, outside the calls logged here).
    const adminKey = keep('TOTP secret', await s.bindGoogle(admin, adminPassword));
    step();
    const reset1 = await ok(
      endpoints.merchant.resetSecret,
      { id: shop.id, code: keep('TOTP code', codeAt(adminKey, s.clock.now())) },
      admin,
    );
    keep('API secret', reset1.apiSecret);
    keep('webhook secret', reset1.webhookSecret);
    const owner = keep(
      'owner token',
      (await ok(endpoints.auth.login, { username: 'shop_owner', password: 'Sh0p-Owner-Pw' })).token,
    );
    const ownerKey = keep('TOTP secret', await s.bindGoogle(owner, 'Sh0p-Owner-Pw'));
    step();
    keep(
      'API secret',
      (
        await ok(
          endpoints.merchant.resetSecret,
          { which: 'api', code: keep('TOTP code', codeAt(ownerKey, s.clock.now())) },
          owner,
        )
      ).apiSecret,
    );

    // Two-step sign-in by e-mail code: a wrong code, then the right one.
    const first = await refused(errno.secondStepNeeded, endpoints.auth.loginPassword, {
      username: alice.username,
      password,
    });
    expect(first.step).toBe('email');
    const ticket = keep('email ticket', first.ticket);
    const mailCode = keep('e-mail code', await lastMailCode(alice.email));
    await refused(errno.badCode, endpoints.auth.loginEmailCode, {
      ticket,
      code: keep('wrong e-mail code', wrongCode(mailCode)),
    });
    const token = keep('token', (await ok(endpoints.auth.loginEmailCode, { ticket, code: mailCode })).token);

    // Google Authenticator: the key the server offers, bound with a code.
    const info = await call(endpoints.auth.googleBindInfo, {}, token);
    const secret = keep('TOTP secret', info.data.secret);
    keep('otpauth URL', info.data.otpauthUrl);
    await ok(
      endpoints.auth.googleBind,
      { secret, code: keep('TOTP code', codeAt(secret, s.clock.now())), password },
      token,
    );

    // One-step sign-in: wrong code, right code.
    step();
    await refused(errno.badCode, endpoints.auth.login, {
      username: alice.username,
      password,
      code: keep('wrong TOTP', totpWrong(secret)),
    });
    step();
    const code1 = keep('TOTP code', codeAt(secret, s.clock.now()));
    keep(
      'token',
      (await ok(endpoints.auth.login, { username: alice.username, password, code: code1 })).token,
    );

    // Two-step with Google, remembering the device; then the device token skips the second step.
    step();
    const second = await refused(errno.secondStepNeeded, endpoints.auth.loginPassword, {
      username: alice.username,
      password,
    });
    expect(second.step).toBe('google');
    const gTicket = keep('google ticket', second.ticket);
    await refused(errno.badCode, endpoints.auth.loginGoogleCode, {
      ticket: gTicket,
      code: keep('wrong TOTP', totpWrong(secret)),
    });
    const remembered = await ok(endpoints.auth.loginGoogleCode, {
      ticket: gTicket,
      code: keep('TOTP code', codeAt(secret, s.clock.now())),
      remember: true,
    });
    keep('token', remembered.token);
    const deviceToken = keep('device token', remembered.deviceToken);
    const viaDevice = keep(
      'token',
      (await ok(endpoints.auth.loginPassword, { username: alice.username, password, deviceToken })).token,
    );
    // A token in the query string (auth.info accepts one) must not reach the request log either.
    expect((await s.request('GET', `/api/auth/info?token=${viaDevice}`)).json.errno).toBe(errno.ok);

    // Own password: wrong old one, then a change.
    await refused(
      errno.wrongOldPassword,
      endpoints.auth.changePassword,
      {
        oldPassword: keep('wrong old password', 'N0t-The-0ld-One'),
        newPassword: 'Al1ce-Changed-Pw2',
        confirmPassword: 'Al1ce-Changed-Pw2',
      },
      viaDevice,
    );
    const changed = keep('changed password', 'Al1ce-Changed-Pw2');
    await ok(
      endpoints.auth.changePassword,
      { oldPassword: password, newPassword: changed, confirmPassword: changed },
      viaDevice,
    );
    password = changed;

    // Forgotten password: an e-mail code (a GET that writes), a wrong code, the right one.
    const sent = await call(endpoints.auth.sendEmailCode, { username: alice.username, purpose: 'reset' });
    expect(sent.errno).toBe(errno.ok);
    const resetCode = keep('reset code', await lastMailCode(alice.email));
    const resetTo = keep('password after reset', 'Al1ce-Reset-Pw3');
    const reset = { username: alice.username, password: resetTo, confirmPassword: resetTo };
    await refused(errno.badCode, endpoints.auth.resetPassword, {
      ...reset,
      code: keep('wrong reset code', wrongCode(resetCode)),
    });
    await ok(endpoints.auth.resetPassword, { ...reset, code: resetCode });
    password = resetTo;

    // Signed in again: profile change, Google unbind (password + code), sign-out.
    step();
    const last = keep(
      'token',
      (
        await ok(endpoints.auth.login, {
          username: alice.username,
          password,
          code: keep('TOTP code', codeAt(secret, s.clock.now())),
        })
      ).token,
    );
    await ok(endpoints.auth.updateProfile, { nickname: 'Alice C', introduction: 'hello' }, last);
    step();
    await ok(
      endpoints.auth.googleUnbind,
      { password, code: keep('TOTP code', codeAt(secret, s.clock.now())) },
      last,
    );
    await ok(endpoints.auth.logout, {}, last);
  });
  afterAll(() => s.close());

  /** Where a secret occurs in `text`; six-digit codes only as a whole number, not inside a longer run. */
  function leaks(text: string): string[] {
    const found: string[] = [];
    for (const [value, what] of secrets) {
      const hit = /^\d{6}$/.test(value)
        ? new RegExp(`(?<![0-9A-Za-z])${value}(?![0-9A-Za-z])`).test(text)
        : text.includes(value);
      if (hit) found.push(`${what} (${value})`);
    }
    return found;
  }

  it('keeps every password, TOTP secret and code, token, ticket and e-mail code out of the operation log', async () => {
    const rows = await s.db.select().from(operationLog);
    expect(rows.length).toBeGreaterThanOrEqual(made.filter((m) => m.ep.method === 'POST').length);
    expect(secrets.size).toBeGreaterThan(20);
    expect(leaks(JSON.stringify(rows))).toEqual([]);
  });

  it('keeps them out of the structured log, which did record the requests', () => {
    const text = sink.join('\n');
    expect(sink.filter((line) => line.includes('/api/auth/login')).length).toBeGreaterThanOrEqual(5);
    expect(text).toContain('/api/auth/info');
    expect(leaks(text)).toEqual([]);
  });

  it('wrote one row for every sign-in attempt and every POST, with who, outcome and errno', async () => {
    const rows = await s.db.select().from(operationLog);
    const posts = made.filter((m) => m.ep.method === 'POST');
    expect(posts.filter((m) => m.errno !== errno.ok).length).toBeGreaterThan(5);
    for (const m of posts) {
      const mine = rows.filter((r) => r.requestId === m.requestId);
      expect(mine.length, m.ep.id).toBe(1);
      const row = mine[0]!;
      expect(row, m.ep.id).toMatchObject({
        action: m.ep.id,
        // Asking for the second step (1002) is a password step that went well.
        outcome: m.errno === errno.ok || m.errno === errno.secondStepNeeded ? 'ok' : 'failed',
        errno: m.errno,
        ip: '10.0.0.1',
      });
      expect(row.at.getTime(), `${m.ep.id}: when`).toBe(m.at);
      if (signIns.has(m.ep.id)) {
        expect(m.attempt, m.ep.id).toBeDefined();
        expect(row.username, `${m.ep.id} names who tried`).toBe(m.attempt);
      } else {
        expect(row.userId, `${m.ep.id} names who did it`).not.toBeNull();
        expect(['admin', 'alice_secret', 'shop_owner']).toContain(row.username);
      }
    }
  });

  it('records the factor of every successful sign-in', async () => {
    const factors = [];
    for (const m of made.filter(
      (x) => signIns.has(x.ep.id) && x.ep.id !== 'auth.resetPassword' && x.errno === errno.ok,
    )) {
      const [row] = await s.db.select().from(operationLog).where(eq(operationLog.requestId, m.requestId));
      factors.push([m.attempt, (row!.detail as { factor?: string } | null)?.factor]);
    }
    expect(factors).toEqual([
      ['admin', 'password'],
      ['shop_owner', 'password'],
      ['alice_secret', 'email'],
      ['alice_secret', 'google'],
      ['alice_secret', 'google'],
      ['alice_secret', 'device'],
      ['alice_secret', 'google'],
    ]);
  });

  it('records before and after of the fields a write changed, secrets only as [redacted]', async () => {
    const changesOf = async (id: string) => {
      const m = made.filter((x) => x.ep.id === id && x.errno === errno.ok);
      expect(m.length, id).toBeGreaterThan(0);
      const [row] = await s.db.select().from(operationLog).where(eq(operationLog.requestId, m[0]!.requestId));
      return {
        target: row!.target,
        changes: (row!.detail as { changes?: Record<string, unknown> } | null)?.changes,
      };
    };
    const redacted = { before: '[redacted]', after: '[redacted]' };
    const created = await changesOf('admin.create');
    expect(created.target).toMatch(/^user:\d+$/);
    expect(created.changes).toMatchObject({
      username: { before: null, after: 'alice_secret' },
      nickname: { before: null, after: 'Alice' },
      email: { before: null, after: 'alice@example.com' },
    });
    const updated = await changesOf('admin.update');
    expect(updated.target).toBe(created.target);
    expect(updated.changes).toEqual({ nickname: { before: 'Alice', after: 'Alice B' }, password: redacted });
    expect((await changesOf('auth.changePassword')).changes).toEqual({ password: redacted });
    expect((await changesOf('auth.resetPassword')).changes).toEqual({ password: redacted });
    expect((await changesOf('auth.googleBind')).changes).toEqual({
      googleBound: { before: false, after: true },
    });
    expect((await changesOf('auth.googleUnbind')).changes).toEqual({
      googleBound: { before: true, after: false },
    });
    expect((await changesOf('auth.updateProfile')).changes).toEqual({
      nickname: { before: 'Alice B', after: 'Alice C' },
      introduction: { before: '', after: 'hello' },
    });
  });

  it('refuses UPDATE, DELETE and TRUNCATE on the operation log, even from the server itself', async () => {
    const snapshot = async () =>
      JSON.stringify(await s.db.select().from(operationLog).orderBy(operationLog.id));
    const before = await snapshot();
    for (const statement of [
      sql`update operation_log set username = 'tampered'`,
      sql`update operation_log set detail = null where id = (select min(id) from operation_log)`,
      sql`delete from operation_log where id = (select max(id) from operation_log)`,
      sql`delete from operation_log`,
      sql`truncate operation_log`,
    ]) {
      let failure: unknown;
      try {
        await s.db.execute(statement);
      } catch (err) {
        failure = err;
      }
      expect(failure, 'the statement must fail').toBeDefined();
      expect(sqlState(failure)).toBe('42501');
    }
    expect(await snapshot()).toBe(before);
    // Appending still works.
    await call(endpoints.auth.login, { username: 'admin', password: adminPassword });
    expect(JSON.parse(await snapshot()).length).toBe(JSON.parse(before).length + 1);
  });
});
