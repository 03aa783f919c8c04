import { type Errno, errno } from '../../contract/errno.ts';

/** A business refusal thrown from a handler: the transaction rolls back and the errno is answered. */
export class AppError extends Error {
  constructor(
    readonly errno: Errno,
    readonly data: unknown = null,
    /** Extra words for the log, never shown to the caller. */
    readonly note?: string,
  ) {
    super(`errno ${errno}${note ? `: ${note}` : ''}`);
  }
}

/**
 * A refusal returned (not thrown) from a handler: what the handler wrote is committed, then the errno
 * is answered. For refusals that must leave a trace, such as a counted failed sign-in.
 */
export class Refusal {
  constructor(
    readonly errno: Errno,
    readonly data: unknown = null,
  ) {}
}

export function refuse(code: Errno, data: unknown = null): Refusal {
  return new Refusal(code, data);
}

/** A row the request names must exist: 404 otherwise (never 403, which would tell that it exists). */
export function found<T>(row: T | undefined): T {
  if (!row) throw new AppError(errno.notFound);
  return row;
}

/** The first row a query for what the request names answers, which must exist: 404 otherwise. */
export async function foundOne<T>(rows: PromiseLike<T[]>): Promise<T> {
  const [row] = await rows;
  return found(row);
}
