/**
 * Bank feed endpoints (contract/endpoints/statementFeed.ts): a receiving account's SFTP feed read, saved,
 * deleted, tried, and its files listed. Saving and deleting choose where the bank's word comes from: the
 * caller's Google code, finance's (and the super administrator's) only, logged without the key. The key is
 * sealed when saved and never answered.
 */
import { count, desc, eq } from 'drizzle-orm';
import { accountLabel } from '../../../contract/endpoints/receiving.ts';
import { matchesPattern, type StatementFeedRow } from '../../../contract/endpoints/statementFeed.ts';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import type { Db } from '../../db/index.ts';
import { receivingAccounts, statementFeedFiles, statementFeeds, users } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { t } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { changes } from '../../lib/redact.ts';
import {
  approvalRequested,
  cancelPendingApproval,
  onApproved,
  pendingApproval,
  requestApproval,
} from '../approval/service.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { labelColumns } from '../receiving/shared.ts';
import { type Feed, feedTarget } from './service.ts';
import { FeedError, keyProblem, withFeedSession } from './sftp.ts';

const { statementFeed } = endpoints;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The feed as answered: everything but the key, which is only said to be there. */
function rowOf(f: Feed, importAs: string | null): StatementFeedRow {
  return {
    id: f.id,
    accountId: f.accountId,
    host: f.host,
    port: f.port,
    username: f.username,
    keySet: f.privateKeySealed !== '',
    hostKeyFingerprint: f.hostKeyFingerprint,
    folder: f.folder,
    pattern: f.pattern,
    enabled: f.enabled,
    importAs,
    lastPolledAt: iso(f.lastPolledAt),
    lastError: f.lastError,
    consecutiveFailures: f.consecutiveFailures,
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
  };
}

async function feedOf(tx: Db, accountId: number) {
  const [row] = await tx
    .select({ feed: statementFeeds, importAs: users.username })
    .from(statementFeeds)
    .leftJoin(users, eq(users.id, statementFeeds.importAs))
    .where(eq(statementFeeds.accountId, accountId));
  return row;
}

/** A feed's settings: where the bank's word is read from, and whether it is. */
type FeedSettings = Pick<
  Feed,
  'host' | 'port' | 'username' | 'hostKeyFingerprint' | 'folder' | 'pattern' | 'enabled'
>;

/** What the operation log keeps of a feed: its settings, never the key. */
const logged = (f: FeedSettings): FeedSettings => ({
  host: f.host,
  port: f.port,
  username: f.username,
  hostKeyFingerprint: f.hostKeyFingerprint,
  folder: f.folder,
  pattern: f.pattern,
  enabled: f.enabled,
});

/** The approvals' name for a feed: the receiving account's id is the request's object. */
const feedRefType = 'statementFeed';

/**
 * Whether saving `next` lets the bank's word come from somewhere no second person has agreed to: a feed
 * switched on, or changed (its server, host key, login, key, folder or pattern) while on. A feed's lines
 * pay by themselves, so that is a maker–checker decision (docs/SECURITY.md "Settings that let money move
 * by itself"); switching one off, or changing one that stays off, is not.
 */
function lets(old: Feed | undefined, next: FeedSettings, keyReplaced: boolean): boolean {
  if (!next.enabled) return false;
  if (!old?.enabled || keyReplaced) return true;
  const was = logged(old);
  return (Object.keys(was) as (keyof FeedSettings)[]).some((k) => was[k] !== next[k]);
}

