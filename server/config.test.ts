import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, privateCallbacksAllowed, simulatorOn } from './config.ts';

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

describe('security switches', () => {
  it('TRUST_PROXY counts proxies, 0 by default; the old boolean 1 still means one proxy', () => {
    expect(loadConfig(base).trustProxy).toBe(0);
    expect(loadConfig({ ...base, TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ ...base, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    for (const bad of ['-1', 'yes', '1.5', '11'])
      expect(() => loadConfig({ ...base, TRUST_PROXY: bad })).toThrow(/TRUST_PROXY/);
  });

  it('SIMULATOR and CALLBACK_ALLOW_PRIVATE follow the demo unless set', () => {
    const off = loadConfig({ ...base, DEMO: '0' });
    const on = loadConfig({ ...base, DEMO: '1' });
    expect(simulatorOn(off, 'pglite')).toBe(false);
    expect(simulatorOn(on, 'postgres')).toBe(true);
    expect(simulatorOn(loadConfig(base), 'pglite')).toBe(true); // the demo's default on PGlite
    expect(simulatorOn(loadConfig(base), 'postgres')).toBe(false);
    expect(privateCallbacksAllowed(off, 'pglite')).toBe(false);
    expect(privateCallbacksAllowed(on, 'postgres')).toBe(true);
    // An explicit value wins over the demo.
    expect(simulatorOn(loadConfig({ ...base, DEMO: '1', SIMULATOR: '0' }), 'pglite')).toBe(false);
    expect(
      privateCallbacksAllowed(loadConfig({ ...base, DEMO: '0', CALLBACK_ALLOW_PRIVATE: '1' }), 'pglite'),
    ).toBe(true);
    expect(() => loadConfig({ ...base, SIMULATOR: 'yes' })).toThrow(/SIMULATOR must be 1 or 0/);
  });

  it('REQUIRE_GOOGLE_AUTH is off unless set to 1', () => {
    expect(loadConfig(base).requireGoogleAuth).toBe(false);
    expect(loadConfig({ ...base, REQUIRE_GOOGLE_AUTH: '1' }).requireGoogleAuth).toBe(true);
  });
});
