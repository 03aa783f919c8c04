// The server's bundle: one place for how `npm start` and the tests that run the server as a process build it.
import { cpSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The server as one ES module of its own code (contract and locales included), its packages left to
 * node_modules: `npm start` runs compiled JavaScript, not tsx compiling TypeScript at every start.
 * The statement worker is a second module beside it (server/modules/statement/workerPool.ts starts it
 * from there), so is PGlite's thread (server/db/pgliteBackend.ts), and so is the worker that parses large
 * request bodies (server/http/jsonWorker.mjs). The migrations are copied beside it (server/db/index.ts
 * finds them next to itself). A source map keeps stack traces pointing at the TypeScript
 * (`node --enable-source-maps`).
 * Built into `out` (emptied first): dist/server for `npm start` and the e2e servers (scripts/ensure-build.mjs),
 * a folder of node_modules/.cache for the integration tests that start the server as a process
 * (scripts/test-bundle.ts, vitest's global setup).
 */
export async function buildServer(out) {
  rmSync(out, { recursive: true, force: true });
  const { build } = await import('esbuild');
  await build({
    entryPoints: [
      { in: join(root, 'server', 'main.ts'), out: 'main' },
      { in: join(root, 'server', 'modules', 'statement', 'statementWorker.ts'), out: 'statementWorker' },
      { in: join(root, 'server', 'db', 'pgliteThread.ts'), out: 'pgliteThread' },
    ],
    outdir: out,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  cpSync(join(root, 'server', 'db', 'migrations'), join(out, 'migrations'), { recursive: true });
  // The large-body JSON worker is plain JavaScript, started from beside the running module.
  cpSync(join(root, 'server', 'http', 'jsonWorker.mjs'), join(out, 'jsonWorker.mjs'));
}