/** Creates or replaces the account's feed; `importAs` is the user whose name its imports carry. */
async function writeFeed(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  accountId: number,
  old: Feed | undefined,
  settings: FeedSettings,
  keySealed: string | undefined,
  importAs: number,
): Promise<Feed> {
  const now = deps.clock.now();
  const values = {
    ...settings,
    ...(keySealed !== undefined ? { privateKeySealed: keySealed } : {}),
    importAs,
    // New settings: the count of failures starts again.
    lastError: null,
    consecutiveFailures: 0,
    lastAlertAt: null,
    updatedAt: now,
  };
  if (old) {
    const [saved] = await tx
      .update(statementFeeds)
      .set(values)
      .where(eq(statementFeeds.id, old.id))
      .returning();
    return saved!;
  }
  if (keySealed === undefined) throw new AppError(errno.conflict, null, 'the feed has no key');
  const [saved] = await tx
    .insert(statementFeeds)
    .values({ ...values, privateKeySealed: keySealed, accountId, createdAt: now })
    .returning();
  return saved!;
}

/** The request waiting for a second person to switch the account's feed on, if any. */
async function pendingOf(tx: Db, accountId: number) {
  const request = await pendingApproval(tx, feedRefType, accountId);
  if (!request) return null;
  const [by] = await tx
    .select({ username: users.username })
    .from(users)
    .where(eq(users.id, request.requestedBy));
  return {
    approvalId: request.id,
    requestedBy: by?.username ?? '',
    requestedAt: request.requestedAt.toISOString(),
  };
}

// Approved: the feed is saved as it was asked, importing in the requester's name.
onApproved('statementFeed.save', async (deps, tx, request) => {
  const accountId = Number(request.refId);
  const p = request.payload as FeedSettings & { keySealed?: string };
  const [old] = await tx
    .select()
    .from(statementFeeds)
    .where(eq(statementFeeds.accountId, accountId))
    .for('update');
  const settings = logged(p);
  const saved = await writeFeed(deps, tx, accountId, old, settings, p.keySealed, request.requestedBy);
  return {
    changes: changes(old ? logged(old) : {}, logged(saved)),
    detail: { feedId: saved.id, keyReplaced: p.keySealed !== undefined },
  };
});

