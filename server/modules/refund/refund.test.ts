/**
 * Refunds (docs/MONEY-BACK.md section 1) on both engines: the console's and the gateway's doors, the
 * refund's machine swept pair by pair, its payout's outcomes, the callbacks a merchant verifies with the
 * Standard Webhooks library, and on PostgreSQL twenty concurrent refunds of one order.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gatewayRefund } from '../../../contract/gateway.ts';
import { endpoints } from '../../../contract/index.ts';
import { type RefundStatus, refund as refundMachine } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import { payinOrders, payoutOrders, refunds, webhookEvents } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { deliverDue } from '../../jobs/webhooks.ts';
import { checkLedger } from '../../ledger/check.ts';
import { merchantBalances } from '../../ledger/index.ts';
import { writeParameter } from '../../lib/parameters.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { sweep } from '../../test/sweep.ts';
import { codeAt } from '../auth/totp.ts';
import { createOrder, simPay, startReceiver, verifyCallback } from '../payin/testkit.ts';
import { checkPayoutInvariants } from '../payout/invariants.ts';
import { drainQueue, simulatorMerchant } from '../payout/testkit.ts';
import { completePayout, retryPayout } from '../payout/transitions.ts';
import { fund } from '../settlement/testkit.ts';
import { followPayout } from './service.ts';

const payee = { accountName: 'Asha Rao', accountNumber: '50100200300', ifsc: 'HDFC0001234' };
const reason = 'the payer paid twice';
/** The maker–checker threshold here: 1,000.00. */
const threshold = 100_000;

