/**
 * Issue 11, items 9 and 12: `admin/update` does not set the caller's own password (that takes the old one,
 * at `/auth/password`), and every tenant keeps an administrator: the platform an active user holding `*`
 * (a super administrator), each merchant an active user holding `*` of its own (an owner). The last one
 * cannot be deleted, disabled or emptied of `*`, whichever path tries.
 */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { roles, users } from '../../db/schema.ts';
import { permsOf } from '../../http/session.ts';
import { adminPassword, engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { hasPostgres } from '../../test/pg.ts';

const { admin, role, auth } = endpoints;

/** A tenant's built-in role id by key (`merchantId` null: the platform's). */
async function builtinRole(s: TestServer, key: string, merchantId: number | null) {
  const [row] = await s.db
    .select()
    .from(roles)
    .where(
      and(
        eq(roles.builtinKey, key),
        merchantId === null ? isNull(roles.merchantId) : eq(roles.merchantId, merchantId),
      ),
    );
  return row!;
}

const holdsAll = async (s: TestServer, userId: number) => (await permsOf(s.db, userId)).perms.includes('*');

describe.each(engines)('administrators who must stay, on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let rootId: number;
  let superAdmin: number;
  let operator: number;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    rootId = (await s.db.select().from(users).where(eq(users.username, 'admin')))[0]!.id;
    superAdmin = (await builtinRole(s, 'superAdmin', null)).id;
    operator = (await builtinRole(s, 'operator', null)).id;
  });
  afterAll(() => s.close());

  it("refuses to set the caller's own password, and sets another's", async () => {
    const own = await s.call(admin.update, { id: rootId, password: 'N3w-Passw0rd!' }, root);
    expect(own.errno).toBe(errno.notYourself);
    expect((await s.call(auth.login, { username: 'admin', password: 'N3w-Passw0rd!' })).errno).toBe(
      errno.badCredentials,
    );
    expect(await s.login('admin', adminPassword)).toBeTruthy();
    // Nothing else of the same call was applied either.
    const both = await s.call(
      admin.update,
      { id: rootId, nickname: 'Root', password: 'N3w-Passw0rd!' },
      root,
    );
    expect(both.errno).toBe(errno.notYourself);
    expect((await s.db.select().from(users).where(eq(users.id, rootId)))[0]!.nickname).not.toBe('Root');

    const other = await s.makeUser({ perms: ['GET /admin/list'] });
    expect((await s.call(admin.update, { id: other.id, password: 'Anoth3r-Pass!' }, root)).errno).toBe(
      errno.ok,
    );
    expect(await s.login(other.username, 'Anoth3r-Pass!')).toBeTruthy();

    // A merchant owner the same.
    const m = await s.makeMerchant();
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    const ownerId = (await s.call(auth.info, {}, owner)).data.id;
    expect((await s.call(admin.update, { id: ownerId, password: 'N3w-Passw0rd!' }, owner)).errno).toBe(
      errno.notYourself,
    );
  });

  it('keeps the last super administrator: no role change of its own takes * away', async () => {
    const res = await s.call(admin.update, { id: rootId, roleIds: [operator] }, root);
    expect(res.errno).toBe(errno.lastAdministrator);
    expect(await holdsAll(s, rootId)).toBe(true);
    // Deleting or disabling oneself stays refused as such.
    expect((await s.call(admin.delete, { id: rootId }, root)).errno).toBe(errno.notYourself);
    expect((await s.call(admin.update, { id: rootId, status: 'disabled' }, root)).errno).toBe(
      errno.notYourself,
    );
  });

  it('keeps the last super administrator: its role cannot lose *', async () => {
    const res = await s.call(role.setPermissions, { id: superAdmin, perms: ['GET /admin/list'] }, root);
    expect(res.errno).toBe(errno.lastAdministrator);
    expect((await builtinRole(s, 'superAdmin', null)).perms).toEqual(['*']);
    expect(await holdsAll(s, rootId)).toBe(true);
  });

  it('keeps the last super administrator: deleting the only role that gives * is refused', async () => {
    const everything = await s.call(role.create, { name: 'Everything', perms: ['*'] }, root);
    expect(everything.errno).toBe(errno.ok);
    // Root moves to the new role (it still holds *, so that is allowed)...
    expect((await s.call(admin.update, { id: rootId, roleIds: [everything.data.id] }, root)).errno).toBe(
      errno.ok,
    );
    const again = await s.adminToken();
    // ...and that role is now the only way anyone holds *.
    expect((await s.call(role.delete, { id: everything.data.id }, again)).errno).toBe(
      errno.lastAdministrator,
    );
    expect(await holdsAll(s, rootId)).toBe(true);
    expect((await s.call(admin.update, { id: rootId, roleIds: [superAdmin] }, again)).errno).toBe(errno.ok);
    root = await s.adminToken();
    expect((await s.call(role.delete, { id: everything.data.id }, root)).errno).toBe(errno.ok);
  });

  it('counts only active holders of *, and lets one go while another stays', async () => {
    const made = await s.call(
      admin.create,
      { username: 'second.root', nickname: 'Second', password: 'Passw0rd!x', roleIds: [superAdmin] },
      root,
    );
    expect(made.errno).toBe(errno.ok);
    const second = made.data.id as number;
    // Disabled, the second one is no administrator: root still cannot drop *.
    expect((await s.call(admin.update, { id: second, status: 'disabled' }, root)).errno).toBe(errno.ok);
    expect((await s.call(admin.update, { id: rootId, roleIds: [operator] }, root)).errno).toBe(
      errno.lastAdministrator,
    );
    // Active again, it stays while root steps down, and then it is the last one.
    expect((await s.call(admin.update, { id: second, status: 'active' }, root)).errno).toBe(errno.ok);
    expect((await s.call(admin.update, { id: rootId, roleIds: [superAdmin, operator] }, root)).errno).toBe(
      errno.ok,
    );
    const secondToken = await s.login('second.root', 'Passw0rd!x');
    expect((await s.call(admin.update, { id: second, roleIds: [operator] }, secondToken)).errno).toBe(
      errno.ok,
    );
    root = await s.adminToken();
    expect((await s.call(admin.delete, { id: second }, root)).errno).toBe(errno.ok);
  });

  it("keeps a merchant's last owner, through its roles and its owner role", async () => {
    const m = await s.makeMerchant();
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    const ownerId = (await s.call(auth.info, {}, owner)).data.id as number;
    const ownerRole = await builtinRole(s, 'owner', m.id);
    const finance = await builtinRole(s, 'finance', m.id);
    expect((await s.call(admin.update, { id: ownerId, roleIds: [finance.id] }, owner)).errno).toBe(
      errno.lastAdministrator,
    );
    expect((await s.call(role.setPermissions, { id: ownerRole.id, perms: finance.perms }, owner)).errno).toBe(
      errno.lastAdministrator,
    );
    expect(await holdsAll(s, ownerId)).toBe(true);
    // Another merchant's owner, or the platform's super administrators, do not count for this merchant.
    await s.makeMerchant();
    expect((await s.call(admin.update, { id: ownerId, roleIds: [finance.id] }, owner)).errno).toBe(
      errno.lastAdministrator,
    );
    // With a second owner, the first may step down.
    const deputy = await s.call(
      admin.create,
      {
        username: `deputy_${m.code.toLowerCase()}`,
        nickname: 'Deputy',
        password: 'Passw0rd!x',
        roleIds: [ownerRole.id],
      },
      owner,
    );
    expect(deputy.errno).toBe(errno.ok);
    expect((await s.call(admin.update, { id: ownerId, roleIds: [finance.id] }, owner)).errno).toBe(errno.ok);
    expect(await holdsAll(s, ownerId)).toBe(false);
  });
});

