import { and, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import QRCode from 'qrcode';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { type Db, inTransaction } from '../../db/index.ts';
import { loginTickets, sessions, users } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError, refuse } from '../../http/errors.ts';
import { handle, type RequestMeta } from '../../http/handle.ts';
import { openSession, permsOf, requireGoogleAuth, revokeSessions } from '../../http/session.ts';
import { invalidField } from '../../http/validation.ts';
import { dummyPasswordHash, hashPassword, randomToken, sha256, verifyPassword } from '../../lib/crypto.ts';
import { changes } from '../../lib/redact.ts';
import { pagedList } from '../../list/engine.ts';
import { storedOrderStatsZone } from '../dashboard/stats.ts';
import { roleText } from '../role/builtin.ts';
import { deviceTokenValid, issueDeviceToken } from './deviceToken.ts';
import { checkEmailCode, sendEmailCode } from './emailCode.ts';
import { moneySessionUntil } from './googleCode.ts';
import { clearFailures, isLocked, recordFailure } from './lockout.ts';
import { confirmSessionPassword } from './sessionPassword.ts';
import { consumeTotp, matchingStep, newTotpSecret, otpauthUrl } from './totp.ts';

type User = typeof users.$inferSelect;

const ticketTtlMs = 5 * 60_000;
const ticketMaxAttempts = 5;

function limitByAddress(deps: Deps, req: RequestMeta): void {
  if (!deps.authLimiter.hit(req.ip || 'unknown')) throw new AppError(errno.tooManyRequests);
}

/**
 * The password step shared by both sign-in flows. Unknown user and wrong password look the same
 * (same errno, same argon2 cost) and both count towards the lockout of the username from this address.
 */
async function checkPassword(deps: Deps, tx: Db, username: string, password: string, address: string) {
  const now = deps.clock.now();
  if (await isLocked(tx, username, address, now)) return { refusal: refuse(errno.accountLocked) } as const;
  const [user] = await tx.select().from(users).where(eq(users.username, username));
  const ok = await verifyPassword(user?.passwordHash ?? (await dummyPasswordHash()), password);
  if (!user || !ok) {
    await recordFailure(tx, username, address, now);
    return { refusal: refuse(errno.badCredentials), user } as const;
  }
  if (user.status !== 'active') return { refusal: refuse(errno.accountDisabled), user } as const;
  return { user } as const;
}

async function signIn(deps: Deps, tx: Db, user: User, req: RequestMeta, remember: boolean) {
  await clearFailures(tx, user.username, req.ip);
  const token = await openSession(deps, tx, user.id, req);
  const mustBindGoogle = user.totpSecret === null && (await requireGoogleAuth(deps, tx, user.kind));
  return {
    token,
    mustBindGoogle,
    ...(remember ? { deviceToken: await issueDeviceToken(deps, tx, user.id, req) } : {}),
  };
}

const totpSecretOf = (deps: Deps, user: User) => (user.totpSecret ? deps.sealer.open(user.totpSecret) : null);

/**
 * Takes one try of a half-finished two-step sign-in, by compare-and-set, before the code is compared: so
 * parallel guesses get no more than the ticket's tries (the row lock orders them on PostgreSQL). Null when
 * the ticket is unknown, used, expired or tried too often, or its user is no longer active.
 */
async function takeTicket(deps: Deps, tx: Db, ticket: string, step: 'google' | 'email') {
  const [row] = await tx
    .update(loginTickets)
    .set({ attempts: sql`${loginTickets.attempts} + 1` })
    .where(
      and(
        eq(loginTickets.ticketHash, sha256(ticket)),
        eq(loginTickets.step, step),
        isNull(loginTickets.usedAt),
        gt(loginTickets.expiresAt, deps.clock.now()),
        lt(loginTickets.attempts, ticketMaxAttempts),
      ),
    )
    .returning({ ticketHash: loginTickets.ticketHash, userId: loginTickets.userId });
  if (!row) return null;
  const [user] = await tx.select().from(users).where(eq(users.id, row.userId));
  if (user?.status !== 'active') return null;
  return { ticketHash: row.ticketHash, user };
}

/** Uses a ticket up, once: a second redemption finds it used. */
async function redeemTicket(tx: Db, ticketHash: string, now: Date): Promise<boolean> {
  const used = await tx
    .update(loginTickets)
    .set({ usedAt: now })
    .where(and(eq(loginTickets.ticketHash, ticketHash), isNull(loginTickets.usedAt)))
    .returning({ ticketHash: loginTickets.ticketHash });
  return used.length === 1;
}

