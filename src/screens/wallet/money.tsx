import { thousands } from '../../lib/format.ts';

/** The merchant's wallet accounts, its reserve and its debt, in the order the balances show them. */
export const walletAccounts = [
  'collection_available',
  'collection_pending',
  'payout_available',
  'frozen',
  'reserve',
  'merchant_debt',
] as const;

/** An amount string as the API answers it ("-1234.50"), with thousands separators; `signed` marks + and −. */
export function Money({ value, signed = false }: { value: string; signed?: boolean }) {
  const negative = value.startsWith('-');
  const tone = signed ? (negative ? ' negative' : ' positive') : '';
  return (
    <span className={`money${tone}`}>
      {signed && !negative && value !== '0.00' ? '+' : ''}
      {thousands(value)}
    </span>
  );
}

/** A `YYYY-MM-DD` day of the date filter as the first or last instant of that day in local time. */
export function dayBound(value: string | undefined, end: boolean): string | undefined {
  if (!value) return undefined;
  const d = new Date(`${value}T${end ? '23:59:59.999' : '00:00:00'}`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
