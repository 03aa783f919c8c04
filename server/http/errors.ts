import type { Errno } from '../../contract/errno.ts';

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
