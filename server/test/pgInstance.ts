/**
 * A PostgreSQL server of the test's own (Debian's binaries: initdb, pg_ctl, pg_basebackup), for what the
 * shared server on TEST_DATABASE_URL must not be put through: a hot standby streaming from a primary,
 * a restart under load, a standby promoted. Each instance has its own folder under the system's temp
 * folder and a free port on 127.0.0.1, trust authentication and a database `app`.
 *
 *   const primary = await startInstance();
 *   const standby = await startStandby(primary);
 *   ...
 *   await standby.destroy(); await primary.destroy();
 *
 * PostgreSQL refuses to run as root, so as root every binary runs as the `postgres` user (`runuser`),
 * which owns the folder. `.ci/run` installs the binaries (Debian's `postgresql`) when they are missing;
 * without them `hasInstances` is false and the tests that need one are skipped.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { hasPostgres } from './pg.ts';

/** The folder of Debian's PostgreSQL binaries (the newest installed), or null. */
function findBinaries(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(base, v, 'bin', 'initdb')))
    .sort((x, y) => Number(y) - Number(x));
  return versions.length ? join(base, versions[0]!, 'bin') : null;
}

const bin = findBinaries();
const asRoot = process.getuid?.() === 0;
/** Whether this machine can start instances of its own (the PostgreSQL suite is on and the binaries are here). */
export const hasInstances = hasPostgres && bin !== null;

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

/** Runs one of the binaries, as `postgres` when this process is root; throws with its output on failure. */
function run(tool: string, args: string[]) {
  const path = join(bin!, tool);
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0)
    throw new Error(`${tool} ${args.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
  return r.stdout;
}

export interface Instance {
  port: number;
  dir: string;
  /** A URL to database `name` (default `app`). */
  url(name?: string): string;
  /** A fast stop (connections cut, as a crash would look to a client) and a start on the same port. */
  restart(): Promise<void>;
  stop(): void;
  start(): Promise<void>;
  /** For a standby: ends recovery and makes it a primary. */
  promote(): Promise<void>;
  /** Runs one statement on database `app` with a connection of its own. */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  /** Stops the server and removes its folder. Safe to call more than once. */
  destroy(): Promise<void>;
}

function newFolder(kind: string) {
  const dir = mkdtempSync(join(tmpdir(), `paygate-pg-${kind}-`));
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  return dir;
}

function instance(port: number, dir: string): Instance {
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  let destroyed = false;
  const self: Instance = {
    port,
    dir,
    url: (name = 'app') => `postgres://postgres@127.0.0.1:${port}/${name}`,
    async start() {
      run('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', 'start']);
      await waitUntilAnswers(port);
    },
    stop() {
      if (existsSync(join(data, 'postmaster.pid'))) run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    async restart() {
      self.stop();
      await self.start();
    },
    async promote() {
      run('pg_ctl', ['-D', data, '-w', 'promote']);
      // Writable once recovery has ended.
      for (let i = 0; i < 100; i++) {
        const [r] = await self.query<{ r: boolean }>('select pg_is_in_recovery() as r');
        if (!r!.r) return;
        await new Promise((res) => setTimeout(res, 100));
      }
      throw new Error('the standby did not leave recovery');
    },
    async query(text, values) {
      const client = new pg.Client({ connectionString: self.url() });
      await client.connect();
      try {
        return (await client.query(text, values)).rows;
      } finally {
        await client.end().catch(() => {});
      }
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      try {
        self.stop();
      } catch {
        spawnSync('pkill', ['-f', data]);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return self;
}

async function waitUntilAnswers(port: number) {
  for (let i = 0; i < 200; i++) {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch {
      await new Promise((res) => setTimeout(res, 100));
    } finally {
      await client.end().catch(() => {});
    }
  }
  throw new Error(`PostgreSQL on port ${port} did not answer`);
}

/** A new primary with a database `app`, set up to stream to standbys (wal_level replica, slots, senders). */
export async function startInstance(): Promise<Instance> {
  if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql: guard with `hasInstances`');
  const dir = newFolder('primary');
  const port = await freePort();
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  // Small and quick: a test server, not a tuned one. fsync stays on: a restart must keep what was committed.
  const conf = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dir}'`,
    'max_connections = 100',
    'shared_buffers = 64MB',
    'wal_level = replica',
    'max_wal_senders = 5',
    'hot_standby = on',
    'max_replication_slots = 5',
  ].join('\n');
  writeFileSync(join(data, 'postgresql.auto.conf'), `${conf}\n`);
  writeFileSync(
    join(data, 'pg_hba.conf'),
    'local all all trust\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n',
  );
  if (asRoot) {
    chownSync(join(data, 'postgresql.auto.conf'), uidOf('postgres'), gidOf('postgres'));
    chownSync(join(data, 'pg_hba.conf'), uidOf('postgres'), gidOf('postgres'));
  }
  const primary = instance(port, dir);
  await primary.start();
  const admin = new pg.Client({ connectionString: primary.url('postgres') });
  await admin.connect();
  await admin.query('create database app');
  await admin.end();
  return primary;
}

/** A hot standby of `primary`, streaming through a replication slot of its own (pg_basebackup -R). */
export async function startStandby(primary: Instance): Promise<Instance> {
  const dir = newFolder('standby');
  const port = await freePort();
  const data = join(dir, 'data');
  const slot = `standby_${port}`;
  run('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    data,
    '-R',
    '-X',
    'stream',
    '-C',
    '-S',
    slot,
    // An immediate checkpoint: the default spreads it and the copy waits about a minute and a half.
    '-c',
    'fast',
  ]);
  // The copied settings name the primary's port and socket folder: the standby's own replace them.
  const auto = join(data, 'postgresql.auto.conf');
  const copied = spawnSync('cat', [auto], { encoding: 'utf8' }).stdout;
  const kept = copied
    .split('\n')
    .filter((l) => !/^(port|unix_socket_directories)\s*=/.test(l))
    .join('\n');
  writeFileSync(auto, `${kept}\nport = ${port}\nunix_socket_directories = '${dir}'\n`);
  if (asRoot) chownSync(auto, uidOf('postgres'), gidOf('postgres'));
  const standby = instance(port, dir);
  await standby.start();
  return standby;
}

/** Waits until `standby` has replayed everything `primary` has written so far. */
export async function caughtUp(primary: Instance, standby: Instance, timeoutMs = 30_000) {
  const [{ lsn }] = (await primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')) as [
    { lsn: string },
  ];
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const [r] = await standby.query<{ ok: boolean }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok', [
      lsn,
    ]);
    if (r?.ok) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('the standby did not catch up');
}

const idCache = new Map<string, number>();
function idOf(flag: '-u' | '-g', name: string) {
  const key = `${flag}${name}`;
  let id = idCache.get(key);
  if (id === undefined) {
    id = Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
    idCache.set(key, id);
  }
  return id;
}
const uidOf = (name: string) => idOf('-u', name);
const gidOf = (name: string) => idOf('-g', name);
