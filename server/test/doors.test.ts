/**
 * Every door through which money moves on a person's word (contract/doors.ts; RELIABILITY.md P25), tried
 * the same way on both databases: without the Google code nothing moves; beyond the day's sums a second
 * person decides, and the requester never approves their own request; a sum split into calls under the
 * threshold finds the same limit as one call. docs/SECURITY.md's table of doors is read here too, so the
 * table, the declaration and the behaviour cannot drift apart. A new door without a trial here fails to
 * compile (`trials` is a total map of the declaration).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type DoorId,
  doorIds,
  type MoneyDoor,
  moneyDoors,
  type SettingDoor,
  type SettingDoorId,
  settingDoors,
} from '../../contract/doors.ts';
import type { Endpoint } from '../../contract/endpoint.ts';
import { approvalActions } from '../../contract/endpoints/approval.ts';
import { endpoints } from '../../contract/index.ts';
import { formatMinor } from '../../contract/money.ts';
import { inTransaction } from '../db/index.ts';
import {
  agents,
  approvals,
  decisionsAlone,
  payoutOrders,
  statementLines,
  telegramDeliveries,
  telegramGroups,
} from '../db/schema.ts';
import { agentAccount, platformAccount, post } from '../ledger/index.ts';
import { writeParameter } from '../lib/parameters.ts';
import { bareAccount } from '../modules/accountFreeze/testkit.ts';
import { pendingApproval } from '../modules/approval/service.ts';
import { forgetDayDecisions } from '../modules/approval/testkit.ts';
import { codeAt } from '../modules/auth/totp.ts';
import { createOrder, expectBalanced, merchantOn, simPay } from '../modules/payin/testkit.ts';
import { createPayout } from '../modules/payout/service.ts';
import { drainQueue, payoutBody, seedPayoutBalance, simulatorMerchant } from '../modules/payout/testkit.ts';
import { bankPayin, bankSetup } from '../modules/receiving/testkit.ts';
import { merchantWithOwner, bank as payee } from '../modules/settlement/testkit.ts';
import { engines, errno, startTestServer, type TestServer } from './harness.ts';

const refundPayee = { accountName: 'Asha Rao', accountNumber: '50100200300', ifsc: 'HDFC0001234' };

/** The threshold the trials run with: 1,000.00; each decision of a split is 600.00. */
const threshold = 100_000;
const part = 60_000;

type Holder = Awaited<ReturnType<TestServer['makeKeyHolder']>>;

/** A decision prepared at a door: `call(by, code)` runs it as `by`, with `code` (undefined: none given). */
type Call = (by: Holder, code: string | undefined) => ReturnType<TestServer['call']>;

interface Trial {
  /** Prepares one decision of `amount` minor units, made (where the door has a maker) by `maker`. */
  prepare(amount: number, maker: Holder): Promise<Call>;
}

/** A table of docs/SECURITY.md's doors section, the one whose first column is `first`: id → its cells. */
function securityTable(first: 'door' | 'setting'): Map<string, string[]> {
  const doc = readFileSync(new URL('../../docs/SECURITY.md', import.meta.url), 'utf8');
  const section = doc.split('## Doors that move money')[1]?.split('\n## ')[0] ?? '';
  const table = section.split('\n\n').find((block) => block.startsWith(`| ${first} |`)) ?? '';
  const rows = new Map<string, string[]>();
  for (const line of table.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const id = /^`([\w.]+)`$/.exec(cells[1] ?? '')?.[1];
    if (id) rows.set(id, cells.slice(2, -1));
  }
  return rows;
}

/** Who holds an endpoint among the built-in roles: its grants (the super administrator holds all). */
const holders = (list: readonly Endpoint[]) =>
  ['super admin', ...new Set(list.flatMap((e) => (e.grants?.platform as readonly string[]) ?? []))].join(
    ', ',
  );

