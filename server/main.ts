/**
 * The server process. With `WORKERS` > 1 (PostgreSQL only) a primary process migrates and bootstraps the
 * database once, then forks that many workers that share the port (node:cluster); each worker serves
 * HTTP, runs the background jobs (which claim their work with `FOR UPDATE SKIP LOCKED` or compare-and-set,
 * so every due item is handled once whatever the number of processes) and keeps its own caches, which
 * the primary keeps in step: a worker that commits a change to a watched table (see `ChangeFeed`) tells
 * the others through the primary before its answer leaves. A worker that dies is replaced; SIGTERM or
 * SIGINT stops the workers gracefully, then the primary.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { bootstrap, type FirstStart } from './bootstrap.ts';
import { demoEnabled, loadConfig } from './config.ts';
import { type Database, openDatabase } from './db/index.ts';
import { mountDemoSink } from './demo.ts';
import type { Deps } from './deps.ts';
import { createApp } from './http/app.ts';
import { type Jobs, startJobs } from './jobs/index.ts';
import { systemClock } from './lib/clock.ts';
import { sealer } from './lib/crypto.ts';
import { createLogger, errorForLog } from './lib/logger.ts';
import { createMailer, outboxNotice } from './lib/mail.ts';
import { rateLimiter } from './lib/rateLimit.ts';
import { warmStatementWorker } from './modules/statement/workerPool.ts';
import { gatewayRoutes, routes } from './routes.ts';

/** Messages between the primary and its workers about committed changes to watched tables. */
type ChangeMessage =
  | { kind: 'changed'; id: number }
  | { kind: 'peerChanged'; id: number; from: number }
  | { kind: 'seen'; id: number; from: number }
  | { kind: 'handedOver'; id: number };
/** How long a worker's hand-over may wait for its siblings (a stuck sibling must not hold answers). */
const handOverTimeoutMs = 2_000;

const config = loadConfig();
const logger = createLogger(config.logLevel);
const { workers } = config;

function depsOn(database: Database): Deps {
  return {
    config,
    database,
    clock: systemClock,
    mailer: createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, db: () => database.db }),
    sealer: sealer(config.appKey),
    logger,
    authLimiter: rateLimiter({
      limit: config.signinAttemptsPerAddress,
      windowMs: 5 * 60_000,
      now: () => Date.now(),
    }),
  };
}

const warn = (msg: string, err?: unknown) => logger.warn({ err: err && errorForLog(err) }, msg);

/** What a start prints: the addresses, warnings, and a first start's credentials (never to the structured log). */
function announce(url: string, engine: string, first: FirstStart) {
  const lines = [`\n  Paygate console: ${url}/   (API reference: ${url}/api/docs)`, `  Database: ${engine}`];
  if (workers > 1) lines.push(`  Workers: ${workers}`);
  if (first.adminPassword)
    lines.push(`  First start: user "admin", password "${first.adminPassword}" (shown once)`);
  for (const m of first.demo ?? [])
    lines.push(
      `  Demo merchant ${m.merchant} ${m.name}: user "${m.username}", password "${m.password}" (${m.note})`,
    );
  for (const u of first.demoPlatform ?? [])
    lines.push(`  Demo platform user: "${u.username}", password "${u.password}" (${u.note})`);
  // Without SMTP every code lands in the outbox: whoever reads it can sign in as anyone.
  if (!config.smtpUrl) {
    logger.warn(outboxNotice);
    lines.push(`  Warning: ${outboxNotice}`);
  }
  const lost = first.lostCallbacks?.slice(0, 3) ?? [];
  if (lost.length)
    lines.push(
      `  Lost callbacks to try (UTR check, then Supplement): ${lost.map((l) => `${l.orderNo} UTR ${l.utr}`).join(', ')}`,
    );
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

/** Serves HTTP and runs the jobs in this process; answers a function that stops both and closes. */
async function runServer(
  database: Database,
  onListening: (url: string) => void,
): Promise<(signal: string) => Promise<void>> {
  const deps = depsOn(database);
  const app = createApp(deps, routes, gatewayRoutes);
  // The demo merchants' callbacks point at this server; its sink answers them.
  if (demoEnabled(config, database.engine)) mountDemoSink(app);
  let jobs: Jobs | undefined;
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, (info) => {
    // Background work (callbacks, expiry, the simulator's automatic mode) starts once the server listens.
    jobs = startJobs(deps);
    warmStatementWorker();
    onListening(`http://${config.host}:${info.port}`);
  });
  // Idle keep-alive connections stay open longer than a load balancer's or a client's own idle limit
  // (60 s is common): with Node's 5 s, a request sent on a connection the server was closing at that
  // moment was reset (ECONNRESET), seen from the e2e suite's API client. Headers may take as long.
  const http = server as Server;
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  let stopping = false;
  return async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await jobs?.stop();
    await database.close();
  };
}

