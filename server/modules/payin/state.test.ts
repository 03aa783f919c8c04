/**
 * The pay-in state machine (contract/machines.ts) and the money it moves: every (state, action) pair,
 * swept from the declaration through the real services and endpoints, crediting D0 and T+N with exact fees and agent commission, duplicate notifications, expiry, a lost
 * channel callback found by a UTR check and supplemented, and the forced supplement's Google code.
 */
import { randomBytes } from 'node:crypto';
import { and, count, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { type PayinAction, type PayinStatus, payin } from '../../../contract/machines.ts';
import { feeOf } from '../../../contract/money.ts';
import { inTransaction } from '../../db/index.ts';
import {
  agents,
  channels,
  journalEntries,
  ledgerAccounts,
  orderImages,
  payinOrders,
  simulatorTransactions,
  webhookEvents,
} from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { sweep } from '../../test/sweep.ts';
import { codeAt } from '../auth/totp.ts';
import { expireDuePayins } from './expiry.ts';
import { notifyPayin } from './notifications.ts';
import { runSimulatorAuto } from './simulator.ts';
import { paymentLines, transition } from './state.ts';
import {
  createOrder,
  expectBalanced,
  type Merchant,
  makeChannel,
  merchantOn,
  orderById,
  simPay,
  simulatorChannel,
} from './testkit.ts';
import type { PayinOrder } from './views.ts';

const minutes = (n: number) => n * 60_000;
/** Bytes a proof image check takes for a PNG. */
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(64, 7),
]);

describe('payment lines (no database)', () => {
  it('balance, credit the merchant net of the fee and cap nothing they should not', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 30 }),
        fc.boolean(),
        (amount, ratePpm, fixed, agentPpm, days, hasAgent) => {
          const fee = Math.min(feeOf(amount, ratePpm, fixed), amount);
          const commission = Math.min(feeOf(amount, agentPpm), fee);
          const lines = paymentLines(
            { merchantId: 1, currency: 'INR', paidAmount: amount, amount, fee, agentCommission: commission },
            { settlementDays: days, agentId: hasAgent ? 7 : null },
          );
          expect(lines.reduce((s, l) => s + l.amount, 0)).toBe(0);
          expect(lines.every((l) => l.amount !== 0)).toBe(true);
          const merchant = lines.find((l) => l.account.ownerType === 'merchant');
          expect(merchant?.amount ?? 0).toBe(amount - fee);
          if (merchant) {
            expect(merchant.account.kind).toBe(days > 0 ? 'collection_pending' : 'collection_available');
          }
          const agent = lines.find((l) => l.account.ownerType === 'agent');
          expect(agent?.amount ?? 0).toBe(hasAgent ? commission : 0);
          const feeIncome = lines.find((l) => l.account.kind === 'fee_income');
          expect(feeIncome?.amount ?? 0).toBe(fee - (hasAgent ? commission : 0));
        },
      ),
    );
  });
});

