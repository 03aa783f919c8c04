/**
 * A receiving account's daily capacity: which accounts a bank channel may give a pay-in to, and the
 * account-day row (`receiving_account_days`) that holds what the orders assigned to it carry. A pending
 * or paid order holds its amount and one count on the business day of its creation; an order that ends
 * unpaid or failed gives them back, and holds them again if it is paid later (supplement, forced).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { PayinStatus } from '../../../contract/machines.ts';
import { payin } from '../../../contract/machines.ts';
import type { Db } from '../../db/index.ts';
import { rowsOf } from '../../ledger/index.ts';
import { storedZone } from '../../lib/businessDay.ts';
import { weightedOrder } from '../payin/routing.ts';

/** Whether an order in state `s` holds its account's capacity (the pay-in machine's set). */
const holds = (s: PayinStatus | null | undefined) => s != null && payin.is('holdsAccountCapacity', s);

/** A receiving account a pay-in of `amount` may go to now, with its binding's weight. */
interface Candidate {
  id: number;
  weight: number;
  day: string;
}

/**
 * The accounts bound to `channelId` that may take a pay-in of `amount` for `merchantId` at `now`: active
 * (and, for a card, its holder active), the binding open to the merchant and inside its hours, the amount
 * within the account's per-order bounds, and today's figures leaving room for it.
 */
export async function eligibleAccounts(
  tx: Db,
  q: { channelId: number; merchantId: number; amount: number; now: Date },
): Promise<Candidate[]> {
  const rows = rowsOf<{ id: number; weight: number; day: string }>(
    await tx.execute(sql`
      with z as (select (${q.now.toISOString()}::timestamptz at time zone ${storedZone}) as local),
      d as (select local::date as day, (extract(hour from local) * 60 + extract(minute from local))::int as minute from z)
      select a.id, b.weight, d.day::text as day
      from card_bindings b
      join receiving_accounts a on a.id = b.account_id
      cross join d
      left join receiving_account_days rd on rd.account_id = a.id and rd.day = d.day
      where b.channel_id = ${q.channelId}
        and a.status = 'active'
        and (a.holder_id is null or exists (
          select 1 from account_holders h where h.id = a.holder_id and h.status = 'active'))
        and (cardinality(b.merchant_ids) = 0 or ${q.merchantId}::int = any(b.merchant_ids))
        and (b.active_from is null
          or (b.active_from <= b.active_to and d.minute >= b.active_from and d.minute < b.active_to)
          or (b.active_from > b.active_to and (d.minute >= b.active_from or d.minute < b.active_to)))
        and (a.min_amount is null or ${q.amount}::bigint >= a.min_amount)
        and (a.max_amount is null or ${q.amount}::bigint <= a.max_amount)
        and coalesce(rd.amount, 0) + ${q.amount}::bigint <= a.daily_limit
        and (a.daily_count is null or coalesce(rd.count, 0) < a.daily_count)
      order by a.id`),
  );
  return rows.map((r) => ({ id: Number(r.id), weight: Number(r.weight), day: r.day }));
}

/**
 * Reserves `amount` and one count on the account's day if its limits still allow them: one upsert that
 * locks the account-day row and judges the limits against its latest version, so concurrent creations
 * never take it past them. Answers whether it was reserved.
 */
export async function reserve(tx: Db, accountId: number, day: string, amount: number): Promise<boolean> {
  const rows = rowsOf<{ account_id: number }>(
    await tx.execute(sql`
      insert into receiving_account_days as rd (account_id, day, amount, count)
      select a.id, ${day}::date, ${amount}::bigint, 1 from receiving_accounts a
      where a.id = ${accountId} and a.status = 'active' and ${amount}::bigint <= a.daily_limit
      on conflict (account_id, day) do update set amount = rd.amount + excluded.amount, count = rd.count + 1
      where rd.amount + excluded.amount <= (select daily_limit from receiving_accounts where id = rd.account_id)
        and coalesce(rd.count < (select daily_count from receiving_accounts where id = rd.account_id), true)
        and (select status from receiving_accounts where id = rd.account_id) = 'active'
      returning rd.account_id`),
  );
  return rows.length > 0;
}

/**
 * Picks an eligible account by weight and reserves its capacity, trying the next when a concurrent
 * creation took the room meanwhile. Answers the account's id, or null when none can take the order.
 */
export async function assignAccount(
  tx: Db,
  q: { channelId: number; merchantId: number; amount: number; now: Date },
): Promise<number | null> {
  const candidates = await eligibleAccounts(tx, q);
  for (const c of weightedOrder(candidates)) {
    if (await reserve(tx, c.id, c.day, q.amount)) return c.id;
  }
  return null;
}

/** An order's state change, for the capacity its account holds. */
export interface CapacityMove {
  order: { receivingAccountId: number | null; amount: number; createdAt: Date; status: PayinStatus };
  left: PayinStatus | null | undefined;
}

/**
 * Gives back or takes again the capacity of orders whose state change crossed the holding line (pending
 * or paid on one side, unpaid or failed on the other), on the business day of their creation: one
 * statement whatever the number of moves, the rows changed in key order (so two writers never wait on
 * each other crosswise).
 */
export async function recordCapacityMoves(tx: Db, moves: readonly CapacityMove[]): Promise<void> {
  const rows: SQL[] = [];
  for (const { order, left } of moves) {
    if (order.receivingAccountId === null) continue;
    const before = holds(left);
    const after = holds(order.status);
    if (before === after) continue;
    const sign = after ? 1 : -1;
    rows.push(
      sql`(${order.receivingAccountId}::int, ${order.createdAt.toISOString()}::timestamptz, ${sign * order.amount}::bigint, ${sign}::int)`,
    );
  }
  if (!rows.length) return;
  await tx.execute(sql`
    insert into receiving_account_days as rd (account_id, day, amount, count)
    select v.account_id, (v.created_at at time zone ${storedZone})::date, sum(v.amount), sum(v.count)
    from (values ${sql.join(rows, sql`, `)}) as v(account_id, created_at, amount, count)
    group by 1, 2
    order by 1, 2
    on conflict (account_id, day) do update set amount = rd.amount + excluded.amount, count = rd.count + excluded.count`);
}
