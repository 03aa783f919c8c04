/**
 * Values kept in memory while the change feed (server/db/index.ts) shows no committed change to a watched
 * table since they were read: a console change, in this server process or another, applies to the very
 * next read. One map per open database, so that tests with a database each never mix.
 */
import type { Database } from '../db/index.ts';

/** Where the feed stood before a read: what is read after it is kept only if the feed has not moved. */
export interface FeedMark {
  version: number;
  live: boolean;
}

export class FeedKept<K, V> {
  private readonly maps = new WeakMap<Database, Map<K, { value: V; version: number }>>();

  /** `maxEntries` bounds each database's map: reaching it starts the map afresh. */
  constructor(private readonly maxEntries: number) {}

  /** The value kept for `key`, if the feed is live and has not moved since it was read. */
  get(database: Database, key: K): V | undefined {
    const feed = database.changes;
    const hit = this.maps.get(database)?.get(key);
    return hit && feed.live && hit.version === feed.version ? hit.value : undefined;
  }

  /** Where the feed stands now: take it before reading what `keep` will keep. */
  mark(database: Database): FeedMark {
    const feed = database.changes;
    return { version: feed.version, live: feed.live };
  }

  /** Keeps `value` read after `read`, unless the feed was not live or has moved meanwhile. */
  keep(database: Database, key: K, value: V, read: FeedMark): void {
    const feed = database.changes;
    if (!read.live || !feed.live || feed.version !== read.version) return;
    let map = this.maps.get(database);
    if (!map) {
      map = new Map();
      this.maps.set(database, map);
    }
    if (map.size >= this.maxEntries) map.clear();
    map.set(key, { value, version: read.version });
  }

  /** Drops what is kept for `key`. */
  drop(database: Database, key: K): void {
    this.maps.get(database)?.delete(key);
  }

  /** Drops everything kept for this database. */
  forget(database: Database): void {
    this.maps.delete(database);
  }
}
