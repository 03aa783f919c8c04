import { defineConfig } from '@playwright/test';

// End-to-end specs (e2e/*.spec.ts) in Debian's Chromium against the real server on a fresh embedded
// database (scripts/e2e-server.mjs). Playwright never downloads a browser here: the system one is used.
const port = Number(process.env.E2E_PORT || 8181);
const baseURL = `http://127.0.0.1:${port}`;

// Specs sign in as the platform admin with this password: read it as process.env.E2E_ADMIN_PASSWORD.
// (Set here so that it reaches the webServer below and the test workers, which load this file too.)
const adminPassword = process.env.E2E_ADMIN_PASSWORD || 'Admin12345!';
process.env.E2E_ADMIN_PASSWORD = adminPassword;
process.env.E2E_BASE_URL ||= baseURL;
process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD ||= '1';

const chromium = process.env.E2E_CHROMIUM || '/usr/bin/chromium';
const isCI = !!process.env.CI;

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results',
  fullyParallel: false,
  workers: 1,
  // No retries: a test that passes only on a second try is a bug to fix, not to hide.
  retries: 0,
  forbidOnly: isCI,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  // scripts/test.mjs passes its own --reporter (list + json) on the command line.
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  use: {
    baseURL,
    browserName: 'chromium',
    headless: true,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
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
  webServer: {
    command: 'node scripts/e2e-server.mjs',
    url: `${baseURL}/api/health`,
    env: {
      E2E_PORT: String(port),
      E2E_ADMIN_PASSWORD: adminPassword,
    },
    reuseExistingServer: !isCI,
    // First start: migrations on an empty PGlite, admin password hashing, maybe a console build.
    timeout: 180_000,
    stdout: process.env.E2E_SERVER_LOG === '1' ? 'pipe' : 'ignore',
    stderr: 'pipe',
    // SIGTERM (not SIGKILL) so that e2e-server.mjs removes its temporary DATA_DIR.
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
  },
});
