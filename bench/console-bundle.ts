/**
 * Console bundle sizes, as a browser fetches them: the JavaScript `/login` loads, the JavaScript a
 * signed-in user's first route (`/dashboard`, the home) loads before the shell's idle prefetching, the
 * palette chunk, the whole app. Builds when stale, starts the real server on a free port, opens /login in Debian's Chromium.
 *   npx tsx bench/console-bundle.ts
 * Targets (docs/PERFORMANCE.md): first route (/login, /dashboard) ≤ 170 KB gzip, palette ≤ 20 KB gzip, whole app ≤ 400 KB gzip.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';
import { benchAdminPassword, root, signIn, startServer } from './common.ts';

const assets = join(root, 'dist/console/assets');
const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const gz = (file: string) => gzipSync(readFileSync(join(assets, file)), { level: 9 }).length;

execFileSync('node', ['scripts/ensure-build.mjs'], { cwd: root, stdio: 'inherit' });
const dataDir = mkdtempSync(join(tmpdir(), 'paygate-bench-'));
// PGlite in a fresh folder: the first start makes `admin` with this password.
const server = await startServer({ dir: dataDir, env: { ADMIN_PASSWORD: benchAdminPassword } });
try {
  const { base } = server;
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
  const token = await signIn(base, 'admin', benchAdminPassword);
  const context = await browser.newContext();
  await context.addCookies([{ name: 'Admin-Token', value: token, url: base }]);
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
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
