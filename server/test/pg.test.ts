import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshPostgresUrl, hasPostgres } from './pg.ts';

describe.skipIf(!hasPostgres)('freshPostgresUrl', () => {
  it('creates an empty database of its own and drops it, even with connections open', async () => {
    const a = await freshPostgresUrl();
    const b = await freshPostgresUrl();
    expect(a.url).not.toBe(b.url);
    const client = new pg.Client({ connectionString: a.url });
    client.on('error', () => {}); // terminated by drop()
    await client.connect();
    const { rows } = await client.query<{ db: string }>('select current_database() as db');
    expect(a.url.endsWith(`/${rows[0]!.db}`)).toBe(true);
    await a.drop();
    await b.drop();
    await a.drop(); // a second call does nothing
    await client.end().catch(() => {});
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const left = await admin.query('select 1 from pg_database where datname = any($1)', [
      [a.url, b.url].map((u) => new URL(u).pathname.slice(1)),
    ]);
    await admin.end();
    expect(left.rowCount).toBe(0);
  });
});
