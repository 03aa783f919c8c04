#!/usr/bin/env node
// `npm test`: everything CI runs, in order, stopping at the first failure:
//   typecheck, lint, console build (vite), then unit + server integration (vitest) and e2e (Playwright)
//   side by side: the browser suite spends nearly half its time waiting (a Google code is good for one
//   action a 30-second step), so on two cores it costs the unit tests little; its output is kept and
//   printed when it ends, after vitest's.
// SKIP_E2E=1 skips the Playwright stage. Stage keys as arguments run only those stages
// (`npm test -- unit e2e`); CI passes none and runs all. TEST_DATABASE_URL (set by .ci/run) turns on the
// PostgreSQL variants of the integration tests (see server/test/pg.ts).
// The last line printed is the plain closing line CI reads: `tests: N passed, M failed[, K skipped]`,
// summing vitest's and Playwright's counts; a failed stage that counted no failed test (typecheck,
// lint, build, a crash, a server that would not start) counts as one failure there.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = mkdtempSync(join(tmpdir(), 'paygate-npm-test-'));
const vitestJson = join(tmp, 'vitest.json');
const playwrightJson = join(tmp, 'playwright.json');
const bin = (path) => join(root, 'node_modules', path);

const totals = { passed: 0, failed: 0, skipped: 0 };
const timings = [];
const running = new Set();
let interrupted = null;
const startedAt = Date.now();

function fmt(ms) {
  return ms < 60_000
    ? `${(ms / 1000).toFixed(1)} s`
    : `${Math.floor(ms / 60_000)} min ${((ms % 60_000) / 1000).toFixed(0)} s`;
}

function header(title) {
  console.log(`\n========== ${title} ==========`);
}

/** Runs a command; with `logFile` its output goes there instead of the terminal. */
function run(command, args, env = {}, logFile = null) {
  return new Promise((resolvePromise) => {
    const stdio = logFile ? ['ignore', openSync(logFile, 'w'), openSync(logFile, 'a')] : 'inherit';
    const child = spawn(command, args, { cwd: root, stdio, env: { ...process.env, ...env } });
    running.add(child);
    child.on('error', (error) => {
      console.error(`could not run ${command}: ${error.message}`);
      running.delete(child);
      resolvePromise(127);
    });
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolvePromise(code ?? (signal ? 128 : 1));
    });
  });
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

