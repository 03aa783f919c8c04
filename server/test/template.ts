/**
 * One migrated database copied for every test, instead of every test file migrating its own (issue 27:
 * 25 migrations cost PGlite 1.3 s and PostgreSQL 0.4 s a database, some 200 times a run). vitest's global
 * setup (`vitest.config.ts`) migrates one PGlite and dumps its data directory to a file, and, with
 * TEST_DATABASE_URL, migrates one PostgreSQL database to serve as the template of the fresh ones
 * (`CREATE DATABASE … TEMPLATE`); it says where they are in the environment the test workers inherit. The
 * harness opens each test's database from them; `openDatabase` still runs the migrations, which find
 * nothing left to do. Without the global setup (a test file run alone through another runner) every
 * database is made and migrated as before.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../db/index.ts';

/** The file of the migrated PGlite's dumped data directory. */
const pgliteVariable = 'PAYGATE_TEST_PGLITE_TEMPLATE';
/** The migrated PostgreSQL database new test databases are copied from. */
const postgresVariable = 'PAYGATE_TEST_PG_TEMPLATE';

let pgliteTemplate: Blob | undefined;

/** The migrated PGlite's data directory to start a test database from, when the global setup made one. */
export function pgliteTemplateData(): Blob | undefined {
  const file = process.env[pgliteVariable];
  if (!file) return undefined;
  pgliteTemplate ??= new Blob([readFileSync(file)]);
  return pgliteTemplate;
}

/** The template of fresh PostgreSQL test databases, when the global setup made one. */
export const postgresTemplate = (): string | undefined => process.env[postgresVariable];

/**
 * node's arguments that run the server as `npm start` does: the bundle vitest's global setup built
 * (scripts/test-bundle.ts; a start of under a second), or, without it, the TypeScript through tsx (each
 * start compiles every module).
 */
export const serverArgs = (): string[] => {
  const bundle = process.env.PAYGATE_TEST_SERVER_BUNDLE;
  return bundle ? ['--enable-source-maps', bundle] : ['--import', 'tsx', 'server/main.ts'];
};

async function admin<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** vitest's global setup: makes the templates, and answers the teardown that removes them. */
export async function setup(): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-template-'));
  const lite = await openDatabase({});
  const client = (lite.db as unknown as { $client: { dumpDataDir(c: 'none'): Promise<Blob> } }).$client;
  const file = join(dir, 'pglite.tar');
  writeFileSync(file, Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer()));
  await lite.close();
  process.env[pgliteVariable] = file;

  const base = process.env.TEST_DATABASE_URL;
  let name: string | undefined;
  if (base) {
    name = `t_template_${randomBytes(5).toString('hex')}`;
    await admin(base, (c) => c.query(`CREATE DATABASE "${name}"`));
    const url = new URL(base);
    url.pathname = `/${name}`;
    const migrated = await openDatabase({ url: url.toString(), poolSize: 1 });
    await migrated.close();
    process.env[postgresVariable] = name;
  }
  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (base && name) await admin(base, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  };
}
