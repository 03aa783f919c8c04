/**
 * Agents' commission (OPERATIONS.md section 4): the statement's per-merchant figures equal what the paid
 * pay-ins of the agent's merchants made payable in the ledger; a payment is one balanced entry out of the
 * payable balance (never more than it holds), its reference once per agent, and above the maker–checker
 * threshold it waits for a second platform user.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import {
  agentCommissionPayments,
  agents,
  journalEntries,
  ledgerAccounts,
  payinOrders,
  postings,
} from '../../db/schema.ts';
import { writeParameter } from '../../lib/parameters.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { forgetDayDecisions } from '../approval/testkit.ts';
import { createOrder, expectBalanced, merchantOn, simPay } from '../payin/testkit.ts';
import { businessNow } from '../settlement/tn.ts';

const { agentCommission, approval } = endpoints;
/** 10.00: above it a payment waits for a second person. */
const threshold = 1_000;

describe.each(engines)('agent commission on %s', (engine) => {
  let s: TestServer;
  type Checker = Awaited<ReturnType<TestServer['makeKeyHolder']>>;
  let one: Checker;
  let two: Checker;
  let agentId: number;
  let a: Awaited<ReturnType<typeof merchantOn>>;
  let b: Awaited<ReturnType<typeof merchantOn>>;
  let today: string;

  beforeAll(async () => {
    s = await startTestServer(engine);
    const admin = await s.adminToken();
    const perms = [
      agentCommission.statement.permission,
      agentCommission.pay.permission,
      approval.approve.permission,
    ];
    one = await s.makeKeyHolder(perms);
    two = await s.makeKeyHolder(perms);
    const [agent] = await s.db
      .insert(agents)
      .values({ code: `AG${Date.now().toString(36)}`, name: 'Agent', commissionPpm: 5_000 })
      .returning();
    agentId = agent!.id;
    a = await merchantOn(s, undefined, { collectionRatePpm: 20_000, agentId });
    b = await merchantOn(s, undefined, { collectionRatePpm: 30_000, agentId });
    const outsider = await merchantOn(s, undefined, { collectionRatePpm: 20_000 });
    for (const [m, amounts] of [
      [a, ['1000.00', '1500.00', '700.00']],
      [b, ['2000.00']],
      [outsider, ['900.00']],
    ] as const) {
      for (const amount of amounts)
        await simPay(s, admin, (await createOrder(s, m, { amount })).orderNo, 'success');
    }
    await simPay(s, admin, (await createOrder(s, a, { amount: '400.00' })).orderNo, 'fail');
    today = (await businessNow(s.db, s.clock.now())).day;
    await writeParameter(s.db, 'maker_checker_threshold', threshold);
  });
  afterEach(() => expectBalanced(s));
  afterAll(() => s.close());
  // Each test decides on a fresh day: what earlier tests decided alone is out of the day's sums.
  beforeEach(() => forgetDayDecisions(s));

  const statement = (input: Record<string, unknown> = {}) =>
    s.call(agentCommission.statement, { agentId, from: today, to: today, ...input }, one.token);
  const pay = (u: Checker, input: Record<string, unknown>) =>
    s.call(agentCommission.pay, { agentId, currency: 'INR', code: u.code(), ...input }, u.token);
  const payable = async () => {
    const [row] = await s.db
      .select({ balance: ledgerAccounts.balance })
      .from(ledgerAccounts)
      .where(and(eq(ledgerAccounts.ownerType, 'agent'), eq(ledgerAccounts.ownerId, agentId)));
    return row?.balance ?? 0;
  };
  const payments = () =>
    s.db.select().from(agentCommissionPayments).where(eq(agentCommissionPayments.agentId, agentId));
  const money = (minor: number) => (minor / 100).toFixed(2);

  it('states per merchant what its paid pay-ins brought, equal to the ledger', async () => {
    const res = await statement();
    expect(res.errno, res.errmsg).toBe(0);
    // What the ledger made payable, order by order, for each merchant of the agent.
    const paid = await s.db
      .select({
        merchantId: payinOrders.merchantId,
        n: sql<number>`count(*)::int`,
        amount: sql<string>`sum(${payinOrders.amount})::text`,
        commission: sql<string>`sum(${postings.amount})::text`,
      })
      .from(postings)
      .innerJoin(journalEntries, eq(journalEntries.id, postings.entryId))
      .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, postings.accountId))
      .innerJoin(payinOrders, sql`${payinOrders.id}::text = ${journalEntries.refId}`)
      .where(
        and(
          eq(journalEntries.refType, 'payin'),
          eq(ledgerAccounts.ownerType, 'agent'),
          eq(ledgerAccounts.ownerId, agentId),
        ),
      )
      .groupBy(payinOrders.merchantId);
    expect(paid).toHaveLength(2);
    const byMerchant = new Map(paid.map((p) => [p.merchantId, p]));
    for (const m of [a, b]) {
      const row = res.data.rows.find((r: { merchantId: number }) => r.merchantId === m.id);
      const p = byMerchant.get(m.id)!;
      expect(row).toMatchObject({
        merchantCode: m.code,
        currency: 'INR',
        paidCount: p.n,
        paidAmount: money(Number(p.amount)),
        commission: money(Number(p.commission)),
      });
    }
    expect(res.data.rows).toHaveLength(2);
    expect(res.data.rows.find((r: { merchantId: number }) => r.merchantId === a.id).paidCount).toBe(3);
    const total = paid.reduce((sum, p) => sum + Number(p.commission), 0);
    expect(total).toBe(await payable());
    expect(res.data.totals).toEqual([
      { currency: 'INR', paidCount: 4, paidAmount: '5200.00', commission: money(total) },
    ]);
    expect(res.data.payable).toEqual([{ currency: 'INR', balance: money(total) }]);
    expect(res.data.payments).toEqual([]);
  });

  it('pays out of the payable balance with one entry, never more, each reference once', async () => {
    const before = await payable();
    const paid = await pay(one, { amount: '2.00', reference: 'utr-0001', note: 'March' });
    expect(paid.errno, paid.errmsg).toBe(0);
    expect(paid.data).toMatchObject({
      amount: '2.00',
      reference: 'UTR-0001',
      note: 'March',
      paidBy: one.username,
    });
    expect(await payable()).toBe(before - 200);
    const [row] = await payments();
    const lines = await s.db
      .select({ owner: ledgerAccounts.ownerType, account: ledgerAccounts.kind, amount: postings.amount })
      .from(postings)
      .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, postings.accountId))
      .where(eq(postings.entryId, row!.entryId))
      .orderBy(postings.amount);
    expect(lines).toEqual([
      { owner: 'agent', account: 'agent_commission_payable', amount: -200 },
      { owner: 'platform', account: 'settlement_clearing', amount: 200 },
    ]);
    const [entry] = await s.db.select().from(journalEntries).where(eq(journalEntries.id, row!.entryId));
    expect(entry).toMatchObject({
      kind: 'commission_paid',
      refType: 'agent_commission_payment',
      refId: String(row!.id),
    });

    expect((await pay(one, { amount: '1.00', reference: 'UTR-0001' })).errno).toBe(errno.referenceTaken);
    expect((await pay(one, { amount: money(before - 200 + 1), reference: 'UTR-0002' })).errno).toBe(
      errno.insufficientBalance,
    );
    expect((await pay(one, { amount: '1.00', reference: 'UTR-0003', currency: 'USD' })).errno).toBe(
      errno.insufficientBalance,
    );
    expect(await payable()).toBe(before - 200);
    expect(await payments()).toHaveLength(1);
    expect((await statement()).data.payments.map((p: { reference: string }) => p.reference)).toEqual([
      'UTR-0001',
    ]);
  });

  it('above the threshold waits for a second person', async () => {
    const before = await payable();
    const asked = await pay(one, { amount: '11.00', reference: 'UTR-0100' });
    expect(asked.errno).toBe(errno.approvalRequested);
    expect(await payable()).toBe(before);
    expect(
      (await s.call(approval.approve, { id: asked.data.approvalId, code: one.code() }, one.token)).errno,
    ).toBe(errno.sameUser);
    const ok = await s.call(approval.approve, { id: asked.data.approvalId, code: two.code() }, two.token);
    expect(ok.errno, ok.errmsg).toBe(0);
    expect(await payable()).toBe(before - 1_100);
    const row = (await payments()).find((p) => p.reference === 'UTR-0100');
    expect(row).toMatchObject({ amount: 1_100, paidBy: two.id });
  });

  it('refuses bad input and periods', async () => {
    for (const [input, field] of [
      [{ amount: '0', reference: 'R1' }, 'amount'],
      [{ amount: '1.00', reference: ' ' }, 'reference'],
      [{ amount: '1.00', reference: 'R1', currency: 'rupee' }, 'currency'],
    ] as const) {
      const res = await pay(one, input);
      expect(res.errno, JSON.stringify(input)).toBe(errno.invalid);
      expect(res.data.fields.map((f: { path: string }) => f.path)).toContain(field);
    }
    expect((await pay(one, { agentId: 2_000_000_000, amount: '1.00', reference: 'R1' })).errno).toBe(
      errno.notFound,
    );
    expect((await statement({ from: '2026-03-10', to: '2026-03-09' })).errno).toBe(errno.invalid);
    expect((await statement({ from: '2026-01-01', to: '2026-03-09' })).errno).toBe(errno.invalid);
    expect((await statement({ agentId: 2_000_000_000 })).errno).toBe(errno.notFound);
    const owner = await s.login(a.ownerUsername, a.ownerPassword);
    expect((await s.call(agentCommission.statement, { agentId }, owner)).errno).toBe(errno.forbidden);
  });
});
