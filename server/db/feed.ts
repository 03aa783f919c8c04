/** The change feed: committed changes to the tables whose rows the server keeps in memory. */
/**
 * Committed changes to the watched tables (users, roles, user_roles, sessions, parameters, merchants,
 * merchant_channels, channels, agents; blocklist_entries since migration 0034), as triggers announce them
 * with `NOTIFY paygate_changes` (migration 0008). What the server keeps in memory from those tables (resolved sessions, gateway
 * merchants and their routes) is valid only while `live` and only at the `version` it was read at.
 *
 * - A change committed by this process moves `version` before the committing call returns: on
 *   PostgreSQL every pooled connection listens, and the server delivers a session's own notifications
 *   before it reports the commit; PGlite delivers them while it answers the COMMIT.
 * - A change committed by another process arrives on a listening connection, asynchronously (well under
 *   a millisecond on one machine). The workers of one server (`WORKERS`, server/main.ts) close even that
 *   gap: `handOver` tells the others through the cluster before `inTransaction` returns.
 */
export interface ChangeFeed {
  readonly version: number;
  /** False while a change could go unnoticed (PostgreSQL: the listening connection is down). */
  readonly live: boolean;
  /** A change learned another way (from a sibling process): forget what was read before it. */
  bump(): void;
  /**
   * How this process tells its siblings about a change it committed; `inTransaction` waits for it (at most
   * once at a time) before it returns.
   */
  handOver(fn: (() => Promise<void>) | undefined): void;
  /** Resolves when the hand-over of the changes this process committed so far is done. */
  settled(): Promise<void>;
}

/** The channel the change triggers notify on. */
export const changesChannel = 'paygate_changes';

export class Feed implements ChangeFeed {
  version = 0;
  live = false;
  private handOverFn: (() => Promise<void>) | undefined;
  private pending: Promise<void> | undefined;
  private again = false;
  bump() {
    this.version++;
  }
  setLive(live: boolean) {
    this.live = live;
    this.version++;
  }
  handOver(fn: (() => Promise<void>) | undefined) {
    this.handOverFn = fn;
  }
  /** This process committed a change: hand it over to the siblings, one hand-over at a time. */
  ownChange() {
    if (!this.handOverFn) return;
    if (this.pending) {
      this.again = true;
      return;
    }
    const run = async (): Promise<void> => {
      do {
        this.again = false;
        await this.handOverFn?.().catch(() => {});
      } while (this.again);
      this.pending = undefined;
    };
    this.pending = run();
  }
  settled(): Promise<void> {
    return this.pending ?? Promise.resolve();
  }
}
/** The feed of each open database, by its handle (`inTransaction` waits for its hand-over). */
export const feeds = new WeakMap<object, Feed>();