function onSignals(stop: (signal: string) => Promise<void>) {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      const force = setTimeout(() => process.exit(1), 10_000);
      force.unref();
      stop(signal).then(
        () => process.exit(0),
        (err) => {
          logger.error({ err: errorForLog(err) }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

if (workers === 1) {
  const started = Date.now();
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    warn,
    replicaUrl: config.databaseReplicaUrl,
  });
  const first = await bootstrap(depsOn(database));
  const stop = await runServer(database, (url) => {
    logger.info({ url, db: database.engine, ms: Date.now() - started }, 'server listening');
    announce(url, database.engine, first);
  });
  onSignals(stop);
} else if (cluster.isPrimary) {
  await primary();
} else {
  await worker();
}

async function primary() {
  const started = Date.now();
  // Migrations and the first start's bootstrap run once, here, before any worker opens the database.
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    warn,
    poolSize: 2,
  });
  const first = await bootstrap(depsOn(database));
  await database.close();

  let stopping = false;
  let listening = 0;
  const live = new Set<Worker>();
  /** Hand-overs in flight: the worker that asked, and the siblings that have not seen it yet. */
  const handOvers = new Map<
    string,
    { from: Worker; id: number; waiting: Set<Worker>; timer: NodeJS.Timeout }
  >();
  const finish = (key: string) => {
    const h = handOvers.get(key);
    if (!h) return;
    clearTimeout(h.timer);
    handOvers.delete(key);
    if (h.from.isConnected()) h.from.send({ kind: 'handedOver', id: h.id } satisfies ChangeMessage);
  };
  const fork = () => {
    const w = cluster.fork();
    live.add(w);
    w.on('message', (m: ChangeMessage) => {
      if (m.kind === 'changed') {
        const key = `${w.id}:${m.id}`;
        const waiting = new Set([...live].filter((o) => o !== w && o.isConnected()));
        const timer = setTimeout(() => {
          logger.warn({ waiting: waiting.size }, 'change hand-over timed out');
          finish(key);
        }, handOverTimeoutMs);
        handOvers.set(key, { from: w, id: m.id, waiting, timer });
        for (const o of waiting)
          o.send({ kind: 'peerChanged', id: m.id, from: w.id } satisfies ChangeMessage);
        if (!waiting.size) finish(key);
      } else if (m.kind === 'seen') {
        const key = `${m.from}:${m.id}`;
        const h = handOvers.get(key);
        if (!h) return;
        h.waiting.delete(w);
        if (!h.waiting.size) finish(key);
      }
    });
    w.on('listening', () => {
      listening++;
      if (listening === workers) {
        const url = `http://${config.host}:${config.port}`;
        logger.info({ url, db: 'postgres', workers, ms: Date.now() - started }, 'server listening');
        announce(url, 'postgres', first);
      }
    });
    w.on('exit', (code, signal) => {
      live.delete(w);
      // Nobody waits for a dead worker.
      for (const [key, h] of handOvers) {
        h.waiting.delete(w);
        if (!h.waiting.size) finish(key);
      }
      if (stopping) return;
      logger.error({ worker: w.id, code, signal }, 'worker died; starting another');
      fork();
    });
  };
  for (let i = 0; i < workers; i++) fork();

  onSignals(async (signal) => {
    stopping = true;
    logger.info({ signal }, 'stopping the workers');
    await Promise.all(
      [...live].map(
        (w) =>
          new Promise<void>((resolve) => {
            w.once('exit', () => resolve());
            w.process.kill('SIGTERM');
          }),
      ),
    );
  });
}

async function worker() {
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    warn,
    migrate: false,
    replicaUrl: config.databaseReplicaUrl,
  });
  // A change this worker commits reaches its siblings (through the primary) before its answer leaves;
  // theirs reach this one the same way. LISTEN/NOTIFY covers processes outside this cluster.
  let serial = 0;
  const waiting = new Map<number, () => void>();
  database.changes.handOver(
    () =>
      new Promise<void>((resolve) => {
        const id = ++serial;
        // The primary answers within its own time limit; this one only guards against a lost primary.
        const timer = setTimeout(resolve, handOverTimeoutMs + 1_000);
        waiting.set(id, () => {
          clearTimeout(timer);
          resolve();
        });
        process.send?.({ kind: 'changed', id } satisfies ChangeMessage);
      }),
  );
  process.on('message', (m: ChangeMessage) => {
    if (m.kind === 'peerChanged') {
      database.changes.bump();
      process.send?.({ kind: 'seen', id: m.id, from: m.from } satisfies ChangeMessage);
    } else if (m.kind === 'handedOver') {
      waiting.get(m.id)?.();
      waiting.delete(m.id);
    }
  });
  const stop = await runServer(database, () => {});
  onSignals(stop);
}
