import { eq } from 'drizzle-orm';
import QRCode from 'qrcode';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { type Db, inTransaction } from '../../db/index.ts';
import { loginTickets, sessions, users } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError, refuse } from '../../http/errors.ts';
import { handle, type RequestMeta } from '../../http/handle.ts';
import { openSession, permsOf, requireGoogleAuth, revokeSessions } from '../../http/session.ts';
import { dummyPasswordHash, hashPassword, randomToken, sha256, verifyPassword } from '../../lib/crypto.ts';
import { changes } from '../../lib/redact.ts';
import { roleText } from '../role/builtin.ts';
import { deviceTokenValid, signDeviceToken } from './deviceToken.ts';
import { checkEmailCode, sendEmailCode } from './emailCode.ts';
import { clearFailures, isLocked, recordFailure } from './lockout.ts';
import { consumeTotp, matchingStep, newTotpSecret, otpauthUrl } from './totp.ts';

type User = typeof users.$inferSelect;

const ticketTtlMs = 5 * 60_000;
const ticketMaxAttempts = 5;

function limitByAddress(deps: Deps, req: RequestMeta): void {
  if (!deps.authLimiter.hit(req.ip || 'unknown')) throw new AppError(errno.tooManyRequests);
}

/**
 * The password step shared by both sign-in flows. Unknown user and wrong password look the same
 * (same errno, same argon2 cost) and both count towards the username's lockout.
 */
async function checkPassword(deps: Deps, tx: Db, username: string, password: string) {
  const now = deps.clock.now();
  if (await isLocked(tx, username, now)) return { refusal: refuse(errno.accountLocked) } as const;
  const [user] = await tx.select().from(users).where(eq(users.username, username));
  const ok = await verifyPassword(user?.passwordHash ?? (await dummyPasswordHash()), password);
  if (!user || !ok) {
    await recordFailure(tx, username, now);
    return { refusal: refuse(errno.badCredentials), user } as const;
  }
  if (user.status !== 'active') return { refusal: refuse(errno.accountDisabled), user } as const;
  return { user } as const;
}

async function signIn(deps: Deps, tx: Db, user: User, req: RequestMeta, remember: boolean) {
  await clearFailures(tx, user.username);
  const token = await openSession(deps, tx, user.id, req);
  const mustBindGoogle = user.totpSecret === null && (await requireGoogleAuth(tx));
  return {
    token,
    mustBindGoogle,
    ...(remember
      ? { deviceToken: signDeviceToken(deps.config.appKey, user.username, user.id, deps.clock.now()) }
      : {}),
  };
}

const totpSecretOf = (deps: Deps, user: User) => (user.totpSecret ? deps.sealer.open(user.totpSecret) : null);

/** A half-finished two-step sign-in; refuses when the ticket is unknown, used, expired or tried too often. */
async function takeTicket(deps: Deps, tx: Db, ticket: string, step: 'google' | 'email') {
  const [row] = await tx
    .select()
    .from(loginTickets)
    .where(eq(loginTickets.ticketHash, sha256(ticket)));
  if (
    !row ||
    row.step !== step ||
    row.usedAt ||
    row.expiresAt <= deps.clock.now() ||
    row.attempts >= ticketMaxAttempts
  ) {
    return null;
  }
  const [user] = await tx.select().from(users).where(eq(users.id, row.userId));
  if (user?.status !== 'active') return null;
  return { row, user };
}

