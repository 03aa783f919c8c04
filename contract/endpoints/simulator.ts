/** The simulator channel's controls. */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { strictObject, utr } from '../schemas.ts';

/** The simulator channel's controls, in two parts registered with the pay-in and payout code. */
export const simulatorPay = {
  /** Settles a simulator pay-in as its channel callback would; `notify: false` loses the callback. */
  pay: endpoint({
    method: 'POST',
    path: '/simulator/pay',
    caller: 'platform',
    input: strictObject({
      orderNo: z.string().check(z.maxLength(64)),
      result: z.enum(['success', 'fail']),
      utr: z.optional(utr),
      notify: z.optional(z.boolean()),
    }),
    output: z.object({
      orderNo: z.string(),
      utr: z.nullable(z.string()),
      notified: z.boolean(),
      status: z.string(),
    }),
  }),
};

export const simulatorPayout = {
  payout: endpoint({
    method: 'POST',
    path: '/simulator/payout',
    caller: 'platform',
    input: strictObject({ orderNo: z.string().check(z.maxLength(64)), result: z.enum(['success', 'fail']) }),
    output: z.object({ orderNo: z.string(), status: z.string() }),
  }),
};
