/**
 * P21 and the operational contract at the HTTP level: security headers on every kind of answer,
 * request ids, no CORS for strangers, answers in the caller's language, the published API reference.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEndpoints, endpoints } from '../../contract/index.ts';
import en from '../../locales/en.json' with { type: 'json' };
import zh from '../../locales/zh_CN.json' with { type: 'json' };
import { createApp } from '../http/app.ts';
import { gatewayRoutes, routes } from '../routes.ts';
import { engines, errno, startTestServer, type TestServer } from './harness.ts';

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
  expect(csp['object-src'], `${what}: CSP object-src`).toEqual(["'none'"]);
  expect(csp['base-uri'], `${what}: CSP base-uri`).toEqual(["'none'"]);
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
      ['API errno 501', await s.request('GET', '/api/auth/info'), 200],
      [
        'API errno 403',
        await s.request('GET', '/api/mailOutbox/list', { token: (await s.makeUser({ perms: [] })).token }),
        200,
      ],
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
    expect(doc.components.securitySchemes.adminToken).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'admin-token',
    });
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
});
