/**
 * Bank feeds (docs/STATEMENTS.md "Bank feed (SFTP)"): the `statement-feed` job polls each enabled feed's
 * SFTP folder, takes the files matching its pattern that stood still since the previous poll (same size
 * and time: a file still being written waits), downloads each (at most 10 MB) and imports it as the bank's
 * own statement (`source: feed`: its lines pay by themselves) in the name of the user who saved the feed,
 * once per content (`statement_feed_files`, unique SHA-256 per feed). A refused file is recorded with its
 * reason and alerted once; a feed that cannot be read counts its failures and alerts at the first and then
 * at most once an hour. One poll of a feed at a time across server processes: a compare-and-set lease on
 * its row. The bank's server is never called inside a database transaction.
 */
import { createHash, randomUUID } from 'node:crypto';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { accountLabel } from '../../../contract/endpoints/receiving.ts';
import { matchesPattern } from '../../../contract/endpoints/statementFeed.ts';
import { errno } from '../../../contract/errno.ts';
import { inTransaction, isDatabaseUnavailable } from '../../db/index.ts';
import { type FeedSighting, receivingAccounts, statementFeedFiles, statementFeeds } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { t } from '../../http/i18n.ts';
import { errorForLog } from '../../lib/logger.ts';
import { labelColumns } from '../receiving/shared.ts';
import { importStatement } from '../statement/service.ts';
import { alertStatementFeed } from '../telegram/service.ts';
import { FeedError, type FeedSession, type RemoteFile, type SftpTarget, withFeedSession } from './sftp.ts';

export type Feed = typeof statementFeeds.$inferSelect;

/** A statement file is at most 10 MB (docs/STATEMENTS.md "Input and limits"). */
export const maxFeedFileBytes = 10 * 1024 * 1024;
/** Files downloaded per poll at most: the rest wait for the next one (the lease stays short). */
export const filesPerPoll = 20;
/** Names of a listing considered at most (in name order). */
const listedAtMost = 5_000;
/** A poll holds its feed this long at most; a process that died mid-poll frees it then. */
export const feedLeaseMs = 10 * 60_000;
/** A feed that keeps failing is alerted again at most this often. */
export const feedAlertEveryMs = 3_600_000;
/** The default pause between two polls of a feed (`STATEMENT_FEED_POLL_MS`). */
export const defaultFeedPollMs = 60_000;

/** What a poll did. */
export interface PollOutcome {
  ok: boolean;
  imported: number;
  refused: number;
  duplicates: number;
  /** Files seen changing (or new) this poll: taken at the next poll if they stand still. */
  waiting: number;
  error: string | null;
}

/**
 * Where the feed connects, its key opened: a key sealed under another app key is the feed's failure
 * (`sealed`), not the server's.
 */
export function feedTarget(deps: Pick<Deps, 'sealer'>, feed: Feed): SftpTarget {
  let privateKey: string;
  try {
    privateKey = deps.sealer.open(feed.privateKeySealed);
  } catch {
    throw new FeedError('statementFeed.error.sealed');
  }
  return {
    host: feed.host,
    port: feed.port,
    username: feed.username,
    privateKey,
    hostKeyFingerprint: feed.hostKeyFingerprint,
  };
}

/** The message of a failure, in English (as alerts and the record keep it). */
const feedMessage = (err: FeedError) => t('en', err.key, err.params);

/** Why the import refused a file, in English; null when the refusal is passing (the readers were busy). */
function refusalOf(err: unknown): string | null {
  if (!(err instanceof AppError)) throw err;
  const data = err.data as {
    fields?: { message: string }[];
    rows?: { row: number; message: string }[];
    count?: number;
  } | null;
  if (err.errno === errno.invalid && data?.fields?.[0]) {
    const message = data.fields[0].message;
    return message === t('en', 'statement.busy') ? null : message;
  }
  if (err.errno === errno.statementRows && data?.rows)
    return t('en', 'statementFeed.error.rows', {
      count: data.count ?? data.rows.length,
      row: data.rows[0]?.row ?? '-',
      first: data.rows[0]?.message ?? '',
    });
  return t('en', `errno.${err.errno}`);
}

async function accountOf(deps: Pick<Deps, 'database'>, accountId: number) {
  const [a] = await deps.database.db
    .select(labelColumns)
    .from(receivingAccounts)
    .where(eq(receivingAccounts.id, accountId));
  return a ? accountLabel(a) : `#${accountId}`;
}

/**
 * Takes the feed for one poll (compare-and-set on its lease), or answers null when another poll holds it
 * or it is disabled or gone.
 */
