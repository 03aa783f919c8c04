/**
 * Where PGlite runs for the server's client (pgliteClient.ts): in this thread (in memory: the tests), or in a
 * worker thread of its own on a data folder (the server, pgliteThread.ts), where its work goes on beside the
 * server's JavaScript instead of taking turns with it on one core, and which is started again if it stops.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { DatabaseUnavailable } from './errors.ts';

/** Where the database runs: frontend messages in, backend messages out, one call into PGlite. */
export interface Backend {
  exec(message: Uint8Array, syncToFs: boolean): Promise<Uint8Array>;
  close(): Promise<void>;
  /** The data directory as a tarball (in this thread only: the tests' template). */
  dumpDataDir?(compression: 'none'): Promise<Blob>;
  /** How often the database's thread was started again (`threadBackend`): a session's work before it is gone. */
  readonly restarts?: number;
  /** The database's thread of the moment (`threadBackend`; a restart replaces it). */
  readonly thread?: Worker;
}

/** Every open of a PGlite folder loads the same extensions, or queries that need them fail. */
export function createPglite(opts: { dataDir?: string; loadDataDir?: Blob }): Promise<PGlite> {
  return PGlite.create({
    dataDir: opts.dataDir,
    extensions: { pg_trgm },
    ...(opts.loadDataDir && !opts.dataDir ? { loadDataDir: opts.loadDataDir } : {}),
  });
}

/**
 * One call into PGlite: the backend's answer, copied out of its memory as it comes. Not `execProtocolRaw`:
 * that also parses every answer into message objects, and (PGlite 0.5.16) keeps them all — only
 * `execProtocol` renews the list they go to —, half a kilobyte a call that no collection frees, so that
 * a server's database thread grew by a megabyte a second under load and paused 100 ms and more for each
 * full collection; and the client parses the answer anyway.
 */
export async function callPglite(pg: PGlite, message: Uint8Array, syncToFs: boolean): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  await pg.execProtocolRawStream(message, {
    syncToFs,
    onRawData: (chunk) => {
      chunks.push(chunk.slice());
    },
  });
  return chunks.length === 1 ? chunks[0]! : concat(chunks);
}

/** PGlite in this thread. */
export async function localBackend(opts: { loadDataDir?: Blob }): Promise<Backend> {
  const pg = await createPglite(opts);
  return {
    exec: (message, syncToFs) => callPglite(pg, message, syncToFs),
    close: () => pg.close(),
    dumpDataDir: async (c) => pg.dumpDataDir(c),
  };
}

/** What the owner of a database thread does when the thread stopped (a crash) and is started again. */
export interface Restarts {
  /** As the stop is seen, before any call is made again: what the session held is gone (prepared statements). */
  stopped(err: Error): void;
  /** On the new thread, before any other call: `send` makes calls on it (LISTEN again). */
  started(send: (message: Uint8Array) => Promise<Uint8Array>): Promise<void>;
}

/**
 * The error of a call the database thread could not answer: it stopped, or is starting again. A lost
 * connection's code (08006), so that the server answers as when PostgreSQL goes away: a transaction cut
 * before its COMMIT is tried again (the thread's end rolled it back), one cut during its COMMIT and a
 * statement of its own cut on its way are `DatabaseUnavailable` with an unknown outcome, and past the
 * retries the API answers 503 with Retry-After, never 500.
 */
export const threadLost = (why: string) =>
  Object.assign(new Error(`the database thread ${why}`), { code: '08006' });

/**
 * PGlite in a worker thread of its own, on the data folder `dataDir`. A thread that stops while the server
 * runs (PGlite failed in a way only a new start mends) is started again on the same folder, which PGlite
 * recovers as after a crash; meanwhile calls fail as on a lost connection.
 */
export async function threadBackend(dataDir: string, restarts?: Restarts): Promise<Backend> {
  /** Calls sent and not answered; `alone`: a statement outside a transaction (its own COMMIT). */
  const waiting = new Map<number, { resolve(b: Uint8Array): void; reject(e: Error): void; alone: boolean }>();
  let next = 0;
  let thread: Worker | undefined;
  /** Calls go to the thread: it is ready, and set up again after a restart. */
  let up = false;
  let closing = false;
  let restarting = false;
  let stops = 0;

  const send = (message: Uint8Array, alone: boolean) =>
    new Promise<Uint8Array>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject, alone });
      // Handed over, not copied; a view into a larger buffer is copied first.
      const own = message.byteLength === message.buffer.byteLength ? message : message.slice();
      thread!.postMessage({ id, message: own, syncToFs: alone }, [own.buffer as ArrayBuffer]);
    });

  /** A new thread on the folder, once PGlite is open in it. */
  const start = () =>
    new Promise<Worker>((resolve, reject) => {
      // Beside the running module: dist/server/pgliteThread.mjs in the built server, else the bootstrap
      // that compiles pgliteThread.ts (tsx, vitest).
      const w = new Worker(new URL('./pgliteThread.mjs', import.meta.url), { workerData: { dataDir } });
      w.on('message', (m: { ready?: true; id?: number; data?: Uint8Array; error?: string }) => {
        if (m.ready) return resolve(w);
        const call = waiting.get(m.id ?? -1);
        if (!call) return;
        waiting.delete(m.id ?? -1);
        if (m.error !== undefined) call.reject(new Error(m.error));
        else call.resolve(m.data ?? new Uint8Array(0));
      });
      // An uncaught error ends the thread: its exit follows, which says it.
      let failure: Error | undefined;
      w.on('error', (e) => {
        failure = e;
      });
      w.once('exit', (code) => {
        const err = threadLost(failure ? `stopped: ${failure.message}` : `stopped (exit code ${code})`);
        reject(err);
        if (w !== thread) return;
        up = false;
        for (const call of waiting.values())
          call.reject(call.alone && !closing ? new DatabaseUnavailable('unknown', err) : err);
        waiting.clear();
        if (closing) return;
        stops++;
        restarts?.stopped(err);
        if (!restarting) void restart();
      });
    });

  const restart = async () => {
    restarting = true;
    for (let attempt = 0; !closing; attempt++) {
      try {
        thread = await start();
        if (closing) {
          await thread.terminate();
          break;
        }
        await restarts?.started((message) => send(message, false));
        up = true;
        break;
      } catch {
        await sleep(Math.min(250 * 2 ** attempt, 5_000));
      }
    }
    restarting = false;
  };

  thread = await start();
  up = true;
  return {
    get thread() {
      return thread!;
    },
    get restarts() {
      return stops;
    },
    exec(message, syncToFs) {
      if (!up) return Promise.reject(threadLost(closing ? 'is closed' : 'is starting again'));
      return send(message, syncToFs);
    },
    async close() {
      closing = true;
      if (up) {
        up = false;
        await new Promise<void>((resolve, reject) => {
          const id = next++;
          waiting.set(id, { resolve: () => resolve(), reject, alone: false });
          thread!.postMessage({ id, close: true });
        });
      }
      await thread?.terminate();
    },
  };
}

export function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
