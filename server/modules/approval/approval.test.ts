/**
 * Maker–checker (OPERATIONS.md section 1) on forced supplements and manual payout successes: at the
 * threshold the action runs at once, above it the first user's call becomes a request that a second
 * platform user approves (the action then runs with exactly the ledger effects of a direct call) or
 * rejects (nothing runs). A user never decides their own request; a second request for the same
 * object waits for the first; an object that moved on takes its request with it. Every (state,
 * action) pair of the approval machine.
 */
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { approval as approvalMachine } from '../../../contract/machines.ts';
import { inTransaction } from '../../db/index.ts';
import {
  approvals,
  journalEntries,
  ledgerAccounts,
  operationLog,
  postings,
  webhookEvents,
} from '../../db/schema.ts';
import { writeParameter } from '../../lib/parameters.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { sweep } from '../../test/sweep.ts';
import { codeAt } from '../auth/totp.ts';
import { createOrder, merchantOn, orderById, simPay } from '../payin/testkit.ts';
import {
  balances,
  drainQueue,
  expectBooksBalanced,
  orderByNo,
  payoutBody,
  seedPayoutBalance,
  simulatorMerchant,
} from '../payout/testkit.ts';
import { cancelPendingApproval } from './service.ts';
import { forgetDayDecisions } from './testkit.ts';

const { approval, merchantOrder, merchantPayout } = endpoints;

/** The threshold these tests run with: 100.00. */
const threshold = 10_000;

