import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../contract/index.ts';
import { settlement } from '../contract/machines.ts';
import { bootstrap, type FirstStart } from './bootstrap.ts';
import { demoEnabled } from './config.ts';
import { demoCallbackUrls, demoFinanceUser, demoMerchantSpecs, mountDemoSink, seedDemo } from './demo.ts';
import { createApp } from './http/app.ts';
import { checkLedger } from './ledger/check.ts';
import { checkMerchantDebt, rowsOf } from './ledger/index.ts';
import { checkOrderStats } from './modules/dashboard/stats.ts';
import { checkDisputeHolds } from './modules/dispute/service.ts';
import { checkPayoutInvariants } from './modules/payout/invariants.ts';
import { checkSettlementHolds } from './modules/settlement/invariants.ts';
import { checkReserveLines } from './modules/settlement/reserve.ts';
import { checkTnLines } from './modules/settlement/tn.ts';
import { gatewayRoutes, routes } from './routes.ts';
import { engines, startTestServer, type TestServer } from './test/harness.ts';
import { timeBound } from './test/timeBound.ts';

/**
 * The seed's time on a 2-core machine: alone 8–11 s on PGlite and 6–8 s on PostgreSQL; inside the whole
 * suite (two workers) 20 s and 6 s. The bound leaves room for a slower machine.
 */
const seedBoundMs = 60_000;
const day = 24 * 60 * 60_000;

describe('demo switches and callback sink', () => {
  it('is on by default on the embedded database only, and DEMO decides otherwise', () => {
    expect(demoEnabled({ demo: undefined }, 'pglite')).toBe(true);
    expect(demoEnabled({ demo: undefined }, 'postgres')).toBe(false);
    expect(demoEnabled({ demo: true }, 'postgres')).toBe(true);
    expect(demoEnabled({ demo: false }, 'pglite')).toBe(false);
  });

  it('points callbacks at this server, reachable also when it listens on every address', () => {
    expect(demoCallbackUrls({ host: '127.0.0.1', port: 8080 })).toEqual({
      ok: 'http://127.0.0.1:8080/demo/callback',
      down: 'http://127.0.0.1:8080/demo/callback/down',
    });
    expect(demoCallbackUrls({ host: '0.0.0.0', port: 9000 }).ok).toBe('http://127.0.0.1:9000/demo/callback');
    expect(demoCallbackUrls({ host: '::1', port: 9000 }).ok).toBe('http://[::1]:9000/demo/callback');
  });
});

/**
 * 02:50 business time (IST) of the day: after the 00:30 T+N run has released yesterday's money and before
 * the night's first ordinary payment.
 */
function nightOf(d: Date): Date {
  const istMidnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - 330 * 60_000;
  return new Date(istMidnight + 170 * 60_000);
}

/**
 * One seed per engine, read by every test (the few that write leave what the others check intact). The
 * embedded database's is seeded in the night, where the T+1 merchant's pending balance once came out
 * empty; PostgreSQL's at the hour the suite runs, so the two together still see the day and the night.
 */
