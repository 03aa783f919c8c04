import { eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { moneySessionCode } from '../../../contract/schemas.ts';
import type { Db } from '../../db/index.ts';
import { users } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError, type Refusal, refuse } from '../../http/errors.ts';
import type { SessionUser } from '../../http/session.ts';
import { isLocked, recordFailure } from './lockout.ts';
import { consumeTotp, matchingStep } from './totp.ts';

/**
 * The caller's Google code for a money action (a payout, a transfer, a forced supplement). The user must
 * have a bound key (1010); a name locked for the address is refused (1004); a wrong or already used code
 * counts towards the sign-in lockout and is refused (1003). `consume` accepts the code once, and for good:
 * its use is recorded again once the handler's transaction has ended (`whenEnded`), so an action that refuses or fails afterwards
 * leaves the code spent (a code once shown must not work again; a transaction retried after a deadlock
 * therefore asks for a new code). Call it before the handler writes the user's row. Without `consume` (a
 * dry run) the code is only checked, so the preview does not spend the code the real action needs.
 * `address` is the request's client address (`req.ip`), which the lockout counts against. Refusals are
 * returned, so the counted failure is committed.
 *
 * `session` (only a door whose input takes `moneyCode` can be sent it) is accepted while this signed-in
 * session's money session is open (`moneySession.ts`), else refused with 1022; a locked name or an unbound
 * key refuses it as it refuses a code.
 */
export async function checkGoogleCode(
  tx: Db,
  deps: Deps,
  user: SessionUser,
  address: string,
  code: string,
  consume = true,
): Promise<Refusal | null> {
  const now = deps.clock.now();
  const [row] = await tx
    .select({ totpSecret: users.totpSecret, totpLastStep: users.totpLastStep })
    .from(users)
    .where(eq(users.id, user.id));
  if (!row) throw new AppError(errno.notSignedIn);
  if (!row.totpSecret) return refuse(errno.googleNotBound);
  if (await isLocked(tx, user.username, address, now)) return refuse(errno.accountLocked);
  if (code === moneySessionCode) {
    return moneySessionUntil(user, now) ? null : refuse(errno.moneySessionClosed);
  }
  const secret = deps.sealer.open(row.totpSecret);
  let ok: boolean;
  if (consume) ok = await consumeTotp(deps, tx, user.id, secret, code, now);
  else {
    const step = matchingStep(secret, code, now);
    ok = step !== null && step > row.totpLastStep;
  }
  if (ok) return null;
  await recordFailure(tx, user.username, address, now);
  return refuse(errno.badCode);
}

/**
 * When this signed-in session's money session ends, or null when none is open at `now`. Read with the
 * session: opening or ending it moves the change feed, so a kept session is never behind it.
 */
export function moneySessionUntil(user: SessionUser, now: Date): Date | null {
  return user.moneyUntil && user.moneyUntil > now ? user.moneyUntil : null;
}
