/**
 * The controls of a person's statement (docs/SECURITY.md, contract/doors.ts `statement.pay`), on both
 * databases, each from a hole a review found: a typed statement paid orders and completed a settlement by
 * itself; now an import pays nothing, posting takes finance's Google code and a reason, what one user,
 * one wallet and one statement pay alone stays within the day's threshold, and beyond it the payments wait
 * for a second platform user who is neither the poster nor the importer. A debit only proposes, and
 * closes its slip line by the slip's own rule, from the slip's own account only. Races on PostgreSQL.
 */
import { randomInt } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { defaultBusinessTimeZone } from '../../config.ts';
import { approvals, settlements, statementLines, withdrawalSlipLines } from '../../db/schema.ts';
import { writeParameter } from '../../lib/parameters.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { forgetDayDecisions } from '../approval/testkit.ts';
import { expectBalanced, orderById } from '../payin/testkit.ts';
import { type BankSetup, bankPayin, bankSetup, csvMapping as mapping } from '../receiving/testkit.ts';
import { builtinRoles } from '../role/builtin.ts';
import { decider, merchantWithOwner } from '../settlement/testkit.ts';

const { statement, approval, merchantOrder, withdrawalSlip, settlementPayment } = endpoints;

/** The threshold these tests run with: 1,000.00. */
const threshold = 100_000;

const newUtr = () => `5${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(100)).padStart(2, '0')}`;

