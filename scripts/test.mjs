#!/usr/bin/env node
// `npm test`: everything CI runs, in two lanes side by side, stopping after the first failure (the other
// lane ends the stage it is in, so its counts are still reported):
//   1. typecheck, lint, then unit + server integration (vitest), which needs nothing built;
//   2. the console build (vite), then e2e (Playwright) against that build: the longer lane starts at once.
// On two cores the lanes fill each other's idle time: tsc is single-threaded, the browser suite spends
// nearly half its time waiting (a Google code is good for one action a 30-second step) and vitest's
// crash and failover tests wait on restarts. The short stages print as they run; the long ones keep their
// output in a file, printed when they end.
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
import { e2eWorkers } from './e2e-workers.mjs';

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
    : `${Math.floor(Math.round(ms / 1000) / 60)} min ${Math.round(ms / 1000) % 60} s`;
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

/** Strips colour codes and keeps the first lines of an error, so a failure reads in CI's tail. */
function firstLines(text, count = 6) {
  return String(text ?? '')
    .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')
    .split('\n')
    .filter((line) => line.trim())
    .slice(0, count)
    .map((line) => `    ${line.slice(0, 300)}`)
    .join('\n');
}

/** vitest's failed tests: where and why. */
function vitestFailures() {
  const report = readJson(vitestJson);
  const failures = [];
  for (const file of report?.testResults ?? []) {
    const where = file.name?.startsWith(root) ? file.name.slice(root.length + 1) : file.name;
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed) {
      // vitest 4 answers a test past its time with the stack it took where the test was declared, whose
      // message is still its placeholder (the timeout's message is not put back into it).
      const why = String(test.failureMessages?.[0] ?? '').replace(
        /^Error: STACK_TRACE_ERROR/,
        `Error: timed out (ran ${Math.round(test.duration ?? 0)} ms)`,
      );
      failures.push(`  ${where} › ${test.fullName}\n${firstLines(why)}`);
    }
    if (!failed.length && file.status === 'failed')
      failures.push(`  ${where} (the file failed)\n${firstLines(file.message)}`);
  }
  return failures;
}

/** Playwright's failed tests (not the flaky ones, which passed on a retry): where and why. */
function playwrightFailures() {
  const report = readJson(playwrightJson);
  const failures = [];
  const walk = (suite, titles) => {
    const path = suite.title && !suite.title.endsWith('.ts') ? [...titles, suite.title] : titles;
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests ?? [])
        if (test.status === 'unexpected') {
          const last = test.results?.at(-1);
          const error = last?.error?.message ?? last?.errors?.[0]?.message;
          failures.push(
            `  ${spec.file}:${spec.line} › ${[...path, spec.title].join(' › ')}\n${firstLines(error)}`,
          );
        }
    for (const child of suite.suites ?? []) walk(child, path);
  };
  for (const suite of report?.suites ?? []) walk(suite, []);
  for (const error of report?.errors ?? []) failures.push(`  (outside a test)\n${firstLines(error.message)}`);
  return failures;
}

/** Listens on `port` of 127.0.0.1 (0: any) and lets go: answers the port it got, or null when taken. */
function tryPort(port) {
  return new Promise((resolvePromise) => {
    const server = createServer();
    server.once('error', () => resolvePromise(null));
    server.listen(port, '127.0.0.1', () => {
      const { port: got } = server.address();
      server.close(() => resolvePromise(got));
    });
  });
}

/**
 * The first of `count` consecutive free ports (the e2e servers' E2E_PORT, E2E_PORT + 1 …): 8181 unless
 * one of its run is taken (a server left running), then any such run, so the run does not fail on it.
 */
async function freePorts(preferred, count) {
  const allFree = async (first) => {
    for (let port = first; port < first + count; port++) if ((await tryPort(port)) === null) return false;
    return true;
  };
  if (await allFree(preferred)) return preferred;
  for (;;) {
    const first = await tryPort(0);
    if (first + count <= 65_535 && (await allFree(first))) return first;
  }
}

// Each stage names its lane; a lane runs its stages in order; a stage with `kept` writes its output to a
// file, printed when it ends (two lanes printing at once would interleave).
const stages = [
  { key: 'typecheck', name: 'typecheck', lane: 1, run: () => run('npm', ['run', '--silent', 'typecheck']) },
  { key: 'lint', name: 'lint', lane: 1, run: () => run('npm', ['run', '--silent', 'lint']) },
  { key: 'build', name: 'build (vite)', lane: 2, run: () => run('npm', ['run', '--silent', 'build']) },
  {
    key: 'unit',
    name: 'unit + integration (vitest)',
    lane: 1,
    kept: true,
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
    failures: vitestFailures,
  },
  {
    key: 'e2e',
    name: 'e2e (playwright)',
    lane: 2,
    kept: true,
    skip: process.env.SKIP_E2E === '1' ? 'SKIP_E2E=1' : null,
    run: async (logFile) => {
      const env = { PLAYWRIGHT_JSON_OUTPUT_FILE: playwrightJson, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' };
      if (!process.env.E2E_PORT) {
        const servers = e2eWorkers();
        const port = await freePorts(8181, servers);
        if (port !== 8181) console.log(`port 8181 or the next is taken: the e2e servers use ${port} on`);
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
    failures: playwrightFailures,
  },
];

function finish(code, failedStage) {
  header('summary');
  for (const t of timings) console.log(`${t.name.padEnd(30)} ${t.status.padEnd(8)} ${t.time}`);
  // Wall time: the stages side by side overlap.
  console.log(`${'total'.padEnd(30)} ${''.padEnd(8)} ${fmt(Date.now() - startedAt)}`);
  // The failed tests again, here at the end: the long lanes' output comes before, and CI keeps a tail.
  for (const stage of stages) {
    const failures = stage.failures?.() ?? [];
    if (failures.length) console.log(`failed in ${stage.name}:\n${failures.join('\n')}`);
  }
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
    header(`${stage.name} (its output)`);
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

/** The first stage that failed: its lane stops; the other ends the stage it is in and starts no other. */
let firstFailure = null;

/** Runs one lane's stages in order, until one fails here or in the other lane. */
async function runLane(lane) {
  for (const stage of stages.filter((s) => s.lane === lane)) {
    if (firstFailure) return;
    if (stage.skip) {
      header(`${stage.name}: skipped (${stage.skip})`);
      timings.push({ name: stage.name, status: 'skipped', time: '-' });
      continue;
    }
    if (stage.kept) console.log(`(${stage.name} started; its output follows when it ends)`);
    else header(stage.name);
    const done = await runStage(stage, stage.kept ? join(tmp, `${stage.key}.log`) : null);
    if (!settle(done)) {
      firstFailure ??= done;
      return;
    }
  }
}

await Promise.all([runLane(1), runLane(2)]);
if (firstFailure) {
  const name = firstFailure.stage.name;
  finish(firstFailure.code || 1, interrupted ? `${name} (interrupted by ${interrupted})` : name);
} else finish(0, null);
