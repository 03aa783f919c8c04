/**
 * An order row's declaration (contract/orderRow.ts) made into what the server needs: the order table's
 * columns a list page reads, where each sits in a page row, the row view of a stored order, and the row
 * written straight to JSON from a page row. Nothing here names a field: a field added to the declaration
 * is read, viewed and written everywhere.
 */
import { getTableColumns } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type * as z from 'zod/mini';
import { formatMinor } from '../../../contract/money.ts';
import type { FieldForm, RowFields } from '../../../contract/orderRow.ts';
import type { payinOrders, payoutOrders } from '../../db/schema.ts';
import { isoOf, isoOfMs } from '../../lib/isoTime.ts';

export type OrderTable = typeof payinOrders | typeof payoutOrders;

type CodeForm = 'merchantCode' | 'channelCode';
const isCode = (form: FieldForm): form is CodeForm => form === 'merchantCode' || form === 'channelCode';

/** The fields read from the order's own column of the same name (all but the codes). */
export type ColumnKey<F extends RowFields> = {
  [K in keyof F]: F[K]['form'] extends CodeForm ? never : K;
}[keyof F] &
  string;

/** The row as the contract's schema outputs it. */
export type RowOf<F extends RowFields> = { [K in keyof F]: z.output<F[K]['schema']> };

/**
 * A list page's row as the page statement reads it: the row's columns in their order (times as epoch
 * milliseconds), with the codes of the order's merchant and channel.
 */
export interface PageRow {
  values: readonly unknown[];
  merchantCode: string;
  channelCode: string | null;
}

/**
 * A text value as JSON: quoted as it is unless it holds a quote, a backslash or a control character (text
 * read from the database holds no lone surrogates), which is most values and half the cost of stringify.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON must escape.
const needsEscaping = /["\\\u0000-\u001f]/;
const jsonText = (v: unknown) =>
  v === null || v === undefined ? 'null' : needsEscaping.test(v as string) ? JSON.stringify(v) : `"${v}"`;

/** Each form as JSON text from a page row's value (times there are epoch milliseconds). */
const jsonOf: Record<Exclude<FieldForm, CodeForm>, (v: unknown) => string> = {
  number: (v) => (v === null ? 'null' : `${v}`),
  text: jsonText,
  money: (v) => (v === null ? 'null' : `"${formatMinor(v as number)}"`),
  time: (v) => (v === null ? 'null' : `"${isoOfMs(v as number)}"`),
};

/** Each form's view of a stored value (times there are Dates). */
const viewOf: Record<Exclude<FieldForm, CodeForm>, (v: unknown) => unknown> = {
  number: (v) => v,
  text: (v) => v,
  money: (v) => (v === null ? null : formatMinor(v as number)),
  time: (v) => (v === null ? null : isoOf(v as Date)),
};

export function orderRow<T extends OrderTable, F extends RowFields>(table: T, fields: F) {
  type Key = ColumnKey<F>;
  /** The stored order as far as the row reads it. */
  type Stored = Pick<T['$inferSelect'], Key & keyof T['$inferSelect']>;
  const entries = Object.entries(fields);
  const keys = entries.filter(([, f]) => !isCode(f.form)).map(([key]) => key as Key);
  const tableColumns = getTableColumns(table) as Record<string, AnyPgColumn>;
  const columns = Object.fromEntries(
    keys.map((key) => {
      const column = tableColumns[key];
      if (!column) throw new Error(`order row field ${key} is not a column of its table`);
      return [key, column];
    }),
  ) as Record<Key, AnyPgColumn>;
  const index = Object.fromEntries(keys.map((key, i) => [key, i])) as Record<Key, number>;
  const times: ReadonlySet<Key> = new Set(keys.filter((key) => fields[key]!.form === 'time'));

  // The JSON writer as one writer per field, each with its key written once here.
  const writers = entries.map(([key, f], n): ((r: PageRow) => string) => {
    const head = `${n ? ',' : '{'}${JSON.stringify(key)}:`;
    if (f.form === 'merchantCode') return (r) => head + jsonText(r.merchantCode);
    if (f.form === 'channelCode') return (r) => head + jsonText(r.channelCode);
    const at = index[key as Key];
    const write = jsonOf[f.form];
    return (r) => head + write(r.values[at]);
  });
  const viewers = entries.map(([key, f]) => ({ key, form: f.form }));

  return {
    fields,
    /** The columns a list row shows: the list reads only these (not the snapshots, most of a row's bytes). */
    columns,
    /** Where each column sits in a `PageRow`'s values. */
    index,
    /** The columns a page reads as epoch milliseconds. */
    times,
    /** The row of a stored order. */
    view(o: Stored, merchantCode: string, channelCode: string | null): RowOf<F> {
      const row: Record<string, unknown> = {};
      const stored = o as Record<string, unknown>;
      for (const { key, form } of viewers) {
        row[key] =
          form === 'merchantCode'
            ? merchantCode
            : form === 'channelCode'
              ? channelCode
              : viewOf[form](stored[key] ?? null);
      }
      return row as RowOf<F>;
    },
    /**
     * `view` of a page row, written as JSON text straight from its values: a list page would otherwise
     * build twenty objects only to serialise them again (a test keeps the two byte for byte the same).
     */
    json(r: PageRow): string {
      let out = '';
      for (const write of writers) out += write(r);
      return `${out}}`;
    },
  };
}

export type OrderRow<T extends OrderTable = OrderTable, F extends RowFields = RowFields> = ReturnType<
  typeof orderRow<T, F>
>;
