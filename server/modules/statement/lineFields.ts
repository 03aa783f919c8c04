/** A statement line's own fields (what the bank wrote), as saved and as shown. */
import { formatMinor } from '../../../contract/money.ts';
import type { StatementLine } from './parse.ts';

type OwnFields = Pick<
  StatementLine,
  'row' | 'narration' | 'reference' | 'direction' | 'amount' | 'balance' | 'utr' | 'currency'
> & { day: string };

/** A read line's own fields under the names a saved line has (its date is the line's `day`). */
export const lineFields = (l: StatementLine): OwnFields => ({
  row: l.row,
  day: l.date,
  narration: l.narration,
  reference: l.reference,
  direction: l.direction,
  amount: l.amount,
  balance: l.balance,
  utr: l.utr,
  currency: l.currency,
});

/** The own fields as the console shows them: amounts in major units. */
export const shownLine = (l: OwnFields) => ({
  row: l.row,
  day: l.day,
  narration: l.narration,
  reference: l.reference,
  direction: l.direction,
  amount: formatMinor(l.amount),
  balance: l.balance === null ? null : formatMinor(l.balance),
  utr: l.utr,
  currency: l.currency,
});