export const authRoutes = [
  handle(endpoints.auth.login, async ({ input, tx, deps, req, audit }) => {
    limitByAddress(deps, req);
    audit({ username: input.username, detail: { flow: 'one-step' } });
    const checked = await checkPassword(deps, tx, input.username, input.password, req.ip);
    audit({ userId: checked.user?.id ?? null });
    if (checked.refusal) return checked.refusal;
    const user = checked.user;
    const secret = totpSecretOf(deps, user);
    let factor = 'password';
    if (secret) {
      if (await deviceTokenValid(deps, tx, input.deviceToken, user.id)) {
        factor = 'device';
      } else {
        if (!input.code) return refuse(errno.secondStepNeeded, { step: 'google' });
        if (!(await consumeTotp(deps, tx, user.id, secret, input.code, deps.clock.now()))) {
          await recordFailure(tx, user.username, req.ip, deps.clock.now());
          return refuse(errno.badCode);
        }
        factor = 'google';
      }
    }
    audit({ detail: { flow: 'one-step', factor } });
    return signIn(deps, tx, user, req, false);
  }),

  handle(endpoints.auth.loginPassword, async ({ input, tx, deps, req, audit, afterCommit }) => {
    limitByAddress(deps, req);
    audit({ username: input.username, detail: { flow: 'two-step', step: 'password' } });
    const checked = await checkPassword(deps, tx, input.username, input.password, req.ip);
    audit({ userId: checked.user?.id ?? null });
    if (checked.refusal) return checked.refusal;
    const user = checked.user;
    const remembered = await deviceTokenValid(deps, tx, input.deviceToken, user.id);
    const step = remembered ? null : user.totpSecret ? 'google' : user.email ? 'email' : null;
    if (!step) {
      audit({ detail: { flow: 'two-step', factor: remembered ? 'device' : 'password' } });
      return signIn(deps, tx, user, req, false);
    }
    const ticket = randomToken();
    await tx.insert(loginTickets).values({
      ticketHash: sha256(ticket),
      userId: user.id,
      step,
      expiresAt: new Date(deps.clock.now().getTime() + ticketTtlMs),
    });
    // The password is proved: the masked address may be told. Within a minute of the last code none is
    // sent and the pending one stays good.
    const sentTo =
      step === 'email' ? await sendEmailCode(deps, tx, user, 'login', req.lang, afterCommit) : undefined;
    return refuse(errno.secondStepNeeded, { ticket, step, ...(sentTo ? { sentTo } : {}) });
  }),

  handle(endpoints.auth.loginGoogleCode, async ({ input, tx, deps, req, audit }) => {
    limitByAddress(deps, req);
    const taken = await takeTicket(deps, tx, input.ticket, 'google');
    if (!taken) return refuse(errno.ticketInvalid);
    const { ticketHash, user } = taken;
    audit({ username: user.username, userId: user.id, detail: { flow: 'two-step', factor: 'google' } });
    const now = deps.clock.now();
    if (await isLocked(tx, user.username, req.ip, now)) return refuse(errno.accountLocked);
    const secret = totpSecretOf(deps, user);
    if (!secret || !(await consumeTotp(deps, tx, user.id, secret, input.code, now))) {
      await recordFailure(tx, user.username, req.ip, now);
      return refuse(errno.badCode);
    }
    if (!(await redeemTicket(tx, ticketHash, now))) return refuse(errno.ticketInvalid);
    return signIn(deps, tx, user, req, input.remember === true);
  }),

  handle(endpoints.auth.loginEmailCode, async ({ input, tx, deps, req, audit }) => {
    limitByAddress(deps, req);
    const taken = await takeTicket(deps, tx, input.ticket, 'email');
    if (!taken) return refuse(errno.ticketInvalid);
    const { ticketHash, user } = taken;
    audit({ username: user.username, userId: user.id, detail: { flow: 'two-step', factor: 'email' } });
    const now = deps.clock.now();
    if (await isLocked(tx, user.username, req.ip, now)) return refuse(errno.accountLocked);
    const result = await checkEmailCode(deps, tx, user.id, 'login', input.code);
    if (result !== errno.ok) {
      await recordFailure(tx, user.username, req.ip, now);
      return refuse(result);
    }
    if (!(await redeemTicket(tx, ticketHash, now))) return refuse(errno.ticketInvalid);
    return signIn(deps, tx, user, req, false);
  }),

  handle(endpoints.auth.sendEmailCode, async ({ input, deps, req }) => {
    limitByAddress(deps, req);
    // A GET by the spec's contract, but it writes a code: it takes its own transaction.
    const after: Array<() => Promise<void>> = [];
    await inTransaction(deps.database.db, async (tx) => {
      after.length = 0;
      const [user] = await tx.select().from(users).where(eq(users.username, input.username));
      // Unknown, without e-mail, disabled: nothing is sent, and the answer is the same as when a code
      // went out (no masked address either), so the endpoint tells nobody who exists.
      if (!user?.email || user.status !== 'active') return;
      await sendEmailCode(deps, tx, user, input.purpose, req.lang, (fn) => after.push(fn));
    });
    for (const fn of after) void fn().catch(() => {});
    return { ok: true as const };
  }),

  handle(endpoints.auth.resetPassword, async ({ input, tx, deps, req, audit }) => {
    limitByAddress(deps, req);
    audit({ username: input.username });
    const now = deps.clock.now();
    if (await isLocked(tx, input.username, req.ip, now)) return refuse(errno.accountLocked);
    const [user] = await tx.select().from(users).where(eq(users.username, input.username));
    const eligible = user?.email && user.status === 'active' ? user : null;
    if (eligible) audit({ userId: eligible.id, target: `user:${eligible.id}` });
    const result = eligible
      ? await checkEmailCode(deps, tx, eligible.id, 'reset', input.code)
      : errno.badCode;
    if (!eligible || result !== errno.ok) {
      // One answer for a wrong, expired or used code and for a name that could have no code (unknown,
      // without e-mail, disabled): telling them apart would tell who exists.
      await recordFailure(tx, input.username, req.ip, now);
      return refuse(errno.badCode);
    }
    await tx
      .update(users)
      .set({ passwordHash: await hashPassword(input.password), updatedAt: now })
      .where(eq(users.id, eligible.id));
    await revokeSessions(deps, tx, eligible.id);
    await clearFailures(tx, eligible.username, req.ip);
    audit({ changes: { password: { before: '[redacted]', after: '[redacted]' } } });
    return { ok: true as const };
  }),

  handle(endpoints.auth.logout, async ({ user, tx, deps }) => {
    await tx
      .update(sessions)
      .set({ revokedAt: deps.clock.now() })
      .where(eq(sessions.tokenHash, user.tokenHash));
    return { ok: true as const };
  }),

  // For a session or a remembered device that may be in other hands: all of them end, this one too.
  handle(endpoints.auth.logoutAll, async ({ user, tx, deps, audit }) => {
    audit({ target: `user:${user.id}` });
    await revokeSessions(deps, tx, user.id);
    return { ok: true as const };
  }),

  // Where the caller is signed in: open sessions only (not revoked, not past their end, not idle too long).
  handle(endpoints.auth.sessions, async ({ input, user, tx, deps }) => {
    const now = deps.clock.now();
    const open = and(
      eq(sessions.userId, user.id),
      isNull(sessions.revokedAt),
      gt(sessions.expiresAt, now),
      gt(sessions.lastSeenAt, new Date(now.getTime() - deps.config.sessionIdleMinutes * 60_000)),
    );
    const { page, total, nextCursor } = await pagedList(
      tx,
      {
        query: tx.select().from(sessions).$dynamic(),
        table: sessions,
        where: open,
        orderBy: [desc(sessions.lastSeenAt), desc(sessions.createdAt)],
      },
      input,
    );
    const list = page.map((s) => ({
      createdAt: s.createdAt.toISOString(),
      lastSeenAt: s.lastSeenAt.toISOString(),
      expiresAt: s.expiresAt.toISOString(),
      ip: s.ip,
      userAgent: s.userAgent,
      current: s.tokenHash === user.tokenHash,
    }));
    return { list, total, nextCursor };
  }),

  handle(endpoints.auth.info, async ({ user, tx, deps, req }) => {
    const [row] = await tx.select().from(users).where(eq(users.id, user.id));
    if (!row) throw new AppError(errno.notSignedIn);
    const { roleRows } = await permsOf(tx, user.id);
    return {
      id: row.id,
      username: row.username,
      name: row.nickname,
      avatar: row.avatar,
      introduction: row.introduction,
      email: row.email,
      kind: row.kind,
      merchantId: row.merchantId,
      roles: roleRows.map((r) => roleText(r, req.lang).name),
      perms: user.perms,
      googleBound: user.googleBound,
      mustBindGoogle: user.mustBindGoogle,
      moneyUntil: moneySessionUntil(user, deps.clock.now())?.toISOString() ?? null,
      businessTimeZone: await storedOrderStatsZone(tx),
    };
  }),

  handle(endpoints.auth.changePassword, async ({ input, user, tx, deps, req, audit }) => {
    const now = deps.clock.now();
    audit({ target: `user:${user.id}` });
    const [row] = await tx.select().from(users).where(eq(users.id, user.id));
    if (!row) throw new AppError(errno.notSignedIn);
    // A wrong old password counts against this session, not towards the sign-in lockout (sessionPassword.ts).
    const refused = await confirmSessionPassword(
      { deps, tx, user, req, audit },
      row.passwordHash,
      input.oldPassword,
      errno.wrongOldPassword,
    );
    if (refused) return refused;
    await tx
      .update(users)
      .set({ passwordHash: await hashPassword(input.newPassword), updatedAt: now })
      .where(eq(users.id, user.id));
    // Other sessions and every remembered device end; the session that changed the password goes on.
    await revokeSessions(deps, tx, user.id, user.tokenHash);
    audit({ changes: { password: { before: '[redacted]', after: '[redacted]' } } });
    return { ok: true as const };
  }),

  handle(endpoints.auth.updateProfile, async ({ input, user, tx, deps, req, audit }) => {
    const [row] = await tx.select().from(users).where(eq(users.id, user.id));
    if (!row) throw new AppError(errno.notSignedIn);
    audit({ target: `user:${user.id}` });
    // The e-mail address receives reset codes: changing it is taking the account, unless the password says
    // the owner is at the keyboard.
    if (input.email !== undefined && input.email !== row.email) {
      if (input.password === undefined)
        throw invalidField(req.lang, 'password', 'validation.passwordForEmail');
      const refused = await confirmSessionPassword(
        { deps, tx, user, req, audit },
        row.passwordHash,
        input.password,
        errno.badCredentials,
      );
      if (refused) return refused;
    }
    const next = { nickname: input.nickname, email: input.email, introduction: input.introduction };
    audit({ changes: changes(row, next) });
    await tx
      .update(users)
      .set({
        ...Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined)),
        updatedAt: deps.clock.now(),
      })
      .where(eq(users.id, user.id));
    return { ok: true as const };
  }),

  handle(endpoints.auth.googleBindInfo, async ({ user }) => {
    if (user.googleBound) return { bound: true };
    const secret = newTotpSecret();
    const url = otpauthUrl(secret, user.username);
    return {
      bound: false,
      secret,
      otpauthUrl: url,
      qr: await QRCode.toDataURL(url, { margin: 1, width: 200 }),
    };
  }),

  handle(endpoints.auth.googleBind, async ({ input, user, tx, deps, req, audit }) => {
    audit({ target: `user:${user.id}` });
    const [row] = await tx.select().from(users).where(eq(users.id, user.id));
    if (!row) throw new AppError(errno.notSignedIn);
    if (row.totpSecret) return refuse(errno.googleAlreadyBound);
    // A first key bound from a stolen session would make it the thief's account for good.
    const refused = await confirmSessionPassword(
      { deps, tx, user, req, audit },
      row.passwordHash,
      input.password,
      errno.badCredentials,
    );
    if (refused) return refused;
    const step = matchingStep(input.secret, input.code, deps.clock.now());
    if (step === null || step <= row.totpLastStep) return refuse(errno.badCode);
    await tx
      .update(users)
      .set({ totpSecret: deps.sealer.seal(input.secret), totpLastStep: step, updatedAt: deps.clock.now() })
      .where(eq(users.id, user.id));
    audit({ changes: { googleBound: { before: false, after: true } } });
    return { ok: true as const };
  }),

  handle(endpoints.auth.googleUnbind, async ({ input, user, tx, deps, req, audit }) => {
    audit({ target: `user:${user.id}` });
    const now = deps.clock.now();
    const [row] = await tx.select().from(users).where(eq(users.id, user.id));
    if (!row) throw new AppError(errno.notSignedIn);
    const secret = totpSecretOf(deps, row);
    if (!secret) return refuse(errno.googleNotBound);
    const refused = await confirmSessionPassword(
      { deps, tx, user, req, audit },
      row.passwordHash,
      input.password,
      errno.badCredentials,
    );
    if (refused) return refused;
    if (!(await consumeTotp(deps, tx, user.id, secret, input.code, now))) {
      await recordFailure(tx, user.username, req.ip, now);
      return refuse(errno.badCode);
    }
    await tx.update(users).set({ totpSecret: null, updatedAt: now }).where(eq(users.id, user.id));
    // Remembered devices skipped the key that is gone; other sessions end as after a password change.
    await revokeSessions(deps, tx, user.id, user.tokenHash);
    audit({ changes: { googleBound: { before: true, after: false } } });
    return { ok: true as const };
  }),
];
