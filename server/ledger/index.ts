/**
 * The ledger: the only code that writes balances. Every movement is one journal entry whose postings
 * sum to zero per currency; accounts are locked in id order, each posting records the balance before
 * and after, and the database refuses a negative wallet (CHECK) even if this code were wrong. `post`
 * writes one entry; `postMany` and `LedgerBatch` write many in batched inserts, with the same result.
 * Both add the postings to their accounts' daily movements (`ledger_daily`) in the same transaction.
 */
import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { errno } from '../../contract/errno.ts';
import { formatMinor } from '../../contract/money.ts';
import type { Db } from '../db/index.ts';
import { type AccountKind, journalEntries, ledgerAccounts, postings } from '../db/schema.ts';
import { AppError } from '../http/errors.ts';
import { storedZone } from '../lib/businessDay.ts';
import { chunks } from '../lib/chunks.ts';

export interface AccountRef {
  ownerType: 'merchant' | 'agent' | 'platform';
  ownerId: number;
  kind: AccountKind;
  currency: string;
}

/**
 * Clearing accounts mirror money held by channels and banks; they may go below zero. So may the
 * platform's balance adjustments: crediting a merchant by hand must not wait for fee income.
 */
const mayBeNegative = new Set<AccountKind>([
  'channel_clearing',
  'settlement_clearing',
  'payout_clearing',
  'balance_adjustment',
]);

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

/** An account's identity as a string, to key maps by. */
export const accountKey = (a: AccountRef) => `${a.ownerType}:${a.ownerId}:${a.kind}:${a.currency}`;
const keyOf = accountKey;

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

/** A locked account as this transaction sees it: its balance and version move as entries apply. */
interface HeldAccount {
  id: number;
  balance: number;
  version: number;
  mayBeNegative: boolean;
}

