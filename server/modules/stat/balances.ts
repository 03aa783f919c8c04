/** What the ledger reports share: the balances of the wallet accounts in view (`acc`) at a period's ends. */
import { type SQL, sql } from 'drizzle-orm';
import { formatMinor } from '../../../contract/money.ts';

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

/**
 * A report's closing (`closing`: the opening plus the period's movements, as the report worked it out)
 * beside the ledger's own (`ledger_closing` of `openingAndClosing`): a difference means the report's
 * movements lost a posting, so the report ties to the ledger or says it does not.
 */
function closingChecked(closing: number, ledgerClosingText: string) {
  const ledgerClosing = Number(ledgerClosingText);
  return {
    closing: formatMinor(closing),
    ledgerClosing: formatMinor(ledgerClosing),
    mismatch: closing !== ledgerClosing,
  };
}

/** A report row's balances as `openingAndClosing` answers them, as text. */
export interface OpeningAndClosing {
  opening: string;
  ledger_closing: string;
}

/**
 * A report row's opening, and the closing it works out (the opening plus `moved`, the period's movements
 * as the report sums them) checked against the ledger's: the part every ledger report answers alike.
 */
export function balancesOf(r: OpeningAndClosing, moved: number) {
  const opening = Number(r.opening);
  return { opening: formatMinor(opening), ...closingChecked(opening + moved, r.ledger_closing) };
}
