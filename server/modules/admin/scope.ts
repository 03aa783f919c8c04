import { and, countDistinct, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import type { UserKind } from '../../../contract/schemas.ts';
import type { Db } from '../../db/index.ts';
import { roles, userRoles, users } from '../../db/schema.ts';
import { AppError, foundOne } from '../../http/errors.ts';
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
  return foundOne(
    tx
      .select()
      .from(users)
      .where(and(eq(users.id, id), userScope(caller))),
  );
}

export async function roleInScope(tx: Db, caller: SessionUser, id: number) {
  return foundOne(
    tx
      .select()
      .from(roles)
      .where(and(eq(roles.id, id), roleScope(caller))),
  );
}

/** No one manages a user who holds more than they do, or grants what they do not hold. Answers its permissions. */
export async function mustCoverUser(tx: Db, caller: SessionUser, targetId: number): Promise<string[]> {
  const { perms } = await permsOf(tx, targetId);
  if (!covers(caller.perms, perms)) throw new AppError(errno.cannotGrant);
  return perms;
}

/** Tenants (the platform, a merchant) whose administrators' changes wait for each other. */
const administratorsLock = 0x61646d;

/**
 * Every tenant keeps an administrator: an active user holding `*` through a role of its own (the
 * platform's super administrators, a merchant's owners). Runs after a change that may have taken one
 * away, in its transaction, and refuses it (1020) when none is left. Two such changes in one tenant take
 * turns here, so two administrators removing each other at once cannot both pass: the second sees the
 * first's committed change.
 */
export async function mustKeepAnAdministrator(tx: Db, tenant: { kind: UserKind; merchantId: number | null }) {
  await tx.execute(sql`select pg_advisory_xact_lock(${administratorsLock}, ${tenant.merchantId ?? 0})`);
  const [row] = await tx
    .select({ n: countDistinct(users.id) })
    .from(users)
    .innerJoin(userRoles, eq(userRoles.userId, users.id))
    .innerJoin(roles, eq(roles.id, userRoles.roleId))
    .where(
      and(
        eq(users.kind, tenant.kind),
        tenant.merchantId === null ? isNull(users.merchantId) : eq(users.merchantId, tenant.merchantId),
        eq(users.status, 'active'),
        eq(roles.kind, tenant.kind),
        tenant.merchantId === null ? isNull(roles.merchantId) : eq(roles.merchantId, tenant.merchantId),
        sql`${roles.perms} @> '["*"]'::jsonb`,
      ),
    );
  if (!row?.n) throw new AppError(errno.lastAdministrator);
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