describe.skipIf(!hasPostgres)('two super administrators removing each other at once, on PostgreSQL', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('postgres');
  });
  afterAll(() => s.close());

  for (const how of ['delete', 'disable'] as const) {
    it(`leaves one of them (${how})`, async () => {
      const root = await s.adminToken();
      const superAdmin = (await builtinRole(s, 'superAdmin', null)).id;
      const ids: number[] = [];
      for (const name of ['a', 'b']) {
        const made = await s.call(
          admin.create,
          { username: `${how}.${name}`, nickname: name, password: 'Passw0rd!x', roleIds: [superAdmin] },
          root,
        );
        expect(made.errno).toBe(errno.ok);
        ids.push(made.data.id);
      }
      // Root steps down first, so the two are the only super administrators.
      const operator = (await builtinRole(s, 'operator', null)).id;
      const rootId = (await s.db.select().from(users).where(eq(users.username, 'admin')))[0]!.id;
      expect((await s.call(admin.update, { id: rootId, roleIds: [operator] }, root)).errno).toBe(errno.ok);
      const [a, b] = [await s.login(`${how}.a`, 'Passw0rd!x'), await s.login(`${how}.b`, 'Passw0rd!x')];
      const remove = (token: string, id: number) =>
        how === 'delete'
          ? s.call(admin.delete, { id }, token)
          : s.call(admin.update, { id, status: 'disabled' }, token);
      // Both calls are held at their write by a lock on the two rows, then let go together: each read
      // the other as a super administrator still standing.
      let release!: () => void;
      const released = new Promise<void>((r) => {
        release = r;
      });
      let locked!: () => void;
      const holding = new Promise<void>((r) => {
        locked = r;
      });
      const holder = s.db.transaction(async (tx) => {
        await tx.select({ id: users.id }).from(users).where(inArray(users.id, ids)).for('update');
        locked();
        await released;
      });
      await holding;
      const racing = Promise.all([remove(a, ids[1]!), remove(b, ids[0]!)]);
      for (let waited = 0; ; waited += 20) {
        const waiting = (await s.db.execute(
          sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        )) as unknown as { rows: Array<{ n: number }> };
        const [row] = waiting.rows;
        if (row!.n >= 2) break;
        if (waited > 5_000) throw new Error('the two calls never reached their write');
        await new Promise((r) => setTimeout(r, 20));
      }
      release();
      await holder;
      const answers = await racing;
      const codes = answers.map((r) => r.errno).sort();
      expect(codes).toEqual([errno.ok, errno.lastAdministrator].sort());
      const left = await s.db.select().from(users).where(eq(users.status, 'active'));
      const standing = [];
      for (const u of left) if (await holdsAll(s, u.id)) standing.push(u.id);
      expect(standing.length).toBe(1);
      // Root gets * back for the next round, from the one left.
      const survivor = answers[0]!.errno === errno.ok ? a : b;
      expect((await s.call(admin.update, { id: rootId, roleIds: [superAdmin] }, survivor)).errno).toBe(
        errno.ok,
      );
      const survivorId = answers[0]!.errno === errno.ok ? ids[0]! : ids[1]!;
      expect((await s.call(admin.delete, { id: survivorId }, await s.adminToken())).errno).toBe(errno.ok);
      if (how === 'disable') {
        const other = answers[0]!.errno === errno.ok ? ids[1]! : ids[0]!;
        expect((await s.call(admin.delete, { id: other }, await s.adminToken())).errno).toBe(errno.ok);
      }
    });
  }
});
