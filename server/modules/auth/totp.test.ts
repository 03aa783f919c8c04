import * as OTPAuth from 'otpauth';
import { describe, expect, it } from 'vitest';
import { codeAt, matchingStep, newTotpSecret, otpauthUrl } from './totp.ts';

// RFC 6238 Appendix B: 8-digit codes; seeds are ASCII "1234567890" repeated to 20, 32 and 64 bytes.
const seed = (n: number) => Buffer.from('1234567890'.repeat(7).slice(0, n));
const vectors: Array<[number, string, string, string]> = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(vectors)('matches the Appendix B vectors at T=%i', (t, sha1, sha256, sha512) => {
    const at = (algorithm: string, bytes: number) =>
      new OTPAuth.TOTP({
        algorithm,
        digits: 8,
        period: 30,
        secret: new OTPAuth.Secret({ buffer: new Uint8Array(seed(bytes)).buffer }),
      }).generate({
        timestamp: t * 1000,
      });
    expect(at('SHA1', 20)).toBe(sha1);
    expect(at('SHA256', 32)).toBe(sha256);
    expect(at('SHA512', 64)).toBe(sha512);
  });

  it('produces the 6-digit Google Authenticator codes of the same seed', () => {
    const base32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(Buffer.from(OTPAuth.Secret.fromBase32(base32).buffer).toString()).toBe('12345678901234567890');
    expect(codeAt(base32, new Date(59_000))).toBe('287082');
    expect(codeAt(base32, new Date(1111111109_000))).toBe('081804');
  });

  it('accepts one step either side of now and nothing further', () => {
    const secret = newTotpSecret();
    const now = new Date('2026-03-01T12:00:10Z');
    const step = Math.floor(now.getTime() / 30_000);
    for (const d of [-1, 0, 1])
      expect(matchingStep(secret, codeAt(secret, new Date(now.getTime() + d * 30_000)), now)).toBe(step + d);
    for (const d of [-2, 2])
      expect(matchingStep(secret, codeAt(secret, new Date(now.getTime() + d * 30_000)), now)).toBeNull();
  });

  it('makes 160-bit seeds and a Google Authenticator key URI', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = otpauthUrl(secret, 'alice');
    expect(url).toMatch(/^otpauth:\/\/totp\/Paygate%20Console:alice\?/);
    expect(url).toContain(`secret=${secret}`);
    expect(url).toContain('issuer=Paygate%20Console');
  });
});