/** Counts from vitest's JSON reporter (Jest-compatible shape). */
function vitestCounts() {
  const report = readJson(vitestJson);
  if (!report) return null;
  return {
    passed: report.numPassedTests ?? 0,
    failed: report.numFailedTests ?? 0,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

/** Counts from Playwright's JSON reporter: flaky tests passed on a retry, so they count as passed. */
function playwrightCounts() {
  const report = readJson(playwrightJson);
  if (!report?.stats) return null;
  const { expected = 0, unexpected = 0, flaky = 0, skipped = 0 } = report.stats;
  return { passed: expected + flaky, failed: unexpected, skipped };
}

/** 8181 unless it is taken (a server left running): then any free port, so the run does not fail on it. */
function freePort(preferred) {
  const tryPort = (port) =>
    new Promise((resolvePromise) => {
      const server = createServer();
      server.once('error', () => resolvePromise(null));
      server.listen(port, '127.0.0.1', () => {
        const { port: got } = server.address();
        server.close(() => resolvePromise(got));
      });
    });
  return tryPort(preferred).then((port) => port ?? tryPort(0));
}

// A stage with `alongside` starts with the stage before it and runs beside it (its output kept in a file).
const stages = [
  { key: 'typecheck', name: 'typecheck', run: () => run('npm', ['run', '--silent', 'typecheck']) },
  { key: 'lint', name: 'lint', run: () => run('npm', ['run', '--silent', 'lint']) },
  { key: 'build', name: 'build (vite)', run: () => run('npm', ['run', '--silent', 'build']) },
  {
    key: 'unit',
    name: 'unit + integration (vitest)',
    run: (logFile) =>
      run(
        process.execPath,
        [
          bin('vitest/vitest.mjs'),
          'run',
          '--reporter=default',
          '--reporter=json',
          `--outputFile.json=${vitestJson}`,
        ],
        {},
        logFile,
      ),
    counts: vitestCounts,
  },
  {
    key: 'e2e',
    name: 'e2e (playwright)',
    alongside: true,
    skip: process.env.SKIP_E2E === '1' ? 'SKIP_E2E=1' : null,
    run: async (logFile) => {
      const env = { PLAYWRIGHT_JSON_OUTPUT_FILE: playwrightJson, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' };
      if (!process.env.E2E_PORT) {
        const port = await freePort(8181);
        if (port !== 8181) console.log(`port 8181 is taken: the e2e server uses ${port}`);
        env.E2E_PORT = String(port);
      }
      return run(
        process.execPath,
        [bin('@playwright/test/cli.js'), 'test', '--reporter=list,json'],
        env,
        logFile,
      );
    },
    counts: playwrightCounts,
  },
];

function finish(code, failedStage) {
  header('summary');
  for (const t of timings) console.log(`${t.name.padEnd(30)} ${t.status.padEnd(8)} ${t.time}`);
  // Wall time: the stages side by side overlap.
  console.log(`${'total'.padEnd(30)} ${''.padEnd(8)} ${fmt(Date.now() - startedAt)}`);
  if (failedStage) console.log(`FAILED at stage: ${failedStage}`);
  else console.log('all stages passed');
  rmSync(tmp, { recursive: true, force: true });
  const skipped = totals.skipped ? `, ${totals.skipped} skipped` : '';
  console.log(`tests: ${totals.passed} passed, ${totals.failed} failed${skipped}`);
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    interrupted = signal;
    if (running.size) for (const child of running) child.kill(signal);
    else finish(130, `interrupted by ${signal}`);
  });
}

const only = process.argv.slice(2);
const unknown = only.filter((key) => !stages.some((stage) => stage.key === key));
if (unknown.length) {
  console.error(
    `unknown stage ${unknown.join(', ')}: choose from ${stages.map((stage) => stage.key).join(', ')}`,
  );
  process.exit(2);
}
for (const stage of stages) {
  if (only.length && !only.includes(stage.key)) stage.skip = 'not asked for';
}

/** Runs `stage` (into `logFile` when given) and answers what it did. */
async function runStage(stage, logFile = null) {
  const started = Date.now();
  const code = await stage.run(logFile);
  return { stage, code, ms: Date.now() - started, logFile };
}

/** Counts and reports a finished stage (printing its kept output first); answers whether it passed. */
function settle({ stage, code, ms, logFile }) {
  if (logFile) {
    header(`${stage.name} (it ran alongside)`);
    process.stdout.write(readFileSync(logFile, 'utf8'));
  }
  const counts = stage.counts?.();
  if (counts) {
    totals.passed += counts.passed;
    totals.failed += counts.failed;
    totals.skipped += counts.skipped;
  }
  const ok = code === 0 && !interrupted;
  timings.push({ name: stage.name, status: ok ? 'ok' : `FAILED`, time: fmt(ms) });
  const countText = counts
    ? ` (${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped)`
    : '';
  console.log(`---------- ${stage.name}: ${ok ? 'ok' : `FAILED (exit ${code})`} in ${fmt(ms)}${countText}`);
  if (!ok && (!counts || counts.failed === 0)) totals.failed += 1;
  return ok;
}

for (let i = 0; i < stages.length; i++) {
  const stage = stages[i];
  if (stage.skip) {
    header(`${stage.name}: skipped (${stage.skip})`);
    timings.push({ name: stage.name, status: 'skipped', time: '-' });
    continue;
  }
  header(stage.name);
  const beside = stages[i + 1]?.alongside && !stages[i + 1].skip ? stages[++i] : null;
  if (beside) console.log(`(${beside.name} runs alongside; its output follows when it ends)`);
  const done = await Promise.all([
    runStage(stage),
    ...(beside ? [runStage(beside, join(tmp, `${beside.key}.log`))] : []),
  ]);
  const failed = done.filter((d) => !settle(d));
  if (failed.length) {
    const names = failed.map((d) => d.stage.name).join(', ');
    finish(failed[0].code || 1, interrupted ? `${names} (interrupted by ${interrupted})` : names);
  }
}
finish(0, null);
