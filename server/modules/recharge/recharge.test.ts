import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { recharge as rechargeMachine } from '../../../contract/machines.ts';
import { journalEntries, operationLog, postings, recharges } from '../../db/schema.ts';
import { checkLedger } from '../../ledger/check.ts';
import { merchantBalances, rowsOf } from '../../ledger/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { sweep } from '../../test/sweep.ts';
import { codeAt } from '../auth/totp.ts';

const { merchantRechargeLog: recharge } = endpoints;
const cur = 'INR';

/**
 * A platform user allowed to decide recharges, with a bound Google key: `as(reason)` is the second
 * factor of its next decision (a fresh code: each is accepted once).
 */
async function deciderOn(s: TestServer) {
  const { token, secret, code } = await s.makeKeyHolder([
    recharge.confirm.permission,
    recharge.reject.permission,
  ]);
  return {
    token,
    secret,
    code,
    as: (reason = 'checked on the statement') => ({ code: code(), reason }),
  };
}

describe.each(engines)('recharges on %s', (engine) => {
  let s: TestServer;
  let root: string;
  /** Two deciders, so that a confirm and a reject can race, each with its own code. */
  let one: Awaited<ReturnType<typeof deciderOn>>;
  let two: Awaited<ReturnType<typeof deciderOn>>;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    one = await deciderOn(s);
    two = await deciderOn(s);
  });
  afterEach(async () => {
    expect((await checkLedger(s.db)).balanced).toBe(true);
  });
  afterAll(() => s.close());

  async function merchantWithOwner() {
    const m = await s.makeMerchant();
    return { m, token: await s.login(m.ownerUsername, m.ownerPassword) };
  }
  let refs = 0;
  /** A reference is the merchant's once: each submission gets its own unless told. */
  const submit = async (token: string, amount = '500.00', reference = `NEFT-${++refs}`) => {
    const res = await s.call(recharge.create, { amount, reference, note: 'top-up' }, token);
    expect(res.errno, res.errmsg).toBe(0);
    return res.data as { id: number; merchantId: number; status: string };
  };
  const entriesFor = (id: number) =>
    s.db
      .select()
      .from(journalEntries)
      .where(and(eq(journalEntries.refType, 'recharge'), eq(journalEntries.refId, String(id))));

  it('a merchant submits a pending recharge and lists only its own', async () => {
    const a = await merchantWithOwner();
    const b = await merchantWithOwner();
    const mine = await submit(a.token, '1234.50', 'NEFT-001');
    expect(mine).toMatchObject({
      merchantId: a.m.id,
      merchantCode: a.m.code,
      currency: 'INR',
      amount: '1234.50',
      status: 'pending',
      reference: 'NEFT-001',
      note: 'top-up',
      rejectReason: null,
      decidedAt: null,
    });
    const theirs = await submit(b.token);
    // Pending money is not money yet.
    expect((await merchantBalances(s.db, a.m.id, cur)).payout_available).toBe(0);

    const own = await s.call(recharge.list, {}, a.token);
    expect(own.data.list.map((r: { id: number }) => r.id)).toEqual([mine.id]);
    // Naming another merchant changes nothing for a merchant user.
    const sneaky = await s.call(recharge.list, { merchantId: b.m.id }, a.token);
    expect(sneaky.data.list.map((r: { id: number }) => r.id)).toEqual([mine.id]);

    const all = await s.call(recharge.list, { pageSize: 100 }, root);
    expect(all.data.list.map((r: { id: number }) => r.id)).toEqual(
      expect.arrayContaining([mine.id, theirs.id]),
    );
    const onlyB = await s.call(recharge.list, { merchantId: b.m.id, status: 'pending' }, root);
    expect(onlyB.data).toMatchObject({ total: 1, list: [expect.objectContaining({ id: theirs.id })] });
    expect((await s.call(recharge.create, { amount: '0', reference: 'x' }, a.token)).errno).toBe(
      errno.invalid,
    );
    expect((await s.call(recharge.create, { amount: '1.00', reference: '' }, a.token)).errno).toBe(
      errno.invalid,
    );
    expect((await s.call(recharge.create, { amount: '1.00', reference: 'x' }, root)).errno).toBe(
      errno.forbidden,
    );
    expect((await s.call(recharge.confirm, { id: mine.id }, a.token)).errno).toBe(errno.forbidden);
  });

  it('confirm credits the payout balance once; a second confirm or a reject is a conflict', async () => {
    const { m, token } = await merchantWithOwner();
    const r = await submit(token, '500.00');
    const ok = await s.call(recharge.confirm, { id: r.id, ...one.as() }, one.token);
    expect(ok.errno, ok.errmsg).toBe(0);
    expect(ok.data).toMatchObject({ id: r.id, status: 'confirmed', decidedAt: s.clock.now().toISOString() });
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({
      payout_available: 50_000,
      collection_available: 0,
    });

    const entries = await entriesFor(r.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.kind).toBe('recharge');
    const lines = await s.db.select().from(postings).where(eq(postings.entryId, entries[0]!.id));
    expect(lines.map((l) => l.amount).sort((x, y) => x - y)).toEqual([-50_000, 50_000]);

    for (const again of [
      () => s.call(recharge.confirm, { id: r.id, ...one.as() }, one.token),
      () => s.call(recharge.reject, { id: r.id, ...one.as('late') }, one.token),
    ]) {
      expect((await again()).errno).toBe(errno.conflict);
    }
    expect(await entriesFor(r.id)).toHaveLength(1);
    expect((await merchantBalances(s.db, m.id, cur)).payout_available).toBe(50_000);
    const [row] = await s.db.select().from(recharges).where(eq(recharges.id, r.id));
    expect(row).toMatchObject({ status: 'confirmed', rejectReason: null });
    expect((await s.call(recharge.confirm, { id: 999_999, ...one.as() }, one.token)).errno).toBe(
      errno.notFound,
    );
  });

  it('reject keeps the money out and is final', async () => {
    const { m, token } = await merchantWithOwner();
    const r = await submit(token, '75.00');
    expect((await s.call(recharge.reject, { id: r.id, ...one.as('') }, one.token)).errno).toBe(errno.invalid);
    const rej = await s.call(
      recharge.reject,
      { id: r.id, ...one.as('No such transfer on the statement') },
      one.token,
    );
    expect(rej.errno, rej.errmsg).toBe(0);
    expect(rej.data).toMatchObject({ status: 'rejected', rejectReason: 'No such transfer on the statement' });
    expect((await s.call(recharge.confirm, { id: r.id, ...one.as() }, one.token)).errno).toBe(errno.conflict);
    expect((await s.call(recharge.reject, { id: r.id, ...one.as('again') }, one.token)).errno).toBe(
      errno.conflict,
    );
    expect(await entriesFor(r.id)).toHaveLength(0);
    expect((await merchantBalances(s.db, m.id, cur)).payout_available).toBe(0);
    const [row] = await s.db.select().from(recharges).where(eq(recharges.id, r.id));
    expect(row!.rejectReason).toBe('No such transfer on the statement');
  });

  describe('every (state, decision) pair of the declaration', () => {
    const decide = (action: 'confirm' | 'reject', id: number) =>
      s.call(recharge[action], { id, ...one.as() }, one.token);
    for (const c of sweep(rechargeMachine)) {
      it(c.name, async () => {
        const { m, token } = await merchantWithOwner();
        const r = await submit(token, '20.00');
        // Brought into its state by the decision that leads there.
        const into = rechargeMachine.actionNames.find((a) => rechargeMachine.to(a) === c.state);
        if (into) expect((await decide(into, r.id)).errno).toBe(0);
        const [before] = await s.db.select().from(recharges).where(eq(recharges.id, r.id));
        expect(before!.status).toBe(c.state);
        const balances = await merchantBalances(s.db, m.id, cur);
        const entries = await entriesFor(r.id);
        const res = await decide(c.action, r.id);
        const [after] = await s.db.select().from(recharges).where(eq(recharges.id, r.id));
        if (c.allowed) {
          expect(res.errno, res.errmsg).toBe(0);
          expect(after!.status).toBe(c.after);
          // Only a confirmation credits the payout balance, in one entry.
          const credited = c.action === 'confirm' ? 2_000 : 0;
          expect((await entriesFor(r.id)).length - entries.length).toBe(credited ? 1 : 0);
          expect((await merchantBalances(s.db, m.id, cur)).payout_available).toBe(
            balances.payout_available + credited,
          );
        } else {
          expect(res.errno).toBe(errno.conflict);
          expect(after).toEqual(before);
          expect(await entriesFor(r.id)).toEqual(entries);
          expect(await merchantBalances(s.db, m.id, cur)).toEqual(balances);
        }
      });
    }
  });

  it('confirm racing reject: exactly one wins, 20 times over', async () => {
    const { m, token } = await merchantWithOwner();
    let credited = 0;
    for (let i = 0; i < 20; i++) {
      const r = await submit(token, '10.00', `RACE${i}`);
      const order = i % 2 === 0;
      const calls = [
        () => s.call(recharge.confirm, { id: r.id, ...one.as() }, one.token),
        () => s.call(recharge.reject, { id: r.id, ...two.as('race') }, two.token),
      ];
      const [confirm, reject] = await Promise.all(
        (order ? calls : [...calls].reverse()).map((f) => f()),
      ).then((res) => (order ? res : [...res].reverse()));
      const codes = [confirm!.errno, reject!.errno].sort((x, y) => x - y);
      expect(codes, `round ${i}`).toEqual([0, errno.conflict]);
      const [row] = await s.db.select().from(recharges).where(eq(recharges.id, r.id));
      const entries = await entriesFor(r.id);
      if (confirm!.errno === 0) {
        credited += 1_000;
        expect(row!.status).toBe('confirmed');
        expect(entries).toHaveLength(1);
      } else {
        expect(row!.status).toBe('rejected');
        expect(entries).toHaveLength(0);
      }
      expect((await merchantBalances(s.db, m.id, cur)).payout_available).toBe(credited);
    }
  });

  // PostgreSQL only: both decisions provably in flight at once, queued behind a row lock, 20 times.
  it.skipIf(engine !== 'postgres')(
    'confirm and reject both waiting on the row: exactly one wins',
    async () => {
      const { m, token } = await merchantWithOwner();
      const waiting = async () =>
        Number(
          rowsOf<{ n: string }>(
            await s.db.execute(
              sql`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
            ),
          )[0]!.n,
        );
      let credited = 0;
      for (let i = 0; i < 20; i++) {
        const r = await submit(token, '3.00', `LOCK${i}`);
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        let locked!: () => void;
        const held = new Promise<void>((resolve) => {
          locked = resolve;
        });
        const holder = s.db.transaction(async (tx) => {
          await tx.select().from(recharges).where(eq(recharges.id, r.id)).for('update');
          locked();
          await gate;
        });
        await held;
        const both = Promise.all([
          s.call(recharge.confirm, { id: r.id, ...one.as() }, one.token),
          s.call(recharge.reject, { id: r.id, ...two.as('race') }, two.token),
        ]);
        for (let tries = 0; (await waiting()) < 2; tries++) {
          expect(tries, 'both decisions should wait on the lock').toBeLessThan(500);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        release();
        await holder;
        const [confirm, reject] = await both;
        expect(
          [confirm.errno, reject.errno].sort((x, y) => x - y),
          `round ${i}`,
        ).toEqual([0, errno.conflict]);
        if (confirm.errno === 0) credited += 300;
        expect(await entriesFor(r.id)).toHaveLength(confirm.errno === 0 ? 1 : 0);
        expect((await merchantBalances(s.db, m.id, cur)).payout_available).toBe(credited);
      }
    },
  );

  it('ten concurrent confirms of one recharge, by ten users, credit it once', async () => {
    const { m, token } = await merchantWithOwner();
    const r = await submit(token, '42.00');
    const deciders = [];
    for (let i = 0; i < 10; i++) deciders.push(await deciderOn(s));
    // Codes of one time step: advancing the clock per decider would leave the first codes stale.
    s.clock.advance(30_000);
    const now = s.clock.now();
    const results = await Promise.all(
      deciders.map((d) =>
        s.call(recharge.confirm, { id: r.id, code: codeAt(d.secret, now), reason: 'seen' }, d.token),
      ),
    );
    expect(results.filter((x) => x.errno === 0)).toHaveLength(1);
    expect(results.filter((x) => x.errno === errno.conflict)).toHaveLength(9);
    expect(await entriesFor(r.id)).toHaveLength(1);
    expect((await merchantBalances(s.db, m.id, cur)).payout_available).toBe(4_200);
  });
});

describe.each(engines)('recharge decisions and references on %s', (engine) => {
  let s: TestServer;
  let decider: Awaited<ReturnType<typeof deciderOn>>;
  beforeAll(async () => {
    s = await startTestServer(engine);
    decider = await deciderOn(s);
  });
  afterEach(async () => {
    expect((await checkLedger(s.db)).balanced).toBe(true);
  });
  afterAll(() => s.close());

  async function merchantWithOwner() {
    const m = await s.makeMerchant();
    return { m, token: await s.login(m.ownerUsername, m.ownerPassword) };
  }
  const countOf = async (merchantId: number) =>
    (await s.db.select({ n: count() }).from(recharges).where(eq(recharges.merchantId, merchantId)))[0]!.n;
  const logOf = async (action: string, target: string) =>
    s.db
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.action, action), eq(operationLog.target, target)));

  it('confirm needs the acting user’s Google code and a reason, kept in the operation log', async () => {
    const { m, token } = await merchantWithOwner();
    const r = (await s.call(recharge.create, { amount: '20.00', reference: 'CODE-1' }, token)).data;
    const bare = await s.call(recharge.confirm, { id: r.id }, decider.token);
    expect(bare.errno).toBe(errno.invalid);
    expect(bare.data.fields.map((f: { path: string }) => f.path).sort()).toEqual(['code', 'reason']);
    const blank = await s.call(
      recharge.confirm,
      { id: r.id, code: decider.code(), reason: '   ' },
      decider.token,
    );
    expect(blank.errno).toBe(errno.invalid);
    const long = await s.call(
      recharge.confirm,
      { id: r.id, code: decider.code(), reason: 'x'.repeat(201) },
      decider.token,
    );
    expect(long.errno).toBe(errno.invalid);
    const wrong = await s.call(recharge.confirm, { id: r.id, code: '000000', reason: 'seen' }, decider.token);
    expect(wrong.errno).toBe(errno.badCode);
    const unbound = await s.makeUser({ perms: [recharge.confirm.permission] });
    expect(
      (await s.call(recharge.confirm, { id: r.id, code: '123456', reason: 'seen' }, unbound.token)).errno,
    ).toBe(errno.googleNotBound);
    expect((await merchantBalances(s.db, m.id, cur)).payout_available).toBe(0);

    const ok = await s.call(
      recharge.confirm,
      { id: r.id, code: decider.code(), reason: '  on the HDFC statement, line 42 ' },
      decider.token,
    );
    expect(ok.errno, ok.errmsg).toBe(0);
    expect((await merchantBalances(s.db, m.id, cur)).payout_available).toBe(2_000);
    const [logged] = (await logOf('merchantRechargeLog.confirm', `recharge:${r.id}`)).filter(
      (l) => l.outcome === 'ok',
    );
    expect(logged!.detail).toMatchObject({ reason: 'on the HDFC statement, line 42' });
  });

  it('reject needs the Google code too and keeps its reason, trimmed, on the recharge', async () => {
    const { token } = await merchantWithOwner();
    const r = (await s.call(recharge.create, { amount: '20.00', reference: 'CODE-2' }, token)).data;
    expect((await s.call(recharge.reject, { id: r.id, reason: 'no transfer' }, decider.token)).errno).toBe(
      errno.invalid,
    );
    const res = await s.call(
      recharge.reject,
      { id: r.id, code: decider.code(), reason: ' no such transfer ' },
      decider.token,
    );
    expect(res.errno, res.errmsg).toBe(0);
    expect(res.data).toMatchObject({ status: 'rejected', rejectReason: 'no such transfer' });
    const [logged] = (await logOf('merchantRechargeLog.reject', `recharge:${r.id}`)).filter(
      (l) => l.outcome === 'ok',
    );
    expect(logged!.detail).toMatchObject({ reason: 'no such transfer' });
  });

  it('a reference is the merchant’s once: stored trimmed and upper case, a repeat in any case refused', async () => {
    const a = await merchantWithOwner();
    const b = await merchantWithOwner();
    const first = await s.call(recharge.create, { amount: '10.00', reference: ' neft-hdfc-7731 ' }, a.token);
    expect(first.errno, first.errmsg).toBe(0);
    expect(first.data.reference).toBe('NEFT-HDFC-7731');
    for (const again of ['NEFT-HDFC-7731', 'Neft-Hdfc-7731', ' neft-hdfc-7731']) {
      const dup = await s.call(recharge.create, { amount: '99.00', reference: again }, a.token);
      expect(dup.errno, again).toBe(errno.referenceTaken);
    }
    expect(await countOf(a.m.id)).toBe(1);
    // Another merchant's transfer may carry the same words.
    expect(
      (await s.call(recharge.create, { amount: '10.00', reference: 'NEFT-HDFC-7731' }, b.token)).errno,
    ).toBe(0);
    // Confirmed, it stays taken; rejected, the merchant may report the transfer again.
    const ok = await s.call(
      recharge.confirm,
      { id: first.data.id, code: decider.code(), reason: 'seen' },
      decider.token,
    );
    expect(ok.errno, ok.errmsg).toBe(0);
    expect(
      (await s.call(recharge.create, { amount: '10.00', reference: 'neft-hdfc-7731' }, a.token)).errno,
    ).toBe(errno.referenceTaken);
    const other = (await s.call(recharge.create, { amount: '10.00', reference: 'RTGS-1' }, a.token)).data;
    expect(
      (await s.call(recharge.reject, { id: other.id, code: decider.code(), reason: 'typo' }, decider.token))
        .errno,
    ).toBe(0);
    expect((await s.call(recharge.create, { amount: '10.00', reference: 'rtgs-1' }, a.token)).errno).toBe(0);
  });

  it.skipIf(engine !== 'postgres')(
    'two parallel creates with one reference: exactly one wins, 10 times',
    async () => {
      const { m, token } = await merchantWithOwner();
      for (let i = 0; i < 10; i++) {
        const both = await Promise.all(
          ['imps-race-', 'IMPS-RACE-'].map((p) =>
            s.call(recharge.create, { amount: '5.00', reference: `${p}${i}` }, token),
          ),
        );
        expect(
          both.map((r) => r.errno).sort((x, y) => x - y),
          `round ${i}`,
        ).toEqual([0, errno.referenceTaken]);
        expect(await countOf(m.id)).toBe(i + 1);
      }
    },
  );
});
