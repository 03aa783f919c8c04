import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { loginFailures } from '../../db/schema.ts';

/**
 * Lockout per username (known or not, so the answer never tells which) and client address: 5 failures
 * of password or code from one address within 15 minutes lock the name for that address for 15 minutes.
 * It slows a guessing address down without locking the owner out from anywhere else (a lock anyone could
 * cause for everyone was a denial of service); the per-address rate limit bounds the addresses' sum.
 */
export const lockout = { maxFailures: 5, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };

const key = (username: string, address: string) =>
  and(eq(loginFailures.username, username), eq(loginFailures.address, address));

export async function isLocked(tx: Db, username: string, address: string, now: Date): Promise<boolean> {
  const [row] = await tx
    .select({ lockedUntil: loginFailures.lockedUntil })
    .from(loginFailures)
    .where(key(username, address));
  return !!row?.lockedUntil && row.lockedUntil > now;
}

export async function recordFailure(tx: Db, username: string, address: string, now: Date): Promise<void> {
  const windowStart = new Date(now.getTime() - lockout.windowMs);
  const lockUntil = new Date(now.getTime() + lockout.lockMs);
  await tx
    .insert(loginFailures)
    .values({ username, address, failures: 1, windowStartedAt: now })
    .onConflictDoUpdate({
      target: [loginFailures.username, loginFailures.address],
      set: {
        failures: sql`case when ${loginFailures.windowStartedAt} < ${windowStart} then 1 else ${loginFailures.failures} + 1 end`,
        windowStartedAt: sql`case when ${loginFailures.windowStartedAt} < ${windowStart} then ${now} else ${loginFailures.windowStartedAt} end`,
        lockedUntil: sql`case when ${loginFailures.windowStartedAt} >= ${windowStart} and ${loginFailures.failures} + 1 >= ${lockout.maxFailures} then ${lockUntil} else ${loginFailures.lockedUntil} end`,
      },
    });
}

/** A success from an address clears that address's count only: it must not reset a guesser's elsewhere. */
export async function clearFailures(tx: Db, username: string, address: string): Promise<void> {
  await tx.delete(loginFailures).where(key(username, address));
}
