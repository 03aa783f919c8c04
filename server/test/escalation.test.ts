/**
 * P22 / ASVS 8.2: no one grants what they do not hold, manages someone who holds more, or reaches
 * users and roles of another kind or merchant; permission changes apply at the next call.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEndpoints, endpoints } from '../../contract/index.ts';
import { roles, userRoles, users } from '../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from './harness.ts';

/** What the limited user holds: it manages roles and administrators, but not everything. */
const held = [
  'POST /role/create',
  'POST /role/permissions',
  'GET /role/list',
  'POST /admin/create',
  'POST /admin/update',
  'GET /admin/list',
  'POST /admin/delete',
  'POST /admin/resetGoogle',
];
/** Platform permissions it lacks. */
const lacking = ['GET /log/list', 'GET /merchant/list', 'POST /role/delete'];

type User = Awaited<ReturnType<TestServer['makeUser']>>;

describe.each(engines)('privilege escalation on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  let adminId: number;
  let superAdminRole: number;
  let limited: User;
  let lower: User;
  let lowerRole: number;

  const permsOf = async (token: string) =>
    ((await s.call(endpoints.auth.info, {}, token)).data.perms as string[]).sort();
  const rolePerms = async (id: number) => (await s.db.select().from(roles).where(eq(roles.id, id)))[0]?.perms;
  const userRow = async (id: number) => (await s.db.select().from(users).where(eq(users.id, id)))[0];

  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
    adminId = (await s.db.select().from(users).where(eq(users.username, 'admin')))[0]!.id;
    superAdminRole = (
      await s.db
        .select()
        .from(roles)
        .where(and(eq(roles.builtinKey, 'superAdmin'), isNull(roles.merchantId)))
    )[0]!.id;
    limited = await s.makeUser({ perms: held });
    lower = await s.makeUser({ perms: ['GET /admin/list'] });
    lowerRole = lower.roleId;
  });
  afterAll(() => s.close());

  describe('a limited platform user', () => {
    it('cannot create a role with a permission it lacks or with *, but can within its own', async () => {
      for (const perms of [[lacking[0]!], ['*'], [held[0]!, lacking[1]!], [lacking[2]!]]) {
        const name = `r-${perms.join('-').replace(/\W+/g, '')}`;
        const res = await s.call(endpoints.role.create, { name, perms }, limited.token);
        expect(res.errno, perms.join(',')).toBe(errno.cannotGrant);
        expect(await s.db.select().from(roles).where(eq(roles.name, name))).toEqual([]);
      }
      const ok = await s.call(
        endpoints.role.create,
        { name: 'within', perms: ['GET /admin/list', 'GET /role/list'] },
        limited.token,
      );
      expect(ok.errno).toBe(errno.ok);
      expect(await rolePerms(ok.data.id)).toEqual(['GET /admin/list', 'GET /role/list']);
    });

    it('cannot add a permission it lacks (or *) to a role, nor edit a role that holds more', async () => {
      const made = await s.call(
        endpoints.role.create,
        { name: 'editable', perms: ['GET /admin/list'] },
        limited.token,
      );
      expect(made.errno).toBe(errno.ok);
      const id = made.data.id as number;
      for (const perms of [['GET /admin/list', lacking[0]!], ['*']]) {
        expect((await s.call(endpoints.role.setPermissions, { id, perms }, limited.token)).errno).toBe(
          errno.cannotGrant,
        );
        expect(await rolePerms(id)).toEqual(['GET /admin/list']);
      }
      expect(
        (await s.call(endpoints.role.setPermissions, { id, perms: ['GET /role/list'] }, limited.token)).errno,
      ).toBe(errno.ok);
      expect(await rolePerms(id)).toEqual(['GET /role/list']);

      // Roles that hold more than the caller, even when the change would only take permissions away.
      const richer = await s.call(
        endpoints.role.create,
        { name: 'richer', perms: ['GET /admin/list', 'GET /log/list'] },
        admin,
      );
      for (const target of [richer.data.id as number, superAdminRole]) {
        const before = await rolePerms(target);
        expect(
          (await s.call(endpoints.role.setPermissions, { id: target, perms: [] }, limited.token)).errno,
        ).toBe(errno.cannotGrant);
        expect(await rolePerms(target)).toEqual(before);
      }
    });

    it('cannot assign a role with more permissions to a new user, another user or itself', async () => {
      const richer = (
        await s.call(endpoints.role.create, { name: 'richer2', perms: ['GET /log/list'] }, admin)
      ).data.id as number;
      for (const roleIds of [[superAdminRole], [richer], [lowerRole, richer]]) {
        const res = await s.call(
          endpoints.admin.create,
          { username: `esc_${roleIds.join('_')}`, nickname: 'x', password: 'Passw0rd!x', roleIds },
          limited.token,
        );
        expect(res.errno).toBe(errno.cannotGrant);
        expect(
          await s.db
            .select()
            .from(users)
            .where(eq(users.username, `esc_${roleIds.join('_')}`)),
        ).toEqual([]);

        for (const target of [lower, limited]) {
          const before = await permsOf(target.token);
          const upd = await s.call(endpoints.admin.update, { id: target.id, roleIds }, limited.token);
          expect(upd.errno, target.username).toBe(errno.cannotGrant);
          expect(await permsOf(target.token)).toEqual(before);
        }
      }
      expect(await permsOf(limited.token)).toEqual([...held].sort());
      // Within its own permissions it may assign.
      const ok = await s.call(
        endpoints.admin.create,
        { username: 'esc_ok', nickname: 'x', password: 'Passw0rd!x', roleIds: [lowerRole] },
        limited.token,
      );
      expect(ok.errno).toBe(errno.ok);
    });

    it('cannot edit, disable, reset the password or Google key of, or delete a user who holds more (1013)', async () => {
      const peerPlus = await s.makeUser({ perms: [...held, 'GET /log/list'] });
      for (const target of [
        { id: adminId, username: 'admin' },
        { id: peerPlus.id, username: peerPlus.username },
      ]) {
        const before = await userRow(target.id);
        const attempts: Array<
          [typeof endpoints.admin.update | typeof endpoints.admin.delete, Record<string, unknown>]
        > = [
          [endpoints.admin.update, { id: target.id, nickname: 'pwned' }],
          [endpoints.admin.update, { id: target.id, password: 'Takeover1!' }],
          [endpoints.admin.update, { id: target.id, status: 'disabled' }],
          [endpoints.admin.update, { id: target.id, roleIds: [] }],
          [endpoints.admin.resetGoogle, { id: target.id }],
          [endpoints.admin.delete, { id: target.id }],
        ];
        for (const [ep, input] of attempts) {
          const res = await s.call(ep, input, limited.token);
          expect(res.errno, `${ep.id} ${JSON.stringify(input)}`).toBe(errno.cannotGrant);
        }
        expect(await userRow(target.id)).toEqual(before);
      }
      expect((await s.call(endpoints.auth.info, {}, admin)).errno).toBe(errno.ok);
      expect((await s.call(endpoints.auth.login, { username: 'admin', password: 'Takeover1!' })).errno).toBe(
        errno.badCredentials,
      );

      // Someone who holds less can be managed.
      const small = await s.makeUser({ perms: ['GET /admin/list'] });
      expect(
        (await s.call(endpoints.admin.update, { id: small.id, nickname: 'renamed' }, limited.token)).errno,
      ).toBe(errno.ok);
      expect((await userRow(small.id))?.nickname).toBe('renamed');
      expect((await s.call(endpoints.admin.delete, { id: small.id }, limited.token)).errno).toBe(errno.ok);
      expect(await userRow(small.id)).toBeUndefined();
    });

    it('does not see or touch merchant users and roles (404), nor list them', async () => {
      const m = await s.makeMerchant();
      const [owner] = await s.db.select().from(users).where(eq(users.username, m.ownerUsername));
      const [mRole] = await s.db.select().from(roles).where(eq(roles.merchantId, m.id));
      const attempts: Array<[Parameters<TestServer['call']>[0], Record<string, unknown>]> = [
        [endpoints.admin.update, { id: owner!.id, nickname: 'x' }],
        [endpoints.admin.delete, { id: owner!.id }],
        [endpoints.admin.resetGoogle, { id: owner!.id }],
        [endpoints.role.setPermissions, { id: mRole!.id, perms: [] }],
        [
          endpoints.admin.create,
          { username: 'esc_cross', nickname: 'x', password: 'Passw0rd!x', roleIds: [mRole!.id] },
        ],
      ];
      for (const [ep, input] of attempts) {
        for (const token of [limited.token, admin]) {
          expect((await s.call(ep, input, token)).errno, ep.id).toBe(errno.notFound);
        }
      }
      expect(await userRow(owner!.id)).toEqual(owner);
      expect(await rolePerms(mRole!.id)).toEqual(mRole!.perms);
      const listed = await s.call(endpoints.admin.list, { pageSize: 100 }, limited.token);
      expect(listed.errno).toBe(errno.ok);
      expect(listed.data.list.length).toBeGreaterThan(2);
      expect(listed.data.list.every((u: { merchantId: number | null }) => u.merchantId === null)).toBe(true);
      const listedRoles = await s.call(endpoints.role.list, { pageSize: 100 }, limited.token);
      expect(listedRoles.data.list.map((r: { id: number }) => r.id)).not.toContain(mRole!.id);
    });

    it('loses a revoked permission at its next call, without signing in again', async () => {
      const u = await s.makeUser({ perms: ['GET /admin/list', 'GET /log/list'] });
      expect((await s.call(endpoints.admin.list, {}, u.token)).errno).toBe(errno.ok);
      expect(
        (await s.call(endpoints.role.setPermissions, { id: u.roleId, perms: ['GET /log/list'] }, admin))
          .errno,
      ).toBe(errno.ok);
      expect((await s.call(endpoints.admin.list, {}, u.token)).errno).toBe(errno.forbidden);
      expect((await s.call(endpoints.log.list, {}, u.token)).errno).toBe(errno.ok);
      expect((await s.call(endpoints.auth.info, {}, u.token)).data.perms).toEqual(['GET /log/list']);
      // Granting works the same way; so does taking the role away from the user.
      await s.call(
        endpoints.role.setPermissions,
        { id: u.roleId, perms: ['GET /admin/list', 'GET /log/list'] },
        admin,
      );
      expect((await s.call(endpoints.admin.list, {}, u.token)).errno).toBe(errno.ok);
      expect((await s.call(endpoints.admin.update, { id: u.id, roleIds: [] }, admin)).errno).toBe(errno.ok);
      expect((await s.call(endpoints.admin.list, {}, u.token)).errno).toBe(errno.forbidden);
      expect((await s.call(endpoints.log.list, {}, u.token)).errno).toBe(errno.forbidden);
    });
  });

  describe('merchant users', () => {
    let a: Awaited<ReturnType<TestServer['makeMerchant']>>;
    let b: Awaited<ReturnType<TestServer['makeMerchant']>>;
    let ownerA: string;
    let bOwner: typeof users.$inferSelect;
    let bRoles: Array<typeof roles.$inferSelect>;

    beforeAll(async () => {
      a = await s.makeMerchant();
      b = await s.makeMerchant();
      ownerA = await s.login(a.ownerUsername, a.ownerPassword);
      bOwner = (await s.db.select().from(users).where(eq(users.username, b.ownerUsername)))[0]!;
      bRoles = await s.db.select().from(roles).where(eq(roles.merchantId, b.id));
    });

    it("cannot see or touch another merchant's users and roles, nor platform ones (404)", async () => {
      const bRole = bRoles.find((r) => r.builtinKey === 'finance')!;
      const bOwnerRole = bRoles.find((r) => r.builtinKey === 'owner')!;
      const attempts: Array<[Parameters<TestServer['call']>[0], Record<string, unknown>]> = [
        [endpoints.admin.update, { id: bOwner.id, nickname: 'x' }],
        [endpoints.admin.update, { id: bOwner.id, password: 'Takeover1!' }],
        [endpoints.admin.delete, { id: bOwner.id }],
        [endpoints.admin.resetGoogle, { id: bOwner.id }],
        [endpoints.admin.update, { id: adminId, nickname: 'x' }],
        [endpoints.admin.delete, { id: adminId }],
        [endpoints.role.setPermissions, { id: bRole.id, perms: [] }],
        [endpoints.role.update, { id: bRole.id, name: 'mine now' }],
        [endpoints.role.delete, { id: bRole.id }],
        [endpoints.role.permissions, { id: bOwnerRole.id }],
        [endpoints.role.permissions, { id: superAdminRole }],
        [endpoints.role.setPermissions, { id: superAdminRole, perms: [] }],
        [
          endpoints.admin.create,
          { username: 'esc_m1', nickname: 'x', password: 'Passw0rd!x', roleIds: [bOwnerRole.id] },
        ],
        [
          endpoints.admin.create,
          { username: 'esc_m2', nickname: 'x', password: 'Passw0rd!x', roleIds: [superAdminRole] },
        ],
      ];
      for (const [ep, input] of attempts) {
        expect((await s.call(ep, input, ownerA)).errno, `${ep.id} ${JSON.stringify(input)}`).toBe(
          errno.notFound,
        );
      }
      expect(await userRow(bOwner.id)).toEqual(bOwner);
      expect(await s.db.select().from(roles).where(eq(roles.merchantId, b.id))).toEqual(bRoles);
      expect(await rolePerms(superAdminRole)).toEqual(['*']);
      expect(await s.db.select().from(users).where(eq(users.username, 'esc_m1'))).toEqual([]);

      const listed = await s.call(endpoints.admin.list, { pageSize: 100 }, ownerA);
      expect(listed.data.list.length).toBeGreaterThan(0);
      expect(listed.data.list.every((u: { merchantId: number | null }) => u.merchantId === a.id)).toBe(true);
      const listedRoles = await s.call(endpoints.role.list, { pageSize: 100 }, ownerA);
      const ownRoles = await s.db.select({ id: roles.id }).from(roles).where(eq(roles.merchantId, a.id));
      expect(listedRoles.data.list.map((r: { id: number }) => r.id).sort()).toEqual(
        ownRoles.map((r) => r.id).sort(),
      );
    });

    it('creates users of its own merchant only, whatever the request says', async () => {
      const spoof = await s.call(
        endpoints.admin.create,
        { username: 'esc_spoof', nickname: 'x', password: 'Passw0rd!x', merchantId: b.id },
        ownerA,
      );
      expect(spoof.errno).toBe(errno.invalid);
      const ok = await s.call(
        endpoints.admin.create,
        { username: 'esc_mine', nickname: 'x', password: 'Passw0rd!x' },
        ownerA,
      );
      expect(ok.errno).toBe(errno.ok);
      expect(await userRow(ok.data.id)).toMatchObject({ kind: 'merchant', merchantId: a.id });
    });

    it('never reaches a platform-only endpoint, not even holding * or through a role', async () => {
      const platformOnly = allEndpoints.filter((e) => e.caller === 'platform' || e.caller === 'superAdmin');
      expect(platformOnly.map((e) => e.id)).toContain('mailOutbox.list');
      const perms = platformOnly.map((e) => e.permission);
      // Neither a new role nor an existing one can carry them.
      const [own] = await s.db.select().from(roles).where(eq(roles.merchantId, a.id));
      for (const p of perms) {
        const create = await s.call(endpoints.role.create, { name: `sneaky ${p}`, perms: [p] }, ownerA);
        expect(create.errno, p).toBe(errno.invalid);
        const set = await s.call(endpoints.role.setPermissions, { id: own!.id, perms: [p] }, ownerA);
        expect(set.errno, p).toBe(errno.invalid);
      }
      expect(await rolePerms(own!.id)).toEqual(own!.perms);
      // Holding * of its kind, or a role written straight into the database, does not open them.
      const planted = await s.makeUser({ kind: 'merchant', merchantId: a.id, perms });
      for (const ep of platformOnly) {
        for (const token of [ownerA, planted.token]) {
          const input = ep.method === 'GET' ? {} : { id: 1 };
          expect((await s.call(ep, input, token)).errno, ep.id).toBe(errno.forbidden);
        }
      }
    });

    it('and the platform, even holding *, never reaches a merchant-only endpoint', async () => {
      const merchantOnly = allEndpoints.filter((e) => e.caller === 'merchant');
      expect(merchantOnly.length).toBeGreaterThan(0);
      for (const ep of merchantOnly) {
        expect((await s.call(ep, {}, admin)).errno, ep.id).toBe(errno.forbidden);
      }
      const perms = merchantOnly.map((e) => e.permission);
      expect((await s.call(endpoints.role.create, { name: 'merchant things', perms }, admin)).errno).toBe(
        errno.invalid,
      );
    });

    it('reads only its own merchant in the operation log', async () => {
      await s.call(
        endpoints.auth.updateProfile,
        { nickname: 'B owner' },
        await s.login(b.ownerUsername, b.ownerPassword),
      );
      const res = await s.call(endpoints.log.list, { pageSize: 100 }, ownerA);
      expect(res.errno).toBe(errno.ok);
      expect(res.data.list.length).toBeGreaterThan(0);
      expect(res.data.list.every((r: { merchantId: number | null }) => r.merchantId === a.id)).toBe(true);
    });

    it("cannot pass its own limits inside the merchant: a limited merchant user can't grant the owner role", async () => {
      const ownerRole = (
        await s.db
          .select()
          .from(roles)
          .where(and(eq(roles.merchantId, a.id), eq(roles.builtinKey, 'owner')))
      )[0]!;
      const m = await s.makeUser({
        kind: 'merchant',
        merchantId: a.id,
        perms: ['POST /admin/update', 'GET /admin/list'],
      });
      const res = await s.call(endpoints.admin.update, { id: m.id, roleIds: [ownerRole.id] }, m.token);
      expect(res.errno).toBe(errno.cannotGrant);
      const links = await s.db.select().from(userRoles).where(eq(userRoles.userId, m.id));
      expect(links.map((l) => l.roleId)).toEqual([m.roleId]);
    });
  });
});
