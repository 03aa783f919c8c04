/**
 * Platform parameters the money-out rules read (OPERATIONS.md section 4): each declared once with its
 * default and its value's schema. The server reads them through `server/lib/parameters.ts`; the
 * parameter screen (a later issue) lists and edits these declarations. Amounts are minor units.
 */
import * as z from 'zod/mini';

const minor = z.number().check(z.int(), z.minimum(0), z.maximum(1_000_000_000_000));

export const parameterDefs = {
  /** Smallest settlement application, in minor units. */
  min_settlement_amount: { kind: 'money', schema: minor, default: 10_000 },
  /** Above this amount (minor units) a second platform user must approve (maker–checker). */
  maker_checker_threshold: { kind: 'money', schema: minor, default: 10_000_000 },
  /** When the daily T+N settlement run starts, business time (`HH:MM`). */
  tn_run_time: {
    kind: 'time',
    schema: z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/)),
    default: '00:30',
  },
} as const;

export type ParameterKey = keyof typeof parameterDefs;
/** A parameter's value as its schema reads it (not the literal type of its default). */
export type ParameterValue<K extends ParameterKey> = z.output<(typeof parameterDefs)[K]['schema']>;
