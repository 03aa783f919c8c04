import { and, asc, eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { sqlState } from '../../db/index.ts';
import { roles, userRoles, users } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { revokeSessions } from '../../http/session.ts';
import { hashPassword } from '../../lib/crypto.ts';
import { changes } from '../../lib/redact.ts';
import { pagedList } from '../../list/engine.ts';
import { textPrefix } from '../../list/scope.ts';
import { grantableRoles, mustCoverUser, mustKeepAnAdministrator, userInScope, userScope } from './scope.ts';
import { userRows } from './userRows.ts';

export const adminRoutes = [
  handle(endpoints.admin.list, async ({ input, user, tx, req }) => {
    const where = and(
      userScope(user),
      input.username ? textPrefix(users.username, input.username) : undefined,
      input.status ? eq(users.status, input.status) : undefined,
    );
    const { page: rows, total: n } = await pagedList(
      tx,
      { query: tx.select().from(users).$dynamic(), table: users, where, orderBy: [asc(users.id)] },
      input,
    );
    return {
      list: await userRows(tx, rows, req.lang),
      total: n,
      nextCursor: null,
    };
  }),

  handle(endpoints.admin.create, async ({ input, user, tx, deps, audit }) => {
    const granted = await grantableRoles(tx, user, input.roleIds);
    const [taken] = await tx.select({ id: users.id }).from(users).where(eq(users.username, input.username));
    if (taken) throw new AppError(errno.usernameTaken);
    const now = deps.clock.now();
    let row: { id: number } | undefined;
    try {
      [row] = await tx
        .insert(users)
        .values({
          kind: user.kind,
          merchantId: user.merchantId,
          username: input.username,
          nickname: input.nickname,
          email: input.email ?? '',
          passwordHash: await hashPassword(input.password),
          createdAt: now,
          updatedAt: now,
        })
        .returning({ id: users.id });
    } catch (err) {
      if (sqlState(err) === '23505') throw new AppError(errno.usernameTaken);
      throw err;
    }
    if (granted.length)
      await tx.insert(userRoles).values(granted.map((r) => ({ userId: row!.id, roleId: r.id })));
    audit({
      target: `user:${row!.id}`,
      changes: changes(
        {},
        {
          username: input.username,
          nickname: input.nickname,
          email: input.email ?? '',
          roles: granted.map((r) => r.name),
        },
      ),
    });
    return { id: row!.id };
  }),

  handle(endpoints.admin.update, async ({ input, user, tx, deps, audit }) => {
    const target = await userInScope(tx, user, input.id);
    audit({ target: `user:${target.id}` });
    if (target.id === user.id && input.status === 'disabled') throw new AppError(errno.notYourself);
    // One's own password changes at /auth/password, with the old one: a stolen session cannot set it here.
    if (target.id === user.id && input.password !== undefined) throw new AppError(errno.notYourself);
    const held = await mustCoverUser(tx, user, target.id);
    const before: Record<string, unknown> = {
      nickname: target.nickname,
      email: target.email,
      status: target.status,
    };
    const next: Record<string, unknown> = {
      nickname: input.nickname,
      email: input.email,
      status: input.status,
    };
    const set: Partial<typeof users.$inferInsert> = { updatedAt: deps.clock.now() };
    if (input.nickname !== undefined) set.nickname = input.nickname;
    if (input.email !== undefined) set.email = input.email;
    if (input.status !== undefined) set.status = input.status;
    if (input.password !== undefined) {
      set.passwordHash = await hashPassword(input.password);
      before.password = '';
      next.password = 'reset';
    }
    await tx.update(users).set(set).where(eq(users.id, target.id));
    if (input.roleIds !== undefined) {
      const granted = await grantableRoles(tx, user, input.roleIds);
      const old = await tx
        .select({ name: roles.name })
        .from(userRoles)
        .innerJoin(roles, eq(roles.id, userRoles.roleId))
        .where(eq(userRoles.userId, target.id));
      before.roles = old.map((r) => r.name).sort();
      next.roles = granted.map((r) => r.name).sort();
      await tx.delete(userRoles).where(eq(userRoles.userId, target.id));
      if (granted.length)
        await tx.insert(userRoles).values(granted.map((r) => ({ userId: target.id, roleId: r.id })));
    }
    // A disabled account or a password set by someone else ends every session of that user.
    if (input.status === 'disabled' || input.password !== undefined)
      await revokeSessions(deps, tx, target.id);
    audit({ changes: changes(before, next) });
    if (
      target.status === 'active' &&
      held.includes('*') &&
      (input.status === 'disabled' || input.roleIds !== undefined)
    )
      await mustKeepAnAdministrator(tx, target);
    return { ok: true as const };
  }),

  handle(endpoints.admin.delete, async ({ input, user, tx, audit }) => {
    const target = await userInScope(tx, user, input.id);
    audit({ target: `user:${target.id}`, detail: { username: target.username } });
    if (target.id === user.id) throw new AppError(errno.notYourself);
    const held = await mustCoverUser(tx, user, target.id);
    await tx.delete(users).where(eq(users.id, target.id));
    if (target.status === 'active' && held.includes('*')) await mustKeepAnAdministrator(tx, target);
    return { ok: true as const };
  }),

  handle(endpoints.admin.resetGoogle, async ({ input, user, tx, deps, audit }) => {
    const target = await userInScope(tx, user, input.id);
    audit({ target: `user:${target.id}` });
    if (target.id === user.id) throw new AppError(errno.notYourself);
    await mustCoverUser(tx, user, target.id);
    if (target.totpSecret === null) throw new AppError(errno.googleNotBound);
    await tx
      .update(users)
      .set({ totpSecret: null, updatedAt: deps.clock.now() })
      .where(eq(users.id, target.id));
    await revokeSessions(deps, tx, target.id);
    audit({ changes: { googleBound: { before: true, after: false } } });
    return { ok: true as const };
  }),
];