describe.each(engines)('posting statements on %s', (engine) => {
  let s: TestServer;
  let bank: BankSetup;
  type Holder = Awaited<ReturnType<TestServer['makeKeyHolder']>>;
  /** The built-in roles' split: an operator imports, finance posts and approves. */
  let operator: Holder;
  let finance: Holder;
  let finance2: Holder;
  let finance3: Holder;

  beforeAll(async () => {
    s = await startTestServer(engine);
    bank = await bankSetup(s);
    const roleOf = (key: string) => builtinRoles.platform.find((r) => r.key === key)!.perms();
    const [operatorPerms, financePerms] = [roleOf('operator'), roleOf('finance')];
    operator = await s.makeKeyHolder(operatorPerms);
    finance = await s.makeKeyHolder(financePerms);
    finance2 = await s.makeKeyHolder(financePerms);
    finance3 = await s.makeKeyHolder(financePerms);
    await writeParameter(s.db, 'maker_checker_threshold', threshold);
  });
  beforeEach(async () => {
    await forgetDayDecisions(s);
    // Codes move the clock: sign in afresh before sessions idle out.
    for (const u of [operator, finance, finance2, finance3])
      u.token = await s.login(u.username, u.password, u.code());
  });
  afterEach(() => expectBalanced(s));
  afterAll(() => s.close());

  const today = () =>
    new Date(s.clock.now()).toLocaleDateString('en-CA', { timeZone: defaultBusinessTimeZone });
  const text = (rows: { narration: string; ref?: string; credit?: string; debit?: string }[]) =>
    `Date,Narration,Ref,Debit,Credit\n${rows
      .map((r) => `${today()},${r.narration},${r.ref ?? ''},${r.debit ?? ''},${r.credit ?? ''}`)
      .join('\n')}\n`;
  const paste = (body: string, by = operator) =>
    s.call(statement.import, { accountId: bank.accountId, mapping, text: body }, by.token);
  const post = (which: { lineIds: number[] } | { importId: number }, by: Holder, code = by.code()) =>
    s.call(statement.accept, { ...which, reason: 'checked against the bank', code }, by.token);
  /** An open order of `amount` whose payer named a fresh UTR, and a statement row paying it. */
  async function paidRow(amount: string) {
    const { order } = await bankPayin(s, bank.merchant, { amount });
    const utr = newUtr();
    await s.call(merchantOrder.info, { id: order.id }, bank.root);
    await s.request('POST', `/pay/${order.orderNo}/utr`, {
      body: { utr },
      headers: { 'x-forwarded-for': `198.51.${randomInt(255)}.${randomInt(255)}` },
    });
    return { order, utr, row: { narration: `UPI/${utr}/payer`, ref: utr, credit: amount } };
  }
  const lineOf = async (utr: string) =>
    (await s.db.select().from(statementLines).where(eq(statementLines.utr, utr)))[0]!;

  it('a one-line paste by an operator without a key pays nothing; posting it takes finance and a code', async () => {
    // The review's reproduction: `Date,Narration,Credit` / `…,UPI/<utr>/payer,1499.00` by an operator.
    const { order, utr } = await paidRow('499.00');
    const keyless = await s.makeUser({ perms: [statement.import.permission] });
    const pasted = await s.call(
      statement.import,
      {
        accountId: bank.accountId,
        mapping: {
          headerRow: 1,
          dateColumn: 'Date',
          dateFormat: 'yyyy-MM-dd',
          narrationColumn: 'Narration',
          creditColumn: 'Credit',
          utrPattern: '^UPI/(\\d{12})/',
        },
        text: `Date,Narration,Credit\n${today()},UPI/${utr}/payer,499.00\n`,
      },
      keyless.token,
    );
    expect(pasted.errno, pasted.errmsg).toBe(0);
    expect(pasted.data.counts).toMatchObject({ new: 1, matched: 0, ready: 1 });
    expect((await orderById(s, order.id)).status).toBe('pending');
    const line = await lineOf(utr);
    expect(line.status).toBe('ready');
    // Posting is not the operator's; nor matching; nor a supplement with the pasted line.
    expect((await post({ lineIds: [line.id] }, operator)).errno).toBe(errno.forbidden);
    expect(
      (
        await s.call(
          statement.match,
          { lineId: line.id, orderId: order.id, reason: 'x', code: operator.code() },
          operator.token,
        )
      ).errno,
    ).toBe(errno.forbidden);
    const sup = await s.call(merchantOrder.supplement, { id: order.id, utr }, bank.root);
    expect(sup.errno).toBe(errno.statementNeedsPosting);
    // Finance without a code, or with a wrong one: nothing moves.
    expect((await s.call(statement.accept, { lineIds: [line.id], reason: 'x' }, finance.token)).errno).toBe(
      errno.invalid,
    );
    expect((await post({ lineIds: [line.id] }, finance, '000000')).errno).toBe(errno.badCode);
    expect((await orderById(s, order.id)).status).toBe('pending');
    const posted = await post({ lineIds: [line.id] }, finance);
    expect(posted.data).toEqual({ matched: 1, refused: [], approval: null });
    expect(await orderById(s, order.id)).toMatchObject({ status: 'paid', paidBy: 'statement' });
  });

  it('beyond the day’s sums the payments wait for a second person: never the poster, never the importer', async () => {
    const a = await paidRow('600.00');
    const b = await paidRow('600.00');
    const imported = await paste(text([a.row, b.row]));
    expect(imported.data.wouldPay).toEqual({ count: 2, sum: '1200.00' });
    const posted = await post({ importId: imported.data.importId }, finance);
    expect(posted.errno, posted.errmsg).toBe(0);
    // The first fits under 1,000.00; the second would take the poster, the wallet and the statement past it.
    expect(posted.data.matched).toBe(1);
    expect(posted.data.approval).toMatchObject({ lines: 1, amount: '600.00' });
    const approvalId = posted.data.approval.id as number;
    expect((await orderById(s, a.order.id)).status).toBe('paid');
    expect((await orderById(s, b.order.id)).status).toBe('pending');
    const waiting = await lineOf(b.utr);
    expect(waiting).toMatchObject({ status: 'ready', approvalId });
    const [request] = await s.db.select().from(approvals).where(eq(approvals.id, approvalId));
    expect(request).toMatchObject({
      action: 'statement.pay',
      status: 'pending',
      requestedBy: finance.id,
      barred: [operator.id],
      amount: 60_000,
    });
    // Nobody acts on the waiting line meanwhile.
    expect((await post({ lineIds: [waiting.id] }, finance2)).data.refused).toHaveLength(1);
    expect((await s.call(statement.dismiss, { lineId: waiting.id, reason: 'x' }, operator.token)).errno).toBe(
      errno.approvalPending,
    );
    // Neither the poster nor the importer decides it; a third person does.
    const approve = (u: Holder) => s.call(approval.approve, { id: approvalId, code: u.code() }, u.token);
    expect((await approve(finance)).errno).toBe(errno.sameUser);
    const importerAsApprover = await s.makeKeyHolder([approval.approve.permission]);
    // (The importer given the permission for the test: still barred by the request and the database.)
    await s.db
      .update(approvals)
      .set({ barred: [importerAsApprover.id] })
      .where(eq(approvals.id, approvalId));
    expect((await approve(importerAsApprover)).errno).toBe(errno.sameUser);
    await s.db
      .update(approvals)
      .set({ barred: [operator.id] })
      .where(eq(approvals.id, approvalId));
    const approved = await approve(finance2);
    expect(approved.errno, approved.errmsg).toBe(0);
    expect(await orderById(s, b.order.id)).toMatchObject({ status: 'paid', paidBy: 'statement' });
    expect(await lineOf(b.utr)).toMatchObject({ status: 'matched', resolvedBy: finance2.id });
  });

  it('a sum split into calls, or between posters, finds the same limit', async () => {
    const rows = [await paidRow('400.00'), await paidRow('400.00'), await paidRow('400.00')];
    const imported = await paste(text(rows.map((r) => r.row)));
    const ids = await Promise.all(rows.map(async (r) => (await lineOf(r.utr)).id));
    // One line a call, by one user: the third call passes 1,000.00 and waits.
    expect((await post({ lineIds: [ids[0]!] }, finance)).data.matched).toBe(1);
    expect((await post({ lineIds: [ids[1]!] }, finance)).data.matched).toBe(1);
    const third = await post({ lineIds: [ids[2]!] }, finance2);
    // Another poster: the wallet and the statement are full all the same.
    expect(third.data.matched).toBe(0);
    expect(third.data.approval).toMatchObject({ lines: 1 });
    await s.call(
      approval.reject,
      { id: third.data.approval.id, reason: 'split', code: finance3.code() },
      finance3.token,
    );
    expect((await lineOf(rows[2]!.utr)).status).toBe('ready');
    void imported;
  });

  it('a debit only proposes: closing its slip line is the slip’s rule, from the slip’s own account', async () => {
    const confirmer = await decider(s);
    const owner = await merchantWithOwner(s, {}, { collection: 10_000_000, payout: 0 });
    const applied = await s.call(
      settlementPayment.create,
      {
        type: 'bank',
        accountName: 'Asha Verma',
        cardNumber: '123456789012',
        ifsc: 'SBIN0001234',
        amount: '500.00',
        code: owner.code(),
      },
      owner.token,
    );
    expect(applied.errno, applied.errmsg).toBe(0);
    const confirmed = await s.call(
      settlementPayment.confirm,
      { id: applied.data.id, auditAmount: '500.00', code: confirmer.code() },
      confirmer.token,
    );
    expect(confirmed.errno, confirmed.errmsg).toBe(0);
    const slip = await s.call(
      withdrawalSlip.create,
      {
        format: 'generic_csv',
        accountId: bank.accountId,
        settlementIds: [applied.data.id],
        code: finance.code(),
      },
      finance.token,
    );
    expect(slip.errno, slip.errmsg).toBe(0);
    const [slipLine] = await s.db
      .select()
      .from(withdrawalSlipLines)
      .where(eq(withdrawalSlipLines.slipId, slip.data.id));
    const debit = { narration: `NEFT DR-${slipLine!.narration}`, ref: `N${newUtr()}`, debit: '500.00' };
    // Into an unrelated account: no proposal at all.
    const other = await bankSetup(s);
    const elsewhere = await s.call(
      statement.import,
      { accountId: other.accountId, mapping, text: text([debit]) },
      operator.token,
    );
    expect(elsewhere.data.counts).toMatchObject({ ready: 0, exceptions: 1 });
    // Into the slip's own account: proposed, the settlement untouched.
    const own = await paste(text([{ ...debit, ref: `N${newUtr()}` }]));
    expect(own.data.counts).toMatchObject({ ready: 1 });
    const [line] = await s.db
      .select()
      .from(statementLines)
      .where(and(eq(statementLines.importId, own.data.importId), eq(statementLines.status, 'ready')));
    expect(line!.candidateSlipLineId).toBe(slipLine!.id);
    const [still] = await s.db.select().from(settlements).where(eq(settlements.id, applied.data.id));
    expect(still!.status).toBe('confirmed');
    // The confirmer posting it would complete what they confirmed: refused (1040), nothing moves.
    const byConfirmer = await s.makeKeyHolder([statement.accept.permission]);
    await s.db
      .update(settlements)
      .set({ confirmedBy: byConfirmer.id })
      .where(eq(settlements.id, applied.data.id));
    const refused = await post({ lineIds: [line!.id] }, byConfirmer);
    expect(refused.data.refused).toEqual([{ lineId: line!.id, message: expect.any(String) }]);
    expect(
      (await s.db.select().from(settlements).where(eq(settlements.id, applied.data.id)))[0]!.status,
    ).toBe('confirmed');
    // Another finance user posts it: the slip line is withdrawn and the settlement settled.
    const done = await post({ lineIds: [line!.id] }, finance2);
    expect(done.data).toEqual({ matched: 1, refused: [], approval: null });
    const [settled] = await s.db.select().from(settlements).where(eq(settlements.id, applied.data.id));
    expect(settled!.status).toBe('settled');
  });

  it.runIf(engine === 'postgres')(
    'overlapping statements imported at once save each line once; posted at once, each order is paid once',
    async () => {
      const rows = [];
      for (let i = 0; i < 6; i++) rows.push(await paidRow(`${101 + i}.00`));
      const firstHalf = text(rows.slice(0, 4).map((r) => r.row));
      const secondHalf = text(rows.slice(2).map((r) => r.row));
      const both = await Promise.all([paste(firstHalf), paste(secondHalf, finance)]);
      for (const r of both) expect(r.errno, r.errmsg).toBe(0);
      expect(both.map((r) => r.data.counts.new).reduce((a, b) => a + b)).toBe(6);
      const ids = await Promise.all(rows.map(async (r) => (await lineOf(r.utr)).id));
      // Two finance users post the same lines at once: each line pays its order once.
      const posted = await Promise.all([
        post({ lineIds: ids }, finance),
        post({ lineIds: [...ids].reverse() }, finance2),
      ]);
      expect(posted.map((p) => p.data.matched).reduce((a, b) => a + b)).toBe(6);
      for (const r of rows) expect(await orderById(s, r.order.id)).toMatchObject({ status: 'paid' });
    },
  );

  it.runIf(engine === 'postgres')(
    'a slip line withdrawn by hand and by its statement debit at once closes once',
    async () => {
      const confirmer = await decider(s);
      for (let round = 0; round < 3; round++) {
        const owner = await merchantWithOwner(s, {}, { collection: 10_000_000, payout: 0 });
        const applied = await s.call(
          settlementPayment.create,
          {
            type: 'bank',
            accountName: 'Asha Verma',
            cardNumber: '123456789012',
            ifsc: 'SBIN0001234',
            amount: '300.00',
            code: owner.code(),
          },
          owner.token,
        );
        await s.call(
          settlementPayment.confirm,
          { id: applied.data.id, auditAmount: '300.00', code: confirmer.code() },
          confirmer.token,
        );
        const slip = await s.call(
          withdrawalSlip.create,
          {
            format: 'generic_csv',
            accountId: bank.accountId,
            settlementIds: [applied.data.id],
            code: finance.code(),
          },
          finance.token,
        );
        const lineId = slip.data.lines[0].id as number;
        const narration = slip.data.lines[0].narration as string;
        const own = await paste(
          text([{ narration: `NEFT DR-${narration}`, ref: `N${newUtr()}`, debit: '300.00' }]),
        );
        const [debit] = await s.db
          .select()
          .from(statementLines)
          .where(and(eq(statementLines.importId, own.data.importId), eq(statementLines.status, 'ready')));
        const answers = await Promise.all([
          s.call(
            withdrawalSlip.withdraw,
            { id: slip.data.id, lines: [{ lineId, reference: `H${newUtr()}` }], code: finance2.code() },
            finance2.token,
          ),
          post({ lineIds: [debit!.id] }, finance3),
        ]);
        const wins = (answers[0].errno === 0 ? 1 : 0) + (answers[1].data?.matched ?? 0);
        expect(wins, JSON.stringify(answers)).toBe(1);
        const [settled] = await s.db.select().from(settlements).where(eq(settlements.id, applied.data.id));
        expect(settled!.status).toBe('settled');
      }
    },
  );

  it.runIf(engine === 'postgres')(
    'match and accept racing on one line, and two approvers of one request: once each',
    async () => {
      for (let round = 0; round < 5; round++) {
        await forgetDayDecisions(s);
        const a = await paidRow('100.00');
        await paste(text([a.row]));
        const line = await lineOf(a.utr);
        const answers = await Promise.all([
          post({ lineIds: [line.id] }, finance),
          s.call(
            statement.match,
            { lineId: line.id, orderId: a.order.id, reason: 'race', code: finance2.code() },
            finance2.token,
          ),
        ]);
        const won = answers.filter(
          (r) => r.errno === 0 && (r.data.matched === 1 || r.data.status === 'matched'),
        );
        expect(won, JSON.stringify(answers)).toHaveLength(1);
        expect(await orderById(s, a.order.id)).toMatchObject({ status: 'paid' });
      }
      // Two approvers at once of one request: one pays, the other is told it was decided.
      await writeParameter(s.db, 'maker_checker_threshold', 0);
      try {
        const b = await paidRow('100.00');
        await paste(text([b.row]));
        const asked = await post({ lineIds: [(await lineOf(b.utr)).id] }, finance);
        const id = asked.data.approval.id as number;
        const both = await Promise.all(
          [finance2, finance3].map((u) => s.call(approval.approve, { id, code: u.code() }, u.token)),
        );
        expect(both.map((r) => r.errno).sort()).toEqual([0, errno.conflict].sort());
        expect(await orderById(s, b.order.id)).toMatchObject({ status: 'paid' });
      } finally {
        await writeParameter(s.db, 'maker_checker_threshold', threshold);
      }
    },
  );
});
