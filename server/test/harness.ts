/**
 * Integration-test harness: the real app on embedded PGlite (always) or on a fresh PostgreSQL database
 * (when TEST_DATABASE_URL is set), with a clock the test moves.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Endpoint, Input } from '../../contract/endpoint.ts';
import { errno } from '../../contract/errno.ts';
import { canonicalString } from '../../contract/gateway.ts';
import { endpoints } from '../../contract/index.ts';
import { bootstrap } from '../bootstrap.ts';
import type { Config } from '../config.ts';
import { type Database, inTransaction, openDatabase } from '../db/index.ts';
import { channels, merchants, roles, userRoles, users } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { createApp } from '../http/app.ts';
import { manualClock } from '../lib/clock.ts';
import { hashPassword, hmacHex, randomToken, sealer } from '../lib/crypto.ts';
import { createLogger } from '../lib/logger.ts';
import { createMailer } from '../lib/mail.ts';
import { rateLimiter } from '../lib/rateLimit.ts';
import { codeAt, newTotpSecret } from '../modules/auth/totp.ts';
import { createMerchant, type NewMerchant } from '../modules/merchant/service.ts';
import { gatewayRoutes, routes } from '../routes.ts';
import { freshPostgresUrl, hasPostgres } from './pg.ts';
import { pgliteTemplateData } from './template.ts';

export type EngineName = 'pglite' | 'postgres';

/** The engines every integration test runs on. */
export const engines: EngineName[] = hasPostgres ? ['pglite', 'postgres'] : ['pglite'];

export const adminPassword = 'Admin12345!';

export interface Envelope<T = unknown> {
  errno: number;
  errmsg: string;
  data: T;
}

export interface TestServerOptions {
  smtpUrl?: string;
  /** Sign-in attempts per address per window (default: high, so tests don't trip it by accident). */
  authLimit?: number;
  /** Capture the structured log here. */
  logSink?: string[];
  /**
   * Settings over the harness's own. The harness runs the simulator and lets callbacks reach loopback
   * (the tests' receivers listen there); a test of either switch sets it here.
   */
  config?: Partial<Config>;
  /** A PostgreSQL server of the test's own (server/test/pgInstance.ts) instead of a fresh database. */
  database?: { url: string; replicaUrl?: string };
}

