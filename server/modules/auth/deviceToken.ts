import { hmacHex, safeEqual } from '../../lib/crypto.ts';

/** "Skip the second step on this device for 30 days": a server-signed token bound to one username. */
export const deviceTokenDays = 30;

export function signDeviceToken(key: Buffer, username: string, userId: number, now: Date): string {
  const payload = Buffer.from(
    JSON.stringify({
      u: username,
      i: userId,
      e: Math.floor(now.getTime() / 1000) + deviceTokenDays * 86_400,
    }),
  ).toString('base64url');
  return `${payload}.${hmacHex(key, `device:${payload}`)}`;
}

export function deviceTokenValid(
  key: Buffer,
  token: string | undefined,
  userId: number,
  username: string,
  now: Date,
) {
  if (!token) return false;
  const [payload, mac] = token.split('.');
  if (!payload || !mac || !safeEqual(mac, hmacHex(key, `device:${payload}`))) return false;
  try {
    const v = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      u: string;
      i: number;
      e: number;
    };
    return v.u === username && v.i === userId && v.e * 1000 > now.getTime();
  } catch {
    return false;
  }
}
