import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { Endpoint } from '../../contract/endpoint.ts';
import { errno } from '../../contract/errno.ts';
import { allEndpoints } from '../../contract/index.ts';
import { mayCall, needsPermission } from '../../contract/permissions.ts';
import { moneySessionCode } from '../../contract/schemas.ts';
import { inTransaction, isDatabaseUnavailable } from '../db/index.ts';
import { operationLog } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { type GatewayRoute, mountGateway } from '../gateway/app.ts';
import { errorForLog } from '../lib/logger.ts';
import { redact } from '../lib/redact.ts';
import { mountPay } from '../modules/pay/routes.ts';
import { mountSimulatorCheckout } from '../modules/pay/simulatorCheckout.ts';
import {
  addSecurityHeaders,
  envelope,
  envelopeAnswer,
  jsonAnswer,
  unavailableAnswer,
  unmatchedAnswer,
} from './answer.ts';
import { declaredTooLarge, readBodyJson } from './body.ts';
import { clientIp } from './clientIp.ts';
import { AppError, Refusal } from './errors.ts';
import { type AuditEntry, FileAnswer, JsonText, type RequestMeta, type Route } from './handle.ts';
import { langFrom, t } from './i18n.ts';
import { docsPage, openApiDocument } from './openapi.ts';
import { readAfterOf, writePositionHeader } from './reader.ts';
import { resolveSession, type SessionUser } from './session.ts';
import { fieldErrors, nulFields } from './validation.ts';

type Env = { Variables: { requestId: string } };

/** `envelope` of a success whose data is already JSON text. */
const envelopeOf = (data: JsonText) => new JsonText(`{"errno":${errno.ok},"errmsg":"","data":${data.text}}`);

/**
 * `attachment` with the file's name: an ASCII stand-in (each run of what is not a letter, digit, dot,
 * dash or underscore becomes `_`) and the name itself percent-encoded (RFC 6266 `filename*`), so a name a user
 * gave (an uploaded statement's, in any script, with quotes or line breaks) never breaks the header.
 */
