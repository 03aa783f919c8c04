/**
 * For a preload (`node --import`) that PGlite's worker thread needs too: on a data folder the server runs
 * PGlite in a thread of its own (server/db/pgliteBackend.ts), where `--import` does not reach. From here on
 * that thread loads the modules at the `url`s given (in their order: several preloads may ask), then its own.
 */
import { syncBuiltinESMExports } from 'node:module';
import workerThreads from 'node:worker_threads';

const urls = [];

export function loadInPgliteThread(url) {
  urls.push(url);
  if (urls.length > 1) return;
  const { Worker } = workerThreads;
  workerThreads.Worker = class extends Worker {
    constructor(file, options) {
      if (!String(file).endsWith('/pgliteThread.mjs')) super(file, options);
      else {
        const modules = JSON.stringify([...urls, String(file)]);
        const load = `${modules}.reduce((loaded, m) => loaded.then(() => import(m)), Promise.resolve())`;
        super(load, { ...options, eval: true });
      }
    }
  };
  syncBuiltinESMExports();
}