describe('the doors table', () => {
  it('docs/SECURITY.md lists every door of contract/doors.ts with the controls it declares', () => {
    const table = securityTable('door');
    expect([...table.keys()].sort()).toEqual([...doorIds].sort());
    for (const id of doorIds) {
      const door = moneyDoors[id] as MoneyDoor;
      const [paths, who, moves, code, reason, second, daily] = table.get(id)!;
      expect(paths, id).toBe(door.endpoints.map((e) => `\`${e.method} ${e.path}\``).join(', '));
      expect(who, id).toBe(holders(door.endpoints));
      expect(moves, id).toBe(door.moves);
      expect(code, id).toBe(door.code ? 'yes' : 'no');
      expect(reason, id).toBe(door.reason);
      expect(second, id).toBe(door.secondPerson);
      expect(daily, id).toBe(door.dailySum ? 'yes' : 'no');
    }
  });

  it('lists every setting that lets money move by itself, and each loosening is an approval request', () => {
    const table = securityTable('setting');
    const ids = Object.keys(settingDoors) as SettingDoorId[];
    expect([...table.keys()].sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const door: SettingDoor = settingDoors[id];
      const [paths, who] = table.get(id)!;
      expect(paths, id).toBe(door.endpoints.map((e) => `\`${e.method} ${e.path}\``).join(', '));
      expect(who, id).toBe(holders(door.endpoints));
      expect(approvalActions, id).toContain(door.approval);
    }
  });
});

