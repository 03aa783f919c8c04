import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callbackData } from '../../../contract/gateway.ts';
import { endpoints } from '../../../contract/index.ts';
import { settlement as settlementMachine } from '../../../contract/machines.ts';
import { inTransaction, sqlState } from '../../db/index.ts';
import { approvals, settlements, withdrawalSlipLines, withdrawalSlips } from '../../db/schema.ts';
import { deliverDue } from '../../jobs/webhooks.ts';
import { merchantBalances } from '../../ledger/index.ts';
import { writeParameter } from '../../lib/parameters.ts';
import { documentOf, undocumentedKeys } from '../../test/documented.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { sweep } from '../../test/sweep.ts';
import { executorOf } from '../approval/service.ts';
import { forgetDayDecisions } from '../approval/testkit.ts';
import { usdtAmountOf } from './service.ts';
import {
  bank,
  callbacksOf,
  cur,
  type Decider,
  decider,
  endpointsOf,
  entriesOf,
  expectBooks,
  merchantWithOwner,
  type Owner,
  settlementPayment as pay,
  settlementPayout as payoutWallet,
  platformBalance,
  settlementQuery,
  snapshot,
  usdt,
} from './testkit.ts';

/** Above this audit amount (5,000.00) a second platform user must approve a confirmation. */
const threshold = 500_000;
const png = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d9c4f30000000049454e44ae426082',
  'hex',
).toString('base64');

