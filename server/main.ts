import { serve } from '@hono/node-server';
import { bootstrap } from './bootstrap.ts';
import { loadConfig } from './config.ts';
import { openDatabase } from './db/index.ts';
import { demoEnabled, mountDemoSink } from './demo.ts';
import type { Deps } from './deps.ts';
import { createApp } from './http/app.ts';
import { type Jobs, startJobs } from './jobs/index.ts';
import { systemClock } from './lib/clock.ts';
import { sealer } from './lib/crypto.ts';
import { createLogger } from './lib/logger.ts';
import { createMailer } from './lib/mail.ts';
import { rateLimiter } from './lib/rateLimit.ts';
import { gatewayRoutes, routes } from './routes.ts';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const started = Date.now();
const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
const deps: Deps = {
  config,
  database,
  clock: systemClock,
  mailer: createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, db: () => database.db }),
  sealer: sealer(config.appKey),
  logger,
  authLimiter: rateLimiter({ limit: 30, windowMs: 5 * 60_000, now: () => Date.now() }),
};
const first = await bootstrap(deps);
const app = createApp(deps, routes, gatewayRoutes);
// The demo merchants' callbacks point at this server; its sink answers them.
if (demoEnabled(config, database.engine)) mountDemoSink(app);

let jobs: Jobs | undefined;
const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, (info) => {
  // Background work (callbacks, expiry, the simulator's automatic mode) starts once the server listens.
  jobs = startJobs(deps);
  const url = `http://${config.host}:${info.port}`;
  logger.info({ url, db: database.engine, ms: Date.now() - started }, 'server listening');
  // Credentials go to the terminal once, never to the structured log.
  const lines = [
    `\n  Paygate console: ${url}/   (API reference: ${url}/api/docs)`,
    `  Database: ${database.engine}`,
  ];
  if (first.adminPassword)
    lines.push(`  First start: user "admin", password "${first.adminPassword}" (shown once)`);
  for (const m of first.demo ?? [])
    lines.push(
      `  Demo merchant ${m.merchant} ${m.name}: user "${m.username}", password "${m.password}" (${m.note})`,
    );
  const lost = first.lostCallbacks?.slice(0, 3) ?? [];
  if (lost.length)
    lines.push(
      `  Lost callbacks to try (UTR check, then Supplement): ${lost.map((l) => `${l.orderNo} UTR ${l.utr}`).join(', ')}`,
    );
  process.stdout.write(`${lines.join('\n')}\n\n`);
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await jobs?.stop();
  await database.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
