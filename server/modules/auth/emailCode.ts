import { and, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import type { Db } from '../../db/index.ts';
import { emailCodes } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import type { Lang } from '../../http/i18n.ts';
import { t } from '../../http/i18n.ts';
import { hmacHex, randomDigits, safeEqual } from '../../lib/crypto.ts';

/** E-mail codes: 6 digits, valid 10 minutes, 5 tries (the right one included), one a minute per user and purpose. */
export const emailCodeRules = { ttlMs: 10 * 60_000, maxAttempts: 5, resendMs: 60_000 };

type Purpose = 'reset' | 'login';

const codeHash = (deps: Deps, userId: number, purpose: Purpose, code: string) =>
  hmacHex(deps.config.appKey, `email:${userId}:${purpose}:${code}`);

export function maskEmail(email: string): string {
  const [name = '', domain = ''] = email.split('@');
  return `${name.slice(0, 2)}***@${domain}`;
}

/**
 * Issues a code (earlier unused ones stop working) and queues the mail; answers the masked address, for a
 * caller that proved the password first. Within a minute of the last code for this user and purpose it
 * does nothing: anonymous requests can then void a pending code at most once a minute, and the answer is
 * the same as for a code sent (nothing to compare).
 */
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
    .select({ createdAt: emailCodes.createdAt })
    .from(emailCodes)
    .where(and(eq(emailCodes.userId, user.id), eq(emailCodes.purpose, purpose)))
    .orderBy(desc(emailCodes.id))
    .limit(1);
  if (last && now.getTime() - last.createdAt.getTime() < emailCodeRules.resendMs)
    return maskEmail(user.email);
  await tx
    .update(emailCodes)
    .set({ usedAt: now })
    .where(and(eq(emailCodes.userId, user.id), eq(emailCodes.purpose, purpose), isNull(emailCodes.usedAt)));
  const code = randomDigits(6);
  const [row] = await tx
    .insert(emailCodes)
    .values({
      userId: user.id,
      purpose,
      codeHash: codeHash(deps, user.id, purpose, code),
      createdAt: now,
      expiresAt: new Date(now.getTime() + emailCodeRules.ttlMs),
    })
    .returning({ id: emailCodes.id });
  const send = await deps.mailer.send(tx, {
    to: user.email,
    subject: t(lang, `mail.${purpose}Subject`),
    text: t(lang, `mail.${purpose}Body`, { code }),
    emailCodeId: row!.id,
  });
  if (send) afterCommit(send);
  return maskEmail(user.email);
}

/**
 * Checks a code. Answers the errno to refuse with (the try is counted, so the caller must commit), or 0
 * when the code is right; a right code is used up. Each try is taken by compare-and-set before the code is
 * compared, and the use likewise, so that parallel guesses get no more than the allowed tries and a right
 * code redeems once (on PostgreSQL the row lock orders them; the second sees the first's commit).
 */
export async function checkEmailCode(deps: Deps, tx: Db, userId: number, purpose: Purpose, code: string) {
  const now = deps.clock.now();
  const [latest] = await tx
    .select({ id: emailCodes.id })
    .from(emailCodes)
    .where(and(eq(emailCodes.userId, userId), eq(emailCodes.purpose, purpose), isNull(emailCodes.usedAt)))
    .orderBy(desc(emailCodes.id))
    .limit(1);
  if (!latest) return errno.codeExpired;
  const [taken] = await tx
    .update(emailCodes)
    .set({ attempts: sql`${emailCodes.attempts} + 1` })
    .where(
      and(
        eq(emailCodes.id, latest.id),
        isNull(emailCodes.usedAt),
        gt(emailCodes.expiresAt, now),
        lt(emailCodes.attempts, emailCodeRules.maxAttempts),
      ),
    )
    .returning({ codeHash: emailCodes.codeHash });
  if (!taken) return errno.codeExpired;
  if (!safeEqual(taken.codeHash, codeHash(deps, userId, purpose, code))) return errno.badCode;
  const used = await tx
    .update(emailCodes)
    .set({ usedAt: now })
    .where(and(eq(emailCodes.id, latest.id), isNull(emailCodes.usedAt)))
    .returning({ id: emailCodes.id });
  return used.length === 1 ? errno.ok : errno.codeExpired;
}
