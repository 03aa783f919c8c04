/** A user as the administrator lists show it (the platform's users and a merchant's), with its roles. */
import { asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { roles, userRoles, type users } from '../../db/schema.ts';
import type { Lang } from '../../http/i18n.ts';
import { roleText } from '../role/builtin.ts';

type User = typeof users.$inferSelect;
type RoleName = { id: number; name: string };

/** The roles of these users, by user, named in the caller's language (built-in ones translated). */
async function rolesOf(tx: Db, ids: number[], lang: Lang) {
  const byUser = new Map<number, RoleName[]>();
  if (!ids.length) return byUser;
  const links = await tx
    .select({
      userId: userRoles.userId,
      id: roles.id,
      name: roles.name,
      description: roles.description,
      builtinKey: roles.builtinKey,
    })
    .from(userRoles)
    .innerJoin(roles, eq(roles.id, userRoles.roleId))
    .where(inArray(userRoles.userId, ids))
    .orderBy(asc(roles.id));
  for (const l of links)
    byUser.set(l.userId, [...(byUser.get(l.userId) ?? []), { id: l.id, name: roleText(l, lang).name }]);
  return byUser;
}

/** A page of users as a list shows them, each with its roles (one query for the page's roles). */
export async function userRows(tx: Db, page: readonly User[], lang: Lang) {
  const roleNames = await rolesOf(
    tx,
    page.map((r) => r.id),
    lang,
  );
  return page.map((r) => ({
    id: r.id,
    username: r.username,
    nickname: r.nickname,
    email: r.email,
    status: r.status,
    merchantId: r.merchantId,
    roles: roleNames.get(r.id) ?? [],
    googleBound: r.totpSecret !== null,
    lastLoginAt: r.lastLoginAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
  }));
}
