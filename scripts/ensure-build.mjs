#!/usr/bin/env node
// Builds the console (`vite build` -> dist/console) only when it is missing or older than its sources.
// Used by `npm start` and by the e2e server; does nothing (in a few milliseconds) when up to date.
// FORCE_BUILD=1 builds regardless.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'dist', 'console', 'index.html');
const sourceDirs = ['src', 'commands', 'contract', 'locales'];
// package-lock.json too: a dependency change changes the bundle.
const sourceFiles = ['index.html', 'vite.config.ts', 'package-lock.json'];

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

function staleReason() {
  if (process.env.FORCE_BUILD === '1') return 'FORCE_BUILD=1';
  if (!existsSync(target)) return 'dist/console/index.html is missing';
  const built = mtimeOf(target);
  for (const file of sourceFiles) {
    if (mtimeOf(join(root, file)) > built) return `${file} changed`;
  }
  for (const dir of sourceDirs) {
    if (newestUnder(join(root, dir), built) > built) return `${dir}/ changed`;
  }
  return null;
}

const reason = staleReason();
if (reason) {
  console.log(`[ensure-build] building the console (${reason})`);
  const started = Date.now();
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = existsSync(vite)
    ? spawnSync(process.execPath, [vite, 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npx', ['--no-install', 'vite', 'build'], { cwd: root, stdio: 'inherit' });
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
