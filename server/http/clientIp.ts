import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The client's address for the IP whitelist, the sign-in limits and the operation log.
 *
 * With `proxies` (TRUST_PROXY) proxies of our own in front, each appends the address it was reached from
 * to `X-Forwarded-For`, so the client is the entry `proxies` hops from the right. Whatever stands further
 * left was written by the client and proves nothing. With 0, or fewer entries than proxies (a request
 * that did not come through them all), the socket's address is the client.
 */
export function clientAddress(forwardedFor: string | undefined, socket: string, proxies: number): string {
  if (proxies > 0 && forwardedFor) {
    const hops = forwardedFor
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const hop = hops.length >= proxies ? hops[hops.length - proxies] : undefined;
    if (hop) return normalAddress(hop.slice(0, 64));
  }
  return normalAddress(socket);
}

/** `::ffff:1.2.3.4` is the IPv4 address 1.2.3.4: compared and logged as such. */
export function normalAddress(address: string): string {
  const lower = address.toLowerCase();
  return lower.startsWith('::ffff:') && /^\d{1,3}(\.\d{1,3}){3}$/.test(lower.slice(7))
    ? lower.slice(7)
    : address;
}

export function clientIp(c: Context, proxies: number): string {
  // app.request() (tests, bench/app-cost.ts) has no socket; asked anyway, getConnInfo throws, and a
  // throw a call cost the app-cost bench a tenth of its time.
  const bindings = c.env?.server ?? c.env;
  const socket = bindings?.incoming ? (getConnInfo(c).remote.address ?? '') : '';
  return clientAddress(c.req.header('x-forwarded-for'), socket, proxies);
}
