/** What the ledger reports share: the balances of the wallet accounts in view (`acc`) at a period's ends. */
import { type SQL, sql } from 'drizzle-orm';

/** The balance of account `acc` just before instant `at` (SQL): its last posting's balance after. */
const balanceBefore = (at: SQL) => sql`(select p.balance_after from postings p
  where p.account_id = acc.id and p.at < ${at} order by p.at desc, p.id desc limit 1)`;

/**
 * The opening (before day `first`) and the ledger's closing (after day `last`) of the accounts `acc`,
 * summed, as text; `first` and `last` are SQL dates, cut in the business time zone `z.zone`.
 */
export function openingAndClosing(first: SQL, last: SQL): SQL {
  const opening = balanceBefore(sql`(${first}::timestamp at time zone z.zone)`);
  const closing = balanceBefore(sql`((${last} + 1)::timestamp at time zone z.zone)`);
  return sql`coalesce(sum(${opening}), 0)::text as opening, coalesce(sum(${closing}), 0)::text as ledger_closing`;
}
