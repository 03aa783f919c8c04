/**
 * Withdrawal slips on both databases: the manual bank channel, candidates, creation (all or nothing,
 * one live slip per object, also when two slips race for one settlement), the kept file downloaded byte
 * for byte, withdraw (the settlement completed with its ledger effects, the payout a success), drop,
 * void, and every (state, action) pair of the `slip` and `slipLine` machines (and the settlement's `slip`).
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Endpoint, endpoints } from '../../../contract/index.ts';
import {
  slipLine as lineMachine,
  payout,
  settlement as settlementMachine,
  slip as slipMachine,
} from '../../../contract/machines.ts';
import { ChannelRefused } from '../../channels/adapter.ts';
import { manualBankAdapter } from '../../channels/manualBank.ts';
import { inTransaction } from '../../db/index.ts';
import {
  channels,
  operationLog,
  payoutOrders,
  settlements,
  webhookEvents,
  withdrawalSlipLines,
  withdrawalSlips,
} from '../../db/schema.ts';
import { merchantBalances } from '../../ledger/index.ts';
import { writeParameter } from '../../lib/parameters.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { sweep } from '../../test/sweep.ts';
import { createPayout } from '../payout/service.ts';
import { drainQueue, expectBooksBalanced, payoutOperator } from '../payout/testkit.ts';
import {
  bank,
  cur,
  type Decider,
  decider,
  expectBooks,
  merchantWithOwner,
  type Owner,
  platformBalance,
  settlementPayment,
} from '../settlement/testkit.ts';

const ws = endpoints.withdrawalSlip;

type Info = {
  id: number;
  slipNo: string;
  status: string;
  format: string;
  fileName: string;
  lineCount: number;
  total: string;
  lineCounts: { toBeWithdrawn: number; withdrawn: number; defunct: number };
  lines: {
    id: number;
    lineNo: number;
    objectType: string;
    objectId: number;
    objectNo: string;
    amount: string;
    status: string;
    reference: string | null;
    narration: string;
    beneficiaryName: string;
  }[];
};

describe.each(engines)('withdrawal slips on %s', (engine) => {
  let s: TestServer;
  let root: string;
  /** The public account the slips are paid from. */
  let paidFrom: number;
  /** Confirms settlements; never the one who withdraws them (maker–checker). */
  let confirmer: Decider;
  /** Writes slips and marks their lines. */
  let operator: Awaited<ReturnType<typeof slipOperator>>;
  let other: Awaited<ReturnType<typeof slipOperator>>;
  let owner: Owner;
  let bankChannelId: number;

  const slipOperator = (srv: TestServer) => srv.makeKeyHolder(Object.values(ws).map((e) => e.permission));

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    confirmer = await decider(s);
    operator = await slipOperator(s);
    other = await slipOperator(s);
    const made = await s.call(
      endpoints.channel.create,
      {
        code: 'hdfc_manual',
        name: 'HDFC current account',
        adapter: 'manual_bank',
        minAmount: '1.00',
        maxAmount: '1000000.00',
      },
      root,
    );
    expect(made.errno, made.errmsg).toBe(0);
    bankChannelId = made.data.id;
    owner = await merchantWithOwner(
      s,
      { channels: [{ channelId: bankChannelId, weight: 100 }] },
      { collection: 100_000_000, payout: 100_000_000 },
    );
    const account = await s.call(
      endpoints.receivingAccount.create,
      {
        kind: 'public',
        bankName: 'HDFC Bank',
        accountName: 'Acme Payments Pvt Ltd',
        accountNumber: `5020${Date.now() % 1_000_000_000}`,
        ifsc: 'HDFC0000240',
        dailyLimit: '10000000.00',
      },
      root,
    );
    expect(account.errno, account.errmsg).toBe(0);
    paidFrom = account.data.id;
  });
  afterEach(async () => {
    await expectBooks(s);
    await expectBooksBalanced(s);
  });
  afterAll(() => s.close());

  /** A confirmed bank settlement of `owner` for `amount`, confirmed at `audit`. */
  async function confirmedSettlement(amount = '1000.00', audit = amount, o: Owner = owner) {
    const applied = await s.call(settlementPayment.create, { ...bank, amount, code: o.code() }, o.token);
    expect(applied.errno, applied.errmsg).toBe(0);
    const confirmed = await s.call(
      settlementPayment.confirm,
      { id: applied.data.id, auditAmount: audit, code: confirmer.code() },
      confirmer.token,
    );
    expect(confirmed.errno, confirmed.errmsg).toBe(0);
    return confirmed.data as { id: number; settlementNo: string; fee: string };
  }

  /** A payout of `owner` handed to the manual bank channel: processing, waiting for a slip. */
  async function manualPayout(amount = 50_000) {
    const made = await inTransaction(s.db, (tx) =>
      createPayout(
        s.deps,
        tx,
        owner.m,
        {
          amount,
          accountName: 'Asha Verma',
          accountNumber: '123456789012',
          ifsc: 'SBIN0001234',
          notifyUrl: 'http://127.0.0.1:9/hook',
        },
        { source: 'console', lang: 'en' },
      ),
    );
    await drainQueue(s);
    const [o] = await s.db.select().from(payoutOrders).where(eq(payoutOrders.id, made.order.id));
    return o!;
  }

  const create = (
    ids: { settlementIds?: number[]; payoutIds?: number[] },
    format = 'generic_csv',
    who = operator,
  ) => s.call(ws.create, { format, accountId: paidFrom, ...ids, code: who.code() }, who.token);

  async function slipOf(ids: { settlementIds?: number[]; payoutIds?: number[] }, format = 'generic_csv') {
    const res = await create(ids, format);
    expect(res.errno, res.errmsg).toBe(0);
    return res.data as Info;
  }

  const info = async (id: number) => (await s.call(ws.info, { id }, operator.token)).data as Info;
  const candidates = async () =>
    ((await s.call(ws.candidates, {}, operator.token)).data as { list: { objectType: string; id: number }[] })
      .list;
  const isCandidate = async (objectType: string, id: number) =>
    (await candidates()).some((c) => c.objectType === objectType && c.id === id);

  it('a manual bank channel takes no pay-ins and accepts payouts at once, under our number', async () => {
    const refused = await s.call(
      endpoints.channel.create,
      { code: 'mb_payin', name: 'Bank', adapter: 'manual_bank', supportsPayin: true },
      root,
    );
    expect(refused.errno).toBe(errno.invalid);
    expect(refused.data.fields[0].path).toBe('supportsPayin');
    const [row] = await s.db.select().from(channels).where(eq(channels.id, bankChannelId));
    expect(row).toMatchObject({ adapter: 'manual_bank', supportsPayin: false, supportsPayout: true });
    const update = await s.call(endpoints.channel.update, { id: bankChannelId, supportsPayin: true }, root);
    expect(update.errno).toBe(errno.invalid);
    await expect(
      manualBankAdapter.createPayin(
        { deps: s.deps, tx: s.db, channel: row! },
        {
          orderNo: 'X',
          merchantId: 1,
          amount: 100,
          currency: cur,
          expiresAt: s.clock.now(),
        },
      ),
    ).rejects.toBeInstanceOf(ChannelRefused);

    const o = await manualPayout();
    expect(o).toMatchObject({
      status: payout.state.processing,
      channelId: bankChannelId,
      channelOrderId: o.orderNo,
      holdOpen: true,
    });
    // Nothing settles it by itself: the queue has nothing more to do with it.
    await drainQueue(s);
    const [still] = await s.db.select().from(payoutOrders).where(eq(payoutOrders.id, o.id));
    expect(still!.status).toBe(payout.state.processing);
    expect(await isCandidate('payout', o.id)).toBe(true);
  });

  it('lists confirmed bank settlements and manual-bank payouts, not what is unconfirmed or USDT', async () => {
    const st = await confirmedSettlement('1500.00');
    const waiting = await s.call(
      settlementPayment.create,
      { ...bank, amount: '700.00', code: owner.code() },
      owner.token,
    );
    const usdt = await s.call(
      settlementPayment.create,
      { type: 'usdt', returnAddress: `T${'B'.repeat(33)}`, amount: '800.00', code: owner.code() },
      owner.token,
    );
    const res = await s.call(ws.candidates, {}, operator.token);
    expect(res.errno, res.errmsg).toBe(0);
    const mine = res.data.list.find(
      (c: { objectType: string; id: number }) => c.objectType === 'settlement' && c.id === st.id,
    );
    expect(mine).toMatchObject({
      objectType: 'settlement',
      objectNo: st.settlementNo,
      merchantCode: owner.m.code,
      currency: cur,
      amount: '1500.00',
      beneficiaryName: bank.accountName,
      accountNumber: bank.cardNumber,
      ifsc: bank.ifsc,
    });
    const ids = res.data.list.map((c: { id: number; objectType: string }) => `${c.objectType}:${c.id}`);
    expect(ids).not.toContain(`settlement:${waiting.data.id}`);
    expect(ids).not.toContain(`settlement:${usdt.data.id}`);
    expect(res.data.total).toBe(res.data.list.length);
    // Merchant users and platform users without the permission never see it.
    expect((await s.call(ws.candidates, {}, owner.token)).errno).toBe(errno.forbidden);
  });

  it('writes the slip, keeps its file and downloads it byte for byte; a second slip for one object is refused', async () => {
    const st = await confirmedSettlement('1234.50');
    const po = await manualPayout(20_000_000);
    const made = await slipOf({ settlementIds: [st.id], payoutIds: [po.id] }, 'hdfc_bulk');
    expect(made).toMatchObject({
      status: 'to_be_withdrawn',
      format: 'hdfc_bulk',
      accountId: paidFrom,
      lineCount: 2,
      total: '201234.50',
      lineCounts: { toBeWithdrawn: 2, withdrawn: 0, defunct: 0 },
      fileName: `${made.slipNo}-HDFC.txt`,
    });
    expect(made.slipNo).toMatch(/^WS\d{11}$/);
    expect(made.lines.map((l) => [l.lineNo, l.objectType, l.objectNo, l.amount, l.narration])).toEqual([
      [1, 'settlement', st.settlementNo, '1234.50', st.settlementNo],
      [2, 'payout', po.orderNo, '200000.00', po.orderNo],
    ]);

    const [kept] = await s.db.select().from(withdrawalSlips).where(eq(withdrawalSlips.id, made.id));
    const lines = kept!.content.split('\r\n');
    expect(lines[0]!.startsWith('N,,123456789012,1234.50,Asha Traders,')).toBe(true);
    expect(lines[1]!.startsWith('R,,123456789012,200000.00,Asha Verma,')).toBe(true);

    const res = await s.app.request(`http://localhost/api${ws.download.path}?id=${made.id}`, {
      headers: { 'admin-token': operator.token, 'x-forwarded-for': '10.0.0.1' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${made.fileName}"`);
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(kept!.content, 'utf8'))).toBe(true);
    // Who took the file is logged.
    const taken = await s.db
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.action, ws.download.id), eq(operationLog.target, `slip:${made.slipNo}`)));
    expect(taken).toHaveLength(1);

    expect(await isCandidate('settlement', st.id)).toBe(false);
    expect(await isCandidate('payout', po.id)).toBe(false);
    const again = await create({ settlementIds: [st.id] }, 'generic_csv', other);
    expect(again.errno).toBe(errno.conflict);
    expect(again.data).toEqual({ settlementIds: [st.id], payoutIds: [] });
    // The slip stays whole: a refused slip writes nothing, even with a free object beside the taken one.
    const free = await confirmedSettlement('300.00');
    const before = await s.db.select().from(withdrawalSlips);
    expect((await create({ settlementIds: [free.id, st.id] }, 'generic_csv', other)).errno).toBe(
      errno.conflict,
    );
    expect(await s.db.select().from(withdrawalSlips)).toHaveLength(before.length);
    expect(await isCandidate('settlement', free.id)).toBe(true);
    // While on the slip, the settlement is not rejected under it.
    const reject = await s.call(
      settlementPayment.reject,
      { id: st.id, reason: 'bank said no', code: confirmer.code() },
      confirmer.token,
    );
    expect(reject.errno).toBe(errno.onSlip);
    // Nor completed by hand: the bank may pay it from the slip as well.
    const finance = await decider(s);
    const byHand = await s.call(
      settlementPayment.complete,
      { id: st.id, reference: 'UTR0000002', code: finance.code() },
      finance.token,
    );
    expect(byHand.errno).toBe(errno.onSlip);
    // Nor is its payout marked by hand: the bank may still send it.
    const hands = await payoutOperator(s);
    expect((await hands.act('markFailed', po.id)).errno).toBe(errno.onSlip);
    expect((await hands.act('markSuccess', po.id, { utr: 'UTR0000001' })).errno).toBe(errno.onSlip);
  });

  it('refuses a file the bank cannot read, naming the object; a wrong code spends nothing', async () => {
    const named = await merchantWithOwner(s, { channels: [{ channelId: bankChannelId, weight: 100 }] });
    const applied = await s.call(
      settlementPayment.create,
      { ...bank, accountName: 'राम कुमार', amount: '500.00', code: named.code() },
      named.token,
    );
    await s.call(
      settlementPayment.confirm,
      { id: applied.data.id, auditAmount: '500.00', code: confirmer.code() },
      confirmer.token,
    );
    const hdfc = await create({ settlementIds: [applied.data.id] }, 'hdfc_bulk');
    expect(hdfc.errno).toBe(errno.invalid);
    expect(hdfc.data.fields).toEqual([
      expect.objectContaining({ path: 'settlementIds.0', code: 'slipName' }),
    ]);
    // The generic CSV carries the name as it is.
    const generic = await slipOf({ settlementIds: [applied.data.id] });
    expect(generic.lines[0]!.beneficiaryName).toBe('राम कुमार');
    await s.call(ws.void, { id: generic.id, code: operator.code() }, operator.token);

    const bad = await s.call(
      ws.create,
      { format: 'generic_csv', accountId: paidFrom, settlementIds: [applied.data.id], code: '000000' },
      operator.token,
    );
    expect(bad.errno).toBe(errno.badCode);
    expect(await isCandidate('settlement', applied.data.id)).toBe(true);
    expect(
      (
        await s.call(
          ws.create,
          { format: 'generic_csv', accountId: paidFrom, code: operator.code() },
          operator.token,
        )
      ).errno,
    ).toBe(errno.invalid);
    expect((await create({ settlementIds: [999_999] })).errno).toBe(errno.notFound);
  });

  it('withdraw completes the settlement (ledger as its completion) and the payout; the slip is then withdrawn', async () => {
    const st = await confirmedSettlement('2000.00', '1800.00');
    const po = await manualPayout(75_000);
    const made = await slipOf({ settlementIds: [st.id], payoutIds: [po.id] });
    const [stLine, poLine] = made.lines;
    const before = {
      balances: await merchantBalances(s.db, owner.m.id, cur),
      clearing: await platformBalance(s, 'settlement_clearing'),
      fee: await platformBalance(s, 'fee_income'),
    };
    const fee = Math.round(Number(st.fee) * 100);

    const first = await s.call(
      ws.withdraw,
      {
        id: made.id,
        lines: [{ lineId: stLine!.id, reference: 'hdfcn52026111500001' }],
        code: operator.code(),
      },
      operator.token,
    );
    expect(first.errno, first.errmsg).toBe(0);
    expect(first.data).toMatchObject({
      status: 'to_be_withdrawn',
      lineCounts: { toBeWithdrawn: 1, withdrawn: 1, defunct: 0 },
    });
    expect(first.data.lines[0]).toMatchObject({ status: 'withdrawn', reference: 'HDFCN52026111500001' });
    const [settled] = await s.db.select().from(settlements).where(eq(settlements.id, st.id));
    expect(settled).toMatchObject({ status: 'settled', reference: 'HDFCN52026111500001' });
    const after = await merchantBalances(s.db, owner.m.id, cur);
    expect(after.frozen).toBe(before.balances.frozen - (180_000 + fee));
    expect(after.collection_available).toBe(before.balances.collection_available);
    expect(await platformBalance(s, 'settlement_clearing')).toBe(before.clearing + 180_000);
    expect(await platformBalance(s, 'fee_income')).toBe(before.fee + fee);

    const second = await s.call(
      ws.withdraw,
      { id: made.id, lines: [{ lineId: poLine!.id, reference: '612345678901' }], code: operator.code() },
      operator.token,
    );
    expect(second.errno, second.errmsg).toBe(0);
    expect(second.data).toMatchObject({ status: 'withdrawn', decidedBy: operator.username });
    const [paid] = await s.db.select().from(payoutOrders).where(eq(payoutOrders.id, po.id));
    expect(paid).toMatchObject({ status: payout.state.success, utr: '612345678901', holdOpen: false });
    const told = await s.db
      .select({ type: webhookEvents.type })
      .from(webhookEvents)
      .where(and(eq(webhookEvents.orderType, 'payout'), eq(webhookEvents.orderId, po.id)));
    expect(told.length).toBeGreaterThan(0);
    // Done is done: the line again, or the slip voided, is a conflict.
    const repeat = await s.call(
      ws.withdraw,
      { id: made.id, lines: [{ lineId: poLine!.id, reference: '612345678901' }], code: operator.code() },
      operator.token,
    );
    expect(repeat.errno).toBe(errno.conflict);
    expect((await s.call(ws.void, { id: made.id, code: operator.code() }, operator.token)).errno).toBe(
      errno.conflict,
    );
  });

  it('the user who confirmed a settlement cannot withdraw its line (1040); nothing moves', async () => {
    const both = await s.makeKeyHolder([
      ...Object.values(ws).map((e) => e.permission),
      settlementPayment.confirm.permission,
    ]);
    const applied = await s.call(
      settlementPayment.create,
      { ...bank, amount: '900.00', code: owner.code() },
      owner.token,
    );
    await s.call(
      settlementPayment.confirm,
      { id: applied.data.id, auditAmount: '900.00', code: both.code() },
      both.token,
    );
    const made = await slipOf({ settlementIds: [applied.data.id] });
    const res = await s.call(
      ws.withdraw,
      { id: made.id, lines: [{ lineId: made.lines[0]!.id, reference: 'UTR123456' }], code: both.code() },
      both.token,
    );
    expect(res.errno).toBe(errno.sameUser);
    expect((await info(made.id)).lines[0]!.status).toBe('to_be_withdrawn');
    const [row] = await s.db.select().from(settlements).where(eq(settlements.id, applied.data.id));
    expect(row!.status).toBe('confirmed');
    // Another user may.
    const ok = await s.call(
      ws.withdraw,
      { id: made.id, lines: [{ lineId: made.lines[0]!.id, reference: 'UTR123456' }], code: operator.code() },
      operator.token,
    );
    expect(ok.errno, ok.errmsg).toBe(0);
  });

  it('above the threshold the slip maker cannot mark its payout withdrawn (1040): a manual success takes a second person', async () => {
    const po = await manualPayout(75_000);
    const made = await slipOf({ payoutIds: [po.id] });
    const mark = (who: typeof operator) =>
      s.call(
        ws.withdraw,
        { id: made.id, lines: [{ lineId: made.lines[0]!.id, reference: '612345678902' }], code: who.code() },
        who.token,
      );
    await writeParameter(s.db, 'maker_checker_threshold', 50_000);
    try {
      const refused = await mark(operator);
      expect(refused.errno).toBe(errno.sameUser);
      expect((await info(made.id)).lines[0]!.status).toBe('to_be_withdrawn');
      const [waiting] = await s.db.select().from(payoutOrders).where(eq(payoutOrders.id, po.id));
      expect(waiting).toMatchObject({ status: payout.state.processing, holdOpen: true });
      const ok = await mark(other);
      expect(ok.errno, ok.errmsg).toBe(0);
      const [paid] = await s.db.select().from(payoutOrders).where(eq(payoutOrders.id, po.id));
      expect(paid).toMatchObject({ status: payout.state.success, utr: '612345678902' });
    } finally {
      await writeParameter(s.db, 'maker_checker_threshold', 10_000_000);
    }
  });

  it('drop frees the object for a new slip; the payout stays processing; a slip of dropped lines is defunct', async () => {
    const st = await confirmedSettlement('600.00');
    const po = await manualPayout(30_000);
    const made = await slipOf({ settlementIds: [st.id], payoutIds: [po.id] }, 'icici_bulk');
    const dropOne = await s.call(
      ws.drop,
      { id: made.id, lineId: made.lines[1]!.id, code: operator.code() },
      operator.token,
    );
    expect(dropOne.errno, dropOne.errmsg).toBe(0);
    expect(dropOne.data).toMatchObject({
      status: 'to_be_withdrawn',
      lineCounts: { toBeWithdrawn: 1, withdrawn: 0, defunct: 1 },
    });
    const [still] = await s.db.select().from(payoutOrders).where(eq(payoutOrders.id, po.id));
    expect(still!.status).toBe(payout.state.processing);
    expect(await isCandidate('payout', po.id)).toBe(true);
    const next = await slipOf({ payoutIds: [po.id] });
    expect(next.lines[0]!.objectId).toBe(po.id);

    const dropTwo = await s.call(
      ws.drop,
      { id: made.id, lineId: made.lines[0]!.id, code: operator.code() },
      operator.token,
    );
    expect(dropTwo.data).toMatchObject({ status: 'defunct', lineCounts: { toBeWithdrawn: 0, defunct: 2 } });
    expect(await isCandidate('settlement', st.id)).toBe(true);

    // A slip with one line withdrawn and the other dropped is withdrawn.
    const two = await slipOf({
      settlementIds: [(await confirmedSettlement('400.00')).id],
      payoutIds: [(await manualPayout(10_000)).id],
    });
    await s.call(
      ws.withdraw,
      { id: two.id, lines: [{ lineId: two.lines[0]!.id, reference: 'UTR777777' }], code: operator.code() },
      operator.token,
    );
    const last = await s.call(
      ws.drop,
      { id: two.id, lineId: two.lines[1]!.id, code: operator.code() },
      operator.token,
    );
    expect(last.data).toMatchObject({ status: 'withdrawn', lineCounts: { withdrawn: 1, defunct: 1 } });
    await s.call(ws.void, { id: next.id, code: operator.code() }, operator.token);
  });

  it('void only before any line is withdrawn: every line defunct, every object free again', async () => {
    const st = await confirmedSettlement('650.00');
    const po = await manualPayout(12_300);
    const made = await slipOf({ settlementIds: [st.id], payoutIds: [po.id] });
    const voided = await s.call(ws.void, { id: made.id, code: operator.code() }, operator.token);
    expect(voided.errno, voided.errmsg).toBe(0);
    expect(voided.data).toMatchObject({ status: 'defunct', lineCounts: { toBeWithdrawn: 0, defunct: 2 } });
    expect(voided.data.lines.map((l: { status: string }) => l.status)).toEqual(['defunct', 'defunct']);
    expect(await isCandidate('settlement', st.id)).toBe(true);
    expect(await isCandidate('payout', po.id)).toBe(true);

    const again = await slipOf({ settlementIds: [st.id], payoutIds: [po.id] });
    await s.call(
      ws.withdraw,
      {
        id: again.id,
        lines: [{ lineId: again.lines[1]!.id, reference: 'IMPS99887766' }],
        code: operator.code(),
      },
      operator.token,
    );
    const late = await s.call(ws.void, { id: again.id, code: operator.code() }, operator.token);
    expect(late.errno).toBe(errno.conflict);
    expect((await info(again.id)).lineCounts).toEqual({ toBeWithdrawn: 1, withdrawn: 1, defunct: 0 });
    await s.call(
      ws.withdraw,
      {
        id: again.id,
        lines: [{ lineId: again.lines[0]!.id, reference: 'NEFT55443322' }],
        code: operator.code(),
      },
      operator.token,
    );
  });

  it('two slips racing for one settlement: exactly one wins, the loser writes nothing', async () => {
    for (let round = 0; round < 4; round++) {
      const st = await confirmedSettlement('250.00');
      const results = await Promise.all([
        create({ settlementIds: [st.id] }, 'generic_csv', operator),
        create({ settlementIds: [st.id] }, 'hdfc_bulk', other),
      ]);
      expect(results.map((r) => r.errno).sort((a, b) => a - b)).toEqual([0, errno.conflict]);
      const live = await s.db
        .select()
        .from(withdrawalSlipLines)
        .where(
          and(eq(withdrawalSlipLines.objectType, 'settlement'), eq(withdrawalSlipLines.objectId, st.id)),
        );
      expect(live).toHaveLength(1);
      const won = results.find((r) => r.errno === 0)!.data as Info;
      await s.call(ws.void, { id: won.id, code: operator.code() }, operator.token);
    }
  });

  it('lists slips newest first with their line counts', async () => {
    const made = await slipOf({ payoutIds: [(await manualPayout(4_000)).id] });
    const res = await s.call(ws.list, { status: 'to_be_withdrawn', pageSize: 100 }, operator.token);
    expect(res.errno, res.errmsg).toBe(0);
    expect(res.data.list[0]).toMatchObject({
      id: made.id,
      createdBy: operator.username,
      lineCounts: { toBeWithdrawn: 1, withdrawn: 0, defunct: 0 },
    });
    expect(res.data.list.every((r: { status: string }) => r.status === 'to_be_withdrawn')).toBe(true);
    await s.call(ws.void, { id: made.id, code: operator.code() }, operator.token);
  });

  /** Puts a slip of one payout line (and a second line, to keep the slip live) in the given states. */
  async function slipIn(slipState: string, lineState: string, second: boolean) {
    const ids = [(await manualPayout(5_000)).id, ...(second ? [(await manualPayout(5_000)).id] : [])];
    const made = await slipOf({ payoutIds: ids });
    await s.db
      .update(withdrawalSlips)
      .set({ status: slipState as never })
      .where(eq(withdrawalSlips.id, made.id));
    await s.db
      .update(withdrawalSlipLines)
      .set({ status: lineState as never })
      .where(eq(withdrawalSlipLines.id, made.lines[0]!.id));
    return { id: made.id, lineId: made.lines[0]!.id, otherLine: made.lines[1]?.id };
  }

  const act = (action: 'withdraw' | 'void' | 'drop', id: number, lineId: number) =>
    action === 'withdraw'
      ? s.call(
          ws.withdraw,
          { id, lines: [{ lineId, reference: 'SWEEP12345' }], code: operator.code() },
          operator.token,
        )
      : action === 'void'
        ? s.call(ws.void, { id, code: operator.code() }, operator.token)
        : s.call(ws.drop, { id, lineId, code: operator.code() }, operator.token);

  /** Leaves nothing live behind a sweep case: its lines dropped in the database. */
  async function tidy(id: number) {
    await s.db
      .update(withdrawalSlipLines)
      .set({ status: 'defunct' })
      .where(eq(withdrawalSlipLines.slipId, id));
  }

  /** A bank settlement of `owner` brought into `state` through the settlement endpoints. */
  async function settlementIn(state: string) {
    const applied = await s.call(
      settlementPayment.create,
      { ...bank, amount: '350.00', code: owner.code() },
      owner.token,
    );
    const id = applied.data.id as number;
    const by = (who: Decider, ep: Endpoint, more: object) =>
      s.call(ep, { id, ...more, code: who.code() }, who.token);
    if (state === 'confirmed' || state === 'settled')
      expect((await by(confirmer, settlementPayment.confirm, { auditAmount: '350.00' })).errno).toBe(0);
    // Completed by hand by a user other than the confirmer (signed in now: sessions idle out).
    if (state === 'settled')
      expect((await by(await decider(s), settlementPayment.complete, { reference: 'UTR24680' })).errno).toBe(
        0,
      );
    if (state === 'failed')
      expect((await by(confirmer, settlementPayment.reject, { reason: 'wrong account' })).errno).toBe(0);
    return id;
  }

  // The settlement machine's `slip`: only a confirmed settlement goes on a slip, and it stays confirmed.
  it.each(sweep(settlementMachine, ['slip']))('$name', async ({ state, allowed, after }) => {
    const id = await settlementIn(state);
    const slips = (await s.db.select().from(withdrawalSlips)).length;
    const res = await create({ settlementIds: [id] });
    expect(res.errno, res.errmsg).toBe(allowed ? 0 : errno.conflict);
    const [row] = await s.db.select().from(settlements).where(eq(settlements.id, id));
    expect(row!.status).toBe(after);
    expect(await s.db.select().from(withdrawalSlips)).toHaveLength(slips + (allowed ? 1 : 0));
    if (allowed) await s.call(ws.void, { id: res.data.id, code: operator.code() }, operator.token);
  });

  it.each(sweep(slipMachine))('$name', async ({ state, action, allowed, after }) => {
    // A slip's line follows its slip here: waiting, done, or dropped.
    const lineState =
      state === 'withdrawn' ? 'withdrawn' : state === 'defunct' ? 'defunct' : 'to_be_withdrawn';
    const { id, lineId } = await slipIn(state, lineState, false);
    const res = await act(action, id, lineId);
    expect(res.errno, res.errmsg).toBe(allowed ? 0 : errno.conflict);
    expect((await info(id)).status).toBe(after);
    await tidy(id);
  });

  it.each(sweep(lineMachine))('$name', async ({ state, action, allowed, after }) => {
    const { id, lineId } = await slipIn('to_be_withdrawn', state, true);
    const res = await act(action, id, lineId);
    expect(res.errno, res.errmsg).toBe(allowed ? 0 : errno.conflict);
    const now = await info(id);
    expect(now.lines.find((l) => l.id === lineId)!.status).toBe(after);
    // The other line still waits, so the slip does too.
    expect(now.status).toBe('to_be_withdrawn');
    await tidy(id);
  });
});
