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
  /** The path is an endpoint, but not of this method (HTTP 405 with `Allow`). */
  methodNotAllowed: 405,
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
  /**
   * Risk rules (1070–1079, docs/MONEY-BACK.md section 4). A blocklist entry refuses the request (`data.rule`
   * names its kind, never the value): nothing is created.
   */
  riskBlocked: 1070,
  /** The merchant's per-payer day limit (count or amount, `data.rule`) is reached: nothing is created. */
  velocityExceeded: 1071,
} as const;

export type Errno = (typeof errno)[keyof typeof errno];

export const allErrnos: readonly Errno[] = Object.values(errno);

/**
 * The HTTP status beside each errno, so a load balancer, a log pipeline, a monitor or a generated client
 * reads the outcome the envelope says (DECISIONS.md, issue 29). 200 only for success; a refused proof of
 * who the caller is (a session, a password, a code, a ticket) is 401, as is the second step a sign-in
 * still needs (1002: GitHub answers its one-time-password challenge so); an action sent to a second person
 * is accepted, not done (202); a refusal by the caller's authority is 403; a refusal by the state of what
 * the request names is 409; a request the rules refuse as asked is 422; one sent too soon is 429. The
 * gateway answers the same statuses (GATEWAY.md): a payout over the balance and a pay-in no channel takes
 * stay 422 there, as merchants were told.
 */
export const httpStatus: Readonly<Record<Errno, number>> = {
  0: 200,
  400: 400,
  401: 401,
  403: 403,
  404: 404,
  405: 405,
  409: 409,
  413: 413,
  415: 415,
  422: 422,
  429: 429,
  500: 500,
  503: 503,
  501: 401,
  506: 401,
  1001: 401,
  1002: 401,
  1003: 401,
  1004: 403,
  1005: 403,
  1006: 401,
  1007: 422,
  1008: 401,
  1009: 409,
  1010: 409,
  1011: 403,
  1012: 409,
  1013: 403,
  1014: 403,
  1015: 403,
  1016: 401,
  1017: 429,
  1018: 409,
  1019: 422,
  1020: 409,
  1021: 409,
  1022: 401,
  1030: 422,
  1031: 404,
  1032: 409,
  1033: 422,
  1034: 409,
  1040: 403,
  1041: 409,
  1042: 409,
  1043: 202,
  1050: 422,
  1051: 409,
  1052: 409,
  1060: 409,
  1061: 409,
  1070: 403,
  1071: 429,
};
