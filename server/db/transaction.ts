/** Transactions that never hand a lost race to their caller, and work run once they commit or end. */
import {
  DatabaseUnavailable,
  isConnectionLost,
  outageBudgetMs,
  outagePause,
  sqlState,
  unavailableIn,
} from './errors.ts';
import { feeds } from './feed.ts';
import type { Db, Tx } from './index.ts';

const retryable = new Set(['40001', '40P01']);

/**
 * Thrown inside `inTransaction` to roll the transaction back and run it again from the start, like a
 * serialization failure: for work that found out, too late to undo it otherwise, that it lost a race.
 */
export class RetryTransaction extends Error {}

/** Work to run once a transaction begun by `inTransaction` commits, by its handle. */
const commitHooks = new WeakMap<object, Array<() => void>>();

/**
 * Runs `fn` once what `on` read is committed: at once on a database handle, after the commit for a
 * transaction begun by `inTransaction`, and never for any other transaction (nor when it rolls back).
 * For caches filled inside a transaction, which may have read its own uncommitted writes.
 */
export function whenCommitted(on: Db, fn: () => void): void {
  if (feeds.has(on)) fn();
  else commitHooks.get(on)?.push(fn);
}

/**
 * Runs `fn` again, after a short random pause, when it lost a race: a serialization failure, a deadlock,
 * or `RetryTransaction`; at most `attempts` times. `inTransaction` runs each transaction so; a write made
 * without one (the gateway's pay-in creation) is run so directly.
 *
 * A lost connection (`isConnectionLost`: the server restarted, or failed over) is tried again too, with
 * pauses growing to 1 s, for up to `outageBudgetMs`, then `DatabaseUnavailable`. It reaches this point
 * only when nothing was committed: a transaction cut before its COMMIT (the server rolls it back), a
 * connection refused; `inTransaction` turns a cut during the COMMIT, and the pool a cut autocommitted
 * write, into `DatabaseUnavailable` with an unknown outcome, which is never tried again.
 */
export async function retrying<T>(fn: (attempt: number) => Promise<T>, attempts = 8): Promise<T> {
  // Races lost so far (limited by `attempts`), and since when and how often the connection was lost.
  let races = 0;
  let lostSince = 0;
  let lost = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (isConnectionLost(err)) {
        // Already tried for the whole budget, or cut during a COMMIT: the caller decides.
        const given = unavailableIn(err);
        if (given) throw given;
        if (!lostSince) lostSince = Date.now();
        else if (Date.now() - lostSince >= outageBudgetMs) throw new DatabaseUnavailable('not applied', err);
        await outagePause(lost++);
        continue;
      }
      const again = err instanceof RetryTransaction || retryable.has(sqlState(err) ?? '');
      if (!again || ++races >= attempts) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** races));
    }
  }
}

/** Work to run once a transaction begun by `inTransaction` has ended, committed or rolled back. */
const endHooks = new WeakMap<object, Array<() => Promise<void>>>();

/**
 * Runs `fn` once the transaction `on` has ended, whether it committed or rolled back, before
 * `inTransaction` answers (or throws): for what must hold whatever becomes of the work around it (a Google
 * code an action accepted stays spent). Nothing for a database handle or another transaction.
 */
export function whenEnded(on: Db, fn: () => Promise<void>): void {
  endHooks.get(on)?.push(fn);
}

/**
 * Runs `fn` in one transaction, retrying it from the start on serialization failures and deadlocks
 * (and `RetryTransaction`), so that no 40001 / 40P01 ever reaches a caller. When the transaction changed
 * a watched table, it returns once the change feed's hand-over to sibling processes is done.
 */
export function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>, attempts = 8): Promise<T> {
  return retrying(async () => {
    const hooks: Array<() => void> = [];
    const ended: Array<() => Promise<void>> = [];
    let out: T;
    // Set once `fn` is done: drizzle sends the COMMIT next. A connection lost from then on leaves the
    // outcome unknown, so that is never tried again (see `retrying` for the rest).
    let committing = false;
    try {
      out = await db.transaction(async (tx) => {
        commitHooks.set(tx, hooks);
        endHooks.set(tx, ended);
        const r = await fn(tx);
        committing = true;
        return r;
      });
    } catch (err) {
      if (committing && isConnectionLost(err) && !unavailableIn(err))
        throw new DatabaseUnavailable('unknown', err);
      throw err;
    } finally {
      for (const hook of ended) await hook();
    }
    for (const hook of hooks) hook();
    const feed = feeds.get(db);
    if (feed) await feed.settled();
    return out;
  }, attempts);
}
