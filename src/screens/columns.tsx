/** Columns that several lists share, each under its own screen's header. */
import { formatTime, thousands } from '../lib/format.ts';
import { t } from '../lib/i18n.ts';
import { Badge, type Tone } from '../ui/Badge.tsx';
import type { Column } from '../ui/DataTable.tsx';
import { MerchantCell } from '../ui/MerchantCell.tsx';
import { percent } from './merchant/terms.ts';
import { Money } from './wallet/money.tsx';

/** The track of a merchant column: the code and as much of the name as fits. */
export const merchantWidth = 'minmax(140px, 1fr)';
/**
 * The same in a list that fits 1280 px beside the menu only at the code's old width (the order lists,
 * recharges, the simulator): the name shows as the window allows, and in the title.
 */
export const merchantWidthTight = 'minmax(80px, 1fr)';
type MerchantRow = { merchantCode: string | null; merchantName?: string | null };
/** A merchant column's cell: the code, and the name the row brings or the lookup finds. */
export const merchantCell = (r: MerchantRow) => <MerchantCell code={r.merchantCode} name={r.merchantName} />;

/**
 * The merchant's code and name (`MerchantCell`): on the platform's lists only (`shown`), where rows of
 * every merchant meet. Sorted and filtered by the code; the name is the row's own when it brings one.
 */
export function merchantColumn<R extends MerchantRow>(
  header: string,
  shown = true,
  width = merchantWidth,
): Column<R>[] {
  if (!shown) return [];
  return [
    {
      id: 'merchantCode',
      header,
      value: (r) => r.merchantCode ?? '',
      cell: merchantCell,
      width,
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

type Value = string | number | boolean | null;

/** A column off until the user turns it on, and not sorted: detail for the few who look for it. */
export const hidden = { hiddenByDefault: true, sortable: false } as const;
/** What one column changes beside its kind: another header key, its width, its own cell, not sortable … */
type Options<R> = Partial<Omit<Column<R>, 'id' | 'value'>>;

/**
 * The columns of one list, each a line: its header is the message `${prefix}.${id}`, its value the row's
 * field of that id, sortable unless told otherwise; the kind draws the cell (a code, a count, money, a
 * time, a badge). `of` is any other column: its value and, in the options, its cell.
 */
export function columnsOf<R>(prefix: string) {
  type Field = keyof R & string;
  const field = (id: Field) => (r: R) => (r[id] ?? '') as Value;
  const column = (id: string, value: (r: R) => Value, options?: Options<R>): Column<R> => ({
    id,
    header: `${prefix}.${id}`,
    value,
    sortable: true,
    ...options,
  });
  return {
    of: column,
    text: (id: Field, width?: string, options?: Options<R>) => column(id, field(id), { width, ...options }),
    code: (id: Field, width?: string, options?: Options<R>) =>
      column(id, field(id), { cell: (r) => <code>{String(r[id] ?? '')}</code>, width, ...options }),
    count: (id: Field, width?: string, options?: Options<R>) =>
      column(id, (r) => Number(r[id] ?? 0), {
        cell: (r) => thousands(r[id] as number | string),
        width,
        ...options,
      }),
    money: (id: Field, width?: string, options?: Options<R>) =>
      column(id, (r) => Number(r[id] ?? 0), {
        cell: (r) => <Money value={r[id] as string} />,
        width,
        ...options,
      }),
    /** A rate in per cent, as the merchant's and channel's terms write it. */
    rate: (id: Field, width?: string, options?: Options<R>) =>
      column(id, (r) => Number(r[id] ?? 0), { cell: (r) => percent(String(r[id])), width, ...options }),
    time: (id: Field, width = '150px', options?: Options<R>) =>
      column(id, field(id), { cell: (r) => formatTime(r[id] as string | null), width, ...options }),
    /** A state as a badge: its tone, and its label under `${prefix}.${labels}.${state}`. */
    badge: (id: Field, tone: (r: R) => Tone, labels: string, width?: string, options?: Options<R>) =>
      column(id, field(id), {
        cell: (r) => <Badge tone={tone(r)}>{t(`${prefix}.${labels}.${String(r[id])}`)}</Badge>,
        width,
        ...options,
      }),
  };
}
