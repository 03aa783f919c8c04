/** Columns that several lists share, each under its own screen's header. */
import { formatTime } from '../lib/format.ts';
import type { Column } from '../ui/DataTable.tsx';
import { Money } from './wallet/money.tsx';

/** The merchant's code: on the platform's lists only (`shown`), where rows of every merchant meet. */
export function merchantColumn<R extends { merchantCode: string | null }>(
  header: string,
  shown = true,
): Column<R>[] {
  if (!shown) return [];
  return [
    {
      id: 'merchantCode',
      header,
      value: (r) => r.merchantCode ?? '',
      width: 'minmax(80px, 0.6fr)',
      sortable: true,
    },
  ];
}

/** An amount with its currency beside it, sorted by the amount. */
export function amountColumn<R extends { amount: string; currency: string }>(header: string): Column<R> {
  return {
    id: 'amount',
    header,
    value: (r) => Number(r.amount),
    cell: (r) => (
      <>
        <Money value={r.amount} /> <span className="muted">{r.currency}</span>
      </>
    ),
    width: 'minmax(130px, 0.9fr)',
    sortable: true,
  };
}

/** An instant as the console writes it (date and time), sorted by it. */
export function timeColumn<R, K extends keyof R & string>(id: K, header: string, width = '170px'): Column<R> {
  return {
    id,
    header,
    value: (r) => r[id] as string,
    cell: (r) => formatTime(r[id] as string),
    width,
    sortable: true,
  };
}
