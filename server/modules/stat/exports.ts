/**
 * The reports as CSV or XLSX files (`/statOrder/list/export`, `/statOrder/channel/export`,
 * `/statOrder/balance/export`): every row of the report's filters, read a page at a time by the report's
 * own keyset (the same functions the JSON answers use, so the file holds exactly its rows), then the
 * totals, one row per currency (and wallet) marked as the total. Amounts are written as the JSON gives
 * them (`1234.50`), rates as fractions, names and codes formula-guarded (`stream.ts`).
 */
import { type Lang, t } from '../../http/i18n.ts';
import type { Column, ExportSource, Keyset } from '../export/stream.ts';

/** A row of a report's file: the JSON row's fields (a totals row has no day, merchant or channel). */
export type ReportRow = Record<string, string | number | boolean | null>;

/** How a cell is written: as it is (numbers, amounts), as free text, a rate, a wallet, yes or no. */
type Form = 'plain' | 'text' | 'rate' | 'wallet' | 'flag';

const cellOf = (form: Form, lang: Lang) => (v: string | number | boolean | null | undefined) => {
  if (v === null || v === undefined || v === '') return null;
  if (form === 'rate') return (v as number).toFixed(4);
  if (form === 'wallet') return t(lang, `export.wallets.${v}`);
  if (form === 'flag') return t(lang, v ? 'export.yes' : 'export.no');
  return String(v);
};

/** Columns from `[field, form]` pairs: the header is the locale key `export.columns.<field>`. */
export function reportColumns(fields: readonly (readonly [string, Form])[], lang: Lang): Column<ReportRow>[] {
  return fields.map(([key, form]) => {
    const write = cellOf(form, lang);
    return { key, value: (r) => write(r[key]), text: form === 'text' };
  });
}

const orderFields = [
  ['payinCreated', 'plain'],
  ['payinPaid', 'plain'],
  ['payinSuccessRate', 'rate'],
  ['payinPaidAmount', 'plain'],
  ['payinFee', 'plain'],
  ['payinNet', 'plain'],
  ['payoutCreated', 'plain'],
  ['payoutSucceeded', 'plain'],
  ['payoutAmount', 'plain'],
  ['payoutFee', 'plain'],
] as const;

/** The order statistics' columns; the channel's only when the rows are by channel. */
export const orderStatFields = (byChannel: boolean) =>
  [
    ['day', 'text'],
    ['merchantCode', 'text'],
    ...(byChannel ? ([['channelName', 'text']] as const) : []),
    ['currency', 'text'],
    ...orderFields,
  ] as const;

export const channelStatFields = [
  ['day', 'text'],
  ['channelCode', 'text'],
  ['channelName', 'text'],
  ['currency', 'text'],
  ['payinCreated', 'plain'],
  ['payinPaid', 'plain'],
  ['payinSuccessRate', 'rate'],
  ['payinAmount', 'plain'],
  ['medianPaySeconds', 'plain'],
  ['payoutCreated', 'plain'],
  ['payoutSucceeded', 'plain'],
  ['payoutSuccessRate', 'rate'],
  ['payoutAmount', 'plain'],
  ['channelCost', 'plain'],
  ['feeIncome', 'plain'],
  ['margin', 'plain'],
] as const;

export const merchantViewFields = [
  ['merchantCode', 'text'],
  ['merchantName', 'text'],
  ['wallet', 'wallet'],
  ['currency', 'text'],
  ['opening', 'plain'],
  ['collected', 'plain'],
  ['payouts', 'plain'],
  ['settlements', 'plain'],
  ['recharges', 'plain'],
  ['transfers', 'plain'],
  ['adjustments', 'plain'],
  ['other', 'plain'],
  ['closing', 'plain'],
  ['ledgerClosing', 'plain'],
  ['mismatch', 'flag'],
] as const;

/**
 * A report read page by page (`page(cursor, size)`), its totals rows after the last page, each with the
 * first column set to the locale's "Total". The keyset's `at` carries the report's own cursor; a batch
 * shorter than asked ends the file (`stream.ts`), so the totals ride with the last page.
 */
export function reportSource(
  columns: Column<ReportRow>[],
  page: (cursor: string | null, size: number) => Promise<{ list: ReportRow[]; nextCursor: string | null }>,
  totals: () => Promise<ReportRow[]>,
  lang: Lang,
): ExportSource<ReportRow> {
  const first = columns[0]!.key;
  return {
    columns,
    async batch(after: Keyset | null, limit: number) {
      const { list, nextCursor } = await page(after?.at ?? null, limit);
      if (nextCursor) return { rows: list, last: { at: nextCursor, id: '' } };
      const sums = (await totals()).map((r) => ({ ...r, [first]: t(lang, 'export.totalRow') }));
      return { rows: [...list, ...sums], last: null };
    },
  };
}
