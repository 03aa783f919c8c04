import { thousands } from '../../lib/format.ts';
import { hasKey, t } from '../../lib/i18n.ts';

/** The merchant's wallet accounts, in the order the balances show them. */
export const walletAccounts = [
  'collection_available',
  'collection_pending',
  'payout_available',
  'frozen',
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

/**
 * The cause of a posting in words. Payout holds are numbered per attempt (`payout_freeze_2` is the hold
 * of a retried payout) and a settlement's later hold changes per change (`settlement_hold_2`: an edited
 * amount, a lower audit amount), so the number shows after the name; an unknown kind shows as stored.
 */
export function entryKindLabel(kind: string): string {
  const hold = /^(payout_freeze|payout_release|settlement_hold)_(\d+)$/.exec(kind);
  if (hold) {
    const name = t(`screens.wallet.kinds.${hold[1]}`);
    return Number(hold[2]) > 1 ? `${name} #${hold[2]}` : name;
  }
  const key = `screens.wallet.kinds.${kind}`;
  return hasKey(key) ? t(key) : kind;
}

/** A `YYYY-MM-DD` day of the date filter as the first or last instant of that day in local time. */
export function dayBound(value: string | undefined, end: boolean): string | undefined {
  if (!value) return undefined;
  const d = new Date(`${value}T${end ? '23:59:59.999' : '00:00:00'}`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
