/**
 * The ledger: the only code that writes balances. Every movement is one journal entry whose postings
 * sum to zero per currency; accounts are locked in id order, each posting records the balance before
 * and after, and the database refuses a negative wallet (CHECK) even if this code were wrong.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { errno } from '../../contract/errno.ts';
import { formatMinor } from '../../contract/money.ts';
import type { Db } from '../db/index.ts';
import { type AccountKind, journalEntries, ledgerAccounts, postings } from '../db/schema.ts';
import { AppError } from '../http/errors.ts';

export interface AccountRef {
  ownerType: 'merchant' | 'agent' | 'platform';
  ownerId: number;
  kind: AccountKind;
  currency: string;
}

/** Clearing accounts mirror money held by channels and banks; they may go below zero. */
const mayBeNegative = new Set<AccountKind>(['channel_clearing', 'settlement_clearing', 'payout_clearing']);

export const merchantAccount = (merchantId: number, kind: AccountKind, currency: string): AccountRef => ({
  ownerType: 'merchant',
  ownerId: merchantId,
  kind,
  currency,
});
export const agentAccount = (agentId: number, currency: string): AccountRef => ({
  ownerType: 'agent',
  ownerId: agentId,
  kind: 'agent_commission_payable',
  currency,
});
export const platformAccount = (kind: AccountKind, currency: string): AccountRef => ({
  ownerType: 'platform',
  ownerId: 0,
  kind,
  currency,
});

export const merchantWalletKinds = [
  'collection_available',
  'collection_pending',
  'payout_available',
  'frozen',
] as const;

const keyOf = (a: AccountRef) => `${a.ownerType}:${a.ownerId}:${a.kind}:${a.currency}`;

export interface EntryLine {
  account: AccountRef;
  /** Signed minor units: what the account's balance changes by. */
  amount: number;
}

export interface Entry {
  kind: string;
  /** What caused it; `(refType, refId, kind)` can be posted once only. */
  refType: string;
  refId: string | number;
  memo?: string;
  userId?: number | null;
  at: Date;
  lines: EntryLine[];
}

export interface PostedLine {
  accountId: number;
  account: AccountRef;
  amount: number;
  balanceBefore: number;
  balanceAfter: number;
  seq: number;
}

/** Creates accounts that do not exist yet (merchants get theirs at creation; this is the safety net). */
export async function ensureAccounts(tx: Db, refs: readonly AccountRef[]): Promise<void> {
  if (!refs.length) return;
  await tx
    .insert(ledgerAccounts)
    .values(refs.map((a) => ({ ...a, mayBeNegative: mayBeNegative.has(a.kind) })))
    .onConflictDoNothing();
}

/** Locks the accounts of `refs` (creating missing ones) in id order, so concurrent entries never deadlock. */
async function lockAccounts(tx: Db, refs: readonly AccountRef[]) {
  const unique = [...new Map(refs.map((r) => [keyOf(r), r])).values()];
  type Row = {
    id: number;
    owner_type: string;
    owner_id: number;
    kind: string;
    currency: string;
    balance: string;
    version: string;
    may_be_negative: boolean;
  };
  const select = async () =>
    rowsOf<Row>(
      await tx.execute(sql`
      select id, owner_type, owner_id, kind, currency, balance, version, may_be_negative
      from ${ledgerAccounts}
      where (owner_type, owner_id, kind, currency) in (${sql.join(
        unique.map((r) => sql`(${r.ownerType}, ${r.ownerId}, ${r.kind}, ${r.currency})`),
        sql`, `,
      )})
      order by id
      for update`),
    );
  let rows = await select();
  if (rows.length < unique.length) {
    await ensureAccounts(tx, unique);
    rows = await select();
  }
  const byKey = new Map<string, { id: number; balance: number; version: number; mayBeNegative: boolean }>();
  for (const r of rows) {
    byKey.set(`${r.owner_type}:${r.owner_id}:${r.kind}:${r.currency}`, {
      id: Number(r.id),
      balance: Number(r.balance),
      version: Number(r.version),
      mayBeNegative: r.may_be_negative,
    });
  }
  return byKey;
}

/** Result rows of `execute`, whichever driver answered (node-postgres and PGlite both use `.rows`). */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}

/**
 * Posts one balanced entry inside the caller's transaction. Refuses (errno 1019) when a wallet would go
 * below zero; refuses (409) when the same cause was already posted.
 */
