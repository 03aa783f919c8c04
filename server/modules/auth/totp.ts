import { and, eq, lt } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import type { Db } from '../../db/index.ts';
import { users } from '../../db/schema.ts';

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
 * Accepts a code once: the step must be later than the last step this user had accepted, and the
 * compare-and-set makes two concurrent sign-ins with one code succeed at most once.
 */
export async function consumeTotp(
  tx: Db,
  userId: number,
  secretBase32: string,
  code: string,
  now: Date,
): Promise<boolean> {
  const step = matchingStep(secretBase32, code, now);
  if (step === null) return false;
  const updated = await tx
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, userId), lt(users.totpLastStep, step)))
    .returning({ id: users.id });
  return updated.length === 1;
}
