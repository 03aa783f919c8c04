/**
 * The demo seed's bulk writer: orders, simulator books, callbacks and operation-log rows buffered in
 * memory and written in batched inserts. Money goes through the ledger's bulk path (`LedgerBatch`, in
 * server/ledger): this writer only holds the batch and writes it between the orders its entries refer to
 * and the callbacks that follow.
 *
 * The seed interleaves these bulk rows with calls of the real services (`createPayin`, `completePayout`,
 * …), which post to the same accounts. So: `flush` before a real call, and `stale` after it, and the
 * next bulk entry starts a new batch on the accounts as the real call left them. Postings are thereby
 * written in the order of their time on every account, as the live system would write them.
 */
import type { Db } from '../db/index.ts';
import {
  operationLog,
  payinOrders,
  payoutOrders,
  simulatorTransactions,
  webhookAttempts,
  webhookEvents,
} from '../db/schema.ts';
import { type AccountRef, accountKey, type BatchEntry, LedgerBatch } from '../ledger/index.ts';
import { chunks } from '../lib/chunks.ts';
import { paymentEntry } from '../modules/payin/state.ts';
import {
  addToReserveLines,
  type ReservePayment,
  type ReserveTerms,
  reservePaymentOf,
} from '../modules/settlement/reserve.ts';
import { addToTnLines, type TnPayment, tnPaymentOf } from '../modules/settlement/tn.ts';

type PayinInsert = typeof payinOrders.$inferInsert;
type PayoutInsert = typeof payoutOrders.$inferInsert;
type SimInsert = typeof simulatorTransactions.$inferInsert;
type EventInsert = typeof webhookEvents.$inferInsert;
export type AttemptInsert = Omit<typeof webhookAttempts.$inferInsert, 'eventId'>;
type LogInsert = typeof operationLog.$inferInsert;

/** A row not written yet: its id is known after the flush that inserts it. */
export interface Pending<T> {
  values: T;
  id?: number;
}

/**
 * Writes buffered orders 400 at a time and learns each one's id by its order number: the entries and
 * callbacks buffered with them name the order by that id.
 */
async function writeOrders<V extends { orderNo: string }>(
  rows: Pending<V>[],
  insert: (values: V[]) => PromiseLike<{ id: number; orderNo: string }[]>,
): Promise<void> {
  for (const chunk of chunks(rows, 400)) {
    const ids = await insert(chunk.map((r) => r.values));
    const byNo = new Map(ids.map((r) => [r.orderNo, r.id]));
    for (const r of chunk) r.id = byNo.get(r.values.orderNo);
  }
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

/** A ledger entry whose cause, `ref`, may be a row of this writer's buffer (it replaces any `refId`). */
export interface DemoEntry extends Omit<BatchEntry, 'refId'> {
  ref: Ref;
}

export class BulkWriter {
  private ledger: LedgerBatch;
  private readonly accounts = new Map<string, AccountRef>();
  private payins: Pending<PayinInsert>[] = [];
  private payouts: Pending<PayoutInsert>[] = [];
  private sims: SimInsert[] = [];
  private events: { values: Omit<EventInsert, 'orderId'>; order: Ref; attempts: AttemptInsert[] }[] = [];
  private logs: LogInsert[] = [];
  private tnPayments: TnPayment[] = [];
  private reservePayments: ReservePayment[] = [];

  constructor(private readonly tx: Db) {
    this.ledger = new LedgerBatch(tx);
  }

  private get empty(): boolean {
    return (
      !this.payins.length &&
      !this.payouts.length &&
      !this.sims.length &&
      !this.ledger.pending &&
      !this.events.length &&
      !this.logs.length &&
      !this.tnPayments.length &&
      !this.reservePayments.length
    );
  }

  /**
   * A real service posted: the next entry starts a new batch on the accounts as it left them. Only rows
   * that touch no balance (operation-log rows) may wait in the buffer meanwhile.
   */
  stale(): void {
    if (this.ledger.pending) throw new Error('demo writer: stale() with unwritten journal entries');
    this.ledger = new LedgerBatch(this.tx);
  }

  /** Every account used so far: a new batch locks them all in one query, not one query per account. */
  private async hold(refs: readonly AccountRef[]): Promise<void> {
    for (const r of refs) this.accounts.set(accountKey(r), r);
    await this.ledger.hold([...this.accounts.values()]);
  }

  /** An account's balance as of everything posted so far (real and buffered). */
  async balance(account: AccountRef): Promise<number> {
    await this.hold([account]);
    return this.ledger.balance(account);
  }

  /** One entry, through the ledger's batch: refused there as `post` refuses (a wallet below zero throws). */
  async post({ ref, ...entry }: DemoEntry): Promise<void> {
    await this.hold(entry.lines.map((l) => l.account));
    await this.ledger.post({ ...entry, refId: () => refValue(ref) });
  }

  /**
   * A paid pay-in's money, as the payment path moves it: its journal entry, its reserve line's share
   * and, under T+N, its share of the merchant's settlement line of the day.
   */
  async payment(
    order: Parameters<typeof paymentEntry>[0] & Parameters<typeof tnPaymentOf>[0],
    terms: Parameters<typeof paymentEntry>[1] & ReserveTerms,
    at: Date,
    ref: Ref,
  ): Promise<void> {
    // The demo's merchants owe no debt: only the reserve's share is split off.
    const reserve = reservePaymentOf(order, terms, at);
    const split = { reserve: reserve?.amount ?? 0, recovery: 0 };
    await this.post({ ...paymentEntry(order, terms, null, at, undefined, split), ref });
    if (reserve) this.reservePayments.push(reserve);
    const tn = tnPaymentOf(order, terms, at, split.reserve);
    if (tn) this.tnPayments.push(tn);
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
    await writeOrders(this.payins, (v) =>
      tx.insert(payinOrders).values(v).returning({ id: payinOrders.id, orderNo: payinOrders.orderNo }),
    );
    await writeOrders(this.payouts, (v) =>
      tx.insert(payoutOrders).values(v).returning({ id: payoutOrders.id, orderNo: payoutOrders.orderNo }),
    );
    for (const chunk of chunks(this.sims, 1000)) await tx.insert(simulatorTransactions).values(chunk);
    // After the orders: the entries' causes are their ids.
    await this.ledger.write();
    // The seed writes in time order and runs no settlement between, so no line is released yet.
    const released = await addToTnLines(tx, this.tnPayments);
    if (released.length) throw new Error('demo writer: a T+N payment on a released settlement line');
    if ((await addToReserveLines(tx, this.reservePayments)).length)
      throw new Error('demo writer: a reserve on a released reserve line');

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

    this.payins = [];
    this.payouts = [];
    this.sims = [];
    this.events = [];
    this.logs = [];
    this.tnPayments = [];
    this.reservePayments = [];
  }
}
