/**
 * A dismissal taken back (`POST /statement/reopen`, the dismissal's undo) on both databases: the line is
 * matched again at once; one that matching would now pay (the bank's own feed, the order's UTR known since)
 * waits `ready` for a person and pays nothing by itself; all or none (404 for an unknown line, 409 with the
 * ids of lines not dismissed); the operators' and finance's, never a merchant user's; logged.
 */
import { randomInt } from 'node:crypto';
import { and, count, desc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { journalEntries, operationLog, payinOrders, statementLines } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { expectBalanced, orderById } from '../payin/testkit.ts';
import { type BankSetup, bankPayin, bankSetup, csvMapping as mapping } from '../receiving/testkit.ts';
import { importStatement } from './service.ts';

const { statement } = endpoints;

const newUtr = () => `7${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(100)).padStart(2, '0')}`;

describe.each(engines)('a dismissal taken back on %s', (engine) => {
  let s: TestServer;
  let bank: BankSetup;
  let operator: Awaited<ReturnType<TestServer['makeUser']>>;

  beforeAll(async () => {
    s = await startTestServer(engine);
    bank = await bankSetup(s);
    operator = await s.makeUser({
      perms: [statement.dismiss.permission, statement.reopen.permission, statement.list.permission],
    });
  });
  afterEach(() => expectBalanced(s));
  afterAll(() => s.close());

  /** One credit of the bank's own feed (it pays by itself when it can), as the feed job imports it. */
  const feedCredit = async (utr: string, amount: string) => {
    const day = new Date(s.clock.now()).toISOString().slice(0, 10);
    const text = `Date,Narration,Ref,Debit,Credit\n${day},UPI-${utr},${utr},,${amount}\n`;
    const file = Buffer.from(text).toString('base64');
    await importStatement(s.deps, 1, { accountId: bank.accountId, mapping, file }, 'en', 'feed');
    const [line] = await s.db.select().from(statementLines).where(eq(statementLines.utr, utr));
    return line!;
  };
  const lineById = async (id: number) =>
    (await s.db.select().from(statementLines).where(eq(statementLines.id, id)))[0]!;
  const entriesOf = async (orderId: number) =>
    (
      await s.db
        .select({ n: count() })
        .from(journalEntries)
        .where(and(eq(journalEntries.refType, 'payin'), eq(journalEntries.refId, String(orderId))))
    )[0]!.n;

  it('back in the queue, matched again: what would pay now waits ready for a person', async () => {
    const utr = newUtr();
    const line = await feedCredit(utr, '412.34');
    expect(line).toMatchObject({ status: 'exception', exceptionKind: 'unmatched' });
    const dismissed = await s.call(
      statement.dismiss,
      { lineId: line.id, reason: 'our own transfer' },
      operator.token,
    );
    expect(dismissed.errno, dismissed.errmsg).toBe(0);

    // Meanwhile the order it pays comes to light: the feed's word would pay it by itself.
    const { order } = await bankPayin(s, bank.merchant, { amount: '412.34' });
    await s.db.update(payinOrders).set({ payerUtr: utr }).where(eq(payinOrders.id, order.id));

    const back = await s.call(statement.reopen, { lineIds: [line.id] }, operator.token);
    expect(back.errno, back.errmsg).toBe(0);
    expect(back.data).toMatchObject({ reopened: 1, ready: 1, matched: 0 });
    expect(await lineById(line.id)).toMatchObject({
      status: 'ready',
      candidatePayinId: order.id,
      reason: null,
      resolvedBy: null,
      resolvedAt: null,
    });
    expect((await orderById(s, order.id)).status).toBe('pending');
    expect(await entriesOf(order.id)).toBe(0);

    const [logged] = await s.db
      .select()
      .from(operationLog)
      .where(eq(operationLog.action, statement.reopen.id))
      .orderBy(desc(operationLog.id))
      .limit(1);
    expect(logged).toMatchObject({ outcome: 'ok', userId: operator.id, target: `statementLine:${line.id}` });
  });

  it('a line with nothing to match goes back as an exception', async () => {
    const line = await feedCredit(newUtr(), '413.01');
    await s.call(statement.dismiss, { lineId: line.id, reason: 'bank charges' }, operator.token);
    const back = await s.call(statement.reopen, { lineIds: [line.id] }, operator.token);
    expect(back.data).toMatchObject({ reopened: 1, exceptions: 1 });
    expect(await lineById(line.id)).toMatchObject({ status: 'exception', exceptionKind: 'unmatched' });
  });

  it('all or none: an unknown line 404, a line not dismissed 409 with its id; nothing moves', async () => {
    const open = await feedCredit(newUtr(), '414.00');
    const gone = await feedCredit(newUtr(), '414.50');
    await s.call(statement.dismiss, { lineId: gone.id, reason: 'refund' }, operator.token);

    expect((await s.call(statement.reopen, { lineIds: [gone.id, 999_999_999] }, operator.token)).errno).toBe(
      errno.notFound,
    );
    const refused = await s.call(statement.reopen, { lineIds: [gone.id, open.id] }, operator.token);
    expect(refused.errno).toBe(errno.conflict);
    expect(refused.data).toEqual({ lineIds: [open.id] });
    expect((await lineById(gone.id)).status).toBe('dismissed');
    expect((await s.call(statement.reopen, { lineIds: [] }, operator.token)).errno).toBe(errno.invalid);
  });

  it('a merchant user may not take a dismissal back', async () => {
    const line = await feedCredit(newUtr(), '415.00');
    await s.call(statement.dismiss, { lineId: line.id, reason: 'refund' }, operator.token);
    const merchantUser = await s.makeUser({
      kind: 'merchant',
      merchantId: bank.merchant.id,
      perms: [statement.reopen.permission],
    });
    expect((await s.call(statement.reopen, { lineIds: [line.id] }, merchantUser.token)).errno).toBe(
      errno.forbidden,
    );
    expect((await lineById(line.id)).status).toBe('dismissed');
  });
});
