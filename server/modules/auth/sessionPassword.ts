import { eq } from 'drizzle-orm';
import { type Errno, errno } from '../../../contract/errno.ts';
import type { Db } from '../../db/index.ts';
import { sessions } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { type Refusal, refuse } from '../../http/errors.ts';
import type { AuditEntry } from '../../http/handle.ts';
import type { SessionUser } from '../../http/session.ts';
import { verifyPassword } from '../../lib/crypto.ts';
import { isLocked } from './lockout.ts';

/** Wrong current passwords one signed-in session may give: the last of them ends the session. */
export const sessionPasswordTries = 5;

/**
 * The current password of a signed-in user, asked for what a stolen session must not do alone (change the
 * password or the e-mail address, bind a first Google key or unbind one). A wrong one counts against this
 * session, never towards the sign-in lockout, so a session cannot lock its owner out of signing in; the
 * fifth (`sessionPasswordTries`) ends the session, which answers 501 as any ended session, and the
 * operation log's entry says so (`sessionEnded`). The count is the session's whole life: a right password
 * in between takes nothing back (it proves nothing a guesser needs). Other sessions of the user, and
 * remembered devices, are left alone: ending them would let a stolen session sign its owner out.
 *
 * Tries of one session are taken one after another (its row is locked first), so parallel guesses get no
 * more than the five. A name locked for the client address by failed sign-ins from there is still
 * refused (1004). Null when the password is right, else the refusal, to be returned (not thrown) so that
 * the count commits.
 */
export async function confirmSessionPassword(
  ctx: {
    deps: Deps;
    tx: Db;
    user: SessionUser;
    /** The request: its client address is the one a sign-in lock is read for. */
    req: { ip: string };
    audit: (entry: AuditEntry) => void;
  },
  passwordHash: string,
  password: string,
  /** The errno of a wrong password at this endpoint. */
  wrong: Errno,
): Promise<Refusal | null> {
  const { deps, tx, user, audit } = ctx;
  const now = deps.clock.now();
  if (await isLocked(tx, user.username, ctx.req.ip, now)) return refuse(errno.accountLocked);
  const [session] = await tx
    .select({ failures: sessions.passwordFailures, revokedAt: sessions.revokedAt })
    .from(sessions)
    .where(eq(sessions.tokenHash, user.tokenHash))
    .for('update');
  // Ended meanwhile (by a parallel fifth try, a sign-out): as any ended session.
  if (!session || session.revokedAt || session.failures >= sessionPasswordTries)
    return refuse(errno.notSignedIn);
  if (await verifyPassword(passwordHash, password)) return null;
  const failures = session.failures + 1;
  const ended = failures >= sessionPasswordTries;
  await tx
    .update(sessions)
    .set({ passwordFailures: failures, ...(ended ? { revokedAt: now } : {}) })
    .where(eq(sessions.tokenHash, user.tokenHash));
  audit({ detail: { passwordFailures: failures, ...(ended ? { sessionEnded: 'wrongPasswords' } : {}) } });
  return refuse(ended ? errno.notSignedIn : wrong);
}
