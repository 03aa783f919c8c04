/**
 * Statements are read in worker threads (statementWorker.ts), never on the server's event loop: one
 * import of a large paste or XLSX would otherwise hold every request of every merchant until it is read.
 * A small pool (one thread on two cores, the other left to the server), a short queue (full, it answers
 * `busy` instead of holding more files in memory) and a deadline counted from when a worker takes the
 * statement: past it that worker is terminated and the pool starts another for the next statement.
 */
import { availableParallelism } from 'node:os';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import type { StatementMapping } from '../../../contract/statementMapping.ts';
import type { BalanceGap, ParseResult, RowError, StatementLine } from './parse.ts';

/** How long one statement may be read: the largest allowed take a few seconds on a busy two-core machine. */
export const statementDeadlineMs = 30_000;
/** Statements waiting for a worker; one more answers `busy`. */
export const maxWaitingStatements = 4;
/** Heap of one worker: the largest allowed statement needs about a third of it. */
const workerHeapMb = 768;

export interface StatementTask {
  input: { file: Buffer } | { text: string };
  mapping: StatementMapping | null;
}

/** What the worker says it is doing: reading the file, then the mapping's UTR pattern. */
export type WorkerStep = 'reading' | 'utrPattern';

/** A statement as read, its lists still packed (unpacked as the caller walks them). */
export type PackedResult =
  | (Omit<Extract<ParseResult, { ok: true }>, 'lines' | 'errors' | 'warnings'> & {
      lines: Packed<StatementLine>;
      errors: Packed<RowError>;
      warnings: Packed<BalanceGap>;
    })
  | Extract<ParseResult, { ok: false }>;

export type WorkerOutcome =
  | { result: PackedResult }
  | { stopped: 'busy' }
  | { stopped: 'tooSlow' | 'utrPatternSlow' };

/**
 * How much lower than requests the readers' threads run (`STATEMENT_WORKER_NICE`, 0–19, default 10). The
 * test suite sets 0: there a worker competes with other test files, not with requests, and at 10 a cold
 * one waited out a test's 30 s on a two-core machine running both test lanes.
 */
function workerNice(): number {
  const n = Number(process.env.STATEMENT_WORKER_NICE ?? 10);
  return Number.isInteger(n) && n >= 0 && n <= 19 ? n : 10;
}

let pool: Promise<Piscina> | undefined;

/** The pool, made on first use (this module is loaded in the worker too, through parse.ts: no pool there). */
function statementPool(): Promise<Piscina> {
  pool ??= import('piscina').then(
    ({ Piscina }) =>
      new Piscina({
        // The worker beside the running module: dist/server/statementWorker.mjs in the built server,
        // else the bootstrap beside this file that compiles statementWorker.ts (tsx, vitest).
        filename: new URL('./statementWorker.mjs', import.meta.url).href,
        // One stays, so that a worker terminated at the deadline is replaced for the statements queued.
        minThreads: 1,
        maxThreads: Math.max(1, Math.min(2, availableParallelism() - 1)),
        idleTimeout: 60_000,
        resourceLimits: { maxOldGenerationSizeMb: workerHeapMb },
        // Where the server shares its cores with the worker, requests come first.
        niceIncrement: workerNice(),
      }),
  );
  return pool;
}

/**
 * Starts the pool's thread, which loads the reader, while the server starts: a cold worker needs a second
 * or more (several at `nice` 10 on a busy machine) before its first statement.
 */
export function warmStatementWorker(): void {
  void statementPool();
}

/** Reads a statement in the pool, stopped at `deadlineMs` after a worker has taken it. */
export async function runInWorker(task: StatementTask, deadlineMs: number): Promise<WorkerOutcome> {
  const workers = await statementPool();
  if (workers.queueSize >= maxWaitingStatements) return { stopped: 'busy' };
  const { port1: steps, port2 } = new MessageChannel();
  const stop = new AbortController();
  let step: WorkerStep | null = null;
  let deadline: NodeJS.Timeout | undefined;
  steps.on('message', (next: WorkerStep) => {
    if (step === null) deadline = setTimeout(() => stop.abort(), deadlineMs);
    step = next;
  });
  try {
    const packed: Uint8Array = await workers.run(
      { ...task, steps: port2 },
      { transferList: [port2], signal: stop.signal },
    );
    return { result: unpackResult(packed) };
  } catch (err) {
    if (stop.signal.aborted) return { stopped: step === 'utrPattern' ? 'utrPatternSlow' : 'tooSlow' };
    throw err;
  } finally {
    clearTimeout(deadline);
    steps.close();
  }
}

