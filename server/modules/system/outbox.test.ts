/**
 * Issue 11, item 1: the mail outbox holds codes that sign anyone in as anyone. Only super administrators
 * (`*`) read it, no role can be granted it, every read is in the operation log, and a code that can no
 * longer be used is masked.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { emailCodes, mailOutbox, operationLog, roles, users } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { builtinRoles } from '../role/builtin.ts';
import { catalogueFor } from '../role/catalogue.ts';

const outboxPermission = endpoints.mailOutbox.list.permission;

describe.each(engines)('the mail outbox on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let rootId: number;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    rootId = (await s.db.select().from(users).where(eq(users.username, 'admin')))[0]!.id;
  });
  afterAll(() => s.close());

  /** A code row for `userId` and the outbox message that carries it, as the mailer stores them. */
  const storedCode = async (
    userId: number,
    to: string,
    code: string,
    state: Partial<typeof emailCodes.$inferInsert>,
  ) => {
    const now = s.clock.now();
    const [row] = await s.db
      .insert(emailCodes)
      .values({
        userId,
        purpose: 'reset',
        codeHash: 'not-checked-here',
        createdAt: now,
        expiresAt: new Date(now.getTime() + 10 * 60_000),
        ...state,
      })
      .returning({ id: emailCodes.id });
    await s.deps.mailer.send(s.db, {
      to,
      subject: 'Your password reset code',
      text: `Your password reset code is ${code}. It is valid for 10 minutes.`,
      emailCodeId: row!.id,
    });
    return row!.id;
  };

  it('is closed to the built-in auditor, even after it asked for the owner’s reset code', async () => {
    const m = await s.makeMerchant();
    const [auditorRole] = await s.db
      .select()
      .from(roles)
      .where(and(eq(roles.builtinKey, 'auditor'), isNull(roles.merchantId)));
    const made = await s.call(
      endpoints.admin.create,
      { username: 'outbox.auditor', nickname: 'Auditor', password: 'Passw0rd!x', roleIds: [auditorRole!.id] },
      root,
    );
    expect(made.errno).toBe(errno.ok);
    const auditor = await s.login('outbox.auditor', 'Passw0rd!x');
    // The reproduced attack: ask for the owner's reset code, then read it in the outbox.
    await s.call(endpoints.auth.sendEmailCode, { username: m.ownerUsername, purpose: 'reset' });
    const read = await s.call(endpoints.mailOutbox.list, {}, auditor);
    expect(read.errno).toBe(errno.forbidden);
    expect(JSON.stringify(read.data ?? null)).not.toMatch(/\d{6}/);
    expect(auditorRole!.perms).not.toContain(outboxPermission);
    expect(builtinRoles.platform.flatMap((r) => r.perms())).not.toContain(outboxPermission);
  });

  it('is closed to a role holding every grantable permission, and to a role that held the old one', async () => {
    const everything = catalogueFor('platform').map((e) => e.permission);
    expect(everything).not.toContain(outboxPermission);
    const all = await s.makeUser({ perms: everything });
    expect((await s.call(endpoints.mailOutbox.list, {}, all.token)).errno).toBe(errno.forbidden);
    // A role stored before the outbox left the catalogue still names it: the check no longer accepts it.
    const planted = await s.makeUser({ perms: [...everything, outboxPermission] });
    expect((await s.call(endpoints.mailOutbox.list, {}, planted.token)).errno).toBe(errno.forbidden);
    // Nobody can grant it, not even a super administrator.
    const create = await s.call(
      endpoints.role.create,
      { name: 'Mail readers', perms: [outboxPermission] },
      root,
    );
    expect(create.errno).toBe(errno.invalid);
    const catalogue = await s.call(endpoints.role.permissions, {}, root);
    const listed = catalogue.data.groups.flatMap((g: { permissions: Array<{ permission: string }> }) =>
      g.permissions.map((p) => p.permission),
    );
    expect(listed).not.toContain(outboxPermission);
    // The role editor gets the planted role's grants without it, so saving them back works.
    const granted = await s.call(endpoints.role.permissions, { id: planted.roleId }, root);
    expect(granted.data.granted).not.toContain(outboxPermission);
    expect(
      (await s.call(endpoints.role.setPermissions, { id: planted.roleId, perms: granted.data.granted }, root))
        .errno,
    ).toBe(errno.ok);
  });

  it('opens to a super administrator, and each read is written to the operation log', async () => {
    await s.deps.mailer.send(s.db, { to: 'reader@example.com', subject: 'Hello', text: 'Plain message' });
    const rid = 'outbox-read-0001';
    const read = await s.call(endpoints.mailOutbox.list, { to: 'reader@' }, root, { 'x-request-id': rid });
    expect(read.errno).toBe(errno.ok);
    expect(read.data.list).toEqual([
      expect.objectContaining({ to: 'reader@example.com', body: 'Plain message' }),
    ]);
    const [logged] = await s.db.select().from(operationLog).where(eq(operationLog.requestId, rid));
    expect(logged).toMatchObject({
      action: 'mailOutbox.list',
      userId: rootId,
      username: 'admin',
      outcome: 'ok',
      ip: '10.0.0.1',
    });
    expect(logged!.detail).toMatchObject({ to: 'reader@', messages: [read.data.list[0].id] });
  });

  it('masks a code once it is used or expired, and shows one still waiting to be used', async () => {
    const owner = await s.makeMerchant();
    const [u] = await s.db.select().from(users).where(eq(users.username, owner.ownerUsername));
    const to = owner.ownerUsername;
    const now = s.clock.now();
    const used = await storedCode(u!.id, `used.${to}@example.com`, '314159', { usedAt: now });
    const expired = await storedCode(u!.id, `expired.${to}@example.com`, '271828', {
      createdAt: new Date(now.getTime() - 20 * 60_000),
      expiresAt: new Date(now.getTime() - 10 * 60_000),
    });
    const live = await storedCode(u!.id, `live.${to}@example.com`, '161803', {});
    const [stored] = await s.db.select().from(mailOutbox).where(eq(mailOutbox.emailCodeId, live));
    expect(stored?.body).toContain('161803');

    const read = await s.call(endpoints.mailOutbox.list, { to }, root);
    expect(read.errno).toBe(errno.ok);
    const byCode = (id: number) =>
      read.data.list.find((r: { to: string }) =>
        r.to.startsWith(id === used ? 'used.' : id === expired ? 'expired.' : 'live.'),
      );
    for (const [id, code] of [
      [used, '314159'],
      [expired, '271828'],
    ] as const) {
      const row = byCode(id);
      expect(row.body).not.toContain(code);
      expect(row.body).toContain('••••••');
      expect(row.body).toContain('valid for 10 minutes');
    }
    expect(byCode(live).body).toContain('161803');
    // The live code expires as time passes: the next read masks it too.
    s.clock.advance(11 * 60_000);
    const later = await s.call(endpoints.mailOutbox.list, { to: `live.${to}` }, root);
    expect(later.data.list[0].body).not.toContain('161803');
  });

  it('masks a message that names no code once a code would have expired', async () => {
    // The database stamps the message: bring the test clock, moved by the test above, back to its time.
    s.clock.set(new Date());
    await s.deps.mailer.send(s.db, {
      to: 'unlinked@example.com',
      subject: 'Your sign-in code',
      text: 'Your sign-in verification code is 424242. It is valid for 10 minutes.',
    });
    const fresh = await s.call(endpoints.mailOutbox.list, { to: 'unlinked@' }, root);
    expect(fresh.data.list[0].body).toContain('424242');
    s.clock.advance(11 * 60_000);
    const old = await s.call(endpoints.mailOutbox.list, { to: 'unlinked@' }, root);
    expect(old.data.list[0].body).not.toContain('424242');
  });
});
