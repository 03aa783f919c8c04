/**
 * Mappings for Indian banks' statement downloads (docs/STATEMENTS.md has each one's layout, its sample
 * and why the choices were made). Column names are the banks' own spellings; `headerRow` is 1 because
 * it depends on how many lines of account details the download puts above the table: the import
 * answers the row where the columns were found, and a mapping saved per account fixes it once.
 */
import type { StatementMapping } from '../../../contract/statementMapping.ts';

export interface StatementPreset {
  id: 'hdfc' | 'icici' | 'sbi' | 'axis';
  bankName: string;
  mapping: StatementMapping;
}

export const statementPresets: readonly StatementPreset[] = [
  {
    id: 'hdfc',
    bankName: 'HDFC Bank',
    mapping: {
      headerRow: 1,
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
      headerRow: 1,
      dateColumn: 'Transaction Date',
      dateFormat: 'dd/MM/yyyy',
      narrationColumn: 'Transaction Remarks',
      referenceColumn: 'Cheque Number',
      debitColumn: 'Withdrawal Amount (INR )',
      creditColumn: 'Deposit Amount (INR )',
      balanceColumn: 'Balance (INR )',
      // `UPI/<RRN>/…`, `MMT/IMPS/<RRN>/…`, `NEFT-<UTR>-…`, `RTGS-<UTR>-…`.
      utrPattern: '^(?:UPI/|MMT/IMPS/|NEFT-|RTGS-)([A-Z0-9]{12,22})[/-]',
    },
  },
  {
    id: 'sbi',
    bankName: 'State Bank of India',
    mapping: {
      headerRow: 1,
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
      headerRow: 1,
      dateColumn: 'Tran Date',
      dateFormat: 'dd-MM-yyyy',
      narrationColumn: 'PARTICULARS',
      referenceColumn: 'CHQNO',
      debitColumn: 'DR',
      creditColumn: 'CR',
      balanceColumn: 'BAL',
      // `UPI/P2A/<RRN>/<name>/…`, `IMPS/P2A/<RRN>/…`.
      utrPattern: '^(?:UPI|IMPS)/P2[AM]/(\\d{12})/',
    },
  },
];
