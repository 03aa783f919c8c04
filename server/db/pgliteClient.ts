/**
 * What drizzle and `Database.raw` talk to on PGlite, in place of PGlite's own `query`, `exec` and
 * `transaction` (same locks, same results):
 * - One call into PGlite per statement (Parse, Bind, Describe, Execute and Sync together). PGlite's `query`
 *   makes six, the first two to describe the statement so that it can serialize the parameters by type;
 *   here they are the text node-postgres sends (its own `prepareValue`), so both engines bind alike. A
 *   transaction's BEGIN goes in the same call as its first statement (`execProtocol`).
 * - The database runs where its `Backend` says (pgliteBackend.ts): in this thread, or in one of its own.
 */
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  Mutex,
  protocol,
  type QueryOptions,
  type Results,
  TransactionAbortedError,
  types,
} from '@electric-sql/pglite';
import { type Backend, concat, threadLost } from './pgliteBackend.ts';

type BackendMessage = Parameters<Parameters<InstanceType<typeof protocol.Parser>['parse']>[1]>[0];
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue(v: unknown): string | Uint8Array | null;
};
const { serialize } = protocol;
const {
  CommandCompleteMessage,
  DataRowMessage,
  DatabaseError,
  NoticeMessage,
  NotificationResponseMessage,
  RowDescriptionMessage,
} = protocol.messages;

/** The commands whose count is of rows changed (PGlite's `affectedRows`). */
const rowChanging = new Set(['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE']);

/**
 * Who has the session. A single statement outside a transaction (a list page, a look-up, a job's claim)
 * goes before the transactions waiting for it: it holds the session for one call, a transaction for a
 * dozen or more (a payment's 16), so first come first served keeps a look-up behind every transaction
 * queued before it — shortest first keeps the look-up's tail within its bound while the transactions,
 * whose bound is four times the look-up's, wait a little longer. A transaction that has waited
 * `overtakenForMs` is not overtaken any more, so a stream of statements cannot starve it.
 */
export class SessionLock {
  #held = false;
  readonly #statements: (() => void)[] = [];
  readonly #transactions: { since: number; go: () => void }[] = [];

  constructor(readonly overtakenForMs = 50) {}

  isLocked(): boolean {
    return this.#held;
  }

  async run<T>(kind: 'statement' | 'transaction', fn: () => Promise<T>): Promise<T> {
    if (this.#held) {
      await new Promise<void>((go) => {
        if (kind === 'statement') this.#statements.push(go);
        else this.#transactions.push({ since: performance.now(), go });
      });
    } else this.#held = true;
    try {
      return await fn();
    } finally {
      this.#release();
    }
  }

  #release() {
    const oldest = this.#transactions[0];
    const next =
      oldest && (this.#statements.length === 0 || performance.now() - oldest.since >= this.overtakenForMs)
        ? this.#transactions.shift()!.go
        : this.#statements.shift();
    // Handed over while held: nobody arriving meanwhile slips in between.
    if (next) next();
    else this.#held = false;
  }
}

/** The part of PGlite's interface that drizzle, the migrator and `Database.raw` use. */
export class PgliteClient {
  /** PGlite's result parsers by type, with an array parser for each element type (as PGlite sets up). */
  readonly parsers: Record<number, (x: string, typeId?: number) => unknown> = { ...types.parsers };
  readonly #session = new SessionLock();
  readonly #queryLock = new Mutex();
  readonly #reader = new protocol.Parser();
  readonly #listeners = new Map<string, Set<(payload: string) => void>>();
  #inTransaction = false;
  /** A transaction's BEGIN, not yet sent: it goes in one call with the transaction's first statement. */
  #beginPending = false;
  /** The open transaction's thread (`Backend.restarts` as it began). */
  #transactionOn: number | undefined;
  /** When the session last finished a statement or transaction (`performance.now()`). */
  #lastUsed = 0;

  private constructor(readonly backend: Backend) {}

  static async open(backend: Backend): Promise<PgliteClient> {
    const client = new PgliteClient(backend);
    const arrays = await client.query<{ oid: number; typarray: number }>(
      `select b.oid, b.typarray from pg_catalog.pg_type a
       left join pg_catalog.pg_type b on b.oid = a.typelem
       where a.typcategory = 'A' group by b.oid, b.typarray order by b.oid`,
    );
    for (const t of arrays.rows) {
      const element = client.parsers[t.oid];
      client.parsers[t.typarray] = (x) => types.arrayParser(x, element as never, t.typarray);
    }
    return client;
  }

