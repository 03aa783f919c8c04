/**
 * The errno catalogue of the admin API envelope `{errno, errmsg, data}`.
 * Each code's message lives in `locales/*.json` under `errno.<code>`; a test keeps the two in step.
 */
export const errno = {
  ok: 0,
  badRequest: 400,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  unsupportedMediaType: 415,
  invalid: 422,
  /** A body over the endpoint's limit (HTTP 413), refused while it was being read. */
  payloadTooLarge: 413,
  tooManyRequests: 429,
  internal: 500,
  /**
   * The database could not be reached (restarting, failing over) after the server's own retries: HTTP 503
   * with `Retry-After`. A write cut during its commit may have been applied: retry idempotently.
   */
  databaseUnavailable: 503,
  /** Gateway: signature, timestamp or nonce refused. */
  unauthenticated: 401,
  notSignedIn: 501,
  sessionExpired: 506,
  badCredentials: 1001,
  secondStepNeeded: 1002,
  badCode: 1003,
  accountLocked: 1004,
  accountDisabled: 1005,
  wrongOldPassword: 1006,
  noEmail: 1007,
  codeExpired: 1008,
  googleAlreadyBound: 1009,
  googleNotBound: 1010,
  bindGoogleFirst: 1011,
  usernameTaken: 1012,
  cannotGrant: 1013,
  builtinRole: 1014,
  notYourself: 1015,
  ticketInvalid: 1016,
  codeTooSoon: 1017,
  roleNameTaken: 1018,
  insufficientBalance: 1019,
  /** The last owner of a merchant, or the last platform super administrator, must stay. */
  lastAdministrator: 1020,
  /** A recharge reference the merchant already used (a bank transfer credits once). */
  referenceTaken: 1021,
  /** `session` sent for a Google code, but the caller's money session is not open (ended, or never opened). */
  moneySessionClosed: 1022,
  /** Pay-ins (1030–1039). */
  noChannel: 1030,
  utrNotFound: 1031,
  utrUsed: 1032,
  utrMismatch: 1033,
  noCallback: 1034,
  /** Money out (1040–1049). The same user may not do both halves of a two-person action. */
  sameUser: 1040,
  /** A request for this object already waits for a second person's approval. */
  approvalPending: 1041,
  /** The object is on a live withdrawal slip: void the slip or drop its line first. */
  onSlip: 1042,
  /**
   * Not run: recorded as a request a second platform user approves (maker–checker). A refusal that
   * commits (the request, the code's use) and carries `{approvalId}`.
   */
  approvalRequested: 1043,
  /** Bank statements (1050–1059). The file has rows that cannot be read (`data.rows`): nothing was saved. */
  statementRows: 1050,
  /**
   * The UTR is on a line of a person's statement (an upload or a paste): paying with it is posting that
   * line from the exception queue, a money decision (`data.lineId`), not a supplement.
   */
  statementNeedsPosting: 1051,
  /** This user is importing a statement already (one at a time each): wait for it to finish. */
  statementImportRunning: 1052,
  /** Telegram alerts (1060–1063). No bot token is set: nothing can be sent. */
  telegramNoBot: 1060,
  /** The Telegram group is disabled: enable it before sending it a test message. */
  telegramGroupDisabled: 1061,
} as const;

export type Errno = (typeof errno)[keyof typeof errno];

export const allErrnos: readonly Errno[] = Object.values(errno);
