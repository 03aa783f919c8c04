/**
 * The outbound client that callbacks use: which addresses it refuses (over IPv4, IPv6 and the IPv6 forms
 * that carry an IPv4 address), that it connects to the address it checked, never follows a redirect,
 * cuts a long reply at the cap and gives up at its deadline.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { AddressKind } from '../../contract/callbackNotes.ts';
import {
  classifyAddress,
  OutboundTimeout,
  postOutbound,
  RefusedTarget,
  refusalOf,
  urlForLog,
} from './outbound.ts';

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A self-signed certificate for `localhost` (a test fixture, valid until 2125; trusted by nobody). */
const localhostKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgLw1A4FquHRAPFcFz
ENBOtVvN9UxPakhoqf5mZBJBXj2hRANCAATR02OAlsLKgIBFFyKHRj4RQe5JspSS
VDPdVUdQlU5hPnODQX/YrFrz4v5MGHFtcZpLpcYRdh917nf/Zxf6fGzy
-----END PRIVATE KEY-----`;
const localhostCert = `-----BEGIN CERTIFICATE-----
MIIBlDCCATugAwIBAgIUA/6uM9OoyrY8oS1MEFRTpJIYUscwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMzIxMzQzN1oYDzIxMjYxMDMw
MjEzNDM3WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAATR02OAlsLKgIBFFyKHRj4RQe5JspSSVDPdVUdQlU5hPnODQX/YrFrz
4v5MGHFtcZpLpcYRdh917nf/Zxf6fGzyo2kwZzAdBgNVHQ4EFgQUSePGMsiZfZB+
LnCZXzJTtefL0U8wHwYDVR0jBBgwFoAUSePGMsiZfZB+LnCZXzJTtefL0U8wDwYD
VR0TAQH/BAUwAwEB/zAUBgNVHREEDTALgglsb2NhbGhvc3QwCgYIKoZIzj0EAwID
RwAwRAIgWVpZAX9atixqeuCRKPRmeksPqkRbz+2VvGTo6g7r+g4CIDAFdY5HageZ
QKQqepvtlSekojYl2ANcWq+NC79gN8d6
-----END CERTIFICATE-----`;

const post = (url: string, allowPrivate = true, extra: { timeoutMs?: number; maxReplyBytes?: number } = {}) =>
  postOutbound(url, {
    body: '{"a":1}',
    headers: {},
    timeoutMs: extra.timeoutMs ?? 5000,
    allowPrivate,
    ...extra,
  });

describe('classifyAddress', () => {
  const table: [string, AddressKind | null, string?][] = [
    // IPv4
    ['8.8.8.8', null],
    ['1.1.1.1', null],
    ['172.32.0.1', null],
    ['100.128.0.1', null],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    // IPv6
    ['2606:4700:4700::1111', null],
    ['2001:4860:4860::8888', null],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    // IPv6 that reaches an IPv4 address is judged by that address
    ['::ffff:127.0.0.1', 'loopback', '127.0.0.1'],
    ['::ffff:7f00:1', 'loopback', '127.0.0.1'],
    ['::FFFF:10.1.2.3', 'private', '10.1.2.3'],
    ['::ffff:a9fe:a9fe', 'metadata', '169.254.169.254'],
    ['::ffff:8.8.8.8', null],
    ['64:ff9b::10.0.0.1', 'private', '10.0.0.1'],
    ['64:ff9b::808:808', null],
    ['2002:7f00:1::', 'loopback', '127.0.0.1'],
    ['2002:0808:0808::1', null],
    // Not an address
    ['example.com', null],
    ['', null],
  ];
  it.each(table)('%s is %s', (ip, kind, address) => {
    const c = classifyAddress(ip);
    expect(c?.kind ?? null).toBe(kind);
    if (kind && address) expect(c!.address).toBe(address);
  });

  it('lets only loopback and private networks through when private targets are allowed', () => {
    expect(refusalOf('8.8.8.8', false)).toBeNull();
    expect(refusalOf('10.0.0.5', false)).toBe('refused: private address 10.0.0.5');
    for (const ip of ['127.0.0.1', '10.0.0.5', '100.64.0.1', 'fd12::1', '::ffff:192.168.0.1'])
      expect(refusalOf(ip, true)).toBeNull();
    for (const ip of [
      '169.254.169.254',
      'fd00:ec2::254',
      '169.254.1.1',
      'fe80::1',
      '0.0.0.0',
      '::',
      '224.0.0.1',
    ])
      expect(refusalOf(ip, true)).not.toBeNull();
  });
});

describe('postOutbound', () => {
  it('refuses a literal private address, a host resolving to one, and other schemes without connecting', async () => {
    let hits = 0;
    const s = await serve((_req, res) => {
      hits++;
      res.end('ok');
    });
    try {
      for (const [url, reason] of [
        [`http://127.0.0.1:${s.port}/`, /^refused: loopback address 127\.0\.0\.1$/],
        [`http://localhost:${s.port}/`, /^refused: loopback address (127\.0\.0\.1|::1)$/],
        [`http://[::ffff:127.0.0.1]:${s.port}/`, /^refused: loopback address 127\.0\.0\.1$/],
        [`http://[::1]:${s.port}/`, /^refused: loopback address ::1$/],
        ['http://169.254.169.254/latest/meta-data/', /^refused: metadata address 169\.254\.169\.254$/],
        ['http://0.0.0.0/', /^refused: unspecified address 0\.0\.0\.0$/],
        // Other spellings of 127.0.0.1 are read as the URL standard reads them.
        [`http://2130706433:${s.port}/`, /^refused: loopback address 127\.0\.0\.1$/],
        [`http://0x7f.1:${s.port}/`, /^refused: loopback address 127\.0\.0\.1$/],
        ['ftp://example.com/x', /^refused: scheme ftp$/],
        ['not a url', /^refused: invalid URL$/],
        [`http://user:pw@127.0.0.1:${s.port}/`, /^refused: credentials in the URL$/],
      ] as const) {
        const err = await post(url, false).catch((e: unknown) => e);
        expect(err, url).toBeInstanceOf(RefusedTarget);
        expect((err as Error).message, url).toMatch(reason);
      }
      expect(hits).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('connects to the checked address while the Host header keeps the host name', async () => {
    let host: string | undefined;
    const s = await serve((req, res) => {
      host = req.headers.host;
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    try {
      const reply = await post(`http://localhost:${s.port}/hook?x=1`);
      expect(reply).toMatchObject({ status: 200, body: 'ok', truncated: false });
      expect(host).toBe(`localhost:${s.port}`);
    } finally {
      await s.close();
    }
  });

  it('keeps the host name for TLS: SNI names it and the certificate is checked', async () => {
    let sni: string | undefined;
    let hits = 0;
    const server = createTlsServer(
      {
        key: localhostKey,
        cert: localhostCert,
        SNICallback: (name, cb) => {
          sni = name;
          cb(null);
        },
      },
      (_req, res) => {
        hits++;
        res.end('ok');
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const err = await post(`https://localhost:${port}/hook`).catch((e: unknown) => e);
      // Verification stays on: a self-signed certificate is refused before anything is sent.
      expect((err as { code?: string }).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
      expect(sni).toBe('localhost');
      expect(hits).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('answers a redirect as it is, without following it', async () => {
    let followed = 0;
    const target = await serve((_req, res) => {
      followed++;
      res.end('ok');
    });
    const s = await serve((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/` }).end('moved');
    });
    try {
      expect(await post(`http://127.0.0.1:${s.port}/`)).toMatchObject({ status: 302, body: 'moved' });
      expect(followed).toBe(0);
    } finally {
      await s.close();
      await target.close();
    }
  });

  it('reads a reply up to the cap and cuts the connection', async () => {
    let cut = false;
    const s = await serve((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'y');
      res.on('close', () => {
        cut = !res.writableFinished;
      });
      // Endless: only the client's cut ends it.
      const pump = () => {
        while (!res.destroyed) if (!res.write(chunk)) return void res.once('drain', pump);
      };
      pump();
    });
    try {
      const reply = await post(`http://127.0.0.1:${s.port}/`, true, { maxReplyBytes: 100_000 });
      expect(reply).toMatchObject({ status: 200, truncated: true });
      expect(reply.body).toBe('y'.repeat(100_000));
      await expect.poll(() => cut).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('gives up at its deadline, or keeps the status when only the body is late', async () => {
    const silent = await serve(() => {});
    const slowBody = await serve((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    try {
      const started = Date.now();
      const err = await post(`http://127.0.0.1:${silent.port}/`, true, { timeoutMs: 200 }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OutboundTimeout);
      expect((err as Error).message).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(2000);
      expect(await post(`http://127.0.0.1:${slowBody.port}/`, true, { timeoutMs: 200 })).toMatchObject({
        status: 200,
        body: 'partial',
        truncated: true,
      });
    } finally {
      await silent.close();
      await slowBody.close();
    }
  });

  it('answers a connection error as the network said it', async () => {
    const err = await post('http://127.0.0.1:9/closed').catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
  });
});

describe('urlForLog', () => {
  it('drops the query string, credentials and fragment', () => {
    expect(urlForLog('https://shop.example/cb?token=abc&x=1#f')).toBe('https://shop.example/cb?[redacted]');
    expect(urlForLog('https://u:p@shop.example:8443/cb')).toBe('https://shop.example:8443/cb');
    expect(urlForLog('nonsense')).toBe('[invalid URL]');
  });
});
