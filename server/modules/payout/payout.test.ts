/**
 * Payouts through the gateway and the state machine, on every engine: the freeze at `queued` and each
 * outcome's postings, every (state, action) pair, retries, idempotency, the IP whitelist, refusals that
 * write nothing, routing, the worker and the simulator's automatic mode, callbacks verified with the
 * Standard Webhooks library, and a fast-check model run. The books are checked after every test.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, asc, count, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { type PayoutAction, payout as payoutMachine } from '../../../contract/machines.ts';
import { adapters } from '../../channels/index.ts';
import { inTransaction } from '../../db/index.ts';
import {
  channels,
  journalEntries,
  ledgerAccounts,
  merchantChannels,
  merchants,
  payoutOrders,
  postings,
  webhookEvents,
} from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { deliverDue } from '../../jobs/webhooks.ts';
import { merchantBalances } from '../../ledger/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { sweep } from '../../test/sweep.ts';
import { checkPayoutInvariants } from './invariants.ts';
import { autoSettleSimulatorPayouts, submitDuePayouts } from './jobs.ts';
import {
  claimed,
  completePayout,
  createPayout,
  maxSubmitAttempts,
  type PayoutOrder,
  payoutIdempotencyKey,
  payoutRequestHash,
  recoverSubmission,
  retryPayout,
  submitLeaseMs,
  submitPayout,
} from './service.ts';
import {
  balances,
  drainQueue,
  expectBooksBalanced,
  type FakeChannelBehaviour,
  fakeChannel,
  type Merchant,
  orderByNo,
  ownSimulatorChannel,
  payoutBody,
  payoutOperator,
  seedPayoutBalance,
  simulatorMerchant,
} from './testkit.ts';

const inside = '203.0.113.7';
const whitelist = ['203.0.113.0/24'];

describe.each(engines)('payouts on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  let op: Awaited<ReturnType<typeof payoutOperator>>;
  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
    op = await payoutOperator(s);
  });
  afterEach(async () => {
    await expectBooksBalanced(s);
  });
  afterAll(() => s.close());

  /** A merchant with 1 % + 5.00 per payout, the test whitelist, and `seed` in its payout wallet. */
  async function funded(seed = 1_000_000, terms: Parameters<TestServer['makeMerchant']>[0] = {}) {
    const m = await simulatorMerchant(s, {
      payoutRatePpm: 10_000,
      payoutFee: 500,
      payoutIpWhitelist: whitelist,
      ...terms,
    });
    if (seed) await seedPayoutBalance(s, m.id, seed);
    return m;
  }
  const create = (m: Merchant, body: Record<string, unknown>, ip = inside) =>
    s.gateway(m, 'POST', '/gateway/v1/payout', body, { ip });
  async function entriesOf(orderId: number) {
    return s.db
      .select()
      .from(journalEntries)
      .where(and(eq(journalEntries.refType, 'payout'), eq(journalEntries.refId, String(orderId))))
      .orderBy(asc(journalEntries.id));
  }
  async function linesOf(entryId: number) {
    return s.db
      .select({
        ownerType: ledgerAccounts.ownerType,
        kind: ledgerAccounts.kind,
        amount: postings.amount,
        before: postings.balanceBefore,
        after: postings.balanceAfter,
      })
      .from(postings)
      .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, postings.accountId))
      .where(eq(postings.entryId, entryId))
      .orderBy(asc(postings.id));
  }
  const platformBalance = async (kind: 'fee_income' | 'payout_clearing') => {
    const [row] = await s.db
      .select({ b: ledgerAccounts.balance })
      .from(ledgerAccounts)
      .where(and(eq(ledgerAccounts.ownerType, 'platform'), eq(ledgerAccounts.kind, kind)));
    return row?.b ?? 0;
  };
  const counts = async () => ({
    orders: (await s.db.select({ n: count() }).from(payoutOrders))[0]!.n,
    entries: (await s.db.select({ n: count() }).from(journalEntries))[0]!.n,
    events: (await s.db.select({ n: count() }).from(webhookEvents))[0]!.n,
  });
  const eventsOf = (orderId: number) =>
    s.db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.orderType, 'payout'), eq(webhookEvents.orderId, orderId)))
      .orderBy(asc(webhookEvents.id));

  /** A payout created through the gateway and (unless `queued`) submitted to its channel. */
  async function payout(m: Merchant, state: 'queued' | 'processing' = 'processing', amount = '100.00') {
    const res = await create(m, payoutBody({ amount }));
    expect(res.status).toBe(201);
    const o = await orderByNo(s, res.json.data.orderNo);
    if (state === 'processing') {
      await submitPayout(s.deps, o.id);
      return orderByNo(s, o.orderNo);
    }
    return o;
  }

  it('answers 201 queued and freezes amount + fee at once, in one entry with before and after', async () => {
    const m = await funded(1_000_000);
    const res = await create(m, payoutBody({ amount: '1000.00' }));
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(res.json).toMatchObject({ errno: 0, data: { status: 'queued', amount: '1000.00', fee: '15.00' } });
    expect(res.json.data.orderNo).toMatch(/^PO\d{12}\d{8}$/);
    const o = await orderByNo(s, res.json.data.orderNo);
    expect(o).toMatchObject({
      status: 'queued',
      holdOpen: true,
      holds: 1,
      amount: 100_000,
      fee: 1_500,
      source: 'api',
    });
    const entries = await entriesOf(o.id);
    expect(entries.map((e) => e.kind)).toEqual(['payout_freeze_1']);
    expect(await linesOf(entries[0]!.id)).toEqual([
      {
        ownerType: 'merchant',
        kind: 'payout_available',
        amount: -101_500,
        before: 1_000_000,
        after: 898_500,
      },
      { ownerType: 'merchant', kind: 'frozen', amount: 101_500, before: 0, after: 101_500 },
    ]);
    expect(await balances(s, m.id)).toMatchObject({ payout_available: 898_500, frozen: 101_500 });
  });

  it('spends the hold on success: frozen −(amount+fee), payout clearing +amount, fee income +fee', async () => {
    const m = await funded(1_000_000);
    const o = await payout(m, 'processing', '1000.00');
    expect(o.status).toBe('processing');
    const fee0 = await platformBalance('fee_income');
    const clearing0 = await platformBalance('payout_clearing');
    const res = await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'success' }, admin);
    expect(res).toMatchObject({ errno: 0, data: { orderNo: o.orderNo, status: 'success' } });
    const entries = await entriesOf(o.id);
    expect(entries.map((e) => e.kind)).toEqual(['payout_freeze_1', 'payout_success']);
    const lines = await linesOf(entries[1]!.id);
    expect(lines).toHaveLength(3);
    expect(lines.find((l) => l.kind === 'frozen')).toEqual({
      ownerType: 'merchant',
      kind: 'frozen',
      amount: -101_500,
      before: 101_500,
      after: 0,
    });
    const clearing = lines.find((l) => l.kind === 'payout_clearing')!;
    expect(clearing).toMatchObject({ amount: 100_000, before: clearing0, after: clearing0 + 100_000 });
    const fee = lines.find((l) => l.kind === 'fee_income')!;
    expect(fee).toMatchObject({ amount: 1_500, before: fee0, after: fee0 + 1_500 });
    expect(await balances(s, m.id)).toMatchObject({ payout_available: 898_500, frozen: 0 });
    const done = await orderByNo(s, o.orderNo);
    expect(done).toMatchObject({ status: 'success', holdOpen: false });
    expect(done.utr).toMatch(/^\d{12}$/);
    // The callback carries the order exactly as the gateway query answers it.
    const query = await s.gateway(m, 'GET', `/gateway/v1/payout/${o.orderNo}`);
    expect(query.status).toBe(200);
    const events = await eventsOf(o.id);
    expect(events.map((e) => [e.type, e.round])).toEqual([['payout.success', 1]]);
    expect(events[0]!.payload).toEqual({ type: 'payout.success', data: query.json.data });
  });

  it('releases the hold on failure: frozen −(amount+fee), payout available +(amount+fee)', async () => {
    const m = await funded(500_000);
    const o = await payout(m, 'processing', '200.00');
    const res = await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'fail' }, admin);
    expect(res).toMatchObject({ errno: 0, data: { status: 'failed' } });
    const entries = await entriesOf(o.id);
    expect(entries.map((e) => e.kind)).toEqual(['payout_freeze_1', 'payout_release_1']);
    expect(await linesOf(entries[1]!.id)).toEqual([
      { ownerType: 'merchant', kind: 'payout_available', amount: 20_700, before: 479_300, after: 500_000 },
      { ownerType: 'merchant', kind: 'frozen', amount: -20_700, before: 20_700, after: 0 },
    ]);
    expect(await balances(s, m.id)).toMatchObject({ payout_available: 500_000, frozen: 0 });
    const query = await s.gateway(m, 'GET', `/gateway/v1/payout?merchantOrderNo=${o.merchantOrderNo}`);
    expect(query.json.data).toMatchObject({ status: 'failed', failureReason: expect.any(String), utr: null });
    const events = await eventsOf(o.id);
    expect(events.map((e) => e.type)).toEqual(['payout.failed']);
    expect(events[0]!.payload).toEqual({ type: 'payout.failed', data: query.json.data });
  });

  describe('the state machine: every (state, action) pair of the declaration', () => {
    let m: Merchant;
    let fake: Awaited<ReturnType<typeof fakeChannel>>;

    beforeAll(async () => {
      m = await funded(10_000_000);
      // A channel out of our database whose answers each step sets (see testkit).
      fake = await fakeChannel(s, m.id);
    });
    afterAll(async () => {
      // What the sweep left under way leaves the workers' way: queued orders are declined, abandoned
      // claims left to a person.
      Object.assign(fake.behaviour, { refuse: true, query: 'unreachable' });
      await drainQueue(s);
      await fake.remove();
    });

    /** Runs `fn` with the channel behaving as `over` says, and as before afterwards. */
    async function channelBehaving<T>(over: Partial<FakeChannelBehaviour>, fn: () => Promise<T>): Promise<T> {
      const was = { ...fake.behaviour };
      Object.assign(fake.behaviour, over);
      try {
        return await fn();
      } finally {
        Object.assign(fake.behaviour, was);
      }
    }
    const asErrno = (p: Promise<unknown>) =>
      p.then(
        () => 0,
        (e) => (e instanceof AppError ? e.errno : Promise.reject(e)),
      );
    /** The worker takes over a claim whose worker vanished and asks the channel (null: nothing to take over). */
    const recover = async (o: PayoutOrder) => ((await recoverSubmission(s.deps, o.id)) ? 0 : errno.conflict);
    const byChannel = (o: PayoutOrder, result: 'success' | 'fail') =>
      asErrno(
        inTransaction(s.db, (tx) => completePayout(s.deps, tx, { orderId: o.id, result, by: 'channel' })),
      );
    /** The state a claim was seen in by the channel during the hand-over. */
    let seenAtChannel: PayoutOrder['status'] | undefined;

    /** Each action driven the way it happens: the worker, the channel, or a person through the API. */
    const drive: Record<PayoutAction, (o: PayoutOrder) => Promise<number>> = {
      claim: async (o) => {
        seenAtChannel = undefined;
        const name = fake.channel.adapter;
        const channel = adapters[name]!;
        adapters[name] = {
          ...channel,
          async createPayout(ctx, p) {
            seenAtChannel = (await orderByNo(s, p.orderNo)).status;
            return channel.createPayout(ctx, p);
          },
        };
        try {
          return await asErrno(submitPayout(s.deps, o.id));
        } finally {
          adapters[name] = channel;
        }
      },
      accepted: (o) => {
        // The channel booked it and says so when asked.
        fake.books.push({
          idempotencyKey: payoutIdempotencyKey(o),
          orderNo: o.orderNo,
          amount: o.amount,
          channelOrderId: `FAKE-SWEEP-${o.id}`,
          status: 'pending',
        });
        return recover(o);
      },
      // Asked, the channel says it never received it.
      requeue: (o) => channelBehaving({ query: 'answer' }, () => recover(o)),
      // The channel cannot be asked.
      unclear: (o) => channelBehaving({ query: 'unreachable' }, () => recover(o)),
      creationFailed: async (o) => {
        // A queued order every channel declines; a claim whose last attempt the channel never received.
        if (o.status === payoutMachine.initial)
          return channelBehaving({ refuse: true }, () => asErrno(submitPayout(s.deps, o.id)));
        await s.db
          .update(payoutOrders)
          .set({ attempts: maxSubmitAttempts })
          .where(and(eq(payoutOrders.id, o.id), eq(payoutOrders.status, claimed)));
        return recover(o);
      },
      channelSuccess: (o) => byChannel(o, 'success'),
      channelFailed: (o) => byChannel(o, 'fail'),
      markSuccess: async (o) =>
        (await op.act('markSuccess', o.id, { reason: 'paid by hand', utr: 'UTR123456' })).errno,
      markFailed: async (o) => (await op.act('markFailed', o.id, { reason: 'bank refused' })).errno,
      retry: async (o) => (await op.act('retry', o.id)).errno,
      push: async (o) => (await s.call(endpoints.merchantPayout.push, { id: o.id }, admin)).errno,
    };
    /** A push with nothing to push is told so (1034); every other refusal is a conflict (409). */
    const refusalOf = (action: PayoutAction) => (action === 'push' ? errno.noCallback : errno.conflict);

    /** An order brought into `state` the way orders get there. */
    async function orderIn(state: PayoutOrder['status']): Promise<PayoutOrder> {
      const o = await payout(m, 'queued');
      /** A claim whose worker vanished past its lease (a second process is what a test cannot be). */
      const abandonedClaim = () =>
        s.db
          .update(payoutOrders)
          .set({
            status: claimed,
            channelId: fake.channel.id,
            attempts: 1,
            updatedAt: new Date(s.clock.now().getTime() - submitLeaseMs - 1_000),
          })
          .where(eq(payoutOrders.id, o.id));
      const submitted = () => submitPayout(s.deps, o.id);
      const steps: Record<PayoutOrder['status'], (() => Promise<unknown>)[]> = {
        queued: [],
        submitting: [abandonedClaim],
        needs_review: [abandonedClaim, () => channelBehaving({ query: 'unreachable' }, () => recover(o))],
        processing: [submitted],
        success: [submitted, () => byChannel(o, 'success')],
        failed: [submitted, () => byChannel(o, 'fail')],
        creation_failed: [() => channelBehaving({ refuse: true }, submitted)],
      };
      for (const step of steps[state]) await step();
      const now = await orderByNo(s, o.orderNo);
      expect(now.status).toBe(state);
      return now;
    }

    for (const c of sweep(payoutMachine)) {
      it(c.name, async () => {
        const o = await orderIn(c.state);
        const entries = await entriesOf(o.id);
        const bal = await balances(s, m.id);
        const calls = fake.callsFor(o.orderNo);
        const code = await drive[c.action](o);
        const after = await orderByNo(s, o.orderNo);
        if (c.allowed) {
          expect(code).toBe(0);
          if (c.action === 'claim') {
            // Claimed before the channel is called; the channel then booked it.
            expect(seenAtChannel).toBe(c.after);
            expect(after.status).toBe(payoutMachine.to('accepted'));
          } else expect(after.status).toBe(c.after);
          // The hold is open exactly while the order is under way, and each change of it is one entry.
          expect(after.holdOpen).toBe(payoutMachine.is('underWay', after.status));
          expect((await entriesOf(o.id)).length - entries.length).toBe(Number(after.holdOpen !== o.holdOpen));
        } else {
          expect(code).toBe(refusalOf(c.action));
          expect(after).toEqual(o);
          expect(await entriesOf(o.id)).toEqual(entries);
          expect(await balances(s, m.id)).toEqual(bal);
          expect(fake.callsFor(o.orderNo)).toBe(calls);
        }
      });
    }
  });

  it('retries a failed payout with a new hold, and tells each outcome in its own callback', async () => {
    const m = await funded(100_000);
    const o = await payout(m, 'processing', '100.00');
    expect(
      (await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'fail' }, admin)).errno,
    ).toBe(0);
    expect(await balances(s, m.id)).toMatchObject({ payout_available: 100_000, frozen: 0 });
    const retried = await op.act('retry', o.id);
    expect(retried).toMatchObject({ errno: 0, data: { status: 'queued', channelId: null } });
    expect(await balances(s, m.id)).toMatchObject({ payout_available: 89_400, frozen: 10_600 });
    await drainQueue(s);
    expect((await orderByNo(s, o.orderNo)).status).toBe('processing');
    expect((await op.act('markFailed', o.id, { reason: 'bank down' })).errno).toBe(0);
    expect((await op.act('retry', o.id)).errno).toBe(0);
    await drainQueue(s);
    expect(
      (await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'success' }, admin)).errno,
    ).toBe(0);
    const final = await orderByNo(s, o.orderNo);
    expect(final).toMatchObject({ status: 'success', holds: 3, holdOpen: false });
    expect((await entriesOf(o.id)).map((e) => e.kind)).toEqual([
      'payout_freeze_1',
      'payout_release_1',
      'payout_freeze_2',
      'payout_release_2',
      'payout_freeze_3',
      'payout_success',
    ]);
    expect(await balances(s, m.id)).toMatchObject({ payout_available: 89_400, frozen: 0 });
    const events = await eventsOf(o.id);
    expect(events.map((e) => [e.type, e.round])).toEqual([
      ['payout.failed', 1],
      ['payout.failed', 2],
      ['payout.success', 1],
    ]);
    expect(new Set(events.map((e) => e.messageId)).size).toBe(3);
    expect((events[1]!.payload as { data: { failureReason: string } }).data.failureReason).toBe('bank down');
  });

  it('refuses a retry the balance no longer covers (1019), leaving the order failed', async () => {
    const m = await funded(10_600);
    const o = await payout(m, 'processing', '100.00');
    expect(
      (await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'fail' }, admin)).errno,
    ).toBe(0);
    // Spend most of the released balance on another payout first.
    expect((await create(m, payoutBody({ amount: '50.00' }))).status).toBe(201);
    const before = await counts();
    const res = await op.act('retry', o.id);
    expect(res.errno).toBe(errno.insufficientBalance);
    expect(await orderByNo(s, o.orderNo)).toMatchObject({ status: 'failed', holds: 1, holdOpen: false });
    expect((await counts()).entries).toBe(before.entries);
  });

  describe('idempotency', () => {
    it('replays the original answer for the same content, with 200 and Idempotent-Replayed', async () => {
      const m = await funded();
      const body = payoutBody({ amount: '10.00' });
      const first = await create(m, body);
      expect(first.status).toBe(201);
      const o = await orderByNo(s, first.json.data.orderNo);
      await submitPayout(s.deps, o.id);
      const before = await counts();
      for (let i = 0; i < 2; i++) {
        const again = await create(m, body);
        expect(again.status).toBe(200);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        // The original answer, byte for byte, although the order has moved on since.
        expect(JSON.stringify(again.json)).toBe(JSON.stringify(first.json));
      }
      expect(await counts()).toEqual(before);
      expect((await entriesOf(o.id)).map((e) => e.kind)).toEqual(['payout_freeze_1']);
    });

    it('answers 409 for the same merchant order number with other content, writing nothing', async () => {
      const m = await funded();
      const body = payoutBody({ amount: '10.00' });
      expect((await create(m, body)).status).toBe(201);
      const before = await counts();
      const bal = await balances(s, m.id);
      for (const change of [
        { amount: '10.01' },
        { accountNumber: '999999999' },
        { accountName: 'Someone Else' },
        { ifsc: 'ICIC0000001' },
        { notifyUrl: 'https://example.com/other' },
      ]) {
        const res = await create(m, { ...body, ...change });
        expect(res.status, JSON.stringify(change)).toBe(409);
        expect(res.json.errno).toBe(errno.conflict);
      }
      expect(await counts()).toEqual(before);
      expect(await balances(s, m.id)).toEqual(bal);
    });

    // Issue 29 (DECISIONS.md): a body that fails validation is 422 whatever its number; a valid body under
    // a taken number is a replay or a 409, before the merchant's limits or balance are asked.
    it('judges the body first: the same number with an invalid body answers 422, writing nothing', async () => {
      const m = await funded();
      const body = payoutBody({ amount: '10.00' });
      expect((await create(m, body)).status).toBe(201);
      const before = await counts();
      const bal = await balances(s, m.id);
      for (const [change, path] of [
        [{ amount: '10.001' }, 'amount'],
        [{ ifsc: 'not-an-ifsc' }, 'ifsc'],
        [{ accountNumber: '' }, 'accountNumber'],
      ] as const) {
        const res = await create(m, { ...body, ...change });
        expect(res.status, JSON.stringify(change)).toBe(422);
        expect(res.json.errno).toBe(errno.invalid);
        expect(res.json.data.fields[0]).toMatchObject({ path });
      }
      // Out of the merchant's limits (valid in form): the number decides first, and it is taken.
      const beyond = await create(m, { ...body, amount: '99999999.00' });
      expect(beyond.status).toBe(409);
      expect(await counts()).toEqual(before);
      expect(await balances(s, m.id)).toEqual(bal);
      expect((await create(m, body)).status).toBe(200);
    });

    it('creates exactly one order and one hold for 20 concurrent identical creates', async () => {
      const m = await funded();
      const body = payoutBody({ amount: '25.00' });
      const results = await Promise.all(Array.from({ length: 20 }, () => create(m, body)));
      expect(results.map((r) => r.status).sort((a, b) => a - b)).toEqual([...Array(19).fill(200), 201]);
      const bodies = new Set(results.map((r) => JSON.stringify(r.json.data)));
      expect(bodies.size).toBe(1);
      const orders = await s.db
        .select()
        .from(payoutOrders)
        .where(
          and(eq(payoutOrders.merchantId, m.id), eq(payoutOrders.merchantOrderNo, body.merchantOrderNo)),
        );
      expect(orders).toHaveLength(1);
      expect((await entriesOf(orders[0]!.id)).map((e) => e.kind)).toEqual(['payout_freeze_1']);
      expect(await balances(s, m.id)).toMatchObject({ frozen: 2_500 + 525 });
    });

    it('keys idempotency per merchant: two merchants may use one merchant order number', async () => {
      const a = await funded();
      const b = await funded();
      const body = payoutBody();
      expect((await create(a, body)).status).toBe(201);
      const res = await create(b, body);
      expect(res.status).toBe(201);
      expect((await orderByNo(s, res.json.data.orderNo)).merchantId).toBe(b.id);
    });

    it('hashes the canonical request: every field counts', () => {
      const base = {
        amount: 100,
        accountName: 'A',
        accountNumber: '123456',
        ifsc: 'HDFC0001234',
        notifyUrl: 'u',
      };
      const h = payoutRequestHash('x', base);
      expect(payoutRequestHash('x', { ...base })).toBe(h);
      for (const change of [
        { amount: 101 },
        { accountName: 'B' },
        { notifyUrl: 'v' },
        { ifsc: 'HDFC0001235' },
      ])
        expect(payoutRequestHash('x', { ...base, ...change })).not.toBe(h);
      expect(payoutRequestHash('y', base)).not.toBe(h);
    });
  });

  describe('refusals that write nothing', () => {
    it('refuses a caller outside the payout IP whitelist (403); an address or CIDR inside is allowed', async () => {
      const m = await funded(1_000_000, {
        payoutIpWhitelist: ['198.51.100.0/24', '192.0.2.10', '2001:db8::/32'],
      });
      expect((await create(m, payoutBody(), '198.51.100.23')).status).toBe(201);
      expect((await create(m, payoutBody(), '192.0.2.10')).status).toBe(201);
      expect((await create(m, payoutBody(), '2001:db8::5')).status).toBe(201);
      const before = await counts();
      for (const ip of ['192.0.2.11', '198.51.101.1', '203.0.113.7', '2001:db9::1']) {
        const res = await create(m, payoutBody(), ip);
        expect(res.status, ip).toBe(403);
        expect(res.json.errno).toBe(errno.forbidden);
      }
      expect(await counts()).toEqual(before);
    });

    it('answers 422 errno 1019 when the balance is short, and writes no order', async () => {
      const m = await funded(10_000);
      const before = await counts();
      const body = payoutBody({ amount: '100.00' }); // 100.00 + 6.00 fee > 100.00
      const res = await create(m, body);
      expect(res.status).toBe(422);
      expect(res.json.errno).toBe(errno.insufficientBalance);
      expect(await counts()).toEqual(before);
      expect(await balances(s, m.id)).toMatchObject({ payout_available: 10_000, frozen: 0 });
      expect(
        (await s.gateway(m, 'GET', `/gateway/v1/payout?merchantOrderNo=${body.merchantOrderNo}`)).status,
      ).toBe(404);
      // Once funded, the same request is a new create, not a replay of the refusal.
      await seedPayoutBalance(s, m.id, 1_000);
      expect((await create(m, body)).status).toBe(201);
    });

    it("answers 422 for amounts outside the merchant's limits and bad account fields", async () => {
      const m = await funded(10_000_000, { minAmount: 10_000, maxAmount: 500_000 });
      const before = await counts();
      for (const [change, field] of [
        [{ amount: '99.99' }, 'amount'],
        [{ amount: '5000.01' }, 'amount'],
        [{ amount: '0' }, 'amount'],
        [{ amount: '-1' }, 'amount'],
        [{ amount: '100.001' }, 'amount'],
        [{ ifsc: 'HDFC1234567' }, 'ifsc'],
        [{ accountNumber: '12ab' }, 'accountNumber'],
        [{ accountName: '  ' }, 'accountName'],
      ] as const) {
        const res = await create(m, payoutBody(change));
        expect(res.status, JSON.stringify(change)).toBe(422);
        expect(res.json.errno).toBe(errno.invalid);
        expect(res.json.data.fields[0].path).toBe(field);
      }
      expect(await counts()).toEqual(before);
    });
  });

  it('answers a merchant only its own orders by either number (404 otherwise)', async () => {
    const a = await funded();
    const b = await funded();
    const mine = (await create(a, payoutBody())).json.data;
    const theirs = (await create(b, payoutBody())).json.data;
    expect((await s.gateway(a, 'GET', `/gateway/v1/payout/${mine.orderNo}`)).json.data).toEqual(mine);
    expect(
      (await s.gateway(a, 'GET', `/gateway/v1/payout?merchantOrderNo=${mine.merchantOrderNo}`)).json.data,
    ).toEqual(mine);
    for (const path of [
      `/gateway/v1/payout/${theirs.orderNo}`,
      `/gateway/v1/payout?merchantOrderNo=${theirs.merchantOrderNo}`,
      '/gateway/v1/payout/PO000000000000000000',
    ]) {
      const res = await s.gateway(a, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.json.data).toBeNull();
    }
  });

  describe('the worker and routing', () => {
    it('submits due payouts to a channel; creation fails with the hold released when no channel can carry it', async () => {
      const m = await funded(1_000_000, { channels: [] });
      const o = await payout(m, 'queued');
      expect(await submitDuePayouts(s.deps)).toBeGreaterThanOrEqual(1);
      expect(await orderByNo(s, o.orderNo)).toMatchObject({ status: 'creation_failed', holdOpen: false });
      expect(await balances(s, m.id)).toMatchObject({ payout_available: 1_000_000, frozen: 0 });
      expect((await eventsOf(o.id)).map((e) => e.type)).toEqual(['payout.failed']);
      expect((await op.act('retry', o.id)).errno).toBe(errno.conflict);
    });

    it('tries the next channel when one declines, and skips channels whose limits do not fit', async () => {
      const m = await funded();
      const declining = await ownSimulatorChannel(s, m.id, { refuseRate: 100 });
      const small = await s.db
        .insert(channels)
        .values({ code: `small-${m.id}`, name: 'Small', adapter: 'simulator', maxAmount: 5_000 })
        .returning();
      const [sim] = await s.db.select().from(channels).where(eq(channels.code, 'simulator'));
      await s.db.insert(merchantChannels).values([
        { merchantId: m.id, channelId: sim!.id, weight: 1 },
        { merchantId: m.id, channelId: small[0]!.id, weight: 10_000 },
      ]);
      for (let i = 0; i < 5; i++) {
        const o = await payout(m, 'processing', '100.00');
        expect(o.channelId).toBe(sim!.id);
        expect(o.channelId).not.toBe(declining.id);
      }
      await s.db.update(channels).set({ status: 'disabled' }).where(eq(channels.id, small[0]!.id));
    });

    it('schedules another attempt after an adapter error, and gives up after the last one', async () => {
      const m = await funded();
      const [ch] = await s.db
        .insert(channels)
        .values({ code: `broken-${m.id}`, name: 'Broken', adapter: 'broken' })
        .returning();
      await s.db.delete(merchantChannels).where(eq(merchantChannels.merchantId, m.id));
      await s.db.insert(merchantChannels).values({ merchantId: m.id, channelId: ch!.id, weight: 100 });
      adapters.broken = {
        ...adapters.simulator!,
        createPayout: async () => {
          throw new Error('connection reset');
        },
      };
      try {
        const o = await payout(m, 'queued');
        for (let i = 1; i < maxSubmitAttempts; i++) {
          s.clock.advance(3_600_000);
          await submitDuePayouts(s.deps);
          expect(await orderByNo(s, o.orderNo)).toMatchObject({
            status: 'queued',
            attempts: i,
            holdOpen: true,
          });
        }
        s.clock.advance(3_600_000);
        await submitDuePayouts(s.deps);
        expect(await orderByNo(s, o.orderNo)).toMatchObject({ status: 'creation_failed', holdOpen: false });
      } finally {
        // Hours passed: the administrator's and the operator's sessions are idle now.
        admin = await s.adminToken();
        op = await payoutOperator(s);
        delete adapters.broken;
        await s.db.update(channels).set({ status: 'disabled' }).where(eq(channels.id, ch!.id));
      }
    });

    it("completes processing simulator payouts automatically after the channel's delay", async () => {
      const m = await funded();
      const ch = await ownSimulatorChannel(s, m.id, { auto: true, successRate: 100, delayMs: 5_000 });
      try {
        const o = await payout(m, 'processing');
        expect(await autoSettleSimulatorPayouts(s.deps)).toBe(0);
        s.clock.advance(5_001);
        expect(await autoSettleSimulatorPayouts(s.deps)).toBe(1);
        expect((await orderByNo(s, o.orderNo)).status).toBe('success');
        await s.db
          .update(channels)
          .set({ settings: { auto: true, successRate: 0, delayMs: 0 } })
          .where(eq(channels.id, ch.id));
        const f = await payout(m, 'processing');
        expect(await autoSettleSimulatorPayouts(s.deps)).toBe(1);
        expect((await orderByNo(s, f.orderNo)).status).toBe('failed');
      } finally {
        await s.db.update(channels).set({ status: 'disabled' }).where(eq(channels.id, ch.id));
      }
    });
  });

  it('enqueues one callback per outcome, signed so that the Standard Webhooks library verifies it', async () => {
    const received: { headers: IncomingHttpHeaders; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    // The verifier compares the signed timestamp with the real time: bring the test clock back to it.
    s.clock.set(new Date());
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const m = await funded();
      const res = await create(m, payoutBody({ notifyUrl: url }));
      const o = await orderByNo(s, res.json.data.orderNo);
      await submitPayout(s.deps, o.id);
      expect(
        (await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'success' }, admin)).errno,
      ).toBe(0);
      // A duplicate notification changes nothing and queues nothing.
      const dup = await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'success' }, admin);
      expect(dup.errno).toBe(errno.conflict);
      const dupFail = await inTransaction(s.db, (tx) =>
        completePayout(s.deps, tx, { orderId: o.id, result: 'fail', by: 'channel' }),
      ).catch((e) => e);
      expect((dupFail as AppError).errno).toBe(errno.conflict);
      expect(await eventsOf(o.id)).toHaveLength(1);
      while ((await deliverDue(s.deps)) > 0) {}
      const mine = received.filter((r) => r.body.includes(o.orderNo));
      expect(mine).toHaveLength(1);
      const verified = new Webhook(m.webhookSecret).verify(mine[0]!.body, {
        'webhook-id': String(mine[0]!.headers['webhook-id']),
        'webhook-timestamp': String(mine[0]!.headers['webhook-timestamp']),
        'webhook-signature': String(mine[0]!.headers['webhook-signature']),
      });
      const query = await s.gateway(m, 'GET', `/gateway/v1/payout/${o.orderNo}`);
      expect(verified).toEqual({ type: 'payout.success', data: query.json.data });
      expect(() =>
        new Webhook(m.webhookSecret).verify(mine[0]!.body.replace('success', 'failed'), {
          'webhook-id': String(mine[0]!.headers['webhook-id']),
          'webhook-timestamp': String(mine[0]!.headers['webhook-timestamp']),
          'webhook-signature': String(mine[0]!.headers['webhook-signature']),
        }),
      ).toThrow();
      expect(await orderByNo(s, o.orderNo)).toMatchObject({ pushStatus: 'pushed' });
      expect(await deliverDue(s.deps)).toBe(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('keeps the invariants over a fast-check model of create, submit, succeed, fail, retry and duplicates', async () => {
    type Model = {
      available: bigint;
      frozen: bigint;
      orders: { no: string; id: number; total: bigint; status: PayoutOrder['status'] }[];
    };
    type Real = { m: Merchant };
    const start = 200_000;
    const run = (fn: Parameters<typeof inTransaction>[1]) =>
      inTransaction(s.db, fn).then(
        () => 0,
        (e) => (e instanceof AppError ? e.errno : Promise.reject(e)),
      );
    const pick = (model: Model, i: number) =>
      model.orders.length ? model.orders[i % model.orders.length] : undefined;

    class Create implements fc.AsyncCommand<Model, Real> {
      constructor(readonly amount: number) {}
      check = () => true;
      async run(model: Model, real: Real) {
        const fee = BigInt(Math.floor((this.amount * 10_000 + 500_000) / 1_000_000) + 500);
        const total = BigInt(this.amount) + fee;
        let created: PayoutOrder | undefined;
        const code = await run(async (tx) => {
          const [row] = await tx.select().from(merchants).where(eq(merchants.id, real.m.id));
          created = (
            await createPayout(
              s.deps,
              tx,
              row!,
              { ...payoutBody(), amount: this.amount },
              { source: 'api', lang: 'en' },
            )
          ).order;
        });
        if (total <= model.available) {
          expect(code).toBe(0);
          model.available -= total;
          model.frozen += total;
          model.orders.push({ no: created!.orderNo, id: created!.id, total, status: 'queued' });
        } else expect(code).toBe(errno.insufficientBalance);
      }
      toString = () => `create(${this.amount})`;
    }
    class Submit implements fc.AsyncCommand<Model, Real> {
      constructor(readonly i: number) {}
      check = () => true;
      async run(model: Model) {
        const o = pick(model, this.i);
        if (!o) return;
        const code = await submitPayout(s.deps, o.id).then(
          () => 0,
          (e) => (e instanceof AppError ? e.errno : Promise.reject(e)),
        );
        if (o.status === 'queued') {
          expect(code).toBe(0);
          o.status = 'processing';
        } else expect(code).toBe(errno.conflict);
      }
      toString = () => `submit(${this.i})`;
    }
    class Complete implements fc.AsyncCommand<Model, Real> {
      constructor(
        readonly i: number,
        readonly result: 'success' | 'fail',
      ) {}
      check = () => true;
      async run(model: Model) {
        const o = pick(model, this.i);
        if (!o) return;
        const code = await run((tx) =>
          completePayout(s.deps, tx, { orderId: o.id, result: this.result, by: 'channel' }),
        );
        if (o.status === 'processing') {
          expect(code).toBe(0);
          model.frozen -= o.total;
          if (this.result === 'fail') model.available += o.total;
          o.status = this.result === 'success' ? 'success' : 'failed';
        } else expect(code).toBe(errno.conflict); // a duplicate or out-of-order notification
      }
      toString = () => `${this.result}(${this.i})`;
    }
    class Retry implements fc.AsyncCommand<Model, Real> {
      constructor(readonly i: number) {}
      check = () => true;
      async run(model: Model) {
        const o = pick(model, this.i);
        if (!o) return;
        const code = await run((tx) => retryPayout(s.deps, tx, o.id, null));
        if (o.status === 'failed' && o.total <= model.available) {
          expect(code).toBe(0);
          model.available -= o.total;
          model.frozen += o.total;
          o.status = 'queued';
        } else expect(code).toBe(o.status === 'failed' ? errno.insufficientBalance : errno.conflict);
      }
      toString = () => `retry(${this.i})`;
    }

    const commands = [
      fc.integer({ min: 100, max: 60_000 }).map((a) => new Create(a)),
      fc.nat(20).map((i) => new Submit(i)),
      fc
        .tuple(fc.nat(20), fc.constantFrom('success' as const, 'fail' as const))
        .map(([i, r]) => new Complete(i, r)),
      fc.nat(20).map((i) => new Retry(i)),
    ];
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 25 }), async (cmds) => {
        const m = await funded(start);
        const model: Model = { available: BigInt(start), frozen: 0n, orders: [] };
        await fc.asyncModelRun(
          () => ({ model, real: { m } }),
          [...cmds].map((c) => wrap(c, m)),
        );
        const bal = await merchantBalances(s.db, m.id, 'INR');
        expect(BigInt(bal.payout_available)).toBe(model.available);
        expect(BigInt(bal.frozen)).toBe(model.frozen);
        const report = await checkPayoutInvariants(s.db);
        expect(report.ok).toBe(true);
      }),
      { numRuns: engine === 'pglite' ? 15 : 10 },
    );

    /** Checks the wallet against the model after every command. */
    function wrap(c: fc.AsyncCommand<Model, Real>, m: Merchant): fc.AsyncCommand<Model, Real> {
      return {
        check: (model) => c.check(model),
        async run(model, real) {
          await c.run(model, real);
          const bal = await merchantBalances(s.db, m.id, 'INR');
          expect([BigInt(bal.payout_available), BigInt(bal.frozen)]).toEqual([model.available, model.frozen]);
        },
        toString: () => c.toString(),
      };
    }
  });
});
