/**
 * P21 and the operational contract at the HTTP level: security headers on every kind of answer,
 * request ids, no CORS for strangers, answers in the caller's language, the published API reference.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackTypes, canonicalString } from '../../contract/gateway.ts';
import { allEndpoints, endpoints } from '../../contract/index.ts';
import en from '../../locales/en.json' with { type: 'json' };
import zh from '../../locales/zh_CN.json' with { type: 'json' };
import { gatewayNonces, operationLog } from '../db/schema.ts';
import { createApp } from '../http/app.ts';
import { hmacHex, randomToken } from '../lib/crypto.ts';
import { createLogger, errorForLog } from '../lib/logger.ts';
import { gatewayRoutes, routes } from '../routes.ts';
import { adminPassword, type Envelope, engines, errno, startTestServer, type TestServer } from './harness.ts';

type Answer = { status: number; headers: Headers; text: string };

/** CSP directives as `{name: [values]}`. */
function cspOf(header: string | null): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of (header ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out[name.toLowerCase()] = values;
  }
  return out;
}

function expectSecurityHeaders(res: Answer, what: string) {
  const h = res.headers;
  const csp = cspOf(h.get('content-security-policy'));
  // A JSON answer loads nothing (`default-src 'none'`) and is never stored; a document names each source.
  const json = (h.get('content-type') ?? '').startsWith('application/json');
  expect(csp['object-src'] ?? csp['default-src'], `${what}: CSP object-src`).toEqual(["'none'"]);
  if (json) {
    expect(csp['default-src'], `${what}: CSP default-src`).toEqual(["'none'"]);
    expect(h.get('cache-control'), `${what}: Cache-Control`).toBe('no-store');
  } else expect(csp['base-uri'], `${what}: CSP base-uri`).toEqual(["'none'"]);
  expect(csp['frame-ancestors'], `${what}: CSP frame-ancestors`).toEqual(["'none'"]);
  expect(csp['default-src'], `${what}: CSP default-src`).toBeDefined();
  expect(csp['script-src'] ?? csp['default-src'], `${what}: no inline scripts`).not.toContain(
    "'unsafe-inline'",
  );
  expect(h.get('x-content-type-options'), what).toBe('nosniff');
  expect(h.get('referrer-policy'), what).toMatch(
    /^(no-referrer|same-origin|strict-origin|strict-origin-when-cross-origin)$/,
  );
  const hsts = h.get('strict-transport-security') ?? '';
  expect(Number(/max-age=(\d+)/.exec(hsts)?.[1] ?? 0), `${what}: HSTS max-age`).toBeGreaterThanOrEqual(
    31_536_000,
  );
  expect(hsts, what).toMatch(/includeSubDomains/i);
  expect(h.get('x-request-id') ?? '', `${what}: X-Request-Id`).toMatch(/^[A-Za-z0-9-]{8,64}$/);
  expect(h.get('access-control-allow-origin'), `${what}: no CORS`).toBeNull();
}