export function contentDisposition(name: string): string {
  if (/^[A-Za-z0-9._-]+$/.test(name)) return `attachment; filename="${name}"`;
  const ascii = name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120) || 'download';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * Query parameters as an object: a repeated key becomes an array. Read with `URLSearchParams` (a third of
 * what `c.req.queries()` and its arrays cost a list call); an empty key is skipped as Hono skipped it, and
 * `__proto__` is no parameter of ours (assigned, it would replace the object's prototype).
 */
function queryInput(url: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const start = url.indexOf('?');
  if (start === -1) return out;
  const end = url.indexOf('#', start);
  for (const [key, value] of new URLSearchParams(url.slice(start + 1, end === -1 ? undefined : end))) {
    if (key === '' || key === '__proto__') continue;
    const seen = out[key];
    out[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

export function createApp(
  deps: Deps,
  routes: readonly Route[],
  gatewayRoutes: readonly GatewayRoute[] = [],
): Hono<Env> {
  const byId = new Map<string, Route>();
  for (const route of routes) {
    if (byId.has(route.endpoint.id)) throw new Error(`two handlers for ${route.endpoint.id}`);
    byId.set(route.endpoint.id, route);
  }
  const missing = allEndpoints.filter((e) => !byId.has(e.id)).map((e) => e.id);
  if (missing.length) throw new Error(`endpoints without a handler: ${missing.join(', ')}`);

  const app = new Hono<Env>();
  const log = deps.logger;
  // With a read replica, requests carry and writes set the caller's write position (server/http/reader.ts).
  const replicated = deps.database.replica !== undefined;

  // One middleware for every answer (each layer costs every call its own closure and promise): the
  // request id, the security headers of answers not built whole, the access log line.
  // The access line is at `info`: below that level, its object is not even built.
  const logRequests = log.isLevelEnabled('info');
  app.use('*', async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && /^[A-Za-z0-9-]{8,64}$/.test(incoming) ? incoming : crypto.randomUUID();
    c.set('requestId', requestId);
    const started = performance.now();
    await next();
    addSecurityHeaders(c);
    const path = c.req.path;
    if (logRequests && (path.startsWith('/api') || path.startsWith('/gateway'))) {
      log.info({
        rid: requestId,
        m: c.req.method,
        p: path,
        s: c.res.status,
        ms: Math.round(performance.now() - started),
      });
    }
  });
  // Bodies: a Content-Length over the endpoint's limit is refused first thing in its handler, before the
  // session; the body itself is read (counted as it streams, stopped at the limit) only once the caller
  // may call the endpoint, so an anonymous caller makes the server hold nothing of it. A GET has no body.
  const defaultLimit = 1024 * 1024;

  const writeLog = (
    db: Deps['database']['db'],
    ep: Endpoint,
    meta: RequestMeta,
    user: SessionUser | null,
    outcome: 'ok' | 'failed' | 'denied',
    code: number,
    audit: AuditEntry | undefined,
  ) =>
    db.insert(operationLog).values({
      at: deps.clock.now(),
      userId: user?.id ?? audit?.userId ?? null,
      username: user?.username ?? audit?.username ?? '',
      userKind: user?.kind ?? null,
      merchantId: user?.merchantId ?? null,
      ip: meta.ip,
      requestId: meta.requestId,
      action: ep.id,
      target: audit?.target ?? '',
      outcome,
      errno: code,
      detail:
        audit && (audit.changes || audit.detail || meta.moneySession)
          ? redact({
              ...audit.detail,
              changes: audit.changes,
              ...(meta.moneySession ? { codeFrom: 'moneySession' } : {}),
            })
          : null,
    });

  for (const ep of allEndpoints) {
    const route = byId.get(ep.id)!;
    const bodyLimit = ep.maxBodyBytes ?? defaultLimit;
    app.on(ep.method, `/api${ep.path}`, async (c) => {
      if (ep.method !== 'GET' && declaredTooLarge(c.req.raw.headers, bodyLimit))
        return envelopeAnswer(c, langFrom(c.req.header('accept-language')), errno.payloadTooLarge);
      const meta: RequestMeta = {
        ip: clientIp(c, deps.config.trustProxy),
        requestId: c.get('requestId'),
        userAgent: c.req.header('user-agent') ?? '',
        lang: langFrom(c.req.header('accept-language')),
        readAfter: replicated ? readAfterOf(c.req.header('cookie')) : undefined,
      };
      let user: SessionUser | null = null;
      /** A committed console write's position for the read replica (`writePositionHeader`). */
      let position: Record<string, string> | undefined;
      let audit: AuditEntry | undefined;
      const db = deps.database.db;
      try {
        if (ep.caller !== 'public') {
          const token =
            c.req.header('admin-token') ?? (ep.id === 'auth.info' ? c.req.query('token') : undefined);
          user = await resolveSession(deps, token);
          if (needsPermission(ep.caller)) {
            if (!mayCall(user, ep)) {
              await writeLog(db, ep, meta, user, 'denied', errno.forbidden, undefined);
              throw new AppError(errno.forbidden);
            }
            if (user.mustBindGoogle) throw new AppError(errno.bindGoogleFirst);
          }
        }
        let raw: unknown;
        if (ep.method === 'GET') {
          raw = queryInput(c.req.url);
          if (ep.id === 'auth.info') delete (raw as Record<string, unknown>).token;
        } else {
          if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json')) {
            return envelopeAnswer(c, meta.lang, errno.unsupportedMediaType);
          }
          raw = await readBodyJson(c.req.raw, bodyLimit);
        }
        // The input in the issues is for a refusal only: asked for on every call, it slows zod's success too.
        let parsed = ep.input.safeParse(raw);
        if (!parsed.success) parsed = ep.input.safeParse(raw, { reportInput: true });
        const fields = parsed.success
          ? nulFields(parsed.data, meta.lang)
          : fieldErrors(parsed.error.issues, meta.lang);
        if (!parsed.success || fields.length) {
          const first = fields[0];
          const errmsg = `${t(meta.lang, `errno.${errno.invalid}`)}${first ? `: ${first.path ? `${first.path}: ` : ''}${first.message}` : ''}`;
          if (user && ep.method === 'POST')
            await writeLog(db, ep, meta, user, 'failed', errno.invalid, undefined);
          return envelopeAnswer(c, meta.lang, errno.invalid, { fields }, errmsg);
        }
        meta.moneySession = (parsed.data as { code?: unknown } | undefined)?.code === moneySessionCode;
        const after: Array<() => Promise<void> | void> = [];
        const ctxFor = (tx: typeof db) => ({
          input: parsed.data,
          user,
          tx,
          deps,
          req: meta,
          audit: (entry: AuditEntry) => {
            audit = { ...audit, ...entry };
          },
          afterCommit: (fn: () => Promise<void> | void) => {
            after.push(fn);
          },
        });
        let result: unknown;
        if (ep.method === 'GET') {
          result = await route.run(ctxFor(db) as never);
          // A read that matters (the mail outbox) describes itself with `audit`: who read what is written
          // before the data leaves. A file (an export) is written below, before its first byte.
          if (audit && !(result instanceof FileAnswer) && !(result instanceof Refusal))
            await writeLog(db, ep, meta, user, 'ok', 0, audit);
        } else {
          const write = async (tx: typeof db) => {
            audit = undefined;
            after.length = 0;
            const r = await route.run(ctxFor(tx) as never);
            // A password step that asks for the second factor (1002), or an action sent for a second
            // person's approval (1043), went well: neither is a failure.
            const failed =
              r instanceof Refusal &&
              r.errno !== errno.secondStepNeeded &&
              r.errno !== errno.approvalRequested;
            await writeLog(
              tx,
              ep,
              meta,
              user,
              failed ? 'failed' : 'ok',
              r instanceof Refusal ? r.errno : 0,
              audit,
            );
            return r;
          };
          result = route.outsideTransaction ? await write(db) : await inTransaction(db, write);
          if (replicated && user) position = await writePositionHeader(deps);
          for (const fn of after) {
            Promise.resolve()
              .then(fn)
              .catch((err) =>
                log.error({ rid: meta.requestId, err: errorForLog(err) }, 'after-commit task failed'),
              );
          }
        }
        if (result instanceof Refusal)
          return envelopeAnswer(c, meta.lang, result.errno, result.data, undefined, position);
        if (result instanceof FileAnswer) {
          if (!ep.download) throw new Error(`${ep.id} answered a file but is not a download endpoint`);
          // Money data leaving the system: who took which rows is written before the first byte goes.
          await writeLog(db, ep, meta, user, 'ok', 0, audit).catch((err) => {
            result.body.destroy();
            throw err;
          });
          return new Response(Readable.toWeb(result.body) as ReadableStream, {
            status: 200,
            headers: {
              'Content-Type': result.contentType,
              'Content-Disposition': contentDisposition(result.filename),
              'Cache-Control': 'no-store',
            },
          });
        }
        if (result instanceof JsonText) return jsonAnswer(c, envelopeOf(result), 200, position);
        return jsonAnswer(c, envelope(meta.lang, errno.ok, result ?? null), 200, position);
      } catch (err) {
        if (err instanceof AppError) {
          if (user && ep.method === 'POST' && err.errno !== errno.forbidden) {
            await writeLog(db, ep, meta, user, 'failed', err.errno, audit).catch(() => {});
          }
          return envelopeAnswer(c, meta.lang, err.errno, err.data);
        }
        // The database is down (restarting, failing over) past the retries: 503, try again shortly.
        if (isDatabaseUnavailable(err)) {
          log.warn({ rid: meta.requestId, endpoint: ep.id, err: errorForLog(err) }, 'database unavailable');
          return unavailableAnswer(c, meta.lang);
        }
        log.error({ rid: meta.requestId, endpoint: ep.id, err: errorForLog(err) }, 'handler failed');
        if (user && ep.method === 'POST')
          await writeLog(db, ep, meta, user, 'failed', errno.internal, audit).catch(() => {});
        return envelopeAnswer(c, meta.lang, errno.internal);
      }
    });
  }

  mountGateway(app, deps, gatewayRoutes);
  // The bank channel's public pay page, before the console's catch-all.
  mountPay(app, deps);
  // The simulator's checkout, its pay-ins' payUrl (404 while the simulator is off).
  mountSimulatorCheckout(app, deps);
  app.get('/api/openapi.json', (c) => jsonAnswer(c, openApiDocument()));
  app.get('/api/docs', (c) => c.html(docsPage(openApiDocument())));
  app.all(
    '/api/*',
    unmatchedAnswer([
      ...allEndpoints.map((e) => ({ method: e.method, path: `/api${e.path}` })),
      { method: 'GET', path: '/api/openapi.json' },
      { method: 'GET', path: '/api/docs' },
    ]),
  );

  // The built console: hashed assets are immutable; any other path is the single-page app.
  const root = deps.config.consoleDir;
  app.use('/assets/*', async (c, next) => {
    await next();
    if (c.res.status === 200) c.header('Cache-Control', 'public, max-age=31536000, immutable');
  });
  // No folder (tests, a server started before its first build): the fallback below says so.
  if (existsSync(root)) app.use('*', serveStatic({ root }));
  app.get('*', async (c) => {
    const index = join(root, 'index.html');
    if (!existsSync(index)) return c.text('The console is not built yet: run `npm run build`.', 503);
    c.header('Cache-Control', 'no-cache');
    return c.html(await readFile(index, 'utf8'));
  });
  app.onError((err, c) => {
    log.error({ rid: c.get('requestId'), err: errorForLog(err) }, 'unhandled');
    return envelopeAnswer(c, langFrom(c.req.header('accept-language')), errno.internal);
  });
  return app;
}
