import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Everything the server reads from the environment, in one place (see README, Configuration). */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl?: string;
  /** A streaming replica of `databaseUrl` for reports, exports and list totals (`DATABASE_REPLICA_URL`). */
  databaseReplicaUrl?: string;
  smtpUrl?: string;
  mailFrom: string;
  adminPassword?: string;
  /** Seed the demo workspace on first start: default on for PGlite, off for PostgreSQL. */
  demo?: boolean;
  /** 32-byte key for sealing secrets and signing device tokens. */
  appKey: Buffer;
  sessionIdleMinutes: number;
  /** Sign-in attempts one address may make in 5 minutes. */
  signinAttemptsPerAddress: number;
  sessionMaxHours: number;
  /**
   * Proxies in front of the server (`TRUST_PROXY`, default 0): the client is the address that many hops
   * from the right of `X-Forwarded-For` (see `server/http/clientIp.ts`); 0 takes the socket's address.
   */
  trustProxy: number;
  /**
   * The simulator channel exists and routes (`SIMULATOR`); unset: on exactly when the demo is
   * (`simulatorOn`). It is a real money path: off in production.
   */
  simulator?: boolean;
  /**
   * Callbacks may reach loopback and private addresses (`CALLBACK_ALLOW_PRIVATE`); unset: on exactly when
   * the demo is, so the demo's own receiver works (`privateCallbacksAllowed`).
   */
  callbackAllowPrivate?: boolean;
  /** `REQUIRE_GOOGLE_AUTH=1`: every user binds a Google key before anything else (as the parameter does). */
  requireGoogleAuth: boolean;
  logLevel: string;
  /** Server processes sharing the port (`WORKERS`, default 1; more only on PostgreSQL, see server/main.ts). */
  workers: number;
  consoleDir: string;
  /**
   * IANA time zone whose calendar days are the business days of dashboards and reports (default
   * `Asia/Kolkata`, see `businessTimeZoneOf`).
   */
  businessTimeZone?: string;
  /** The Telegram Bot API's base URL (`TELEGRAM_API_URL`); unset: Telegram's own (`telegramApiUrlOf`). */
  telegramApiUrl?: string;
  /** Pause between two polls of each bank feed (`STATEMENT_FEED_POLL_MS`, default 60 s). */
  statementFeedPollMs?: number;
}

/** Where Telegram alerts are sent: `TELEGRAM_API_URL` without a trailing slash, else Telegram's API. */
export const telegramApiUrlOf = (config: Pick<Config, 'telegramApiUrl'>): string =>
  (config.telegramApiUrl || 'https://api.telegram.org').replace(/\/+$/, '');

/** The business time zone when none is configured: the market of UTR and IFSC. */
export const defaultBusinessTimeZone = 'Asia/Kolkata';

function timeZoneEnv(env: NodeJS.ProcessEnv): string {
  const zone = env.BUSINESS_TIME_ZONE || defaultBusinessTimeZone;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw new Error(`BUSINESS_TIME_ZONE must be an IANA time zone such as ${defaultBusinessTimeZone}`);
  }
  return zone;
}

/** `1`/`0` (or unset: undefined, the caller's default). */
function switchEnv(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw !== '0' && raw !== '1') throw new Error(`${name} must be 1 or 0`);
  return raw === '1';
}

function intEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}`);
  return n;
}

/** `DATABASE_REPLICA_URL`: a PostgreSQL URL, and only beside DATABASE_URL (PGlite has no replica). */
function replicaUrlEnv(env: NodeJS.ProcessEnv, databaseUrl: string | undefined): string | undefined {
  const url = env.DATABASE_REPLICA_URL || undefined;
  if (url === undefined) return undefined;
  if (!databaseUrl) throw new Error('DATABASE_REPLICA_URL needs DATABASE_URL (a replica of PostgreSQL)');
  if (!/^postgres(ql)?:\/\/[^/\s]/.test(url))
    throw new Error('DATABASE_REPLICA_URL must be a postgres:// URL, like DATABASE_URL');
  return url;
}

/** The key comes from APP_KEY (64 hex characters) or a file made once in the data folder. */
function loadAppKey(env: NodeJS.ProcessEnv, dataDir: string): Buffer {
  if (env.APP_KEY) {
    if (!/^[0-9a-f]{64}$/i.test(env.APP_KEY)) throw new Error('APP_KEY must be 64 hexadecimal characters');
    return Buffer.from(env.APP_KEY, 'hex');
  }
  mkdirSync(dataDir, { recursive: true });
  const file = resolve(dataDir, 'app.key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL || undefined;
  const workers = intEnv(env, 'WORKERS', 1, 1, 64);
  // PGlite is one process by nature: its data folder opens in one process at a time.
  if (workers > 1 && !databaseUrl) throw new Error('WORKERS above 1 needs PostgreSQL (DATABASE_URL)');
  const demo = switchEnv(env, 'DEMO');
  return {
    host: env.HOST || '127.0.0.1',
    port: intEnv(env, 'PORT', 8080, 0, 65535),
    dataDir,
    databaseUrl,
    databaseReplicaUrl: replicaUrlEnv(env, databaseUrl),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'Paygate Console <no-reply@localhost>',
    adminPassword: env.ADMIN_PASSWORD || undefined,
    demo,
    appKey: loadAppKey(env, dataDir),
    sessionIdleMinutes: intEnv(env, 'SESSION_IDLE_MINUTES', 30, 1, 24 * 60),
    signinAttemptsPerAddress: intEnv(env, 'SIGNIN_ATTEMPTS_PER_ADDRESS', 30, 1, 100_000),
    sessionMaxHours: intEnv(env, 'SESSION_MAX_HOURS', 12, 1, 24 * 7),
    trustProxy: intEnv(env, 'TRUST_PROXY', 0, 0, 10),
    simulator: switchEnv(env, 'SIMULATOR'),
    callbackAllowPrivate: switchEnv(env, 'CALLBACK_ALLOW_PRIVATE'),
    requireGoogleAuth: switchEnv(env, 'REQUIRE_GOOGLE_AUTH') ?? false,
    logLevel: env.LOG_LEVEL || 'info',
    workers,
    consoleDir: resolve(env.CONSOLE_DIR || 'dist/console'),
    businessTimeZone: timeZoneEnv(env),
    telegramApiUrl: env.TELEGRAM_API_URL || undefined,
    statementFeedPollMs: intEnv(env, 'STATEMENT_FEED_POLL_MS', 60_000, 1_000, 86_400_000),
  };
}

/** The demo is on with DEMO=1, off with DEMO=0, and by default on the embedded database only. */
export function demoEnabled(config: Pick<Config, 'demo'>, engine: 'pglite' | 'postgres'): boolean {
  return config.demo ?? engine === 'pglite';
}

/** Whether the simulator channel exists and routes: `SIMULATOR`, else with the demo. */
export function simulatorOn(config: Pick<Config, 'demo' | 'simulator'>, engine: 'pglite' | 'postgres') {
  return config.simulator ?? demoEnabled(config, engine);
}

/** Whether callbacks may go to loopback and private addresses: `CALLBACK_ALLOW_PRIVATE`, else with the demo. */
export function privateCallbacksAllowed(
  config: Pick<Config, 'demo' | 'callbackAllowPrivate'>,
  engine: 'pglite' | 'postgres',
) {
  return config.callbackAllowPrivate ?? demoEnabled(config, engine);
}
