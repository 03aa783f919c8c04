import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hash as digestOf,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** OWASP Password Storage Cheat Sheet: Argon2id, m = 19 MiB, t = 2, p = 1. */
// `algorithm: 2` is Argon2id (the package's const enum cannot be imported under verbatimModuleSyntax).
const argon2Options = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, argon2Options);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** A hash to verify against when the username is unknown, so both paths cost the same. */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  return dummyHash;
}

/** A random token of 256 bits, URL-safe. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** One shot (`crypto.hash`): every signed-in call hashes its token, and this skips the Hash object. */
export function sha256(value: string): string {
  return digestOf('sha256', value, 'hex');
}

export function hmacHex(key: Buffer | string, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A uniformly random string of `n` decimal digits. */
export function randomDigits(n: number): string {
  let out = '';
  while (out.length < n) {
    const byte = randomBytes(1)[0]!;
    if (byte < 250) out += String(byte % 10);
  }
  return out;
}

/** AES-256-GCM with the server key: for secrets the server must read back (TOTP seeds, channel credentials). */
export function sealer(key: Buffer) {
  return {
    seal(plain: string): string {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return `v1.${Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed: string): string {
      const raw = Buffer.from(sealed.slice(3), 'base64url');
      const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
    },
  };
}
export type Sealer = ReturnType<typeof sealer>;
