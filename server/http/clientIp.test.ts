import { describe, expect, it } from 'vitest';
import { clientAddress } from './clientIp.ts';

describe('the client address behind TRUST_PROXY proxies', () => {
  it('ignores X-Forwarded-For without proxies: a client writes what it likes there', () => {
    expect(clientAddress('1.2.3.4', '198.51.100.9', 0)).toBe('198.51.100.9');
  });

  it('takes the entry that many hops from the right, never the left-most one a client wrote', () => {
    // The client sent "X-Forwarded-For: 1.2.3.4"; our one proxy appended the address it saw.
    expect(clientAddress('1.2.3.4, 203.0.113.7', '10.0.0.2', 1)).toBe('203.0.113.7');
    // Two proxies: the outer one appended the client, the inner one the outer proxy.
    expect(clientAddress('1.2.3.4, 203.0.113.7, 10.0.0.5', '10.0.0.2', 2)).toBe('203.0.113.7');
  });

  it('falls back to the socket when fewer hops arrived than proxies are configured', () => {
    expect(clientAddress('203.0.113.7', '10.0.0.2', 2)).toBe('10.0.0.2');
    expect(clientAddress(undefined, '10.0.0.2', 1)).toBe('10.0.0.2');
    expect(clientAddress(' , ', '10.0.0.2', 1)).toBe('10.0.0.2');
  });

  it('reads an IPv4-mapped IPv6 address as the IPv4 address', () => {
    expect(clientAddress(undefined, '::ffff:203.0.113.7', 0)).toBe('203.0.113.7');
    expect(clientAddress('::FFFF:203.0.113.7', '10.0.0.2', 1)).toBe('203.0.113.7');
    expect(clientAddress(undefined, '2001:db8::1', 0)).toBe('2001:db8::1');
  });
});
