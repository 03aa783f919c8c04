/**
 * The platform parameters (OPERATIONS.md section 4, declared in contract/parameters.ts): listed with their
 * defaults, changed one at a time with the caller's Google code, each change logged before/after.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { parameterKinds } from '../parameters.ts';
import { code6, listOf, strictObject } from '../schemas.ts';

export const parameterRow = z.object({
  key: z.string(),
  kind: z.enum(parameterKinds),
  /** The value in force: the stored one when valid, else the default. Amounts as decimal strings. */
  value: z.unknown(),
  default: z.unknown(),
  /** Whether a value is stored (else the default applies). */
  set: z.boolean(),
  updatedAt: z.nullable(z.string()),
});
export type ParameterRow = z.output<typeof parameterRow>;

export const parameter = {
  /** Every declared parameter, in declaration order. */
  list: endpoint({
    method: 'GET',
    path: '/parameter/list',
    caller: 'platform',
    input: z.object({}),
    output: listOf(parameterRow),
  }),
  /** Sets one parameter; the value is checked against its declaration. */
  update: endpoint({
    method: 'POST',
    path: '/parameter/update',
    caller: 'platform',
    input: strictObject({ key: z.string().check(z.maxLength(64)), value: z.unknown(), code: code6 }),
    output: parameterRow,
  }),
};
