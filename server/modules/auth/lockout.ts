import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { loginFailures } from '../../db/schema.ts';

/**
 * Lockout per username, known or not (so the answer never tells which): 5 failures of password or code
 * within 15 minutes lock the name for 15 minutes. That bounds guessing far below ASVS's 100 an hour.
 */
export const lockout = { maxFailures: 5, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };

export async function isLocked(tx: Db, username: string, now: Date): Promise<boolean> {
  const [row] = await tx.select().from(loginFailures).where(eq(loginFailures.username, username));
  return !!row?.lockedUntil && row.lockedUntil > now;
}

export async function recordFailure(tx: Db, username: string, now: Date): Promise<void> {
  const windowStart = new Date(now.getTime() - lockout.windowMs);
  const lockUntil = new Date(now.getTime() + lockout.lockMs);
  await tx
    .insert(loginFailures)
    .values({ username, failures: 1, windowStartedAt: now })
    .onConflictDoUpdate({
      target: [loginFailures.username, loginFailures.address],
      set: {
        failures: sql`case when ${loginFailures.windowStartedAt} < ${windowStart} then 1 else ${loginFailures.failures} + 1 end`,
        windowStartedAt: sql`case when ${loginFailures.windowStartedAt} < ${windowStart} then ${now} else ${loginFailures.windowStartedAt} end`,
        lockedUntil: sql`case when ${loginFailures.windowStartedAt} >= ${windowStart} and ${loginFailures.failures} + 1 >= ${lockout.maxFailures} then ${lockUntil} else ${loginFailures.lockedUntil} end`,
      },
    });
}

export async function clearFailures(tx: Db, username: string): Promise<void> {
  await tx.delete(loginFailures).where(eq(loginFailures.username, username));
}
