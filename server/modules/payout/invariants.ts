/**
 * The payout invariants (RELIABILITY P4), checked after every payout test next to `checkLedger`:
 * - each merchant's frozen balance is what its open payout holds add up to (plus what other causes,
 *   such as settlement applications, froze and did not yet release);
 * - each order's entries tell its story: holds 1..n frozen once each, every hold but an open one
 *   resolved exactly once (released, or spent by the one success), and `hold_open` true exactly while
 *   the order is under way (`payout.sets.underWay`: an unclear hand-over keeps its hold until a person
 *   resolves it);
 * - every payout entry moves exactly amount + fee on the merchant's frozen wallet.
 */
import { sql } from 'drizzle-orm';
import { payout } from '../../../contract/machines.ts';
import type { Db } from '../../db/index.ts';
import { inStates } from '../../db/states.ts';
import { rowsOf } from '../../ledger/index.ts';

export interface PayoutInvariantReport {
  ok: boolean;
  frozenMismatches: {
    merchantId: number;
    currency: string;
    frozen: number;
    openHolds: number;
    other: number;
  }[];
  holdMismatches: {
    orderId: number;
    status: string;
    holds: number;
    holdOpen: boolean;
    freezes: number;
    releases: number;
    successes: number;
  }[];
  amountMismatches: {
    orderId: number;
    entryId: number;
    kind: string;
    frozenDelta: number;
    expected: number;
  }[];
}

export async function checkPayoutInvariants(db: Db): Promise<PayoutInvariantReport> {
  const frozenMismatches = rowsOf<{
    merchant_id: number;
    currency: string;
    frozen: string;
    open_holds: string;
    other: string;
  }>(
    await db.execute(sql`
      with holds as (
        select merchant_id, currency, sum(amount + fee) filter (where hold_open) as open_holds
        from payout_orders group by merchant_id, currency
      ), other as (
        select a.id as account_id, sum(p.amount) as other
        from postings p
        join journal_entries e on e.id = p.entry_id
        join ledger_accounts a on a.id = p.account_id
        where a.owner_type = 'merchant' and a.kind = 'frozen' and e.ref_type <> 'payout'
        group by a.id
      )
      select a.owner_id as merchant_id, a.currency, a.balance::text as frozen,
        coalesce(h.open_holds, 0)::text as open_holds, coalesce(o.other, 0)::text as other
      from ledger_accounts a
      left join holds h on h.merchant_id = a.owner_id and h.currency = a.currency
      left join other o on o.account_id = a.id
      where a.owner_type = 'merchant' and a.kind = 'frozen'
        and a.balance <> coalesce(h.open_holds, 0) + coalesce(o.other, 0)
      limit 100`),
  ).map((r) => ({
    merchantId: Number(r.merchant_id),
    currency: r.currency,
    frozen: Number(r.frozen),
    openHolds: Number(r.open_holds),
    other: Number(r.other),
  }));

  const holdMismatches = rowsOf<{
    id: string;
    status: string;
    holds: number;
    hold_open: boolean;
    freezes: number;
    releases: number;
    successes: number;
    max_freeze: number;
  }>(
    await db.execute(sql`
      select * from (
        select o.id, o.status, o.holds, o.hold_open,
          count(e.id) filter (where e.kind like 'payout\\_freeze\\_%')::int as freezes,
          count(e.id) filter (where e.kind like 'payout\\_release\\_%')::int as releases,
          count(e.id) filter (where e.kind = 'payout_success')::int as successes,
          coalesce(max(substring(e.kind from 'payout_freeze_(\\d+)')::int), 0) as max_freeze
        from payout_orders o
        left join journal_entries e on e.ref_type = 'payout' and e.ref_id = o.id::text
        group by o.id, o.created_at
      ) t
      where freezes <> holds
        or max_freeze <> holds
        or successes <> (case when ${inStates(sql`status`, payout.sets.succeeded)} then 1 else 0 end)
        or releases + successes + (case when hold_open then 1 else 0 end) <> holds
        or hold_open <> ${inStates(sql`status`, payout.sets.underWay)}
      limit 100`),
  ).map((r) => ({
    orderId: Number(r.id),
    status: r.status,
    holds: Number(r.holds),
    holdOpen: r.hold_open,
    freezes: Number(r.freezes),
    releases: Number(r.releases),
    successes: Number(r.successes),
  }));

  const amountMismatches = rowsOf<{
    order_id: string;
    entry_id: string;
    kind: string;
    delta: string;
    expected: string;
  }>(
    await db.execute(sql`
      select o.id as order_id, e.id as entry_id, e.kind, coalesce(sum(p.amount), 0)::text as delta,
        (case when e.kind like 'payout\\_freeze\\_%' then 1 else -1 end * (o.amount + o.fee))::text as expected
      from payout_orders o
      join journal_entries e on e.ref_type = 'payout' and e.ref_id = o.id::text
      left join postings p on p.entry_id = e.id
        and p.account_id = (select id from ledger_accounts a
          where a.owner_type = 'merchant' and a.owner_id = o.merchant_id and a.kind = 'frozen' and a.currency = o.currency)
      group by o.id, e.id, e.kind, o.amount, o.fee
      having coalesce(sum(p.amount), 0) <> (case when e.kind like 'payout\\_freeze\\_%' then 1 else -1 end * (o.amount + o.fee))
      limit 100`),
  ).map((r) => ({
    orderId: Number(r.order_id),
    entryId: Number(r.entry_id),
    kind: r.kind,
    frozenDelta: Number(r.delta),
    expected: Number(r.expected),
  }));

  return {
    ok: !frozenMismatches.length && !holdMismatches.length && !amountMismatches.length,
    frozenMismatches,
    holdMismatches,
    amountMismatches,
  };
}
