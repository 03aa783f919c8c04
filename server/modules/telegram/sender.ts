/**
 * Sends recorded Telegram deliveries through the Bot API's `sendMessage` at `TELEGRAM_API_URL`, outside
 * any transaction: a due delivery is claimed (its next attempt pushed a minute ahead, so a sender that dies
 * mid-call leaves it to another), sent, and settled. Telegram's ok → sent; a 5xx, a network failure or 429
 * (waiting at least its `retry_after`) → the next attempt on the schedule, or given up when the schedule
 * has run out; any other 4xx (a wrong chat, a bot thrown out of the group) → given up at once.
 *
 * At least once: a sender that dies between Telegram's ok and recording it leaves the delivery to be sent
 * again when the claim lapses (the Bot API has no idempotency key). A repeated alert is the lesser harm.
 *
 * The request URL carries the bot token (`/bot<token>/sendMessage`): no error text is stored or logged
 * before the token is taken out of it.
 */
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import { telegramDelivery } from '../../../contract/machines.ts';
import { telegramApiUrlOf } from '../../config.ts';
import { inTransaction } from '../../db/index.ts';
import { telegramBot, telegramDeliveries, telegramGroups } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';

/** Seconds before the 2nd, 3rd, … attempt; after the last, the delivery is given up (6 attempts, ~2.6 h). */
export const telegramSchedule: readonly number[] = [10, 60, 300, 1800, 7200];
const claimMs = 60_000;
const attemptTimeoutMs = 15_000;
/** The longest `retry_after` honoured: beyond it the schedule decides. */
const maxRetryAfterMs = 6 * 3600_000;

type Delivery = typeof telegramDeliveries.$inferSelect;

export interface SendResult {
  ok: boolean;
  /** True when retrying cannot help (a 4xx other than 429). */
  final: boolean;
  error: string | null;
  retryAfterMs: number | null;
}

/** The sealed token opened, or null when no bot is set. */
export async function botToken(deps: Pick<Deps, 'database' | 'sealer'>): Promise<string | null> {
  const [bot] = await deps.database.db.select().from(telegramBot).where(eq(telegramBot.id, 1));
  return bot ? deps.sealer.open(bot.tokenSealed) : null;
}

/** An error's words without the token (nor the URL around it), cut to what the list shows. */
export function withoutToken(text: string, token: string): string {
  return text.split(token).join('[token]').slice(0, 500);
}

/** One `sendMessage`; never throws. */
export async function sendMessage(
  deps: Pick<Deps, 'config'>,
  token: string,
  chatId: string,
  text: string,
): Promise<SendResult> {
  const url = `${telegramApiUrlOf(deps.config)}/bot${token}/sendMessage`;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: chatId, text, disable_web_page_preview: true }),
      redirect: 'error',
      signal: AbortSignal.timeout(attemptTimeoutMs),
    });
    const body = (await res.json().catch(() => null)) as {
      ok?: boolean;
      description?: string;
      parameters?: { retry_after?: number };
    } | null;
    if (res.ok && body?.ok) return { ok: true, final: false, error: null, retryAfterMs: null };
    const retryAfter = body?.parameters?.retry_after;
    return {
      ok: false,
      final: res.status >= 400 && res.status < 500 && res.status !== 429,
      error: withoutToken(`HTTP ${res.status}${body?.description ? `: ${body.description}` : ''}`, token),
      retryAfterMs:
        res.status === 429 && typeof retryAfter === 'number' && retryAfter >= 0
          ? Math.min(retryAfter * 1000, maxRetryAfterMs)
          : null,
    };
  } catch (err) {
    // fetch's own words ("fetch failed") say little; its cause names the refusal or the timeout.
    const e = err as Error & { cause?: { message?: string; code?: string } };
    const cause = e.cause?.code ?? e.cause?.message;
    return {
      ok: false,
      final: false,
      error: withoutToken(
        `${e.name === 'TimeoutError' ? 'timeout' : e.message}${cause ? `: ${cause}` : ''}`,
        token,
      ),
      retryAfterMs: null,
    };
  }
}