export async function startTestServer(engine: EngineName, opts: TestServerOptions = {}) {
  const fresh = engine === 'postgres' && !opts.database ? await freshPostgresUrl() : undefined;
  const database: Database = await openDatabase({
    url: opts.database?.url ?? fresh?.url,
    loadDataDir: pgliteTemplateData(),
    replicaUrl: opts.database?.replicaUrl,
    poolSize: 25,
  });
  const clock = manualClock(new Date(Date.now()));
  const appKey = randomBytes(32);
  const config: Config = {
    host: '127.0.0.1',
    port: 0,
    dataDir: mkdtempSync(join(tmpdir(), 'paygate-test-')),
    smtpUrl: opts.smtpUrl,
    mailFrom: 'Paygate Test <test@localhost>',
    adminPassword,
    demo: false,
    appKey,
    sessionIdleMinutes: 30,
    signinAttemptsPerAddress: 30,
    sessionMaxHours: 12,
    trustProxy: 1,
    simulator: true,
    callbackAllowPrivate: true,
    requireGoogleAuth: false,
    logLevel: 'info',
    workers: 1,
    consoleDir: join(tmpdir(), 'no-console'),
    ...opts.config,
  };
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'warn');
  if (opts.logSink) {
    const sink = opts.logSink;
    const write = (obj: unknown) => sink.push(JSON.stringify(obj));
    // Every line reaches the sink: the app builds the access line only when `info` is enabled.
    logger.level = 'info';
    for (const level of ['info', 'warn', 'error'] as const) {
      (logger as unknown as Record<string, unknown>)[level] = (a: unknown, b?: unknown) => write([a, b]);
    }
  }
  const deps: Deps = {
    config,
    database,
    clock,
    mailer: createMailer({ smtpUrl: opts.smtpUrl, from: config.mailFrom, db: () => database.db }),
    sealer: sealer(appKey),
    logger,
    authLimiter: rateLimiter({
      limit: opts.authLimit ?? 100_000,
      windowMs: 5 * 60_000,
      now: () => clock.now().getTime(),
    }),
  };
  await bootstrap(deps);
  const app = createApp(deps, routes, gatewayRoutes);
  const db = database.db;

  async function request(
    method: string,
    path: string,
    init: { body?: unknown; rawBody?: string; token?: string; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { 'x-forwarded-for': '10.0.0.1', ...init.headers };
    if (init.token) headers['admin-token'] = init.token;
    let body: string | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.request(`http://localhost${path}`, { method, headers, body });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json: json as Envelope };
  }

  /** Calls an endpoint of the registry: GET input goes in the query, POST input in a JSON body. */
  async function call<E extends Endpoint>(
    ep: E,
    input: Input<E> | Record<string, unknown>,
    token?: string,
    headers?: Record<string, string>,
  ): Promise<Envelope<any>> {
    if (ep.method === 'GET') {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
        if (v === undefined) continue;
        for (const item of Array.isArray(v) ? v : [v]) qs.append(k, String(item));
      }
      const q = qs.toString();
      return (await request('GET', `/api${ep.path}${q ? `?${q}` : ''}`, { token, headers })).json;
    }
    return (await request('POST', `/api${ep.path}`, { body: input, token, headers })).json;
  }

  /** The password each token signed in with: binding a key asks for it again. */
  const passwordOf = new Map<string, string>();

  /** Signs in with password (and Google code when given); answers the token or throws. */
  async function login(username: string, password: string, code?: string): Promise<string> {
    const res = await call(endpoints.auth.login, { username, password, ...(code ? { code } : {}) });
    if (res.errno !== 0) throw new Error(`login ${username} failed: ${res.errno} ${res.errmsg}`);
    passwordOf.set(res.data.token as string, password);
    return res.data.token as string;
  }

  let counter = 0;
  /** A user of the given kind holding exactly `perms` through one role; answers its credentials and a token. */
  async function makeUser(opts: {
    kind?: 'platform' | 'merchant';
    perms: string[];
    merchantId?: number;
    email?: string;
  }) {
    const kind = opts.kind ?? 'platform';
    const merchantId = kind === 'merchant' ? (opts.merchantId ?? (await makeMerchant()).id) : null;
    const username = `u${++counter}_${randomBytes(3).toString('hex')}`;
    const password = 'Passw0rd!x';
    const id = await inTransaction(db, async (tx) => {
      const [role] = await tx
        .insert(roles)
        .values({ kind, merchantId, name: `role-${username}`, perms: opts.perms })
        .returning({ id: roles.id });
      const [user] = await tx
        .insert(users)
        .values({
          kind,
          merchantId,
          username,
          nickname: username,
          email: opts.email ?? '',
          passwordHash: await hashPassword(password),
        })
        .returning({ id: users.id });
      await tx.insert(userRoles).values({ userId: user!.id, roleId: role!.id });
      return user!.id;
    });
    const token = await login(username, password);
    const [roleRow] = await db
      .select({ id: userRoles.roleId })
      .from(userRoles)
      .where(eq(userRoles.userId, id));
    return { id, username, password, token, roleId: roleRow!.id, merchantId };
  }

  /**
   * A working merchant (accounts, owner user, secrets) created through the real service; answers its row,
   * its owner's credentials and its secrets in clear text. Without `channels` it routes through the
   * built-in simulator at the channel's weight (none when the server runs without it).
   */
  async function makeMerchant(terms: Partial<Omit<NewMerchant, 'owner'>> = {}) {
    const code = terms.code ?? `M${++counter}${randomBytes(2).toString('hex')}`;
    const ownerUsername = `owner_${code.toLowerCase()}`;
    const ownerPassword = 'Owner1234!';
    const [sim] = await db.select().from(channels).where(eq(channels.code, 'simulator'));
    const made = await inTransaction(db, (tx) =>
      createMerchant(deps, tx, {
        name: `Merchant ${code}`,
        channels: sim ? [{ channelId: sim.id, weight: sim.weight }] : [],
        ...terms,
        code,
        owner: {
          username: ownerUsername,
          password: ownerPassword,
          email: `${code.toLowerCase()}@example.com`,
        },
      }),
    );
    const [row] = await db.select().from(merchants).where(eq(merchants.id, made.merchant.id));
    return {
      ...row!,
      ownerUsername,
      ownerPassword,
      apiSecret: made.apiSecret,
      webhookSecret: made.webhookSecret,
    };
  }

  /**
   * Binds a Google key for a signed-in user through the API (with the password `login` signed in with,
   * unless given); answers the secret.
   */
  async function bindGoogle(token: string, password = passwordOf.get(token) ?? ''): Promise<string> {
    const secret = newTotpSecret();
    const code = codeAt(secret, clock.now());
    const res = await call(endpoints.auth.googleBind, { secret, code, password }, token);
    if (res.errno !== 0) throw new Error(`bind failed: ${res.errno} ${res.errmsg}`);
    return secret;
  }

  /**
   * A platform user holding `perms` with a bound Google key; `code()` answers a fresh code (the clock moves
   * half a minute first, so no two are of one step: each code is accepted once).
   */
  async function makeKeyHolder(perms: string[]) {
    const user = await makeUser({ perms });
    const secret = await bindGoogle(user.token);
    const code = () => {
      clock.advance(30_000);
      return codeAt(secret, clock.now());
    };
    return { ...user, secret, code };
  }

  /**
   * A signed gateway call as a merchant's server makes it (GATEWAY.md); `sign` overrides pieces to test
   * refusals. Answers status, headers and the envelope.
   */
  async function gateway(
    merchant: { code: string; apiSecret: string },
    method: 'GET' | 'POST',
    pathWithQuery: string,
    body?: unknown,
    sign: {
      timestamp?: string;
      nonce?: string;
      secret?: string;
      ip?: string;
      rawBody?: string;
      /** What is sent instead of the right signature (lowercase hex), made from it. */
      signature?: (lowercaseHex: string) => string;
    } = {},
  ) {
    const rawBody = sign.rawBody ?? (body === undefined ? '' : JSON.stringify(body));
    const timestamp = sign.timestamp ?? String(Math.floor(clock.now().getTime() / 1000));
    const nonce = sign.nonce ?? randomToken(16);
    const signature = hmacHex(
      sign.secret ?? merchant.apiSecret,
      canonicalString(timestamp, nonce, method, pathWithQuery, rawBody),
    );
    const headers: Record<string, string> = {
      'x-merchant-id': merchant.code,
      'x-timestamp': timestamp,
      'x-nonce': nonce,
      'x-signature': sign.signature ? sign.signature(signature) : signature,
      'x-forwarded-for': sign.ip ?? '203.0.113.7',
    };
    if (method === 'POST') headers['content-type'] = 'application/json';
    const res = await app.request(`http://localhost${pathWithQuery}`, {
      method,
      headers,
      body: method === 'POST' ? rawBody : undefined,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: JSON.parse(text) as Envelope<any>, nonce };
  }

  return {
    engine,
    app,
    gateway,
    deps,
    db,
    clock,
    request,
    call,
    login,
    makeUser,
    makeMerchant,
    bindGoogle,
    makeKeyHolder,
    async adminToken() {
      return login('admin', adminPassword);
    },
    async close() {
      await database.close();
      await fresh?.drop();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

export type TestServer = Awaited<ReturnType<typeof startTestServer>>;
export { errno };
