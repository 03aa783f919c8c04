/**
 * Reconciliation (`GET /statOrder/balance?view=account`) on a database seeded by bench/seed-orders.ts
 * (1,000,000 pay-ins over 60 days, 70 % paid, no receiving account). First (once) the bank: two bank
 * channels with two public accounts each; every order is moved onto one of the four accounts (by id) and
 * every paid one is said paid by a statement line (18 in 20), forced (1 in 20) or by the channel (1 in 20);
 * each statement-paid order gets its matched credit line (1 in 33 booked by the bank the day after), one
 * unpaid order in 50 an open, proposed or dismissed credit of its amount, and each account a debit a day.
 * The bulk writes skip the triggers and the rollup is then rebuilt once (`reconciliation_rebuild`), as the
 * migration's backfill does; before measuring, every row of the 60 days is checked against the same
 * figures summed from the orders and lines. Then:
 *  (a) at the database, the view as the handler builds it (`accountPage` + `accountTotals`) over 60 days:
 *      by account (first page of 50, and a page 30 days back), by channel, one account's 60 days; beside
 *      it the floor (`select 1`) and, for scale, the same figures summed from the orders and lines;
 *  (b) `GET /api/statOrder/balance` over HTTP, one client, against server/main.ts in its own process,
 *      beside the floor of a trivial signed-in call (`GET /api/auth/info`);
 *  (c) what the triggers add to a write: a paid order's and a credit line's update, with and without.
 *
 *   createdb -h 127.0.0.1 -U postgres bench_recon
 *   npx tsx bench/seed-orders.ts --dir bench/out/recon-pg --url postgres://postgres@127.0.0.1:5432/bench_recon --orders 1000000
 *   npx tsx bench/reconciliation.ts --dir bench/out/recon-pg --url postgres://postgres@127.0.0.1:5432/bench_recon
 * Options: --iterations 300, --only abc. Target (docs/PERFORMANCE.md): p95 ≤ 50 ms at 1 M orders.
 */
import { sql } from 'drizzle-orm';
import { storedOrderStatsZone } from '../server/modules/dashboard/stats.ts';
import { type AccountFilters, accountPage, accountTotals } from '../server/modules/stat/account.ts';
import {
  args,
  benchAdminPassword,
  type CallTiming,
  engineVersion,
  fmtInt,
  load,
  one,
  openBench,
  printTiming,
  rows,
  signIn,
  startServer,
  target,
  timeCalls,
} from './common.ts';

const a = args();
const t = target(a);
const iterations = Number(a.get('iterations') ?? 300);
const only = new Set((a.get('only') ?? 'abc').split(''));
const targetMs = 50;

const deps = await openBench(t);
const { db } = deps.database;
const version = await engineVersion(deps.database);
const zone = await storedOrderStatsZone(db);

// ---- the bank, once --------------------------------------------------------------------------------
const seeded = await one<{ n: number }>(
  db,
  sql`select count(*)::int as n from channels where code like 'bench-bank-%'`,
);
if (Number(seeded.n) === 0) await seedBank();

