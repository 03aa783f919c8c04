/**
 * Settlements under real concurrency (PostgreSQL only: PGlite runs one query at a time, so row locks never
 * contend there): applications racing for one wallet never overdraw it, and completions racing for one
 * settlement spend its hold once. The service is called directly, each call in its own transaction, as
 * the endpoints do after the Google code (one code per user per half minute could not race).
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../db/index.ts';
import { merchants, settlements } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { merchantBalances } from '../../ledger/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { applySettlement, completeSettlement, confirmSettlement, loadSettlement } from './service.ts';
import { bank, cur, type Decider, decider, entriesOf, expectBooks, merchantWithOwner } from './testkit.ts';

const errnoOf = (err: unknown) => (err instanceof AppError ? err.errno : err);

describe.runIf(engines.includes('postgres'))('settlements under concurrency on postgres', () => {
  let s: TestServer;
  let one: Decider;
  let two: Decider;
  beforeAll(async () => {
    s = await startTestServer('postgres');
    one = await decider(s);
    two = await decider(s);
  });
  afterEach(async () => {
    await expectBooks(s);
  });
  afterAll(() => s.close());

  it('50 applications against one wallet never overdraw it', async () => {
    // 10,000.00 available; each application holds 1,000.00 + 15.00: nine fit, never ten.
    const { m } = await merchantWithOwner(s, {}, { collection: 1_000_000 });
    const [merchant] = await s.db.select().from(merchants).where(eq(merchants.id, m.id));
    let negative = false;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const b = await merchantBalances(s.db, m.id, cur);
        if (b.collection_available < 0 || b.frozen < 0) negative = true;
      }
    })();
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, () =>
        inTransaction(s.db, (tx) =>
          applySettlement(s.deps, tx, merchant!, 'collection', { ...bank, amount: 100_000 }, m.id, 'en'),
        ).then(
          (row) => ({ ok: true as const, row }),
          (err: unknown) => ({ ok: false as const, errno: errnoOf(err) }),
        ),
      ),
    );
    watching = false;
    await watcher;
    const won = outcomes.filter((o) => o.ok);
    expect(outcomes.filter((o) => !o.ok).map((o) => (o.ok ? 0 : o.errno))).toEqual(
      Array(50 - won.length).fill(errno.insufficientBalance),
    );
    expect(won).toHaveLength(9);
    const held = won.length * 101_500;
    expect(held).toBeLessThanOrEqual(1_000_000);
    expect(negative).toBe(false);
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({
      collection_available: 1_000_000 - held,
      frozen: held,
    });
    const numbers = new Set(won.map((o) => (o.ok ? o.row.settlementNo : '')));
    expect(numbers.size).toBe(9);
  });

  it('20 completions of one settlement spend its hold once', async () => {
    const { m } = await merchantWithOwner(s, {}, { collection: 1_000_000 });
    const [merchant] = await s.db.select().from(merchants).where(eq(merchants.id, m.id));
    const applied = await inTransaction(s.db, (tx) =>
      applySettlement(s.deps, tx, merchant!, 'collection', { ...bank, amount: 500_000 }, m.id, 'en'),
    );
    await inTransaction(s.db, async (tx) =>
      confirmSettlement(
        s.deps,
        tx,
        await loadSettlement(tx, { id: applied.id }, {}, true),
        { auditAmount: 400_000 },
        one.id,
        'en',
      ),
    );
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        inTransaction(s.db, (tx) =>
          completeSettlement(s.deps, tx, applied.id, { reference: `UTR${1000 + i}` }, two.id),
        ).then(
          () => 0,
          (err: unknown) => errnoOf(err),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 0)).toHaveLength(1);
    expect(outcomes.filter((o) => o !== 0)).toEqual(Array(19).fill(errno.conflict));
    expect((await entriesOf(s, applied.id)).filter((e) => e.kind === 'settlement_paid')).toHaveLength(1);
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({
      collection_available: 1_000_000 - 400_000 - 5_500,
      frozen: 0,
    });
    const [row] = await s.db.select().from(settlements).where(eq(settlements.id, applied.id));
    expect(row).toMatchObject({ status: 'settled', completedBy: two.id, confirmedBy: one.id });
  });
});
