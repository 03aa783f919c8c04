/**
 * Read replica (docs/DECISIONS.md, "Read replica (issue 16)"). With `DATABASE_REPLICA_URL`, reports,
 * exports and list totals read from a streaming replica; everything else, and every read of a caller whose
 * own last write the replica has not replayed yet, from the primary. `withReader` is the one way a handler
 * chooses: nothing else in a module decides where it reads.
 *
 * Read-your-writes without shared state: after a console session's write commits, the answer sets the
 * cookie `rlsn` to the primary's WAL position (`pg_current_wal_lsn()`, read after the commit, so the commit
 * record lies before it). A routed read carrying one goes to the replica only once its replay position
 * (`pg_last_wal_replay_lsn()`) has reached it. Any worker of any server can decide that from the request
 * alone; a forged position only moves its own caller between two correct answers.
 */
import type { Db } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { errorForLog } from '../lib/logger.ts';
import { AppError } from './errors.ts';
import type { RequestMeta } from './handle.ts';

/** The cookie holding the caller's last write position. */
export const writePositionCookie = 'rlsn';

/** A WAL position `X/Y` (two hexadecimal halves) as one number; null for anything else. */
export function lsnValue(text: string | null | undefined): bigint | null {
  const m = text ? /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text) : null;
  return m ? (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`) : null;
}

/** The write position a request carries in its `rlsn` cookie, if any (`RequestMeta.readAfter`). */
export function readAfterOf(cookieHeader: string | undefined): bigint | undefined {
  if (!cookieHeader) return undefined;
  const m = /(?:^|;\s*)rlsn=([0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8})(?:;|$)/.exec(cookieHeader);
  return lsnValue(m?.[1]) ?? undefined;
}

/**
 * The `Set-Cookie` header an answer to a committed console write carries: the primary's WAL position
 * now. Nothing without a replica (no cookie, no statement). A session cookie (no expiry), HttpOnly and
 * limited to the API; not secret (a position says nothing about the data).
 */
export async function writePositionHeader(deps: Deps): Promise<Record<string, string> | undefined> {
  const { database } = deps;
  if (!database.replica) return undefined;
  try {
    const [row] = await database.raw(database.db, 'select pg_current_wal_lsn()::text', [], { name: true });
    const lsn = row?.[0];
    if (!lsn || lsnValue(lsn) === null) return undefined;
    return { 'set-cookie': `${writePositionCookie}=${lsn}; Path=/api; HttpOnly; SameSite=Strict` };
  } catch (err) {
    // The write is committed: its answer stands; the next reads may then be a moment behind it.
    deps.logger.warn({ err: errorForLog(err) }, 'could not read the write position for the read replica');
    return undefined;
  }
}

/** How long a replay position read from the replica decides for callers ahead of it. */
const replayFreshMs = 20;
/** How long after a failure the replica is left alone (its reads go to the primary). */
const restMs = 5_000;

interface ReplicaState {
  /** The replay position last read (it only moves forward), null while unknown or not a standby. */
  replayed: bigint | null;
  readAt: number;
  reading: Promise<bigint | null> | undefined;
  restUntil: number;
}
const states = new WeakMap<Db, ReplicaState>();

function stateOf(replica: Db): ReplicaState {
  let s = states.get(replica);
  if (!s) {
    s = { replayed: null, readAt: 0, reading: undefined, restUntil: 0 };
    states.set(replica, s);
  }
  return s;
}

function rest(deps: Deps, s: ReplicaState, err: unknown) {
  const quiet = Date.now() < s.restUntil;
  s.restUntil = Date.now() + restMs;
  if (!quiet)
    deps.logger.warn(
      { err: errorForLog(err) },
      'the read replica failed: its reads go to the primary for now',
    );
}

/** Its replay position, read at most once per `replayFreshMs` per process (one read shared by callers). */
function replayPosition(deps: Deps, replica: Db, s: ReplicaState): Promise<bigint | null> {
  if (Date.now() - s.readAt < replayFreshMs) return Promise.resolve(s.replayed);
  s.reading ??= deps.database
    .raw(replica, 'select pg_last_wal_replay_lsn()::text', [], { name: true })
    .then(([row]) => {
      // Null: not (or no longer) a standby, so nothing says it holds the caller's write.
      s.replayed = lsnValue(row?.[0]);
      s.readAt = Date.now();
      return s.replayed;
    })
    .finally(() => {
      s.reading = undefined;
    });
  return s.reading;
}

/**
 * The handle a routed read uses now: the replica, unless there is none, it is resting after a failure, or
 * the caller's last write lies beyond what it has replayed.
 */
export async function readerFor(deps: Deps, req: Pick<RequestMeta, 'readAfter'>): Promise<Db> {
  const { db, replica } = deps.database;
  if (!replica) return db;
  const s = stateOf(replica);
  if (Date.now() < s.restUntil) return db;
  const after = req.readAfter;
  if (after === undefined || (s.replayed !== null && s.replayed >= after)) return replica;
  try {
    const replayed = await replayPosition(deps, replica, s);
    return replayed !== null && replayed >= after ? replica : db;
  } catch (err) {
    rest(deps, s, err);
    return db;
  }
}

/**
 * Runs a routed read (a report, an export's first batch, a list's totals) on `readerFor`'s handle. When the
 * replica fails it (down, a recovery conflict, anything but the handler's own refusal), the read runs again
 * on the primary and the replica rests a few seconds: a warning in the log, never a 500 of its making. An
 * export's later batches stay on the handle its first was read from.
 */
export async function withReader<T>(
  ctx: { deps: Deps; req: Pick<RequestMeta, 'readAfter'> },
  read: (db: Db) => Promise<T>,
): Promise<T> {
  const { deps } = ctx;
  const db = await readerFor(deps, ctx.req);
  if (db === deps.database.db) return read(db);
  try {
    return await read(db);
  } catch (err) {
    if (err instanceof AppError) throw err;
    rest(deps, stateOf(db), err);
    return read(deps.database.db);
  }
}
