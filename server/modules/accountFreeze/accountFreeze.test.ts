/**
 * Frozen receiving accounts (docs/MONEY-BACK.md section 3) on both databases: the attribution newest first
 * across merchants with the last order cut, holds with their shortfall, the account out of routing at
 * once, the settlement split exactly by line, the books balanced and every hold resolved once, every
 * (state, action) pair of the `accountFreeze` machine, and who may call what.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { accountFreeze as freezeMachine } from '../../../contract/machines.ts';
import { inTransaction } from '../../db/index.ts';
import {
  accountFreezeLines,
  accountFreezes,
  journalEntries,
  ledgerAccounts,
  payinOrders,
  postings,
  receivingAccounts,
} from '../../db/schema.ts';
import { merchantAccount, merchantBalances, platformAccount, post } from '../../ledger/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { sweep } from '../../test/sweep.ts';
import { expectLedgerBalanced, payinBody } from '../payin/testkit.ts';
import { freezeLineRefType } from './service.ts';
import { bareAccount, type FreezeUser, freezeSetup, freezeUser, paidInto, recordAs } from './testkit.ts';

const { accountFreeze } = endpoints;
const cur = 'INR';

type Line = { merchantId: number; amount: string; orderCount: number; held: string; unheld: string };

describe.each(engines)('frozen accounts on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let one: FreezeUser;
  let two: FreezeUser;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    one = await freezeUser(s);
    two = await freezeUser(s);
  });
  afterEach(() => expectLedgerBalanced(s));
  afterAll(() => s.close());

  const settleAs = (by: FreezeUser, id: number, released: string, writtenOff: string) =>
    s.call(
      accountFreeze.settle,
      { id, released, writtenOff, reason: 'bank letter of release', code: by.code() },
      by.token,
    );
  const entriesOf = (lineIds: number[]) =>
    s.db
      .select({ refId: journalEntries.refId, kind: journalEntries.kind, id: journalEntries.id })
      .from(journalEntries)
      .where(
        and(
          eq(journalEntries.refType, freezeLineRefType),
          inArray(
            journalEntries.refId,
            lineIds.map((id) => String(id)),
          ),
        ),
      );
  const frozenOf = async (merchantId: number) => (await merchantBalances(s.db, merchantId, cur)).frozen;

  /** Two merchants' orders oldest first: A 100, B 200, A 300, B 50. */
  async function twoMerchants() {
    const setup = await freezeSetup(s);
    const [a, b] = setup.merchants as [(typeof setup.merchants)[0], (typeof setup.merchants)[0]];
    const orders = [
      await paidInto(s, a, '100.00'),
      await paidInto(s, b, '200.00'),
      await paidInto(s, a, '300.00'),
      await paidInto(s, b, '50.00'),
    ];
    return { ...setup, a, b, orders };
  }

  it('attributes newest first across two merchants, the last order cut, and holds each share', async () => {
    const { accountId, a, b, orders } = await twoMerchants();
    const res = await recordAs(s, one, accountId, '500.00');
    expect(res.errno, res.errmsg).toBe(0);
    // Newest first: B 50, A 300, then B's 200 cut to 150; A's 100 is older than the window.
    expect(res.data).toMatchObject({
      status: 'frozen',
      amount: '500.00',
      unattributed: '0.00',
      held: '500.00',
      unheld: '0.00',
      merchants: 2,
      recordedBy: one.username,
    });
    const lines = res.data.lines as Line[];
    expect(lines).toEqual([
      expect.objectContaining({ merchantId: a.id, amount: '300.00', orderCount: 1, held: '300.00' }),
      expect.objectContaining({ merchantId: b.id, amount: '200.00', orderCount: 2, held: '200.00' }),
    ]);
    const stored = await s.db
      .select()
      .from(accountFreezeLines)
      .where(eq(accountFreezeLines.freezeId, res.data.id));
    expect(stored.find((l) => l.merchantId === b.id)!.orderIds).toEqual([orders[3]!.id, orders[1]!.id]);
    expect(stored.find((l) => l.merchantId === a.id)!.orderIds).toEqual([orders[2]!.id]);
    // Held from collection: A keeps 100.00 of its 400.00, B 50.00 of its 250.00.
    expect(await merchantBalances(s.db, a.id, cur)).toMatchObject({
      collection_available: 10_000,
      frozen: 30_000,
    });
    expect(await merchantBalances(s.db, b.id, cur)).toMatchObject({
      collection_available: 5_000,
      frozen: 20_000,
    });
    const entries = await entriesOf(stored.map((l) => l.id));
    expect(entries.map((e) => e.kind)).toEqual(['freeze_hold', 'freeze_hold']);

    // Out of routing at once, and made active again only after settling.
    const [account] = await s.db.select().from(receivingAccounts).where(eq(receivingAccounts.id, accountId));
    expect(account!.status).toBe('frozen');
    const next = await s.gateway(a, 'POST', '/gateway/v1/payin', payinBody({ amount: '10.00' }));
    const [routed] = await s.db
      .select({ n: sql<number>`count(*)::int` })
      .from(payinOrders)
      .where(and(eq(payinOrders.receivingAccountId, accountId), eq(payinOrders.status, 'pending')));
    expect(routed!.n, JSON.stringify(next.json)).toBe(0);
    const active = await s.call(endpoints.receivingAccount.status, { id: accountId, status: 'active' }, root);
    expect(active.errno).toBe(errno.conflict);
    // One open freeze per account.
    expect((await recordAs(s, one, accountId, '1.00')).errno).toBe(errno.conflict);

    const settled = await settleAs(two, res.data.id, '500.00', '0.00');
    expect(settled.errno, settled.errmsg).toBe(0);
    expect(await merchantBalances(s.db, a.id, cur)).toMatchObject({
      collection_available: 40_000,
      frozen: 0,
    });
    expect(await merchantBalances(s.db, b.id, cur)).toMatchObject({
      collection_available: 25_000,
      frozen: 0,
    });
    const back = await s.call(endpoints.receivingAccount.status, { id: accountId, status: 'active' }, root);
    expect(back.errno, back.errmsg).toBe(0);
  });

  it('holds what the wallets have, in the common order, and records the shortfall and the platform’s part', async () => {
    const { accountId, merchants } = await freezeSetup(s, 1);
    const m = merchants[0]!;
    await paidInto(s, m, '200.00');
    // 150.00 of its collection spent elsewhere; 30.00 on its payout wallet.
    await inTransaction(s.db, (tx) =>
      post(tx, {
        kind: 'test_spend',
        refType: 'test_spend',
        refId: randomUUID(),
        at: s.clock.now(),
        lines: [
          { account: merchantAccount(m.id, 'collection_available', cur), amount: -15_000 },
          { account: merchantAccount(m.id, 'payout_available', cur), amount: 3_000 },
          { account: platformAccount('channel_clearing', cur), amount: 12_000 },
        ],
      }),
    );
    const res = await recordAs(s, one, accountId, '1000.00');
    expect(res.errno, res.errmsg).toBe(0);
    expect(res.data).toMatchObject({ unattributed: '800.00', held: '80.00', unheld: '120.00' });
    expect(res.data.lines).toEqual([
      expect.objectContaining({
        merchantId: m.id,
        amount: '200.00',
        heldCollectionAvailable: '50.00',
        heldPayoutAvailable: '30.00',
        held: '80.00',
        unheld: '120.00',
      }),
    ]);
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({
      collection_available: 0,
      payout_available: 0,
      frozen: 8_000,
    });
    // Written off in full: the hold is spent, the unheld part and the platform's are not the merchant's.
    const settled = await settleAs(two, res.data.id, '0.00', '1000.00');
    expect(settled.errno, settled.errmsg).toBe(0);
    expect(settled.data.lines[0]).toMatchObject({ released: '0.00', writtenOff: '200.00' });
    expect(await merchantBalances(s.db, m.id, cur)).toMatchObject({ frozen: 0, payout_available: 0 });
  });

  it('settles released and written-off shares in exact proportion, each hold resolved once', async () => {
    const { accountId, a, b } = await twoMerchants();
    const rec = await recordAs(s, one, accountId, '500.00');
    expect(rec.errno, rec.errmsg).toBe(0);
    const id = rec.data.id as number;
    // The recorder never settles; the outcome must add up; the code is asked.
    expect((await settleAs(one, id, '399.99', '100.01')).errno).toBe(errno.sameUser);
    const short = await settleAs(two, id, '300.00', '100.00');
    expect(short.errno).toBe(errno.invalid);
    expect(short.data.fields[0].path).toBe('writtenOff');

    const clearing = async () =>
      (
        await s.db
          // Its shards taken together.
          .select({ balance: sql<number>`coalesce(sum(${ledgerAccounts.balance}), 0)`.mapWith(Number) })
          .from(ledgerAccounts)
          .where(
            and(
              eq(ledgerAccounts.ownerType, 'platform'),
              eq(ledgerAccounts.kind, 'channel_clearing'),
              eq(ledgerAccounts.currency, cur),
            ),
          )
      )[0]!.balance;
    const before = await clearing();
    const res = await settleAs(two, id, '399.99', '100.01');
    expect(res.errno, res.errmsg).toBe(0);
    // 100.01 over 300 : 200 is 60.006 : 40.004; the odd paisa goes to the larger remainder (A).
    expect(res.data).toMatchObject({ status: 'settled', released: '399.99', writtenOff: '100.01' });
    expect(res.data.lines).toEqual([
      expect.objectContaining({ merchantId: a.id, released: '239.99', writtenOff: '60.01' }),
      expect.objectContaining({ merchantId: b.id, released: '160.00', writtenOff: '40.00' }),
    ]);
    expect(await merchantBalances(s.db, a.id, cur)).toMatchObject({
      collection_available: 33_999,
      frozen: 0,
    });
    expect(await merchantBalances(s.db, b.id, cur)).toMatchObject({
      collection_available: 21_000,
      frozen: 0,
    });
    expect((await clearing()) - before).toBe(10_001);

    // Once: a second settlement is refused and moves nothing.
    expect((await settleAs(two, id, '500.00', '0.00')).errno).toBe(errno.conflict);
    const lines = await s.db.select().from(accountFreezeLines).where(eq(accountFreezeLines.freezeId, id));
    const entries = await entriesOf(lines.map((l) => l.id));
    for (const l of lines) {
      const kinds = entries.filter((e) => e.refId === String(l.id)).map((e) => e.kind);
      expect(kinds.sort()).toEqual(['freeze_hold', 'freeze_release', 'freeze_written_off']);
    }
  });

  it('a written-off freeze leaves the trial balance at zero and every hold resolved', async () => {
    const { accountId, a, b } = await twoMerchants();
    const rec = await recordAs(s, one, accountId, '650.00');
    expect(rec.data).toMatchObject({ held: '650.00', unattributed: '0.00' });
    // The day's reconciliation of the account shows what the bank holds; the D0 summary the hold.
    const day = s.clock.now().toLocaleDateString('en-CA', { timeZone: 'Asia/Kolkata' });
    const reconciled = async () => {
      const r = await s.call(
        endpoints.statOrder.balance,
        { view: 'account', from: day, to: day, accountId },
        root,
      );
      expect(r.errno, r.errmsg).toBe(0);
      return r.data.list[0].frozen;
    };
    const d0 = async () => {
      const r = await s.call(
        endpoints.statOrder.balance,
        { view: 'd0', from: day, to: day, merchantId: a.id },
        root,
      );
      expect(r.errno, r.errmsg).toBe(0);
      return r.data.list[0];
    };
    expect(await reconciled()).toBe('650.00');
    expect(await d0()).toMatchObject({ frozen: '400.00', writtenOff: '0.00', mismatch: false });
    const res = await settleAs(two, rec.data.id, '0.00', '650.00');
    expect(res.errno, res.errmsg).toBe(0);
    expect(await reconciled()).toBe('0.00');
    expect(await d0()).toMatchObject({ frozen: '400.00', writtenOff: '400.00', mismatch: false });
    expect(await frozenOf(a.id)).toBe(0);
    expect(await frozenOf(b.id)).toBe(0);
    // Each line: what the hold froze is what its write-off spent.
    const lines = await s.db
      .select()
      .from(accountFreezeLines)
      .where(eq(accountFreezeLines.freezeId, rec.data.id));
    for (const l of lines) {
      const moved = await s.db
        .select({ kind: journalEntries.kind, amount: postings.amount })
        .from(postings)
        .innerJoin(journalEntries, eq(journalEntries.id, postings.entryId))
        .where(
          and(
            eq(journalEntries.refType, freezeLineRefType),
            eq(journalEntries.refId, String(l.id)),
            sql`${postings.accountId} = (select id from ledger_accounts where owner_type = 'merchant' and owner_id = ${l.merchantId} and kind = 'frozen' and currency = ${cur})`,
          ),
        );
      expect(moved.reduce((n, p) => n + p.amount, 0)).toBe(0);
      expect(moved.map((p) => p.kind).sort()).toEqual(['freeze_hold', 'freeze_written_off']);
    }
    const trial = await s.call(endpoints.ledger.trialBalance, {}, root);
    expect(trial.errno, trial.errmsg).toBe(0);
  });

  it.runIf(engine === 'postgres')('two settlements racing: exactly one wins', async () => {
    const { accountId } = await twoMerchants();
    const rec = await recordAs(s, one, accountId, '300.00');
    const three = await freezeUser(s);
    const answers = await Promise.all([
      settleAs(two, rec.data.id, '300.00', '0.00'),
      settleAs(three, rec.data.id, '0.00', '300.00'),
    ]);
    expect(answers.map((r) => r.errno).sort((x, y) => x - y)).toEqual([0, errno.conflict]);
  });

  describe('every (state, action) pair of the declaration', () => {
    for (const c of sweep(freezeMachine)) {
      it(c.name, async () => {
        const { accountId, merchants } = await freezeSetup(s, 1);
        await paidInto(s, merchants[0]!, '90.00');
        const rec = await recordAs(s, one, accountId, '60.00');
        expect(rec.errno, rec.errmsg).toBe(0);
        const id = rec.data.id as number;
        if (c.state === 'settled') expect((await settleAs(two, id, '60.00', '0.00')).errno).toBe(0);
        const [before] = await s.db.select().from(accountFreezes).where(eq(accountFreezes.id, id));
        expect(before!.status).toBe(c.state);
        const frozen = await frozenOf(merchants[0]!.id);
        const res = await settleAs(two, id, '20.00', '40.00');
        const [after] = await s.db.select().from(accountFreezes).where(eq(accountFreezes.id, id));
        if (c.allowed) {
          expect(res.errno, res.errmsg).toBe(0);
          expect(after!.status).toBe(c.after);
          expect(await frozenOf(merchants[0]!.id)).toBe(frozen - 6_000);
        } else {
          expect(res.errno).toBe(errno.conflict);
          expect(after).toEqual(before);
          expect(await frozenOf(merchants[0]!.id)).toBe(frozen);
        }
      });
    }
  });

  it('is the platform’s: merchant users and users without the permission are refused', async () => {
    const id = await bareAccount(s, root);
    const rec = await recordAs(s, one, id, '10.00');
    expect(rec.errno, rec.errmsg).toBe(0);
    expect(rec.data).toMatchObject({ unattributed: '10.00', merchants: 0, lines: [] });
    const m = await s.makeMerchant();
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    const calls = [
      [accountFreeze.list, {}],
      [accountFreeze.info, { id: rec.data.id }],
      [accountFreeze.record, { accountId: id, amount: '1.00', reference: 'X', code: '123456' }],
      [
        accountFreeze.settle,
        { id: rec.data.id, released: '10.00', writtenOff: '0', reason: 'x', code: '123456' },
      ],
    ] as const;
    const reader = await s.makeUser({ perms: [accountFreeze.list.permission] });
    for (const [ep, input] of calls) {
      expect((await s.call(ep, input, owner)).errno, ep.path).toBe(errno.forbidden);
      if (ep !== accountFreeze.list)
        expect((await s.call(ep, input, reader.token)).errno).toBe(errno.forbidden);
    }
    const listed = await s.call(accountFreeze.list, { accountId: id }, reader.token);
    expect(listed.data.list.map((r: { id: number }) => r.id)).toEqual([rec.data.id]);
    expect((await s.call(accountFreeze.info, { id: 99_999_999 }, root)).errno).toBe(errno.notFound);
    // A freeze dated in the future is refused; the Google code is asked.
    const other = await bareAccount(s, root);
    const later = new Date(s.clock.now().getTime() + 3_600_000).toISOString();
    expect((await recordAs(s, one, other, '5.00', { frozenAt: later })).errno).toBe(errno.invalid);
    expect((await recordAs(s, one, other, '5.00', { code: '000000' })).errno).not.toBe(0);
  });
});
