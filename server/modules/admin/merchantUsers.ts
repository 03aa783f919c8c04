import { and, asc, eq, inArray } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import type { Db } from '../../db/index.ts';
import { merchants, roles, userRoles, users } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import type { Lang } from '../../http/i18n.ts';
import { t } from '../../http/i18n.ts';
import { permsOf, revokeSessions } from '../../http/session.ts';
import { invalidField } from '../../http/validation.ts';
import { hashPassword, randomToken } from '../../lib/crypto.ts';
import { changes } from '../../lib/redact.ts';
import { createdPlace, keysetList } from '../../list/engine.ts';
import { textPrefix } from '../../list/scope.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { roleText } from '../role/builtin.ts';
import { mustKeepAnAdministrator } from './scope.ts';

type User = typeof users.$inferSelect;

/** A merchant's user by id, or 404: never a platform user, whatever id is sent. */
async function merchantUserOf(tx: Db, id: number) {
  const [row] = await tx
    .select({ user: users, merchantCode: merchants.code, merchantName: merchants.name })
    .from(users)
    .innerJoin(merchants, eq(merchants.id, users.merchantId))
    .where(and(eq(users.id, id), eq(users.kind, 'merchant')));
  if (!row) throw new AppError(errno.notFound);
  return row;
}

type Told = 'disabled' | 'enabled' | 'passwordReset' | 'googleReset';

/**
 * Tells the user what the platform did, in both languages (the account keeps no language of its own),
 * after the change has committed; false when no address is on file. The message carries no secret.
 */
async function tell(
  deps: Deps,
  tx: Db,
  target: Awaited<ReturnType<typeof merchantUserOf>>,
  what: Told,
  afterCommit: (fn: () => Promise<void>) => void,
): Promise<boolean> {
  if (!target.user.email) return false;
  const params = {
    username: target.user.username,
    merchant: `${target.merchantCode} ${target.merchantName}`,
  };
  const send = await deps.mailer.send(tx, {
    to: target.user.email,
    subject: `${t('en', `mail.merchantUser.${what}Subject`)} / ${t('zh_CN', `mail.merchantUser.${what}Subject`)}`,
    text: `${t('en', `mail.merchantUser.${what}Body`, params)}\n\n${t('zh_CN', `mail.merchantUser.${what}Body`, params)}`,
  });
  if (send) afterCommit(() => send().catch(() => {}));
  return true;
}

const target = (u: User) => `user:${u.id}`;

/** The roles of these users, by user, named in the caller's language (built-in ones translated). */
async function rolesOf(tx: Db, ids: number[], lang: Lang) {
  const byUser = new Map<number, { id: number; name: string }[]>();
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

export const merchantUserRoutes = [
  handle(endpoints.merchantUser.list, async ({ input, tx, req }) => {
    const [merchant] = await tx
      .select({ id: merchants.id })
      .from(merchants)
      .where(eq(merchants.id, input.merchantId));
    if (!merchant) throw new AppError(errno.notFound);
    const { page, ...rest } = await keysetList(
      tx,
      {
        query: tx.select().from(users).$dynamic(),
        table: users,
        where: and(
          eq(users.kind, 'merchant'),
          eq(users.merchantId, merchant.id),
          input.username ? textPrefix(users.username, input.username) : undefined,
          input.status ? eq(users.status, input.status) : undefined,
        ),
        // Oldest first by id (a serial, in creation order): the cursor is the last id shown.
        keyset: { id: users.id, oldestFirst: true, cursor: 'id', placeOf: createdPlace },
      },
      input,
      req.lang,
    );
    const roles = await rolesOf(
      tx,
      page.map((r) => r.id),
      req.lang,
    );
    return {
      list: page.map((r) => ({
        id: r.id,
        username: r.username,
        nickname: r.nickname,
        email: r.email,
        status: r.status,
        merchantId: r.merchantId,
        roles: roles.get(r.id) ?? [],
        googleBound: r.totpSecret !== null,
        lastLoginAt: r.lastLoginAt?.toISOString() ?? null,
        createdAt: r.createdAt.toISOString(),
      })),
      ...rest,
    };
  }),

  handle(endpoints.merchantUser.disable, async ({ input, tx, deps, audit, afterCommit }) => {
    const found = await merchantUserOf(tx, input.id);
    const u = found.user;
    audit({ target: target(u), detail: { username: u.username, merchantId: u.merchantId } });
    if (u.status === 'disabled') return { ok: true as const, mailed: false };
    await tx.update(users).set({ status: 'disabled', updatedAt: deps.clock.now() }).where(eq(users.id, u.id));
    // Its live sessions end at their next call (the change feed drops the cached ones everywhere).
    await revokeSessions(deps, tx, u.id);
    // A merchant keeps an active owner: the platform freezes the merchant, or resets this user, instead.
    if ((await permsOf(tx, u.id)).perms.includes('*')) await mustKeepAnAdministrator(tx, u);
    audit({ changes: changes({ status: u.status }, { status: 'disabled' }) });
    return { ok: true as const, mailed: await tell(deps, tx, found, 'disabled', afterCommit) };
  }),

  handle(endpoints.merchantUser.enable, async ({ input, tx, deps, audit, afterCommit }) => {
    const found = await merchantUserOf(tx, input.id);
    const u = found.user;
    audit({ target: target(u), detail: { username: u.username, merchantId: u.merchantId } });
    if (u.status === 'active') return { ok: true as const, mailed: false };
    await tx.update(users).set({ status: 'active', updatedAt: deps.clock.now() }).where(eq(users.id, u.id));
    audit({ changes: changes({ status: u.status }, { status: 'active' }) });
    return { ok: true as const, mailed: await tell(deps, tx, found, 'enabled', afterCommit) };
  }),

  handle(endpoints.merchantUser.resetPassword, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const found = await merchantUserOf(tx, input.id);
    const u = found.user;
    audit({ target: target(u), detail: { username: u.username, merchantId: u.merchantId } });
    // Checked before the code, so a refusal does not spend it: without an address the user could never
    // learn of the reset nor take a reset code.
    if (!u.email) throw invalidField(req.lang, 'id', 'validation.userNoEmail');
    const refusal = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refusal) return refusal;
    // A password nobody knows: the user sets a new one with an e-mail code (the sign-in page's reset).
    await tx
      .update(users)
      .set({ passwordHash: await hashPassword(randomToken(32)), updatedAt: deps.clock.now() })
      .where(eq(users.id, u.id));
    await revokeSessions(deps, tx, u.id);
    audit({ changes: { password: { before: '[redacted]', after: '[redacted]' } } });
    return { ok: true as const, mailed: await tell(deps, tx, found, 'passwordReset', afterCommit) };
  }),

  handle(endpoints.merchantUser.resetGoogle, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const found = await merchantUserOf(tx, input.id);
    const u = found.user;
    audit({ target: target(u), detail: { username: u.username, merchantId: u.merchantId } });
    if (u.totpSecret === null) throw new AppError(errno.googleNotBound);
    const refusal = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refusal) return refusal;
    await tx.update(users).set({ totpSecret: null, updatedAt: deps.clock.now() }).where(eq(users.id, u.id));
    await revokeSessions(deps, tx, u.id);
    audit({ changes: { googleBound: { before: true, after: false } } });
    return { ok: true as const, mailed: await tell(deps, tx, found, 'googleReset', afterCommit) };
  }),
];
