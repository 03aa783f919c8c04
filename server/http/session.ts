import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { errno } from '../../contract/errno.ts';
import type { UserKind } from '../../contract/schemas.ts';
import type { Db } from '../db/index.ts';
import { parameters, roles, sessions, userRoles, users } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { randomToken, sha256 } from '../lib/crypto.ts';
import { AppError } from './errors.ts';

/** The signed-in user as every handler sees it; permissions are read fresh on each call. */
export interface SessionUser {
  id: number;
  username: string;
  nickname: string;
  kind: UserKind;
  merchantId: number | null;
  perms: string[];
  roles: string[];
  googleBound: boolean;
  /** The platform requires a Google key and this user has none yet. */
  mustBindGoogle: boolean;
  tokenHash: string;
}

/** Don't rewrite `last_seen_at` on every call: idle expiry only needs it to this precision. */
const touchEveryMs = 30_000;

export async function requireGoogleAuth(db: Db): Promise<boolean> {
  const [row] = await db.select().from(parameters).where(eq(parameters.key, 'require_google_auth'));
  return row?.value === true;
}

/** Permissions a user holds through its roles. */
export async function permsOf(
  db: Db,
  userId: number,
): Promise<{
  perms: string[];
  roles: string[];
  roleRows: { name: string; description: string; builtinKey: string | null }[];
}> {
  const rows = await db
    .select({
      name: roles.name,
      description: roles.description,
      builtinKey: roles.builtinKey,
      perms: roles.perms,
    })
    .from(userRoles)
    .innerJoin(roles, eq(roles.id, userRoles.roleId))
    .where(eq(userRoles.userId, userId));
  return {
    perms: [...new Set(rows.flatMap((r) => r.perms))].sort(),
    roles: rows.map((r) => r.name),
    roleRows: rows,
  };
}

/** The user's roles (name and permissions) as one JSON array, for the session query. */
const rolesJson = sql<unknown>`coalesce((select json_agg(json_build_object('name', ${roles.name}, 'perms', ${roles.perms}) order by ${roles.id})
  from ${userRoles} join ${roles} on ${roles.id} = ${userRoles.roleId} where ${userRoles.userId} = ${users.id}), '[]'::json)`;
const requireGoogleJson = sql<unknown>`(select ${parameters.value} from ${parameters} where ${parameters.key} = 'require_google_auth')`;

const buildSessionQuery = (db: Db) =>
  db
    .select({ s: sessions, u: users, roles: rolesJson, requireGoogle: requireGoogleJson })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.tokenHash, sql.placeholder('tokenHash')))
    .prepare('session_by_token');
const sessionQueries = new WeakMap<Db, ReturnType<typeof buildSessionQuery>>();

/** The session query of every signed-in call, built (and on PostgreSQL prepared) once per database. */
function sessionQuery(db: Db) {
  let q = sessionQueries.get(db);
  if (!q) {
    q = buildSessionQuery(db);
    sessionQueries.set(db, q);
  }
  return q;
}

/** JSON as the driver hands it over: parsed already (node-postgres, PGlite) or as text. */
const parsedJson = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

/**
 * Resolves an `admin-token` to its user, or throws 501 (missing, unknown, revoked) / 506 (expired). One
 * query reads the session, its user, the user's roles with their permissions and the Google parameter;
 * a second (at most every 30 s) moves `last_seen_at`.
 */
export async function resolveSession(deps: Deps, token: string | undefined): Promise<SessionUser> {
  if (!token || token.length > 200) throw new AppError(errno.notSignedIn);
  const db = deps.database.db;
  const tokenHash = sha256(token);
  const [row] = await sessionQuery(db).execute({ tokenHash });
  if (!row || row.s.revokedAt || row.u.status !== 'active') throw new AppError(errno.notSignedIn);
  const now = deps.clock.now();
  const idleMs = deps.config.sessionIdleMinutes * 60_000;
  if (row.s.expiresAt <= now || now.getTime() - row.s.lastSeenAt.getTime() > idleMs) {
    throw new AppError(errno.sessionExpired);
  }
  if (now.getTime() - row.s.lastSeenAt.getTime() > touchEveryMs) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.tokenHash, tokenHash));
  }
  const roleRows = parsedJson<{ name: string; perms: string[] }[]>(row.roles);
  const googleBound = row.u.totpSecret !== null;
  return {
    id: row.u.id,
    username: row.u.username,
    nickname: row.u.nickname,
    kind: row.u.kind,
    merchantId: row.u.merchantId,
    perms: [...new Set(roleRows.flatMap((r) => r.perms))].sort(),
    roles: roleRows.map((r) => r.name),
    googleBound,
    mustBindGoogle: !googleBound && parsedJson(row.requireGoogle) === true,
    tokenHash,
  };
}

/** Opens a session for a user who passed every step; answers the token once. */
export async function openSession(
  deps: Deps,
  tx: Db,
  userId: number,
  meta: { ip: string; userAgent: string },
): Promise<string> {
  const token = randomToken();
  const now = deps.clock.now();
  await tx.insert(sessions).values({
    tokenHash: sha256(token),
    userId,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + deps.config.sessionMaxHours * 3_600_000),
    ip: meta.ip,
    userAgent: meta.userAgent.slice(0, 300),
  });
  await tx.update(users).set({ lastLoginAt: now }).where(eq(users.id, userId));
  return token;
}

/** Revokes a user's sessions, all of them or all but one. */
export async function revokeSessions(deps: Deps, tx: Db, userId: number, except?: string): Promise<void> {
  const open = and(eq(sessions.userId, userId), isNull(sessions.revokedAt));
  const rows = await tx.select({ h: sessions.tokenHash }).from(sessions).where(open);
  const hashes = rows.map((r) => r.h).filter((h) => h !== except);
  if (hashes.length) {
    await tx.update(sessions).set({ revokedAt: deps.clock.now() }).where(inArray(sessions.tokenHash, hashes));
  }
}
