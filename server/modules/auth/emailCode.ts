import { and, desc, eq, isNull } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import type { Db } from '../../db/index.ts';
import { emailCodes } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import type { Lang } from '../../http/i18n.ts';
import { t } from '../../http/i18n.ts';
import { hmacHex, randomDigits, safeEqual } from '../../lib/crypto.ts';

/** E-mail codes: 6 digits, valid 10 minutes, 5 tries, one a minute per user and purpose. */
export const emailCodeRules = { ttlMs: 10 * 60_000, maxAttempts: 5, resendMs: 60_000 };

type Purpose = 'reset' | 'login';

const codeHash = (deps: Deps, userId: number, purpose: Purpose, code: string) =>
  hmacHex(deps.config.appKey, `email:${userId}:${purpose}:${code}`);

export function maskEmail(email: string): string {
  const [name = '', domain = ''] = email.split('@');
  return `${name.slice(0, 2)}***@${domain}`;
}

/** Issues a code (earlier unused ones stop working) and queues the mail; answers the masked address. */
export async function sendEmailCode(
  deps: Deps,
  tx: Db,
  user: { id: number; email: string },
  purpose: Purpose,
  lang: Lang,
  afterCommit: (fn: () => Promise<void>) => void,
): Promise<string> {
  const now = deps.clock.now();
  const [last] = await tx
    .select()
    .from(emailCodes)
    .where(and(eq(emailCodes.userId, user.id), eq(emailCodes.purpose, purpose)))
    .orderBy(desc(emailCodes.id))
    .limit(1);
  if (last && now.getTime() - last.createdAt.getTime() < emailCodeRules.resendMs)
    throw new AppError(errno.codeTooSoon);
  await tx
    .update(emailCodes)
    .set({ usedAt: now })
    .where(and(eq(emailCodes.userId, user.id), eq(emailCodes.purpose, purpose), isNull(emailCodes.usedAt)));
  const code = randomDigits(6);
  await tx.insert(emailCodes).values({
    userId: user.id,
    purpose,
    codeHash: codeHash(deps, user.id, purpose, code),
    createdAt: now,
    expiresAt: new Date(now.getTime() + emailCodeRules.ttlMs),
  });
  const send = await deps.mailer.send(tx, {
    to: user.email,
    subject: t(lang, `mail.${purpose}Subject`),
    text: t(lang, `mail.${purpose}Body`, { code }),
  });
  if (send) afterCommit(send);
  return maskEmail(user.email);
}

/**
 * Checks a code. Answers the errno to refuse with (a wrong try is counted, so the caller must commit),
 * or 0 when the code is right; a right code is used up.
 */
export async function checkEmailCode(deps: Deps, tx: Db, userId: number, purpose: Purpose, code: string) {
  const now = deps.clock.now();
  const [row] = await tx
    .select()
    .from(emailCodes)
    .where(and(eq(emailCodes.userId, userId), eq(emailCodes.purpose, purpose), isNull(emailCodes.usedAt)))
    .orderBy(desc(emailCodes.id))
    .limit(1);
  if (!row || row.expiresAt <= now || row.attempts >= emailCodeRules.maxAttempts) return errno.codeExpired;
  if (!safeEqual(row.codeHash, codeHash(deps, userId, purpose, code))) {
    await tx
      .update(emailCodes)
      .set({ attempts: row.attempts + 1 })
      .where(eq(emailCodes.id, row.id));
    return errno.badCode;
  }
  await tx.update(emailCodes).set({ usedAt: now }).where(eq(emailCodes.id, row.id));
  return errno.ok;
}
