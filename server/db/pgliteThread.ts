/**
 * The worker thread that owns PGlite for a server on a data folder (server/db/pgliteBackend.ts,
 * `threadBackend`): each message is one call into the database, answered in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { callPglite, createPglite } from './pgliteBackend.ts';

const port = parentPort;
if (!port) throw new Error('pgliteThread.ts runs as a worker thread');
const pg = await createPglite({ dataDir: (workerData as { dataDir: string }).dataDir });
port.on('message', async (m: { id: number; message?: Uint8Array; syncToFs?: boolean; close?: true }) => {
  if (m.close) {
    await pg.close().then(
      () => port.postMessage({ id: m.id }),
      (e: unknown) => port.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) }),
    );
    return;
  }
  let data: Uint8Array;
  try {
    data = await callPglite(pg, m.message as Uint8Array, m.syncToFs ?? true);
  } catch {
    // The database's own errors come back in the answer: a call that throws is PGlite itself failing (an
    // abort of its WebAssembly), after which nothing it answers can be trusted. The thread ends, and the
    // server starts another on the folder (pgliteBackend.ts, `threadBackend`).
    process.exit(1);
  }
  port.postMessage({ id: m.id, data }, [data.buffer as ArrayBuffer]);
});
port.postMessage({ ready: true });
