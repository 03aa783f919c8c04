/**
 * Disputes (docs/MONEY-BACK.md section 2) on both engines: the hold at opening with its shortfall, the
 * outcomes and their ledger entries (the books balanced, every hold resolved once), a lost complaint paid
 * back by a refund from the hold, the `dispute` machine swept pair by pair, the callbacks, the deadline
 * alerts, and who may do what.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gatewayDispute } from '../../../contract/gateway.ts';
import { endpoints } from '../../../contract/index.ts';
import { dispute as disputeMachine } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import {
  disputes,
  ledgerAccounts,
  payinOrders,
  refunds,
  telegramDeliveries,
  telegramGroups,
  webhookEvents,
} from '../../db/schema.ts';
import { checkLedger } from '../../ledger/check.ts';
import { merchantBalances } from '../../ledger/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { sweep } from '../../test/sweep.ts';
import { codeAt } from '../auth/totp.ts';
import { createOrder, simPay } from '../payin/testkit.ts';
import { checkPayoutInvariants } from '../payout/invariants.ts';
import { simulatorMerchant } from '../payout/testkit.ts';
import { fund } from '../settlement/testkit.ts';
import { runTelegramChecks } from '../telegram/service.ts';
import { checkDisputeHolds } from './service.ts';

const { dispute } = endpoints;
const payee = { accountName: 'Asha Rao', accountNumber: '50100200300', ifsc: 'HDFC0001234' };
const hour = 3_600_000;

describe.each(engines)('disputes on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let one: Awaited<ReturnType<TestServer['makeKeyHolder']>>;
  let two: Awaited<ReturnType<TestServer['makeKeyHolder']>>;
  let m: Awaited<ReturnType<typeof simulatorMerchant>>;

  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  beforeEach(async () => {
    // The deadline test moves the clock by days: the sessions of the tests before it have ended.
    root = await s.adminToken();
    one = await s.makeKeyHolder(['*']);
    two = await s.makeKeyHolder(['*']);
    // A 3 % collection fee: a paid order's net is less than its amount, so a whole-amount case is short.
    m = await simulatorMerchant(s, { collectionRatePpm: 30_000 });
  });
  afterEach(async () => {
    expect((await checkLedger(s.db)).balanced).toBe(true);
    expect(await checkPayoutInvariants(s.db)).toMatchObject({ ok: true });
    expect(await checkDisputeHolds(s.db)).toEqual([]);
  });
  afterAll(() => s.close());

  /** A pay-in of `amount` (minor units) paid through the simulator. */
  async function paid(amount: number) {
    const o = await createOrder(s, m, {
      amount: formatMinor(amount),
      notifyUrl: 'https://merchant.example/cb',
    });
    expect((await simPay(s, root, o.orderNo, 'success')).errno).toBe(0);
    const [row] = await s.db.select().from(payinOrders).where(eq(payinOrders.id, o.id));
    return row!;
  }
  const deadline = (inMs = 72 * hour) => new Date(s.clock.now().getTime() + inMs).toISOString();
  const open = (
    payinId: number,
    amount: number,
    by: { token: string; code: () => string } = one,
    extra: Record<string, unknown> = {},
  ) =>
    s.call(
      dispute.open,
      {
        payinId,
        kind: 'chargeback',
        amount: formatMinor(amount),
        deadline: deadline(),
        reason: 'NPCI chargeback CB-1',
        code: by.code(),
        ...extra,
      },
      by.token,
    );
  const decide = (id: number, outcome: 'won' | 'lost', by = two, extra: Record<string, unknown> = {}) =>
    s.call(dispute.decide, { id, outcome, reason: 'bank decided', code: by.code(), ...extra }, by.token);
  const balances = () => merchantBalances(s.db, m.id, 'INR');
  const rowOf = async (id: number) => (await s.db.select().from(disputes).where(eq(disputes.id, id)))[0]!;
  async function merchantHolder(merchantId: number) {
    const user = await s.makeUser({ kind: 'merchant', merchantId, perms: ['*'] });
    const secret = await s.bindGoogle(user.token);
    const code = () => {
      s.clock.advance(30_000);
      return codeAt(secret, s.clock.now());
    };
    return { ...user, code };
  }

  it('holds the amount at opening from collection then payout, and gives it back when won', async () => {
    await fund(s, m.id, 'payout', 5_000);
    const o = await paid(10_000);
    const before = await balances();
    // All of it: the collection wallet holds the net only, the payout wallet gives the fee's part.
    const take = 10_000;
    const fromPayout = take - before.collection_available;
    expect(fromPayout).toBeGreaterThan(0);
    const res = await open(o.id, take);
    expect(res.errno, res.errmsg).toBe(0);
    expect(res.data).toMatchObject({
      status: 'open',
      kind: 'chargeback',
      amount: formatMinor(take),
      held: formatMinor(take),
      unheld: '0.00',
      heldCollectionAvailable: formatMinor(before.collection_available),
      heldPayoutAvailable: formatMinor(fromPayout),
      openedSide: 'platform',
      openedBy: one.username,
      overdue: false,
    });
    expect(await balances()).toMatchObject({
      collection_available: 0,
      payout_available: 5_000 - fromPayout,
      frozen: take,
    });

    // More than what is left to dispute: refused, nothing written.
    const again = await open(o.id, 1);
    expect(again.errno).toBe(errno.invalid);
    expect(JSON.stringify(again.data)).toContain('amount');
    expect((await s.db.select().from(disputes).where(eq(disputes.payinId, o.id))).length).toBe(1);

    const won = await decide(res.data.id, 'won');
    expect(won.errno, won.errmsg).toBe(0);
    expect(won.data).toMatchObject({ status: 'won', decidedBy: two.username, outcomeReason: 'bank decided' });
    expect(await balances()).toMatchObject(before);
    // Once: a second decision is a conflict and moves nothing.
    expect((await decide(res.data.id, 'lost')).errno).toBe(errno.conflict);
    expect(await balances()).toMatchObject(before);
  });

  it('a lost chargeback spends the hold to channel clearing and the unheld part becomes the merchant’s debt', async () => {
    const o = await paid(10_000);
    const { collection_available: net } = await balances();
    const res = await open(o.id, 10_000);
    expect(res.errno, res.errmsg).toBe(0);
    // The fee never reached the merchant: its wallets cover the net only.
    expect(res.data).toMatchObject({ held: formatMinor(net), unheld: formatMinor(10_000 - net) });
    const lost = await decide(res.data.id, 'lost');
    expect(lost.errno, lost.errmsg).toBe(0);
    expect(lost.data.status).toBe('lost');
    const after = await balances();
    expect(after).toMatchObject({ collection_available: 0, frozen: 0 });
    const [debt] = await s.db
      .select({ balance: ledgerAccounts.balance })
      .from(ledgerAccounts)
      .where(and(eq(ledgerAccounts.ownerId, m.id), eq(ledgerAccounts.kind, 'merchant_debt')));
    expect(debt!.balance).toBe(-(10_000 - net));
  });

  it('a lost complaint pays the payer back by a refund held from the dispute’s hold', async () => {
    await fund(s, m.id, 'collection', 1_000_000);
    const o = await paid(10_000);
    const before = await balances();
    const res = await open(o.id, 6_000, one, { kind: 'complaint' });
    expect(res.errno, res.errmsg).toBe(0);
    // No payee known for the order: the decision asks for one, and nothing moves.
    const noPayee = await decide(res.data.id, 'lost');
    expect(noPayee.errno).toBe(errno.invalid);
    expect(JSON.stringify(noPayee.data)).toContain('payee');
    expect((await rowOf(res.data.id)).status).toBe('open');

    const lost = await decide(res.data.id, 'lost', two, { payee });
    expect(lost.errno, lost.errmsg).toBe(0);
    expect(lost.data).toMatchObject({ status: 'lost', refundNo: expect.stringMatching(/^RF/) });
    const [r] = await s.db.select().from(refunds).where(eq(refunds.id, lost.data.refundId!));
    expect(r).toMatchObject({ amount: 6_000, status: 'processing', ...payee });
    const [order] = await s.db.select().from(payinOrders).where(eq(payinOrders.id, o.id));
    expect(order!.refundedAmount).toBe(6_000);
    // The hold became the refund's: the collection balance lost 60.00, still frozen until paid out.
    expect(await balances()).toMatchObject({
      collection_available: before.collection_available - 6_000,
      frozen: 6_000,
    });
  });

  it('keeps what an open dispute holds out of what may be refunded, until it ends', async () => {
    await fund(s, m.id, 'collection', 1_000_000);
    const o = await paid(10_000);
    const res = await open(o.id, 7_000);
    expect(res.errno, res.errmsg).toBe(0);
    const refund = (amount: number) =>
      s.call(
        endpoints.refund.create,
        { payinId: o.id, amount: formatMinor(amount), reason: 'goods returned', payee, code: one.code() },
        one.token,
      );
    const left = await s.call(endpoints.refund.ofOrder, { payinId: o.id }, root);
    expect(left.data.refundable).toBe('30.00');
    const over = await refund(3_001);
    expect(over.errno).toBe(errno.invalid);
    expect(JSON.stringify(over.data)).toContain('30.00');
    expect((await refund(3_000)).errno).toBe(0);
    await decide(res.data.id, 'won');
    expect((await refund(7_000)).errno).toBe(0);
  });

  it('never lets the opener decide, and a merchant opens only complaints and wrong payments of its own', async () => {
    await fund(s, m.id, 'collection', 1_000_000);
    const o = await paid(10_000);
    const res = await open(o.id, 1_000);
    expect((await decide(res.data.id, 'won', one)).errno).toBe(errno.sameUser);

    const mine = await merchantHolder(m.id);
    const chargeback = await open(o.id, 1_000, mine);
    expect(chargeback.errno).toBe(errno.invalid);
    expect(JSON.stringify(chargeback.data)).toContain('kind');
    const complaint = await open(o.id, 1_000, mine, { kind: 'complaint' });
    expect(complaint.errno, complaint.errmsg).toBe(0);
    expect(complaint.data).toMatchObject({ openedSide: 'merchant', openedBy: null, owner: null });
    // It withdraws its own case, not the platform's.
    expect(
      (await s.call(dispute.withdraw, { id: res.data.id, reason: 'x', code: mine.code() }, mine.token)).errno,
    ).toBe(errno.forbidden);
    const gone = await s.call(
      dispute.withdraw,
      { id: complaint.data.id, reason: 'settled with the payer', code: mine.code() },
      mine.token,
    );
    expect(gone.errno, gone.errmsg).toBe(0);
    expect(gone.data.status).toBe('withdrawn');

    // Another merchant's user sees none of it.
    const other = await simulatorMerchant(s);
    const stranger = await merchantHolder(other.id);
    expect((await s.call(dispute.info, { id: res.data.id }, stranger.token)).errno).toBe(errno.notFound);
    expect((await open(o.id, 1_000, stranger, { kind: 'complaint' })).errno).toBe(errno.notFound);
    const theirs = await s.call(dispute.list, {}, stranger.token);
    expect(theirs.data.list).toEqual([]);
    const ours = await s.call(dispute.list, {}, mine.token);
    expect(ours.data.list.map((d: { id: number }) => d.id).sort()).toEqual(
      [res.data.id, complaint.data.id].sort(),
    );

    // Bad input: a deadline in the past, an owner who is not a platform user.
    const past = await open(o.id, 1_000, one, { deadline: deadline(-hour) });
    expect(past.errno).toBe(errno.invalid);
    const badOwner = await s.call(dispute.assign, { id: res.data.id, ownerId: mine.id }, root);
    expect(badOwner.errno).toBe(errno.invalid);
    const owned = await s.call(dispute.assign, { id: res.data.id, ownerId: two.id }, root);
    expect(owned.data.owner).toBe(two.username);
    await decide(res.data.id, 'won');
  });

  it('withdraws only with the Google code of whoever withdraws, merchant or platform: else nothing is released', async () => {
    await fund(s, m.id, 'collection', 1_000_000);
    const o = await paid(10_000);
    const mine = await merchantHolder(m.id);
    const theirs = await open(o.id, 2_000, mine, { kind: 'complaint' });
    const ours = await open(o.id, 3_000);
    expect(theirs.errno, theirs.errmsg).toBe(0);
    expect(ours.errno, ours.errmsg).toBe(0);
    const held = await balances();
    const rows = [await rowOf(theirs.data.id), await rowOf(ours.data.id)];
    const withdraw = (id: number, by: { token: string }, code?: string) =>
      s.call(dispute.withdraw, { id, reason: 'settled with the payer', ...(code ? { code } : {}) }, by.token);
    const wrong = (by: { code: () => string }) =>
      String((Number(by.code()) + 1) % 1_000_000).padStart(6, '0');
    for (const [id, by] of [
      [theirs.data.id, mine],
      [ours.data.id, one],
    ] as const) {
      const none = await withdraw(id, by);
      expect(none.errno).toBe(errno.invalid);
      expect(none.data.fields.map((f: { path: string }) => f.path)).toContain('code');
      expect((await withdraw(id, by, wrong(by))).errno).toBe(errno.badCode);
    }
    // Nothing moved: both cases open, holding what they held; the merchant's wallets as they were.
    expect([await rowOf(theirs.data.id), await rowOf(ours.data.id)]).toEqual(rows);
    expect(await balances()).toEqual(held);

    // With the code: each side's case released by that side.
    const gone = await withdraw(theirs.data.id, mine, mine.code());
    expect(gone.errno, gone.errmsg).toBe(0);
    expect(gone.data.status).toBe('withdrawn');
    const ended = await withdraw(ours.data.id, one, one.code());
    expect(ended.errno, ended.errmsg).toBe(0);
    expect(ended.data.status).toBe('withdrawn');
    expect(await balances()).toMatchObject({ frozen: held.frozen - 5_000 });
  });

  it('keeps evidence from both sides, lists open cases by deadline first, and tells the merchant', async () => {
    await fund(s, m.id, 'collection', 1_000_000);
    const o = await paid(10_000);
    const late = await open(o.id, 1_000, one, { deadline: deadline(100 * hour) });
    const soon = await open(o.id, 1_000, one, { deadline: deadline(2 * hour) });
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    ).toString('base64');
    const added = await s.call(
      dispute.evidence,
      {
        id: soon.data.id,
        note: 'bank letter',
        file: { filename: 'letter.png', mime: 'image/png', dataBase64: png },
      },
      one.token,
    );
    expect(added.errno, added.errmsg).toBe(0);
    expect(added.data.evidence).toMatchObject([
      { note: 'bank letter', filename: 'letter.png', side: 'platform' },
    ]);
    const file = await s.call(
      dispute.evidenceFile,
      { id: soon.data.id, evidenceId: added.data.evidence[0].id },
      one.token,
    );
    expect(file.data).toMatchObject({ filename: 'letter.png', mime: 'image/png', dataBase64: png });
    expect((await s.call(dispute.evidence, { id: soon.data.id, note: '' }, one.token)).errno).toBe(
      errno.invalid,
    );
    // A file that is not what it says, or not base64 at all, or over 2 MB: refused, nothing kept.
    for (const file of [
      { filename: 'letter.jpg', mime: 'image/jpeg', dataBase64: png },
      { filename: 'x.png', mime: 'image/png', dataBase64: '<script>alert(1)</script>' },
      { filename: 'big.png', mime: 'image/png', dataBase64: 'A'.repeat(2_796_000) },
    ]) {
      const bad = await s.call(dispute.evidence, { id: soon.data.id, note: 'n', file }, one.token);
      expect(bad.errno, file.filename).toBe(errno.invalid);
    }
    expect((await s.call(dispute.info, { id: soon.data.id }, one.token)).data.evidence).toHaveLength(1);

    const listed = await s.call(dispute.list, { merchantId: m.id }, root);
    expect(listed.data.list.map((d: { id: number }) => d.id)).toEqual([soon.data.id, late.data.id]);

    // Both cases' openings were called back; the merchant verifies the data's shape.
    const events = await s.db.select().from(webhookEvents).where(eq(webhookEvents.orderType, 'dispute'));
    const mineOnly = events.filter((e) => [soon.data.id, late.data.id].includes(Number(e.orderId)));
    expect(mineOnly.map((e) => [e.type, e.round])).toEqual([
      ['dispute.updated', 1],
      ['dispute.updated', 1],
    ]);
    for (const e of mineOnly)
      expect(() => gatewayDispute.parse((e.payload as { data: unknown }).data)).not.toThrow();
    await decide(soon.data.id, 'won');
    await decide(late.data.id, 'won');
    const ends = await s.db.select().from(webhookEvents).where(eq(webhookEvents.orderId, soon.data.id));
    expect(ends.filter((e) => e.orderType === 'dispute').map((e) => e.round)).toEqual([1, 2]);
  });

  it('alerts the deadline on Telegram 48 hours and 4 hours before and when it passes, each once', async () => {
    await fund(s, m.id, 'collection', 1_000_000);
    const [group] = await s.db
      .insert(telegramGroups)
      .values({
        name: `disputes ${m.id}`,
        chatId: `-100${m.id}`,
        alerts: {
          callbackGaveUp: false,
          payoutStuckMinutes: null,
          settlementApplied: false,
          payoutBalanceFloor: null,
          channelSuccessFloorPct: null,
          disputeDeadline: true,
        },
        merchantIds: [m.id],
      })
      .returning();
    const o = await paid(10_000);
    const res = await open(o.id, 1_000, one, { deadline: deadline(50 * hour) });
    const sent = async () =>
      (await s.db.select().from(telegramDeliveries).where(eq(telegramDeliveries.groupId, group!.id))).map(
        (d) => d.dedupeKey,
      );
    await runTelegramChecks(s.deps);
    expect(await sent()).toEqual([]);
    s.clock.advance(3 * hour);
    await runTelegramChecks(s.deps);
    await runTelegramChecks(s.deps);
    const no = res.data.disputeNo;
    expect(await sent()).toEqual([`disputeDeadline:${no}:48h`]);
    s.clock.advance(44 * hour);
    await runTelegramChecks(s.deps);
    s.clock.advance(4 * hour);
    await runTelegramChecks(s.deps);
    expect(await sent()).toEqual([
      `disputeDeadline:${no}:48h`,
      `disputeDeadline:${no}:4h`,
      `disputeDeadline:${no}:due`,
    ]);
    // Overdue: listed as such.
    root = await s.adminToken();
    const info = await s.call(dispute.info, { id: res.data.id }, root);
    expect(info.data.overdue).toBe(true);
    await decide(res.data.id, 'won');
  });

  describe('every (state, action) pair of the dispute machine', () => {
    const via = {
      win: (id: number) => decide(id, 'won'),
      lose: (id: number) => decide(id, 'lost'),
      withdraw: (id: number) =>
        s.call(dispute.withdraw, { id, reason: 'no longer', code: one.code() }, one.token),
      work: (id: number) => s.call(dispute.evidence, { id, note: 'a note' }, root),
    };
    for (const c of sweep(disputeMachine)) {
      it(c.name, async () => {
        await fund(s, m.id, 'collection', 1_000_000);
        const o = await paid(10_000);
        const made = await open(o.id, 1_000);
        expect(made.errno, made.errmsg).toBe(0);
        const id = made.data.id as number;
        if (c.state === 'won') await via.win(id);
        if (c.state === 'lost') await via.lose(id);
        if (c.state === 'withdrawn') await via.withdraw(id);
        expect((await rowOf(id)).status).toBe(c.state);
        const res = await via[c.action](id);
        expect(res.errno, res.errmsg).toBe(c.allowed ? 0 : errno.conflict);
        expect((await rowOf(id)).status).toBe(c.after);
      });
    }
  });
});
