/**
 * Console bundle sizes, as a browser fetches them: the JavaScript `/login` loads, the JavaScript a
 * signed-in user's first route (`/dashboard`, the home) loads before the shell's idle prefetching, the
 * palette chunk, the whole app. Builds when stale, starts the real server on a free port, opens /login in Debian's Chromium.
 *   npx tsx bench/console-bundle.ts
 * Targets (docs/PERFORMANCE.md): first route (/login, /dashboard) ≤ 170 KB gzip, palette ≤ 20 KB gzip, whole app ≤ 400 KB gzip.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { benchAdminPassword } from './common.ts';

const root = join(import.meta.dirname, '..');
const assets = join(root, 'dist/console/assets');
const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const gz = (file: string) => gzipSync(readFileSync(join(assets, file)), { level: 9 }).length;

const port = await new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = (s.address() as { port: number }).port;
    s.close(() => resolve(p));
  });
});
execFileSync('node', ['scripts/ensure-build.mjs'], { cwd: root, stdio: 'inherit' });
const dataDir = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
// node itself, not npx: npx does not pass SIGTERM on, and the server outlived the benchmark.
const server = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
  cwd: root,
  env: {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    DEMO: '0',
    ADMIN_PASSWORD: benchAdminPassword,
    DATABASE_URL: '',
  },
  stdio: 'ignore',
});
try {
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i++) {
    const ok = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const page = await browser.newPage();
  const loaded = new Set<string>();
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.endsWith('.js')) loaded.add(path.split('/').pop()!);
  });
  await page.goto(`${base}/login`, { waitUntil: 'networkidle' });
  const login = [...loaded].reduce((sum, f) => sum + gz(f), 0);
  const loginScripts = [...loaded];

  // Signed in: the home screen, counted until its first figures are painted (the palette and other
  // screens are fetched later, when the shell is idle).
  const answer = await fetch(`${base}/api/v1/auth/login/password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: benchAdminPassword }),
  }).then((r) => r.json() as Promise<{ data: { token: string } }>);
  const context = await browser.newContext();
  await context.addCookies([{ name: 'Admin-Token', value: answer.data.token, url: base }]);
  const home = await context.newPage();
  const homeLoaded = new Set<string>();
  home.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.endsWith('.js')) homeLoaded.add(path.split('/').pop()!);
  });
  await home.goto(`${base}/dashboard`);
  await home.locator('.dashboard, main h1').first().waitFor();
  const homeScripts = [...homeLoaded];
  await browser.close();
  const dashboard = homeScripts.reduce((sum, f) => sum + gz(f), 0);
  const files = readdirSync(assets).filter((f) => f.endsWith('.js'));
  const palette = files.filter((f) => f.startsWith('Palette-')).reduce((sum, f) => sum + gz(f), 0);
  const all = files.reduce((sum, f) => sum + gz(f), 0);
  console.log(`/login loads ${loginScripts.length} scripts: ${loginScripts.join(', ')}`);
  console.log(`/dashboard loads ${homeScripts.length} scripts: ${homeScripts.join(', ')}`);
  console.log('| measurement | gzip | target |\n|---|---|---|');
  console.log(`| initial JavaScript of /login | ${kb(login)} KB | ≤ 170 KB |`);
  console.log(`| initial JavaScript of /dashboard, signed in | ${kb(dashboard)} KB | ≤ 170 KB |`);
  console.log(`| palette chunk | ${kb(palette)} KB | ≤ 20 KB |`);
  console.log(`| whole app JavaScript (${files.length} files) | ${kb(all)} KB | ≤ 400 KB |`);
  if (login > 170 * 1024 || dashboard > 170 * 1024 || palette > 20 * 1024 || all > 400 * 1024)
    process.exitCode = 1;
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dataDir, { recursive: true, force: true });
}
