/**
 * Reconciliation (`view=account`): over two business days, two bank channels each with a receiving
 * account, and a third account bound to none. Account A is paid by a statement line (written open, then
 * matched after the order was paid, as an import does), by force, and just after midnight by a supplement
 * with no line (it counts on the next day); it has an unmatched credit, a dismissed one and a debit.
 * Account B is paid on the 10th by a line the bank booked on the 11th (the order counts on the line's
 * day, the money's), and has a proposed credit. The
 * unbound account has an open credit. Every column is worked out by hand, by account and by channel (the
 * ledger's clearing), and the triggers' rollup equals one rebuilt from the orders and lines. Filters,
 * paging, the period's checks and the merchant user's refusal too.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { inTransaction } from '../../db/index.ts';
import { type payinOrders, statementBalanceEnds, statementImports, statementLines } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { transition } from '../payin/state.ts';
import { accountNo, type BankSetup, bankPayin, bankSetup } from '../receiving/testkit.ts';

const { balance } = endpoints.statOrder;
const minute = 60_000;
/** 10:00 in Kolkata (UTC+05:30) on business day `d` of March 2026. */
const morningOf = (d: number) => new Date(Date.UTC(2026, 2, d, 4, 30));

const figures = (count: number, sum: string) => ({ count, sum });
const none = figures(0, '0.00');

