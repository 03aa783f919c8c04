/**
 * Every merchant's and channel's code by id, for the order lists' pages: joined in, they cost more to
 * plan and run than the page itself (see `pages.ts`).
 */
import { type Database, type Db, whenCommitted } from '../../db/index.ts';

export interface Codes {
  merchants: Map<number, string>;
  channels: Map<number, string>;
  version: number;
}
const codesKept = new WeakMap<Database, Codes>();
const codesLoading = new WeakMap<Database, Promise<Codes>>();

/**
 * Every merchant's and channel's code by id, kept while the change feed shows no change to a watched
 * table (merchants and channels are) since they were read; `fresh` reads them again.
 */
export async function codesById(database: Database, db: Db, fresh = false): Promise<Codes> {
  const feed = database.changes;
  const kept = codesKept.get(database);
  if (!fresh && kept && feed.live && kept.version === feed.version) return kept;
  const loading = codesLoading.get(database);
  if (!fresh && loading) return loading;
  const read = (async () => {
    const version = feed.version;
    const live = feed.live;
    const [m, c] = [
      await database.raw(db, 'select id, code from merchants', [], { name: true }),
      await database.raw(db, 'select id, code from channels', [], { name: true }),
    ];
    const codes: Codes = {
      merchants: new Map(m.map((r) => [Number(r[0]), r[1]!])),
      channels: new Map(c.map((r) => [Number(r[0]), r[1]!])),
      version,
    };
    whenCommitted(db, () => {
      if (live && feed.live && feed.version === version) codesKept.set(database, codes);
    });
    return codes;
  })();
  codesLoading.set(database, read);
  try {
    return await read;
  } finally {
    if (codesLoading.get(database) === read) codesLoading.delete(database);
  }
}
