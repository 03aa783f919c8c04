import { BlockList, isIP } from 'node:net';

/** True when `ip` is one of the whitelist's addresses or inside one of its CIDR ranges. */
export function ipAllowed(ip: string, whitelist: readonly string[]): boolean {
  const address = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  const family = isIP(address);
  if (!family) return false;
  const list = new BlockList();
  for (const entry of whitelist) {
    const [base = '', prefix] = entry.split('/');
    const f = isIP(base);
    if (!f) continue;
    if (prefix === undefined) list.addAddress(base, f === 4 ? 'ipv4' : 'ipv6');
    else list.addSubnet(base, Number(prefix), f === 4 ? 'ipv4' : 'ipv6');
  }
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
