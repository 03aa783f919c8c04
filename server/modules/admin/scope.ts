import { and, eq, isNull, type SQL } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import type { Db } from '../../db/index.ts';
import { roles, users } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import type { SessionUser } from '../../http/session.ts';
import { permsOf } from '../../http/session.ts';
import { covers } from '../role/catalogue.ts';

/** Users the caller may see: its own kind, and for merchant users its own merchant. */
export function userScope(user: SessionUser): SQL {
  return user.kind === 'platform'
    ? and(eq(users.kind, 'platform'))!
    : and(eq(users.kind, 'merchant'), eq(users.merchantId, user.merchantId!))!;
}

export function roleScope(user: SessionUser): SQL {
  return user.kind === 'platform'
    ? and(eq(roles.kind, 'platform'), isNull(roles.merchantId))!
    : and(eq(roles.kind, 'merchant'), eq(roles.merchantId, user.merchantId!))!;
}

/** A user inside the caller's scope, or 404 (never 403, which would tell that it exists). */
export async function userInScope(tx: Db, caller: SessionUser, id: number) {
  const [row] = await tx
    .select()
    .from(users)
    .where(and(eq(users.id, id), userScope(caller)));
  if (!row) throw new AppError(errno.notFound);
  return row;
}

export async function roleInScope(tx: Db, caller: SessionUser, id: number) {
  const [row] = await tx
    .select()
    .from(roles)
    .where(and(eq(roles.id, id), roleScope(caller)));
  if (!row) throw new AppError(errno.notFound);
  return row;
}

/** No one manages a user who holds more than they do, or grants what they do not hold. */
export async function mustCoverUser(tx: Db, caller: SessionUser, targetId: number): Promise<void> {
  const { perms } = await permsOf(tx, targetId);
  if (!covers(caller.perms, perms)) throw new AppError(errno.cannotGrant);
}

/** Roles to assign: each in scope and each within the caller's own permissions. */
export async function grantableRoles(tx: Db, caller: SessionUser, roleIds: readonly number[]) {
  const unique = [...new Set(roleIds)];
  const rows = [];
  for (const id of unique) rows.push(await roleInScope(tx, caller, id));
  if (
    !covers(
      caller.perms,
      rows.flatMap((r) => r.perms),
    )
  )
    throw new AppError(errno.cannotGrant);
  return rows;
}
