/**
 * The demo seed's bulk writer: orders, simulator books, journal entries, callbacks and operation-log
 * rows buffered in memory and written in batched inserts, keeping every invariant the ledger keeps
 * (entries balance, postings chain before → after with gapless `seq`, account balance and version equal
 * what the postings add up to, wallets never below zero).
 *
 * The seed interleaves these bulk rows with calls of the real services (`createPayin`, `completePayout`,
 * …), which read and lock the same accounts. So: `flush` before a real call, and `stale` after it, and
 * the in-memory account state is reloaded from the database before the next bulk posting. Postings are
 * thereby written in the order of their time on every account, as the live system would write them.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import {
  journalEntries,
  operationLog,
  payinOrders,
  payoutOrders,
  postings,
  simulatorTransactions,
  webhookAttempts,
  webhookEvents,
} from '../db/schema.ts';
import { type AccountRef, rowsOf } from '../ledger/index.ts';

type PayinInsert = typeof payinOrders.$inferInsert;
type PayoutInsert = typeof payoutOrders.$inferInsert;
type SimInsert = typeof simulatorTransactions.$inferInsert;
type EventInsert = typeof webhookEvents.$inferInsert;
type AttemptInsert = Omit<typeof webhookAttempts.$inferInsert, 'eventId'>;
type LogInsert = typeof operationLog.$inferInsert;

/** A row not written yet: its id is known after the flush that inserts it. */
export interface Pending<T> {
  values: T;
  id?: number;
}

/** What an entry or a callback refers to: a known id, or a row of this writer's buffer. */
export type Ref = number | string | Pending<unknown>;

const refValue = (ref: Ref): number | string => {
  if (typeof ref === 'object') {
    if (ref.id === undefined) throw new Error('demo writer: a reference to a row that was never written');
    return ref.id;
  }
  return ref;
};

interface AccountState {
  id: number;
  balance: number;
  version: number;
  mayBeNegative: boolean;
}

const keyOf = (a: AccountRef) => `${a.ownerType}:${a.ownerId}:${a.kind}:${a.currency}`;

export interface BulkEntry {
  kind: string;
  refType: string;
  ref: Ref;
  memo?: string;
  userId?: number | null;
  at: Date;
  lines: { account: AccountRef; amount: number }[];
}

interface BufferedEntry {
  kind: string;
  refType: string;
  ref: Ref;
  memo: string;
  userId: number | null;
  at: Date;
  postings: {
    accountId: number;
    seq: number;
    amount: number;
    balanceBefore: number;
    balanceAfter: number;
    currency: string;
  }[];
}