describe.each(engines)('pay-in state machine on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  let adminSecret: string;
  let m: Merchant;
  let owner: string;
  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
    adminSecret = await s.bindGoogle(admin);
    m = await merchantOn(s, undefined, { collectionRatePpm: 20_000 });
    owner = await s.login(m.ownerUsername, m.ownerPassword);
  });
  afterEach(() => expectBalanced(s));
  afterAll(() => s.close());

  /** A payment the simulator's bank saw for an order (as after a lost callback): answers its UTR. */
  const bankPayment = async (order: PayinOrder, amount = order.amount) => {
    const utr = `U${randomBytes(6).toString('hex').toUpperCase()}`;
    await s.db.insert(simulatorTransactions).values({
      channelOrderId: `SIMX${randomBytes(6).toString('hex')}`,
      kind: 'payin',
      orderNo: order.orderNo,
      amount,
      status: 'success',
      utr,
      account: 'payer@upi',
      settledAt: s.clock.now(),
    });
    return utr;
  };

  /** Moves the clock, keeping the test's sessions alive (they expire after 30 idle minutes). */
  const advance = async (ms: number) => {
    for (let left = ms; left > 0; left -= minutes(10)) {
      s.clock.advance(Math.min(left, minutes(10)));
      for (const token of [admin, owner])
        expect((await s.call(endpoints.auth.info, {}, token)).errno).toBe(0);
    }
  };

  /** A fresh Google code of the admin (a code is accepted once per 30-second step). */
  const adminCode = () => {
    s.clock.advance(30_000);
    return codeAt(adminSecret, s.clock.now());
  };

  const entriesOf = async (id: number) =>
    (
      await s.db
        .select({ n: count() })
        .from(journalEntries)
        .where(and(eq(journalEntries.refType, 'payin'), eq(journalEntries.refId, String(id))))
    )[0]!.n;
  const eventsOf = async (id: number) =>
    (
      await s.db
        .select({ type: webhookEvents.type })
        .from(webhookEvents)
        .where(and(eq(webhookEvents.orderType, 'payin'), eq(webhookEvents.orderId, id)))
        .orderBy(webhookEvents.id)
    ).map((e) => e.type);
  const imagesOf = async (id: number) =>
    (await s.db.select({ n: count() }).from(orderImages).where(eq(orderImages.orderId, id)))[0]!.n;

  describe('every (state, action) pair, swept from the declaration', () => {
    // `created` and `creationFailed` happen inside the one insert of a creation (no stored order is ever
    // `creating` for them to start from): `orderIn` below lands in their states through a real creation.
    // Every other action is swept: a new one fails here until `act` below knows how to run it.
    const insideCreation: readonly PayinAction[] = ['created', 'creationFailed'];
    const cases = sweep(
      payin,
      payin.actionNames.filter((a) => !insideCreation.includes(a)),
    );

    let refusing: number;
    let simulatorId: number;
    beforeAll(async () => {
      refusing = (await makeChannel(s, { settings: { refuseRate: 100 } })).id;
      simulatorId = (await simulatorChannel(s)).id;
    });

    /** An order in `state`, reached the way orders reach it (`creating` alone is set directly). */
    async function orderIn(state: PayinStatus): Promise<PayinOrder> {
      if (state === payin.state.creation_failed) {
        const r = await merchantOn(s, [{ channelId: refusing, weight: 1 }]);
        const res = await s.gateway(r, 'POST', '/gateway/v1/payin', {
          merchantOrderNo: `T${randomBytes(6).toString('hex')}`,
          amount: '100.00',
          notifyUrl: 'http://127.0.0.1:9/hook',
        });
        const [o] = await s.db
          .select()
          .from(payinOrders)
          .where(eq(payinOrders.orderNo, res.json.data.orderNo));
        return o!;
      }
      const o = await createOrder(s, m);
      if (state === payin.state.paid) expect((await simPay(s, admin, o.orderNo, 'success')).errno).toBe(0);
      if (state === payin.state.failed) expect((await simPay(s, admin, o.orderNo, 'fail')).errno).toBe(0);
      if (state === payin.state.unpaid) {
        await s.db
          .update(payinOrders)
          .set({ expiresAt: new Date(s.clock.now().getTime() - 1000) })
          .where(eq(payinOrders.id, o.id));
        expect(await inTransaction(s.db, (tx) => transition(s.deps, tx, o.id, 'expire'))).not.toBeNull();
      }
      if (state === payin.state.creating) {
        await s.db.update(payinOrders).set({ status: state }).where(eq(payinOrders.id, o.id));
      }
      const now = await orderById(s, o.id);
      expect(now.status).toBe(state);
      return now;
    }

    /** Runs `action` on the order through the real service or endpoint: its errno (0 when done). */
    async function act(action: PayinAction, o: PayinOrder): Promise<number> {
      switch (action) {
        case 'channelPaid':
        case 'channelFailed': {
          const r = await notifyPayin(s.deps, {
            orderNo: o.orderNo,
            channelId: simulatorId,
            result: action === 'channelPaid' ? 'success' : 'fail',
            utr: `N${randomBytes(6).toString('hex').toUpperCase()}`,
          });
          return r.applied ? 0 : r.errno;
        }
        case 'expire': {
          // The expiry job, with the clock just past this order's expiry.
          const now = s.clock.now();
          s.clock.set(new Date(o.expiresAt.getTime() + 1000));
          try {
            await expireDuePayins(s.deps);
            return (await orderById(s, o.id)).status !== o.status ? 0 : errno.conflict;
          } finally {
            s.clock.set(now);
          }
        }
        case 'supplement': {
          const utr = await bankPayment(o);
          return (await s.call(endpoints.merchantOrder.supplement, { id: o.id, utr }, admin)).errno;
        }
        case 'force':
          return (
            await s.call(
              endpoints.merchantOrder.forceSupplement,
              { id: o.id, code: adminCode(), reason: 'payer sent a bank slip' },
              admin,
            )
          ).errno;
        case 'utrCheck':
          return (await s.call(endpoints.merchantOrder.utrCheck, { id: o.id, utr: 'NOSUCHUTR1' }, admin))
            .errno;
        case 'uploadImage':
          return (
            await s.call(
              endpoints.merchantOrder.uploadImage,
              { id: o.id, filename: 'slip.png', mime: 'image/png', dataBase64: png.toString('base64') },
              admin,
            )
          ).errno;
        case 'update':
          return (
            await s.call(
              endpoints.merchantOrder.update,
              { id: o.id, notifyUrl: 'https://shop.example/new-hook' },
              admin,
            )
          ).errno;
        case 'push':
          return (await s.call(endpoints.merchantOrder.push, { id: o.id }, admin)).errno;
        case 'delete':
          return (await s.call(endpoints.merchantOrder.delete, { id: o.id }, admin)).errno;
        case 'refund': {
          const payee = { accountName: 'Asha Rao', accountNumber: '50100200300', ifsc: 'HDFC0001234' };
          const input = { payinId: o.id, amount: '1.00', reason: 'payer asked', payee, code: adminCode() };
          return (await s.call(endpoints.refund.create, input, admin)).errno;
        }
        default:
          throw new Error(`the sweep cannot run ${action} yet`);
      }
    }

    /** A channel's word names the order at that channel: one no channel took is not found there. */
    const refusal = (action: PayinAction, o: PayinOrder) =>
      o.channelId === null && (action === 'channelPaid' || action === 'channelFailed')
        ? errno.notFound
        : errno.conflict;

    it.each(cases)('$name', async ({ state, action, allowed, after: want }) => {
      const o = await orderIn(state);
      const entriesBefore = await entriesOf(o.id);
      const eventsBefore = await eventsOf(o.id);
      const imagesBefore = await imagesOf(o.id);
      const got = await act(action, o);
      const [after] = await s.db.select().from(payinOrders).where(eq(payinOrders.id, o.id));
      if (!allowed) {
        expect(got).toBe(refusal(action, o));
        expect(after).toEqual(o);
        expect(await entriesOf(o.id)).toBe(entriesBefore);
        expect(await eventsOf(o.id)).toEqual(eventsBefore);
        expect(await imagesOf(o.id)).toBe(imagesBefore);
        return;
      }
      expect(got).toBe(0);
      if (action === 'delete') {
        expect(after).toBeUndefined();
        expect(await eventsOf(o.id)).toEqual([]);
        return;
      }
      expect(after!.status).toBe(want);
      // Money moves exactly when the order becomes paid; entering an announced state queues its callback.
      expect(await entriesOf(o.id)).toBe(want === payin.state.paid ? 1 : 0);
      expect(await eventsOf(o.id)).toEqual(
        want !== state && payin.is('announced', want) ? [...eventsBefore, `payin.${want}`] : eventsBefore,
      );
      expect(await imagesOf(o.id)).toBe(imagesBefore + (action === 'uploadImage' ? 1 : 0));
      if (want === payin.state.paid && want !== state) {
        expect(after!.paidBy).toBe(
          { channelPaid: 'channel', supplement: 'supplement', force: 'force' }[action as string],
        );
        expect(after!.paidAt).not.toBeNull();
        expect(after!.utr === null).toBe(action === 'force');
      }
    });
  });

  describe('crediting', () => {
    const agentWith = async (commissionPpm: number, status: 'active' | 'disabled' = 'active') => {
      const [a] = await s.db
        .insert(agents)
        .values({ code: `A${randomBytes(4).toString('hex')}`, name: 'Agent', commissionPpm, status })
        .returning();
      return a!;
    };
    const linesOf = async (orderId: number) => {
      const rows = await s.call(endpoints.merchantOrder.info, { id: orderId }, admin);
      return Object.fromEntries(
        (rows.data.postings as { ownerType: string; account: string; amount: string }[]).map((p) => [
          `${p.ownerType}:${p.account}`,
          p.amount,
        ]),
      );
    };

    it.each([
      ['D0', 0, 'collection_available'],
      ['T+2', 2, 'collection_pending'],
    ])(
      '%s: credits %s net of fee; fee income less commission; agent commission',
      async (_n, days, account) => {
        const agent = await agentWith(10_000); // 1 %
        const d = await merchantOn(s, undefined, {
          collectionRatePpm: 25_000, // 2.5 %
          platformFee: 100, // 1.00
          settlementDays: days,
          agentId: agent.id,
        });
        const o = await createOrder(s, d, { amount: '1000.00' });
        // fee = 1000.00 × 2.5 % + 1.00 = 26.00; commission = 1000.00 × 1 % = 10.00
        expect(o).toMatchObject({ fee: 2600, agentCommission: 1000 });
        expect((await simPay(s, admin, o.orderNo, 'success')).errno).toBe(0);
        expect(await linesOf(o.id)).toEqual({
          'platform:channel_clearing': '-1000.00',
          [`merchant:${account}`]: '974.00',
          'platform:fee_income': '16.00',
          'agent:agent_commission_payable': '10.00',
        });
        const balance = await s.gateway(d, 'GET', '/gateway/v1/balance');
        expect(balance.json.data.collection).toEqual({
          available: days ? '0.00' : '974.00',
          pending: days ? '974.00' : '0.00',
          frozen: '0.00',
        });
        const [agentAccount] = await s.db
          .select()
          .from(ledgerAccounts)
          .where(and(eq(ledgerAccounts.ownerType, 'agent'), eq(ledgerAccounts.ownerId, agent.id)));
        expect(agentAccount!.balance).toBe(1000);
      },
    );

    it('caps the commission at the fee, pays none to a disabled agent, and rounds half up', async () => {
      const greedy = await agentWith(50_000); // 5 % > the 2 % fee
      const g = await merchantOn(s, undefined, { collectionRatePpm: 20_000, agentId: greedy.id });
      const o1 = await createOrder(s, g, { amount: '100.25' }); // fee 2.005 → 2.01
      expect(o1).toMatchObject({ fee: 201, agentCommission: 201 });
      await simPay(s, admin, o1.orderNo, 'success');
      expect(await linesOf(o1.id)).toEqual({
        'platform:channel_clearing': '-100.25',
        'merchant:collection_available': '98.24',
        'agent:agent_commission_payable': '2.01',
      });
      const off = await agentWith(10_000, 'disabled');
      const d = await merchantOn(s, undefined, { collectionRatePpm: 20_000, agentId: off.id });
      const o2 = await createOrder(s, d, { amount: '100.00' });
      expect(o2).toMatchObject({ fee: 200, agentCommission: 0 });
    });

    it('credits the amount paid when a supplement finds a different amount, fee unchanged', async () => {
      const o = await createOrder(s, m, { amount: '500.00' });
      const utr = await bankPayment(o, 49_000);
      const res = await s.call(endpoints.merchantOrder.supplement, { id: o.id, utr }, owner);
      expect(res.errno).toBe(0);
      expect(res.data).toMatchObject({ paidAmount: '490.00', fee: '10.00', status: 'paid' });
      expect(await linesOf(o.id)).toMatchObject({ 'merchant:collection_available': '480.00' });
    });
  });

  it('credits once and queues one callback for 50 concurrent duplicate "paid" notifications', async () => {
    const o = await createOrder(s, m, { amount: '250.00' });
    const before = await s.gateway(m, 'GET', '/gateway/v1/balance');
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, () =>
        notifyPayin(s.deps, {
          orderNo: o.orderNo,
          channelId: o.channelId!,
          channelOrderId: o.channelOrderId!,
          result: 'success',
          utr: 'UTR50DUPLICATE',
          amount: o.amount,
        }),
      ),
    );
    expect(outcomes.filter((r) => r.applied)).toHaveLength(1);
    for (const r of outcomes.filter((x) => !x.applied)) {
      expect(r).toMatchObject({ applied: false, errno: errno.conflict, order: { status: 'paid' } });
    }
    expect(await entriesOf(o.id)).toBe(1);
    expect(await eventsOf(o.id)).toEqual(['payin.paid']);
    const after = await s.gateway(m, 'GET', '/gateway/v1/balance');
    const gained =
      Number(after.json.data.collection.available.replace('.', '')) -
      Number(before.json.data.collection.available.replace('.', ''));
    expect(gained).toBe(25_000 - 500);
  });

  it('refuses a second simulator payment of the same order (409), changing nothing', async () => {
    const o = await createOrder(s, m);
    expect((await simPay(s, admin, o.orderNo, 'success')).errno).toBe(0);
    const paid = await orderById(s, o.id);
    const again = await Promise.all([
      simPay(s, admin, o.orderNo, 'success'),
      simPay(s, admin, o.orderNo, 'fail'),
    ]);
    expect(again.map((r) => r.errno)).toEqual([errno.conflict, errno.conflict]);
    expect(await orderById(s, o.id)).toEqual(paid);
  });

  describe('expiry', () => {
    it('turns overdue pending orders unpaid, in batches, with the payin.unpaid callback', async () => {
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await createOrder(s, m));
      const paid = await createOrder(s, m);
      await simPay(s, admin, paid.orderNo, 'success');
      await advance(minutes(29));
      const early = await createOrder(s, m);
      // Older tests' orders may fall due now; these are not due yet.
      await expireDuePayins(s.deps, 2);
      for (const o of [...made, early]) expect((await orderById(s, o.id)).status).toBe('pending');
      await advance(minutes(1) + 1);
      // Other tests' pending orders expire too; ours are at least these five.
      expect(await expireDuePayins(s.deps, 2)).toBeGreaterThanOrEqual(5);
      for (const o of made) {
        const now = await orderById(s, o.id);
        expect(now).toMatchObject({ status: 'unpaid', paidAt: null, pushStatus: 'unpushed' });
        const [event] = await s.db
          .select()
          .from(webhookEvents)
          .where(and(eq(webhookEvents.orderType, 'payin'), eq(webhookEvents.orderId, o.id)));
        expect(event).toMatchObject({ type: 'payin.unpaid', url: o.notifyUrl, status: 'pending' });
        const payload = event!.payload as { type: string; data: { status: string; orderNo: string } };
        expect(payload.type).toBe('payin.unpaid');
        const query = await s.gateway(m, 'GET', `/gateway/v1/payin/${o.orderNo}`);
        expect(payload.data).toEqual(query.json.data);
      }
      expect((await orderById(s, paid.id)).status).toBe('paid');
      expect((await orderById(s, early.id)).status).toBe('pending');
      expect(await expireDuePayins(s.deps)).toBe(0);
    });

    it('reads the expiry from the payin_expiry_minutes parameter', async () => {
      const { parameters } = await import('../../db/schema.ts');
      await s.db.insert(parameters).values({ key: 'payin_expiry_minutes', value: 5 });
      try {
        const o = await createOrder(s, m);
        expect(o.expiresAt.getTime() - o.createdAt.getTime()).toBe(minutes(5));
      } finally {
        await s.db.delete(parameters).where(eq(parameters.key, 'payin_expiry_minutes'));
      }
    });
  });

  describe('a lost channel callback', () => {
    it('is found by a UTR check at the channel and paid by a supplement, once', async () => {
      const o = await createOrder(s, m, { amount: '300.00' });
      const sim = await simPay(s, admin, o.orderNo, 'success', { notify: false });
      expect(sim.data).toMatchObject({ orderNo: o.orderNo, notified: false, status: 'pending' });
      const utr = sim.data.utr as string;
      expect(utr).toMatch(/^\d{12}$/);
      expect((await orderById(s, o.id)).status).toBe('pending');
      await advance(minutes(31));
      await expireDuePayins(s.deps);
      expect((await orderById(s, o.id)).status).toBe('unpaid');

      const check = await s.call(endpoints.merchantOrder.utrCheck, { utr, id: o.id }, owner);
      expect(check.errno).toBe(0);
      expect(check.data).toMatchObject({
        found: true,
        source: 'channel',
        amount: '300.00',
        channelOrderId: o.channelOrderId,
        usedBy: null,
        matchesOrder: true,
      });
      const paid = await s.call(endpoints.merchantOrder.supplement, { id: o.id, utr }, owner);
      expect(paid.errno).toBe(0);
      expect(paid.data).toMatchObject({ status: 'paid', paidBy: 'supplement', utr, paidAmount: '300.00' });
      expect(await entriesOf(o.id)).toBe(1);
      expect(await eventsOf(o.id)).toEqual(['payin.unpaid', 'payin.paid']);
      expect((await orderById(s, o.id)).pushStatus).toBe('unpushed');

      const again = await s.call(endpoints.merchantOrder.utrCheck, { utr }, admin);
      expect(again.data).toMatchObject({ found: true, usedBy: o.orderNo, matchesOrder: null });
      // The same UTR cannot pay another order, nor this one twice.
      const other = await createOrder(s, m, { amount: '300.00' });
      const reuse = await s.call(endpoints.merchantOrder.supplement, { id: other.id, utr }, owner);
      expect(reuse.errno).toBe(errno.utrUsed);
      const twice = await s.call(endpoints.merchantOrder.supplement, { id: o.id, utr }, owner);
      expect(twice.errno).toBe(errno.conflict);
      expect((await orderById(s, other.id)).status).toBe('pending');
      expect(await entriesOf(o.id)).toBe(1);
    });

    it('refuses a UTR the channel does not know, one paid for another order, or another amount', async () => {
      const o = await createOrder(s, m, { amount: '120.00' });
      const unknown = await s.call(
        endpoints.merchantOrder.supplement,
        { id: o.id, utr: 'NOSUCHUTR1' },
        owner,
      );
      expect(unknown.errno).toBe(errno.utrNotFound);
      const check = await s.call(endpoints.merchantOrder.utrCheck, { utr: 'NOSUCHUTR1', id: o.id }, owner);
      expect(check.data).toMatchObject({ found: false, usedBy: null, matchesOrder: false });

      const elsewhere = await createOrder(s, m, { amount: '120.00' });
      const sim = await simPay(s, admin, elsewhere.orderNo, 'success', { notify: false });
      const wrong = await s.call(endpoints.merchantOrder.supplement, { id: o.id, utr: sim.data.utr }, owner);
      expect(wrong.errno).toBe(errno.utrMismatch);
      const mismatch = await s.call(endpoints.merchantOrder.utrCheck, { utr: sim.data.utr, id: o.id }, owner);
      expect(mismatch.data).toMatchObject({ found: true, matchesOrder: false });

      const amount = await s.call(
        endpoints.merchantOrder.supplement,
        { id: elsewhere.id, utr: sim.data.utr, paidAmount: '119.00' },
        owner,
      );
      expect(amount.errno).toBe(errno.utrMismatch);
      expect((await orderById(s, o.id)).status).toBe('pending');
      expect((await orderById(s, elsewhere.id)).status).toBe('pending');
      const right = await s.call(
        endpoints.merchantOrder.supplement,
        { id: elsewhere.id, utr: sim.data.utr, paidAmount: '120.00' },
        owner,
      );
      expect(right.errno).toBe(0);
    });

    it('matches a UTR as typed (blanks, lower case) to the stored one; a change of case cannot reuse it', async () => {
      const o = await createOrder(s, m, { amount: '40.00' });
      const utr = await bankPayment(o);
      const typed = ` ${utr.toLowerCase()} `;
      const check = await s.call(endpoints.merchantOrder.utrCheck, { utr: typed, id: o.id }, owner);
      expect(check.data).toMatchObject({ found: true, matchesOrder: true, usedBy: null });
      const paid = await s.call(endpoints.merchantOrder.supplement, { id: o.id, utr: typed }, owner);
      expect(paid.errno, paid.errmsg).toBe(0);
      expect(paid.data.utr).toBe(utr);
      const used = await s.call(endpoints.merchantOrder.utrCheck, { utr: utr.toLowerCase() }, admin);
      expect(used.data).toMatchObject({ usedBy: o.orderNo });

      const other = await createOrder(s, m, { amount: '40.00' });
      const mixed = `${utr.slice(0, 4).toLowerCase()}${utr.slice(4)}`;
      expect(
        (await s.call(endpoints.merchantOrder.supplement, { id: other.id, utr: mixed }, owner)).errno,
      ).toBe(errno.utrUsed);
      const forced = await s.call(
        endpoints.merchantOrder.forceSupplement,
        { id: other.id, code: adminCode(), reason: 'same slip', utr: typed },
        admin,
      );
      expect(forced.errno).toBe(errno.utrUsed);
      expect((await simPay(s, admin, other.orderNo, 'success', { utr: mixed })).errno).toBe(errno.utrUsed);
      expect((await orderById(s, other.id)).status).toBe('pending');

      // The lists find it by the UTR as typed, whole or by prefix.
      const period = {
        from: new Date(s.clock.now().getTime() - minutes(60)).toISOString(),
        to: new Date(s.clock.now().getTime() + minutes(60)).toISOString(),
      };
      for (const filter of [{ nos: typed.trim() }, { q: utr.slice(0, 8).toLowerCase() }]) {
        const list = await s.call(endpoints.merchantOrder.list, { ...period, ...filter }, admin);
        expect(list.errno, list.errmsg).toBe(0);
        expect(
          list.data.list.map((r: { orderNo: string }) => r.orderNo),
          JSON.stringify(filter),
        ).toEqual([o.orderNo]);
      }
    });

    it('stores a channel’s UTR trimmed and upper case, so a typed one matches it', async () => {
      const o = await createOrder(s, m, { amount: '41.00' });
      const utr = `c${randomBytes(6).toString('hex')}`;
      const res = await notifyPayin(s.deps, {
        orderNo: o.orderNo,
        channelId: o.channelId!,
        result: 'success',
        utr: ` ${utr} `,
      });
      expect(res.applied).toBe(true);
      expect((await orderById(s, o.id)).utr).toBe(utr.toUpperCase());
      const other = await createOrder(s, m, { amount: '41.00' });
      const again = await notifyPayin(s.deps, {
        orderNo: other.orderNo,
        channelId: other.channelId!,
        result: 'success',
        utr: utr.toUpperCase(),
      });
      expect(again).toMatchObject({ applied: false, errno: errno.utrUsed });
    });

    it.runIf(engine === 'postgres')('applies one of three concurrent supplements of one order', async () => {
      const a = await createOrder(s, m);
      const b = await createOrder(s, m);
      // A statement line names no order: either order could claim it; the unique UTR index decides.
      const utr = `S${randomBytes(5).toString('hex').toUpperCase()}`;
      await s.db.insert(simulatorTransactions).values({
        channelOrderId: `SIMS${randomBytes(6).toString('hex')}`,
        kind: 'payin',
        orderNo: a.orderNo,
        amount: a.amount,
        status: 'success',
        utr,
      });
      const results = await Promise.all(
        [a, a, a].map((o) => s.call(endpoints.merchantOrder.supplement, { id: o.id, utr }, owner)),
      );
      expect(results.filter((r) => r.errno === 0)).toHaveLength(1);
      expect(
        results
          .filter((r) => r.errno !== 0)
          .every((r) => ([errno.conflict, errno.utrUsed] as number[]).includes(r.errno)),
      ).toBe(true);
      expect(await entriesOf(a.id)).toBe(1);
      expect((await orderById(s, b.id)).status).toBe('pending');
    });
  });

  describe("the simulator's automatic mode", () => {
    it('settles pending orders older than its delay at its rates, losing callbacks at its rate', async () => {
      const lost = await makeChannel(s, {
        settings: { auto: true, successRate: 100, delayMs: 5000, lostCallbackRate: 100 },
      });
      const failing = await makeChannel(s, { settings: { auto: true, successRate: 0, delayMs: 5000 } });
      const ml = await merchantOn(s, [{ channelId: lost.id, weight: 1 }]);
      const mf = await merchantOn(s, [{ channelId: failing.id, weight: 1 }]);
      const a = await createOrder(s, ml);
      const b = await createOrder(s, mf);
      expect(await runSimulatorAuto(s.deps)).toBe(0);
      await advance(5000);
      expect(await runSimulatorAuto(s.deps)).toBe(2);
      // Paid at the channel, but its callback was lost: the order waits, the UTR check finds it.
      expect((await orderById(s, a.id)).status).toBe('pending');
      const [sim] = await s.db
        .select()
        .from(simulatorTransactions)
        .where(eq(simulatorTransactions.channelOrderId, a.channelOrderId!));
      expect(sim).toMatchObject({ status: 'success', notified: false });
      const check = await s.call(endpoints.merchantOrder.utrCheck, { utr: sim!.utr!, id: a.id }, admin);
      expect(check.data).toMatchObject({ found: true, matchesOrder: true });
      expect((await orderById(s, b.id)).status).toBe('failed');
      expect(await eventsOf(b.id)).toEqual(['payin.failed']);
      expect(await runSimulatorAuto(s.deps)).toBe(0);
      for (const c of [lost, failing]) {
        await s.db.update(channels).set({ status: 'disabled' }).where(eq(channels.id, c.id));
      }
    });
  });

  describe('forced supplement', () => {
    it('needs a bound Google key and a valid, unused code; records who and why', async () => {
      const o = await createOrder(s, m, { amount: '80.00' });
      const unbound = await s.makeUser({ perms: [endpoints.merchantOrder.forceSupplement.permission] });
      const noKey = await s.call(
        endpoints.merchantOrder.forceSupplement,
        { id: o.id, code: '123456', reason: 'slip' },
        unbound.token,
      );
      expect(noKey.errno).toBe(errno.googleNotBound);

      const wrong = await s.call(
        endpoints.merchantOrder.forceSupplement,
        {
          id: o.id,
          code: codeAt(adminSecret, new Date(s.clock.now().getTime() - 10 * 60_000)),
          reason: 'slip',
        },
        admin,
      );
      expect(wrong.errno).toBe(errno.badCode);
      expect((await orderById(s, o.id)).status).toBe('pending');

      const code = adminCode();
      const ok = await s.call(
        endpoints.merchantOrder.forceSupplement,
        { id: o.id, code, reason: 'bank slip checked by phone' },
        admin,
      );
      expect(ok.errno).toBe(0);
      expect(ok.data).toMatchObject({ status: 'paid', paidBy: 'force', paidAmount: '80.00', utr: null });
      const o2 = await createOrder(s, m);
      const reused = await s.call(
        endpoints.merchantOrder.forceSupplement,
        { id: o2.id, code, reason: 'again' },
        admin,
      );
      expect(reused.errno).toBe(errno.badCode);
      expect((await orderById(s, o2.id)).status).toBe('pending');

      const ownerTry = await s.call(
        endpoints.merchantOrder.forceSupplement,
        { id: o2.id, code: '123456', reason: 'x' },
        owner,
      );
      expect(ownerTry.errno).toBe(errno.forbidden);
    });

    it('refuses a paid amount above the order’s (a larger payment is a separate adjustment)', async () => {
      const o = await createOrder(s, m, { amount: '50.00' });
      const over = await s.call(
        endpoints.merchantOrder.forceSupplement,
        { id: o.id, code: adminCode(), reason: 'slip shows more', paidAmount: '50.01' },
        admin,
      );
      expect(over.errno).toBe(errno.invalid);
      expect(over.data.fields).toEqual([expect.objectContaining({ path: 'paidAmount' })]);
      expect((await orderById(s, o.id)).status).toBe('pending');
      expect(await entriesOf(o.id)).toBe(0);
      const exact = await s.call(
        endpoints.merchantOrder.forceSupplement,
        { id: o.id, code: adminCode(), reason: 'slip', paidAmount: '50.00' },
        admin,
      );
      expect(exact.errno, exact.errmsg).toBe(0);
      expect(exact.data).toMatchObject({ status: 'paid', paidAmount: '50.00' });
    });

    it('takes an optional UTR that no order used, and a paid amount', async () => {
      const o = await createOrder(s, m, { amount: '90.00' });
      const res = await s.call(
        endpoints.merchantOrder.forceSupplement,
        { id: o.id, code: adminCode(), reason: 'statement line', utr: 'FORCEUTR01', paidAmount: '89.00' },
        admin,
      );
      expect(res.data).toMatchObject({ utr: 'FORCEUTR01', paidAmount: '89.00' });
      const o2 = await createOrder(s, m);
      const dup = await s.call(
        endpoints.merchantOrder.forceSupplement,
        { id: o2.id, code: adminCode(), reason: 'same line', utr: 'FORCEUTR01' },
        admin,
      );
      expect(dup.errno).toBe(errno.utrUsed);
    });
  });
});