/** Records an attempt's outcome; answers the delivery as it now stands. */
async function settle(deps: Pick<Deps, 'database' | 'clock'>, d: Delivery, r: SendResult, at: Date) {
  const attempts = d.attempts + 1;
  const wait = telegramSchedule[attempts - 1];
  const giveUp = !r.ok && (r.final || wait === undefined);
  const set = r.ok
    ? { status: telegramDelivery.to('send')!, sentAt: at, attempts, lastError: null }
    : giveUp
      ? { status: telegramDelivery.to('giveUp')!, attempts, lastError: r.error }
      : {
          attempts,
          lastError: r.error,
          nextAttemptAt: new Date(at.getTime() + Math.max(wait! * 1000, r.retryAfterMs ?? 0)),
        };
  const [row] = await deps.database.db
    .update(telegramDeliveries)
    .set(set)
    .where(
      and(
        eq(telegramDeliveries.id, d.id),
        inStates(telegramDeliveries.status, telegramDelivery.from('send')),
      ),
    )
    .returning();
  return row ?? d;
}

/** Sends one claimed delivery to its group and settles it. */
export async function deliver(
  deps: Pick<Deps, 'database' | 'clock' | 'config' | 'sealer' | 'logger'>,
  d: Delivery,
  token: string,
): Promise<Delivery> {
  const [g] = await deps.database.db
    .select({ chatId: telegramGroups.chatId, status: telegramGroups.status })
    .from(telegramGroups)
    .where(eq(telegramGroups.id, d.groupId));
  const at = deps.clock.now();
  // A group disabled meanwhile does not get its backlog when it is enabled again.
  const result: SendResult =
    g?.status === 'active'
      ? await sendMessage(deps, token, g.chatId, d.text)
      : { ok: false, final: true, error: 'group disabled', retryAfterMs: null };
  const row = await settle(deps, d, result, at);
  if (row.status === telegramDelivery.state.gave_up)
    deps.logger.warn({ delivery: d.id, group: d.groupId, error: result.error }, 'telegram delivery gave up');
  return row;
}

/** Claims due deliveries (skipping those another sender holds), oldest first. */
async function claimDue(deps: Pick<Deps, 'database' | 'clock'>, limit: number, ids?: readonly number[]) {
  const now = deps.clock.now();
  return inTransaction(deps.database.db, async (tx) => {
    const due = await tx
      .select({ id: telegramDeliveries.id })
      .from(telegramDeliveries)
      .where(
        and(
          inStates(telegramDeliveries.status, telegramDelivery.from('send')),
          ids ? inArray(telegramDeliveries.id, [...ids]) : lte(telegramDeliveries.nextAttemptAt, now),
        ),
      )
      .orderBy(asc(telegramDeliveries.nextAttemptAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    if (!due.length) return [];
    return tx
      .update(telegramDeliveries)
      .set({ nextAttemptAt: new Date(now.getTime() + claimMs) })
      .where(
        inArray(
          telegramDeliveries.id,
          due.map((r) => r.id),
        ),
      )
      .returning();
  });
}

/**
 * One pass of the sender: sends every due delivery (up to `limit`) and answers how many it tried. Without
 * a bot token nothing is sent; the deliveries wait for one.
 */
export async function sendDueTelegram(
  deps: Pick<Deps, 'database' | 'clock' | 'config' | 'sealer' | 'logger'>,
  limit = 20,
): Promise<number> {
  const token = await botToken(deps);
  if (!token) return 0;
  // Claimed and sent one at a time (Telegram allows a bot about one message a second per chat): a claim
  // outlives one attempt's timeout, never a batch of them, after which another sender would send it too.
  let tried = 0;
  for (; tried < limit; tried++) {
    const [d] = await claimDue(deps, 1);
    if (!d) break;
    await deliver(deps, d, token);
  }
  return tried;
}

/** Sends one pending delivery now, whatever its schedule says (a test message, "retry now"). */
export async function sendNow(
  deps: Pick<Deps, 'database' | 'clock' | 'config' | 'sealer' | 'logger'>,
  id: number,
  token: string,
): Promise<Delivery | null> {
  const [d] = await claimDue(deps, 1, [id]);
  return d ? deliver(deps, d, token) : null;
}