  /**
   * One call into PGlite: the messages (ending in Sync or a simple Query), the answer read back; the
   * first error is thrown, notices dropped, notifications handed to their listeners.
   */
  async execProtocol(message: Uint8Array, o: { syncToFs: boolean }): Promise<{ messages: BackendMessage[] }> {
    // A transaction whose thread was started again since it began is gone with it: what it sends now would
    // run outside any transaction, on the new one.
    if (this.#inTransaction && this.backend.restarts !== this.#transactionOn)
      throw threadLost('started again during the transaction');
    // In the server each call crosses to the database's thread and back, and the answer waits for the
    // server's thread: a transaction's BEGIN rides with its first call, whoever makes it (drizzle's
    // statements, or `Database.raw`'s, which come straight here), sparing every transaction one crossing.
    const begin = this.#beginPending;
    this.#beginPending = false;
    const sent = begin ? concat([serialize.query('BEGIN'), message]) : message;
    const data = await this.backend.exec(sent, o.syncToFs);
    const messages: BackendMessage[] = [];
    let error: InstanceType<typeof DatabaseError> | undefined;
    this.#reader.parse(data, (msg) => {
      if (msg instanceof DatabaseError) error ??= msg;
      else if (msg instanceof NotificationResponseMessage) {
        for (const cb of this.#listeners.get(msg.channel) ?? []) queueMicrotask(() => cb(msg.payload));
      } else if (!(msg instanceof NoticeMessage) && !error) messages.push(msg);
    });
    if (error) throw error;
    // BEGIN's own answer (its CommandComplete, then ReadyForQuery) is not the call's.
    if (begin) messages.splice(0, messages.findIndex((m) => m instanceof CommandCompleteMessage) + 1);
    return { messages };
  }

  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T> {
    return this.#queryLock.runExclusive(fn);
  }

