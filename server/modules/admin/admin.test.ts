import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';

const { admin, role, log } = endpoints;

describe.each(engines)('administrators and roles on %s', (engine) => {
  let s: TestServer;
  let root: string;
  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
  });
  afterAll(() => s.close());

  it('seeds the built-in platform roles, each editable and none deletable', async () => {
    const list = await s.call(role.list, { pageSize: 50 }, root);
    const builtin = list.data.list.filter((r: { builtin: boolean }) => r.builtin);
    expect(builtin.map((r: { name: string }) => r.name)).toEqual([
      'Super administrator',
      'Operator',
      'Finance',
      'Auditor (read only)',
    ]);
    const zh = await s.call(role.list, { pageSize: 50 }, root, { 'accept-language': 'zh-CN' });
    expect(zh.data.list.filter((r: { builtin: boolean }) => r.builtin)[0].name).toBe('超级管理员');
    const auditor = builtin[3];
    // Every read, including the wallet balances the spec reads with a POST, and nothing that writes.
    expect(auditor.perms).toContain('POST /merchantWallet/info');
    expect(
      auditor.perms.every((p: string) => p.startsWith('GET ') || p === 'POST /merchantWallet/info'),
    ).toBe(true);
    expect((await s.call(role.delete, { id: auditor.id }, root)).errno).toBe(errno.builtinRole);
    expect((await s.call(role.update, { id: auditor.id, description: 'Reads' }, root)).errno).toBe(0);
  });

  it('creates an administrator with roles, edits, disables and deletes it', async () => {
    const r = await s.call(role.create, { name: 'Log readers', perms: [log.list.permission] }, root);
    expect(r.errno).toBe(0);
    const created = await s.call(
      admin.create,
      {
        username: 'ops.anna',
        nickname: 'Anna',
        password: 'secret7',
        email: 'anna@example.com',
        roleIds: [r.data.id],
      },
      root,
    );
    expect(created.errno).toBe(0);
    expect(
      (await s.call(admin.create, { username: 'ops.anna', nickname: 'A2', password: 'secret77' }, root))
        .errno,
    ).toBe(errno.usernameTaken);
    const listed = await s.call(admin.list, { username: 'ops.' }, root);
    expect(listed.data.list).toEqual([
      expect.objectContaining({
        username: 'ops.anna',
        nickname: 'Anna',
        roles: [{ id: r.data.id, name: 'Log readers' }],
      }),
    ]);
    const token = await s.login('ops.anna', 'secret7');
    expect((await s.call(log.list, {}, token)).errno).toBe(0);
    expect((await s.call(admin.list, {}, token)).errno).toBe(errno.forbidden);

    expect((await s.call(admin.update, { id: created.data.id, nickname: 'Anna K' }, root)).errno).toBe(0);
    expect((await s.call(admin.update, { id: created.data.id, status: 'disabled' }, root)).errno).toBe(0);
    expect((await s.call(log.list, {}, token)).errno).toBe(errno.notSignedIn);
    expect((await s.call(admin.delete, { id: created.data.id }, root)).errno).toBe(0);
    expect((await s.call(admin.list, { username: 'ops.' }, root)).data.list).toEqual([]);
  });

  it('refuses to disable or delete oneself', async () => {
    const me = (await s.call(endpoints.auth.info, {}, root)).data.id;
    expect((await s.call(admin.update, { id: me, status: 'disabled' }, root)).errno).toBe(errno.notYourself);
    expect((await s.call(admin.delete, { id: me }, root)).errno).toBe(errno.notYourself);
  });

  it('keeps role names unique within the kind and answers the permission catalogue grouped', async () => {
    expect((await s.call(role.create, { name: 'Dup' }, root)).errno).toBe(0);
    expect((await s.call(role.create, { name: 'Dup' }, root)).errno).toBe(errno.roleNameTaken);
    const cat = await s.call(role.permissions, {}, root, { 'accept-language': 'zh-CN' });
    const groups = cat.data.groups.map((g: { group: string }) => g.group);
    expect(groups).toEqual(expect.arrayContaining(['admin', 'role', 'log']));
    // The outbox is super administrators' only: no role can be granted it.
    expect(groups).not.toContain('mailOutbox');
    const adminGroup = cat.data.groups.find((g: { group: string }) => g.group === 'admin');
    expect(adminGroup.title).toBe('管理员');
    expect(adminGroup.permissions[0]).toMatchObject({
      permission: 'GET /admin/list',
      description: '查看管理员列表',
    });
    expect((await s.call(role.create, { name: 'Bad', perms: ['GET /nope'] }, root)).errno).toBe(
      errno.invalid,
    );
  });

  it('confines a merchant user to its own merchant, with its own built-in roles', async () => {
    const m = await s.makeMerchant();
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    const roles = await s.call(role.list, {}, owner);
    expect(roles.data.list.map((r: { name: string }) => r.name)).toEqual([
      'Owner',
      'Finance',
      'Operator',
      'Developer',
    ]);
    const cat = await s.call(role.permissions, {}, owner);
    expect(cat.data.groups.map((g: { group: string }) => g.group)).not.toContain('mailOutbox');
    const made = await s.call(
      admin.create,
      { username: `${m.code}.clerk`, nickname: 'Clerk', password: 'clerk77x' },
      owner,
    );
    expect(made.errno).toBe(0);
    const users = await s.call(admin.list, {}, owner);
    expect(users.data.list.every((u: { merchantId: number }) => u.merchantId === m.id)).toBe(true);
    expect(users.data.total).toBe(2);
    // The platform's list shows platform users only.
    const platform = await s.call(admin.list, { pageSize: 100 }, root);
    expect(platform.data.list.every((u: { merchantId: number | null }) => u.merchantId === null)).toBe(true);
  });

  it('pages the operation log by keyset, newest first, with a capped total', async () => {
    for (let i = 0; i < 5; i++) await s.call(role.create, { name: `Paged ${i}` }, root);
    const first = await s.call(log.list, { pageSize: 3, action: 'role.create' }, root);
    expect(first.data.list).toHaveLength(3);
    expect(first.data.nextCursor).toBeTruthy();
    const second = await s.call(
      log.list,
      { pageSize: 3, action: 'role.create', cursor: first.data.nextCursor },
      root,
    );
    const ids = [...first.data.list, ...second.data.list].map((r: { id: number }) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(ids.length);
    expect(first.data.total).toBeGreaterThanOrEqual(5);
    expect(first.data.list[0]).toMatchObject({ action: 'role.create', outcome: 'ok', username: 'admin' });
  });
});
