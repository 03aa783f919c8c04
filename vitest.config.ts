import { defineConfig } from 'vitest/config';

// Unit and server integration tests. Standalone on purpose (does not merge vite.config.ts): the server
// tests need no console plugins, and JSX in *.test.tsx is compiled with the tsconfig's `react-jsx`.
// Integration tests that want PostgreSQL use server/test/pg.ts (TEST_DATABASE_URL, set by .ci/run).
export default defineConfig({
  test: {
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: [
      'e2e/**',
      '**/node_modules/**',
      'dist/**',
      'data/**',
      'test-results/**',
      'playwright-report/**',
    ],
    environment: 'node',
    // One migrated database of each engine, copied for every test (server/test/template.ts), and the
    // server's bundle for the tests that start it as a process (scripts/test-bundle.ts).
    globalSetup: ['server/test/template.ts', 'scripts/test-bundle.ts'],
    globals: false,
    testTimeout: 30_000,
    // The statement readers' threads at the tests' own priority (server/modules/statement/workerPool.ts).
    env: { STATEMENT_WORKER_NICE: '0' },
    hookTimeout: 60_000,
    // 2-core machines (CI and developers alike): files run in parallel, on at most 2 workers.
    fileParallelism: true,
    maxWorkers: 2,
    // A worker keeps its modules from one file to the next instead of importing the server afresh for
    // each (issue 27: importing was an eighth of the suite's time). Files share no state through them:
    // each test makes its own server, database and clock.
    isolate: false,
  },
});
