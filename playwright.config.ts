import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { e2eWorkers } from './scripts/e2e-workers.mjs';

// End-to-end specs (e2e/*.spec.ts) in Debian's Chromium against the real server on a fresh embedded
// database (scripts/e2e-server.mjs). Playwright never downloads a browser here: the system one is used.
// E2E_WORKERS workers (default 2, scripts/e2e-workers.mjs) run the spec files side by side, each against
// a server of its own on port E2E_PORT + its parallel index, so that no spec sees another's writes. The
// specs wait for fresh Google code steps; two workers fill each other's waits (issue 27: 8 min 44 s on
// one, 5 min 21 s on two, beside the vitest lane).
const firstPort = Number(process.env.E2E_PORT || 8181);
const workers = e2eWorkers();
const servers = Array.from({ length: workers }, (_, index) => `http://127.0.0.1:${firstPort + index}`);
// This file is read by the runner and again by each worker, which Playwright starts with its index.
const baseURL = servers[Number(process.env.TEST_PARALLEL_INDEX ?? 0)] ?? servers[0]!;

// Specs sign in as the platform admin with this password: read it as process.env.E2E_ADMIN_PASSWORD.
// (Set here so that it reaches the webServer below and the test workers, which load this file too.)
const adminPassword = process.env.E2E_ADMIN_PASSWORD || 'Admin12345!';
process.env.E2E_ADMIN_PASSWORD = adminPassword;
// Assigned, not defaulted: a worker inherits the runner's value, which names the first server.
process.env.E2E_BASE_URL = baseURL;
process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD ||= '1';

// The runner (not its workers) brings the build up to date once, before the servers start: `npm run e2e`
// on its own needs one; under `npm test` it is already up to date and this takes milliseconds.
if (process.env.TEST_WORKER_INDEX === undefined) {
  const build = spawnSync(process.execPath, [join(import.meta.dirname, 'scripts', 'ensure-build.mjs')], {
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('scripts/ensure-build.mjs failed: the e2e servers need a build');
}

// As root, Debian's Chromium started through scripts/chromium-unboosted.sh (no raised priority).
const unboosted = process.getuid?.() === 0 && existsSync('/usr/bin/setpriv');
const chromium =
  process.env.E2E_CHROMIUM ||
  (unboosted ? join(import.meta.dirname, 'scripts', 'chromium-unboosted.sh') : '/usr/bin/chromium');
const isCI = !!process.env.CI;

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results',
  // A spec file runs whole in one worker, in order: its tests build on each other.
  fullyParallel: false,
  workers,
  // No retries: a test that passes only on a second try is a bug to fix, not to hide.
  retries: 0,
  forbidOnly: isCI,
  timeout: 30_000,
  // Under \`npm test\` the vitest lane shares the two cores: a screen's first answer can take longer than 5 s.
  expect: { timeout: isCI ? 10_000 : 5_000 },
  // scripts/test.mjs passes its own --reporter (list + json) on the command line.
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  use: {
    baseURL,
    browserName: 'chromium',
    headless: true,
    screenshot: 'only-on-failure',
    // Off: recording a trace of every test doubled the suite's CPU (586 -> 311 CPU-seconds, issue 27) and CI
    // keeps no artefacts. To see a failure step by step, run it again with `--trace on`.
    trace: 'off',
    launchOptions: {
      executablePath: chromium,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: servers.map((url) => ({
    command: 'node scripts/e2e-server.mjs',
    url: `${url}/api/health`,
    env: {
      E2E_PORT: new URL(url).port,
      E2E_ADMIN_PASSWORD: adminPassword,
    },
    reuseExistingServer: !isCI,
    // First start: migrations on an empty PGlite, admin password hashing, the demo, maybe a console build.
    timeout: 180_000,
    stdout: process.env.E2E_SERVER_LOG === '1' ? ('pipe' as const) : ('ignore' as const),
    stderr: 'pipe' as const,
    // SIGTERM (not SIGKILL) so that e2e-server.mjs removes its temporary DATA_DIR.
    gracefulShutdown: { signal: 'SIGTERM' as const, timeout: 10_000 },
  })),
});
