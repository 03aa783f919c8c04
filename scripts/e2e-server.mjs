#!/usr/bin/env node
// The server the Playwright specs run against (started by playwright.config.ts `webServer`):
// the real server on a fresh embedded database in a temporary DATA_DIR with the demo workspace
// (DEMO=1: three merchants, 30 days of orders in every state, so the specs find real orders),
// platform user `admin` with the known password E2E_ADMIN_PASSWORD (default Admin12345!),
// on 127.0.0.1:${E2E_PORT:-8181}. The temporary folder is removed when the server stops.
//
// The demo's lost callbacks (paid at the simulator, callback never arrived) are printed once at the
// first start; they are written to e2eStateFile(port) so the specs can supplement them by their UTR.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const port = process.env.E2E_PORT || '8181';
const adminPassword = process.env.E2E_ADMIN_PASSWORD || 'Admin12345!';

const dataDir = mkdtempSync(join(tmpdir(), 'paygate-e2e-'));
const env = {
  ...process.env,
  HOST: '127.0.0.1',
  PORT: port,
  DATA_DIR: dataDir,
  ADMIN_PASSWORD: adminPassword,
  DEMO: '1',
  // Every spec signs in from 127.0.0.1; the per-address limit (30 in 5 minutes) is tested elsewhere.
  SIGNIN_ATTEMPTS_PER_ADDRESS: '1000',
};
// The e2e server always runs on its own embedded database, whatever the shell had.
delete env.DATABASE_URL;

console.log(`[e2e-server] DATA_DIR=${dataDir} PORT=${port}`);
// node itself (not npx): npx does not pass SIGTERM on, which left the server running after the specs.
// The built server, as `npm start` runs it (playwright.config.ts has brought the build up to date).
const child = spawn(process.execPath, ['--enable-source-maps', join('dist', 'server', 'main.mjs')], {
  cwd: root,
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});

// Same name as e2e/orders-support.ts `e2eStateFile`.
const stateFile = join(tmpdir(), `paygate-e2e-${port}.json`);
rmSync(stateFile, { force: true });
// What the first start printed, as a newcomer reads it: the users and passwords, the lost callbacks.
const printed = { port: Number(port), users: [], lost: [] };
let pending = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  pending += chunk.toString('utf8');
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    const user = line.match(/^ {2}(?:First start|Demo \w+).*?"(\w+)", password "([^"]+)"/);
    if (user) printed.users.push({ username: user[1], password: user[2] });
    else if (line.includes('Lost callbacks to try'))
      printed.lost = [...line.matchAll(/(\w+) UTR (\w+)/g)].map((m) => ({ orderNo: m[1], utr: m[2] }));
    else continue;
    writeFileSync(stateFile, `${JSON.stringify(printed, null, 2)}\n`);
  }
});

let cleaned = false;
function cleanup() {
  if (cleaned) return;
  cleaned = true;
  try {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(stateFile, { force: true });
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
