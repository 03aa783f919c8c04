/**
 * Bank feeds: SWIFT MT940 and ISO 20022 camt.053 statements read into one shape. Pure (no database, no
 * clock, no I/O); the readers never throw: a file that is not the format answers `ok: false`, an entry
 * that does not read answers a `FeedError` and the rest of the file is still read.
 */

export interface FeedEntry {
  /** 1-based position of the entry (or the transaction within a batch entry) in file order: what a "row" is for these formats. */
  row: number;
  /** Booking date `YYYY-MM-DD` (MT940: :61: entry date when given, else value date; camt: BookgDt, else ValDt). */
  date: string;
  valueDate: string | null;
  /** A reversal of a debit (RD) is a credit, of a credit (RC) is a debit. */
  direction: 'credit' | 'debit';
  reversal: boolean;
  /** Minor units with two decimals (hundredths), > 0; an amount with more decimals than two is an entry error. */
  amount: number;
  /** ISO 4217, from the statement (:60F: currency) or the amount's Ccy attribute. */
  currency: string;
  /** The bank's own reference for the entry: MT940 the bank reference after `//` in :61:, else the customer reference unless NONREF; camt the entry's (or transaction's) AcctSvcrRef. null when none. */
  reference: string | null;
  /**
   * The other references it carries, in this order, without NONREF/NOTPROVIDED/empty: MT940 customer
   * reference, supplementary details; camt ClrSysRef, TxId, EndToEndId, UETR, InstrId, MsgId, PmtInfId,
   * Prtry refs (each transaction's, the batch's MsgId/PmtInfId after them), then the other AcctSvcrRef
   * (the entry's or its transactions', whichever is not `reference`) and the structured creditor
   * references (RmtInf/Strd/CdtrRefInf/Ref, e.g. an RF reference).
   */
  references: string[];
  /**
   * Text a person reads: MT940 :86: (structured: ?00 booking text, the name ?32+?33, the remittance
   * ?20-?29 and ?60-?63 concatenated; free text: its lines), else the :NS: lines, else the customer
   * reference and supplementary details; camt: counterparty name + RmtInf/Ustrd (all, joined) +
   * AddtlTxInf + AddtlNtryInf. Runs of blanks made one, trimmed, cut at 1000 characters.
   */
  narration: string;
  /** Added: the bank's transaction type: MT940 the :61: type (`NTRF`, `N192`); camt BkTxCd `PMNT/RCDT/ESCT`, else its Prtry/Cd. */
  transactionCode: string | null;
  /** Added: for a camt batch entry split per transaction, this transaction's place in it; else null. */
  batch: { index: number; count: number } | null;
}

export interface FeedBalance {
  date: string;
  /** Signed minor units (a debit balance is negative). */
  amount: number;
  currency: string;
}

export interface FeedStatement {
  /** :20:/:28C: or Stmt/Id and ElctrncSeqNb. */
  id: string;
  /** :25: or Acct/Id (IBAN or Othr/Id). */
  account: string;
  currency: string;
  /** :60F:/:60M: ; camt Bal with Tp/CdOrPrtry/Cd OPBD (or PRCD). */
  opening: FeedBalance | null;
  /** :62F:/:62M: ; camt CLBD. */
  closing: FeedBalance | null;
  entries: FeedEntry[];
}

export interface FeedError {
  /** The entry's row; 0 for a statement's balance. */
  row: number;
  code: 'date' | 'amount' | 'entry';
  detail: string;
  /** Added: the 1-based statement (in file order) it belongs to. */
  statement: number;
}

export type FeedRead =
  | { ok: true; format: 'mt940' | 'camt053'; statements: FeedStatement[]; errors: FeedError[] }
  | { ok: false; format: 'mt940' | 'camt053'; detail: string };

export { looksLikeCamt053, readCamt053 } from './camt053.ts';
export { looksLikeMt940, readMt940 } from './mt940.ts';
