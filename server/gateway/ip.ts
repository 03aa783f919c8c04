import { BlockList, isIP } from 'node:net';

/**
 * The broadest range a payout whitelist may hold, per family: a whitelist is a second factor of the
 * gateway's payouts, and `0.0.0.0/0` (or a whole provider's /8) lets anyone holding the API secret in.
 */
export const broadestPrefix = { 4: 16, 6: 32 } as const;

export type WhitelistEntry =
  | { ok: true; family: 4 | 6; base: string; prefix: number | undefined; text: string }
  | { ok: false; reason: 'invalid' | 'tooBroad' };

const mapped = /^::ffff:/i;

/**
 * One whitelist entry read as the gateway compares it: an address or a network whose prefix fits its
 * family. IPv4-mapped IPv6 (`::ffff:192.0.2.1`, `::ffff:192.0.2.0/120`) is the IPv4 address or network it
 * names, written in IPv4 form (`text`), since the gateway compares mapped clients as IPv4.
 */
export function whitelistEntry(raw: string): WhitelistEntry {
  const parts = raw.trim().split('/');
  if (parts.length > 2) return { ok: false, reason: 'invalid' };
  let base = parts[0] ?? '';
  const isMapped = mapped.test(base) && isIP(base.slice(7)) === 4;
  if (isMapped) base = base.slice(7);
  const family = isIP(base);
  if (family !== 4 && family !== 6) return { ok: false, reason: 'invalid' };
  let prefix: number | undefined;
  if (parts.length === 2) {
    const p = parts[1] ?? '';
    if (!/^\d{1,3}$/.test(p)) return { ok: false, reason: 'invalid' };
    prefix = Number(p);
    if (prefix > (isMapped || family === 6 ? 128 : 32)) return { ok: false, reason: 'invalid' };
    if (isMapped) {
      // Under /96 a mapped range holds every IPv4 address and more.
      if (prefix < 96) return { ok: false, reason: 'tooBroad' };
      prefix -= 96;
    }
    if (prefix < broadestPrefix[family]) return { ok: false, reason: 'tooBroad' };
  }
  const address = family === 6 ? base.toLowerCase() : base;
  return {
    ok: true,
    family,
    base: address,
    prefix,
    text: prefix === undefined ? address : `${address}/${prefix}`,
  };
}

/**
 * True when `ip` is one of the whitelist's addresses or inside one of its ranges. An entry the whitelist
 * rule refuses (stored before the rule, such as `0.0.0.0/0`) never matches: the check fails closed.
 */
export function ipAllowed(ip: string, whitelist: readonly string[]): boolean {
  const address = mapped.test(ip) && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  const family = isIP(address);
  if (!family) return false;
  const list = new BlockList();
  for (const raw of whitelist) {
    const entry = whitelistEntry(raw);
    if (!entry.ok) continue;
    const type = entry.family === 4 ? 'ipv4' : 'ipv6';
    if (entry.prefix === undefined) list.addAddress(entry.base, type);
    else list.addSubnet(entry.base, entry.prefix, type);
  }
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