async function claim(deps: Deps, feedId: number): Promise<{ feed: Feed; owner: string } | null> {
  const now = deps.clock.now();
  const owner = randomUUID();
  const [feed] = await deps.database.db
    .update(statementFeeds)
    .set({ leaseUntil: new Date(now.getTime() + feedLeaseMs), leaseOwner: owner })
    .where(
      and(
        eq(statementFeeds.id, feedId),
        eq(statementFeeds.enabled, true),
        or(isNull(statementFeeds.leaseUntil), lt(statementFeeds.leaseUntil, now)),
      ),
    )
    .returning();
  return feed ? { feed, owner } : null;
}

/** The feed's row while this poll holds it. */
const held = (feedId: number, owner: string) =>
  and(eq(statementFeeds.id, feedId), eq(statementFeeds.leaseOwner, owner));

/**
 * A file that stood still: downloaded, hashed, imported once by content. Answers what became of it, or
 * `retry` when it is to be tried again at a later poll (the readers were busy). A failure of the connection
 * is thrown (the poll fails).
 */
async function takeFile(
  deps: Deps,
  feed: Feed,
  session: FeedSession,
  file: RemoteFile,
  seen: FeedSighting,
  account: string,
): Promise<'imported' | 'refused' | 'duplicate' | 'retry'> {
  const db = deps.database.db;
  const base = {
    feedId: feed.id,
    remoteName: file.name,
    size: file.size,
    mtime: new Date(file.mtime * 1000),
    firstSeenAt: new Date(seen.firstSeenAt),
  };
  const refuse = async (sha256: string | null, problem: string) => {
    await inTransaction(db, async (tx) => {
      const now = deps.clock.now();
      if (sha256 === null)
        await tx.insert(statementFeedFiles).values({ ...base, sha256, error: problem, importedAt: now });
      else
        await tx
          .update(statementFeedFiles)
          .set({ error: problem, importedAt: now })
          .where(and(eq(statementFeedFiles.feedId, feed.id), eq(statementFeedFiles.sha256, sha256)));
      await alertStatementFeed(deps, tx, {
        dedupeKey: `statementFeed:${feed.id}:file:${sha256 ?? `${file.name}:${file.size}:${file.mtime}`}`,
        account,
        problem: t('en', 'statementFeed.error.file', { name: file.name, reason: problem }),
      });
    });
    deps.logger.warn({ feedId: feed.id, file: file.name, problem }, 'statement feed: file refused');
    return 'refused' as const;
  };

  if (file.size > maxFeedFileBytes)
    return refuse(null, t('en', 'statementFeed.error.tooLarge', { name: file.name, max: maxFeedFileBytes }));
  let bytes: Buffer;
  try {
    bytes = await session.download(feed.folder, file.name, maxFeedFileBytes);
  } catch (err) {
    // Grown past the cap since it was listed: refused like one listed too large.
    if (err instanceof FeedError && err.key === 'statementFeed.error.tooLarge')
      return refuse(null, feedMessage(err));
    throw err;
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // The content's record first: a second name of the same bytes (or a second process) finds it.
  const [mine] = await db
    .insert(statementFeedFiles)
    .values({ ...base, sha256 })
    .onConflictDoNothing()
    .returning({ id: statementFeedFiles.id });
  if (!mine) {
    const [had] = await db
      .select()
      .from(statementFeedFiles)
      .where(and(eq(statementFeedFiles.feedId, feed.id), eq(statementFeedFiles.sha256, sha256)));
    // Imported or refused before: nothing more. Neither: an earlier poll stopped mid-import; again (the
    // lines it saved count as duplicates).
    if (had && (had.importId !== null || had.error !== null)) return 'duplicate';
  }
  let importId: number | null;
  try {
    const answer = await importStatement(
      deps,
      feed.importAs,
      { accountId: feed.accountId, file: bytes.toString('base64'), fileName: file.name },
      'en',
      'feed',
    );
    importId = answer.importId;
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw err;
    const problem = refusalOf(err);
    if (problem === null) return 'retry';
    return refuse(sha256, problem);
  }
  await db
    .update(statementFeedFiles)
    .set({ importId, importedAt: deps.clock.now() })
    .where(and(eq(statementFeedFiles.feedId, feed.id), eq(statementFeedFiles.sha256, sha256)));
  deps.logger.info({ feedId: feed.id, file: file.name, importId }, 'statement feed: file imported');
  return 'imported';
}

/** Records a poll that could not read the feed; alerts at the first failure and then once an hour at most. */
async function recordFailure(deps: Deps, feed: Feed, owner: string, problem: string, account: string) {
  const now = deps.clock.now();
  await inTransaction(deps.database.db, async (tx) => {
    const [row] = await tx
      .update(statementFeeds)
      .set({
        consecutiveFailures: sql`${statementFeeds.consecutiveFailures} + 1`,
        lastError: problem,
        lastPolledAt: now,
        leaseUntil: null,
        leaseOwner: null,
      })
      .where(held(feed.id, owner))
      .returning();
    if (!row) return;
    const due =
      row.consecutiveFailures === 1 ||
      row.lastAlertAt === null ||
      now.getTime() - row.lastAlertAt.getTime() >= feedAlertEveryMs;
    if (!due) return;
    await tx.update(statementFeeds).set({ lastAlertAt: now }).where(eq(statementFeeds.id, feed.id));
    await alertStatementFeed(deps, tx, {
      dedupeKey: `statementFeed:${feed.id}:down:${now.getTime()}`,
      account,
      problem: t('en', 'statementFeed.error.failing', { count: row.consecutiveFailures, reason: problem }),
    });
  });
  deps.logger.warn({ feedId: feed.id, problem }, 'statement feed: poll failed');
}

/**
 * Polls one feed now (whatever its schedule): lists its folder, takes the files that stood still since the
 * previous poll, records what it saw. Answers null when another poll holds the feed, or it is disabled.
 */
export async function pollFeed(deps: Deps, feedId: number): Promise<PollOutcome | null> {
  const claimed = await claim(deps, feedId);
  if (!claimed) return null;
  const { feed, owner } = claimed;
  const account = await accountOf(deps, feed.accountId);
  const out: PollOutcome = { ok: true, imported: 0, refused: 0, duplicates: 0, waiting: 0, error: null };
  let sightings: Record<string, FeedSighting>;
  try {
    sightings = await withFeedSession(feedTarget(deps, feed), async (session) => {
      const listed = (await session.list(feed.folder))
        .filter((f) => matchesPattern(feed.pattern, f.name))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .slice(0, listedAtMost);
      const before = feed.sightings;
      const now = deps.clock.now().toISOString();
      const next: Record<string, FeedSighting> = {};
      let taken = 0;
      for (const f of listed) {
        const was = Object.hasOwn(before, f.name) ? before[f.name] : undefined;
        const still = was !== undefined && was.size === f.size && was.mtime === f.mtime;
        const seen: FeedSighting = { size: f.size, mtime: f.mtime, firstSeenAt: was?.firstSeenAt ?? now };
        next[f.name] = seen;
        if (still && was.done) {
          seen.done = true;
          continue;
        }
        // New or changed since the last poll (perhaps still being written): the next poll decides.
        if (!still) {
          out.waiting++;
          continue;
        }
        if (taken >= filesPerPoll) continue;
        taken++;
        const result = await takeFile(deps, feed, session, f, seen, account);
        if (result === 'retry') continue;
        seen.done = true;
        if (result === 'imported') out.imported++;
        else if (result === 'refused') out.refused++;
        else out.duplicates++;
      }
      return next;
    });
  } catch (err) {
    if (!(err instanceof FeedError)) {
      // Ours, not the bank's (the database): free the feed for the next poll and let the job log it.
      await deps.database.db
        .update(statementFeeds)
        .set({ leaseUntil: null, leaseOwner: null })
        .where(held(feed.id, owner))
        .catch(() => undefined);
      if (isDatabaseUnavailable(err)) throw err;
      deps.logger.error({ feedId: feed.id, err: errorForLog(err) }, 'statement feed: poll failed');
      await recordFailure(deps, feed, owner, String((err as Error)?.message ?? err).slice(0, 300), account);
      return { ...out, ok: false, error: 'internal' };
    }
    const problem = feedMessage(err);
    await recordFailure(deps, feed, owner, problem, account);
    return { ...out, ok: false, error: problem };
  }
  await deps.database.db
    .update(statementFeeds)
    .set({
      sightings,
      lastPolledAt: deps.clock.now(),
      lastError: null,
      consecutiveFailures: 0,
      lastAlertAt: null,
      leaseUntil: null,
      leaseOwner: null,
    })
    .where(held(feed.id, owner));
  return out;
}

/**
 * The job: polls every enabled feed whose last poll is at least the poll interval ago (several server
 * processes run the job; the lease makes each poll one), one after another. Answers how many it polled.
 */
export async function pollStatementFeeds(deps: Deps): Promise<number> {
  const every = deps.config.statementFeedPollMs ?? defaultFeedPollMs;
  const now = deps.clock.now();
  // A poll that ran just now (here or in another process) is not repeated before its time.
  const since = new Date(now.getTime() - every + Math.min(1_000, every / 2));
  const due = await deps.database.db
    .select({ id: statementFeeds.id })
    .from(statementFeeds)
    .where(
      and(
        eq(statementFeeds.enabled, true),
        or(isNull(statementFeeds.lastPolledAt), lt(statementFeeds.lastPolledAt, since)),
        or(isNull(statementFeeds.leaseUntil), lt(statementFeeds.leaseUntil, now)),
      ),
    )
    .orderBy(statementFeeds.id);
  let n = 0;
  for (const f of due) if (await pollFeed(deps, f.id)) n++;
  return n;
}
