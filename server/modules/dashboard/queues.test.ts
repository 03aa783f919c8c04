/**
 * The dashboard's queues of work waiting for a person (`dashboardQueues`): settlements to confirm and to
 * complete, approvals waiting for a second person, statement exceptions and withdrawal slips at the bank
 * beside the order queues. Each counts only its waiting rows, only for a caller who may call its list
 * (null otherwise), within the caller's tenancy; `dashboard.queues` answers what the summary does, and
 * each count reads an index, never the table.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardQueues } from '../../../contract/endpoints/dashboard.ts';
import { endpoints } from '../../../contract/index.ts';
import {
  approvals,
  settlements,
  statementImports,
  statementLines,
  withdrawalSlips,
} from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import { rowsOf } from '../../ledger/index.ts';
import { engines, startTestServer, type TestServer } from '../../test/harness.ts';
import { bankSetup } from '../receiving/testkit.ts';

const newQueues = [
  'settlementsToConfirm',
  'settlementsToComplete',
  'approvalsPending',
  'statementExceptions',
  'slipsToWithdraw',
] as const;

describe.each(engines)('dashboard queues on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let a: { id: number; token: string };
  let b: { id: number };
  let seq = 0;

  const settlement = (merchantId: number, status: 'to_be_confirmed' | 'confirmed' | 'settled' | 'failed') =>
    s.db.insert(settlements).values({
      settlementNo: `STQ${Date.now()}${++seq}`,
      wallet: 'collection',
      merchantId,
      currency: 'INR',
      type: 'bank',
      amount: 100_000,
      fee: 0,
      status,
    });
  const approval = (
    merchantId: number,
    status: 'pending' | 'approved',
    requestedBy: number,
    decidedBy?: number,
  ) =>
    s.db.insert(approvals).values({
      action: 'settlement.confirm',
      refType: 'settlement',
      refId: `q${++seq}`,
      merchantId,
      currency: 'INR',
      amount: 100_000,
      status,
      requestedBy,
      ...(decidedBy ? { decidedBy, decidedAt: s.clock.now() } : {}),
    });
  const slip = (status: 'to_be_withdrawn' | 'withdrawn', createdBy: number) =>
    s.db.insert(withdrawalSlips).values({
      slipNo: `WS${Date.now()}${++seq}`,
      format: 'generic_csv',
      status,
      currency: 'INR',
      lineCount: 1,
      total: 100_000,
      fileName: 'slip.csv',
      content: 'x',
      createdBy,
    });

  const queuesOf = async (token: string) => {
    const res = await s.call(endpoints.dashboard.summary, {}, token);
    expect(res.errno, res.errmsg).toBe(0);
    const alone = await s.call(endpoints.dashboard.queues, {}, token);
    expect(alone.errno, alone.errmsg).toBe(0);
    // The palette's counts are the panel's.
    expect(alone.data).toEqual(res.data.queues);
    return res.data.queues as Record<string, number | null>;
  };

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    const bank = await bankSetup(s);
    const merchantA = bank.merchant;
    const merchantB = await s.makeMerchant();
    const ownerA = await s.makeUser({ kind: 'merchant', merchantId: merchantA.id, perms: ['*'] });
    a = { id: merchantA.id, token: ownerA.token };
    b = { id: merchantB.id };
    const maker = await s.makeUser({ perms: ['*'] });
    const checker = await s.makeUser({ perms: ['*'] });
    // One row in each queue (of merchant B, where a merchant is named), one beside it out of the queue.
    await settlement(b.id, 'to_be_confirmed');
    await settlement(b.id, 'confirmed');
    await settlement(b.id, 'settled');
    await settlement(b.id, 'failed');
    await approval(b.id, 'pending', maker.id);
    await approval(b.id, 'approved', maker.id, checker.id);
    await slip('to_be_withdrawn', maker.id);
    await slip('withdrawn', maker.id);
    const [imported] = await s.db
      .insert(statementImports)
      .values({
        accountId: bank.accountId,
        fileName: 'statement.csv',
        format: 'csv',
        source: 'upload',
        sha256: 'x'.repeat(64),
        size: 1,
        content: Buffer.from('x'),
        mapping: {},
        lineCount: 3,
        createdBy: maker.id,
        status: 'done',
      })
      .returning({ id: statementImports.id });
    const line = (n: number, status: 'exception' | 'proposed' | 'matched' | 'dismissed') => ({
      accountId: bank.accountId,
      importId: imported!.id,
      row: n,
      day: '2026-11-20',
      narration: `line ${n}`,
      direction: 'credit' as const,
      amount: 1_000 + n,
      dedupeKey: `q-${n}`,
      status,
      ...(status === 'exception' ? { exceptionKind: 'unmatched' as const } : {}),
      ...(status === 'dismissed' ? { reason: 'bank charges' } : {}),
    });
    await s.db
      .insert(statementLines)
      .values([line(1, 'exception'), line(2, 'proposed'), line(3, 'dismissed')]);
  });
  afterAll(() => s.close());

  it('counts each waiting row once, and none that left its queue', async () => {
    expect(await queuesOf(root)).toMatchObject({
      settlementsToConfirm: 1,
      settlementsToComplete: 1,
      approvalsPending: 1,
      statementExceptions: 2,
      slipsToWithdraw: 1,
    });
  });

  it("keeps the platform's queues from a merchant user and counts its own merchant's only", async () => {
    const mine = await queuesOf(a.token);
    for (const q of newQueues) expect(mine[q], q).toBeNull();
    // The order queues stay the merchant's own (B's settlement rows are not orders: nothing leaks in).
    expect(mine).toMatchObject({ payoutsQueued: 0, rechargesPending: 0 });
  });

  it('answers null for a queue whose list the caller may not call', async () => {
    const operator = await s.makeUser({
      perms: ['GET /dashboard/summary', 'GET /dashboard/queues', 'GET /settlementQuery/list'],
    });
    const q = await queuesOf(operator.token);
    expect(q).toMatchObject({
      settlementsToConfirm: 1,
      settlementsToComplete: 1,
      approvalsPending: null,
      statementExceptions: null,
      slipsToWithdraw: null,
      payoutsQueued: null,
      rechargesPending: null,
    });
    const finance = await s.makeUser({
      perms: [
        'GET /dashboard/summary',
        'GET /dashboard/queues',
        'GET /approval/list',
        'GET /withdrawalSlip/list',
      ],
    });
    expect(await queuesOf(finance.token)).toMatchObject({
      settlementsToConfirm: null,
      approvalsPending: 1,
      slipsToWithdraw: 1,
      statementExceptions: null,
    });
  });

  it('reads each queue through an index, never the whole table', async () => {
    await s.db.execute(sql`analyze`);
    // The states written as the server writes them (literals, so the planner matches partial indexes).
    const plan = async (table: string, states: readonly string[]) => {
      await s.db.execute(sql`set enable_seqscan = off`);
      try {
        const rows = rowsOf<Record<string, string>>(
          await s.db.execute(
            sql`explain select count(*) from ${sql.identifier(table)} where ${inStates(sql.raw('status'), states)}`,
          ),
        );
        return rows.map((r) => Object.values(r)[0]).join('\n');
      } finally {
        await s.db.execute(sql`set enable_seqscan = on`);
      }
    };
    const sources = {
      settlementsToConfirm: ['settlements', 'settlements_open_idx'],
      settlementsToComplete: ['settlements', 'settlements_open_idx'],
      approvalsPending: ['approvals', 'approvals_pending_ref_key'],
      statementExceptions: ['statement_lines', 'statement_lines_open_idx'],
      slipsToWithdraw: ['withdrawal_slips', 'withdrawal_slips_waiting_idx'],
    } as const;
    for (const q of newQueues) {
      const [table, index] = sources[q];
      // Tables this small are cheaper to scan, so scans are priced out: the plan left must read the
      // partial index of the waiting rows, whose predicate the queue's states imply.
      const text = await plan(table, dashboardQueues[q].states);
      expect(text, q).toContain(index);
      expect(text, q).not.toMatch(/Seq Scan/);
    }
  });
});
