/**
 * Requests to addresses that someone else chose (merchant callbacks). A URL cannot be trusted to point
 * outside our network: the host is resolved once, every address it resolves to is checked, and the
 * connection goes to the checked address (no second lookup, so no DNS rebinding) while the Host header,
 * TLS SNI and the certificate check keep the URL's host name. Redirects are never followed and a reply
 * is read up to a cap, then the connection is cut.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, isIPv4, type LookupFunction } from 'node:net';
import { type AddressKind, callbackNotes } from '../../contract/callbackNotes.ts';

/**
 * Kinds that `CALLBACK_ALLOW_PRIVATE` lets through: a receiver on this machine (the demo's) or in the
 * same private network. Link-local, metadata and the rest stay refused: no receiver lives there, and
 * cloud credentials do (169.254.169.254, 169.254.170.2).
 */
const privateKinds: ReadonlySet<AddressKind> = new Set(['loopback', 'private', 'shared', 'unique-local']);

/** Special-purpose ranges (IANA registries); the first match wins, so single addresses come first. */
const v4Ranges: [string, number, AddressKind][] = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, Oracle, DigitalOcean…
  ['169.254.170.2', 32, 'metadata'], // AWS ECS task credentials
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud
  ['255.255.255.255', 32, 'broadcast'],
  ['0.0.0.0', 32, 'unspecified'],
  ['0.0.0.0', 8, 'reserved'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const v6Ranges: [string, number, AddressKind][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fd00:ec2::254', 128, 'metadata'], // AWS (IPv6)
  ['::', 96, 'reserved'], // IPv4-compatible (deprecated)
  ['64:ff9b:1::', 48, 'private'], // local-use NAT64
  ['100::', 64, 'reserved'],
  ['2001::', 32, 'reserved'], // Teredo
  ['2001:db8::', 32, 'reserved'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'reserved'], // site-local (deprecated)
  ['ff00::', 8, 'multicast'],
];

/**
 * IPv6 prefixes that carry an IPv4 address which the connection ends up reaching: IPv4-mapped,
 * IPv4-translated, NAT64 and 6to4. [prefix, length, byte offset of the IPv4 address].
 */
const embeddingV4: [string, number, number][] = [
  ['::ffff:0:0', 96, 12],
  ['::ffff:0:0:0', 96, 12],
  ['64:ff9b::', 96, 12],
  ['2002::', 16, 2],
];

function v4Bytes(ip: string): number[] | null {
  if (!isIPv4(ip)) return null;
  return ip.split('.').map(Number);
}

function v6Bytes(ip: string): number[] | null {
  const address = ip.replace(/%.*$/, ''); // a zone (fe80::1%eth0) does not change the address
  if (isIP(address) !== 6) return null;
  let groups: string[];
  const tail = address.match(/(\d+\.\d+\.\d+\.\d+)$/);
  const head = tail ? address.slice(0, -tail[1]!.length) : address;
  const four = tail ? v4Bytes(tail[1]!) : null;
  const extra = four
    ? [((four[0]! << 8) | four[1]!).toString(16), ((four[2]! << 8) | four[3]!).toString(16)]
    : [];
  const text = four ? `${head}${extra.join(':')}` : head;
  if (text.includes('::')) {
    const [left, right] = text.split('::') as [string, string];
    const l = left ? left.split(':') : [];
    const r = right ? right.split(':') : [];
    groups = [...l, ...Array<string>(8 - l.length - r.length).fill('0'), ...r];
  } else groups = text.split(':');
  return groups.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

function matches(bytes: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const bit = 7 - (i % 8);
    if (((bytes[i >> 3]! >> bit) & 1) !== ((prefix[i >> 3]! >> bit) & 1)) return false;
  }
  return true;
}

const v4Table = v4Ranges.map(([p, bits, kind]) => [v4Bytes(p)!, bits, kind] as const);
const v6Table = v6Ranges.map(([p, bits, kind]) => [v6Bytes(p)!, bits, kind] as const);
const embeddingTable = embeddingV4.map(([p, bits, at]) => [v6Bytes(p)!, bits, at] as const);

/**
 * What kind of special address `ip` is (`null`: an ordinary public address, or not an address at all),
 * with the address it stands for (an IPv4-mapped or NAT64 address answers its IPv4 address).
 */
export function classifyAddress(ip: string): { kind: AddressKind; address: string } | null {
  const four = v4Bytes(ip);
  if (four) {
    const hit = v4Table.find(([prefix, bits]) => matches(four, prefix, bits));
    return hit ? { kind: hit[2], address: four.join('.') } : null;
  }
  const six = v6Bytes(ip);
  if (!six) return null;
  const embedded = embeddingTable.find(([prefix, bits]) => matches(six, prefix, bits));
  if (embedded) return classifyAddress(six.slice(embedded[2], embedded[2] + 4).join('.'));
  const hit = v6Table.find(([prefix, bits]) => matches(six, prefix, bits));
  return hit ? { kind: hit[2], address: ip } : null;
}

/** The reason an address may not be connected to, or null when it may. */
export function refusalOf(ip: string, allowPrivate: boolean): string | null {
  const c = classifyAddress(ip);
  if (!c || (allowPrivate && privateKinds.has(c.kind))) return null;
  return callbackNotes.address(c.kind, c.address);
}

/** A target that is never contacted: its address (or its URL) is not allowed. */
export class RefusedTarget extends Error {
  override name = 'RefusedTarget';
}

/** The whole request (connection, sending, reading the reply) took longer than allowed. */
export class OutboundTimeout extends Error {
  override name = 'TimeoutError';
  constructor() {
    super(callbackNotes.timeout);
  }
}

/** A DNS lookup for `net.connect` that answers only addresses that passed the check. */
function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    dnsLookup(hostname, { family: options.family, hints: options.hints, all: true }, (err, found) => {
      if (err) return callback(err, '');
      const addresses = found as LookupAddress[];
      // One bad address refuses the host: connection attempts may go to any of them.
      for (const a of addresses) {
        const refusal = refusalOf(a.address, allowPrivate);
        if (refusal) return callback(new RefusedTarget(refusal), '');
      }
      const first = addresses[0];
      if (!first)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

export interface OutboundReply {
  status: number;
  headers: IncomingHttpHeaders;
  /** The reply's first `maxReplyBytes` bytes, as UTF-8. */
  body: string;
  /** The reply was longer than the cap: the rest was never read. */
  truncated: boolean;
}

export interface OutboundPost {
  body: string;
  headers: Record<string, string>;
  /** For the whole exchange, the reply's body included. */
  timeoutMs: number;
  /** Loopback and private-network targets are allowed (`privateCallbacksAllowed`). */
  allowPrivate: boolean;
  maxReplyBytes?: number;
}

/** Replies are read up to this many bytes (a receiver cannot make us buffer gigabytes). */
export const defaultMaxReplyBytes = 64 * 1024;

/**
 * POSTs `body` to `url` and answers the reply, whatever its status (3xx included: never followed).
 * Throws `RefusedTarget` for a URL or address that is not allowed, `OutboundTimeout`, or the network
 * error (connection refused, unknown host…).
 */
export function postOutbound(url: string, opts: OutboundPost): Promise<OutboundReply> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new RefusedTarget(callbackNotes.invalidUrl));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    return Promise.reject(new RefusedTarget(callbackNotes.scheme(target.protocol.slice(0, -1))));
  // fetch refused these too; a callback is authenticated by its signature, not by the URL.
  if (target.username || target.password) return Promise.reject(new RefusedTarget(callbackNotes.credentials));
  const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
  // `net.connect` skips the lookup for a literal address: check it here.
  if (isIP(hostname)) {
    const refusal = refusalOf(hostname, opts.allowPrivate);
    if (refusal) return Promise.reject(new RefusedTarget(refusal));
  }
  const max = opts.maxReplyBytes ?? defaultMaxReplyBytes;
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<OutboundReply>((resolve, reject) => {
    let done = false;
    const finish = (outcome: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      outcome();
    };
    const req = request({
      protocol: target.protocol,
      hostname,
      port: target.port || undefined,
      path: `${target.pathname}${target.search}`,
      method: 'POST',
      headers: { ...opts.headers, host: target.host, 'content-length': String(Buffer.byteLength(opts.body)) },
      lookup: checkedLookup(opts.allowPrivate),
      // A fresh connection each time: a pooled socket would outlive the check of its address.
      agent: false,
    });
    const timer = setTimeout(() => req.destroy(new OutboundTimeout()), opts.timeoutMs);
    /** Set once the status arrived: from then on, a failure only cuts the body short. */
    let answer: ((truncated: boolean) => void) | undefined;
    req.on('error', (err) => (answer ? answer(true) : finish(() => reject(err))));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const reply = (truncated: boolean) =>
        finish(() =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            truncated,
          }),
        );
      answer = reply;
      res.on('data', (chunk: Buffer) => {
        if (done) return;
        const room = max - size;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
        if (chunk.length > room) {
          reply(true);
          req.destroy();
        }
      });
      res.on('end', () => reply(false));
      // The status arrived: a reply cut short (or timed out) in its body still counts as that status.
      res.on('close', () => reply(!res.complete));
      res.on('error', () => reply(true));
    });
    req.end(opts.body);
  });
}

/** A URL as a log may show it: no credentials, no query string (merchants put tokens there), no fragment. */
export function urlForLog(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}${u.search ? '?[redacted]' : ''}`;
  } catch {
    return '[invalid URL]';
  }
}