describe.each(engines)('reconciliation on %s', (engine) => {
  let s: TestServer;
  let a: BankSetup;
  let b: BankSetup;
  let unboundId: number;

  type Order = typeof payinOrders.$inferSelect;
  const pay = async (
    order: Order,
    action: 'supplement' | 'force',
    paidBy: 'statement' | 'force' | 'supplement',
  ) => {
    const paid = await inTransaction(s.db, (tx) =>
      transition(s.deps, tx, order.id, action, {
        utr: `UTR${order.id}${Date.now() % 100_000}`,
        paidAmount: order.amount,
        paidBy,
        paidAt: s.clock.now(),
      }),
    );
    expect(paid?.status).toBe('paid');
  };
  const importInto = async (accountId: number) => {
    const [row] = await s.db
      .insert(statementImports)
      .values({
        accountId,
        fileName: 'statement.csv',
        format: 'csv',
        source: 'upload',
        sha256: '0',
        size: 0,
        content: new Uint8Array(),
        mapping: {
          headerRow: 1,
          dateColumn: 'Date',
          dateFormat: 'dd/MM/yyyy',
          narrationColumn: 'Narration',
          creditColumn: 'Credit',
        },
        status: 'done',
        lineCount: 0,
        createdBy: 1,
      })
      .returning();
    return row!.id;
  };
  let seq = 0;
  const line = async (
    importId: number,
    accountId: number,
    day: string,
    amount: number,
    set: Partial<typeof statementLines.$inferInsert> = {},
  ) => {
    const [row] = await s.db
      .insert(statementLines)
      .values({
        accountId,
        importId,
        row: ++seq,
        day,
        narration: `UPI/CR/${seq}`,
        direction: 'credit',
        amount,
        dedupeKey: `line-${seq}`,
        ...set,
      })
      .returning();
    return row!.id;
  };
  const view = async (input: Record<string, unknown>, token?: string) =>
    s.call(
      balance,
      { view: 'account', from: '2026-03-10', to: '2026-03-11', ...input },
      token ?? (await s.adminToken()),
    );
  const ok = async (input: Record<string, unknown> = {}) => {
    const res = await view(input);
    expect(res.errno, res.errmsg).toBe(0);
    return res.data as {
      by: string;
      total: number;
      nextCursor: string | null;
      businessTimeZone: string;
      list: Record<string, unknown>[];
      totals: Record<string, unknown>[];
    };
  };

  beforeAll(async () => {
    s = await startTestServer(engine);
    s.clock.set(morningOf(10));
    a = await bankSetup(s);
    b = await bankSetup(s);
    const unbound = await s.call(
      endpoints.receivingAccount.create,
      {
        kind: 'public',
        bankName: 'Axis Bank',
        accountName: 'Acme Reserve',
        accountNumber: accountNo(),
        ifsc: 'UTIB0000123',
        dailyLimit: '1000000.00',
      },
      a.root,
    );
    unboundId = (unbound.data as { id: number }).id;
    const importA = await importInto(a.accountId);
    const importB = await importInto(b.accountId);
    const importU = await importInto(unboundId);

    // 10 March, account A: 1,000.00 proved by its line (open when written, matched once the order is
    // paid), 250.00 forced with no line; a credit of 75.00 nobody matched, one of 20.00 dismissed, a debit.
    const proved = (await bankPayin(s, a.merchant, { amount: '1000.00' })).order;
    expect(proved.receivingAccountId).toBe(a.accountId);
    const provedLine = await line(importA, a.accountId, '2026-03-10', 100_000);
    await pay(proved, 'supplement', 'statement');
    await s.db
      .update(statementLines)
      .set({ status: 'matched', payinId: proved.id })
      .where(eq(statementLines.id, provedLine));
    await pay((await bankPayin(s, a.merchant, { amount: '250.00' })).order, 'force', 'force');
    await line(importA, a.accountId, '2026-03-10', 7_500, {
      status: 'exception',
      exceptionKind: 'unmatched',
    });
    await line(importA, a.accountId, '2026-03-10', 2_000, { status: 'dismissed', reason: 'bank charges' });
    await line(importA, a.accountId, '2026-03-10', 50_000, { direction: 'debit' });
    // Account B: 400.00 paid on the 10th, the bank's line dated the 11th (written already matched).
    const late = (await bankPayin(s, b.merchant, { amount: '400.00' })).order;
    expect(late.receivingAccountId).toBe(b.accountId);
    await pay(late, 'supplement', 'statement');
    await line(importB, b.accountId, '2026-03-11', 40_000, { status: 'matched', payinId: late.id });
    // The unbound account: an open credit of 60.00.
    await line(importU, unboundId, '2026-03-10', 6_000);
    // 23:50 on the 10th: 300.00 created, supplemented at 00:05 on the 11th with no statement line.
    s.clock.set(new Date(Date.UTC(2026, 2, 10, 18, 20)));
    const midnight = (await bankPayin(s, a.merchant, { amount: '300.00' })).order;
    s.clock.advance(15 * minute);
    await pay(midnight, 'supplement', 'supplement');
    // 11 March, account B: a proposed credit of 90.00.
    s.clock.set(morningOf(11));
    await line(importB, b.accountId, '2026-03-11', 9_000, { status: 'proposed' });
  });
  afterAll(async () => {
    await s?.close();
  });

  const accountRows = () => [
    {
      day: '2026-03-11',
      accountId: a.accountId,
      channelId: null,
      label: expect.stringMatching(/^HDFC Bank ·\d{4}$/),
      currency: 'INR',
      paid: figures(1, '300.00'),
      matchedCredits: none,
      unmatchedCredits: none,
      unproved: figures(1, '300.00'),
      clearing: null,
      difference: '300.00',
      // Paid into the account, and no statement line of that day kept.
      statement: 'missing',
      frozen: '0.00',
    },
    {
      day: '2026-03-11',
      accountId: b.accountId,
      channelId: null,
      label: expect.stringMatching(/^HDFC Bank ·\d{4}$/),
      currency: 'INR',
      paid: figures(1, '400.00'),
      matchedCredits: figures(1, '400.00'),
      unmatchedCredits: figures(1, '90.00'),
      unproved: none,
      clearing: null,
      difference: '0.00',
      statement: null,
      frozen: '0.00',
    },
    {
      day: '2026-03-10',
      accountId: a.accountId,
      channelId: null,
      label: expect.any(String),
      currency: 'INR',
      paid: figures(2, '1250.00'),
      matchedCredits: figures(1, '1000.00'),
      unmatchedCredits: figures(2, '95.00'),
      unproved: figures(1, '250.00'),
      clearing: null,
      difference: '250.00',
      statement: null,
      frozen: '0.00',
    },
    {
      day: '2026-03-10',
      accountId: unboundId,
      channelId: null,
      label: expect.stringMatching(/^Axis Bank ·\d{4}$/),
      currency: 'INR',
      paid: none,
      matchedCredits: none,
      unmatchedCredits: figures(1, '60.00'),
      unproved: none,
      clearing: null,
      difference: '0.00',
      statement: null,
      frozen: '0.00',
    },
  ];

  it('works out every column per day and account: a late payment on the day it was paid, a late line’s order on the line’s day', async () => {
    const data = await ok();
    expect(data.by).toBe('account');
    expect(data.businessTimeZone).toBe('Asia/Kolkata');
    expect(data.total).toBe(4);
    expect(data.nextCursor).toBeNull();
    expect(data.list).toEqual(accountRows());
    expect(data.totals).toEqual([
      {
        currency: 'INR',
        paid: figures(4, '1950.00'),
        matchedCredits: figures(2, '1400.00'),
        unmatchedCredits: figures(4, '245.00'),
        unproved: figures(2, '550.00'),
        clearing: null,
        difference: '550.00',
      },
    ]);
  });

  it('by channel: a credit that paid no order under its account’s channel, the ledger’s clearing', async () => {
    const data = await ok({ by: 'channel' });
    expect(data.by).toBe('channel');
    const [a11, b11, a10, u10] = accountRows();
    const asChannel = (
      r: ReturnType<typeof accountRows>[number],
      channelId: number | null,
      clearing: string,
    ) => ({
      ...r,
      accountId: null,
      channelId,
      label: channelId === null ? '' : 'Bank collections',
      clearing,
      statement: null,
      frozen: null,
    });
    // Every pay-in paid on the 10th (1,650.00) and the 11th (300.00) left the one clearing account.
    expect(data.list).toEqual([
      asChannel(a11!, a.channelId, '-300.00'),
      asChannel(b11!, b.channelId, '-300.00'),
      asChannel(u10!, null, '-1650.00'),
      asChannel(a10!, a.channelId, '-1650.00'),
    ]);
    expect(data.totals).toEqual([
      expect.objectContaining({ paid: figures(4, '1950.00'), clearing: '-1950.00' }),
    ]);
  });

  it('filters by account and by channel', async () => {
    const onlyA = await ok({ accountId: a.accountId });
    expect(onlyA.list.map((r) => [r.day, r.accountId])).toEqual([
      ['2026-03-11', a.accountId],
      ['2026-03-10', a.accountId],
    ]);
    expect(onlyA.totals).toEqual([
      expect.objectContaining({ paid: figures(3, '1550.00'), difference: '550.00' }),
    ]);
    const channelB = await ok({ channelId: b.channelId });
    expect(channelB.list.map((r) => [r.day, r.accountId])).toEqual([['2026-03-11', b.accountId]]);
    const byChannelB = await ok({ by: 'channel', channelId: b.channelId });
    expect(byChannelB.total).toBe(1);
    expect(byChannelB.list.every((r) => r.channelId === b.channelId)).toBe(true);
    expect((await ok({ accountId: unboundId, by: 'channel' })).list).toEqual([
      expect.objectContaining({ day: '2026-03-10', channelId: null, unmatchedCredits: figures(1, '60.00') }),
    ]);
    const oneDay = await ok({ from: '2026-03-11', to: '2026-03-11' });
    expect(oneDay.total).toBe(2);
  });

  it('pages with a cursor, the total on every page', async () => {
    const seen: unknown[] = [];
    let cursor: string | undefined;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(3);
      const data = await ok({ pageSize: 2, ...(cursor ? { cursor } : {}) });
      expect(data.total).toBe(4);
      seen.push(...data.list.map((r) => [r.day, r.accountId]));
      if (!data.nextCursor) break;
      cursor = data.nextCursor;
    }
    expect(seen).toEqual(accountRows().map((r) => [r.day, r.accountId]));
    // A day the calendar lacks (or year 0) is refused in words, not handed to the database.
    for (const c of ['2026-03-11|x|INR', '2026-02-30|1|INR', '0000-01-01|1|INR']) {
      const bad = await view({ cursor: Buffer.from(c).toString('base64url') });
      expect(bad.errno).toBe(errno.invalid);
      expect(bad.data.fields[0].path).toBe('cursor');
    }
  });

  it('the rollup the triggers keep equals one rebuilt from the orders and lines', async () => {
    const before = await ok({ by: 'channel' });
    await s.db.execute(sql`select reconciliation_rebuild(null)`);
    expect(await ok({ by: 'channel' })).toEqual(before);
    // A line unmatched again makes its order unproved, and its credit open.
    await s.db.execute(sql`update statement_lines set status = 'exception', exception_kind = 'unmatched', payin_id = null
      where amount = 100000 and direction = 'credit'`);
    const [a10] = (await ok({ accountId: a.accountId, from: '2026-03-10', to: '2026-03-10' })).list;
    expect(a10).toMatchObject({
      paid: figures(2, '1250.00'),
      matchedCredits: none,
      unmatchedCredits: figures(3, '1095.00'),
      unproved: figures(2, '1250.00'),
      difference: '1250.00',
    });
    // An import's batch: three lines (two of one day and account) in one statement, then dismissed in one.
    const [anImport] = await s.db.select({ id: statementImports.id }).from(statementImports).limit(1);
    const batch = await s.db
      .insert(statementLines)
      .values(
        [1_000, 2_000, 3_000].map((amount, i) => ({
          accountId: i < 2 ? a.accountId : b.accountId,
          importId: anImport!.id,
          row: 100 + i,
          day: '2026-03-11',
          narration: `NEFT/CR/${i}`,
          direction: 'credit' as const,
          amount,
          dedupeKey: `batch-${i}`,
        })),
      )
      .returning({ id: statementLines.id });
    expect((await ok({ accountId: a.accountId, from: '2026-03-11', to: '2026-03-11' })).list).toEqual([
      expect.objectContaining({ unmatchedCredits: figures(2, '30.00') }),
    ]);
    await s.db
      .update(statementLines)
      .set({ status: 'dismissed', reason: 'test' })
      .where(
        inArray(
          statementLines.id,
          batch.map((l) => l.id),
        ),
      );
    const kept = await ok({ by: 'channel' });
    await s.db.execute(sql`select reconciliation_rebuild(null)`);
    expect(await ok({ by: 'channel' })).toEqual(kept);
  });

  it('lists the paid orders behind an unproved figure, by account or channel and day', async () => {
    const root = await s.adminToken();
    const unproved = (input: Record<string, unknown>, token = root) =>
      s.call(endpoints.statOrder.unproved, input, token);
    // Its orders add up to the row's figure (the test above left the 1,000.00 order's line unmatched).
    const a10 = await unproved({ day: '2026-03-10', accountId: a.accountId });
    expect(a10.errno, a10.errmsg).toBe(0);
    expect(a10.data.capped).toBe(false);
    expect(a10.data.list).toContainEqual(
      expect.objectContaining({ paidAmount: '250.00', paidBy: 'force', merchantCode: a.merchant.code }),
    );
    const [row10] = (await ok({ accountId: a.accountId, from: '2026-03-10', to: '2026-03-10' })).list;
    const listed = a10.data.list as { paidAmount: string }[];
    expect(row10!.unproved).toEqual({
      count: listed.length,
      sum: (listed.reduce((sum, o) => sum + Math.round(Number(o.paidAmount) * 100), 0) / 100).toFixed(2),
    });
    // The supplement at 00:05 on the 11th, with no line; the order its line proves is not listed.
    const a11 = await unproved({ day: '2026-03-11', channelId: a.channelId });
    expect(a11.data.list.map((o: { paidAmount: string }) => o.paidAmount)).toEqual(['300.00']);
    expect((await unproved({ day: '2026-03-10', accountId: b.accountId })).data.list).toEqual([]);
    expect((await unproved({ day: '2026-03-32' })).errno).toBe(errno.invalid);
    const merchantUser = await s.makeUser({
      kind: 'merchant',
      merchantId: a.merchant.id,
      perms: [endpoints.statOrder.unproved.permission],
    });
    expect((await unproved({ day: '2026-03-10' }, merchantUser.token)).errno).toBe(errno.forbidden);
  });

  it('refuses a bad period and a merchant user', async () => {
    expect((await view({ from: '2026-03-12', to: '2026-03-10' })).errno).toBe(errno.invalid);
    const long = await view({ from: '2026-01-01', to: '2026-03-11' });
    expect(long.errno).toBe(errno.invalid);
    expect(long.data).toMatchObject({ fields: [expect.objectContaining({ path: 'to' })] });
    expect((await view({ from: '2026-01-09', to: '2026-03-11' })).errno).toBe(0);
    // No `from`: the week up to `to`.
    const week = await s.call(balance, { view: 'account', to: '2026-03-11' }, await s.adminToken());
    expect(week.data).toMatchObject({ from: '2026-03-05', total: 4 });
    const finance = await s.makeUser({
      kind: 'merchant',
      merchantId: a.merchant.id,
      perms: [balance.permission],
    });
    expect((await view({}, finance.token)).errno).toBe(errno.forbidden);
    expect(
      (await s.call(balance, { view: 'd0', from: '2026-03-10', to: '2026-03-11' }, finance.token)).errno,
    ).toBe(0);
  });

  it('a day whose opening does not follow the previous day, or whose balance breaks within the day, is a gap', async () => {
    const c = await bankSetup(s);
    const importC = await importInto(c.accountId);
    // 10 March: 1,000.00 then 500.00 in, closing 11,500.00 (written newest first: the chain is read, not the order).
    await line(importC, c.accountId, '2026-03-10', 50_000, { balance: 1_150_000 });
    await line(importC, c.accountId, '2026-03-10', 100_000, { balance: 1_100_000 });
    // 11 March opens at 12,000.00: 500.00 came in between that no line kept.
    await line(importC, c.accountId, '2026-03-11', 30_000, { balance: 1_230_000 });
    const gapped = await ok({ accountId: c.accountId });
    expect(gapped.list.map((r) => [r.day, r.statement])).toEqual([
      ['2026-03-11', 'gap'],
      ['2026-03-10', null],
    ]);
    // The missing line arrives (another import, another download): the chain holds.
    await line(await importInto(c.accountId), c.accountId, '2026-03-11', 50_000, { balance: 1_200_000 });
    expect((await ok({ accountId: c.accountId })).list.map((r) => r.statement)).toEqual([null, null]);
    // A debit of the 11th whose balance does not run on from the day's others: lines of the day are missing.
    const debit = await line(importC, c.accountId, '2026-03-11', 20_000, {
      direction: 'debit',
      balance: 1_000_000,
    });
    expect((await ok({ accountId: c.accountId })).list.map((r) => r.statement)).toEqual(['gap', null]);
    // The loose ends are what the lines' own balances say, whatever wrote them.
    const ends = await s.db
      .select()
      .from(statementBalanceEnds)
      .where(eq(statementBalanceEnds.accountId, c.accountId))
      .orderBy(statementBalanceEnds.day, statementBalanceEnds.balance);
    expect(ends.map((e) => [e.day, e.balance, e.n])).toEqual([
      ['2026-03-10', 1_000_000, -1],
      ['2026-03-10', 1_150_000, 1],
      ['2026-03-11', 1_000_000, 1],
      ['2026-03-11', 1_020_000, -1],
      ['2026-03-11', 1_150_000, -1],
      ['2026-03-11', 1_230_000, 1],
    ]);
    // A line deleted takes back its ends: the day runs on again.
    await s.db.delete(statementLines).where(eq(statementLines.id, debit));
    expect((await ok({ accountId: c.accountId })).list.map((r) => r.statement)).toEqual([null, null]);
  });

  it('a day paid into an account with no statement line is missing; a line of that day, any, covers it', async () => {
    const c = await bankSetup(s);
    const paid = (await bankPayin(s, c.merchant, { amount: '500.00' })).order;
    await pay(paid, 'force', 'force');
    expect((await ok({ accountId: c.accountId })).list.map((r) => [r.day, r.statement])).toEqual([
      ['2026-03-11', 'missing'],
    ]);
    // The day's statement arrives (a debit is enough: the statement of that day is kept).
    await line(await importInto(c.accountId), c.accountId, '2026-03-11', 1_000, { direction: 'debit' });
    expect((await ok({ accountId: c.accountId })).list.map((r) => r.statement)).toEqual([null]);
  });
});
