/**
 * The batched pay-in move (`transitionMany`, what a statement import pays with) leaves what `transition`
 * leaves one order at a time: twin orders (same merchant, amount, state and payment) are paid one each
 * way, and their order rows, journal lines, callbacks and cancelled approvals are compared order by order,
 * the rollups they move (order stats, account capacity, T+N lines, balances, daily ledger movements) by
 * how much each half moved them. Merchants: one D0 with an agent on the simulator, one T+1 on a bank
 * account (capacity), and one T+1 whose day's line was released already (its money is due: available).
 * Orders already moved are left alone; a UTR in use refuses the whole batch.
 */
import { randomInt } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errno } from '../../../contract/errno.ts';
import { inTransaction } from '../../db/index.ts';
import {
  agents,
  approvals,
  journalEntries,
  ledgerAccounts,
  payinOrders,
  postings,
  tnLines,
  users,
  webhookEvents,
} from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { rowsOf } from '../../ledger/index.ts';
import { engines, startTestServer, type TestServer } from '../../test/harness.ts';
import { bankPayin, bankSetup } from '../receiving/testkit.ts';
import { businessNow } from '../settlement/tn.ts';
import { type OrderMoveItem, transition, transitionMany } from './state.ts';
import { createOrder, expectBalanced, type Merchant, merchantOn, orderById } from './testkit.ts';
import { withUtrGuard } from './utr.ts';
import { gatewayView, type PayinOrder } from './views.ts';

const newUtr = () => `8${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(100)).padStart(2, '0')}`;

/** Rollup rows as key → figures, for the difference a half of the payments made. */
type Figures = Map<string, number[]>;