export interface CallbackOutcome {
  status: 'pending' | 'delivered' | 'gave_up';
  attempts: AttemptInsert[];
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

/** What the demo's callback sink answers (see `mountDemoSink`). */
export const sinkAnswers = {
  ok: { status: 200, body: '{"ok":true}' },
  down: { status: 500, body: '{"ok":false,"error":"maintenance"}' },
} as const;

/**
 * The delivery history an event created at `createdAt` has by `now`, as the callback worker
 * (server/jobs/webhooks.ts) would have written it: a healthy receiver takes the first attempt (delivered
 * at the attempt's time); a failing one is tried again `schedule[n]` seconds after the n-th attempt until
 * the schedule runs out (`gave_up`), or is still waiting for its next attempt (`pending`, with
 * `nextAttemptAt` in the future).
 */
export function callbackHistory(
  createdAt: Date,
  healthy: boolean,
  now: Date,
  schedule: readonly number[],
  random: () => number,
): CallbackOutcome {
  const durationMs = () => 3 + Math.floor(random() * (healthy ? 60 : 25));
  let at = createdAt.getTime() + 40 + Math.floor(random() * 400);
  if (healthy) {
    const d = durationMs();
    return {
      status: 'delivered',
      attempts: [
        {
          at: new Date(at),
          manual: false,
          httpStatus: sinkAnswers.ok.status,
          response: sinkAnswers.ok.body,
          durationMs: d,
        },
      ],
      nextAttemptAt: null,
      deliveredAt: new Date(at),
    };
  }
  const attempts: AttemptInsert[] = [];
  for (;;) {
    const d = durationMs();
    attempts.push({
      at: new Date(at),
      manual: false,
      httpStatus: sinkAnswers.down.status,
      response: sinkAnswers.down.body,
      durationMs: d,
    });
    const wait = schedule[attempts.length];
    if (wait === undefined) return { status: 'gave_up', attempts, nextAttemptAt: null, deliveredAt: null };
    const next = at + wait * 1000;
    if (next > now.getTime()) {
      return { status: 'pending', attempts, nextAttemptAt: new Date(next), deliveredAt: null };
    }
    at = next;
  }
}

/** Splits `rows` into inserts of at most `size` rows (PostgreSQL takes at most 65,535 parameters). */
function* chunks<T>(rows: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

export class BulkWriter {
  private accounts: Map<string, AccountState> | null = null;
  private touched = new Set<AccountState>();
  private payins: Pending<PayinInsert>[] = [];
  private payouts: Pending<PayoutInsert>[] = [];
  private sims: SimInsert[] = [];
  private entries: BufferedEntry[] = [];
  private events: { values: Omit<EventInsert, 'orderId'>; order: Ref; attempts: AttemptInsert[] }[] = [];
  private logs: LogInsert[] = [];
  /** Rows written so far, by table (for the seed's summary). */
  readonly written = { payins: 0, payouts: 0, entries: 0, postings: 0, events: 0, attempts: 0, flushes: 0 };

  constructor(private readonly tx: Db) {}

  private get empty(): boolean {
    return (
      !this.payins.length &&
      !this.payouts.length &&
      !this.sims.length &&
      !this.entries.length &&
      !this.events.length &&
      !this.logs.length
    );
  }

  /**
   * The database moved on without us (a real service posted): read the accounts again before posting.
   * Only rows that touch no balance (operation-log rows) may wait in the buffer meanwhile.
   */
  stale(): void {
    if (this.entries.length) throw new Error('demo writer: stale() with unwritten journal entries');
    this.accounts = null;
  }

  private async state(): Promise<Map<string, AccountState>> {
    if (this.accounts) return this.accounts;
    const rows = rowsOf<{
      id: number;
      owner_type: string;
      owner_id: number;
      kind: string;
      currency: string;
      balance: string;
      version: string;
      may_be_negative: boolean;
    }>(
      await this.tx.execute(
        sql`select id, owner_type, owner_id, kind, currency, balance, version, may_be_negative from ledger_accounts`,
      ),
    );
    this.accounts = new Map(
      rows.map((r) => [
        `${r.owner_type}:${r.owner_id}:${r.kind}:${r.currency}`,
        {
          id: Number(r.id),
          balance: Number(r.balance),
          version: Number(r.version),
          mayBeNegative: r.may_be_negative,
        },
      ]),
    );
    return this.accounts;
  }

  /** An account's balance as of everything posted so far (real and buffered). */
  async balance(account: AccountRef): Promise<number> {
    const acc = (await this.state()).get(keyOf(account));
    return acc?.balance ?? 0;
  }

  /**
   * One entry, computed as `post` in server/ledger computes it: balanced per currency, lines in account
   * id order, each with before / after and the account's next `seq`; a wallet going below zero throws.
   * The accounts must exist (the seed creates them through the real services first).
   */
  async post(e: BulkEntry): Promise<void> {
    const sums = new Map<string, number>();
    for (const l of e.lines) {
      if (!Number.isSafeInteger(l.amount) || l.amount === 0) throw new Error(`demo: bad amount ${l.amount}`);
      sums.set(l.account.currency, (sums.get(l.account.currency) ?? 0) + l.amount);
    }
    for (const [currency, sum] of sums)
      if (sum !== 0) throw new Error(`demo: ${e.kind} does not balance in ${currency} (${sum})`);
    const state = await this.state();
    const lines = e.lines.map((l) => {
      const acc = state.get(keyOf(l.account));
      if (!acc) throw new Error(`demo: no account ${keyOf(l.account)}`);
      return { l, acc };
    });
    lines.sort((a, b) => a.acc.id - b.acc.id);
    const out: BufferedEntry['postings'] = [];
    for (const { l, acc } of lines) {
      const before = acc.balance;
      const after = before + l.amount;
      if (after < 0 && !acc.mayBeNegative) throw new Error(`demo: ${keyOf(l.account)} would go below zero`);
      acc.balance = after;
      acc.version += 1;
      this.touched.add(acc);
      out.push({
        accountId: acc.id,
        seq: acc.version,
        amount: l.amount,
        balanceBefore: before,
        balanceAfter: after,
        currency: l.account.currency,
      });
    }
    this.entries.push({
      kind: e.kind,
      refType: e.refType,
      ref: e.ref,
      memo: e.memo ?? '',
      userId: e.userId ?? null,
      at: e.at,
      postings: out,
    });
  }

  payin(values: PayinInsert): Pending<PayinInsert> {
    const row = { values };
    this.payins.push(row);
    return row;
  }

  payout(values: PayoutInsert): Pending<PayoutInsert> {
    const row = { values };
    this.payouts.push(row);
    return row;
  }

  sim(values: SimInsert): void {
    this.sims.push(values);
  }

  callback(values: Omit<EventInsert, 'orderId'>, order: Ref, attempts: AttemptInsert[]): void {
    this.events.push({ values, order, attempts });
  }

  log(values: LogInsert): void {
    this.logs.push(values);
  }

  /** Writes everything buffered, in the order the foreign keys and references need. */
  async flush(): Promise<void> {
    if (this.empty) return;
    const tx = this.tx;
    this.written.flushes++;
    for (const chunk of chunks(this.payins, 400)) {
      const ids = await tx
        .insert(payinOrders)
        .values(chunk.map((r) => r.values))
        .returning({ id: payinOrders.id, orderNo: payinOrders.orderNo });
      const byNo = new Map(ids.map((r) => [r.orderNo, r.id]));
      for (const r of chunk) r.id = byNo.get(r.values.orderNo);
    }
    for (const chunk of chunks(this.payouts, 400)) {
      const ids = await tx
        .insert(payoutOrders)
        .values(chunk.map((r) => r.values))
        .returning({ id: payoutOrders.id, orderNo: payoutOrders.orderNo });
      const byNo = new Map(ids.map((r) => [r.orderNo, r.id]));
      for (const r of chunk) r.id = byNo.get(r.values.orderNo);
    }
    for (const chunk of chunks(this.sims, 1000)) await tx.insert(simulatorTransactions).values(chunk);

    const entryIds = new Map<string, number>();
    const entryKey = (refType: string, refId: string, kind: string) =>
      `${refType}\u0000${refId}\u0000${kind}`;
    for (const chunk of chunks(this.entries, 1000)) {
      const ids = await tx
        .insert(journalEntries)
        .values(
          chunk.map((e) => ({
            at: e.at,
            kind: e.kind,
            refType: e.refType,
            refId: String(refValue(e.ref)),
            memo: e.memo,
            userId: e.userId,
          })),
        )
        .returning({
          id: journalEntries.id,
          refType: journalEntries.refType,
          refId: journalEntries.refId,
          kind: journalEntries.kind,
        });
      for (const r of ids) entryIds.set(entryKey(r.refType, r.refId, r.kind), r.id);
    }
    const postingRows = this.entries.flatMap((e) => {
      const entryId = entryIds.get(entryKey(e.refType, String(refValue(e.ref)), e.kind))!;
      return e.postings.map((p) => ({ ...p, entryId, at: e.at }));
    });
    for (const chunk of chunks(postingRows, 1000)) await tx.insert(postings).values(chunk);
    if (this.touched.size) {
      const rows = [...this.touched].map(
        (a) => sql`(${a.id}::int, ${a.balance}::bigint, ${a.version}::bigint)`,
      );
      await tx.execute(sql`
        update ledger_accounts a set balance = v.balance, version = v.version
        from (values ${sql.join(rows, sql`, `)}) as v(id, balance, version)
        where a.id = v.id`);
    }

    const attempts: (AttemptInsert & { eventId: number })[] = [];
    for (const chunk of chunks(this.events, 500)) {
      const ids = await tx
        .insert(webhookEvents)
        .values(chunk.map((e) => ({ ...e.values, orderId: Number(refValue(e.order)) })))
        .returning({ id: webhookEvents.id, messageId: webhookEvents.messageId });
      const byMessage = new Map(ids.map((r) => [r.messageId, r.id]));
      for (const e of chunk) {
        const eventId = byMessage.get(e.values.messageId)!;
        for (const a of e.attempts) attempts.push({ ...a, eventId });
      }
    }
    for (const chunk of chunks(attempts, 1000)) await tx.insert(webhookAttempts).values(chunk);
    for (const chunk of chunks(this.logs, 500)) await tx.insert(operationLog).values(chunk);

    this.written.payins += this.payins.length;
    this.written.payouts += this.payouts.length;
    this.written.entries += this.entries.length;
    this.written.postings += postingRows.length;
    this.written.events += this.events.length;
    this.written.attempts += attempts.length;
    this.payins = [];
    this.payouts = [];
    this.sims = [];
    this.entries = [];
    this.events = [];
    this.logs = [];
    this.touched.clear();
  }
}