async function seedBank() {
  const started = performance.now();
  const { admin } = await one<{ admin: number }>(db, sql`select min(id) as admin from users`);
  await db.transaction(async (tx) => {
    // Bulk moves: the triggers wait, the rollup is rebuilt from scratch below.
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(sql`
      insert into channels (code, name, adapter) values
        ('bench-bank-a', 'Bank collections A', 'bank'), ('bench-bank-b', 'Bank collections B', 'bank')`);
    await tx.execute(sql`
      insert into receiving_accounts (kind, bank_name, account_name, account_number, ifsc, daily_limit)
      select 'public', b, 'Bench Collections Pvt Ltd', '5010000000' || n, 'HDFC0001234', 100000000000
      from unnest(array['HDFC Bank', 'ICICI Bank', 'State Bank of India', 'Axis Bank']) with ordinality as x(b, n)`);
    // Accounts 1 and 2 (by id) behind channel A, 3 and 4 behind B.
    await tx.execute(sql`
      create temporary table bench_bank on commit drop as
      select a.id as account_id, c.id as channel_id, (row_number() over (order by a.id) - 1)::int as slot
      from receiving_accounts a
      join channels c on c.code = case when a.account_number in ('50100000001', '50100000002') then 'bench-bank-a' else 'bench-bank-b' end
      where a.account_number like '5010000000_'`);
    await tx.execute(
      sql`insert into card_bindings (account_id, channel_id, weight) select account_id, channel_id, 100 from bench_bank`,
    );
    let t0 = performance.now();
    await tx.execute(sql`
      update payin_orders o set receiving_account_id = b.account_id, channel_id = b.channel_id,
        paid_by = case when o.status <> 'paid' then null when o.id % 20 = 0 then 'force'
          when o.id % 20 = 1 then 'channel' else 'statement' end
      from bench_bank b where b.slot = o.id % 4`);
    console.log(`  orders moved onto the accounts in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    await tx.execute(sql`
      insert into statement_imports (account_id, file_name, format, source, sha256, size, content, mapping, status, line_count, created_by)
      select account_id, 'bench.csv', 'csv', 'feed', '', 0, '\\x'::bytea, '{}'::jsonb, 'done', 0, ${admin} from bench_bank`);
    t0 = performance.now();
    await tx.execute(sql`
      insert into statement_lines (account_id, import_id, row, day, narration, reference, direction, amount, utr, dedupe_key, status, payin_id)
      select o.receiving_account_id, i.id, (o.id % 2000000000)::int,
        ((o.paid_at at time zone ${zone})::date + case when o.id % 33 = 0 then 1 else 0 end),
        'UPI/CR/' || o.utr, o.utr, 'credit', coalesce(o.paid_amount, o.amount), o.utr, 'ref:' || o.utr, 'matched', o.id
      from payin_orders o join statement_imports i on i.account_id = o.receiving_account_id and i.file_name = 'bench.csv'
      where o.status = 'paid' and o.paid_by = 'statement'`);
    await tx.execute(sql`
      insert into statement_lines (account_id, import_id, row, day, narration, direction, amount, dedupe_key, status, exception_kind, reason)
      select o.receiving_account_id, i.id, (o.id % 2000000000)::int, (o.created_at at time zone ${zone})::date,
        'NEFT/CR/' || o.order_no, 'credit', o.amount, 'open:' || o.order_no,
        (array['new', 'exception', 'proposed', 'dismissed'])[1 + o.id / 50 % 4],
        case when o.id / 50 % 4 = 1 then 'unmatched' end, case when o.id / 50 % 4 = 3 then 'bank charges' end
      from payin_orders o join statement_imports i on i.account_id = o.receiving_account_id and i.file_name = 'bench.csv'
      where o.status = 'unpaid' and o.id % 50 = 0`);
    await tx.execute(sql`
      insert into statement_lines (account_id, import_id, row, day, narration, direction, amount, dedupe_key)
      select i.account_id, i.id, 0, d::date, 'IMPS/DR/sweep', 'debit', 100000, 'debit:' || d::date
      from statement_imports i cross join generate_series(
        (select (min(paid_at) at time zone ${zone})::date from payin_orders),
        (select (max(paid_at) at time zone ${zone})::date from payin_orders), interval '1 day') d
      where i.file_name = 'bench.csv'`);
    console.log(`  statement lines written in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    t0 = performance.now();
    await tx.execute(sql`select reconciliation_rebuild(null)`);
    console.log(`  rollup rebuilt in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  });
  await db.execute(sql`vacuum (analyze) payin_orders, statement_lines, reconciliation_daily`);
  console.log(`bank seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

const counts = await one<{ orders: string; paid: string; lines: string; rollup: string }>(
  db,
  sql`select (select count(*) from payin_orders)::text as orders,
    (select count(*) from payin_orders where status = 'paid')::text as paid,
    (select count(*) from statement_lines)::text as lines,
    (select count(*) from reconciliation_daily)::text as rollup`,
);
console.log(
  `${version} · ${fmtInt(Number(counts.orders))} pay-ins (${fmtInt(Number(counts.paid))} paid), ${fmtInt(Number(counts.lines))} statement lines, ` +
    `${fmtInt(Number(counts.rollup))} rollup rows · zone ${zone} · load ${load()}`,
);

// The period: the last 60 business days with payments.
const { last } = await one<{ last: string }>(
  db,
  sql`select ((max(paid_at) at time zone ${zone})::date)::text as last from payin_orders`,
);
const addDays = (day: string, n: number) => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};
const period = { from: addDays(last, -59), to: last };
const byAccount: AccountFilters = { ...period, by: 'account', accountId: null, channelId: null };
const byChannel: AccountFilters = { ...byAccount, by: 'channel' };
const { firstAccount } = await one<{ firstAccount: number }>(
  db,
  sql`select min(id) as "firstAccount" from receiving_accounts where account_number like '5010000000_'`,
);

/** The view's figures summed straight from the orders and lines (what the rollup spares). */
const fromOrders = sql`
  select day::text as day, account_id, sum(paid_n)::int as paid_n, sum(paid_s)::text as paid_s,
    sum(unproved_n)::int as unproved_n, sum(matched_n)::int as matched_n, sum(matched_s)::text as matched_s,
    sum(unmatched_n)::int as unmatched_n
  from (
    -- An order counts on its statement line's day when one proves it, else on its paid day (unproved).
    select p.day, p.account_id, 1 as paid_n, p.paid_s, p.unproved_n, 0 as matched_n, 0 as matched_s, 0 as unmatched_n
    from (
      select coalesce(l.day, (o.paid_at at time zone ${zone})::date) as day, o.receiving_account_id as account_id,
        coalesce(o.paid_amount, o.amount) as paid_s, (l.id is null)::int as unproved_n
      from payin_orders o left join statement_lines l on l.payin_id = o.id
      where o.status = 'paid' and o.receiving_account_id is not null
    ) p
    where p.day between ${period.from}::date and ${period.to}::date
    union all
    select l.day, l.account_id, 0, 0, 0, (l.status = 'matched')::int, case when l.status = 'matched' then l.amount else 0 end,
      (l.status <> 'matched')::int
    from statement_lines l
    where l.direction = 'credit' and l.day between ${period.from}::date and ${period.to}::date
  ) f group by 1, 2`;

// ---- checks ------------------------------------------------------------------------------------------
{
  const expected = new Map(
    rows<{
      day: string;
      account_id: number;
      paid_n: number;
      paid_s: string;
      unproved_n: number;
      matched_n: number;
      matched_s: string;
      unmatched_n: number;
    }>(await db.execute(fromOrders)).map((r) => [`${r.day}|${r.account_id}`, r]),
  );
  let cursor: Parameters<typeof accountPage>[2] = null;
  let seen = 0;
  let wrong = 0;
  let diff = 0;
  for (;;) {
    const page = await accountPage(db, byAccount, cursor, 100);
    for (const r of page.list) {
      seen++;
      const e = expected.get(`${r.day}|${r.accountId}`);
      const same =
        e &&
        e.paid_n === r.paid.count &&
        Number(e.paid_s) === Math.round(Number(r.paid.sum) * 100) &&
        e.unproved_n === r.unproved.count &&
        e.matched_n === r.matchedCredits.count &&
        Number(e.matched_s) === Math.round(Number(r.matchedCredits.sum) * 100) &&
        e.unmatched_n === r.unmatchedCredits.count;
      if (!same) wrong++;
      if (Number(r.difference) !== 0) diff++;
    }
    const lastRow = page.list.at(-1);
    if (!page.nextCursor || !lastRow) break;
    cursor = { day: lastRow.day, key: lastRow.accountId!, currency: lastRow.currency };
  }
  const [totals] = (await accountTotals(db, byChannel)).totals;
  console.log(
    `${period.from} … ${period.to}: ${seen} rows (of ${expected.size} from the orders), ${wrong} differ from the orders and lines, ${diff} with a difference; ` +
      `totals: paid ${totals?.paid.count} · ${totals?.paid.sum}, matched ${totals?.matchedCredits.count}, unmatched ${totals?.unmatchedCredits.count}, ` +
      `unproved ${totals?.unproved.count}, clearing ${totals?.clearing}`,
  );
  if (wrong || seen !== expected.size) throw new Error('the rollup does not agree with the orders and lines');
}

const dbName = t.url ? new URL(t.url).pathname.slice(1) : undefined;
const time3 = (n: number, fn: () => Promise<unknown>, warmup = 20, node?: number) =>
  timeCalls(n, fn, { database: dbName, warmup, node });
const row = (name: string, tm: CallTiming, floor?: CallTiming, target?: number) =>
  printTiming(name, tm, { floor, target });

// What the handler does: the page, then the period's totals.
const view = async (f: AccountFilters, after: Parameters<typeof accountPage>[2], pageSize: number) => {
  await accountPage(db, f, after, pageSize);
  await accountTotals(db, f);
};

if (only.has('a')) {
  console.log(`(a) at the database, 60 days, ${iterations} runs each`);
  const floor = await time3(iterations, () => db.execute(sql`select 1`));
  row('floor: select 1', floor);
  row(
    'by account, first page of 50',
    await time3(iterations, () => view(byAccount, null, 50)),
    floor,
    targetMs,
  );
  row(
    'by account, a page 30 days back',
    await time3(iterations, () =>
      view(byAccount, { day: addDays(period.to, -30), key: 0, currency: 'INR' }, 50),
    ),
    floor,
    targetMs,
  );
  row(
    'by channel, first page of 50',
    await time3(iterations, () => view(byChannel, null, 50)),
    floor,
    targetMs,
  );
  row(
    'one account, its 60 days (one page of 100)',
    await time3(iterations, () => view({ ...byAccount, accountId: firstAccount }, null, 100)),
    floor,
    targetMs,
  );
  row(
    'for comparison: the figures summed from orders and lines',
    await time3(5, () => db.execute(fromOrders), 1),
  );
}

if (only.has('c')) {
  // The write path's cost of the rollup: one paid order's paid amount changed (the trigger takes it off
  // its day and puts it back), one open credit's status moved, each by its own statement, with the
  // triggers and without them (`session_replication_role = replica`); rolled back after.
  const n = 2_000;
  const ids = rows<{ id: number }>(
    await db.execute(
      sql`select id from payin_orders where status = 'paid' and receiving_account_id is not null order by id limit ${n}`,
    ),
  ).map((r) => Number(r.id));
  const lineIds = rows<{ id: number }>(
    await db.execute(
      sql`select id from statement_lines where status = 'new' and direction = 'credit' order by id limit ${n}`,
    ),
  ).map((r) => Number(r.id));
  const perWrite = async (replica: boolean) => {
    const out = { order: 0, line: 0 };
    await db
      .transaction(async (tx) => {
        if (replica) await tx.execute(sql`set local session_replication_role = replica`);
        let t0 = performance.now();
        for (const id of ids)
          await tx.execute(
            sql`update payin_orders set paid_amount = coalesce(paid_amount, amount) + 1 where id = ${id}`,
          );
        out.order = ((performance.now() - t0) * 1000) / ids.length;
        t0 = performance.now();
        for (const id of lineIds)
          await tx.execute(
            sql`update statement_lines set status = 'exception', exception_kind = 'unmatched' where id = ${id}`,
          );
        out.line = ((performance.now() - t0) * 1000) / lineIds.length;
        throw new Error('rollback');
      })
      .catch((e: Error) => {
        if (e.message !== 'rollback') throw e;
      });
    return out;
  };
  console.log(
    `(c) the write path: ${fmtInt(ids.length)} paid orders and ${fmtInt(lineIds.length)} credit lines updated one by one`,
  );
  for (let round = 0; round < 3; round++) {
    const off = await perWrite(true);
    const on = await perWrite(false);
    console.log(
      `  µs an update: paid order ${fmtInt(off.order)} → ${fmtInt(on.order)} with the trigger; credit line ${fmtInt(off.line)} → ${fmtInt(on.line)}`,
    );
  }
}
await deps.database.close();

if (only.has('b')) {
  const server = await startServer({ dir: t.dir, url: t.url, env: t.url ? { WORKERS: '2' } : {} });
  try {
    const token = await signIn(server.base, 'admin', benchAdminPassword);
    const get = async (path: string) => {
      const res = (await fetch(`${server.base}${path}`, { headers: { 'admin-token': token } }).then((r) =>
        r.json(),
      )) as { errno: number };
      if (res.errno !== 0) throw new Error(`${path} failed: ${JSON.stringify(res)}`);
    };
    const qs = (by: string, pageSize = 50, extra = '') =>
      `/api/statOrder/balance?view=account&by=${by}&from=${period.from}&to=${period.to}&pageSize=${pageSize}${extra}`;
    const pid = server.process.pid!;
    console.log(`(b) HTTP, one client, ${iterations} runs each`);
    const floor = await time3(iterations, () => get('/api/auth/info'), 20, pid);
    row('floor: GET /api/auth/info', floor);
    row(
      'HTTP, by account, first page',
      await time3(iterations, () => get(qs('account')), 20, pid),
      floor,
      targetMs,
    );
    row(
      'HTTP, by channel, first page',
      await time3(iterations, () => get(qs('channel')), 20, pid),
      floor,
      targetMs,
    );
    row(
      'HTTP, one account, 60 days',
      await time3(iterations, () => get(qs('account', 100, `&accountId=${firstAccount}`)), 20, pid),
      floor,
      targetMs,
    );
  } finally {
    await server.stop();
  }
}
console.log(`done · load ${load()}`);
