import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction, sqlState } from '../db/index.ts';
import { journalEntries, postings } from '../db/schema.ts';
import { AppError } from '../http/errors.ts';
import { engines, errno, startTestServer, type TestServer } from '../test/harness.ts';
import { checkLedger } from './check.ts';
import { merchantAccount, merchantBalances, platformAccount, post, rowsOf } from './index.ts';

const cur = 'INR';

describe.each(engines)('ledger on %s', (engine) => {
  let s: TestServer;
  let m: number;
  beforeAll(async () => {
    s = await startTestServer(engine);
    m = (await s.makeMerchant()).id;
  });
  afterEach(async () => {
    const report = await checkLedger(s.db);
    expect(report).toMatchObject({
      balanced: true,
      unbalancedEntries: [],
      brokenChains: [],
      accountMismatches: [],
    });
  });
  afterAll(() => s.close());

  const credit = (amount: number, ref: string) =>
    inTransaction(s.db, (tx) =>
      post(tx, {
        kind: 'test_credit',
        refType: 'test',
        refId: ref,
        at: s.clock.now(),
        lines: [
          { account: platformAccount('channel_clearing', cur), amount: -amount },
          { account: merchantAccount(m, 'payout_available', cur), amount },
        ],
      }),
    );

  it('posts a balanced entry with before and after on each line', async () => {
    const lines = await credit(10_000, 'c1');
    const wallet = lines.find((l) => l.account.kind === 'payout_available')!;
    expect(wallet).toMatchObject({ amount: 10_000, balanceBefore: 0, balanceAfter: 10_000, seq: 1 });
    const clearing = lines.find((l) => l.account.kind === 'channel_clearing')!;
    expect(clearing.balanceAfter).toBe(clearing.balanceBefore - 10_000);
    expect((await merchantBalances(s.db, m, cur)).payout_available).toBe(10_000);
  });

  it('refuses an entry that does not balance, writing nothing', async () => {
    const before = await s.db.select().from(journalEntries);
    await expect(
      inTransaction(s.db, (tx) =>
        post(tx, {
          kind: 'bad',
          refType: 'test',
          refId: 'bad1',
          at: s.clock.now(),
          lines: [
            { account: platformAccount('fee_income', cur), amount: 5 },
            { account: merchantAccount(m, 'payout_available', cur), amount: -4 },
          ],
        }),
      ),
    ).rejects.toThrow(/does not balance/);
    expect(await s.db.select().from(journalEntries)).toHaveLength(before.length);
  });

  it('refuses to take a wallet below zero (errno 1019), writing nothing', async () => {
    const { payout_available } = await merchantBalances(s.db, m, cur);
    const err = await inTransaction(s.db, (tx) =>
      post(tx, {
        kind: 'overdraw',
        refType: 'test',
        refId: 'o1',
        at: s.clock.now(),
        lines: [
          { account: merchantAccount(m, 'payout_available', cur), amount: -(payout_available + 1) },
          { account: platformAccount('payout_clearing', cur), amount: payout_available + 1 },
        ],
      }),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).errno).toBe(errno.insufficientBalance);
    expect((await merchantBalances(s.db, m, cur)).payout_available).toBe(payout_available);
  });

  it('posts a cause once only', async () => {
    await credit(100, 'once');
    const err = await credit(100, 'once').catch((e) => e);
    expect((err as AppError).errno).toBe(errno.conflict);
  });

  it('has the database refuse a negative wallet even from raw SQL (CHECK, 23514)', async () => {
    const err = await s.db
      .execute(sql`update ledger_accounts set balance = -1 where owner_type = 'merchant' and owner_id = ${m}`)
      .catch((e) => e);
    expect(sqlState(err)).toBe('23514');
  });

  it('keeps journal entries and postings append-only', async () => {
    for (const stmt of [
      sql`update ${postings} set amount = amount + 1`,
      sql`delete from ${postings}`,
      sql`update ${journalEntries} set memo = 'x'`,
      sql`delete from ${journalEntries}`,
    ]) {
      const err = await s.db.execute(stmt).catch((e) => e);
      expect(sqlState(err)).toBe('42501');
    }
  });

  it('matches a BigInt model over random transfers between wallets', async () => {
    const kinds = ['collection_available', 'collection_pending', 'payout_available', 'frozen'] as const;
    const other = (await s.makeMerchant()).id;
    await credit(50_000, 'model-seed');
    let ref = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            from: fc.constantFrom(...kinds),
            to: fc.constantFrom(...kinds),
            amount: fc.integer({ min: 1, max: 20_000 }),
          }),
          { minLength: 1, maxLength: 15 },
        ),
        async (moves) => {
          const model = new Map<string, bigint>();
          const start = await merchantBalances(s.db, m, cur);
          for (const k of kinds) model.set(k, BigInt(start[k]));
          for (const mv of moves) {
            if (mv.from === mv.to) continue;
            const ok = model.get(mv.from)! >= BigInt(mv.amount);
            const r = await inTransaction(s.db, (tx) =>
              post(tx, {
                kind: 'model_move',
                refType: 'model',
                refId: `${other}-${++ref}`,
                at: s.clock.now(),
                lines: [
                  { account: merchantAccount(m, mv.from, cur), amount: -mv.amount },
                  { account: merchantAccount(m, mv.to, cur), amount: mv.amount },
                ],
              }),
            ).then(
              () => 'ok',
              (e) => (e instanceof AppError ? e.errno : 'crash'),
            );
            expect(r).toBe(ok ? 'ok' : errno.insufficientBalance);
            if (ok) {
              model.set(mv.from, model.get(mv.from)! - BigInt(mv.amount));
              model.set(mv.to, model.get(mv.to)! + BigInt(mv.amount));
            }
          }
          const end = await merchantBalances(s.db, m, cur);
          for (const k of kinds) expect(BigInt(end[k])).toBe(model.get(k));
        },
      ),
      { numRuns: engine === 'pglite' ? 25 : 10 },
    );
  });
});

