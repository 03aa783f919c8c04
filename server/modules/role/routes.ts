import { and, asc, count, eq, inArray, like } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import type { Db } from '../../db/index.ts';
import { roles, userRoles } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { t } from '../../http/i18n.ts';
import type { SessionUser } from '../../http/session.ts';
import { changes } from '../../lib/redact.ts';
import { pagedList } from '../../list/engine.ts';
import { escapeLike } from '../../list/scope.ts';
import { mustKeepAnAdministrator, roleInScope, roleScope } from '../admin/scope.ts';
import { roleText } from './builtin.ts';
import { catalogueFor, covers, stillGranted } from './catalogue.ts';

/** Permissions a role may hold: `*` or endpoints of the caller's kind, each held by the caller. */
function checkPerms(user: SessionUser, perms: readonly string[]): string[] {
  const known = new Set(catalogueFor(user.kind).map((e) => e.permission));
  const unknown = perms.filter((p) => p !== '*' && !known.has(p));
  if (unknown.length) {
    throw new AppError(errno.invalid, {
      fields: [{ path: 'perms', code: 'invalid_value', message: unknown.slice(0, 5).join(', ') }],
    });
  }
  if (!covers(user.perms, perms)) throw new AppError(errno.cannotGrant);
  return [...new Set(perms)].sort();
}

async function nameFree(tx: Db, user: SessionUser, name: string, exceptId?: number) {
  const [clash] = await tx
    .select({ id: roles.id })
    .from(roles)
    .where(and(roleScope(user), eq(roles.name, name)));
  if (clash && clash.id !== exceptId) throw new AppError(errno.roleNameTaken);
}

export const roleRoutes = [
  handle(endpoints.role.list, async ({ input, user, tx, req }) => {
    const where = and(
      roleScope(user),
      input.name ? like(roles.name, `%${escapeLike(input.name)}%`) : undefined,
    );
    const { page: rows, total: n } = await pagedList(
      tx,
      { query: tx.select().from(roles).$dynamic(), table: roles, where, orderBy: [asc(roles.id)] },
      input,
    );
    const counts = rows.length
      ? await tx
          .select({ roleId: userRoles.roleId, n: count() })
          .from(userRoles)
          .where(
            inArray(
              userRoles.roleId,
              rows.map((r) => r.id),
            ),
          )
          .groupBy(userRoles.roleId)
      : [];
    return {
      list: rows.map((r) => ({
        id: r.id,
        ...roleText(r, req.lang),
        builtin: r.builtinKey !== null,
        perms: stillGranted(user.kind, r.perms),
        userCount: counts.find((c) => c.roleId === r.id)?.n ?? 0,
        updatedAt: r.updatedAt.toISOString(),
      })),
      total: n,
      nextCursor: null,
    };
  }),

  handle(endpoints.role.create, async ({ input, user, tx, audit }) => {
    const perms = checkPerms(user, input.perms);
    await nameFree(tx, user, input.name);
    const [row] = await tx
      .insert(roles)
      .values({
        kind: user.kind,
        merchantId: user.merchantId,
        name: input.name,
        description: input.description,
        perms,
      })
      .returning({ id: roles.id });
    audit({
      target: `role:${row!.id}`,
      changes: changes({}, { name: input.name, description: input.description, perms }),
    });
    return { id: row!.id };
  }),

  handle(endpoints.role.update, async ({ input, user, tx, deps, audit }) => {
    const role = await roleInScope(tx, user, input.id);
    audit({ target: `role:${role.id}` });
    if (!covers(user.perms, role.perms)) throw new AppError(errno.cannotGrant);
    if (input.name !== undefined) await nameFree(tx, user, input.name, role.id);
    const next = { name: input.name, description: input.description };
    await tx
      .update(roles)
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        updatedAt: deps.clock.now(),
      })
      .where(eq(roles.id, role.id));
    audit({ changes: changes(role, next) });
    return { ok: true as const };
  }),

  handle(endpoints.role.delete, async ({ input, user, tx, audit }) => {
    const role = await roleInScope(tx, user, input.id);
    audit({ target: `role:${role.id}`, detail: { name: role.name } });
    if (role.builtinKey) throw new AppError(errno.builtinRole);
    if (!covers(user.perms, role.perms)) throw new AppError(errno.cannotGrant);
    await tx.delete(roles).where(eq(roles.id, role.id));
    if (role.perms.includes('*')) await mustKeepAnAdministrator(tx, role);
    return { ok: true as const };
  }),

  handle(endpoints.role.permissions, async ({ input, user, tx, req }) => {
    const groups = new Map<
      string,
      { permission: string; id: string; method: string; path: string; description: string }[]
    >();
    for (const e of catalogueFor(user.kind)) {
      const entry = {
        permission: e.permission,
        id: e.id,
        method: e.method,
        path: e.path,
        description: t(req.lang, `endpoints.${e.id}`),
      };
      groups.set(e.group, [...(groups.get(e.group) ?? []), entry]);
    }
    const granted =
      input.id === undefined
        ? undefined
        : stillGranted(user.kind, (await roleInScope(tx, user, input.id)).perms);
    return {
      groups: [...groups.entries()].map(([group, permissions]) => ({
        group,
        title: t(req.lang, `permGroups.${group}`),
        permissions,
      })),
      ...(granted ? { granted } : {}),
    };
  }),

  handle(endpoints.role.setPermissions, async ({ input, user, tx, deps, audit }) => {
    const role = await roleInScope(tx, user, input.id);
    audit({ target: `role:${role.id}` });
    // Editing a role is granting it: the caller must hold what it has now and what it will have.
    if (!covers(user.perms, role.perms)) throw new AppError(errno.cannotGrant);
    const perms = checkPerms(user, input.perms);
    await tx.update(roles).set({ perms, updatedAt: deps.clock.now() }).where(eq(roles.id, role.id));
    audit({ changes: changes({ perms: role.perms }, { perms }) });
    if (role.perms.includes('*') && !perms.includes('*')) await mustKeepAnAdministrator(tx, role);
    return { ok: true as const };
  }),
];
