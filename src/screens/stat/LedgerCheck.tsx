import { formatMinor } from '../../../contract/money.ts';
import { thousands } from '../../lib/format.ts';
import type { Translate } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';

/** A report's closing beside the ledger's, and whether they differ. */
interface Closing {
  closing: string;
  ledgerClosing: string;
  mismatch: boolean;
}

/** The ledger's closing less the report's, as an amount ("10.00"). */
const difference = (f: Closing) =>
  formatMinor(Math.round(Number(f.ledgerClosing) * 100) - Math.round(Number(f.closing) * 100));

/**
 * Ties with the ledger, or by how much it does not: the flag a person looks for, in the words of the
 * report's message area (its `ties` and `differs`).
 */
export function LedgerCheck({
  figures,
  area,
  t,
}: {
  figures: Closing;
  area: 'screens.d0' | 'reports.payout';
  t: Translate;
}) {
  return figures.mismatch ? (
    <Badge tone="bad">{t(`${area}.differs`, { amount: thousands(difference(figures)) })}</Badge>
  ) : (
    <Badge tone="ok">{t(`${area}.ties`)}</Badge>
  );
}
