import { and, eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import type { Db } from '../../db/index.ts';
import { merchants, users } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { type AuditEntry, handle } from '../../http/handle.ts';
import { t } from '../../http/i18n.ts';
import { permsOf, revokeSessions } from '../../http/session.ts';
import { invalidField } from '../../http/validation.ts';
import { hashPassword, randomToken } from '../../lib/crypto.ts';
import { changes } from '../../lib/redact.ts';
import { createdPlace, keysetList } from '../../list/engine.ts';
import { textPrefix } from '../../list/scope.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { mustKeepAnAdministrator } from './scope.ts';
import { userRows } from './userRows.ts';

type User = typeof users.$inferSelect;

const target = (u: User) => `user:${u.id}`;

/**
 * A merchant's user by id, or 404: never a platform user, whatever id is sent. The action on it is
 * logged against the user, named by username and merchant.
 */
async function merchantUserOf(tx: Db, id: number, audit: (entry: AuditEntry) => void) {
  const [row] = await tx
    .select({ user: users, merchantCode: merchants.code, merchantName: merchants.name })
    .from(users)
    .innerJoin(merchants, eq(merchants.id, users.merchantId))
    .where(and(eq(users.id, id), eq(users.kind, 'merchant')));
  if (!row) throw new AppError(errno.notFound);
  const u = row.user;
  audit({ target: target(u), detail: { username: u.username, merchantId: u.merchantId } });
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
    return {
      list: await userRows(tx, page, req.lang),
      ...rest,
    };
  }),

  handle(endpoints.merchantUser.disable, async ({ input, tx, deps, audit, afterCommit }) => {
    const found = await merchantUserOf(tx, input.id, audit);
    const u = found.user;
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
    const found = await merchantUserOf(tx, input.id, audit);
    const u = found.user;
    if (u.status === 'active') return { ok: true as const, mailed: false };
    await tx.update(users).set({ status: 'active', updatedAt: deps.clock.now() }).where(eq(users.id, u.id));
    audit({ changes: changes({ status: u.status }, { status: 'active' }) });
    return { ok: true as const, mailed: await tell(deps, tx, found, 'enabled', afterCommit) };
  }),

  handle(endpoints.merchantUser.resetPassword, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const found = await merchantUserOf(tx, input.id, audit);
    const u = found.user;
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
    const found = await merchantUserOf(tx, input.id, audit);
    const u = found.user;
    if (u.totpSecret === null) throw new AppError(errno.googleNotBound);
    const refusal = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refusal) return refusal;
    await tx.update(users).set({ totpSecret: null, updatedAt: deps.clock.now() }).where(eq(users.id, u.id));
    await revokeSessions(deps, tx, u.id);
    audit({ changes: { googleBound: { before: true, after: false } } });
    return { ok: true as const, mailed: await tell(deps, tx, found, 'googleReset', afterCommit) };
  }),
];