describe.each(engines)('refunds on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let one: Awaited<ReturnType<TestServer['makeKeyHolder']>>;
  let two: Awaited<ReturnType<TestServer['makeKeyHolder']>>;
  /** The merchant of the test at hand: each its own, so one test's refunds never fill another's day sums. */
  let m: Awaited<ReturnType<typeof simulatorMerchant>>;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    one = await s.makeKeyHolder(['*']);
    two = await s.makeKeyHolder(['*']);
    await writeParameter(s.db, 'maker_checker_threshold', threshold);
  });
  beforeEach(async () => {
    // The test's gateway calls come from 203.0.113.7: refunds, like payouts, only from the whitelist.
    m = await simulatorMerchant(s, { payoutIpWhitelist: ['203.0.113.0/24'] });
    await fund(s, m.id, 'collection', 500_000_000);
  });
  afterEach(async () => {
    expect((await checkLedger(s.db)).balanced).toBe(true);
    expect(await checkPayoutInvariants(s.db)).toMatchObject({ ok: true });
  });
  afterAll(() => s.close());

  /** A pay-in of `amount` (minor units) paid through the simulator, with `notifyUrl` when given. */
  async function paid(amount: number, notifyUrl?: string) {
    const o = await createOrder(s, m, { amount: formatMinor(amount), ...(notifyUrl ? { notifyUrl } : {}) });
    expect((await simPay(s, root, o.orderNo, 'success')).errno).toBe(0);
    const [row] = await s.db.select().from(payinOrders).where(eq(payinOrders.id, o.id));
    return row!;
  }
  const ask = (payinId: number, amount: number, by = one, extra: Record<string, unknown> = {}) =>
    s.call(
      endpoints.refund.create,
      { payinId, amount: formatMinor(amount), reason, payee, code: by.code(), ...extra },
      by.token,
    );
  /** A user of merchant `merchantId` holding `perms`, with a bound Google key. */
  async function merchantHolder(merchantId: number, perms: string[]) {
    const user = await s.makeUser({ kind: 'merchant', merchantId, perms });
    const secret = await s.bindGoogle(user.token);
    const code = () => {
      s.clock.advance(30_000);
      return codeAt(secret, s.clock.now());
    };
    return { ...user, secret, code };
  }
  const refundOf = async (id: number) => (await s.db.select().from(refunds).where(eq(refunds.id, id)))[0]!;
  const orderOf = async (id: number) =>
    (await s.db.select().from(payinOrders).where(eq(payinOrders.id, id)))[0]!;
  const payoutOf = async (id: number) =>
    (await s.db.select().from(payoutOrders).where(eq(payoutOrders.id, id)))[0]!;
  /** The refund's payout handed to the simulator, then ended by the channel's word. */
  async function settle(refundId: number, result: 'success' | 'fail') {
    await drainQueue(s);
    const r = await refundOf(refundId);
    await inTransaction(s.db, (tx) =>
      completePayout(s.deps, tx, { orderId: r.payoutId!, result, by: 'channel', utr: 'UTR12345678' }),
    );
  }

  it('refunds in parts up to what was paid, from the collection balance, and never more', async () => {
    const o = await paid(10_000);
    const before = await merchantBalances(s.db, m.id, 'INR');
    const first = await ask(o.id, 4_000);
    expect(first.errno, first.errmsg).toBe(0);
    expect(first.data).toMatchObject({ status: 'processing', amount: '40.00', orderNo: o.orderNo, ...payee });
    // The hold: from collection into frozen, the payout carrying it with no fee.
    const after = await merchantBalances(s.db, m.id, 'INR');
    expect(after.collection_available).toBe(before.collection_available - 4_000);
    expect(after.frozen).toBe(before.frozen + 4_000);
    const p = await payoutOf(first.data.payoutId!);
    expect(p).toMatchObject({ refundId: first.data.id, amount: 4_000, fee: 0, status: 'queued' });
    expect((await orderOf(o.id)).refundedAmount).toBe(4_000);

    // More than is left: refused with what is left, nothing written.
    const tooMuch = await ask(o.id, 6_001);
    expect(tooMuch.errno).toBe(errno.invalid);
    expect(tooMuch.data.fields[0]).toMatchObject({ path: 'amount' });
    expect(tooMuch.data.fields[0].message).toContain('60.00');
    // The rest, to the same payer without naming the account again.
    const rest = await ask(o.id, 6_000, two, { payee: undefined });
    expect(rest.errno, rest.errmsg).toBe(0);
    expect(rest.data.accountNumber).toBe(payee.accountNumber);
    expect((await orderOf(o.id)).refundedAmount).toBe(10_000);
    const none = await s.call(endpoints.refund.ofOrder, { payinId: o.id }, root);
    expect(none.data).toMatchObject({ paidAmount: '100.00', refundedAmount: '100.00', refundable: '0.00' });
    expect(none.data.list.map((r: { amount: string }) => r.amount)).toEqual(['40.00', '60.00']);

    await settle(first.data.id, 'success');
    expect(await refundOf(first.data.id)).toMatchObject({ status: 'success' });
    const done = await merchantBalances(s.db, m.id, 'INR');
    expect(done.frozen).toBe(after.frozen + 6_000 - 4_000);
  });

  it('a failed payout fails its refund: the hold back in collection, the amount refundable again', async () => {
    const o = await paid(5_000);
    const before = await merchantBalances(s.db, m.id, 'INR');
    const r = await ask(o.id, 5_000);
    expect(r.errno, r.errmsg).toBe(0);
    await settle(r.data.id, 'fail');
    expect(await refundOf(r.data.id)).toMatchObject({ status: 'failed' });
    expect((await orderOf(o.id)).refundedAmount).toBe(0);
    expect(await merchantBalances(s.db, m.id, 'INR')).toEqual(before);
    // Its payout is not retried: a new refund is asked instead.
    await expect(
      inTransaction(s.db, (tx) => retryPayout(s.deps, tx, r.data.payoutId!, one.id)),
    ).rejects.toMatchObject({ errno: errno.conflict });
    expect((await ask(o.id, 5_000)).errno).toBe(0);
  });

  it('refuses an order not paid, a short balance and a first refund without a payee, writing nothing', async () => {
    const pending = await createOrder(s, m, { amount: '30.00' });
    expect((await ask(pending.id, 1_000)).errno).toBe(errno.conflict);

    const poor = await simulatorMerchant(s);
    const o = await createOrder(s, poor, { amount: '30.00' });
    expect((await simPay(s, root, o.orderNo, 'success')).errno).toBe(0);
    // Paid, but its net sits in collection (what was paid less the fee): a full refund is short.
    const b = await merchantBalances(s.db, poor.id, 'INR');
    const short = await ask(o.id, 3_000);
    expect(short.errno).toBe(b.collection_available < 3_000 ? errno.insufficientBalance : 0);

    const other = await paid(2_000);
    const noPayee = await s.call(
      endpoints.refund.create,
      { payinId: other.id, amount: '10.00', reason, code: one.code() },
      one.token,
    );
    expect(noPayee.errno).toBe(errno.invalid);
    expect(noPayee.data.fields[0].path).toBe('payee');
    expect(await s.db.select().from(refunds).where(eq(refunds.payinId, other.id))).toEqual([]);
    expect((await orderOf(other.id)).refundedAmount).toBe(0);
  });

  it("a merchant user refunds its own merchant's orders only", async () => {
    const o = await paid(2_000);
    const perms = [endpoints.refund.create.permission, endpoints.refund.list.permission];
    const own = await merchantHolder(m.id, perms);
    const stranger = await simulatorMerchant(s);
    const other = await merchantHolder(stranger.id, perms);
    expect((await ask(o.id, 1_000, other)).errno).toBe(errno.notFound);
    const mine = await ask(o.id, 1_000, own);
    expect(mine.errno, mine.errmsg).toBe(0);
    expect(mine.data.requestedBy).toBeNull();
    const theirs = await s.call(endpoints.refund.list, { merchantId: m.id }, other.token);
    expect(theirs.data.list.every((r: { merchantId: number }) => r.merchantId === stranger.id)).toBe(true);
  });

  it('above the day’s sums a refund waits for a second person, who approves or rejects it', async () => {
    const o = await paid(500_000);
    const big = await ask(o.id, 200_000);
    expect(big.errno).toBe(errno.approvalRequested);
    const [waiting] = await s.db.select().from(refunds).where(eq(refunds.payinId, o.id));
    expect(waiting).toMatchObject({ status: 'requested', approvalId: big.data.approvalId, payoutId: null });
    expect((await orderOf(o.id)).refundedAmount).toBe(200_000);
    // The asker cannot approve it; the second person can.
    expect(
      (await s.call(endpoints.approval.approve, { id: big.data.approvalId, code: one.code() }, one.token))
        .errno,
    ).toBe(errno.sameUser);
    const ok = await s.call(
      endpoints.approval.approve,
      { id: big.data.approvalId, code: two.code() },
      two.token,
    );
    expect(ok.errno, ok.errmsg).toBe(0);
    expect(await refundOf(waiting!.id)).toMatchObject({ status: 'processing' });

    const again = await ask(o.id, 200_000);
    expect(again.errno).toBe(errno.approvalRequested);
    const no = await s.call(
      endpoints.approval.reject,
      { id: again.data.approvalId, reason: 'not this one', code: two.code() },
      two.token,
    );
    expect(no.errno, no.errmsg).toBe(0);
    const [, rejected] = await s.db
      .select()
      .from(refunds)
      .where(eq(refunds.payinId, o.id))
      .orderBy(refunds.id);
    expect(rejected).toMatchObject({ status: 'rejected', failureReason: 'not this one' });
    expect((await orderOf(o.id)).refundedAmount).toBe(200_000);
  });

  describe('every (state, action) pair of the refund machine', () => {
    /** A refund brought into `state` through the real doors (above the threshold: it starts `requested`). */
    async function inState(state: RefundStatus) {
      const o = await paid(300_000);
      const asked = await ask(o.id, 150_000);
      expect(asked.errno).toBe(errno.approvalRequested);
      const [r] = await s.db.select().from(refunds).where(eq(refunds.payinId, o.id));
      const approve = () =>
        s.call(endpoints.approval.approve, { id: asked.data.approvalId, code: two.code() }, two.token);
      if (state === 'rejected')
        await s.call(
          endpoints.approval.reject,
          { id: asked.data.approvalId, reason, code: two.code() },
          two.token,
        );
      if (state === 'cancelled') await s.call(endpoints.refund.cancel, { id: r!.id }, one.token);
      if (state === 'processing' || state === 'success' || state === 'failed') await approve();
      if (state === 'success') await settle(r!.id, 'success');
      if (state === 'failed') await settle(r!.id, 'fail');
      const now = await refundOf(r!.id);
      expect(now.status).toBe(state);
      return now;
    }
    /** Runs `action` as its door does: the approval queue, the cancel endpoint, or the payout's outcome. */
    async function act(action: string, r: Awaited<ReturnType<typeof refundOf>>): Promise<number> {
      if (action === 'approve' || action === 'reject') {
        const input = { id: r.approvalId!, code: two.code(), ...(action === 'reject' ? { reason } : {}) };
        const res = await s.call(endpoints.approval[action], input as never, two.token);
        return res.errno;
      }
      if (action === 'cancel') return (await s.call(endpoints.refund.cancel, { id: r.id }, one.token)).errno;
      // `paid` and `fail` come from the refund's payout ending: through it when it can, else told directly.
      const result = action === 'paid' ? 'success' : 'fail';
      try {
        if (r.payoutId !== null && (await payoutOf(r.payoutId)).status === 'processing') {
          await inTransaction(s.db, (tx) =>
            completePayout(s.deps, tx, { orderId: r.payoutId!, result, by: 'channel' }),
          );
        } else {
          const fake = {
            ...(await payoutOf(r.payoutId ?? 0)),
            refundId: r.id,
            status: action === 'paid' ? 'success' : 'failed',
          };
          await inTransaction(s.db, (tx) => followPayout(s.deps, tx, fake as never));
        }
        return 0;
      } catch (err) {
        return (err as { errno?: number }).errno ?? -1;
      }
    }
    for (const c of sweep(refundMachine)) {
      it(c.name, async () => {
        const r = await inState(c.state);
        if (c.state === 'processing') await drainQueue(s);
        const order = await orderOf(r.payinId);
        const balances = await merchantBalances(s.db, m.id, 'INR');
        const code = await act(c.action, r);
        const after = await refundOf(r.id);
        if (c.allowed) {
          expect(code).toBe(0);
          expect(after.status).toBe(c.after);
          // Counted in the order while under way or paid, given back otherwise.
          const counted = refundMachine.is('counted', after.status);
          expect((await orderOf(r.payinId)).refundedAmount).toBe(
            order.refundedAmount - (counted ? 0 : r.amount),
          );
        } else {
          expect(code).not.toBe(0);
          expect(after).toEqual(await refundOf(r.id));
          expect(after.status).toBe(c.state);
          expect((await orderOf(r.payinId)).refundedAmount).toBe(order.refundedAmount);
          expect(await merchantBalances(s.db, m.id, 'INR')).toEqual(balances);
        }
      });
    }
  });

  describe('through the gateway', () => {
    it('refunds by its signature, replays a repeat once, and the callback verifies with standardwebhooks', async () => {
      const hook = await startReceiver();
      try {
        const o = await paid(8_000, hook.url);
        await (async () => {
          while ((await deliverDue(s.deps)) > 0) {}
        })();
        hook.received.length = 0;
        const body = { orderNo: o.orderNo, refundNo: `RF-${o.id}`, amount: '25.00', payee };
        const made = await s.gateway(m, 'POST', '/gateway/v1/refund', body);
        expect(made.status, JSON.stringify(made.json)).toBe(201);
        expect(gatewayRefund.safeParse(made.json.data).success).toBe(true);
        expect(made.json.data).toMatchObject({
          refundNo: body.refundNo,
          status: 'processing',
          amount: '25.00',
        });
        const again = await s.gateway(m, 'POST', '/gateway/v1/refund', body);
        expect(again.status).toBe(200);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.json).toEqual(made.json);
        const other = await s.gateway(m, 'POST', '/gateway/v1/refund', { ...body, amount: '26.00' });
        expect(other.status).toBe(409);
        expect(await s.db.select().from(refunds).where(eq(refunds.payinId, o.id))).toHaveLength(1);
        // Without a payee for an order never refunded: 422 naming it.
        const bare = await paid(1_000, hook.url);
        const noPayee = await s.gateway(m, 'POST', '/gateway/v1/refund', {
          orderNo: bare.orderNo,
          refundNo: `RF-${bare.id}`,
          amount: '5.00',
        });
        expect(noPayee.status).toBe(422);

        const [stored] = await s.db.select().from(refunds).where(eq(refunds.payinId, o.id));
        await settle(stored!.id, 'success');
        while ((await deliverDue(s.deps)) > 0) {}
        const got = hook.received.find((r) => JSON.parse(r.body).type === 'payin.refunded')!;
        const payload = verifyCallback(m.webhookSecret, got, s.clock.now().getTime());
        const read = await s.gateway(m, 'GET', `/gateway/v1/refund/${body.refundNo}`);
        expect(read.status).toBe(200);
        expect(payload.data).toEqual(read.json.data);
        expect(payload.data).toMatchObject({
          status: 'success',
          refundedAmount: '25.00',
          utr: 'UTR12345678',
        });
        expect((await s.gateway(m, 'GET', '/gateway/v1/refund/NOPE-1')).status).toBe(404);
        // Money out to a named account: refused from outside the payout whitelist, nothing written.
        const outside = await s.gateway(
          m,
          'POST',
          '/gateway/v1/refund',
          { ...body, refundNo: `OUT-${o.id}` },
          { ip: '198.51.100.9' },
        );
        expect(outside.status).toBe(403);
        expect(await s.db.select().from(refunds).where(eq(refunds.payinId, o.id))).toHaveLength(1);
        const [event] = await s.db.select().from(webhookEvents).where(eq(webhookEvents.orderType, 'refund'));
        expect(event).toBeDefined();
      } finally {
        await hook.close();
      }
    });
  });

  it.runIf(engine === 'postgres')(
    'twenty concurrent refunds of one order never pass what was paid',
    async () => {
      // Twenty refunds of 10.00 of an order paid 100.00, each its own number, all at once.
      const o = await paid(10_000);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          s.gateway(m, 'POST', '/gateway/v1/refund', {
            orderNo: o.orderNo,
            refundNo: `PAR-${o.id}-${i}`,
            amount: '10.00',
            payee,
          }),
        ),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(10);
      expect(results.filter((r) => r.status !== 201).every((r) => r.status === 422)).toBe(true);
      expect((await orderOf(o.id)).refundedAmount).toBe(10_000);
      const rows = await s.db.select().from(refunds).where(eq(refunds.payinId, o.id));
      expect(rows.reduce((sum, r) => sum + r.amount, 0)).toBe(10_000);
      // The same through the gateway, one refund number asked twenty times at once: one refund.
      const g = await paid(10_000);
      const body = { orderNo: g.orderNo, refundNo: `RACE-${g.id}`, amount: '10.00', payee };
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => s.gateway(m, 'POST', '/gateway/v1/refund', body)),
      );
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      expect(answers.every((a) => a.status === 201 || a.status === 200)).toBe(true);
      expect(await s.db.select().from(refunds).where(eq(refunds.payinId, g.id))).toHaveLength(1);
    },
  );
});
