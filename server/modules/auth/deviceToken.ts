import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { deviceTokens } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import type { RequestMeta } from '../../http/handle.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';

/**
 * "Skip the second step on this device for 30 days": a random token recorded server-side (only its
 * SHA-256), so that signing out everywhere, a password change, a Google key reset and disabling the user
 * revoke it (`revokeSessions`). A signed token could not be taken back before it expired.
 */
export const deviceTokenDays = 30;

export async function issueDeviceToken(
  deps: Deps,
  tx: Db,
  userId: number,
  meta: Pick<RequestMeta, 'ip' | 'userAgent'>,
): Promise<string> {
  const token = randomToken();
  const now = deps.clock.now();
  await tx.insert(deviceTokens).values({
    tokenHash: sha256(token),
    userId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + deviceTokenDays * 86_400_000),
    ip: meta.ip,
    userAgent: meta.userAgent.slice(0, 300),
  });
  return token;
}

/** Whether the token is recorded for this user, unexpired and unrevoked. */
export async function deviceTokenValid(
  deps: Deps,
  tx: Db,
  token: string | undefined,
  userId: number,
): Promise<boolean> {
  if (!token) return false;
  const [row] = await tx
    .select({ userId: deviceTokens.userId })
    .from(deviceTokens)
    .where(
      and(
        eq(deviceTokens.tokenHash, sha256(token)),
        eq(deviceTokens.userId, userId),
        isNull(deviceTokens.revokedAt),
        gt(deviceTokens.expiresAt, deps.clock.now()),
      ),
    );
  return !!row;
}