describe.runIf(engines.includes('postgres'))('ledger under concurrency on postgres', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('postgres');
  });
  afterAll(() => s.close());

  it('never overdraws a wallet when 100 debits race through 20 connections, over 20 seeds', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const m = (await s.makeMerchant()).id;
      const start = 10_000;
      await inTransaction(s.db, (tx) =>
        post(tx, {
          kind: 'seed',
          refType: 'race',
          refId: `${m}-seed`,
          at: s.clock.now(),
          lines: [
            { account: platformAccount('channel_clearing', cur), amount: -start },
            { account: merchantAccount(m, 'payout_available', cur), amount: start },
          ],
        }),
      );
      const amounts = fc.sample(fc.integer({ min: 1, max: 500 }), { numRuns: 100, seed });
      const results = await Promise.all(
        amounts.map((amount, i) =>
          inTransaction(s.db, (tx) =>
            post(tx, {
              kind: 'debit',
              refType: 'race',
              refId: `${m}-${i}`,
              at: s.clock.now(),
              lines: [
                { account: merchantAccount(m, 'payout_available', cur), amount: -amount },
                { account: merchantAccount(m, 'frozen', cur), amount },
              ],
            }),
          ).then(
            () => amount,
            (e) => {
              if (e instanceof AppError && e.errno === errno.insufficientBalance) return 0;
              throw e;
            },
          ),
        ),
      );
      const accepted = results.reduce((a, b) => a + b, 0);
      const bal = await merchantBalances(s.db, m, cur);
      expect(bal.payout_available).toBeGreaterThanOrEqual(0);
      expect(bal.payout_available + bal.frozen).toBe(start);
      expect(bal.frozen).toBe(accepted);
      expect(accepted).toBeLessThanOrEqual(start);
    }
    expect((await checkLedger(s.db)).balanced).toBe(true);
    const rows = rowsOf<{ n: number }>(await s.db.execute(sql`select count(*)::int as n from postings`));
    expect(rows[0]!.n).toBeGreaterThan(0);
  });
});
