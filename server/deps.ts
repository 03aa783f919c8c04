import type { Config } from './config.ts';
import type { Database } from './db/index.ts';
import type { Clock } from './lib/clock.ts';
import type { Sealer } from './lib/crypto.ts';
import type { Logger } from './lib/logger.ts';
import type { Mailer } from './lib/mail.ts';
import type { RateLimiter } from './lib/rateLimit.ts';

/** What the server's handlers share; built once in main.ts, or by a test with its own clock. */
export interface Deps {
  config: Config;
  database: Database;
  clock: Clock;
  mailer: Mailer;
  sealer: Sealer;
  logger: Logger;
  /** Sign-in attempts per client address. */
  authLimiter: RateLimiter;
}
