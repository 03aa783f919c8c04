import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

const base = { DATA_DIR: mkdtempSync(join(tmpdir(), 'paygate-config-')), APP_KEY: 'ab'.repeat(32) };

describe('WORKERS', () => {
  it('is one process by default, and more on PostgreSQL', () => {
    expect(loadConfig(base).workers).toBe(1);
    expect(loadConfig({ ...base, WORKERS: '2', DATABASE_URL: 'postgres://localhost/x' }).workers).toBe(2);
  });

  it('refuses more than one process on PGlite, and what is not a whole number from 1 to 64', () => {
    expect(() => loadConfig({ ...base, WORKERS: '2' })).toThrow(/needs PostgreSQL/);
    for (const bad of ['0', '65', '1.5', 'two'])
      expect(() => loadConfig({ ...base, WORKERS: bad, DATABASE_URL: 'postgres://localhost/x' })).toThrow(
        /WORKERS must be a whole number from 1 to 64/,
      );
  });
});
