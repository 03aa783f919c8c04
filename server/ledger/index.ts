/**
 * The ledger: the only code that writes balances. Every movement is one journal entry whose postings
 * sum to zero per currency; accounts are locked in id order, each posting records the balance before
 * and after, and the database refuses a negative wallet (CHECK) even if this code were wrong. `post`
 * writes one entry in one statement (entry.ts); `postMany` and `LedgerBatch` write many in batched
 * inserts, with the same result.
 * Both add the postings to their accounts' daily movements (`ledger_daily`) in the same transaction.
 */
import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { formatMinor } from '../../contract/money.ts';
import type { Db } from '../db/index.ts';
import { journalEntries, ledgerAccounts, postings } from '../db/schema.ts';
import { type Entry, type MerchantAccountKind, merchantAccountKinds, type PostedLine } from './accounts.ts';
import { LedgerBatch } from './batch.ts';
import { postEntry } from './entry.ts';
import { rowsOf } from './postings.ts';

export * from './accounts.ts';
export { type BatchEntry, LedgerBatch } from './batch.ts';
export * from './debt.ts';
export * from './merchantHold.ts';
export { rowsOf } from './postings.ts';

/**
 * Makes the daily movements again from the postings, bucketed in `zone` (SQL), in the caller's
 * transaction: when the stored business time zone changes (`rebuildOrderStats`). A full scan.
 */
export async function rebuildLedgerDaily(tx: Db, zone: SQL): Promise<void> {
  await tx.execute(sql`delete from ledger_daily`);
  await tx.execute(sql`
    insert into ledger_daily (account_id, day, ref_type, kind, amount, postings)
    select p.account_id, (p.at at time zone ${zone})::date, e.ref_type, e.kind, sum(p.amount), count(*)
    from postings p join journal_entries e on e.id = p.entry_id
    group by 1, 2, 3, 4`);
}

/**
 * Posts one balanced entry inside the caller's transaction. Refuses (errno 1019) when a wallet would go
 * below zero; refuses (409) when the same cause was already posted.
 */
export async function post(tx: Db, entry: Entry): Promise<PostedLine[]> {
  return (await postEntry(tx, entry)).posted;
}

/** `post`, answering the journal entry's id, which the object it moved money for keeps. */
export async function postForEntryId(tx: Db, entry: Entry): Promise<number> {
  return (await postEntry(tx, entry)).entryId;
}

/**
 * The id the next row of `table` (a serial `id`) will take, drawn before the row is written: the ledger
 * entry of a money object (an adjustment, a commission payment) is posted first and names it.
 */
export async function drawId(tx: Db, table: string): Promise<number> {
  const [next] = rowsOf<{ id: number }>(
    await tx.execute(sql`select nextval(pg_get_serial_sequence(${table}, 'id'))::int as id`),
  );
  return Number(next!.id);
}

/**
 * Posts many balanced entries in the caller's transaction, as posting them one by one in this order would
 * (the same postings, balances and `seq`), in batched inserts and one balance update per account. The
 * accounts are locked first, all at once in id order. Refuses the whole batch, writing nothing, when an
 * entry does not balance or would take a wallet below zero (1019); refuses (409) when a cause was already
 * posted (the caller's transaction then rolls back).
 */
export async function postMany(tx: Db, entries: readonly Entry[]): Promise<PostedLine[][]> {
  const batch = new LedgerBatch(tx);
  await batch.hold(entries.flatMap((e) => e.lines.map((l) => l.account)));
  const posted: PostedLine[][] = [];
  for (const e of entries) posted.push(await batch.post(e));
  await batch.write();
  return posted;
}

/**
 * Balances of a merchant's accounts (missing accounts read as zero): the wallets, `reserve`, and
 * `merchant_debt` (zero or negative: minus what it owes).
 */
export async function merchantBalances(tx: Db, merchantId: number, currency: string) {
  const rows = await tx
    .select({ kind: ledgerAccounts.kind, balance: ledgerAccounts.balance })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.ownerType, 'merchant'),
        eq(ledgerAccounts.ownerId, merchantId),
        eq(ledgerAccounts.currency, currency),
        inArray(ledgerAccounts.kind, [...merchantAccountKinds]),
      ),
    );
  const out: Record<MerchantAccountKind, number> = {
    collection_available: 0,
    collection_pending: 0,
    payout_available: 0,
    frozen: 0,
    reserve: 0,
    merchant_debt: 0,
  };
  for (const r of rows) out[r.kind as MerchantAccountKind] = r.balance;
  return out;
}

/** What a posting moved, when: the columns every list of postings shows. */
export const postingMoves = {
  amount: postings.amount,
  balanceBefore: postings.balanceBefore,
  balanceAfter: postings.balanceAfter,
  at: postings.at,
};

/**
 * The ledger lines of the entries one cause posted (an order), as the order's detail shows them; with
 * `merchantId`, only the lines on that merchant's wallets (a merchant user's view).
 */
export async function orderPostings(tx: Db, refType: string, refId: number, merchantId: number | null) {
  const ofCause = and(
    eq(journalEntries.refType, refType),
    eq(journalEntries.refId, String(refId)),
    merchantId === null
      ? undefined
      : and(eq(ledgerAccounts.ownerType, 'merchant'), eq(ledgerAccounts.ownerId, merchantId)),
  );
  const rows = await tx
    .select({
      entryId: journalEntries.id,
      entryKind: journalEntries.kind,
      ownerType: ledgerAccounts.ownerType,
      ownerId: ledgerAccounts.ownerId,
      account: ledgerAccounts.kind,
      ...postingMoves,
    })
    .from(postings)
    .innerJoin(journalEntries, eq(journalEntries.id, postings.entryId))
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, postings.accountId))
    .where(ofCause)
    .orderBy(asc(journalEntries.id), asc(postings.id));
  return rows.map((r) => ({
    ...r,
    amount: formatMinor(r.amount),
    balanceBefore: formatMinor(r.balanceBefore),
    balanceAfter: formatMinor(r.balanceAfter),
    at: r.at.toISOString(),
  }));
}
