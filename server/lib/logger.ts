import pino from 'pino';

/** Structured JSON log. Request lines carry ids and outcomes, never bodies, tokens or query strings. */
export function createLogger(level: string) {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: [
        '*.password',
        '*.token',
        '*.secret',
        '*.code',
        'headers["admin-token"]',
        'headers.cookie',
        'err.config',
      ],
      censor: '[redacted]',
    },
  });
}
export type Logger = ReturnType<typeof createLogger>;