/** What the worker gets: the task and where it tells its steps. */
export type WorkerTask = StatementTask & { steps: MessagePort };

/** Items per batch of a packed result: each unpacks in a few milliseconds. */
const batchSize = 500;

/**
 * A result as bytes the worker hands over without copying. Unpacking 200,000 lines on the event loop at
 * once takes about 400 ms whether they come as objects or JSON, so they come in batches, one per turn.
 */
export function packResult(result: ParseResult): Uint8Array {
  if (!result.ok) return new TextEncoder().encode(JSON.stringify(result));
  const { lines, errors, warnings, ...rest } = result;
  const out = [JSON.stringify({ ...rest, sizes: [lines.length, errors.length, warnings.length] })];
  for (const list of [lines, errors, warnings] as unknown[][])
    for (let i = 0; i < list.length; i += batchSize) out.push(JSON.stringify(list.slice(i, i + batchSize)));
  return new TextEncoder().encode(out.join('\n'));
}

/**
 * A list the worker packed as JSON batches, one batch a line of the bytes. Unpacking 200,000 lines at once
 * holds the event loop for about 400 ms, and keeping them all makes every garbage collection slower: the
 * batches are unpacked as the caller walks them, a turn of the event loop between two.
 */
export class Packed<T> {
  constructor(
    private readonly bytes: Buffer,
    /** Where each batch starts and ends in `bytes`. */
    private readonly spans: readonly (readonly [number, number])[],
    readonly length: number,
  ) {}

  private batch(i: number): T[] {
    const [from, to] = this.spans[i]!;
    return JSON.parse(this.bytes.toString('utf8', from, to)) as T[];
  }

  /** Items `from` to `to` (not included), unpacking only the batches they lie in. */
  slice(from: number, to = this.length): T[] {
    const out: T[] = [];
    for (let b = Math.floor(from / batchSize); b * batchSize < Math.min(to, this.length); b++) {
      const items = this.batch(b);
      const first = Math.max(from - b * batchSize, 0);
      out.push(...items.slice(first, Math.min(to - b * batchSize, items.length)));
    }
    return out;
  }

  /** Every item, `size` at a time (across the packing's batches), a turn of the event loop after each. */
  async *batches(size = batchSize): AsyncGenerator<T[]> {
    let out: T[] = [];
    for (let b = 0; b < this.spans.length; b++) {
      for (const item of this.batch(b)) {
        out.push(item);
        if (out.length < size) continue;
        yield out;
        out = [];
        await nextTurn();
      }
    }
    if (out.length) yield out;
  }

  /** The whole list (tests, and what only a whole list answers), a batch per turn. */
  async all(): Promise<T[]> {
    const out: T[] = [];
    for await (const items of this.batches()) out.push(...items);
    return out;
  }
}

function unpackResult(packed: Uint8Array): PackedResult {
  const bytes = Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
  const spans: [number, number][] = [];
  for (let at = 0; at < bytes.length; ) {
    const end = bytes.indexOf(10, at);
    const to = end < 0 ? bytes.length : end;
    spans.push([at, to]);
    at = to + 1;
  }
  const head = JSON.parse(bytes.toString('utf8', spans[0]![0], spans[0]![1]));
  if (!head.ok) return head;
  const { sizes, ...rest } = head as { sizes: number[] };
  let next = 1;
  const list = <T>(n: number) => {
    const batches = Math.ceil(n / batchSize);
    next += batches;
    return new Packed<T>(bytes, spans.slice(next - batches, next), n);
  };
  const [lines, errors, warnings] = sizes as [number, number, number];
  return {
    ...(rest as Omit<Extract<PackedResult, { ok: true }>, 'lines' | 'errors' | 'warnings'>),
    lines: list<StatementLine>(lines),
    errors: list<RowError>(errors),
    warnings: list<BalanceGap>(warnings),
  };
}