describe.each(engines)('demo workspace on %s', (engine) => {
  const seededAtNight = engine === 'pglite';
  let s: TestServer;
  let first: FirstStart;
  let seedMs: number;
  let now: number;
  const q = async <T = Record<string, unknown>>(query: ReturnType<typeof sql>) =>
    rowsOf<T>(await s.db.execute(query));
  const n = async (query: ReturnType<typeof sql>) => Number((await q<{ n: string }>(query))[0]!.n);

  beforeAll(async () => {
    s = await startTestServer(engine);
    if (seededAtNight) s.clock.set(nightOf(s.clock.now()));
    now = s.clock.now().getTime();
    // The first start with the demo on, as main.ts runs it (the harness's own start had it off).
    const started = performance.now();
    first = await bootstrap({ ...s.deps, config: { ...s.deps.config, demo: true } });
    seedMs = performance.now() - started;
  }, 180_000);
  afterAll(() => s?.close());

  it('seeds within the time bound and answers the credentials to print', () => {
    expect(seedMs).toBeLessThan(timeBound(seedBoundMs));
    expect(first.demo).toEqual(
      demoMerchantSpecs.map((m) =>
        expect.objectContaining({ merchant: m.code, username: m.owner.username, password: m.owner.password }),
      ),
    );
    expect(first.demo![0]).toMatchObject({ merchant: 'M10001', username: 'demo', password: 'Demo12345' });
    expect(first.lostCallbacks!.length).toBeGreaterThanOrEqual(3);
  });

  it('keeps the books: ledger balanced, payout holds whole', async () => {
    expect(await checkLedger(s.db)).toMatchObject({
      balanced: true,
      unbalancedEntries: [],
      brokenChains: [],
      accountMismatches: [],
    });
    expect(await checkPayoutInvariants(s.db)).toMatchObject({ ok: true });
    // The T+1 merchant's pending balance is its pending settlement lines, bulk-written ones included.
    expect(await checkTnLines(s.db)).toEqual({ ok: true, mismatches: [] });
    expect(await n(sql`select count(*)::int as n from tn_lines`)).toBeGreaterThan(0);
    // The T+1 merchant's 10 % reserve for 7 days: the last week's lines held, the older ones released.
    expect(await checkReserveLines(s.db)).toEqual({ ok: true, mismatches: [] });
    expect(await checkMerchantDebt(s.db)).toEqual({ ok: true, mismatches: [] });
    const reserve = await q<{ status: string; n: number }>(sql`
      select l.status, count(*)::int as n from reserve_lines l join merchants m on m.id = l.merchant_id
      where m.code = 'M10002' group by 1 order by 1`);
    expect(reserve.map((r) => r.status)).toEqual(['held', 'released']);
    // The dashboard's order stats were made from the bulk-written orders, and hold figures.
    expect(await checkOrderStats(s.db)).toEqual({ ok: true, mismatches: [] });
    const [stats] = await q<{ n: number }>(sql`select count(*)::int as n from order_stats_daily`);
    expect(Number(stats!.n)).toBeGreaterThan(30);
  });

  // CI started at 02:22 IST once and found the T+1 merchant's pending balance empty.
  it.runIf(seededAtNight)(
    'leaves money in the T+1 merchant pending balance at 02:50 business time',
    async () => {
      const [row] = await q<{ n: string }>(sql`select a.balance as n from ledger_accounts a
      join merchants m on m.id = a.owner_id
      where a.owner_type = 'merchant' and m.code = 'M10002' and a.kind = 'collection_pending'`);
      expect(Number(row!.n)).toBeGreaterThan(0);
      expect(await checkTnLines(s.db)).toEqual({ ok: true, mismatches: [] });
    },
  );

  it('has the agent and three merchants whose owners sign in', async () => {
    const ms = await q<{ code: string; settlement_days: number; agent: string | null; callback_url: string }>(
      sql`select m.code, m.settlement_days, a.code as agent, m.callback_url from merchants m
          left join agents a on a.id = m.agent_id order by m.code`,
    );
    const urls = demoCallbackUrls(s.deps.config);
    expect(ms).toEqual([
      { code: 'M10001', settlement_days: 0, agent: null, callback_url: urls.ok },
      { code: 'M10002', settlement_days: 1, agent: null, callback_url: urls.ok },
      { code: 'M10003', settlement_days: 0, agent: 'A10001', callback_url: urls.down },
    ]);
    for (const m of demoMerchantSpecs) expect(await s.login(m.owner.username, m.owner.password)).toBeTruthy();
    // The agent earned its commission; the T+1 merchant's money waits in its pending balance.
    expect(
      await n(sql`select balance as n from ledger_accounts where kind = 'agent_commission_payable'`),
    ).toBeGreaterThan(0);
    expect(
      await n(sql`select a.balance as n from ledger_accounts a join merchants m on m.id = a.owner_id
                  where a.owner_type = 'merchant' and m.code = 'M10002' and a.kind = 'collection_pending'`),
    ).toBeGreaterThan(0);
  });

  it('takes money out: settlements in every state, T+N released by daily runs, a slip withdrawn and one waiting', async () => {
    const byStatus = Object.fromEntries(
      (
        await q<{ status: string; n: number }>(
          sql`select status, count(*)::int as n from settlements group by 1`,
        )
      ).map((r) => [r.status, Number(r.n)]),
    );
    for (const status of settlement.states) expect(byStatus[status], status).toBeGreaterThan(0);
    // One confirmation waits for a second person; what was settled was completed by another user.
    expect(await n(sql`select count(*)::int as n from approvals where status = 'pending'`)).toBe(1);
    expect(
      await n(
        sql`select count(*)::int as n from settlements where status = 'settled' and completed_by = confirmed_by`,
      ),
    ).toBe(0);
    expect(await checkSettlementHolds(s.db)).toEqual([]);
    // A run each day: the T+1 merchant's pending holds only what is not yet due.
    expect(await n(sql`select count(*)::int as n from tn_runs where started_by is null`)).toBeGreaterThan(25);
    expect(await n(sql`select count(*)::int as n from tn_lines where status = 'released'`)).toBeGreaterThan(
      25,
    );
    const [today] = await q<{ day: string }>(sql`select max(day)::text as day from tn_runs`);
    expect(
      await n(
        sql`select count(*)::int as n from tn_lines where status = 'pending' and due_day <= ${today!.day}::date`,
      ),
    ).toBe(0);
    expect(
      Object.fromEntries(
        (
          await q<{ status: string; n: number }>(
            sql`select status, count(*)::int as n from withdrawal_slips group by 1`,
          )
        ).map((r) => [r.status, Number(r.n)]),
      ),
    ).toEqual({ withdrawn: 1, to_be_withdrawn: 1 });
    // The finance user signs in: maker–checker has its second person.
    expect(await s.login(demoFinanceUser.username, demoFinanceUser.password)).toBeTruthy();
    expect(first.demoPlatform).toContainEqual(
      expect.objectContaining({ username: demoFinanceUser.username }),
    );
  });

  it('collects into a public account and three donor cards, and its statement leaves work in the queue', async () => {
    expect(await n(sql`select count(*)::int as n from receiving_accounts where kind = 'card'`)).toBe(3);
    // The ICICI collection account, and the HDFC account the slips are paid from.
    expect(await n(sql`select count(*)::int as n from receiving_accounts where kind = 'public'`)).toBe(2);
    const lines = await q<{ status: string; kind: string | null; n: number }>(
      sql`select status, exception_kind as kind, count(*)::int as n from statement_lines group by 1, 2`,
    );
    const count = (status: string, kind: string | null = null) =>
      Number(lines.find((l) => l.status === status && l.kind === kind)?.n ?? 0);
    expect(count('matched')).toBe(6);
    expect(count('proposed')).toBe(1);
    expect(count('dismissed')).toBe(1);
    for (const kind of ['amount_mismatch', 'ambiguous', 'unmatched'])
      expect(count('exception', kind), kind).toBe(1);
    // The operator imported it (evidence); finance posted what it paid (the money decision).
    const [imp] = await q<{ importer: string; poster: string }>(
      sql`select u.username as importer, r.username as poster from statement_imports i
        join users u on u.id = i.created_by
        join statement_lines l on l.import_id = i.id and l.status = 'matched' and l.payin_id is not null
        join users r on r.id = l.resolved_by limit 1`,
    );
    expect(imp).toEqual({ importer: 'arjun', poster: 'priya' });
    // Each matched credit paid its order once, proved by the statement.
    expect(
      await n(sql`select count(*)::int as n from payin_orders o join statement_lines l on l.payin_id = o.id
        where o.status = 'paid' and o.paid_by = 'statement' and o.paid_amount = l.amount`),
    ).toBe(6);
    // Two of today's bank orders are open: their pay page shows the account.
    expect(
      await n(
        sql`select count(*)::int as n from payin_orders where status = 'pending' and receiving_account_id is not null`,
      ),
    ).toBe(2);
  });

  it('has a few thousand pay-ins in every state, spread over 30 days like a business', async () => {
    const byStatus = Object.fromEntries(
      (
        await q<{ status: string; n: string }>(
          sql`select status, count(*) as n from payin_orders group by status`,
        )
      ).map((r) => [r.status, Number(r.n)]),
    );
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(2_500);
    expect(total).toBeLessThan(5_000);
    for (const status of ['paid', 'unpaid', 'failed', 'pending', 'creation_failed'])
      expect(byStatus[status], status).toBeGreaterThan(0);
    expect(byStatus.paid! / total).toBeGreaterThan(0.7);
    const paidBy = Object.fromEntries(
      (
        await q<{ paid_by: string; n: string }>(
          sql`select paid_by, count(*) as n from payin_orders where status = 'paid' group by paid_by`,
        )
      ).map((r) => [r.paid_by, Number(r.n)]),
    );
    expect(paidBy.channel).toBeGreaterThan(1_000);
    expect(paidBy.supplement).toBeGreaterThanOrEqual(10);
    expect(paidBy.force).toBeGreaterThanOrEqual(4);

    // 30 days back from now, every day; the newest minutes still waiting for their payer.
    const [span] = await q<{ first: Date | string; last: Date | string; days: string }>(
      sql`select min(created_at) as first, max(created_at) as last,
            count(distinct date_trunc('day', created_at at time zone 'Asia/Kolkata')) as days from payin_orders`,
    );
    expect(now - new Date(span!.first).getTime()).toBeGreaterThan(29 * day);
    expect(now - new Date(span!.first).getTime()).toBeLessThanOrEqual(30 * day);
    expect(now - new Date(span!.last).getTime()).toBeLessThan(15 * 60_000);
    expect(Number(span!.days)).toBeGreaterThanOrEqual(30);
    expect(
      await n(sql`select count(*) as n from payin_orders
                  where status = 'pending' and created_at > ${new Date(now - 30 * 60_000).toISOString()}::timestamptz`),
    ).toBeGreaterThanOrEqual(3);
    expect(
      await n(sql`select count(*) as n from payin_orders where created_at > now() + interval '1 day'`),
    ).toBe(0);

    // More on weekdays than at weekends, more in the day than at night (India time).
    const [shape] = await q<{ weekday: string; weekend: string; office: string; all: string }>(sql`
      with o as (select created_at at time zone 'Asia/Kolkata' as t from payin_orders)
      select count(*) filter (where extract(isodow from t) between 1 and 5)::float / 5 as weekday,
             count(*) filter (where extract(isodow from t) in (6, 7))::float / 2 as weekend,
             count(*) filter (where extract(hour from t) between 9 and 22) as office,
             count(*) as all from o`);
    expect(Number(shape!.weekday)).toBeGreaterThan(Number(shape!.weekend));
    expect(Number(shape!.office) / Number(shape!.all)).toBeGreaterThan(0.75);

    // Many small, few large, all within the merchant's limits.
    expect(
      await n(sql`select count(*) as n from payin_orders p join merchants m on m.id = p.merchant_id
                  where p.amount < m.min_amount or p.amount > m.max_amount`),
    ).toBe(0);
    const [amounts] = await q<{ median: string; p99: string; max: string }>(sql`
      select percentile_cont(0.5) within group (order by amount) as median,
             percentile_cont(0.99) within group (order by amount) as p99, max(amount) as max
      from payin_orders p join merchants m on m.id = p.merchant_id where m.code = 'M10001'`);
    expect(Number(amounts!.median)).toBeLessThan(Number(amounts!.p99) / 5);
    expect(Number(amounts!.max)).toBeGreaterThan(20 * Number(amounts!.median));
  });

  it('has a few hundred payouts in every state, retried and marked by hand too', async () => {
    const byStatus = Object.fromEntries(
      (
        await q<{ status: string; n: string }>(
          sql`select status, count(*) as n from payout_orders group by status`,
        )
      ).map((r) => [r.status, Number(r.n)]),
    );
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(200);
    expect(total).toBeLessThan(600);
    for (const status of ['success', 'failed', 'queued', 'processing', 'creation_failed'])
      expect(byStatus[status], status).toBeGreaterThan(0);
    expect(await n(sql`select count(*) as n from payout_orders where holds > 1`)).toBeGreaterThanOrEqual(3);
    expect(
      await n(
        sql`select count(*) as n from journal_entries where ref_type = 'payout' and memo like 'manual%'`,
      ),
    ).toBeGreaterThanOrEqual(2);
    expect(await n(sql`select count(distinct source) as n from payout_orders`)).toBe(3);
    expect(
      await n(sql`select count(*) as n from payout_orders p join merchants m on m.id = p.merchant_id
                  where p.amount < m.min_amount or p.amount > m.max_amount`),
    ).toBe(0);
  });

  it('has recharges in each state and evening wallet transfers', async () => {
    const byStatus = Object.fromEntries(
      (
        await q<{ status: string; n: string }>(
          sql`select status, count(*) as n from recharges group by status`,
        )
      ).map((r) => [r.status, Number(r.n)]),
    );
    expect(byStatus).toMatchObject({ pending: 1, rejected: 1 });
    expect(byStatus.confirmed).toBeGreaterThanOrEqual(3);
    expect(await n(sql`select count(*) as n from journal_entries where kind = 'recharge'`)).toBe(
      byStatus.confirmed,
    );
    expect(
      await n(sql`select count(*) as n from journal_entries where kind = 'wallet_transfer'`),
    ).toBeGreaterThan(20);
  });

  it('has a refunded order and a partly refunded one, each within what was paid', async () => {
    const rows = await q<{ status: string; amount: string; paid: string; refunded: string }>(sql`
      select r.status, r.amount, o.paid_amount as paid, o.refunded_amount as refunded
      from refunds r join payin_orders o on o.id = r.payin_id order by r.id`);
    expect(rows.map((r) => r.status)).toEqual(['success', 'processing']);
    expect(Number(rows[0]!.amount)).toBe(Number(rows[0]!.paid));
    expect(Number(rows[1]!.amount)).toBeLessThan(Number(rows[1]!.paid));
    for (const r of rows) expect(Number(r.refunded)).toBe(Number(r.amount));
  });

  it("has a donor card frozen with two merchants' money in it, each share held", async () => {
    const lines = await q<{ code: string; amount: string; held: string }>(sql`
      select m.code, l.amount, l.held_collection_available + l.held_payout_available as held
      from account_freeze_lines l join merchants m on m.id = l.merchant_id
      join account_freezes f on f.id = l.freeze_id join receiving_accounts a on a.id = f.receiving_account_id
      where a.account_number = '50100234567812' and a.status = 'frozen' order by l.amount desc`);
    // 3,500.00 back from the freeze: Masala's 1,200.00, the Demo Merchant's 1,800.00, Masala's 500.00 of 2,400.00.
    expect(lines.map((l) => [l.code, Number(l.amount)])).toEqual([
      ['M10001', 180_000],
      ['M10003', 170_000],
    ]);
    for (const l of lines) expect(Number(l.held)).toBeGreaterThan(0);
  });

  // Due within a day of the seed's moment, not of the wall clock: the night seed's moment is up to a day back.
  it('has an open dispute due within a day and a lost one, every hold resolved once', async () => {
    const cases = await q<{
      code: string;
      status: string;
      held: string;
      amount: string;
      deadline: string;
    }>(sql`
      select m.code, d.status, d.held_collection_available + d.held_payout_available as held, d.amount,
        extract(epoch from d.deadline) as deadline
      from disputes d join merchants m on m.id = d.merchant_id order by d.id`);
    expect(cases.map((c) => [c.code, c.status])).toEqual([
      ['M10002', 'open'],
      ['M10001', 'lost'],
    ]);
    expect(Number(cases[0]!.held)).toBeGreaterThan(0);
    const hours = (Number(cases[0]!.deadline) * 1000 - now) / 3_600_000;
    expect(hours).toBeGreaterThan(0);
    expect(hours).toBeLessThan(24);
    expect(await checkDisputeHolds(s.db)).toEqual([]);
  });

  it('has a blocked payer, refused at creation and counted', async () => {
    expect(await n(sql`select count(*) as n from blocklist_entries where kind = 'payer_phone'`)).toBe(1);
    expect(await n(sql`select count(*) as n from risk_refusals where rule = 'payer_phone'`)).toBe(1);
  });

  it('has one callback per state change, with its history written as the worker would have', async () => {
    // One event per order and outcome: paid orders each have exactly one payin.paid, and so on.
    for (const [status, type] of [
      ['paid', 'payin.paid'],
      ['unpaid', 'payin.unpaid'],
    ] as const) {
      expect(
        await n(sql`select count(*) as n from payin_orders o where o.status = ${status}
          and (select count(*) from webhook_events e where e.order_type = 'payin' and e.order_id = o.id
               and e.type = ${type}) <> 1`),
      ).toBe(0);
    }
    expect(
      await n(sql`select count(*) as n from webhook_events e where e.order_type = 'payin'
                  and not exists (select 1 from payin_orders o where o.id = e.order_id)`),
    ).toBe(0);
    expect(
      await n(sql`select count(*) as n from payout_orders o where o.status in ('success', 'failed', 'creation_failed')
        and o.refund_id is null
        and not exists (select 1 from webhook_events e where e.order_type = 'payout' and e.order_id = o.id)`),
    ).toBe(0);
    // A refund's payout is not the merchant's payout: its refund is what the merchant hears of.
    expect(
      await n(sql`select count(*) as n from refunds r where r.status in ('success', 'failed')
        and not exists (select 1 from webhook_events e where e.order_type = 'refund' and e.order_id = r.id)`),
    ).toBe(0);
    // Attempts recorded for every one tried; delivered ones pushed their order.
    expect(
      await n(sql`select count(*) as n from webhook_events e
                  where e.attempts <> (select count(*) from webhook_attempts a where a.event_id = e.id)`),
    ).toBe(0);
    const events = Object.fromEntries(
      (
        await q<{ status: string; n: string }>(
          sql`select status, count(*) as n from webhook_events group by status`,
        )
      ).map((r) => [r.status, Number(r.n)]),
    );
    expect(events.delivered).toBeGreaterThan(2_000);
    expect(events.gave_up).toBeGreaterThan(0);
    expect(events.pending).toBeGreaterThan(0);
    expect(
      await n(
        sql`select count(*) as n from payin_orders o where o.push_status = 'pushed' and o.callback_at is null`,
      ),
    ).toBe(0);
    // Nothing floods the worker at start: what is due now is only what was queued in the last minutes.
    const due = await q<{ created_at: Date | string }>(
      sql`select created_at from webhook_events
          where status = 'pending' and next_attempt_at <= ${new Date(now).toISOString()}::timestamptz`,
    );
    expect(due.length).toBeLessThan(30);
    for (const e of due) expect(now - new Date(e.created_at).getTime()).toBeLessThan(3 * 60_000);
    // The failing merchant's recent callbacks wait for their next attempt; older ones gave up.
    expect(
      await n(sql`select count(*) as n from webhook_events where status = 'pending' and attempts > 0
                  and next_attempt_at > ${new Date(now).toISOString()}::timestamptz`),
    ).toBeGreaterThan(0);
    expect(
      await n(sql`select count(*) as n from webhook_events where status = 'gave_up' and attempts <> 10`),
    ).toBe(0);
  });

  it('lets a newcomer find a lost payment by UTR check and settle it by supplement', async () => {
    const admin = await s.adminToken();
    const demo = await s.login('demo', 'Demo12345');
    const lost = first.lostCallbacks!.filter((l) => l.merchant === 'M10001');
    expect(lost.length).toBeGreaterThanOrEqual(3);
    for (const l of lost) {
      const [order] = await q<{ id: string; status: string }>(
        sql`select id, status from payin_orders where order_no = ${l.orderNo}`,
      );
      expect(['pending', 'unpaid']).toContain(order!.status);
      for (const token of [admin, demo]) {
        const check = await s.call(
          endpoints.merchantOrder.utrCheck,
          { utr: l.utr, id: Number(order!.id) },
          token,
        );
        expect(check.errno, check.errmsg).toBe(0);
        expect(check.data).toMatchObject({
          found: true,
          source: 'channel',
          usedBy: null,
          matchesOrder: true,
        });
      }
    }
    const l = lost[0]!;
    const [order] = await q<{ id: string }>(sql`select id from payin_orders where order_no = ${l.orderNo}`);
    const done = await s.call(
      endpoints.merchantOrder.supplement,
      { id: Number(order!.id), utr: l.utr },
      demo,
    );
    expect(done.errno, done.errmsg).toBe(0);
    expect(done.data).toMatchObject({ status: 'paid', paidBy: 'supplement', utr: l.utr });
    expect((await checkLedger(s.db)).balanced).toBe(true);
  });

  it('lists the last 7 days of orders to the demo owner and to the platform', async () => {
    const demo = await s.login('demo', 'Demo12345');
    const admin = await s.adminToken();
    const period = { from: new Date(now - 7 * day).toISOString(), to: new Date(now).toISOString() };
    const own = await s.call(endpoints.merchantOrder.list, { ...period, pageSize: 100 }, demo);
    expect(own.errno, own.errmsg).toBe(0);
    expect(own.data.total).toBeGreaterThan(200);
    expect(new Set(own.data.list.map((r: { merchantCode: string }) => r.merchantCode))).toEqual(
      new Set(['M10001']),
    );
    const all = await s.call(endpoints.merchantOrder.list, period, admin);
    expect(all.data.total).toBeGreaterThan(own.data.total);
    const payouts = await s.call(endpoints.merchantPayout.list, period, admin);
    expect(payouts.errno, payouts.errmsg).toBe(0);
    expect(payouts.data.total).toBeGreaterThan(30);
    const wallet = await s.call(endpoints.merchantWallet.info, {}, demo);
    expect(wallet.errno).toBe(0);
    expect(Number(wallet.data.payout.available) + Number(wallet.data.frozen)).toBeGreaterThan(0);
  });

  it('does nothing on a second start', async () => {
    const count = () =>
      q<{ p: string; o: string; e: string; m: string; w: string }>(sql`select
        (select count(*) from payin_orders) as p, (select count(*) from payout_orders) as o,
        (select count(*) from journal_entries) as e, (select count(*) from merchants) as m,
        (select count(*) from webhook_events) as w`);
    const before = await count();
    const again = await bootstrap({ ...s.deps, config: { ...s.deps.config, demo: true } });
    expect(again.demo).toBeUndefined();
    expect(await seedDemo(s.deps)).toBeNull();
    expect(await count()).toEqual(before);
  });

  it('serves the callback sink only where mounted', async () => {
    const post = (app: ReturnType<typeof createApp>, path: string) =>
      app.request(`http://localhost${path}`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
    expect((await post(createApp(s.deps, routes, gatewayRoutes), '/demo/callback')).status).toBe(404);
    const app = createApp(s.deps, routes, gatewayRoutes);
    mountDemoSink(app);
    const ok = await post(app, '/demo/callback');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true });
    expect((await post(app, '/demo/callback/down')).status).toBe(500);
  });
});
