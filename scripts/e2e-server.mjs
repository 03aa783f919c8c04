#!/usr/bin/env node
// The server the Playwright specs run against (started by playwright.config.ts `webServer`):
// the real server on a fresh, empty embedded database in a temporary DATA_DIR, no demo workspace,
// platform user `admin` with the known password E2E_ADMIN_PASSWORD (default Admin12345!),
// on 127.0.0.1:${E2E_PORT:-8181}. The temporary folder is removed when the server stops.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const port = process.env.E2E_PORT || '8181';
const adminPassword = process.env.E2E_ADMIN_PASSWORD || 'Admin12345!';

// `npm run e2e` on its own needs a console build; under `npm test` it is already up to date.
const build = spawnSync(process.execPath, [join(root, 'scripts', 'ensure-build.mjs')], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status || 1);

const dataDir = mkdtempSync(join(tmpdir(), 'paygate-e2e-'));
const env = {
  ...process.env,
  HOST: '127.0.0.1',
  PORT: port,
  DATA_DIR: dataDir,
  ADMIN_PASSWORD: adminPassword,
  DEMO: '0',
};
// The e2e server always runs on its own embedded database, whatever the shell had.
delete env.DATABASE_URL;

console.log(`[e2e-server] DATA_DIR=${dataDir} PORT=${port}`);
const child = spawn('npx', ['--no-install', 'tsx', 'server/main.ts'], { cwd: root, env, stdio: 'inherit' });

let cleaned = false;
function cleanup() {
  if (cleaned) return;
  cleaned = true;
  try {
    rmSync(dataDir, { recursive: true, force: true });
  } catch {}
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    else {
      cleanup();
      process.exit(1);
    }
  });
}

child.on('error', (error) => {
  console.error(`[e2e-server] could not start the server: ${error.message}`);
  cleanup();
  process.exit(1);
});

child.on('exit', (code, signal) => {
  cleanup();
  if (signal) console.log(`[e2e-server] server stopped by ${signal}`);
  else if (code !== 0) console.error(`[e2e-server] server exited with code ${code}`);
  process.exit(code ?? 0);
});
