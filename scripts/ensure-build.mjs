#!/usr/bin/env node
// Builds the console (`vite build` -> dist/console), the pay page (`vite build -c vite.pay.config.ts`
// -> dist/pay) and the server (esbuild -> dist/server/main.mjs and its statement worker, its migrations
// beside it), each only when it is missing or older than its sources.
// Used by `npm start` and by playwright.config.ts; does nothing (in a few milliseconds) when up to date.
// FORCE_BUILD=1 builds regardless.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer } from './server-bundle.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// package-lock.json too: a dependency change changes the bundle.
const bundles = [
  {
    name: 'the console',
    target: join('dist', 'console', 'index.html'),
    sourceDirs: ['src', 'commands', 'contract', 'locales'],
    sourceFiles: ['index.html', 'vite.config.ts', 'package-lock.json'],
    args: ['build'],
  },
  {
    name: 'the pay page',
    target: join('dist', 'pay', 'index.html'),
    sourceDirs: ['pay', 'contract'],
    sourceFiles: ['vite.pay.config.ts', 'package-lock.json', 'src/tokens.css'],
    args: ['build', '-c', 'vite.pay.config.ts'],
  },
  {
    name: 'the server',
    target: join('dist', 'server', 'main.mjs'),
    sourceDirs: ['server', 'contract', 'locales'],
    sourceFiles: ['package-lock.json', 'scripts/ensure-build.mjs', 'scripts/server-bundle.mjs'],
    build: () => buildServer(join(root, 'dist', 'server')),
  },
];

/** Newest modification time (ms) of any file under `dir`, or 0; stops early once past `limit`. */
function newestUnder(dir, limit) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestUnder(path, limit) : mtimeOf(path);
    if (mtime > newest) newest = mtime;
    if (newest > limit) break;
  }
  return newest;
}

function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function staleReason({ target, sourceDirs, sourceFiles }) {
  if (process.env.FORCE_BUILD === '1') return 'FORCE_BUILD=1';
  if (!existsSync(join(root, target))) return `${target} is missing`;
  const built = mtimeOf(join(root, target));
  for (const file of sourceFiles) {
    if (mtimeOf(join(root, file)) > built) return `${file} changed`;
  }
  for (const dir of sourceDirs) {
    if (newestUnder(join(root, dir), built) > built) return `${dir}/ changed`;
  }
  return null;
}

for (const bundle of bundles) {
  const reason = staleReason(bundle);
  if (!reason) continue;
  console.log(`[ensure-build] building ${bundle.name} (${reason})`);
  const started = Date.now();
  if (bundle.build) {
    try {
      await bundle.build();
    } catch (err) {
      console.error(`[ensure-build] ${bundle.name} failed: ${err instanceof Error ? err.message : err}`);
      process.exit(1);
    }
    console.log(`[ensure-build] built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    continue;
  }
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = existsSync(vite)
    ? spawnSync(process.execPath, [vite, ...bundle.args], { cwd: root, stdio: 'inherit' })
    : spawnSync('npx', ['--no-install', 'vite', ...bundle.args], { cwd: root, stdio: 'inherit' });
  if (result.error) {
    console.error(`[ensure-build] could not run vite: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) {
    console.error(`[ensure-build] vite build failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
  console.log(`[ensure-build] built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