describe.each(engines)('paying many pay-ins at once on %s', (engine) => {
  let s: TestServer;
  let d0: Merchant;
  let tn: Merchant;
  let bankChannel: number;
  let userId: number;

  beforeAll(async () => {
    s = await startTestServer(engine);
    const [agent] = await s.db
      .insert(agents)
      .values({ code: `A${randomInt(1e9)}`, name: 'Agent', commissionPpm: 10_000 })
      .returning();
    d0 = await merchantOn(s, undefined, {
      collectionRatePpm: 25_000,
      platformFee: 100,
      settlementDays: 0,
      agentId: agent!.id,
    });
    const bank = await bankSetup(s);
    bankChannel = bank.channelId;
    tn = await s.makeMerchant({
      channels: [{ channelId: bank.channelId, weight: 100 }],
      collectionRatePpm: 20_000,
      settlementDays: 1,
    });
    const [u] = await s.db.select({ id: users.id }).from(users).orderBy(asc(users.id)).limit(1);
    userId = u!.id;
  });
  afterAll(() => s.close());

  const figures = async (): Promise<Figures> => {
    const tables = [
      sql`select 'stats', day::text, merchant_id, channel_id, currency, finished_count, success_count,
        success_amount, success_fee, success_commission from order_stats_daily`,
      sql`select 'capacity', account_id, day::text, amount, count from receiving_account_days`,
      sql`select 'tn', merchant_id, currency, order_day::text, due_day::text, status, orders, gross, fee, net
        from tn_lines`,
      // A platform account's shards taken together (an entry posts to one of them, a batch to row 0).
      sql`select 'balance', owner_type, case when owner_type = 'platform' then 0 else owner_id end as owner, kind,
        currency, sum(balance) as balance, sum(version) as version from ledger_accounts group by 2, 3, 4, 5`,
      sql`select 'daily', a.owner_type, case when a.owner_type = 'platform' then 0 else a.owner_id end as owner,
        a.kind as account, a.currency, d.day::text, d.ref_type, d.kind, sum(d.amount) as amount,
        sum(d.postings) as postings
        from ledger_daily d join ledger_accounts a on a.id = d.account_id group by 2, 3, 4, 5, 6, 7, 8`,
      sql`select 'reconciliation', day::text, account_id, channel_id, currency, paid_count, paid_sum,
        unproved_count, unproved_sum, matched_count, matched_sum, unmatched_count, unmatched_sum
        from reconciliation_daily`,
    ];
    const out: Figures = new Map();
    for (const q of tables) {
      for (const row of rowsOf<Record<string, unknown>>(await s.db.execute(q))) {
        const values = Object.values(row);
        // The key columns are the text ones and the ids before the first figure.
        const keyLength = { stats: 5, capacity: 3, tn: 6, balance: 5, daily: 8, reconciliation: 5 }[
          values[0] as string
        ]!;
        out.set(values.slice(0, keyLength).join('|'), values.slice(keyLength).map(Number));
      }
    }
    return out;
  };
  /** What moved between two readings, figure by figure (rows that did not move are left out). */
  const moved = (before: Figures, after: Figures) => {
    const out: Record<string, number[]> = {};
    for (const [key, now] of after) {
      const was = before.get(key) ?? now.map(() => 0);
      const delta = now.map((v, i) => v - was[i]!);
      if (delta.some((v) => v !== 0)) out[key] = delta;
    }
    return out;
  };

  /** An order as its twin paid the other way must look: what differs by nature (ids, numbers, UTRs) left out. */
  const shape = async (o: PayinOrder) => {
    const entries = await s.db
      .select({
        id: journalEntries.id,
        kind: journalEntries.kind,
        memo: journalEntries.memo,
        userId: journalEntries.userId,
      })
      .from(journalEntries)
      .where(and(eq(journalEntries.refType, 'payin'), eq(journalEntries.refId, String(o.id))));
    const lines = await s.db
      .select({
        ownerType: ledgerAccounts.ownerType,
        // The platform's account, whichever of its shards the entry landed on.
        ownerId:
          sql<number>`case when ${ledgerAccounts.ownerType} = 'platform' then 0 else ${ledgerAccounts.ownerId} end`.mapWith(
            Number,
          ),
        account: ledgerAccounts.kind,
        amount: postings.amount,
      })
      .from(postings)
      .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, postings.accountId))
      .innerJoin(journalEntries, eq(journalEntries.id, postings.entryId))
      .where(and(eq(journalEntries.refType, 'payin'), eq(journalEntries.refId, String(o.id))))
      .orderBy(asc(ledgerAccounts.ownerType), asc(ledgerAccounts.kind));
    const events = await s.db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.orderType, 'payin'), eq(webhookEvents.orderId, o.id)));
    const requests = await s.db
      .select({ status: approvals.status, decidedAt: approvals.decidedAt })
      .from(approvals)
      .where(and(eq(approvals.refType, 'payin'), eq(approvals.refId, String(o.id))));
    // The payment's callback carries the order as it is now.
    for (const e of events.filter((e) => e.type === 'payin.paid'))
      expect(e.payload).toEqual({ type: e.type, data: gatewayView(o) });
    expect(entries.map((e) => e.memo)).toEqual([o.orderNo]);
    return {
      order: {
        status: o.status,
        pushStatus: o.pushStatus,
        callbackAt: o.callbackAt,
        paidBy: o.paidBy,
        paidAmount: o.paidAmount,
        paidAt: o.paidAt,
        updatedAt: o.updatedAt,
        hasUtr: o.utr !== null,
      },
      entries: entries.map((e) => ({ kind: e.kind, userId: e.userId })),
      lines,
      callbacks: events.map((e) => ({
        type: e.type,
        round: e.round,
        url: e.url,
        status: e.status,
        attempts: e.attempts,
        nextAttemptAt: e.nextAttemptAt,
      })),
      requests,
    };
  };

  it('pays twins one by one and in a batch to the same rows, the same balances and the same rollups', async () => {
    interface Spec {
      merchant: 'd0' | 'tn';
      amount: string;
      /** What the payment sets besides the UTR. */
      paid?: number;
      /** The order has ended unpaid before: paying it takes its account's capacity again. */
      unpaid?: boolean;
      /** The order holds a UTR already and the payment names none: it keeps its own. */
      ownUtr?: boolean;
      /** A forced supplement is waiting for a second person: paying makes it moot. */
      forceRequested?: boolean;
    }
    const specs: Spec[] = [
      { merchant: 'd0', amount: '100.00' },
      { merchant: 'd0', amount: '250.00', paid: 24_000 },
      { merchant: 'd0', amount: '75.00', forceRequested: true },
      { merchant: 'tn', amount: '120.00' },
      { merchant: 'tn', amount: '300.00', unpaid: true },
      { merchant: 'tn', amount: '50.00', ownUtr: true },
      { merchant: 'tn', amount: '80.00', forceRequested: true, unpaid: true },
    ];
    const utrBefore = new Map<number, string | null>();
    const make = async (spec: Spec) => {
      let o =
        spec.merchant === 'd0'
          ? await createOrder(s, d0, { amount: spec.amount })
          : (await bankPayin(s, tn, { amount: spec.amount })).order;
      if (spec.unpaid) {
        await s.db
          .update(payinOrders)
          .set({ expiresAt: new Date(s.clock.now().getTime() - 1000) })
          .where(eq(payinOrders.id, o.id));
        expect(await inTransaction(s.db, (tx) => transition(s.deps, tx, o.id, 'expire'))).not.toBeNull();
      }
      if (spec.ownUtr) await s.db.update(payinOrders).set({ utr: newUtr() }).where(eq(payinOrders.id, o.id));
      if (spec.forceRequested) {
        await s.db.insert(approvals).values({
          action: 'payin.force',
          refType: 'payin',
          refId: String(o.id),
          merchantId: o.merchantId,
          currency: o.currency,
          amount: o.amount,
          requestedBy: userId,
        });
      }
      o = await orderById(s, o.id);
      utrBefore.set(o.id, o.utr);
      return {
        id: o.id,
        set: {
          ...(spec.ownUtr ? {} : { utr: newUtr() }),
          paidAmount: spec.paid ?? o.amount,
          paidBy: 'statement' as const,
          paidAt: s.clock.now(),
        },
      } satisfies OrderMoveItem;
    };
    const single: OrderMoveItem[] = [];
    const batch: OrderMoveItem[] = [];
    for (const spec of specs) {
      single.push(await make(spec));
      batch.push(await make(spec));
    }
    expect(single.some((i) => (i.set.paidAmount ?? 0) > 0)).toBe(true);

    const start = await figures();
    for (const item of single) {
      const paid = await inTransaction(s.db, (tx) =>
        transition(s.deps, tx, item.id, 'supplement', item.set, userId),
      );
      expect(paid?.status).toBe('paid');
    }
    const middle = await figures();
    const paid = await inTransaction(s.db, (tx) => transitionMany(s.deps, tx, 'supplement', batch, userId));
    const end = await figures();

    expect(paid.map((o) => o.id)).toEqual(batch.map((i) => i.id));
    const byOne = moved(start, middle);
    const byBatch = moved(middle, end);
    // Every kind of rollup moved, and each the same.
    for (const kind of ['stats', 'capacity', 'tn', 'balance', 'daily', 'reconciliation'])
      expect(
        Object.keys(byOne).some((k) => k.startsWith(`${kind}|`)),
        kind,
      ).toBe(true);
    expect(byBatch).toEqual(byOne);

    for (const [i, spec] of specs.entries()) {
      const one = await orderById(s, single[i]!.id);
      const many = await orderById(s, batch[i]!.id);
      expect(many).toEqual(paid[i]);
      const a = await shape(one);
      const b = await shape(many);
      expect(b, JSON.stringify(spec)).toEqual(a);
      expect(a.callbacks.map((c) => c.type).sort()).toEqual(
        spec.unpaid ? ['payin.paid', 'payin.unpaid'] : ['payin.paid'],
      );
      expect(a.requests.map((r) => r.status)).toEqual(spec.forceRequested ? ['cancelled'] : []);
      expect(many.utr).toBe(spec.ownUtr ? utrBefore.get(many.id) : batch[i]!.set.utr);
      expect(many.utr).not.toBeNull();
    }
    await expectBalanced(s);
  });

  it('sends a T+N payment whose line the run has released to available, as one by one does', async () => {
    const late = await s.makeMerchant({
      channels: [{ channelId: bankChannel, weight: 100 }],
      collectionRatePpm: 20_000,
      settlementDays: 1,
    });
    const { day } = await businessNow(s.db, s.clock.now());
    const next = new Date(`${day}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    await s.db.insert(tnLines).values({
      merchantId: late.id,
      currency: 'INR',
      orderDay: day,
      dueDay: next.toISOString().slice(0, 10),
      status: 'released',
    });
    const pair = async (m: Merchant) => [
      (await bankPayin(s, m, { amount: '90.00' })).order,
      (await bankPayin(s, m, { amount: '90.00' })).order,
    ];
    // With a payment of a merchant whose line is still pending, in the same batch.
    const [lateOne, lateMany] = await pair(late);
    const [openOne, openMany] = await pair(tn);
    const item = (o: PayinOrder): OrderMoveItem => ({
      id: o.id,
      set: { utr: newUtr(), paidAmount: o.amount, paidBy: 'statement', paidAt: s.clock.now() },
    });
    const start = await figures();
    for (const o of [lateOne!, openOne!])
      await inTransaction(s.db, (tx) => transition(s.deps, tx, o.id, 'supplement', item(o).set, userId));
    const middle = await figures();
    await inTransaction(s.db, (tx) =>
      transitionMany(s.deps, tx, 'supplement', [item(lateMany!), item(openMany!)], userId),
    );
    const byOne = moved(start, middle);
    expect(moved(middle, await figures())).toEqual(byOne);
    expect(byOne[`balance|merchant|${late.id}|collection_available|INR`]).toEqual([8820, 1]);
    expect(byOne[`balance|merchant|${late.id}|collection_pending|INR`]).toBeUndefined();
    expect(byOne[`balance|merchant|${tn.id}|collection_pending|INR`]).toEqual([8820, 1]);
    expect(await shape(await orderById(s, lateMany!.id))).toEqual(
      await shape(await orderById(s, lateOne!.id)),
    );
    await expectBalanced(s);
  });

  it('answers only the orders that moved, and posts nothing for the others', async () => {
    const done = await createOrder(s, d0, { amount: '40.00' });
    const open = await createOrder(s, d0, { amount: '60.00' });
    const set = { paidAmount: 4000, paidBy: 'statement' as const, paidAt: s.clock.now() };
    await inTransaction(s.db, (tx) => transition(s.deps, tx, done.id, 'supplement', set, userId));
    const before = await figures();
    const paid = await inTransaction(s.db, (tx) =>
      transitionMany(
        s.deps,
        tx,
        'supplement',
        [
          { id: done.id, set },
          { id: open.id, set: { ...set, paidAmount: 6000 } },
          { id: 0, set },
        ],
        userId,
      ),
    );
    expect(paid.map((o) => o.id)).toEqual([open.id]);
    const [entries] = rowsOf<{ n: string | number }>(
      await s.db.execute(
        sql`select count(*) as n from journal_entries where ref_type = 'payin' and ref_id = ${String(done.id)}`,
      ),
    );
    expect(Number(entries!.n)).toBe(1);
    // Only the open order's payment moved the balances: 60.00 out of clearing.
    const clearing = Object.entries(moved(before, await figures())).filter(([k]) =>
      k.startsWith('balance|platform|0|channel_clearing'),
    );
    expect(clearing.map(([, v]) => v)).toEqual([[-6000, 1]]);
    await expectBalanced(s);
  });

  it('refuses the whole batch when one UTR is in use, writing nothing', async () => {
    const holder = await createOrder(s, d0, { amount: '30.00' });
    const utr = newUtr();
    await s.db.update(payinOrders).set({ utr }).where(eq(payinOrders.id, holder.id));
    const a = await createOrder(s, d0, { amount: '30.00' });
    const b = await createOrder(s, d0, { amount: '30.00' });
    const before = await figures();
    const set = { paidAmount: 3000, paidBy: 'statement' as const, paidAt: s.clock.now() };
    const err = await inTransaction(s.db, (tx) =>
      withUtrGuard(() =>
        transitionMany(
          s.deps,
          tx,
          'supplement',
          [
            { id: a.id, set: { ...set, utr: newUtr() } },
            { id: b.id, set: { ...set, utr } },
          ],
          userId,
        ),
      ),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).errno).toBe(errno.utrUsed);
    expect((await orderById(s, a.id)).status).toBe('pending');
    expect((await orderById(s, b.id)).status).toBe('pending');
    expect(moved(before, await figures())).toEqual({});
    await expectBalanced(s);
  });

  // Two batches naming the same orders in opposite orders, a forced payment of every third one and a
  // channel's payment (no lock taken before its update) of the next, all at once: every order is paid by
  // exactly one of them, with one entry and one callback, and the ledger balances.
  it.runIf(engine === 'postgres')(
    'pays each order once when batches, forced and channel payments race',
    async () => {
      const orders = await Promise.all([
        ...Array.from({ length: 8 }, () => createOrder(s, d0, { amount: '20.00' })),
        ...Array.from({ length: 8 }, async () => (await bankPayin(s, tn, { amount: '20.00' })).order),
      ]);
      const set = { paidAmount: 2000, paidBy: 'statement' as const, paidAt: s.clock.now() };
      const items = orders.map((o) => ({ id: o.id, set }));
      const batch = (list: OrderMoveItem[]) =>
        inTransaction(s.db, (tx) => transitionMany(s.deps, tx, 'supplement', list, userId));
      const single = (o: PayinOrder, i: number) =>
        inTransaction(s.db, (tx) =>
          i % 3 === 0
            ? transition(s.deps, tx, o.id, 'force', { paidBy: 'force', paidAt: s.clock.now() }, userId)
            : transition(s.deps, tx, o.id, 'channelPaid', { paidBy: 'channel', paidAt: s.clock.now() }),
        );
      const [first, second, ...singles] = await Promise.all([
        batch(items),
        batch([...items].reverse()),
        ...orders.flatMap((o, i) => (i % 3 === 2 ? [] : [single(o, i)])),
      ]);
      const payers = new Map<number, number>();
      for (const o of [...first, ...second, ...singles.flatMap((o) => o ?? [])])
        payers.set(o.id, (payers.get(o.id) ?? 0) + 1);
      const ids = orders.map((o) => o.id).sort((a, b) => a - b);
      expect(ids.map((id) => payers.get(id))).toEqual(ids.map(() => 1));
      const count = async (q: ReturnType<typeof sql>) =>
        rowsOf<{ id: string | number; n: string | number }>(await s.db.execute(q)).map((r) => [
          Number(r.id),
          Number(r.n),
        ]);
      const list = sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      );
      expect(
        await count(sql`select ref_id as id, count(*) as n from journal_entries
        where ref_type = 'payin' and kind = 'payin_paid' and ref_id in (${sql.join(
          ids.map((id) => sql`${String(id)}`),
          sql`, `,
        )}) group by ref_id order by ref_id::bigint`),
      ).toEqual(ids.map((id) => [id, 1]));
      expect(
        await count(sql`select order_id as id, count(*) as n from webhook_events
        where order_type = 'payin' and type = 'payin.paid' and order_id in (${list})
        group by order_id order by order_id`),
      ).toEqual(ids.map((id) => [id, 1]));
      for (const id of ids) expect((await orderById(s, id)).status).toBe('paid');
      await expectBalanced(s);
    },
  );
});