describe.each(engines)('HTTP on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  let consoleDir: string;
  let withConsole: ReturnType<typeof createApp>;

  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
    // The same server with a built console, to see the single-page fallback and a hashed asset.
    consoleDir = mkdtempSync(join(tmpdir(), 'paygate-console-'));
    mkdirSync(join(consoleDir, 'assets'));
    writeFileSync(
      join(consoleDir, 'index.html'),
      '<!doctype html><title>console</title><div id="root"></div>',
    );
    writeFileSync(join(consoleDir, 'assets', 'app-1a2b3c.js'), 'console.log(1)');
    withConsole = createApp({ ...s.deps, config: { ...s.deps.config, consoleDir } }, routes, gatewayRoutes);
  });
  afterAll(async () => {
    rmSync(consoleDir, { recursive: true, force: true });
    await s.close();
  });

  const fromConsole = async (path: string, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await withConsole.request(`http://localhost${path}`, { headers });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };

  it('sends the security headers on every kind of answer', async () => {
    const big = `{"nickname":"${'a'.repeat(1024 * 1024)}"}`;
    const answers: Array<[string, Answer, number]> = [
      ['API 200', await s.request('GET', '/api/health'), 200],
      ['API errno 501', await s.request('GET', '/api/auth/info'), 401],
      [
        'API errno 403',
        await s.request('GET', '/api/mailOutbox/list', { token: (await s.makeUser({ perms: [] })).token }),
        403,
      ],
      ['API 405', await s.request('DELETE', '/api/health'), 405],
      ['API 404', await s.request('GET', '/api/no/such/thing'), 404],
      ['API 404 POST', await s.request('POST', '/api/no/such/thing', { body: {} }), 404],
      [
        'API 415',
        await s.request('POST', '/api/auth/profile', {
          rawBody: '{}',
          token: admin,
          headers: { 'content-type': 'text/plain' },
        }),
        415,
      ],
      [
        'API 413',
        await s.request('POST', '/api/auth/profile', {
          rawBody: big,
          token: admin,
          headers: { 'content-type': 'application/json' },
        }),
        413,
      ],
      ['OpenAPI', await s.request('GET', '/api/openapi.json'), 200],
      ['API docs', await s.request('GET', '/api/docs'), 200],
      ['console not built', await s.request('GET', '/orders'), 503],
      ['console page', await fromConsole('/merchantOrder/list?page=2'), 200],
      ['console root', await fromConsole('/'), 200],
      ['console asset', await fromConsole('/assets/app-1a2b3c.js'), 200],
    ];
    for (const [what, res, status] of answers) {
      expect(res.status, what).toBe(status);
      expectSecurityHeaders(res, what);
    }
    const page = answers.find(([w]) => w === 'console page')![1];
    expect(page.text).toContain('<div id="root">');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const asset = answers.find(([w]) => w === 'console asset')![1];
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it('reads a JSON body over 1 MB in a worker thread: the same value, and errno 400 when it is not JSON', async () => {
    const path = `/api${endpoints.statement.import.path}`;
    const body = JSON.stringify({
      accountId: 999_999,
      mappingId: 999_999,
      text: 'x'.repeat(2 * 1024 * 1024),
      dryRun: true,
    });
    // Declared (read whole) and chunked (counted as it streams): both over the line, both parsed off the loop.
    for (const declared of [true, false]) {
      const post = (rawBody: string) =>
        s.request('POST', path, {
          rawBody,
          token: admin,
          headers: {
            'content-type': 'application/json',
            ...(declared ? { 'content-length': String(Buffer.byteLength(rawBody)) } : {}),
          },
        });
      const read = await post(body);
      expect(read.json.errno, `declared ${declared}`).toBe(errno.notFound);
      const broken = await post(body.slice(0, -1));
      expect(broken.status, `declared ${declared}`).toBeLessThan(500);
      expect(broken.json.errno, `declared ${declared}`).toBe(errno.badRequest);
    }
  });

  it('echoes a well-formed X-Request-Id and replaces anything else', async () => {
    const mine = 'req-0123456789abcdef';
    expect(
      (await s.request('GET', '/api/health', { headers: { 'x-request-id': mine } })).headers.get(
        'x-request-id',
      ),
    ).toBe(mine);
    for (const bad of [
      'short',
      'has spaces in it',
      '<script>alert(1)</script>',
      'x'.repeat(65),
      'a\tb-cdefghij',
    ]) {
      const got = (await s.request('GET', '/api/health', { headers: { 'x-request-id': bad } })).headers.get(
        'x-request-id',
      );
      expect(got, bad).not.toBe(bad);
      expect(got).toMatch(/^[0-9a-f-]{36}$/);
    }
    const a = (await s.request('GET', '/api/health')).headers.get('x-request-id');
    const b = (await s.request('GET', '/api/health')).headers.get('x-request-id');
    expect(a).not.toBe(b);
  });

  it('gives a foreign Origin no CORS grant, not even on a preflight', async () => {
    const origin = { origin: 'https://evil.example' };
    const plain = await s.request('GET', '/api/auth/info', { token: admin, headers: origin });
    expect(plain.json.errno).toBe(errno.ok);
    const preflight = await s.request('OPTIONS', '/api/admin/create', {
      headers: {
        ...origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'admin-token,content-type',
      },
    });
    const post = await s.request('POST', '/api/auth/profile', {
      body: { nickname: 'x' },
      token: admin,
      headers: origin,
    });
    for (const res of [plain, preflight, post]) {
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('access-control-allow-headers')).toBeNull();
    }
    expect(preflight.status).toBeLessThan(500);
  });

  it('answers in Chinese for zh-CN and in English otherwise', async () => {
    const msg = async (lang: string | undefined, path = '/api/auth/info') =>
      (await s.request('GET', path, { headers: lang ? { 'accept-language': lang } : {} })).json;
    const zh501 = (zh as { errno: Record<string, string> }).errno['501'];
    const en501 = (en as { errno: Record<string, string> }).errno['501'];
    expect(zh501).not.toBe(en501);
    for (const lang of ['zh-CN', 'zh-CN,zh;q=0.9,en;q=0.8', 'zh', 'zh-TW']) {
      const res = await msg(lang);
      expect(res.errno).toBe(errno.notSignedIn);
      expect(res.errmsg, lang).toBe(zh501);
    }
    for (const lang of [undefined, 'en', 'en-US,en;q=0.9,zh-CN;q=0.8', 'fr-FR', '*']) {
      expect((await msg(lang)).errmsg, String(lang)).toBe(en501);
    }
    expect((await msg('zh-CN', '/api/nope')).errmsg).toBe(
      (zh as { errno: Record<string, string> }).errno['404'],
    );
    // Field messages of a 422 too.
    const invalid = await s.request('POST', '/api/auth/login', {
      body: {},
      headers: { 'accept-language': 'zh-CN' },
    });
    expect(invalid.json.errno).toBe(errno.invalid);
    expect(invalid.json.errmsg).toMatch(/[\u4e00-\u9fff]/);
    for (const f of (invalid.json.data as { fields: Array<{ message: string }> }).fields)
      expect(f.message).toMatch(/[\u4e00-\u9fff]/);
    const english = await s.request('POST', '/api/auth/login', { body: {} });
    for (const f of (english.json.data as { fields: Array<{ message: string }> }).fields)
      expect(f.message).not.toMatch(/[\u4e00-\u9fff]/);
  });

  it('publishes OpenAPI 3.1 with every endpoint, its permission and the admin-token scheme', async () => {
    const res = await s.request('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const doc = JSON.parse(res.text) as {
      openapi: string;
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.components.securitySchemes.adminToken).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'admin-token' }),
    );
    const missing = allEndpoints.filter((ep) => {
      const op = doc.paths[`/api${ep.path}`]?.[ep.method.toLowerCase()];
      return !op || op['x-permission'] !== ep.permission || op.operationId !== ep.id;
    });
    expect(missing.map((ep) => ep.id)).toEqual([]);
    // POST bodies are JSON; GET inputs are query parameters.
    const login = doc.paths[`/api${endpoints.auth.login.path}`]!.post!;
    expect(Object.keys((login.requestBody as { content: object }).content)).toEqual(['application/json']);
    const list = doc.paths[`/api${endpoints.admin.list.path}`]!.get!;
    expect((list.parameters as Array<{ name: string; in: string }>).map((p) => p.in)).toContain('query');
  });

  it('serves a readable HTML reference listing every endpoint, without scripts', async () => {
    const res = await s.request('GET', '/api/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const missing = allEndpoints
      .filter((ep) => !res.text.includes(`<code>/api${ep.path}</code>`))
      .map((ep) => ep.id);
    expect(missing).toEqual([]);
    expect(res.text).not.toMatch(/<script/i);
  });

  it("serves the gateway's reference page too, its 201 answers and its callbacks included (GATEWAY.md promises it)", async () => {
    const res = await s.request('GET', '/gateway/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('<code>/gateway/v1/payin</code>');
    // Every callback type, from the document's webhooks.
    for (const type of callbackTypes) expect(res.text).toContain(`<code>${type}</code>`);
    expect(res.text).not.toContain('undefined');
    expect(res.text).not.toMatch(/<script/i);
  });
});

