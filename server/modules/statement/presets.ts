/**
 * Mappings for Indian banks' statement downloads (docs/STATEMENTS.md has each one's layout and why the
 * choices were made; samples/india/ the real downloads they are tested on). Column names are the banks'
 * own spellings; no `headerRow`: the number of lines of account details above the table varies, so the
 * import finds the row that holds the columns. Detection (detect.ts) recognises a bank by these columns.
 */
import type { StatementMapping } from '../../../contract/statementMapping.ts';

export interface StatementPreset {
  id: 'hdfc' | 'hdfcDelimited' | 'icici' | 'sbi' | 'axis' | 'kotak' | 'bob';
  bankName: string;
  mapping: StatementMapping;
}

export const statementPresets: readonly StatementPreset[] = [
  {
    id: 'hdfc',
    bankName: 'HDFC Bank',
    mapping: {
      dateColumn: 'Date',
      dateFormat: 'dd/MM/yy',
      narrationColumn: 'Narration',
      referenceColumn: 'Chq./Ref.No.',
      debitColumn: 'Withdrawal Amt.',
      creditColumn: 'Deposit Amt.',
      balanceColumn: 'Closing Balance',
      // `UPI-<name>-<VPA>-<IFSC>-<RRN>-<note>`, `IMPS-<RRN>-<name>-…`: the reference column holds the
      // RRN zero-padded to 16 digits, which is not the UTR a payer quotes.
      utrPattern: '^(?:UPI|IMPS)-(?:[^-]*-)*?(\\d{12})(?:-|$)',
    },
  },
  {
    id: 'icici',
    bankName: 'ICICI Bank',
    mapping: {
      dateColumn: 'Transaction Date',
      dateFormat: 'dd/MM/yyyy',
      narrationColumn: 'Transaction Remarks',
      referenceColumn: 'Cheque Number',
      debitColumn: 'Withdrawal Amount (INR )',
      creditColumn: 'Deposit Amount (INR )',
      balanceColumn: 'Balance (INR )',
      // Retail UPI `UPI/<VPA>/<note>/<bank>/<RRN>/<ref>` (the RRN fifth), older `UPI/<RRN>/…`,
      // `MMT/IMPS/<RRN>/…`, `NEFT-<UTR>-…`, `RTGS-<UTR>-…`.
      utrPattern:
        '^(?:UPI/(?:[^/]*/){3}(?=\\d{12}/)|UPI/(?=\\d{12}/)|MMT/IMPS/|NEFT-|RTGS-)([A-Z0-9]{12,22})(?:[/-]|$)',
    },
  },
  {
    id: 'sbi',
    bankName: 'State Bank of India',
    mapping: {
      dateColumn: 'Txn Date',
      dateFormat: 'd MMM yyyy',
      narrationColumn: 'Description',
      referenceColumn: 'Ref No./Cheque No.',
      debitColumn: 'Debit',
      creditColumn: 'Credit',
      balanceColumn: 'Balance',
      // `BY TRANSFER-UPI/CR/<RRN>/<name>/…`, `BY TRANSFER-NEFT*<IFSC>*<UTR>*<name>`.
      utrPattern: '(?:UPI/(?:CR|DR)/|NEFT\\*[A-Z]{4}0[A-Z0-9]{6}\\*)([A-Z0-9]{12,22})[/*]',
    },
  },
  {
    id: 'axis',
    bankName: 'Axis Bank',
    mapping: {
      dateColumn: 'Tran Date',
      dateFormat: 'dd-MM-yyyy',
      narrationColumn: 'PARTICULARS',
      referenceColumn: 'CHQNO',
      debitColumn: 'DR',
      creditColumn: 'CR',
      balanceColumn: 'BAL',
      // `UPI/P2A/<RRN>/<name>/…`, `IMPS/P2A/<RRN>/…`, `NEFT INWARD NEFT IN UTR <UTR> FROM …`,
      // `IMPS INWARD … REF NO: - <RRN>`.
      utrPattern: '(?:^(?:UPI|IMPS)/P2[AM]/|\\bUTR\\s+|\\bREF NO:\\s*-?\\s*)([A-Z0-9]{12,22})\\b',
    },
  },
  {
    id: 'hdfcDelimited',
    bankName: 'HDFC Bank (delimited text)',
    mapping: {
      dateColumn: 'Date',
      dateFormat: 'dd/MM/yy',
      narrationColumn: 'Narration',
      referenceColumn: 'Chq/Ref Number',
      debitColumn: 'Debit Amount',
      creditColumn: 'Credit Amount',
      balanceColumn: 'Closing Balance',
      // The same narrations as the XLS download.
      utrPattern: '^(?:UPI|IMPS)-(?:[^-]*-)*?(\\d{12})(?:-|$)',
    },
  },
  {
    id: 'kotak',
    bankName: 'Kotak Mahindra Bank',
    mapping: {
      dateColumn: 'Transaction Date',
      dateFormat: 'dd-MM-yyyy',
      narrationColumn: 'Description',
      referenceColumn: 'Chq / Ref No.',
      amountColumn: 'Amount',
      directionColumn: 'Dr / Cr',
      balanceColumn: 'Balance',
      // `UPI/<name>/<RRN>/<note>`: the reference column's `UPI-<number>` is the bank's, not the RRN.
      utrPattern: '^UPI/[^/]*/(\\d{12})(?:/|$)',
    },
  },
  {
    id: 'bob',
    bankName: 'Bank of Baroda',
    mapping: {
      dateColumn: 'TRAN DATE',
      dateFormat: 'dd/MM/yyyy',
      narrationColumn: 'NARRATION',
      referenceColumn: 'CHQ.NO.',
      debitColumn: 'WITHDRAWAL(DR)',
      creditColumn: 'DEPOSIT(CR)',
      balanceColumn: 'BALANCE(INR)',
      // `UPI/<RRN>/<name>/…`, `NEFT-<UTR>-…`, `IMPS/<RRN>/…`.
      utrPattern: '^(?:UPI|IMPS|NEFT|RTGS)[/-]([A-Z0-9]{12,22})(?:[/-]|$)',
    },
  },
];
