import pino from 'pino';
import { redactUrlSecrets, withoutUrlSecrets } from './redact.ts';

/**
 * Structured JSON log. Request lines carry ids and outcomes, never bodies, tokens or query strings; any
 * URL that still reaches a line (an error's message, say) has its secret query values replaced.
 */
export function createLogger(level: string, destination?: pino.DestinationStream) {
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    formatters: { log: (line) => withoutUrlSecrets(line) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? redactUrlSecrets(a) : a)) as never);
      },
    },
    redact: {
      paths: [
        '*.password',
        '*.token',
        '*.secret',
        '*.code',
        '*.privateKey',
        'headers["admin-token"]',
        'headers.cookie',
        'err.config',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
export type Logger = ReturnType<typeof createLogger>;

/**
 * An error as the log may hold it: its type, SQLSTATE, the innermost message and the stack frames.
 * Never the outer message of a failed query, which carries the query's parameters (hashes, secrets).
 */
export function errorForLog(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: redactUrlSecrets(String(err).slice(0, 300)) };
  let inner: unknown = err;
  let sqlState: string | undefined;
  for (let depth = 0; depth < 5 && inner instanceof Error; depth++) {
    const code = (inner as { code?: unknown }).code;
    if (!sqlState && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) sqlState = code;
    const cause: unknown = (inner as { cause?: unknown }).cause;
    if (!(cause instanceof Error)) break;
    inner = cause;
  }
  const frames = (err.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at '));
  return {
    type: err.constructor.name,
    sqlState,
    message: redactUrlSecrets(
      inner === err && sqlState === undefined && !/Failed query/.test(err.message)
        ? err.message.slice(0, 300)
        : (inner as Error).message.slice(0, 300),
    ),
    frames: frames.slice(0, 8).map((f) => f.trim()),
  };
}
