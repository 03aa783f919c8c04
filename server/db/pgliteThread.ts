/**
 * The worker thread that owns PGlite for a server on a data folder (server/db/pgliteClient.ts,
 * `threadBackend`): each message is one call into the database, answered in order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { callPglite, createPglite } from './pgliteClient.ts';

const port = parentPort;
if (!port) throw new Error('pgliteThread.ts runs as a worker thread');
const pg = await createPglite({ dataDir: (workerData as { dataDir: string }).dataDir });
port.on('message', async (m: { id: number; message?: Uint8Array; syncToFs?: boolean; close?: true }) => {
  try {
    if (m.close) {
      await pg.close();
      port.postMessage({ id: m.id });
      return;
    }
    const data = await callPglite(pg, m.message as Uint8Array, m.syncToFs ?? true);
    port.postMessage({ id: m.id, data }, [data.buffer as ArrayBuffer]);
  } catch (e) {
    port.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});
port.postMessage({ ready: true });
