import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { postgresTemplate } from './template.ts';

/**
 * PostgreSQL for integration tests. `.ci/run` sets TEST_DATABASE_URL (a server answering on
 * 127.0.0.1:5432, database `test`); without it the PostgreSQL variants of the tests are skipped:
 *
 *   describe.skipIf(!hasPostgres)('orders on PostgreSQL', () => {
 *     let db: Awaited<ReturnType<typeof freshPostgresUrl>>;
 *     beforeAll(async () => { db = await freshPostgresUrl(); });
 *     afterAll(async () => { await db?.drop(); });
 *     ...
 *   });
 */
export const hasPostgres = !!process.env.TEST_DATABASE_URL;

export interface FreshPostgres {
  /** URL of a new, empty database of its own, on the server of TEST_DATABASE_URL. */
  url: string;
  /** Ends every connection to that database and drops it. Safe to call more than once. */
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: guard PostgreSQL tests with `hasPostgres`');
  return url;
}

async function withAdmin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Creates a uniquely named database (`t_<time>_<random>`) and answers its URL and a drop function. */
export async function freshPostgresUrl(): Promise<FreshPostgres> {
  const base = adminUrl();
  const name = `t_${Date.now().toString(36)}_${randomBytes(5).toString('hex')}`;
  // The name is made of [a-z0-9_] only, so quoting it is enough. Copied from the migrated template when
  // the global setup made one (server/test/template.ts).
  const template = postgresTemplate();
  await withAdmin((client) =>
    client.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`),
  );
  const url = new URL(base);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await withAdmin(async (client) => {
        await client.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [name],
        );
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      });
    },
  };
}