/** Locks the accounts of `refs` (creating missing ones) in id order, so concurrent entries never deadlock. */
async function lockAccounts(tx: Db, refs: readonly AccountRef[]): Promise<Map<string, HeldAccount>> {
  const unique = [...new Map(refs.map((r) => [keyOf(r), r])).values()];
  const byKey = new Map<string, HeldAccount>();
  if (!unique.length) return byKey;
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

/** Refuses an entry without lines, with an amount that is not a non-zero safe integer, or that does not balance. */
function checkBalanced(entry: Pick<Entry, 'kind' | 'lines'>): void {
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
}

/**
 * Applies an entry's lines to the held accounts, in account id order: each line gets the balance before
 * and after and the account's next `seq`. Refuses (errno 1019) when a wallet would go below zero, leaving
 * the accounts as they were.
 */
function applyLines(accounts: Map<string, HeldAccount>, lines: readonly EntryLine[]): PostedLine[] {
  const held = lines
    .map((line) => ({ line, acc: accounts.get(keyOf(line.account))! }))
    .sort((a, b) => a.acc.id - b.acc.id);
  // Worked out on copies first: a refused entry must not move any account.
  const next = new Map<HeldAccount, { balance: number; version: number }>();
  const posted: PostedLine[] = [];
  for (const { line, acc } of held) {
    const state = next.get(acc) ?? { balance: acc.balance, version: acc.version };
    const before = state.balance;
    const after = before + line.amount;
    // Past 2^53 a JS number rounds: the balance would drift from its postings without a word.
    if (!Number.isSafeInteger(after))
      throw new Error(`ledger: ${keyOf(line.account)} would leave the safe range`);
    if (after < 0 && !acc.mayBeNegative) {
      throw new AppError(
        errno.insufficientBalance,
        null,
        `${keyOf(line.account)} ${before} + ${line.amount}`,
      );
    }
    state.balance = after;
    state.version += 1;
    next.set(acc, state);
    posted.push({
      accountId: acc.id,
      account: line.account,
      amount: line.amount,
      balanceBefore: before,
      balanceAfter: after,
      seq: state.version,
    });
  }
  for (const [acc, state] of next) Object.assign(acc, state);
  return posted;
}

async function insertPostings(tx: Db, rows: (typeof postings.$inferInsert)[]): Promise<void> {
  // One JSON parameter per chunk: thousands of postings built by the query builder cost more than the insert.
  for (const chunk of chunks(rows, 5000)) {
    const json = JSON.stringify(
      chunk.map((r) => [
        r.entryId,
        r.accountId,
        r.seq,
        r.amount,
        r.balanceBefore,
        r.balanceAfter,
        r.currency,
        r.at,
      ]),
    );
    await tx.execute(sql`
      insert into ${postings} (entry_id, account_id, seq, amount, balance_before, balance_after, currency, at)
      select (r ->> 0)::bigint, (r ->> 1)::int, (r ->> 2)::bigint, (r ->> 3)::bigint, (r ->> 4)::bigint,
        (r ->> 5)::bigint, r ->> 6, (r ->> 7)::timestamptz
      from jsonb_array_elements(${json}::jsonb) as j(r)`);
  }
}

/** A posting as the daily movements count it: its account, instant and the entry's cause. */
interface DailyMove {
  accountId: number;
  at: Date;
  refType: string;
  kind: string;
  amount: number;
}

/** The upsert of summed daily movements (at most 1,000 rows: 6,000 parameters). */
const dailyUpsert = (rows: readonly (DailyMove & { n: number })[]) => sql`
  insert into ledger_daily as d (account_id, day, ref_type, kind, amount, postings)
  select v.account_id, (v.at at time zone ${storedZone})::date, v.ref_type, v.kind, sum(v.amount), sum(v.n)
  from (values ${sql.join(
    rows.map(
      (m) =>
        sql`(${m.accountId}::int, ${m.at.toISOString()}::timestamptz, ${m.refType}::text, ${m.kind}::text, ${m.amount}::bigint, ${m.n}::int)`,
    ),
    sql`, `,
  )}) as v(account_id, at, ref_type, kind, amount, n)
  group by 1, 2, 3, 4
  order by 1, 2, 3, 4
  on conflict (account_id, day, ref_type, kind) do update set
    amount = d.amount + excluded.amount, postings = d.postings + excluded.postings`;

/**
 * Writes the held accounts' balance and version and adds the postings to their accounts' daily
 * movements (`ledger_daily`), in one statement (more only for a batch of over 1,000 account-instants).
 * The moves are summed here first (a batch pays one account many times a second), then bucketed into
 * business days by the database, rows in key order. The accounts are locked by the caller, so no other
 * writer touches these rows meanwhile.
 */
async function saveAccounts(
  tx: Db,
  accounts: Iterable<HeldAccount>,
  moves: readonly DailyMove[],
): Promise<void> {
  const summed = new Map<string, DailyMove & { n: number }>();
  for (const m of moves) {
    const key = `${m.accountId}\u0000${m.at.getTime()}\u0000${m.refType}\u0000${m.kind}`;
    const s = summed.get(key);
    if (s) {
      s.amount += m.amount;
      s.n += 1;
    } else summed.set(key, { ...m, n: 1 });
  }
  const [first = [], ...rest] = chunks([...summed.values()], 1000);
  const rows = [...accounts].map((a) => sql`(${a.id}::int, ${a.balance}::bigint, ${a.version}::bigint)`);
  const balances = sql`
    update ${ledgerAccounts} a set balance = v.balance, version = v.version
    from (values ${sql.join(rows, sql`, `)}) as v(id, balance, version)
    where a.id = v.id`;
  if (rows.length && first.length)
    await tx.execute(sql`with balances as (${balances} returning 1) ${dailyUpsert(first)}`);
  else if (rows.length) await tx.execute(balances);
  else if (first.length) await tx.execute(dailyUpsert(first));
  for (const chunk of rest) await tx.execute(dailyUpsert(chunk));
}

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

const postingRows = (entryId: number, at: Date, lines: readonly PostedLine[]) =>
  lines.map((p) => ({
    entryId,
    accountId: p.accountId,
    seq: p.seq,
    amount: p.amount,
    balanceBefore: p.balanceBefore,
    balanceAfter: p.balanceAfter,
    currency: p.account.currency,
    at,
  }));

const dailyMoves = (entry: Pick<Entry, 'at' | 'refType' | 'kind'>, lines: readonly PostedLine[]) =>
  lines.map((p) => ({
    accountId: p.accountId,
    at: entry.at,
    refType: entry.refType,
    kind: entry.kind,
    amount: p.amount,
  }));

const alreadyPosted = (e: { refType: string; refId: string | number; kind: string }) =>
  new AppError(errno.conflict, null, `already posted: ${e.refType} ${e.refId} ${e.kind}`);

/**
 * Posts one balanced entry inside the caller's transaction. Refuses (errno 1019) when a wallet would go
 * below zero; refuses (409) when the same cause was already posted.
 */
export async function post(tx: Db, entry: Entry): Promise<PostedLine[]> {
  checkBalanced(entry);
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
  if (!inserted.length) throw alreadyPosted(entry);
  const posted = applyLines(accounts, entry.lines);
  await insertPostings(tx, postingRows(inserted[0]!.id, entry.at, posted));
  await saveAccounts(tx, accounts.values(), dailyMoves(entry, posted));
  return posted;
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
