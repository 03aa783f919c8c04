/**
 * The settlement invariants, checked after every settlement test next to `checkLedger`: each settlement's
 * entries leave on the merchant's frozen balance exactly its open hold (amount or audit amount, plus
 * fee, while `open`; nothing once settled or failed) and on its wallet exactly what left it (the hold
 * while open, the audit amount plus fee once settled, nothing once failed); a settled one was paid once,
 * a failed one released once, an open one neither.
 */
import { sql } from 'drizzle-orm';
import { settlement } from '../../../contract/machines.ts';
import type { Db } from '../../db/index.ts';
import { inStates } from '../../db/states.ts';
import { rowsOf } from '../../ledger/index.ts';

export interface SettlementMismatch {
  id: number;
  status: string;
  frozen: number;
  wallet: number;
  paid: number;
  released: number;
}

export async function checkSettlementHolds(db: Db): Promise<SettlementMismatch[]> {
  const open = inStates(sql`s.status`, settlement.sets.open);
  const settled = inStates(sql`s.status`, settlement.sets.succeeded);
  return rowsOf<{
    id: number;
    status: string;
    frozen: string;
    wallet: string;
    paid: number;
    released: number;
  }>(
    await db.execute(sql`
      select * from (
        select s.id, s.status, s.amount, s.audit_amount, s.fee,
          coalesce(sum(p.amount) filter (where a.kind = 'frozen'), 0)::text as frozen,
          coalesce(sum(p.amount) filter (where a.kind <> 'frozen'), 0)::text as wallet,
          count(distinct e.id) filter (where e.kind = 'settlement_paid')::int as paid,
          count(distinct e.id) filter (where e.kind = 'settlement_release')::int as released,
          ${open} as is_open, ${settled} as is_settled
        from settlements s
        left join journal_entries e on e.ref_type = 'settlement' and e.ref_id = s.id::text
        left join postings p on p.entry_id = e.id
        left join ledger_accounts a on a.id = p.account_id
          and a.owner_type = 'merchant' and a.owner_id = s.merchant_id
          and a.kind in ('frozen', case s.wallet when 'collection' then 'collection_available' else 'payout_available' end)
        group by s.id
      ) t
      where frozen::bigint <> case when is_open then coalesce(audit_amount, amount) + fee else 0 end
        or wallet::bigint <> case
          when is_open then -(coalesce(audit_amount, amount) + fee)
          when is_settled then -(audit_amount + fee)
          else 0 end
        or paid <> case when is_settled then 1 else 0 end
        or released <> case when not is_open and not is_settled then 1 else 0 end
      limit 100`),
  ).map((r) => ({
    id: Number(r.id),
    status: r.status,
    frozen: Number(r.frozen),
    wallet: Number(r.wallet),
    paid: Number(r.paid),
    released: Number(r.released),
  }));
}