/**
 * A body of `total` bytes in `chunk`-byte pieces, made only as the reader pulls them: `pulled()` says how
 * much the server read. No Content-Length goes with it.
 */
function streamedBody(total: number, chunk = 64 * 1024) {
  let pulled = 0;
  const piece = new TextEncoder().encode('x'.repeat(chunk));
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled >= total) return controller.close();
        pulled += piece.length;
        controller.enqueue(piece);
      },
    },
    { highWaterMark: 0 },
  );
  return { body, pulled: () => pulled };
}

const tenMegabytes = 10 * 1024 * 1024;

describe.each(engines)('bodies over the limit on %s (issue 11, item 7)', (engine) => {
  let s: TestServer;
  let merchant: Awaited<ReturnType<TestServer['makeMerchant']>>;
  beforeAll(async () => {
    s = await startTestServer(engine);
    merchant = await s.makeMerchant();
  });
  afterAll(() => s.close());

  /** A gateway POST signed over an empty body (the signature is never reached), with `body` sent instead. */
  const gatewayPost = (body: BodyInit, headers: Record<string, string> = {}) => {
    const timestamp = String(Math.floor(s.clock.now().getTime() / 1000));
    const nonce = randomToken(16);
    return {
      nonce,
      answer: s.app.fetch(
        new Request('http://localhost/gateway/v1/payin', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-merchant-id': merchant.code,
            'x-timestamp': timestamp,
            'x-nonce': nonce,
            'x-signature': hmacHex(
              merchant.apiSecret,
              canonicalString(timestamp, nonce, 'POST', '/gateway/v1/payin', ''),
            ),
            'x-forwarded-for': '203.0.113.7',
            ...headers,
          },
          body,
          duplex: 'half',
        } as RequestInit),
      ),
    };
  };
  const nonceSpent = async (nonce: string) =>
    (await s.db.select().from(gatewayNonces).where(eq(gatewayNonces.nonce, nonce))).length > 0;

  it('stops reading a streamed gateway body at 64 KB and answers 413 before the signature', async () => {
    const stream = streamedBody(tenMegabytes);
    const { nonce, answer } = gatewayPost(stream.body);
    const res = await answer;
    expect(res.status).toBe(413);
    expect(((await res.json()) as Envelope).errno).toBe(errno.payloadTooLarge);
    expect(stream.pulled()).toBeLessThanOrEqual(64 * 1024 + 2 * 64 * 1024);
    expect(await nonceSpent(nonce)).toBe(false);
  });

  it('refuses a gateway body whose Content-Length is over the limit without reading it', async () => {
    const stream = streamedBody(tenMegabytes);
    const { nonce, answer } = gatewayPost(stream.body, { 'content-length': String(tenMegabytes) });
    const res = await answer;
    expect(res.status).toBe(413);
    expect(((await res.json()) as Envelope).errno).toBe(errno.payloadTooLarge);
    expect(stream.pulled()).toBe(0);
    expect(await nonceSpent(nonce)).toBe(false);
  });

  it('still takes a gateway body under the limit', async () => {
    const res = await s.gateway(merchant, 'POST', '/gateway/v1/payin', { amount: 'x'.repeat(60 * 1024) });
    expect(res.status).toBe(422);
    expect(res.json.errno).toBe(errno.invalid);
  });

  const adminPost = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    s.app.fetch(
      new Request(`http://localhost/api${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.0.0.1', ...headers },
        body,
        duplex: 'half',
      } as RequestInit),
    );

  it('stops reading a streamed admin API body at 1 MiB and answers 413 (errno 413)', async () => {
    const stream = streamedBody(tenMegabytes);
    const res = await adminPost(endpoints.auth.login.path, stream.body);
    expect(res.status).toBe(413);
    expect(((await res.json()) as Envelope).errno).toBe(errno.payloadTooLarge);
    expect(stream.pulled()).toBeLessThanOrEqual(1024 * 1024 + 2 * 64 * 1024);
    expect(await s.db.select().from(operationLog).where(eq(operationLog.action, 'auth.login'))).toEqual([]);
  });

  it('refuses an admin API body whose Content-Length is over the limit without reading it', async () => {
    const stream = streamedBody(tenMegabytes);
    const res = await adminPost(endpoints.auth.login.path, stream.body, {
      'content-length': String(tenMegabytes),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as Envelope).errno).toBe(errno.payloadTooLarge);
    expect(stream.pulled()).toBe(0);
  });

  it('reads no body of a call that is not signed in', async () => {
    const stream = streamedBody(tenMegabytes);
    const res = await adminPost(endpoints.auth.updateProfile.path, stream.body);
    expect(((await res.json()) as Envelope).errno).toBe(errno.notSignedIn);
    expect(stream.pulled()).toBe(0);
  });
});

/** The app of a test server listening on a real port, so that requests have a socket address (127.0.0.1). */
async function listening(s: TestServer) {
  const server = serve({ fetch: s.app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A signed gateway request to `base` (GATEWAY.md), with the given X-Forwarded-For. */
function signedGateway(
  base: string,
  merchant: { code: string; apiSecret: string },
  now: Date,
  path: string,
  body: unknown,
  forwardedFor?: string,
) {
  const raw = JSON.stringify(body);
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const nonce = randomToken(16);
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-merchant-id': merchant.code,
      'x-timestamp': timestamp,
      'x-nonce': nonce,
      'x-signature': hmacHex(merchant.apiSecret, canonicalString(timestamp, nonce, 'POST', path, raw)),
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
    body: raw,
  });
}

describe.each(engines)('the client address behind proxies on %s (issue 11, item 4)', (engine) => {
  const spoofed = '6.6.6.6, 10.0.0.1';

  describe('with TRUST_PROXY=1', () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer(engine, { authLimit: 3, config: { trustProxy: 1 } });
    });
    afterAll(() => s.close());

    it('logs the address one hop from the right, not the one the client wrote', async () => {
      const rid = 'xff-logged-0001';
      const res = await s.request('POST', `/api${endpoints.auth.login.path}`, {
        body: { username: 'admin', password: adminPassword },
        headers: { 'x-forwarded-for': spoofed, 'x-request-id': rid },
      });
      expect(res.json.errno).toBe(errno.ok);
      const [row] = await s.db.select().from(operationLog).where(eq(operationLog.requestId, rid));
      expect(row?.ip).toBe('10.0.0.1');
    });

    it('counts sign-in attempts against that address, whatever the client writes to the left', async () => {
      // The test above spent one of the three; two more with other made-up left-most values fill it.
      for (const left of ['7.7.7.7', '8.8.8.8']) {
        const res = await s.request('POST', `/api${endpoints.auth.login.path}`, {
          body: { username: 'admin', password: adminPassword },
          headers: { 'x-forwarded-for': `${left}, 10.0.0.1` },
        });
        expect(res.json.errno).toBe(errno.ok);
      }
      const over = await s.request('POST', `/api${endpoints.auth.login.path}`, {
        body: { username: 'admin', password: adminPassword },
        headers: { 'x-forwarded-for': '9.9.9.9, 10.0.0.1' },
      });
      expect(over.json.errno).toBe(errno.tooManyRequests);
      // Another client behind the same proxy has its own count.
      const other = await s.request('POST', `/api${endpoints.auth.login.path}`, {
        body: { username: 'admin', password: adminPassword },
        headers: { 'x-forwarded-for': '6.6.6.6, 10.0.0.2' },
      });
      expect(other.json.errno).toBe(errno.ok);
    });

    it('checks the payout IP whitelist against that address', async () => {
      const listed = await s.makeMerchant({ payoutIpWhitelist: ['6.6.6.6'] });
      const refused = await s.gateway(listed, 'POST', '/gateway/v1/payout', {}, { ip: spoofed });
      expect(refused.status).toBe(403);
      const proxied = await s.makeMerchant({ payoutIpWhitelist: ['10.0.0.1'] });
      const admitted = await s.gateway(proxied, 'POST', '/gateway/v1/payout', {}, { ip: spoofed });
      // Past the whitelist, the empty body is what is refused.
      expect(admitted.status).toBe(422);
    });
  });

  describe('with TRUST_PROXY=0', () => {
    let s: TestServer;
    let http: Awaited<ReturnType<typeof listening>>;
    beforeAll(async () => {
      s = await startTestServer(engine, { authLimit: 2, config: { trustProxy: 0 } });
      http = await listening(s);
    });
    afterAll(async () => {
      await http.close();
      await s.close();
    });

    it('ignores X-Forwarded-For: the socket is the client, in the log, the limiter and the whitelist', async () => {
      const login = (forwardedFor: string, rid: string) =>
        fetch(`${http.base}/api${endpoints.auth.login.path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-forwarded-for': forwardedFor,
            'x-request-id': rid,
          },
          body: JSON.stringify({ username: 'admin', password: adminPassword }),
        }).then(async (r) => ((await r.json()) as Envelope).errno);
      expect(await login(spoofed, 'xff-ignored-0001')).toBe(errno.ok);
      const [row] = await s.db
        .select()
        .from(operationLog)
        .where(eq(operationLog.requestId, 'xff-ignored-0001'));
      expect(row?.ip).toBe('127.0.0.1');
      // Two attempts per address: a different header does not make a different client.
      expect(await login('10.0.0.2', 'xff-ignored-0002')).toBe(errno.ok);
      expect(await login('10.0.0.3', 'xff-ignored-0003')).toBe(errno.tooManyRequests);

      const listed = await s.makeMerchant({ payoutIpWhitelist: ['6.6.6.6', '10.0.0.1'] });
      const refused = await signedGateway(
        http.base,
        listed,
        s.clock.now(),
        '/gateway/v1/payout',
        {},
        spoofed,
      );
      expect(refused.status).toBe(403);
      const local = await s.makeMerchant({ payoutIpWhitelist: ['127.0.0.1'] });
      const admitted = await signedGateway(
        http.base,
        local,
        s.clock.now(),
        '/gateway/v1/payout',
        {},
        spoofed,
      );
      expect(admitted.status).toBe(422);
    });
  });
});

