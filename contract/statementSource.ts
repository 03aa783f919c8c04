/**
 * Where a bank statement came from (docs/SECURITY.md "Statements as evidence"): a file a person uploaded,
 * text a person pasted, or the bank's own host-to-host feed. A person's statement may have been typed or
 * edited, so its lines never pay or close anything by themselves: a person posts them (a money decision,
 * contract/doors.ts `statement.pay`). Only the bank's feed is the bank's word.
 */
export const statementSources = ['upload', 'paste', 'feed'] as const;
export type StatementSource = (typeof statementSources)[number];

/** Whether a line of a statement from `source` may pay an order by itself (a UTR and amount match). */
export const paysByItself = (source: StatementSource): boolean => source === 'feed';

/**
 * Why a statement line waits in the exception queue: its UTR names an order of another amount, several
 * orders fit it, none does, or it is in a currency other than its account's (read and kept, never paid).
 */
export const exceptionKinds = ['amount_mismatch', 'ambiguous', 'unmatched', 'currency'] as const;
export type ExceptionKind = (typeof exceptionKinds)[number];

/** The currency of receiving accounts: a line that names another never pays an order. */
export const accountCurrency = 'INR';