describe.each(engines)('every money door on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let one: Holder;
  let two: Holder;
  let trials: Record<DoorId, Trial>;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    one = await s.makeKeyHolder(['*']);
    two = await s.makeKeyHolder(['*']);
    await writeParameter(s.db, 'maker_checker_threshold', threshold);

    const payinMerchant = await merchantOn(s);
    const payoutMerchant = await simulatorMerchant(s, { payoutIpWhitelist: ['203.0.113.0/24'] });
    const refundMerchant = await merchantWithOwner(s, {}, { collection: 100_000_000 }).then((o) => o.m);
    await seedPayoutBalance(s, payoutMerchant.id, 100_000_000);
    const bank = await bankSetup(s);
    const manual = await s.call(
      endpoints.channel.create,
      {
        code: `mb${engine}`,
        name: 'HDFC current',
        adapter: 'manual_bank',
        minAmount: '1.00',
        maxAmount: '1000000.00',
      },
      root,
    );
    const slipMerchant = await merchantWithOwner(
      s,
      { channels: [{ channelId: manual.data.id, weight: 100 }] },
      { collection: 0, payout: 100_000_000 },
    );
    const owner = await merchantWithOwner(s, {}, { collection: 100_000_000, payout: 100_000_000 });
    const [agent] = await s.db
      .insert(agents)
      .values({ code: `AG${randomInt(1e6)}`, name: 'Agent', commissionPpm: 5_000 })
      .returning();
    await inTransaction(s.db, (tx) =>
      post(tx, {
        kind: 'commission',
        refType: 'test_commission',
        refId: randomUUID(),
        at: s.clock.now(),
        lines: [
          { account: agentAccount(agent!.id, 'INR'), amount: 10_000_000 },
          { account: platformAccount('balance_adjustment', 'INR'), amount: -10_000_000 },
        ],
      }),
    );
    const money = formatMinor;
    const reason = 'checked with the bank';
    /** A paid pay-in of the refund merchant and a case of `kind` on it, opened by `maker`: its id. */
    const openDispute = async (kind: 'chargeback' | 'complaint', amount: number, maker: Holder) => {
      const o = await createOrder(s, refundMerchant, { amount: money(amount) });
      expect((await simPay(s, root, o.orderNo, 'success')).errno).toBe(0);
      const deadline = new Date(s.clock.now().getTime() + 86_400_000).toISOString();
      const opened = await s.call(
        endpoints.dispute.open,
        { payinId: o.id, kind, amount: money(amount), deadline, reason, code: maker.code() },
        maker.token,
      );
      expect(opened.errno, opened.errmsg).toBe(0);
      return opened.data.id;
    };
    const apply = async (amount: number) => {
      const res = await s.call(
        endpoints.settlementPayment.create,
        { ...payee, amount: money(amount), code: owner.code() },
        owner.token,
      );
      expect(res.errno, res.errmsg).toBe(0);
      return res.data.id as number;
    };

    trials = {
      'payin.force': {
        async prepare(amount) {
          const o = await createOrder(s, payinMerchant, { amount: money(amount) });
          return (by, code) =>
            s.call(endpoints.merchantOrder.forceSupplement, { id: o.id, reason, code }, by.token);
        },
      },
      'statement.pay': {
        async prepare(amount) {
          const { order } = await bankPayin(s, bank.merchant, { amount: money(amount) });
          const utr = `4${String(randomInt(1e11)).padStart(11, '0')}`;
          const day = new Date(s.clock.now()).toLocaleDateString('en-CA', { timeZone: 'Asia/Kolkata' });
          const imported = await s.call(
            endpoints.statement.import,
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
              text: `Date,Narration,Credit\n${day},UPI/${utr}/payer,${money(amount)}\n`,
            },
            root,
          );
          expect(imported.errno, imported.errmsg).toBe(0);
          const [line] = await s.db.select().from(statementLines).where(eq(statementLines.utr, utr));
          // Proposed by amount (the payer named no UTR): posted as a proposal.
          expect(line!.candidatePayinId).toBe(order.id);
          return (by, code) =>
            s.call(endpoints.statement.accept, { lineIds: [line!.id], reason, code }, by.token).then((r) =>
              // Posting answers per line: beyond the sums, the line waits in an approval request.
              r.errno === 0 && r.data.approval
                ? { ...r, errno: errno.approvalRequested, data: { approvalId: r.data.approval.id } }
                : r,
            );
        },
      },
      'refund.create': {
        async prepare(amount) {
          const o = await createOrder(s, refundMerchant, { amount: money(amount) });
          expect((await simPay(s, root, o.orderNo, 'success')).errno).toBe(0);
          return (by, code) =>
            s.call(
              endpoints.refund.create,
              { payinId: o.id, amount: money(amount), reason, payee: refundPayee, code } as never,
              by.token,
            );
        },
      },
      'payout.markSuccess': {
        async prepare(amount) {
          const res = await s.gateway(
            payoutMerchant,
            'POST',
            '/gateway/v1/payout',
            payoutBody({ amount: money(amount) }),
          );
          expect(res.status, JSON.stringify(res.json)).toBe(201);
          await drainQueue(s);
          const [o] = await s.db
            .select()
            .from(payoutOrders)
            .where(eq(payoutOrders.orderNo, res.json.data.orderNo));
          return (by, code) =>
            s.call(endpoints.merchantPayout.markSuccess, { id: o!.id, reason, code }, by.token);
        },
      },
      'slip.withdrawPayout': {
        async prepare(amount, maker) {
          const made = await inTransaction(s.db, (tx) =>
            createPayout(
              s.deps,
              tx,
              slipMerchant.m,
              {
                amount,
                accountName: 'Asha Verma',
                accountNumber: '123456789012',
                ifsc: 'SBIN0001234',
                notifyUrl: 'http://127.0.0.1:9/hook',
              },
              { source: 'console', lang: 'en' },
            ),
          );
          await drainQueue(s);
          const slip = await s.call(
            endpoints.withdrawalSlip.create,
            {
              format: 'generic_csv',
              accountId: bank.accountId,
              payoutIds: [made.order.id],
              code: maker.code(),
            },
            maker.token,
          );
          expect(slip.errno, slip.errmsg).toBe(0);
          const lineId = slip.data.lines[0].id as number;
          return (by, code) =>
            s.call(
              endpoints.withdrawalSlip.withdraw,
              { id: slip.data.id, lines: [{ lineId, reference: `N${randomInt(1e9)}` }], code },
              by.token,
            );
        },
      },
      'settlement.confirm': {
        async prepare(amount) {
          const id = await apply(amount);
          return async (by, code) => {
            const r = await s.call(
              endpoints.settlementPayment.confirm,
              { id, auditAmount: money(amount), code },
              by.token,
            );
            // A confirmation beyond the sums answers the settlement, still to be confirmed, with its request.
            const asked = r.errno === 0 ? await pendingApproval(s.db, 'settlement', id) : undefined;
            return asked ? { ...r, errno: errno.approvalRequested, data: { approvalId: asked.id } } : r;
          };
        },
      },
      'settlement.complete': {
        async prepare(amount, maker) {
          const id = await apply(amount);
          const confirmed = await s.call(
            endpoints.settlementPayment.confirm,
            { id, auditAmount: money(amount), code: maker.code() },
            maker.token,
          );
          expect(confirmed.errno, confirmed.errmsg).toBe(0);
          return (by, code) =>
            s.call(
              endpoints.settlementPayment.complete,
              { id, reference: `UTR${randomInt(1e9)}`, code },
              by.token,
            );
        },
      },
      'recharge.confirm': {
        async prepare(amount) {
          const made = await s.call(
            endpoints.merchantRechargeLog.create,
            { amount: money(amount), reference: `RC${randomInt(1e9)}` },
            owner.token,
          );
          expect(made.errno, made.errmsg).toBe(0);
          return (by, code) =>
            s.call(endpoints.merchantRechargeLog.confirm, { id: made.data.id, reason, code }, by.token);
        },
      },
      'wallet.adjust': {
        async prepare(amount) {
          return (by, code) =>
            s.call(
              endpoints.balanceAdjustment.create,
              {
                merchantId: owner.m.id,
                wallet: 'payout_available',
                direction: 'credit',
                amount: money(amount),
                reason,
                code,
              },
              by.token,
            );
        },
      },
      'agentCommission.pay': {
        async prepare(amount) {
          return (by, code) =>
            s.call(
              endpoints.agentCommission.pay,
              {
                agentId: agent!.id,
                currency: 'INR',
                amount: money(amount),
                reference: `ref-${randomInt(1e9)}`,
                code,
              },
              by.token,
            );
        },
      },
      'accountFreeze.settle': {
        async prepare(amount, maker) {
          const accountId = await bareAccount(s, root);
          const recorded = await s.call(
            endpoints.accountFreeze.record,
            { accountId, amount: money(amount), reference: `CYBER${randomInt(1e9)}`, code: maker.code() },
            maker.token,
          );
          expect(recorded.errno, recorded.errmsg).toBe(0);
          return (by, code) =>
            s.call(
              endpoints.accountFreeze.settle,
              { id: recorded.data.id, released: money(amount), writtenOff: '0.00', reason, code },
              by.token,
            );
        },
      },
      'dispute.decide': {
        async prepare(amount, maker) {
          const id = await openDispute('chargeback', amount, maker);
          return (by, code) =>
            s.call(endpoints.dispute.decide, { id, outcome: 'won', reason, code }, by.token);
        },
      },
      'dispute.withdraw': {
        async prepare(amount, maker) {
          const id = await openDispute('complaint', amount, maker);
          return (by, code) => s.call(endpoints.dispute.withdraw, { id, reason, code }, by.token);
        },
      },
      'payout.markFailed': {
        async prepare(amount) {
          const res = await s.gateway(
            payoutMerchant,
            'POST',
            '/gateway/v1/payout',
            payoutBody({ amount: money(amount) }),
          );
          await drainQueue(s);
          const [o] = await s.db
            .select()
            .from(payoutOrders)
            .where(eq(payoutOrders.orderNo, res.json.data.orderNo));
          return (by, code) =>
            s.call(endpoints.merchantPayout.markFailed, { id: o!.id, reason, code }, by.token);
        },
      },
    };
  });
  beforeEach(async () => {
    await forgetDayDecisions(s);
    // Codes move the clock: sign in afresh before sessions idle out.
    root = await s.adminToken();
    for (const u of [one, two]) u.token = await s.login(u.username, u.password, u.code());
  });
  afterEach(() => expectBalanced(s));
  afterAll(() => s.close());

  it('tells the groups that asked when amounts just below the threshold repeat (one user, within a week)', async () => {
    const [group] = await s.db
      .insert(telegramGroups)
      .values({
        chatId: `-${randomInt(1e9)}`,
        name: 'Risk',
        alerts: {
          callbackGaveUp: false,
          payoutStuckMinutes: null,
          settlementApplied: false,
          nearThreshold: true,
          payoutBalanceFloor: null,
          channelSuccessFloorPct: null,
        },
      })
      .returning();
    const alerts = () =>
      s.db.select().from(telegramDeliveries).where(eq(telegramDeliveries.groupId, group!.id));
    const near = threshold - 500;
    // Once is nothing; the same user again a day later (each within the day's sums) is a pattern.
    expect((await (await trials['wallet.adjust'].prepare(near, one))(one, one.code())).errno).toBe(0);
    expect(await alerts()).toHaveLength(0);
    await forgetDayDecisions(s);
    expect((await (await trials['wallet.adjust'].prepare(near, one))(one, one.code())).errno).toBe(0);
    const sent = await alerts();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ alert: 'nearThreshold', status: 'pending' });
    expect(sent[0]!.text).toContain(one.username);
    expect(sent[0]!.text).toContain(formatMinor(near));
  });

  it.runIf(engine === 'postgres')(
    'concurrent adjustments and commission payments on one wallet by five users: the day’s sum holds',
    async () => {
      const users = [one, two];
      for (let i = users.length; i < 5; i++) users.push(await s.makeKeyHolder(['*']));
      for (const door of ['wallet.adjust', 'agentCommission.pay'] as const) {
        await forgetDayDecisions(s);
        const calls = await Promise.all(users.map((u) => trials[door].prepare(40_000, u)));
        // Every code of one time step: the calls run at once.
        s.clock.advance(30_000);
        const answers = await Promise.all(
          calls.map((call, i) => call(users[i]!, codeAt(users[i]!.secret, s.clock.now()))),
        );
        // 2 × 400.00 fit under 1,000.00; a third would not: it asks a second person (or waits behind the
        // request already asked for this wallet).
        expect(
          answers.filter((a) => a.errno === 0),
          door,
        ).toHaveLength(2);
        for (const a of answers.filter((x) => x.errno !== 0))
          expect([errno.approvalRequested, errno.approvalPending], door).toContain(a.errno);
        const [sum] = await s.db
          .select({ n: sql<number>`coalesce(sum(${decisionsAlone.amount}), 0)::int` })
          .from(decisionsAlone)
          .where(sql`${decisionsAlone.door} = ${door} and ${decisionsAlone.at} > now() - interval '1 day'`);
        expect(sum!.n).toBe(80_000);
        // The request asked for this wallet waits no more: the doors' own trials follow.
        await s.db.update(approvals).set({ status: 'cancelled' }).where(eq(approvals.status, 'pending'));
      }
    },
  );

  describe.each(doorIds)('%s', (id) => {
    const door = moneyDoors[id] as MoneyDoor;

    it('moves nothing without the acting user’s Google code', async () => {
      const call = await trials[id].prepare(part, one);
      const res = await call(one, undefined);
      expect(res.errno).toBe(errno.invalid);
      expect(res.data.fields.map((f: { path: string }) => f.path)).toContain('code');
    });

    it.runIf(door.secondPerson !== 'none')('is never decided by the same person twice', async () => {
      if (door.secondPerson === 'confirmer') {
        // Two people always: whoever confirmed never completes.
        const call = await trials[id].prepare(part, one);
        expect((await call(one, one.code())).errno).toBe(errno.sameUser);
        expect((await call(two, two.code())).errno).toBe(0);
        return;
      }
      // Beyond the threshold at once: the requester's own approval is refused.
      const call = await trials[id].prepare(threshold + 100, one);
      const asked = await call(one, one.code());
      if (door.secondPerson === 'anotherUser') {
        expect(asked.errno).toBe(errno.sameUser);
        expect((await call(two, two.code())).errno).toBe(0);
        return;
      }
      expect(asked.errno, asked.errmsg).toBe(errno.approvalRequested);
      const approvalId = asked.data.approvalId as number;
      const own = await s.call(endpoints.approval.approve, { id: approvalId, code: one.code() }, one.token);
      expect(own.errno).toBe(errno.sameUser);
      const other = await s.call(endpoints.approval.approve, { id: approvalId, code: two.code() }, two.token);
      expect(other.errno, other.errmsg).toBe(0);
    });

    it.runIf(door.dailySum)(
      'finds the same limit when a sum is split into calls under the threshold',
      async () => {
        const first = await trials[id].prepare(part, one);
        const second = await trials[id].prepare(part, one);
        expect((await first(one, one.code())).errno).toBe(0);
        const split = await second(one, one.code());
        expect(split.errno).toBe(door.secondPerson === 'approval' ? errno.approvalRequested : errno.sameUser);
      },
    );
  });
});