  /** `fn` with the session to itself: one statement outside a transaction, or a whole transaction. */
  _runExclusiveTransaction<T>(
    fn: () => Promise<T>,
    kind: 'statement' | 'transaction' = 'statement',
  ): Promise<T> {
    return this.#session.run(kind, async () => {
      try {
        return await fn();
      } finally {
        this.#lastUsed = performance.now();
      }
    });
  }

  /**
   * Waits until nothing has used the session for `quietMs` (nor holds it, nor waits for it), or for
   * `maxMs` at most: what batch work calls between its transactions (`Database.giveWay`).
   */
  async giveWay(quietMs = 5, maxMs = 100): Promise<void> {
    const until = performance.now() + maxMs;
    for (;;) {
      const now = performance.now();
      // Held, or handed on to a waiter, the session is in use now: look again `quietMs` later (a release
      // sets `#lastUsed`, so the quiet is counted from it whenever it is seen).
      const quietFor = this.#session.isLocked() ? 0 : now - this.#lastUsed;
      if (quietFor >= quietMs || now >= until) return;
      await sleep(Math.min(quietMs - quietFor, until - now));
    }
  }

  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this._runExclusiveTransaction(() => this.#query<T>(text, params, options));
  }

  exec(text: string, options?: QueryOptions): Promise<Results[]> {
    return this._runExclusiveTransaction(() => this.#exec(text, options));
  }

  #query<T>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> {
    return this._runExclusiveQuery(async () => {
      const values = params.map((v) => prepareValue(v));
      const message = concat([
        serialize.parse({ text }),
        serialize.bind({ values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]);
      const { messages } = await this.#run(message, text, params);
      return this.#results(messages, options)[0] as Results<T>;
    });
  }

  #exec(text: string, options?: QueryOptions): Promise<Results[]> {
    return this._runExclusiveQuery(async () => {
      const { messages } = await this.#run(serialize.query(text), text, undefined);
      return this.#results(messages, options);
    });
  }

  /**
   * PGlite's `parseResults`, without copying every type's parser into a fresh map for each statement
   * (drizzle passes its own few with every query): a field's parser is the query's, else the client's.
   */
  #results(messages: BackendMessage[], options?: QueryOptions): Results[] {
    const out: Results[] = [];
    const own = options?.parsers as Record<number, (x: string, typeId: number) => unknown> | undefined;
    const asArrays = options?.rowMode === 'array';
    let fields: { name: string; dataTypeID: number }[] = [];
    let parsers: (((x: string, typeId: number) => unknown) | undefined)[] = [];
    let rows: unknown[] = [];
    let affectedRows = 0;
    for (const m of messages) {
      if (m instanceof RowDescriptionMessage) {
        fields = m.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }));
        parsers = fields.map((f) => own?.[f.dataTypeID] ?? this.parsers[f.dataTypeID]);
      } else if (m instanceof DataRowMessage) {
        const values = m.fields.map((v, i) => {
          const parser = parsers[i];
          return v === null || !parser ? v : parser(v, fields[i]!.dataTypeID);
        });
        rows.push(asArrays ? values : Object.fromEntries(fields.map((f, i) => [f.name, values[i]])));
      } else if (m instanceof CommandCompleteMessage) {
        const words = m.text.split(' ');
        const command = words[0]!;
        const count = Number.parseInt(words.at(-1)!, 10);
        if (rowChanging.has(command)) affectedRows += count;
        out.push({
          rows,
          fields,
          command,
          affectedRows,
          ...(Number.isNaN(count) ? {} : { rowCount: count }),
        } as Results);
        fields = [];
        parsers = [];
        rows = [];
      }
    }
    if (out.length === 0) out.push({ affectedRows: 0, rows: [], fields: [] });
    return out;
  }

  async #run(message: Uint8Array, text: string, params: unknown[] | undefined) {
    try {
      return await this.execProtocol(message, { syncToFs: !this.#inTransaction });
    } catch (e) {
      // As PGlite's own errors: the statement and its parameters beside the database's error.
      if (e instanceof DatabaseError) Object.assign(e, { query: text, params });
      throw e;
    }
  }

  /** PGlite's `transaction`: BEGIN (with the first statement), the callback's statements, COMMIT (ROLLBACK when it throws). */
  transaction<T>(callback: (tx: PgliteTransaction) => Promise<T>): Promise<T> {
    return this._runExclusiveTransaction(async () => {
      this.#beginPending = true;
      this.#inTransaction = true;
      this.#transactionOn = this.backend.restarts;
      let closed = false;
      const open = () => {
        if (closed) throw new Error('Transaction is closed');
      };
      const tx: PgliteTransaction = {
        query: async (text, params, options) => {
          open();
          return this.#query(text, params, options);
        },
        exec: async (text, options) => {
          open();
          return this.#exec(text, options);
        },
        rollback: async () => {
          open();
          await this.#exec('ROLLBACK');
          closed = true;
        },
        get closed() {
          return closed;
        },
      };
      try {
        const result = await callback(tx);
        if (!closed) {
          closed = true;
          const [commit] = await this.#exec('COMMIT');
          // COMMIT of a transaction a failed statement aborted answers ROLLBACK.
          if ((commit as { command?: string } | undefined)?.command === 'ROLLBACK') {
            throw new TransactionAbortedError();
          }
        }
        return result;
      } catch (e) {
        if (!closed) {
          closed = true;
          await this.#exec('ROLLBACK');
        }
        throw e;
      } finally {
        this.#inTransaction = false;
        this.#beginPending = false;
      }
    }, 'transaction');
  }

  /** LISTEN on `channel`; `callback` gets each notification's payload (in a microtask, as PGlite does). */
  async listen(channel: string, callback: (payload: string) => void): Promise<void> {
    const set = this.#listeners.get(channel) ?? new Set();
    this.#listeners.set(channel, set.add(callback));
    await this.exec(`LISTEN ${channel}`);
  }

  /** The data directory as a tarball, where PGlite runs in this thread (the tests' template). */
  dumpDataDir(compression: 'none'): Promise<Blob> {
    if (!this.backend.dumpDataDir) throw new Error('the database runs in its own thread: no dump here');
    return this.backend.dumpDataDir(compression);
  }

  /** Waits for what is running, then closes the database. */
  close(): Promise<void> {
    return this._runExclusiveTransaction(
      () => this._runExclusiveQuery(() => this.backend.close()),
      'transaction',
    );
  }
}

export interface PgliteTransaction {
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(text: string, options?: QueryOptions): Promise<Results[]>;
  rollback(): Promise<void>;
  readonly closed: boolean;
}