describe.each(engines)('settlements on %s', (engine) => {
  let s: TestServer;
  let root: string;
  /** Three platform users: a confirmation, its approval or completion, and a third person. */
  let one: Decider;
  let two: Decider;
  let three: Decider;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    one = await decider(s);
    two = await decider(s);
    three = await decider(s);
    await writeParameter(s.db, 'maker_checker_threshold', threshold);
  });
  beforeEach(async () => {
    // Each test decides on a fresh day: what earlier tests decided alone is out of the day's sums.
    await forgetDayDecisions(s);
    // Every Google code moves the clock half a minute: sign in afresh before sessions idle out.
    root = await s.adminToken();
    for (const d of [one, two, three]) d.token = await s.login(d.username, d.password, d.code());
  });
  afterEach(async () => {
    await expectBooks(s);
  });
  afterAll(() => s.close());

  const owner = (terms = {}, funds?: Parameters<typeof merchantWithOwner>[2]) =>
    merchantWithOwner(s, terms, funds);

  async function apply(
    o: Owner,
    body: Record<string, unknown> = {},
    wallet: 'collection' | 'payout' = 'collection',
  ) {
    const res = await s.call(
      endpointsOf[wallet].create,
      { ...bank, amount: '1000.00', ...body, code: o.code() },
      o.token,
    );
    expect(res.errno, res.errmsg).toBe(0);
    return res.data as { id: number; settlementNo: string; status: string; fee: string; amount: string };
  }
  const confirm = (
    d: Decider,
    id: number,
    auditAmount: string,
    extra: Record<string, unknown> = {},
    ep = pay,
  ) => s.call(ep.confirm, { id, auditAmount, ...extra, code: d.code() }, d.token);
  const complete = (d: Decider, id: number, extra: Record<string, unknown> = {}, ep = pay) =>
    s.call(ep.complete, { id, reference: 'UTR123456789', ...extra, code: d.code() }, d.token);
  const reject = (d: Decider, id: number, ep = pay) =>
    s.call(ep.reject, { id, reason: 'The account name does not match', code: d.code() }, d.token);
  const balancesOf = (o: Owner) => merchantBalances(s.db, o.m.id, cur);
  const rowOf = async (id: number) =>
    (await s.db.select().from(settlements).where(eq(settlements.id, id)))[0]!;

  it('apply, confirm below the amount, complete: every balance exactly as computed, the books closed', async () => {
    const o = await owner();
    const before = await balancesOf(o);
    const clearing = await platformBalance(s, 'settlement_clearing');
    const feeIncome = await platformBalance(s, 'fee_income');

    const applied = await apply(o, { amount: '1000.00' });
    // 1 % of 1,000.00 plus 5.00.
    expect(applied).toMatchObject({
      amount: '1000.00',
      fee: '15.00',
      status: 'to_be_confirmed',
      wallet: 'collection',
    });
    expect(applied.settlementNo).toMatch(/^ST\d{8}\d{6,}$/);
    expect(await balancesOf(o)).toMatchObject({
      collection_available: before.collection_available - 101_500,
      frozen: 101_500,
      payout_available: before.payout_available,
    });

    const confirmed = await confirm(one, applied.id, '800.00');
    expect(confirmed.errno, confirmed.errmsg).toBe(0);
    expect(confirmed.data).toMatchObject({
      status: 'confirmed',
      auditAmount: '800.00',
      confirmedBy: one.username,
      approval: null,
    });
    // The 200.00 not approved is back at once; the fee stays what the merchant was told.
    expect(await balancesOf(o)).toMatchObject({
      collection_available: before.collection_available - 81_500,
      frozen: 81_500,
    });

    const done = await complete(two, applied.id);
    expect(done.errno, done.errmsg).toBe(0);
    expect(done.data).toMatchObject({
      status: 'settled',
      reference: 'UTR123456789',
      completedBy: two.username,
    });
    expect(await balancesOf(o)).toMatchObject({
      collection_available: before.collection_available - 81_500,
      frozen: 0,
    });
    expect(await platformBalance(s, 'settlement_clearing')).toBe(clearing + 80_000);
    expect(await platformBalance(s, 'fee_income')).toBe(feeIncome + 1_500);
    expect((await entriesOf(s, applied.id)).map((e) => e.kind)).toEqual([
      'settlement_hold',
      'settlement_hold_2',
      'settlement_paid',
    ]);

    // The merchant sees its own lines; the platform every line of every entry.
    const mine = await s.call(pay.info, { id: applied.id }, o.token);
    expect(mine.errno).toBe(0);
    expect(mine.data.postings.every((p: { ownerType: string }) => p.ownerType === 'merchant')).toBe(true);
    const all = await s.call(pay.info, { settlementNo: applied.settlementNo }, one.token);
    expect(
      all.data.postings.map((p: { account: string; amount: string }) => `${p.account} ${p.amount}`),
    ).toEqual(expect.arrayContaining(['settlement_clearing 800.00', 'fee_income 15.00', 'frozen -815.00']));
    expect(
      (await s.call(pay.complete, { id: applied.id, reference: 'X1', code: three.code() }, three.token))
        .errno,
    ).toBe(errno.conflict);
  });

  it('the payout wallet: its own balance held and paid, invisible through the collection endpoints', async () => {
    const o = await owner({}, { collection: 0, payout: 500_000 });
    const a = await apply(o, { amount: '2000.00' }, 'payout');
    expect(await balancesOf(o)).toMatchObject({
      payout_available: 500_000 - 202_500,
      frozen: 202_500,
      collection_available: 0,
    });
    expect((await s.call(pay.info, { id: a.id }, o.token)).errno).toBe(errno.notFound);
    expect((await confirm(one, a.id, '2000.00')).errno).toBe(errno.notFound);
    expect((await confirm(one, a.id, '2000.00', {}, payoutWallet)).errno).toBe(0);
    expect((await complete(two, a.id, {}, payoutWallet)).errno).toBe(0);
    expect(await balancesOf(o)).toMatchObject({ payout_available: 500_000 - 202_500, frozen: 0 });
    // The collection wallet was never touched: applying from it is refused whole.
    const short = await s.call(pay.create, { ...bank, amount: '100.00', code: o.code() }, o.token);
    expect(short.errno).toBe(errno.insufficientBalance);
    const b = await apply(o, { amount: '1000.00' }, 'payout');
    const cancelled = await s.call(payoutWallet.delete, { id: b.id }, o.token);
    expect(cancelled.data).toMatchObject({ status: 'failed', reason: 'cancelled' });
    expect(await balancesOf(o)).toMatchObject({ payout_available: 500_000 - 202_500, frozen: 0 });
  });

  it('reject and cancel release exactly the hold, from either open state', async () => {
    const o = await owner();
    const start = (await balancesOf(o)).collection_available;
    const a = await apply(o, { amount: '500.00' });
    const cancelled = await s.call(pay.delete, { id: a.id }, o.token);
    expect(cancelled.data).toMatchObject({ status: 'failed', reason: 'cancelled' });
    expect(await balancesOf(o)).toMatchObject({ collection_available: start, frozen: 0 });

    const b = await apply(o, { amount: '500.00' });
    expect((await reject(one, b.id)).data).toMatchObject({
      status: 'failed',
      reason: 'The account name does not match',
    });
    expect(await balancesOf(o)).toMatchObject({ collection_available: start, frozen: 0 });

    const c = await apply(o, { amount: '500.00' });
    expect((await confirm(one, c.id, '300.00')).errno).toBe(0);
    expect((await reject(two, c.id)).errno).toBe(0);
    expect(await balancesOf(o)).toMatchObject({ collection_available: start, frozen: 0 });
    expect((await entriesOf(s, c.id)).map((e) => e.kind)).toEqual([
      'settlement_hold',
      'settlement_hold_2',
      'settlement_release',
    ]);
    expect((await s.call(pay.delete, { id: c.id }, o.token)).errno).toBe(errno.conflict);
    expect((await reject(one, c.id)).errno).toBe(errno.conflict);
  });

  it('an edit moves the hold with the amount and the fee, and changes the destination', async () => {
    const o = await owner();
    const start = (await balancesOf(o)).collection_available;
    const a = await apply(o, { amount: '1000.00' });
    const up = await s.call(
      pay.update,
      { id: a.id, amount: '2000.00', ifsc: 'icic0000001', code: o.code() },
      o.token,
    );
    expect(up.errno, up.errmsg).toBe(0);
    expect(up.data).toMatchObject({
      amount: '2000.00',
      fee: '25.00',
      ifsc: 'ICIC0000001',
      accountName: bank.accountName,
    });
    expect(await balancesOf(o)).toMatchObject({ collection_available: start - 202_500, frozen: 202_500 });
    const down = await s.call(pay.update, { id: a.id, amount: '300.00', code: o.code() }, o.token);
    expect(down.data).toMatchObject({ amount: '300.00', fee: '8.00' });
    expect(await balancesOf(o)).toMatchObject({ collection_available: start - 30_800, frozen: 30_800 });
    expect((await entriesOf(s, a.id)).map((e) => e.kind)).toEqual([
      'settlement_hold',
      'settlement_hold_2',
      'settlement_hold_3',
    ]);
    // More than the wallet holds: refused whole.
    const before = await snapshot(s, a.id);
    const tooMuch = await s.call(pay.update, { id: a.id, amount: '1000000.00', code: o.code() }, o.token);
    expect(tooMuch.errno).toBe(errno.insufficientBalance);
    expect(await snapshot(s, a.id)).toEqual(before);
    await s.call(pay.delete, { id: a.id }, o.token);
  });

  it('USDT: the price is asked at confirmation and the USDT amount rounded down to 6 decimals', async () => {
    expect(usdtAmountOf(1_000_000, '83.5')).toBe('119.760479');
    expect(usdtAmountOf(100, '3')).toBe('0.333333');
    expect(usdtAmountOf(123_456_789_012, '0.000001')).toBe('1234567890120000.000000');
    const o = await owner();
    const a = await apply(o, {
      ...usdt,
      accountName: undefined,
      cardNumber: undefined,
      ifsc: undefined,
      amount: '10000.00',
    });
    expect(a).toMatchObject({ type: 'usdt', returnAddress: usdt.returnAddress, cardNumber: null });
    const before = await snapshot(s, a.id);
    expect((await confirm(one, a.id, '1000.00')).errno).toBe(errno.invalid);
    expect(await snapshot(s, a.id)).toEqual(before);
    // Below the threshold: confirmed at once.
    const ok = await confirm(one, a.id, '1000.00', { price: '83.5' });
    expect(ok.errno, ok.errmsg).toBe(0);
    expect(ok.data).toMatchObject({ price: '83.5', usdtAmount: '11.976047', auditAmount: '1000.00' });
    expect((await complete(two, a.id, { reference: `0x${'ab'.repeat(32)}` })).data).toMatchObject({
      status: 'settled',
    });
    // A bank settlement has no price.
    const b = await apply(o, { amount: '100.00' });
    expect((await confirm(one, b.id, '100.00', { price: '83' })).errno).toBe(errno.invalid);
    await s.call(pay.delete, { id: b.id }, o.token);
  });

  it('proof images: uploaded, attached once by the completion, seen by their merchant only', async () => {
    const o = await owner();
    const other = await owner();
    const up = await s.call(
      pay.uploadImage,
      { filename: 'receipt.png', mime: 'image/png', dataBase64: png },
      two.token,
    );
    expect(up.errno, up.errmsg).toBe(0);
    const imageId = up.data.imageId as number;
    // Not anybody's until a completion attaches it.
    expect((await s.call(pay.image, { id: imageId }, one.token)).errno).toBe(errno.notFound);
    const a = await apply(o);
    await confirm(one, a.id, '1000.00');
    expect((await complete(two, a.id, { attachments: [imageId, 999_999] })).errno).toBe(errno.invalid);
    const done = await complete(two, a.id, { attachments: [imageId] });
    expect(done.data).toMatchObject({ status: 'settled', attachments: [imageId] });
    const seen = await s.call(pay.image, { id: imageId }, o.token);
    expect(seen.data).toMatchObject({ id: imageId, settlementId: a.id, mime: 'image/png', dataBase64: png });
    expect((await s.call(pay.image, { id: imageId }, other.token)).errno).toBe(errno.notFound);
    expect((await s.call(payoutWallet.image, { id: imageId }, one.token)).errno).toBe(errno.notFound);
    // Attached once: another completion cannot take it.
    const b = await apply(o);
    await confirm(one, b.id, '1000.00');
    expect((await complete(two, b.id, { attachments: [imageId] })).errno).toBe(errno.invalid);
    expect((await rowOf(b.id)).status).toBe('confirmed');
    const bad = await s.call(
      pay.uploadImage,
      { filename: 'x.png', mime: 'image/png', dataBase64: 'aGVsbG8=' },
      two.token,
    );
    expect(bad.errno).toBe(errno.invalid);
    await reject(one, b.id);
  });

  describe('maker–checker', () => {
    it('the user who confirmed cannot complete; the database says so too', async () => {
      const o = await owner();
      const a = await apply(o);
      await confirm(one, a.id, '1000.00');
      const before = await snapshot(s, a.id);
      expect((await complete(one, a.id)).errno).toBe(errno.sameUser);
      expect(await snapshot(s, a.id)).toEqual(before);
      const err = await s.db
        .update(settlements)
        .set({ completedBy: one.id })
        .where(eq(settlements.id, a.id))
        .catch((e: unknown) => e);
      expect(sqlState(err)).toBe('23514');
      expect((await complete(two, a.id)).errno).toBe(0);
    });

    it('above the threshold a second user approves; neither the requester nor the approver completes', async () => {
      const o = await owner();
      const a = await apply(o, { amount: '8000.00' });
      const asked = await confirm(one, a.id, '6000.00');
      expect(asked.errno, asked.errmsg).toBe(0);
      expect(asked.data).toMatchObject({
        status: 'to_be_confirmed',
        auditAmount: null,
        approval: { status: 'pending', requestedBy: one.username },
      });
      // Nothing moved yet: the whole application is still held.
      expect((await entriesOf(s, a.id)).map((e) => e.kind)).toEqual(['settlement_hold']);
      // A second request for the same settlement, by anyone, waits for the first.
      expect((await confirm(two, a.id, '6000.00')).errno).toBe(errno.approvalPending);
      expect((await s.call(pay.update, { id: a.id, amount: '7000.00', code: o.code() }, o.token)).errno).toBe(
        errno.approvalPending,
      );
      const [request] = await s.db
        .select()
        .from(approvals)
        .where(and(eq(approvals.refType, 'settlement'), eq(approvals.refId, String(a.id))));
      expect(request).toMatchObject({
        action: 'settlement.confirm',
        amount: 600_000,
        payload: { auditAmount: '6000.00', price: null },
      });

      // Nobody approves their own request: the database refuses it.
      const self = await s.db
        .update(approvals)
        .set({ status: 'approved', decidedBy: one.id })
        .where(eq(approvals.id, request!.id))
        .catch((e: unknown) => e);
      expect(sqlState(self)).toBe('23514');

      await inTransaction(s.db, async (tx) => {
        const [approved] = await tx
          .update(approvals)
          .set({ status: 'approved', decidedBy: two.id, decidedAt: s.clock.now() })
          .where(eq(approvals.id, request!.id))
          .returning();
        await executorOf(approved!.action)(s.deps, tx, approved!, two.id);
      });
      const row = await s.call(pay.info, { id: a.id }, three.token);
      expect(row.data).toMatchObject({
        status: 'confirmed',
        auditAmount: '6000.00',
        confirmedBy: two.username,
        approval: null,
      });
      // 6,000.00 approved of 8,000.00, and the fee of the application (85.00).
      expect(await balancesOf(o)).toMatchObject({ frozen: 608_500 });

      expect((await complete(one, a.id)).errno).toBe(errno.sameUser);
      expect((await complete(two, a.id)).errno).toBe(errno.sameUser);
      expect((await complete(three, a.id)).errno).toBe(0);
    });

    it('a rejection or a cancellation cancels the pending request', async () => {
      const o = await owner();
      for (const end of ['reject', 'cancel'] as const) {
        const a = await apply(o, { amount: '9000.00' });
        expect((await confirm(one, a.id, '9000.00')).data.approval).not.toBeNull();
        const res =
          end === 'reject' ? await reject(two, a.id) : await s.call(pay.delete, { id: a.id }, o.token);
        expect(res.errno, res.errmsg).toBe(0);
        expect(res.data).toMatchObject({ status: 'failed', approval: null });
        const [request] = await s.db
          .select()
          .from(approvals)
          .where(and(eq(approvals.refType, 'settlement'), eq(approvals.refId, String(a.id))));
        expect(request!.status).toBe('cancelled');
        // An approval arriving afterwards confirms nothing.
        await expect(
          inTransaction(s.db, (tx) => executorOf('settlement.confirm')(s.deps, tx, request!, three.id)),
        ).rejects.toMatchObject({ errno: errno.conflict });
      }
    });
  });

  it('a settlement on a live withdrawal slip is neither rejected nor completed by hand', async () => {
    const o = await owner();
    const a = await apply(o);
    await confirm(one, a.id, '1000.00');
    await inTransaction(s.db, async (tx) => {
      const [slip] = await tx
        .insert(withdrawalSlips)
        .values({
          slipNo: `WS-${a.id}`,
          format: 'generic_csv',
          currency: cur,
          lineCount: 1,
          total: 100_000,
          fileName: 'slip.csv',
          content: '',
          createdBy: one.id,
        })
        .returning();
      await tx.insert(withdrawalSlipLines).values({
        slipId: slip!.id,
        objectType: 'settlement',
        objectId: a.id,
        merchantId: o.m.id,
        amount: 100_000,
        beneficiaryName: bank.accountName,
        accountNumber: bank.cardNumber,
        ifsc: bank.ifsc,
        narration: a.settlementNo,
      });
    });
    const before = await snapshot(s, a.id);
    expect((await reject(two, a.id)).errno).toBe(errno.onSlip);
    expect(await snapshot(s, a.id)).toEqual(before);
    expect((await s.call(pay.info, { id: a.id }, one.token)).data.slipNo).toBe(`WS-${a.id}`);
    // Nor completed by hand: the slip is what finishes it (or it comes off the slip first).
    expect((await complete(two, a.id)).errno).toBe(errno.onSlip);
    expect(await snapshot(s, a.id)).toEqual(before);
  });

  it('bad input answers 422 and changes nothing', async () => {
    const o = await owner();
    const before = await balancesOf(o);
    const count = async () =>
      (await s.db.select().from(settlements).where(eq(settlements.merchantId, o.m.id))).length;
    const refused = [
      { ...bank, amount: '1000.00', ifsc: 'HDFC1234567' },
      { ...bank, amount: '1000.00', cardNumber: '12AB' },
      { ...bank, amount: '1000.00', accountName: undefined },
      { ...bank, amount: '1000.00', returnAddress: usdt.returnAddress },
      { ...usdt, amount: '1000.00', returnAddress: 'T123' },
      { ...usdt, amount: '1000.00', cardNumber: bank.cardNumber },
      { ...bank, amount: '99.99' },
      { ...bank, amount: '-5' },
      { ...bank, amount: '1.001' },
      { ...bank, amount: '1000.00', type: 'cash' },
    ];
    for (const body of refused) {
      const res = await s.call(pay.create, { ...body, code: o.code() }, o.token);
      expect(res.errno, JSON.stringify(body)).toBe(errno.invalid);
    }
    const below = await s.call(pay.create, { ...bank, amount: '50.00', code: o.code() }, o.token);
    expect(below.data.fields[0]).toMatchObject({ path: 'amount' });
    expect(await count()).toBe(0);
    expect(await balancesOf(o)).toEqual(before);

    const a = await apply(o);
    const snap = await snapshot(s, a.id);
    const refusedOn = [
      () => s.call(pay.update, { id: a.id, returnAddress: usdt.returnAddress, code: o.code() }, o.token),
      () => s.call(pay.update, { id: a.id, amount: '10.00', code: o.code() }, o.token),
      () => confirm(one, a.id, '1000.01'),
      () => confirm(one, a.id, '0'),
      () => s.call(pay.reject, { id: a.id, reason: '', code: one.code() }, one.token),
      () =>
        s.call(
          pay.list,
          {
            from: new Date(s.clock.now().getTime() - 62 * 86_400_000).toISOString(),
            to: s.clock.now().toISOString(),
          },
          o.token,
        ),
      () =>
        s.call(
          pay.list,
          { from: s.clock.now().toISOString(), to: new Date(s.clock.now().getTime() - 1000).toISOString() },
          o.token,
        ),
      () =>
        s.call(
          pay.list,
          { from: s.clock.now().toISOString(), to: s.clock.now().toISOString(), cursor: 'bm9wZQ' },
          o.token,
        ),
    ];
    for (const call of refusedOn) expect((await call()).errno).toBe(errno.invalid);
    await confirm(one, a.id, '1000.00');
    const confirmed = await snapshot(s, a.id);
    expect((await complete(two, a.id, { reference: 'has spaces' })).errno).toBe(errno.invalid);
    expect((await complete(two, a.id, { attachments: [1, 2, 3, 4, 5, 6] })).errno).toBe(errno.invalid);
    expect(await snapshot(s, a.id)).toEqual(confirmed);
    expect(snap.row!.status).toBe('to_be_confirmed');
    await reject(one, a.id);
  });

  it('a merchant never sees or acts on another merchant’s settlement', async () => {
    const a = await owner();
    const b = await owner();
    const theirs = await apply(b);
    const snap = await snapshot(s, theirs.id);
    expect((await s.call(pay.info, { id: theirs.id }, a.token)).errno).toBe(errno.notFound);
    expect((await s.call(pay.info, { settlementNo: theirs.settlementNo }, a.token)).errno).toBe(
      errno.notFound,
    );
    expect(
      (await s.call(pay.update, { id: theirs.id, amount: '200.00', code: a.code() }, a.token)).errno,
    ).toBe(errno.notFound);
    expect((await s.call(pay.delete, { id: theirs.id }, a.token)).errno).toBe(errno.notFound);
    const period = {
      from: new Date(s.clock.now().getTime() - 86_400_000).toISOString(),
      to: s.clock.now().toISOString(),
    };
    expect((await s.call(pay.list, { ...period, merchantId: b.m.id }, a.token)).errno).toBe(errno.notFound);
    const own = await s.call(pay.list, period, a.token);
    expect(own.data).toMatchObject({ list: [], totals: { count: 0 } });
    // Platform calls are not a merchant's.
    expect(
      (await s.call(pay.confirm, { id: theirs.id, auditAmount: '1.00', code: a.code() }, a.token)).errno,
    ).toBe(errno.forbidden);
    expect((await s.call(settlementQuery.list, {}, a.token)).errno).toBe(errno.forbidden);
    expect(await snapshot(s, theirs.id)).toEqual(snap);
    await s.call(pay.delete, { id: theirs.id }, b.token);
  });

  it('lists: filters, keyset pages, totals of the filtered set; the queue oldest first with ages and sums', async () => {
    const o = await owner();
    const from = s.clock.now().toISOString();
    const made = [];
    for (const amount of ['100.00', '200.00', '300.00', '400.00', '500.00'])
      made.push(await apply(o, { amount }));
    await confirm(one, made[1]!.id, '150.00');
    const to = s.clock.now().toISOString();
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await s.call(
        pay.list,
        { from, to, merchantId: o.m.id, pageSize: 2, ...(cursor ? { cursor } : {}) },
        one.token,
      );
      expect(page.errno, page.errmsg).toBe(0);
      expect(page.data.totals).toEqual({ count: 5, amount: '1500.00', auditAmount: '150.00', fee: '40.00' });
      seen.push(...page.data.list.map((r: { id: number }) => r.id));
      cursor = page.data.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(made.map((m) => m.id).reverse());
    const confirmedOnly = await s.call(pay.list, { from, to, status: 'confirmed' }, o.token);
    expect(confirmedOnly.data.list.map((r: { id: number }) => r.id)).toEqual([made[1]!.id]);
    const byNo = await s.call(pay.list, { from, to, q: made[3]!.settlementNo.toLowerCase() }, o.token);
    expect(byNo.data.list.map((r: { id: number }) => r.id)).toEqual([made[3]!.id]);
    expect((await s.call(payoutWallet.list, { from, to }, o.token)).data.totals.count).toBe(0);

    s.clock.advance(60_000);
    const queue = await s.call(settlementQuery.list, { merchantId: o.m.id, pageSize: 3 }, one.token);
    expect(queue.errno, queue.errmsg).toBe(0);
    expect(queue.data.list.map((r: { id: number }) => r.id)).toEqual(made.slice(0, 3).map((m) => m.id));
    const ages = queue.data.list.map((r: { ageSeconds: number }) => r.ageSeconds);
    expect(ages[0]).toBeGreaterThan(ages[2]);
    expect(queue.data.summary).toMatchObject({
      toConfirm: { count: 4, amount: '1300.00', oldestAgeSeconds: ages[0] },
      toComplete: { count: 1, amount: '150.00' },
    });
    const rest = await s.call(
      settlementQuery.list,
      { merchantId: o.m.id, cursor: queue.data.nextCursor },
      one.token,
    );
    expect(rest.data.list.map((r: { id: number }) => r.id)).toEqual(made.slice(3).map((m) => m.id));
    for (const m of made) await reject(two, m.id);
    const empty = await s.call(settlementQuery.list, { merchantId: o.m.id }, one.token);
    expect(empty.data).toMatchObject({
      list: [],
      summary: { toConfirm: { count: 0, oldestAgeSeconds: null } },
    });
  });

  it('the fee follows the merchant’s settlement terms, set on the wire', async () => {
    const o = await owner();
    const set = await s.call(
      endpoints.merchant.update,
      { id: o.m.id, settlementRate: '2.5', settlementFee: '1.25' },
      root,
    );
    expect(set.errno, set.errmsg).toBe(0);
    const info = await s.call(endpoints.merchant.info, { id: o.m.id }, root);
    expect(info.data).toMatchObject({ settlementRate: '2.5', settlementFee: '1.25' });
    const a = await apply(o, { amount: '1000.00' });
    expect(a.fee).toBe('26.25');
    await s.call(pay.delete, { id: a.id }, o.token);
  });

  it('tells the merchant’s server of every status with a signed settlement.updated callback', async () => {
    const received: { body: string; headers: Record<string, string> }[] = [];
    const receiver: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push({ body, headers: req.headers as Record<string, string> });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const o = await owner({ callbackUrl: url });
      const a = await apply(o);
      await confirm(one, a.id, '900.00');
      await complete(two, a.id);
      const events = await callbacksOf(s, a.id);
      expect(events.map((e) => [e.type, (e.payload as { data: { status: string } }).data.status])).toEqual([
        ['settlement.updated', 'to_be_confirmed'],
        ['settlement.updated', 'confirmed'],
        ['settlement.updated', 'settled'],
      ]);
      while ((await deliverDue(s.deps)) > 0);
      // Signed as Standard Webhooks with the merchant's webhook secret.
      const bodies = received.map((r) => {
        const at = new Date(Number(r.headers['webhook-timestamp']) * 1000);
        const signed = new Webhook(o.m.webhookSecret).sign(r.headers['webhook-id']!, at, r.body);
        expect(r.headers['webhook-signature']).toBe(signed);
        return JSON.parse(r.body) as { type: string; data: Record<string, unknown> };
      });
      expect(bodies.map((b) => b.data.status).sort()).toEqual(['confirmed', 'settled', 'to_be_confirmed']);
      const last = bodies.find((b) => b.data.status === 'settled')!.data;
      expect(last).toMatchObject({
        settlementNo: a.settlementNo,
        amount: '1000.00',
        auditAmount: '900.00',
        fee: '15.00',
        reference: 'UTR123456789',
      });
      // Who did what on the platform is the operators' business.
      expect(Object.keys(last).some((k) => k.endsWith('By'))).toBe(false);
      // Each body is `{type, data}`, its data exactly what the contract declares (issue 29).
      for (const b of bodies) {
        expect(Object.keys(b).sort()).toEqual(['data', 'type']);
        expect(undocumentedKeys(documentOf(callbackData['settlement.updated']), b.data)).toEqual([]);
        expect(callbackData['settlement.updated'].safeParse(b.data).success).toBe(true);
      }
      expect((await callbacksOf(s, a.id)).every((e) => e.status === 'delivered')).toBe(true);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  describe('every (state, action) pair of the declaration', () => {
    /** Brings a fresh application into `state` through the real endpoints. */
    async function into(state: string) {
      const o = await owner();
      const a = await apply(o, { amount: '1000.00' });
      if (state === 'confirmed' || state === 'settled')
        expect((await confirm(one, a.id, '900.00')).errno).toBe(0);
      if (state === 'settled') expect((await complete(two, a.id)).errno).toBe(0);
      if (state === 'failed') expect((await reject(one, a.id)).errno).toBe(0);
      return { o, id: a.id };
    }
    const act = (action: string, o: Owner, id: number) => {
      switch (action) {
        case 'update':
          return s.call(pay.update, { id, amount: '1100.00', code: o.code() }, o.token);
        case 'cancel':
          return s.call(pay.delete, { id }, o.token);
        case 'askApproval':
          return confirm(one, id, '1000.00');
        case 'confirm':
          return confirm(one, id, '900.00');
        case 'complete':
          return complete(three, id);
        case 'reject':
          return reject(three, id);
        default:
          throw new Error(`the sweep cannot run ${action}`);
      }
    };
    // `slip` is the withdrawal slips' (their tests sweep it).
    const actions = settlementMachine.actionNames.filter((a) => a !== 'slip');
    for (const c of sweep(settlementMachine, actions)) {
      it(c.name, async () => {
        const { o, id } = await into(c.state);
        // askApproval is a confirmation above the threshold; below it the confirmation itself.
        await writeParameter(
          s.db,
          'maker_checker_threshold',
          c.action === 'askApproval' ? 95_000 : threshold,
        );
        try {
          const before = await snapshot(s, id);
          const res = await act(c.action, o, id);
          const after = await snapshot(s, id);
          if (c.allowed) {
            expect(res.errno, res.errmsg).toBe(0);
            expect(after.row!.status).toBe(c.after);
            if (c.action === 'askApproval') {
              expect(res.data.approval).toMatchObject({ status: 'pending' });
              expect(after.entries).toEqual(before.entries);
            }
          } else {
            expect(res.errno).toBe(errno.conflict);
            expect(after).toEqual(before);
          }
        } finally {
          await writeParameter(s.db, 'maker_checker_threshold', threshold);
        }
        // Every hold ends resolved: close what the pair left open.
        const [row] = await s.db.select().from(settlements).where(eq(settlements.id, id));
        if (settlementMachine.is('open', row!.status)) expect((await reject(two, id)).errno).toBe(0);
      });
    }
  });
});
