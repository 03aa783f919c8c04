import type { Context } from 'hono';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { type Errno, errno, httpStatus } from '../../contract/errno.ts';
import { JsonText } from './handle.ts';
import { type Lang, langFrom, t } from './i18n.ts';

const contentSecurityPolicy = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'", 'data:'],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  frameAncestors: ["'none'"],
  formAction: ["'self'"],
};

/**
 * The security headers every answer carries: what hono's `secureHeaders` sets with these options, read
 * from it once. API answers are built whole with them (`jsonAnswer`); setting them one by one on each
 * finished answer turned @hono/node-server's plain header object into a web `Headers` and back, a tenth
 * of a list call's server time under load.
 */
const securityHeaders: Readonly<Record<string, string>> = Object.fromEntries(
  (
    await new Hono()
      .use(
        secureHeaders({
          contentSecurityPolicy,
          strictTransportSecurity: 'max-age=31536000; includeSubDomains',
          referrerPolicy: 'no-referrer',
          xFrameOptions: 'DENY',
          crossOriginResourcePolicy: 'same-origin',
        }),
      )
      .get('/', (c) => c.body(null))
      .request('/')
  ).headers,
);

/**
 * The headers of a JSON answer (the API, the gateway, the pay page's calls): OWASP's set for REST
 * answers. A JSON document runs nothing and embeds nothing, so its policy is `default-src 'none'`, and the
 * headers that only steer a page (opener policy, DNS prefetch, the XSS auditor, download and Flash
 * policies, agent clusters) are left to documents; `no-store` keeps money data out of every cache. Fewer,
 * shorter headers are also less for every answer to write.
 */
const jsonHeaders: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': securityHeaders['strict-transport-security']!,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** Answers built whole: they already carry the security headers and the request id. */
const whole = new WeakSet<Response>();

/**
 * A JSON answer (a value, or text already written as JSON) with every header it needs, as one plain
 * object the Node adapter writes as it is.
 */
export function jsonAnswer(
  c: Context,
  body: unknown,
  status = 200,
  headers?: Readonly<Record<string, string>>,
): Response {
  const res = new Response(body instanceof JsonText ? body.text : JSON.stringify(body), {
    status,
    headers: {
      ...jsonHeaders,
      ...headers,
      'content-type': 'application/json',
      'x-request-id': c.get('requestId'),
    },
  });
  whole.add(res);
  return res;
}

/** The envelope every API answer uses (the console's, the gateway's, the pay page's). */
export function envelope(lang: Lang, code: Errno, data: unknown = null, errmsg?: string) {
  return { errno: code, errmsg: code === errno.ok ? '' : (errmsg ?? t(lang, `errno.${code}`)), data };
}

/**
 * A refusal (or any outcome that is not plain success) as the envelope, with the HTTP status that says the
 * same thing (`httpStatus`, contract/errno.ts).
 */
export function envelopeAnswer(
  c: Context,
  lang: Lang,
  code: Errno,
  data: unknown = null,
  errmsg?: string,
  headers?: Readonly<Record<string, string>>,
): Response {
  return jsonAnswer(c, envelope(lang, code, data, errmsg), httpStatus[code], headers);
}

/**
 * The answer of an API's catch-all: a path that is one of its endpoints under another method answers 405
 * with `Allow` (RFC 9110: a TRACE or a DELETE is not "not found"), any other path 404. `routes` are the
 * API's endpoints, their paths as declared (`:name` for a path parameter).
 */
export function unmatchedAnswer(routes: ReadonlyArray<{ method: string; path: string }>) {
  const methods = new Map<string, Set<string>>();
  for (const r of routes) {
    const source = `^${r.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}$`;
    methods.set(source, (methods.get(source) ?? new Set()).add(r.method));
    if (r.method === 'GET') methods.get(source)!.add('HEAD');
  }
  const paths = [...methods].map(([source, m]) => ({ re: new RegExp(source), allow: [...m].join(', ') }));
  return (c: Context): Response => {
    const lang = langFrom(c.req.header('accept-language'));
    const path = paths.find((p) => p.re.test(c.req.path));
    return path
      ? envelopeAnswer(c, lang, errno.methodNotAllowed, null, undefined, { allow: path.allow })
      : envelopeAnswer(c, lang, errno.notFound);
  };
}

/**
 * The database did not answer within the server's retries (restarting, failing over): HTTP 503 with
 * `Retry-After`, for the console's API and the gateway alike.
 */
export function unavailableAnswer(c: Context, lang: Lang): Response {
  return envelopeAnswer(c, lang, errno.databaseUnavailable, null, undefined, { 'retry-after': '5' });
}

/**
 * Gives an answer not built by `jsonAnswer` (static files, HTML, downloads) the same headers once it is
 * made; called by the app's one middleware (server/http/app.ts) after the handler.
 */
export function addSecurityHeaders(c: Context): void {
  if (whole.has(c.res)) return;
  const h = c.res.headers;
  for (const name in securityHeaders) h.set(name, securityHeaders[name]!);
  h.set('x-request-id', c.get('requestId'));
}
