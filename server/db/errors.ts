/** What a database error means: a lost connection, an outage the callers are told of, a SQLSTATE. */
/** An error and what it wraps, four deep (drizzle wraps the driver's error in its own). */
export function* causes(err: unknown): Generator<unknown> {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++)
    yield e;
}

/**
 * How long a statement or transaction that lost its connection keeps being tried again before the caller is
 * told the database is unavailable: long enough for a restart or a failover to a standby, short enough for
 * an HTTP client still to be waiting.
 */
export const outageBudgetMs = 16_000;

/** The pause before the `n`th try (from 0) after a lost connection: 50 ms doubling to 1 s, with jitter. */
export const outagePause = (n: number) => {
  const ms = Math.min(1_000, 50 * 2 ** n);
  return new Promise((r) => setTimeout(r, ms / 2 + Math.random() * (ms / 2)));
};

/** SQLSTATEs of a connection the server ended or refused: admin/crash shutdown, cannot connect now. */
const lostStates = new Set(['57P01', '57P02', '57P03']);
/** Node's socket errors. */
const lostCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** pg's own errors for a connection that went away (they carry no code). */
const lostMessages = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'terminating connection due to administrator command',
  'Client has encountered a connection error and is not queryable',
  'Connection terminated due to connection timeout',
]);

/**
 * True when `err` (or what it wraps, as drizzle wraps the driver's errors) says the connection to the
 * database was lost or could not be made: the statement's outcome is the connection's, not the data's.
 */
export function isConnectionLost(err: unknown): boolean {
  for (const e of causes(err)) {
    if (e instanceof DatabaseUnavailable) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (lostStates.has(code) || code.startsWith('08') || lostCodes.has(code)))
      return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && lostMessages.has(message)) return true;
  }
  return false;
}

/**
 * The database could not be reached for `outageBudgetMs` (`outcome: 'not applied'`: nothing was
 * committed), or the connection was lost while a COMMIT or an autocommitted write was on its way
 * (`outcome: 'unknown'`: it may have taken effect). Never retried by `retrying`: the caller's own retry is
 * safe only where the write is idempotent (a pay-in by its merchant order number) or checked (console
 * writes refuse what is already done). The API answers it with HTTP 503, `errno.databaseUnavailable`.
 */
export class DatabaseUnavailable extends Error {
  constructor(
    readonly outcome: 'not applied' | 'unknown',
    cause: unknown,
  ) {
    super(
      outcome === 'unknown'
        ? 'the connection to the database was lost while a write was being committed: its outcome is unknown'
        : 'the database is unavailable',
      { cause },
    );
  }
}

/** The `DatabaseUnavailable` in `err` or what it wraps. */
export function unavailableIn(err: unknown): DatabaseUnavailable | undefined {
  for (const e of causes(err)) if (e instanceof DatabaseUnavailable) return e;
  return undefined;
}

/** Whether an API call that failed with `err` should answer 503 (the database is down), not 500. */
export const isDatabaseUnavailable = (err: unknown): boolean => isConnectionLost(err);

/** SQLSTATE of a database error, looking through the ORM's wrapper. */
export function sqlState(err: unknown): string | undefined {
  for (const e of causes(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}