describe.each(engines)('over a real connection on %s (issue 11, item 7)', (engine) => {
  let s: TestServer;
  let http: Awaited<ReturnType<typeof listening>>;
  beforeAll(async () => {
    s = await startTestServer(engine);
    http = await listening(s);
  });
  afterAll(async () => {
    await http.close();
    await s.close();
  });

  it('answers 413 to a 10 MB chunked upload, having read little of it', async () => {
    for (const path of ['/gateway/v1/payin', `/api${endpoints.auth.login.path}`]) {
      const stream = streamedBody(tenMegabytes);
      const res = await fetch(`${http.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stream.body,
        duplex: 'half',
      } as RequestInit).catch((err: Error) => err);
      // The answer arrives: the server stops reading, answers, then drops the rest.
      if (res instanceof Error) throw new Error(`${path}: no answer (${res.message})`);
      const answer = res;
      expect(answer.status, path).toBe(413);
      expect(((await answer.json()) as Envelope).errno, path).toBe(errno.payloadTooLarge);
    }
  });

  it('answers TRACE and other methods a path does not take with 405 and Allow, an unknown path with 404', async () => {
    // fetch cannot send TRACE: node:http can, as a scanner would.
    const raw = (method: string, path: string) =>
      new Promise<{ status: number; allow: string | undefined; body: Envelope }>((resolve, reject) => {
        const req = request(`${http.base}${path}`, { method }, (res) => {
          let text = '';
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode!,
              allow: res.headers.allow,
              body: JSON.parse(text) as Envelope,
            }),
          );
        });
        req.on('error', reject);
        req.end();
      });
    for (const [method, path, allow] of [
      ['TRACE', '/api/health', 'GET, HEAD'],
      ['DELETE', `/api${endpoints.auth.login.path}`, 'POST'],
      ['PUT', '/api/openapi.json', 'GET, HEAD'],
      ['TRACE', '/gateway/v1/payin/P123', 'GET, HEAD'],
      ['DELETE', '/gateway/v1/payout', 'POST, GET, HEAD'],
    ] as const) {
      const res = await raw(method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.allow, `${method} ${path}`).toBe(allow);
      expect(res.body.errno).toBe(errno.methodNotAllowed);
    }
    const unknown = await raw('TRACE', '/api/no/such/thing');
    expect([unknown.status, unknown.body.errno]).toEqual([404, errno.notFound]);
  });
});

describe.each(engines)('no token from a query string in any log line on %s (issue 11, item 12)', (engine) => {
  let s: TestServer;
  const sink: string[] = [];
  beforeAll(async () => {
    s = await startTestServer(engine, { logSink: sink });
  });
  afterAll(() => s.close());

  it('reads a query with hostile keys as if they were absent', async () => {
    const token = await s.adminToken();
    const to = s.clock.now();
    const period = new URLSearchParams({
      from: new Date(to.getTime() - 86_400_000).toISOString(),
      to: to.toISOString(),
      pageSize: '5',
    });
    const list = `/api${endpoints.merchantOrder.list.path}`;
    const plain = await s.request('GET', `${list}?${period}`, { token });
    expect(plain.json.errno).toBe(errno.ok);
    for (const query of ['__proto__=1', '__proto__[errno]=1', '=2', 'constructor=3&prototype=4']) {
      const res = await s.request('GET', `${list}?${query}&${period}`, { token });
      expect(res.status, query).toBe(200);
      expect(res.json.errno, query).toBe(errno.ok);
      expect(res.json.data, query).toEqual(plain.json.data);
    }
  });

  it('keeps query strings out of the request log, the error log and the operation log', async () => {
    const token = await s.adminToken();
    const info = await s.request('GET', `/api${endpoints.auth.info.path}?token=${token}`);
    expect(info.json.errno).toBe(errno.ok);
    await s.request('GET', '/api/no/such/thing?token=stray-query-secret');
    await s.request('GET', '/gateway/v1/payin/X1?token=gateway-query-secret');
    // A URL with a secret in its query, written to the operation log as a change.
    const m = await s.makeMerchant();
    const set = await s.call(
      endpoints.merchant.callbackUpdate,
      { id: m.id, callbackUrl: 'https://merchant.example/notify?token=callback-query-secret&shop=1' },
      token,
    );
    expect(set.errno).toBe(errno.ok);
    const logged = JSON.stringify(await s.db.select().from(operationLog));
    expect(logged).not.toContain('callback-query-secret');
    expect(logged).toContain('https://merchant.example/notify?token=[redacted]&shop=1');

    const lines = sink.join('\n');
    expect(sink.length).toBeGreaterThan(0);
    for (const secret of [token, 'stray-query-secret', 'gateway-query-secret', 'callback-query-secret'])
      expect(lines).not.toContain(secret);
    expect(lines).not.toMatch(/[?&]token=/);
  });

  it('redacts a query token in an error message, a field or a message before it is logged', () => {
    const err = new TypeError('fetch failed for https://merchant.example/cb?token=abc123&x=1');
    expect(JSON.stringify(errorForLog(err))).not.toContain('abc123');
    expect(JSON.stringify(errorForLog(err))).toContain('token=[redacted]&x=1');
    // The logger itself, whatever a call site hands it.
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) });
    logger.warn(
      { url: '/api/auth/info?token=field-secret', nested: { to: 'https://x.example/?key=k1' } },
      'at /cb?token=msg-secret',
    );
    logger.info('GET /api/auth/info?token=plain-secret');
    const all = lines.join('');
    for (const secret of ['field-secret', 'k1', 'msg-secret', 'plain-secret'])
      expect(all).not.toContain(secret);
    expect(all).toContain('token=[redacted]');
  });
});
