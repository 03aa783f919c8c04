import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { errno } from '../../contract/errno.ts';
import type { UserKind } from '../../contract/schemas.ts';
import type { Database, Db } from '../db/index.ts';
import { deviceTokens, parameters, roles, sessions, userRoles, users } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { randomToken, sha256 } from '../lib/crypto.ts';
import { parameterOf, readParameter } from '../lib/parameters.ts';
import { AppError } from './errors.ts';

/**
 * The signed-in user as every handler sees it. It reflects the database as of the call: a resolved session
 * is kept only while the change feed shows no change to sessions, users, roles or parameters since it was
 * read (see `resolveSession`). Shared between calls, hence read-only.
 */
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
  /** Until when this session's money session is open (docs/SECURITY.md), if it was opened. */
  moneyUntil: Date | null;
}

/** Don't rewrite `last_seen_at` on every call: idle expiry only needs it to this precision. */
const touchEveryMs = 30_000;

/**
 * A user must bind a Google key first: everyone with `REQUIRE_GOOGLE_AUTH=1`, platform users when the
 * `require_google_auth` parameter (its stored value, `parameter`) says so.
 */
const googleRequired = (deps: Pick<Deps, 'config'>, kind: UserKind, parameter: unknown) =>
  deps.config.requireGoogleAuth || (kind === 'platform' && parameterOf('require_google_auth', parameter));

export async function requireGoogleAuth(deps: Deps, db: Db, kind: UserKind): Promise<boolean> {
  if (deps.config.requireGoogleAuth) return true;
  return kind === 'platform' && (await readParameter(db, 'require_google_auth'));
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

interface Kept {
  user: Readonly<SessionUser>;
  /** When the session ends (ms), and `last_seen_at` as this process last read or wrote it (ms). */
  expiresAt: number;
  lastSeenAt: number;
  /** The change feed's version when it was read. */
  version: number;
}

/** Resolved sessions per open database (tests run several), by token hash. */
const kept = new WeakMap<Database, Map<string, Kept>>();
const maxKept = 10_000;

/**
 * Resolves an `admin-token` to its user, or throws 501 (missing, unknown, revoked) / 506 (expired).
 *
 * A session resolved lately is answered from memory when nothing it depends on can have changed: the
 * change feed (server/db/index.ts) is live and at the version it was read at — any committed change to
 * sessions (but `last_seen_at`), users, roles, user_roles or parameters moves it, in this process before
 * the change's call returns, in every other server process before a console change's answer leaves —
 * and at most 30 s (`touchEveryMs`) have passed since the `last_seen_at` it knows, so that idle expiry
 * (one minute at the least) cannot fall in between; the absolute expiry is checked on every call.
 * Otherwise one query reads the session, its user, the user's roles with their permissions and the Google
 * parameter, and a second (at most every 30 s) moves `last_seen_at`.
 */
export async function resolveSession(deps: Deps, token: string | undefined): Promise<SessionUser> {
  if (!token || token.length > 200) throw new AppError(errno.notSignedIn);
  const { database } = deps;
  const feed = database.changes;
  const tokenHash = sha256(token);
  const now = deps.clock.now();
  const nowMs = now.getTime();
  let cache = kept.get(database);
  const hit = cache?.get(tokenHash);
  if (hit) {
    if (
      feed.live &&
      hit.version === feed.version &&
      nowMs < hit.expiresAt &&
      nowMs >= hit.lastSeenAt &&
      nowMs - hit.lastSeenAt <= touchEveryMs
    ) {
      return hit.user as SessionUser;
    }
    cache!.delete(tokenHash);
  }
  // Read at this version: kept only if nothing moved the feed meanwhile.
  const version = feed.version;
  const live = feed.live;
  const db = database.db;
  const [row] = await sessionQuery(db).execute({ tokenHash });
  if (!row || row.s.revokedAt || row.u.status !== 'active') throw new AppError(errno.notSignedIn);
  const idleMs = deps.config.sessionIdleMinutes * 60_000;
  if (row.s.expiresAt <= now || nowMs - row.s.lastSeenAt.getTime() > idleMs) {
    throw new AppError(errno.sessionExpired);
  }
  let lastSeenAt = row.s.lastSeenAt.getTime();
  if (nowMs - lastSeenAt > touchEveryMs) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.tokenHash, tokenHash));
    lastSeenAt = nowMs;
  }
  const roleRows = parsedJson<{ name: string; perms: string[] }[]>(row.roles);
  const googleBound = row.u.totpSecret !== null;
  const user: SessionUser = {
    id: row.u.id,
    username: row.u.username,
    nickname: row.u.nickname,
    kind: row.u.kind,
    merchantId: row.u.merchantId,
    perms: [...new Set(roleRows.flatMap((r) => r.perms))].sort(),
    roles: roleRows.map((r) => r.name),
    googleBound,
    mustBindGoogle:
      !googleBound && googleRequired(deps, row.u.kind, parsedJson(row.requireGoogle) ?? undefined),
    tokenHash,
    moneyUntil: row.s.moneyUntil,
  };
  if (live && feed.live && feed.version === version) {
    if (!cache) {
      cache = new Map();
      kept.set(database, cache);
    }
    if (cache.size >= maxKept) cache.clear();
    Object.freeze(user.perms);
    Object.freeze(user.roles);
    cache.set(tokenHash, {
      user: Object.freeze(user),
      expiresAt: row.s.expiresAt.getTime(),
      lastSeenAt,
      version,
    });
  }
  return user;
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

/**
 * Revokes a user's sessions, all of them or all but one, and every device the user asked to remember: the
 * callers are the moments credentials change hands or are taken back (signing out everywhere, a password
 * change, reset or set by an administrator, a Google key reset or unbind, disabling the user), after
 * which nothing issued before may skip a step.
 */
export async function revokeSessions(deps: Deps, tx: Db, userId: number, except?: string): Promise<void> {
  const now = deps.clock.now();
  const open = and(eq(sessions.userId, userId), isNull(sessions.revokedAt));
  const rows = await tx.select({ h: sessions.tokenHash }).from(sessions).where(open);
  const hashes = rows.map((r) => r.h).filter((h) => h !== except);
  if (hashes.length) {
    await tx.update(sessions).set({ revokedAt: now }).where(inArray(sessions.tokenHash, hashes));
  }
  await tx
    .update(deviceTokens)
    .set({ revokedAt: now })
    .where(and(eq(deviceTokens.userId, userId), isNull(deviceTokens.revokedAt)));
}