describe.each(engines)('maker–checker on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let rootSecret: string;
  type Checker = Awaited<ReturnType<TestServer['makeKeyHolder']>>;
  /** Platform users who may force, mark, and decide requests; each with a bound Google key. */
  let one: Checker;
  let two: Checker;
  let three: Checker;
  let payinMerchant: Awaited<ReturnType<TestServer['makeMerchant']>>;
  let payoutMerchant: Awaited<ReturnType<TestServer['makeMerchant']>>;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    rootSecret = await s.bindGoogle(root);
    const perms = [
      merchantOrder.forceSupplement.permission,
      merchantPayout.markSuccess.permission,
      merchantPayout.markFailed.permission,
      approval.list.permission,
      approval.approve.permission,
      approval.reject.permission,
    ];
    one = await s.makeKeyHolder(perms);
    two = await s.makeKeyHolder(perms);
    three = await s.makeKeyHolder(perms);
    payinMerchant = await merchantOn(s, undefined, { collectionRatePpm: 20_000 });
    payoutMerchant = await simulatorMerchant(s, {
      payoutRatePpm: 10_000,
      payoutFee: 500,
      payoutIpWhitelist: ['203.0.113.0/24'],
    });
    await seedPayoutBalance(s, payoutMerchant.id, 100_000_000);
    await writeParameter(s.db, 'maker_checker_threshold', threshold);
  });
  afterEach(() => expectBooksBalanced(s));
  afterAll(() => s.close());
  /** A new rolling day: what the users and wallets decided alone before no longer counts. */
  const nextDay = () => forgetDayDecisions(s);
  beforeEach(nextDay);

  const rootCode = () => {
    s.clock.advance(30_000);
    return codeAt(rootSecret, s.clock.now());
  };
  const force = (u: Checker, id: number, extra: Record<string, string> = {}) =>
    s.call(
      merchantOrder.forceSupplement,
      { id, code: u.code(), reason: 'bank slip checked', ...extra },
      u.token,
    );
  const markSuccess = (u: Checker, id: number, extra: Record<string, string> = {}) =>
    s.call(
      merchantPayout.markSuccess,
      { id, code: u.code(), reason: 'paid per the bank', ...extra },
      u.token,
    );
  const approve = (u: Checker, id: number) => s.call(approval.approve, { id, code: u.code() }, u.token);
  const reject = (u: Checker, id: number, reason = 'no slip on file') =>
    s.call(approval.reject, { id, reason, code: u.code() }, u.token);
  const requestOf = async (id: number) =>
    (await s.db.select().from(approvals).where(eq(approvals.id, id)))[0]!;
  const payin = (amount: string) => createOrder(s, payinMerchant, { amount });
  /** A payout the simulator channel has taken (processing). */
  async function payout(amount: string) {
    const res = await s.gateway(payoutMerchant, 'POST', '/gateway/v1/payout', payoutBody({ amount }));
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    await drainQueue(s);
    const o = await orderByNo(s, res.json.data.orderNo as string);
    expect(o.status).toBe('processing');
    return o;
  }
  /**
   * An object's ledger lines, as (entry kind, account, amount), and who posted each entry; within an entry
   * by account, not by posting (the platform's lines land on one of its shards).
   */
  async function linesOf(refType: string, refId: number) {
    return s.db
      .select({
        kind: journalEntries.kind,
        userId: journalEntries.userId,
        owner: ledgerAccounts.ownerType,
        account: ledgerAccounts.kind,
        amount: postings.amount,
      })
      .from(postings)
      .innerJoin(journalEntries, eq(journalEntries.id, postings.entryId))
      .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, postings.accountId))
      .where(and(eq(journalEntries.refType, refType), eq(journalEntries.refId, String(refId))))
      .orderBy(asc(journalEntries.id), asc(ledgerAccounts.ownerType), asc(ledgerAccounts.kind));
  }
  const withoutUser = (lines: Awaited<ReturnType<typeof linesOf>>) => lines.map(({ userId: _, ...l }) => l);
  /** Runs `fn` with the threshold at `value`, then puts it back. */
  async function withThreshold<T>(value: number, fn: () => Promise<T>): Promise<T> {
    await writeParameter(s.db, 'maker_checker_threshold', value);
    try {
      return await fn();
    } finally {
      await writeParameter(s.db, 'maker_checker_threshold', threshold);
    }
  }
  /** A pending forced-supplement request by `one`, on a fresh order above the threshold. */
  async function forceRequest(amount = '150.00', extra: Record<string, string> = {}) {
    const order = await payin(amount);
    const res = await force(one, order.id, extra);
    expect(res.errno, res.errmsg).toBe(errno.approvalRequested);
    return { order, approvalId: res.data.approvalId as number };
  }

  describe('forced supplement', () => {
    it('runs at once at the threshold; above it, records a request and moves no money', async () => {
      const at = await payin('100.00');
      const direct = await force(one, at.id);
      expect(direct.errno, direct.errmsg).toBe(0);
      expect(direct.data).toMatchObject({ status: 'paid', paidBy: 'force', paidAmount: '100.00' });

      const above = await payin('150.00');
      // The paid amount is what counts: a part payment at the threshold runs at once too (a day later:
      // the day's sums of the user and the wallet are full).
      const part = await payin('150.00');
      await nextDay();
      expect((await force(one, part.id, { paidAmount: '100.00' })).errno).toBe(0);

      const asked = await force(one, above.id, { utr: 'FORCEAPPR01' });
      expect(asked.errno, asked.errmsg).toBe(errno.approvalRequested);
      expect(asked.errmsg).toBeTruthy();
      const approvalId = asked.data.approvalId as number;
      expect(await requestOf(approvalId)).toMatchObject({
        action: 'payin.force',
        refType: 'payin',
        refId: String(above.id),
        merchantId: payinMerchant.id,
        currency: 'INR',
        amount: 15_000,
        payload: { id: above.id, reason: 'bank slip checked', utr: 'FORCEAPPR01', paidAmount: 15_000 },
        reason: 'bank slip checked',
        status: 'pending',
        requestedBy: one.id,
        decidedBy: null,
      });
      expect((await orderById(s, above.id)).status).toBe('pending');
      expect(await linesOf('payin', above.id)).toEqual([]);
      // The request went well: logged as done, with the request it made (the code is never kept).
      const [logged] = await s.db
        .select()
        .from(operationLog)
        .where(
          and(
            eq(operationLog.action, 'merchantOrder.forceSupplement'),
            eq(operationLog.target, `payin:${above.orderNo}`),
          ),
        );
      expect(logged).toMatchObject({ outcome: 'ok', errno: errno.approvalRequested });
      expect(logged!.detail).toMatchObject({ approvalId, reason: 'bank slip checked' });
      expect(JSON.stringify((await requestOf(approvalId)).payload)).not.toContain('code');

      const listed = await s.call(approval.list, {}, two.token);
      expect(listed.errno, listed.errmsg).toBe(0);
      expect(listed.data.list).toContainEqual({
        id: approvalId,
        action: 'payin.force',
        refType: 'payin',
        refId: String(above.id),
        label: above.orderNo,
        merchantId: payinMerchant.id,
        merchantCode: payinMerchant.code,
        currency: 'INR',
        amount: '150.00',
        summary: [
          { key: 'utr', value: 'FORCEAPPR01' },
          { key: 'paidAmount', value: '150.00' },
        ],
        reason: 'bank slip checked',
        barred: [],
        status: 'pending',
        requestedBy: one.username,
        requestedAt: expect.any(String),
        decidedBy: null,
        decidedAt: null,
        decisionNote: null,
      });
      // Decided, so the list test below sees only its own.
      await reject(two, approvalId);
    });

    it('a user never decides their own request; nothing changes', async () => {
      const { order, approvalId } = await forceRequest();
      const before = await requestOf(approvalId);
      const self = await approve(one, approvalId);
      expect(self.errno).toBe(errno.sameUser);
      expect((await reject(one, approvalId)).errno).toBe(errno.sameUser);
      expect(await requestOf(approvalId)).toEqual(before);
      expect((await orderById(s, order.id)).status).toBe('pending');
      expect(await linesOf('payin', order.id)).toEqual([]);
      // The database says so too, whatever the code does.
      await expect(
        s.db
          .update(approvals)
          .set({ status: 'approved', decidedBy: one.id })
          .where(eq(approvals.id, approvalId)),
      ).rejects.toThrow();
      await reject(two, approvalId);
    });

    it('refuses a second request for the same order while one is pending, and a hand force below the threshold', async () => {
      const { order, approvalId } = await forceRequest();
      expect((await force(two, order.id)).errno).toBe(errno.approvalPending);
      expect((await force(one, order.id, { paidAmount: '50.00' })).errno).toBe(errno.approvalPending);
      const pending = await s.db
        .select()
        .from(approvals)
        .where(and(eq(approvals.refType, 'payin'), eq(approvals.refId, String(order.id))));
      expect(pending.map((p) => p.id)).toEqual([approvalId]);
      expect((await orderById(s, order.id)).status).toBe('pending');
      // Once decided, the order may be asked about again.
      expect((await reject(two, approvalId)).errno).toBe(0);
      expect((await force(two, order.id)).errno).toBe(errno.approvalRequested);
    });

    it('approved by a second user: the order is paid in the approver’s name with the ledger lines of a direct force', async () => {
      const { order, approvalId } = await forceRequest('150.00');
      const res = await approve(two, approvalId);
      expect(res.errno, res.errmsg).toBe(0);
      expect(res.data).toMatchObject({
        id: approvalId,
        status: 'approved',
        requestedBy: one.username,
        decidedBy: two.username,
        label: order.orderNo,
      });
      const paid = await orderById(s, order.id);
      expect(paid).toMatchObject({ status: 'paid', paidBy: 'force', paidAmount: 15_000 });
      const approved = await linesOf('payin', order.id);
      expect(new Set(approved.map((l) => l.userId))).toEqual(new Set([two.id]));
      // The merchant is told, as after a direct force.
      const events = await s.db
        .select({ type: webhookEvents.type })
        .from(webhookEvents)
        .where(and(eq(webhookEvents.orderType, 'payin'), eq(webhookEvents.orderId, order.id)));
      expect(events.map((e) => e.type)).toEqual(['payin.paid']);

      const same = await payin('150.00');
      await withThreshold(20_000, async () => expect((await force(one, same.id)).errno).toBe(0));
      const direct = await linesOf('payin', same.id);
      expect(withoutUser(approved)).toEqual(withoutUser(direct));

      const [logged] = await s.db
        .select()
        .from(operationLog)
        .where(
          and(eq(operationLog.action, 'approval.approve'), eq(operationLog.target, `approval:${approvalId}`)),
        );
      expect(logged).toMatchObject({ outcome: 'ok', userId: two.id });
      expect(logged!.detail).toMatchObject({
        action: 'payin.force',
        requestedBy: one.id,
        requestedByName: one.username,
        order: `payin:${order.orderNo}`,
      });
      expect((await approve(three, approvalId)).errno).toBe(errno.conflict);
    });

    it('rejected: the order is left as it was, with the rejecter’s reason kept', async () => {
      const { order, approvalId } = await forceRequest();
      const res = await reject(two, approvalId, 'no slip on file');
      expect(res.errno, res.errmsg).toBe(0);
      expect(res.data).toMatchObject({
        status: 'rejected',
        decidedBy: two.username,
        decisionNote: 'no slip on file',
      });
      expect(await orderById(s, order.id)).toEqual(order);
      expect(await linesOf('payin', order.id)).toEqual([]);
      expect((await approve(three, approvalId)).errno).toBe(errno.conflict);
      expect(await orderById(s, order.id)).toEqual(order);
    });

    it('an order paid by its channel takes its request with it: approving then is a clean 409', async () => {
      const { order, approvalId } = await forceRequest();
      expect((await simPay(s, root, order.orderNo, 'success')).errno).toBe(0);
      expect(await requestOf(approvalId)).toMatchObject({ status: 'cancelled', decidedBy: null });
      const lines = await linesOf('payin', order.id);
      const res = await approve(two, approvalId);
      expect(res.errno).toBe(errno.conflict);
      expect(await requestOf(approvalId)).toMatchObject({ status: 'cancelled', decidedBy: null });
      expect(await linesOf('payin', order.id)).toEqual(lines);
      expect((await orderById(s, order.id)).paidBy).toBe('channel');
    });

    it('an approval the action refuses changes nothing: the request stays pending', async () => {
      // The request names a UTR that another order takes meanwhile.
      const { order, approvalId } = await forceRequest('150.00', { utr: 'TAKENLATER1' });
      const other = await payin('20.00');
      expect((await force(three, other.id, { utr: 'TAKENLATER1' })).errno).toBe(0);
      const res = await approve(two, approvalId);
      expect(res.errno).toBe(errno.utrUsed);
      expect(await requestOf(approvalId)).toMatchObject({
        status: 'pending',
        decidedBy: null,
        decidedAt: null,
      });
      expect(await orderById(s, order.id)).toEqual(order);
      expect(await linesOf('payin', order.id)).toEqual([]);
      await reject(two, approvalId);
    });

    it('two approvers at once: one runs it, the other is told it was decided', async () => {
      const { order, approvalId } = await forceRequest();
      const answers = await Promise.all([approve(two, approvalId), approve(three, approvalId)]);
      expect(answers.map((a) => a.errno).sort()).toEqual([0, errno.conflict].sort());
      expect(await linesOf('payin', order.id)).toHaveLength(3);
    });

    it('the super administrator decides others’ requests too', async () => {
      const { order, approvalId } = await forceRequest();
      const res = await s.call(approval.approve, { id: approvalId, code: rootCode() }, root);
      expect(res.errno, res.errmsg).toBe(0);
      expect((await orderById(s, order.id)).status).toBe('paid');
    });
  });

  describe('manual payout success', () => {
    it('runs at once at the threshold; above it, a second user’s approval spends the hold as a direct mark does', async () => {
      const at = await payout('100.00');
      const direct = await markSuccess(one, at.id, { utr: 'PAYOUTUTR01' });
      expect(direct.errno, direct.errmsg).toBe(0);
      expect(direct.data).toMatchObject({ status: 'success', utr: 'PAYOUTUTR01' });

      const above = await payout('150.00');
      const wallet = await balances(s, payoutMerchant.id);
      const asked = await markSuccess(one, above.id, { utr: 'PAYOUTUTR02' });
      expect(asked.errno, asked.errmsg).toBe(errno.approvalRequested);
      const approvalId = asked.data.approvalId as number;
      expect(await requestOf(approvalId)).toMatchObject({
        action: 'payout.markSuccess',
        refType: 'payout',
        refId: String(above.id),
        amount: 15_000,
        payload: { id: above.id, reason: 'paid per the bank', utr: 'PAYOUTUTR02' },
        requestedBy: one.id,
      });
      expect((await orderByNo(s, above.orderNo)).status).toBe('processing');
      expect(await balances(s, payoutMerchant.id)).toEqual(wallet);
      expect((await markSuccess(two, above.id)).errno).toBe(errno.approvalPending);
      expect((await approve(one, approvalId)).errno).toBe(errno.sameUser);

      const res = await approve(two, approvalId);
      expect(res.errno, res.errmsg).toBe(0);
      expect(await orderByNo(s, above.orderNo)).toMatchObject({
        status: 'success',
        utr: 'PAYOUTUTR02',
        holdOpen: false,
      });
      const approved = await linesOf('payout', above.id);
      const spent = approved.filter((l) => l.kind === 'payout_success');
      expect(new Set(spent.map((l) => l.userId))).toEqual(new Set([two.id]));
      // The frozen amount plus fee is spent; the available balance does not move.
      const after = await balances(s, payoutMerchant.id);
      expect(after.payout_available).toBe(wallet.payout_available);
      expect(after.frozen).toBe(wallet.frozen - (above.amount + above.fee));

      const same = await payout('150.00');
      await nextDay();
      await withThreshold(20_000, async () => expect((await markSuccess(one, same.id)).errno).toBe(0));
      expect(withoutUser(approved)).toEqual(withoutUser(await linesOf('payout', same.id)));
    });

    it('a finished payout or one waiting for approval is refused before the code is looked at', async () => {
      const o = await payout('150.00');
      await markSuccess(one, o.id);
      const wrong = { code: '000000' };
      expect((await markSuccess(two, o.id, wrong)).errno).toBe(errno.approvalPending);
      const done = await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'success' }, root);
      expect(done.errno, done.errmsg).toBe(0);
      expect((await markSuccess(two, o.id, wrong)).errno).toBe(errno.conflict);
    });

    it('rejected: the payout stays with its channel and its hold open', async () => {
      const o = await payout('150.00');
      const asked = await markSuccess(one, o.id);
      const res = await reject(two, asked.data.approvalId);
      expect(res.errno, res.errmsg).toBe(0);
      expect(await orderByNo(s, o.orderNo)).toEqual(o);
      // Settled by its channel afterwards, as any payout.
      expect(
        (await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'success' }, root)).errno,
      ).toBe(0);
    });

    it('a payout settled by its channel, or marked failed, takes its request with it', async () => {
      for (const settle of ['channel', 'markFailed'] as const) {
        const o = await payout('150.00');
        const approvalId = (await markSuccess(one, o.id)).data.approvalId as number;
        if (settle === 'channel') {
          const r = await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result: 'fail' }, root);
          expect(r.errno, r.errmsg).toBe(0);
        } else {
          const r = await s.call(
            merchantPayout.markFailed,
            { id: o.id, code: three.code(), reason: 'account closed' },
            three.token,
          );
          expect(r.errno, r.errmsg).toBe(0);
        }
        expect(await requestOf(approvalId)).toMatchObject({ status: 'cancelled' });
        const failed = await orderByNo(s, o.orderNo);
        const lines = await linesOf('payout', o.id);
        expect((await approve(two, approvalId)).errno).toBe(errno.conflict);
        expect(await orderByNo(s, o.orderNo)).toEqual(failed);
        expect(await linesOf('payout', o.id)).toEqual(lines);
      }
    });
  });

  describe('the list', () => {
    it('pending requests oldest first by default; other statuses and actions on request; keyset pages', async () => {
      const a = await forceRequest();
      const o = await payout('150.00');
      const b = (await markSuccess(one, o.id)).data.approvalId as number;
      const c = await forceRequest();
      const all = await s.call(approval.list, { pageSize: 100 }, two.token);
      const ids = all.data.list.map((r: { id: number }) => r.id);
      expect(ids).toEqual(expect.arrayContaining([a.approvalId, b, c.approvalId]));
      expect(ids.indexOf(a.approvalId)).toBeLessThan(ids.indexOf(b));
      expect(ids.indexOf(b)).toBeLessThan(ids.indexOf(c.approvalId));
      expect(all.data.list.every((r: { status: string }) => r.status === 'pending')).toBe(true);
      expect(all.data.total).toBe(ids.length);

      const payouts = await s.call(approval.list, { action: 'payout.markSuccess' }, two.token);
      expect(payouts.data.list.map((r: { id: number }) => r.id)).toEqual([b]);
      expect(payouts.data.list[0]).toMatchObject({ label: o.orderNo, amount: '150.00', refType: 'payout' });

      const seen: number[] = [];
      let cursor: string | undefined;
      do {
        const page = await s.call(approval.list, { pageSize: 1, ...(cursor ? { cursor } : {}) }, two.token);
        expect(page.data.list.length).toBeLessThanOrEqual(1);
        seen.push(...page.data.list.map((r: { id: number }) => r.id));
        cursor = page.data.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(ids);

      for (const id of [a.approvalId, b, c.approvalId]) await reject(two, id);
      const rejected = await s.call(approval.list, { status: 'rejected', pageSize: 100 }, two.token);
      expect(rejected.data.list.map((r: { id: number }) => r.id)).toEqual(
        expect.arrayContaining([a.approvalId, b, c.approvalId]),
      );
      expect((await s.call(approval.list, { status: 'nonsense' }, two.token)).errno).toBe(errno.invalid);
    });
  });

  describe('the approval machine', () => {
    /** Runs one action on a request: the endpoints for the deciders' actions, the module's cancel otherwise. */
    async function act(action: (typeof approvalMachine.actionNames)[number], id: number): Promise<number> {
      if (action === 'approve') return (await approve(two, id)).errno;
      if (action === 'reject') return (await reject(two, id)).errno;
      const r = await requestOf(id);
      await inTransaction(s.db, (tx) => cancelPendingApproval(s.deps, tx, r.refType, r.refId));
      return 0;
    }
    for (const c of sweep(approvalMachine)) {
      it(c.name, async () => {
        const { order, approvalId } = await forceRequest();
        const into = approvalMachine.actionNames.find((a) => approvalMachine.to(a) === c.state);
        if (into) expect(await act(into, approvalId)).toBe(0);
        const before = await requestOf(approvalId);
        expect(before.status).toBe(c.state);
        const orderBefore = await orderById(s, order.id);
        const res = await act(c.action, approvalId);
        const after = await requestOf(approvalId);
        if (c.allowed) {
          expect(res).toBe(0);
          expect(after.status).toBe(c.after);
          expect((await orderById(s, order.id)).status).toBe(c.action === 'approve' ? 'paid' : 'pending');
        } else {
          if (c.action !== 'cancel') expect(res).toBe(errno.conflict);
          expect(after).toEqual(before);
          expect(await orderById(s, order.id)).toEqual(orderBefore);
        }
      });
    }
  });
});