export const authRoutes = [
  handle(endpoints.auth.login, async ({ input, tx, deps, req, audit }) => {
    limitByAddress(deps, req);
    audit({ username: input.username, detail: { flow: 'one-step' } });
    const checked = await checkPassword(deps, tx, input.username, input.password);
    audit({ userId: checked.user?.id ?? null });
    if (checked.refusal) return checked.refusal;
    const user = checked.user;
    const secret = totpSecretOf(deps, user);
    let factor = 'password';
    if (secret) {
      if (deviceTokenValid(deps.config.appKey, input.deviceToken, user.id, user.username, deps.clock.now())) {
        factor = 'device';
      } else {
        if (!input.code) return refuse(errno.secondStepNeeded, { step: 'google' });
        if (!(await consumeTotp(tx, user.id, secret, input.code, deps.clock.now()))) {
          await recordFailure(tx, user.username, deps.clock.now());
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
    const checked = await checkPassword(deps, tx, input.username, input.password);
    audit({ userId: checked.user?.id ?? null });
    if (checked.refusal) return checked.refusal;
    const user = checked.user;
    const remembered = deviceTokenValid(
      deps.config.appKey,
      input.deviceToken,
      user.id,
      user.username,
      deps.clock.now(),
    );
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
    const sentTo =
      step === 'email' ? await sendEmailCode(deps, tx, user, 'login', req.lang, afterCommit) : undefined;
    return refuse(errno.secondStepNeeded, { ticket, step, ...(sentTo ? { sentTo } : {}) });
  }),

  handle(endpoints.auth.loginGoogleCode, async ({ input, tx, deps, req, audit }) => {
    limitByAddress(deps, req);
    const taken = await takeTicket(deps, tx, input.ticket, 'google');
    if (!taken) return refuse(errno.ticketInvalid);
    const { row, user } = taken;
    audit({ username: user.username, userId: user.id, detail: { flow: 'two-step', factor: 'google' } });
    const now = deps.clock.now();
    if (await isLocked(tx, user.username, now)) return refuse(errno.accountLocked);
    const secret = totpSecretOf(deps, user);
    if (!secret || !(await consumeTotp(tx, user.id, secret, input.code, now))) {
      await tx
        .update(loginTickets)
        .set({ attempts: row.attempts + 1 })
        .where(eq(loginTickets.ticketHash, row.ticketHash));
      await recordFailure(tx, user.username, now);
      return refuse(errno.badCode);
    }
    await tx.update(loginTickets).set({ usedAt: now }).where(eq(loginTickets.ticketHash, row.ticketHash));
    return signIn(deps, tx, user, req, input.remember === true);
  }),

  handle(endpoints.auth.loginEmailCode, async ({ input, tx, deps, req, audit }) => {
    limitByAddress(deps, req);
    const taken = await takeTicket(deps, tx, input.ticket, 'email');
    if (!taken) return refuse(errno.ticketInvalid);
    const { row, user } = taken;
    audit({ username: user.username, userId: user.id, detail: { flow: 'two-step', factor: 'email' } });
    const now = deps.clock.now();
    if (await isLocked(tx, user.username, now)) return refuse(errno.accountLocked);
    const result = await checkEmailCode(deps, tx, user.id, 'login', input.code);
    if (result !== errno.ok) {
      await tx
        .update(loginTickets)
        .set({ attempts: row.attempts + 1 })
        .where(eq(loginTickets.ticketHash, row.ticketHash));
      await recordFailure(tx, user.username, now);
      return refuse(result);
    }
    await tx.update(loginTickets).set({ usedAt: now }).where(eq(loginTickets.ticketHash, row.ticketHash));
    return signIn(deps, tx, user, req, false);
  }),

  handle(endpoints.auth.sendEmailCode, async ({ input, deps, req }) => {
    limitByAddress(deps, req);
    // A GET by the spec's contract, but it writes a code: it takes its own transaction.
    const after: Array<() => Promise<void>> = [];
    const sentTo = await inTransaction(deps.database.db, async (tx) => {
      after.length = 0;
      const [user] = await tx.select().from(users).where(eq(users.username, input.username));
      // Unknown user, no e-mail and disabled all answer alike: contact the administrator.
      if (!user?.email || user.status !== 'active') throw new AppError(errno.noEmail);
      return sendEmailCode(deps, tx, user, input.purpose, req.lang, (fn) => after.push(fn));
    });
    for (const fn of after) void fn().catch(() => {});
    return { sentTo };
  }),

  handle(endpoints.auth.resetPassword, async ({ input, tx, deps, req, audit }) => {
    limitByAddress(deps, req);
    audit({ username: input.username });
    const now = deps.clock.now();
    if (await isLocked(tx, input.username, now)) return refuse(errno.accountLocked);
    const [user] = await tx.select().from(users).where(eq(users.username, input.username));
    if (!user) {
      await recordFailure(tx, input.username, now);
      return refuse(errno.badCode);
    }
    audit({ userId: user.id, target: `user:${user.id}` });
    const result = await checkEmailCode(deps, tx, user.id, 'reset', input.code);
    if (result !== errno.ok) {
      await recordFailure(tx, user.username, now);
      return refuse(result);
    }
    await tx
      .update(users)
      .set({ passwordHash: await hashPassword(input.password), updatedAt: now })
      .where(eq(users.id, user.id));
    await revokeSessions(deps, tx, user.id);
    await clearFailures(tx, user.username);
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

  handle(endpoints.auth.info, async ({ user, tx, req }) => {
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
    };
  }),

  handle(endpoints.auth.changePassword, async ({ input, user, tx, deps, audit }) => {
    const now = deps.clock.now();
    audit({ target: `user:${user.id}` });
    if (await isLocked(tx, user.username, now)) return refuse(errno.accountLocked);
    const [row] = await tx.select().from(users).where(eq(users.id, user.id));
    if (!row || !(await verifyPassword(row.passwordHash, input.oldPassword))) {
      await recordFailure(tx, user.username, now);
      return refuse(errno.wrongOldPassword);
    }
    await tx
      .update(users)
      .set({ passwordHash: await hashPassword(input.newPassword), updatedAt: now })
      .where(eq(users.id, user.id));
    // Other sessions end; the one that changed the password goes on.
    await revokeSessions(deps, tx, user.id, user.tokenHash);
    audit({ changes: { password: { before: '[redacted]', after: '[redacted]' } } });
    return { ok: true as const };
  }),

  handle(endpoints.auth.updateProfile, async ({ input, user, tx, deps, audit }) => {
    const [row] = await tx.select().from(users).where(eq(users.id, user.id));
    if (!row) throw new AppError(errno.notSignedIn);
    const next = { nickname: input.nickname, email: input.email, introduction: input.introduction };
    audit({ target: `user:${user.id}`, changes: changes(row, next) });
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

  handle(endpoints.auth.googleBind, async ({ input, user, tx, deps, audit }) => {
    audit({ target: `user:${user.id}` });
    const [row] = await tx.select().from(users).where(eq(users.id, user.id));
    if (!row) throw new AppError(errno.notSignedIn);
    if (row.totpSecret) return refuse(errno.googleAlreadyBound);
    const step = matchingStep(input.secret, input.code, deps.clock.now());
    if (step === null || step <= row.totpLastStep) return refuse(errno.badCode);
    await tx
      .update(users)
      .set({ totpSecret: deps.sealer.seal(input.secret), totpLastStep: step, updatedAt: deps.clock.now() })
      .where(eq(users.id, user.id));
    audit({ changes: { googleBound: { before: false, after: true } } });
    return { ok: true as const };
  }),

  handle(endpoints.auth.googleUnbind, async ({ input, user, tx, deps, audit }) => {
    audit({ target: `user:${user.id}` });
    const now = deps.clock.now();
    if (await isLocked(tx, user.username, now)) return refuse(errno.accountLocked);
    const [row] = await tx.select().from(users).where(eq(users.id, user.id));
    if (!row) throw new AppError(errno.notSignedIn);
    const secret = totpSecretOf(deps, row);
    if (!secret) return refuse(errno.googleNotBound);
    if (!(await verifyPassword(row.passwordHash, input.password))) {
      await recordFailure(tx, user.username, now);
      return refuse(errno.badCredentials);
    }
    if (!(await consumeTotp(tx, user.id, secret, input.code, now))) {
      await recordFailure(tx, user.username, now);
      return refuse(errno.badCode);
    }
    await tx.update(users).set({ totpSecret: null, updatedAt: now }).where(eq(users.id, user.id));
    audit({ changes: { googleBound: { before: true, after: false } } });
    return { ok: true as const };
  }),
];
