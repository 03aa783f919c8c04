/** The ledger's bulk path: many entries worked out in memory against locked accounts, written in batches. */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { journalEntries } from '../db/schema.ts';
import { chunks } from '../lib/chunks.ts';
import type { AccountRef, Entry, PostedLine } from './accounts.ts';
import {
  alreadyPosted,
  applyLines,
  checkBalanced,
  dailyMoves,
  type HeldAccount,
  insertPostings,
  keyOf,
  lockAccounts,
  postingRows,
  rowsOf,
  saveAccounts,
} from './postings.ts';

/** An entry of a batch whose cause may be a row written just before the batch is: its id is read then. */
export interface BatchEntry extends Omit<Entry, 'refId'> {
  refId: Entry['refId'] | (() => Entry['refId']);
}

/**
 * The bulk path (`postMany`, the demo seed): entries are worked out as they come, against accounts this
 * batch holds locked, and written by `write()` in batched inserts with one balance update per account.
 * While a batch is open, its accounts' balances are what it says (`balance`), so nothing else may post to
 * them in this transaction until it is written; after another posting, start a new batch. Accounts are
 * locked as the batch first meets them: hold every account up front (`hold`) where other transactions may
 * post at the same time, so that locks are taken in id order.
 */
export class LedgerBatch {
  private readonly held = new Map<string, HeldAccount>();
  private readonly touched = new Set<HeldAccount>();
  private entries: { entry: BatchEntry; lines: PostedLine[] }[] = [];

  constructor(private readonly tx: Db) {}

  /** Entries posted and not written yet. */
  get pending(): number {
    return this.entries.length;
  }

  /** Locks the accounts (creating missing ones) this batch does not hold yet, in id order. */
  async hold(refs: readonly AccountRef[]): Promise<void> {
    const missing = refs.filter((r) => !this.held.has(keyOf(r)));
    if (!missing.length) return;
    for (const [key, acc] of await lockAccounts(this.tx, missing)) this.held.set(key, acc);
  }

  /** The account's balance with every entry of this batch, written or not. */
  async balance(ref: AccountRef): Promise<number> {
    await this.hold([ref]);
    return this.held.get(keyOf(ref))!.balance;
  }

  /** Works out one entry as `post` would; refuses as `post` does, and then the batch is as it was. */
  async post(entry: BatchEntry): Promise<PostedLine[]> {
    checkBalanced(entry);
    await this.hold(entry.lines.map((l) => l.account));
    const lines = applyLines(this.held, entry.lines);
    for (const l of lines) this.touched.add(this.held.get(keyOf(l.account))!);
    this.entries.push({ entry, lines });
    return lines;
  }

  /** Writes the entries posted since the last write: journal entries, postings, account balances. */
  async write(): Promise<void> {
    if (!this.entries.length) return;
    const tx = this.tx;
    const written = this.entries.map(({ entry, lines }) => ({
      entry,
      lines,
      refId: String(typeof entry.refId === 'function' ? entry.refId() : entry.refId),
    }));
    const causeOf = (refType: string, refId: string, kind: string) => `${refType}\u0000${refId}\u0000${kind}`;
    const ids = new Map<string, number>();
    const seen = new Set<string>();
    for (const chunk of chunks(written, 1000)) {
      // One JSON parameter, as for the postings; the ids come back for the causes inserted.
      const json = JSON.stringify(
        chunk.map(({ entry, refId }) => [
          entry.at,
          entry.kind,
          entry.refType,
          refId,
          entry.memo ?? '',
          entry.userId ?? null,
        ]),
      );
      const rows = rowsOf<{ id: string | number; ref_type: string; ref_id: string; kind: string }>(
        await tx.execute(sql`
          insert into ${journalEntries} (at, kind, ref_type, ref_id, memo, user_id)
          select (e ->> 0)::timestamptz, e ->> 1, e ->> 2, e ->> 3, e ->> 4, (e ->> 5)::int
          from jsonb_array_elements(${json}::jsonb) as j(e)
          on conflict do nothing
          returning id, ref_type, ref_id, kind`),
      ).map((r) => ({ id: Number(r.id), refType: r.ref_type, refId: r.ref_id, kind: r.kind }));
      for (const r of rows) ids.set(causeOf(r.refType, r.refId, r.kind), r.id);
      for (const { entry, refId } of chunk) {
        const cause = causeOf(entry.refType, refId, entry.kind);
        // Skipped by the insert: posted before, or earlier in this batch.
        if (!ids.has(cause) || seen.has(cause)) throw alreadyPosted({ ...entry, refId });
        seen.add(cause);
      }
    }
    await insertPostings(
      tx,
      written.flatMap(({ entry, refId, lines }) =>
        postingRows(ids.get(causeOf(entry.refType, refId, entry.kind))!, entry.at, lines),
      ),
    );
    await saveAccounts(
      tx,
      this.touched,
      written.flatMap(({ entry, lines }) => dailyMoves(entry, lines)),
    );
    this.entries = [];
    this.touched.clear();
  }
}