export const statementFeedRoutes = [
  handle(statementFeed.get, async ({ input, tx }) => {
    const row = await feedOf(tx, input.accountId);
    return {
      feed: row ? rowOf(row.feed, row.importAs) : null,
      pending: await pendingOf(tx, input.accountId),
    };
  }),

  handle(statementFeed.save, async ({ input, user, tx, deps, req, audit }) => {
    const target = `receivingAccount:${input.accountId}`;
    audit({ target });
    const [account] = await tx
      .select({
        id: receivingAccounts.id,
        ...labelColumns,
      })
      .from(receivingAccounts)
      .where(eq(receivingAccounts.id, input.accountId));
    if (!account) throw new AppError(errno.notFound, null, 'receiving account');
    const [old] = await tx
      .select()
      .from(statementFeeds)
      .where(eq(statementFeeds.accountId, input.accountId))
      .for('update');
    if (input.privateKey === undefined && !old)
      throw invalidField(req.lang, 'privateKey', 'validation.required');
    if (input.privateKey !== undefined && keyProblem(input.privateKey) !== null)
      throw invalidField(req.lang, 'privateKey', 'validation.privateKey');
    const settings: FeedSettings = {
      host: input.host,
      port: input.port,
      username: input.username,
      hostKeyFingerprint: input.hostKeyFingerprint,
      folder: input.folder,
      pattern: input.pattern,
      enabled: input.enabled,
    };
    const pending = await pendingApproval(tx, feedRefType, input.accountId);
    // Switching a feed off is always one person's to do, and drops what waited to switch it on.
    if (pending && settings.enabled) throw new AppError(errno.approvalPending);
    // Everything checked: the code is spent only on a change that can be made.
    const refusal = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refusal) return refusal;
    if (pending) await cancelPendingApproval(deps, tx, feedRefType, input.accountId);
    const keySealed = input.privateKey !== undefined ? deps.sealer.seal(input.privateKey) : undefined;

    if (lets(old, settings, keySealed !== undefined)) {
      // A feed that will pay by itself from a new place: a second platform user decides it.
      const request = await requestApproval(
        deps,
        tx,
        {
          action: 'statementFeed.save',
          refType: feedRefType,
          refId: input.accountId,
          merchantId: null,
          currency: '',
          amount: 0,
          payload: {
            account: accountLabel(account),
            ...settings,
            keyReplaced: keySealed !== undefined,
            ...(keySealed !== undefined ? { keySealed } : {}),
          },
          reason: `sftp://${settings.username}@${settings.host}:${settings.port}${settings.folder.startsWith('/') ? '' : '/'}${settings.folder} ${settings.pattern}`,
        },
        user.id,
      );
      return approvalRequested(audit, request, { requested: logged(settings) });
    }
    const saved = await writeFeed(deps, tx, input.accountId, old, settings, keySealed, user.id);
    audit({
      target,
      changes: changes(old ? logged(old) : {}, logged(saved)),
      detail: { feedId: saved.id, keyReplaced: keySealed !== undefined, importAs: user.username },
    });
    return rowOf(saved, user.username);
  }),

  handle(statementFeed.delete, async ({ input, user, tx, deps, req, audit }) => {
    audit({ target: `receivingAccount:${input.accountId}` });
    const [old] = await tx
      .select()
      .from(statementFeeds)
      .where(eq(statementFeeds.accountId, input.accountId))
      .for('update');
    const pending = await pendingApproval(tx, feedRefType, input.accountId);
    if (!old && !pending) throw new AppError(errno.notFound, null, 'statement feed');
    const refusal = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refusal) return refusal;
    if (pending) await cancelPendingApproval(deps, tx, feedRefType, input.accountId);
    if (old) await tx.delete(statementFeeds).where(eq(statementFeeds.id, old.id));
    audit({
      detail: { feedId: old?.id ?? null, deleted: old ? logged(old) : null, cancelled: pending?.id ?? null },
    });
    return { ok: true as const };
  }),

  handle(
    statementFeed.test,
    async ({ input, deps, req, audit }) => {
      audit({ target: `receivingAccount:${input.accountId}` });
      const row = await feedOf(deps.database.db, input.accountId);
      if (!row) throw new AppError(errno.notFound, null, 'statement feed');
      const f = row.feed;
      try {
        const files = await withFeedSession(feedTarget(deps, f), (session) => session.list(f.folder));
        const matching = files
          .filter((x) => matchesPattern(f.pattern, x.name))
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .slice(0, 500)
          .map((x) => ({ name: x.name, size: x.size, mtime: new Date(x.mtime * 1000).toISOString() }));
        audit({ detail: { ok: true, files: matching.length } });
        return { ok: true, error: null, files: matching };
      } catch (err) {
        if (!(err instanceof FeedError)) throw err;
        audit({ detail: { ok: false, error: err.key } });
        return { ok: false, error: t(req.lang, err.key, err.params), files: [] };
      }
    },
    // The bank's server is called: never inside a transaction.
    { outsideTransaction: true },
  ),

  handle(statementFeed.files, async ({ input, tx }) => {
    const [feed] = await tx
      .select({ id: statementFeeds.id })
      .from(statementFeeds)
      .where(eq(statementFeeds.accountId, input.accountId));
    if (!feed) return { list: [], total: 0, nextCursor: null };
    const page = input.page ?? 1;
    const rows = await tx
      .select()
      .from(statementFeedFiles)
      .where(eq(statementFeedFiles.feedId, feed.id))
      .orderBy(desc(statementFeedFiles.id))
      .limit(input.pageSize)
      .offset((page - 1) * input.pageSize);
    const [{ n } = { n: 0 }] = await tx
      .select({ n: count() })
      .from(statementFeedFiles)
      .where(eq(statementFeedFiles.feedId, feed.id));
    return {
      list: rows.map((r) => ({
        id: r.id,
        remoteName: r.remoteName,
        size: r.size,
        mtime: r.mtime.toISOString(),
        sha256: r.sha256,
        importId: r.importId,
        error: r.error,
        firstSeenAt: r.firstSeenAt.toISOString(),
        importedAt: iso(r.importedAt),
      })),
      total: n,
      nextCursor: null,
    };
  }),
];
