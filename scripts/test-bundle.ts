/**
 * vitest's global setup (beside server/test/template.ts): builds the server's bundle once, as `npm start`
 * runs it, for the tests that start the server as a process (server/test/crash.test.ts and the clusters of
 * server/test/workers.ts); they find it through `serverArgs()`. Issue 27: each start through tsx compiled
 * every module again, some 40 starts a run.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildServer } from './server-bundle.mjs';

export async function setup(): Promise<() => void> {
  // Inside node_modules, so that the bundle finds its packages (left outside it) as dist/server does.
  const dir = join(
    import.meta.dirname,
    '..',
    'node_modules',
    '.cache',
    `paygate-test-server-${randomBytes(4).toString('hex')}`,
  );
  await buildServer(dir);
  process.env.PAYGATE_TEST_SERVER_BUNDLE = join(dir, 'main.mjs');
  return () => rmSync(dir, { recursive: true, force: true });
}
