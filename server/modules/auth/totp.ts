import { and, eq, lt } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import type { Database, Db } from '../../db/index.ts';
import { users } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { errorForLog } from '../../lib/logger.ts';

/** RFC 6238 as Google Authenticator reads it: SHA-1, 6 digits, 30-second steps. */
const period = 30;

export const issuer = 'Paygate Console';

function totp(secretBase32: string, label = '') {
  return new OTPAuth.TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period,
    secret: OTPAuth.Secret.fromBase32(secretBase32),
  });
}

/** A new 160-bit seed in Base32. */
export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

export function otpauthUrl(secretBase32: string, username: string): string {
  return totp(secretBase32, username).toString();
}

/** The time step a code belongs to (one step either side of now), or null when it matches none. */
export function matchingStep(secretBase32: string, code: string, now: Date): number | null {
  const delta = totp(secretBase32).validate({ token: code, timestamp: now.getTime(), window: 1 });
  if (delta === null) return null;
  return Math.floor(now.getTime() / 1000 / period) + delta;
}

/** The code for a moment; for tests and the simulator only. */
export function codeAt(secretBase32: string, at: Date): string {
  return totp(secretBase32).generate({ timestamp: at.getTime() });
}

/**
 * Steps accepted inside a PGlite transaction that has not ended yet, per database and user: PGlite is one
 * session, so nothing can be written beside the caller's transaction; the step is written inside it and
 * again, by a statement queued behind it, once it ends; meanwhile this keeps it spent. PGlite serves one
 * process, so memory is enough for the gap.
 */
const pending = new WeakMap<Database, Map<number, number>>();

function pendingOf(database: Database): Map<number, number> {
  let map = pending.get(database);
  if (!map) {
    map = new Map();
    pending.set(database, map);
  }
  return map;
}

/** Whether `step` is later than any the user had accepted (`lastStep`, as the caller read it). */
export function stepUnspent(deps: Deps, userId: number, step: number, lastStep: number): boolean {
  if (step <= lastStep) return false;
  if (deps.database.engine === 'postgres') return true;
  return step > (pending.get(deps.database)?.get(userId) ?? Number.NEGATIVE_INFINITY);
}

/**
 * Records `step` as the user's last accepted step by compare-and-set (so two concurrent uses of one code
 * succeed at most once), and so that it stays recorded whatever becomes of the caller's transaction: an
 * action that accepted a code and then refused or failed has still shown the code, which must not work
 * again. On PostgreSQL the statement runs on its own pooled connection and commits at once; the caller
 * must not have written this user's row in its transaction (the statement would wait for it).
 */
async function spendStep(deps: Deps, tx: Db, userId: number, step: number): Promise<boolean> {
  const { database } = deps;
  const cas = (on: Db) =>
    on
      .update(users)
      .set({ totpLastStep: step })
      .where(and(eq(users.id, userId), lt(users.totpLastStep, step)))
      .returning({ id: users.id });
  if (database.engine === 'postgres') return (await cas(database.db)).length === 1;
  const spent = pendingOf(database);
  if ((spent.get(userId) ?? Number.NEGATIVE_INFINITY) >= step) return false;
  if (tx === database.db) return (await cas(tx)).length === 1;
  const before = spent.get(userId);
  spent.set(userId, step);
  const forget = () => {
    if (spent.get(userId) !== step) return;
    if (before === undefined) spent.delete(userId);
    else spent.set(userId, before);
  };
  if ((await cas(tx)).length !== 1) {
    forget();
    return false;
  }
  // Queued behind the caller's transaction (PGlite runs one at a time): a no-op after its commit, the
  // record again after its rollback.
  cas(database.db)
    .catch((err: unknown) =>
      deps.logger.warn({ userId, err: errorForLog(err) }, 'could not record a spent Google code step'),
    )
    .finally(forget);
  return true;
}

/** Accepts a code once: its step must be later than the last step this user had accepted (`spendStep`). */
export async function consumeTotp(
  deps: Deps,
  tx: Db,
  userId: number,
  secretBase32: string,
  code: string,
  now: Date,
): Promise<boolean> {
  const step = matchingStep(secretBase32, code, now);
  if (step === null) return false;
  return spendStep(deps, tx, userId, step);
}