export async function post(tx: Db, entry: Entry): Promise<PostedLine[]> {
  if (!entry.lines.length) throw new Error('ledger: an entry needs lines');
  const sums = new Map<string, bigint>();
  for (const line of entry.lines) {
    if (!Number.isSafeInteger(line.amount) || line.amount === 0)
      throw new Error(`ledger: bad amount ${line.amount}`);
    sums.set(line.account.currency, (sums.get(line.account.currency) ?? 0n) + BigInt(line.amount));
  }
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new Error(`ledger: entry ${entry.kind} does not balance in ${currency} (${sum})`);
  }
  const accounts = await lockAccounts(
    tx,
    entry.lines.map((l) => l.account),
  );
  const inserted = await tx
    .insert(journalEntries)
    .values({
      at: entry.at,
      kind: entry.kind,
      refType: entry.refType,
      refId: String(entry.refId),
      memo: entry.memo ?? '',
      userId: entry.userId ?? null,
    })
    .onConflictDoNothing()
    .returning({ id: journalEntries.id });
  if (!inserted.length)
    throw new AppError(errno.conflict, null, `already posted: ${entry.refType} ${entry.refId} ${entry.kind}`);
  const entryId = inserted[0]!.id;

  const lines = [...entry.lines].sort(
    (a, b) => accounts.get(keyOf(a.account))!.id - accounts.get(keyOf(b.account))!.id,
  );
  const posted: PostedLine[] = [];
  for (const line of lines) {
    const acc = accounts.get(keyOf(line.account))!;
    const before = acc.balance;
    const after = before + line.amount;
    if (after < 0 && !acc.mayBeNegative) {
      throw new AppError(
        errno.insufficientBalance,
        null,
        `${keyOf(line.account)} ${before} + ${line.amount}`,
      );
    }
    acc.balance = after;
    acc.version += 1;
    posted.push({
      accountId: acc.id,
      account: line.account,
      amount: line.amount,
      balanceBefore: before,
      balanceAfter: after,
      seq: acc.version,
    });
  }
  await tx.insert(postings).values(
    posted.map((p) => ({
      entryId,
      accountId: p.accountId,
      seq: p.seq,
      amount: p.amount,
      balanceBefore: p.balanceBefore,
      balanceAfter: p.balanceAfter,
      currency: p.account.currency,
      at: entry.at,
    })),
  );
  for (const acc of new Set(posted.map((p) => p.accountId))) {
    const state = [...accounts.values()].find((a) => a.id === acc)!;
    await tx
      .update(ledgerAccounts)
      .set({ balance: state.balance, version: state.version })
      .where(eq(ledgerAccounts.id, acc));
  }
  return posted;
}

/** Balances of a merchant's wallets (missing accounts read as zero). */
export async function merchantBalances(tx: Db, merchantId: number, currency: string) {
  const rows = await tx
    .select({ kind: ledgerAccounts.kind, balance: ledgerAccounts.balance })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.ownerType, 'merchant'),
        eq(ledgerAccounts.ownerId, merchantId),
        eq(ledgerAccounts.currency, currency),
        inArray(ledgerAccounts.kind, [...merchantWalletKinds]),
      ),
    );
  const out = { collection_available: 0, collection_pending: 0, payout_available: 0, frozen: 0 };
  for (const r of rows) out[r.kind as keyof typeof out] = r.balance;
  return out;
}

/**
 * The ledger lines of the entries one cause posted (an order), as the order's detail shows them; with
 * `merchantId`, only the lines on that merchant's wallets (a merchant user's view).
 */
export async function orderPostings(tx: Db, refType: string, refId: number, merchantId: number | null) {
  const rows = await tx
    .select({
      entryId: journalEntries.id,
      entryKind: journalEntries.kind,
      ownerType: ledgerAccounts.ownerType,
      ownerId: ledgerAccounts.ownerId,
      account: ledgerAccounts.kind,
      amount: postings.amount,
      balanceBefore: postings.balanceBefore,
      balanceAfter: postings.balanceAfter,
      at: postings.at,
    })
    .from(postings)
    .innerJoin(journalEntries, eq(journalEntries.id, postings.entryId))
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, postings.accountId))
    .where(
      and(
        eq(journalEntries.refType, refType),
        eq(journalEntries.refId, String(refId)),
        merchantId === null
          ? undefined
          : and(eq(ledgerAccounts.ownerType, 'merchant'), eq(ledgerAccounts.ownerId, merchantId)),
      ),
    )
    .orderBy(asc(journalEntries.id), asc(postings.id));
  return rows.map((r) => ({
    ...r,
    amount: formatMinor(r.amount),
    balanceBefore: formatMinor(r.balanceBefore),
    balanceAfter: formatMinor(r.balanceAfter),
    at: r.at.toISOString(),
  }));
}
