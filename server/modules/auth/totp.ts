import { and, eq, lt } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import { type Db, whenEnded } from '../../db/index.ts';
import { users } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { errorForLog } from '../../lib/logger.ts';

/** RFC 6238 as Google Authenticator reads it: SHA-1, 6 digits, 30-second steps. */
const period = 30;

export const issuer = 'Paygate Console';

function totp(secretBase32: string, label = '') {
  return new OTPAuth.TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period,
    secret: OTPAuth.Secret.fromBase32(secretBase32),
  });
}

/** A new 160-bit seed in Base32. */
export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

export function otpauthUrl(secretBase32: string, username: string): string {
  return totp(secretBase32, username).toString();
}

/** The time step a code belongs to (one step either side of now), or null when it matches none. */
export function matchingStep(secretBase32: string, code: string, now: Date): number | null {
  const delta = totp(secretBase32).validate({ token: code, timestamp: now.getTime(), window: 1 });
  if (delta === null) return null;
  return Math.floor(now.getTime() / 1000 / period) + delta;
}

/** The code for a moment; for tests and the simulator only. */
export function codeAt(secretBase32: string, at: Date): string {
  return totp(secretBase32).generate({ timestamp: at.getTime() });
}

/**
 * Records `step` as the user's last accepted step by compare-and-set (so two concurrent uses of one code
 * succeed at most once), and so that it stays recorded whatever becomes of the caller's transaction: an
 * action that accepted a code and then refused or failed has still shown the code, which must not work
 * again. The step is written in the caller's transaction and written again once that has ended
 * (`whenEnded`): a no-op after a commit, the record after a rollback.
 */
async function spendStep(deps: Deps, tx: Db, userId: number, step: number): Promise<boolean> {
  const cas = (on: Db) =>
    on
      .update(users)
      .set({ totpLastStep: step })
      .where(and(eq(users.id, userId), lt(users.totpLastStep, step)))
      .returning({ id: users.id });
  if ((await cas(tx)).length !== 1) return false;
  whenEnded(tx, async () => {
    await cas(deps.database.db).catch((err: unknown) =>
      deps.logger.warn({ userId, err: errorForLog(err) }, 'could not record a spent Google code step'),
    );
  });
  return true;
}

/** Accepts a code once: its step must be later than the last step this user had accepted (`spendStep`). */
export async function consumeTotp(
  deps: Deps,
  tx: Db,
  userId: number,
  secretBase32: string,
  code: string,
  now: Date,
): Promise<boolean> {
  const step = matchingStep(secretBase32, code, now);
  if (step === null) return false;
  return spendStep(deps, tx, userId, step);
}
