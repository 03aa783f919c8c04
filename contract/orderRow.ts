/**
 * An order row (a line of the pay-in or payout list, the head of its detail) declared once: its fields
 * in wire order, each with its schema and its `form`, how the server writes it from the order's column of
 * the same name. The contract's row schema, the columns a list page reads, the row view and the row's
 * JSON writer (server/modules/orders/row.ts) and the export's cells are all derived from it.
 */
import * as z from 'zod/mini';
import { moneyOut } from './money.ts';

/**
 * How a field is written from its stored value: `number` and `text` as they are, `money` (minor units)
 * as a decimal string, `time` as an ISO UTC string; `merchantCode` and `channelCode` are not columns of
 * the order but the codes of its merchant and channel. Any of them may be null where the schema says so.
 */
export type FieldForm = 'number' | 'text' | 'money' | 'time' | 'merchantCode' | 'channelCode';

export interface RowField<S extends z.ZodMiniType = z.ZodMiniType, F extends FieldForm = FieldForm> {
  form: F;
  schema: S;
}

const of = <F extends FieldForm, S extends z.ZodMiniType>(form: F, schema: S): RowField<S, F> => ({
  form,
  schema,
});

/** The fields an order row is made of. */
export const field = {
  id: of('number', z.number()),
  idOrNull: of('number', z.nullable(z.number())),
  text: of('text', z.string()),
  textOrNull: of('text', z.nullable(z.string())),
  /** Text from a closed set (a status, a source). */
  oneOf: <S extends z.ZodMiniType>(schema: S) => of('text', schema),
  money: of('money', moneyOut),
  moneyOrNull: of('money', z.nullable(moneyOut)),
  time: of('time', z.string()),
  timeOrNull: of('time', z.nullable(z.string())),
  merchantCode: of('merchantCode', z.string()),
  channelCode: of('channelCode', z.nullable(z.string())),
};

export type RowFields = Record<string, RowField>;

/** The row's schema: its fields' schemas, in their order. */
export const rowSchema = <F extends RowFields>(fields: F) =>
  z.object(
    Object.fromEntries(Object.entries(fields).map(([key, f]) => [key, f.schema])) as {
      [K in keyof F]: F[K]['schema'];
    },
  );
