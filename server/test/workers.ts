/**
 * The real server as `WORKERS=2` runs it (PostgreSQL, a fresh database): a primary and two worker processes
 * sharing one port, for the tests that need what only a cluster shows (per-worker caches, shared jobs).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../db/index.ts';
import { freshPostgresUrl } from './pg.ts';
import { serverArgs } from './template.ts';

const root = join(import.meta.dirname, '../..');
export const workersAdminPassword = 'Cluster12345!';

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

export type WorkersServer = Awaited<ReturnType<typeof startWorkersServer>>;

/**
 * Starts the server, waits until both workers are up and logs the admin in; `stop` undoes it all. With
 * `databaseUrl` it runs on that database (a test's own instance, left in place by `stop`) instead of a
 * fresh one on TEST_DATABASE_URL; `env` adds to the server's environment.
 */
export async function startWorkersServer(
  name: string,
  opts: { databaseUrl?: string; env?: Record<string, string> } = {},
) {
  const fresh = opts.databaseUrl ? { url: opts.databaseUrl, drop: async () => {} } : await freshPostgresUrl();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `paygate-${name}-`));
  let output = '';
  const server = spawn(process.execPath, serverArgs(), {
    cwd: root,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: fresh.url,
      WORKERS: '2',
      DEMO: '0',
      // Without the demo the simulator is off by default; the tests' pay-ins go through it.
      SIMULATOR: '1',
      LOG_LEVEL: 'warn',
      ADMIN_PASSWORD: workersAdminPassword,
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d) => {
    output += d;
  });
  server.stderr!.on('data', (d) => {
    output += d;
  });
  let db: Awaited<ReturnType<typeof openDatabase>> | undefined;
  const stop = async () => {
    if (server.exitCode === null) server.kill('SIGKILL');
    await db?.close();
    await fresh.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };

  /** One call on a connection of its own, so that the primary hands it to the next worker in turn. */
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; json: { errno: number; errmsg: string; data: Record<string, unknown> } }>(
      (resolve, reject) => {
        const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method,
            path,
            agent: false,
            headers: { ...(text ? { 'content-type': 'application/json' } : {}), ...headers },
          },
          (res) => {
            let data = '';
            res.on('data', (d) => {
              data += d;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(data) }));
          },
        );
        req.on('error', reject);
        req.end(text);
      },
    );
  const api = (path: string, body: unknown, token?: string) =>
    call('POST', `/api${path}`, body, token ? { 'admin-token': token } : {});
  const login = async (username: string, password: string) => {
    const res = await api('/auth/login', { username, password });
    if (res.json.errno !== 0) throw new Error(`login ${username}: ${JSON.stringify(res.json)}`);
    return res.json.data.token as string;
  };

  try {
    const t0 = Date.now();
    while (!output.includes('Workers: 2')) {
      if (server.exitCode !== null || Date.now() - t0 > 90_000) throw new Error(`no start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    db = await openDatabase({ url: fresh.url, poolSize: 2, migrate: false });
    const admin = await login('admin', workersAdminPassword);
    return { server, port, db, admin, call, api, login, stop, output: () => output };
  } catch (e) {
    await stop();
    throw e;
  }
}
