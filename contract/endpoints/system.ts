import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { cursor, empty, isoTime, listOf, pageSize } from '../schemas.ts';

export const operationLogRow = z.object({
  id: z.number(),
  at: z.string(),
  userId: z.nullable(z.number()),
  username: z.string(),
  merchantId: z.nullable(z.number()),
  ip: z.string(),
  requestId: z.string(),
  action: z.string(),
  target: z.string(),
  outcome: z.enum(['ok', 'failed', 'denied']),
  errno: z.number(),
  detail: z.unknown(),
});

export const health = {
  check: endpoint({
    method: 'GET',
    path: '/health',
    caller: 'public',
    input: empty,
    output: z.object({ status: z.literal('ok'), db: z.enum(['pglite', 'postgres']) }),
  }),
};

export const log = {
  list: endpoint({
    method: 'GET',
    path: '/log/list',
    caller: 'both',
    grants: { platform: ['operator', 'finance'], merchant: ['finance', 'operator', 'developer'] },
    input: z.object({
      pageSize,
      cursor,
      username: z.optional(z.string().check(z.maxLength(64))),
      action: z.optional(z.string().check(z.maxLength(80))),
      outcome: z.optional(z.enum(['ok', 'failed', 'denied'])),
      from: z.optional(isoTime),
      to: z.optional(isoTime),
    }),
    output: listOf(operationLogRow),
  }),
};

export const mailOutbox = {
  /**
   * Stored messages carry sign-in and reset codes: super administrators only, each read logged, and a
   * code that can no longer be used is masked.
   */
  list: endpoint({
    method: 'GET',
    path: '/mailOutbox/list',
    caller: 'superAdmin',
    input: z.object({ pageSize, cursor, to: z.optional(z.string().check(z.maxLength(254))) }),
    output: listOf(
      z.object({
        id: z.number(),
        at: z.string(),
        to: z.string(),
        subject: z.string(),
        body: z.nullable(z.string()),
        transport: z.enum(['smtp', 'outbox']),
        status: z.enum(['sent', 'stored', 'failed']),
        error: z.nullable(z.string()),
      }),
    ),
  }),
};
