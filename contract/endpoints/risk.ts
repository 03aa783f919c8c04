/**
 * Risk rules (docs/MONEY-BACK.md section 4): the platform's blocklist, consulted where what it names is
 * known (the merchant and the payer's phone and e-mail at pay-in creation, the payer's address on the pay
 * page), and the refusals the rules made, counted by rule. Velocity limits are merchant terms
 * (`merchant.update`). A refusal answers `riskBlocked` or `velocityExceeded` with `{rule}`: the rule,
 * never the blocked value.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import {
  actionReason,
  cursorPaging,
  id,
  isoTime,
  listOf,
  noControls,
  okFlag,
  strictObject,
} from '../schemas.ts';

/** What a blocklist entry names: a merchant (its code), or a payer by phone, e-mail, address or VPA. */
export const blocklistKinds = ['merchant', 'payer_phone', 'payer_email', 'payer_ip', 'payer_vpa'] as const;
export type BlocklistKind = (typeof blocklistKinds)[number];
export const blocklistKind = z.enum(blocklistKinds);

/** The rules that refuse: a blocklist kind, or one of the merchant's two velocity limits. */
export const riskRules = [...blocklistKinds, 'velocity_count', 'velocity_amount'] as const;
export type RiskRule = (typeof riskRules)[number];

/**
 * A value as the blocklist stores and compares it: trimmed; an e-mail, a VPA and an address in lower case;
 * a phone without spaces, dashes, dots or brackets. A merchant is named by its code, as written.
 */
export function normalBlockValue(kind: BlocklistKind, value: string): string {
  const v = value.trim();
  if (kind === 'payer_phone') return v.replace(/[\s().-]/g, '');
  if (kind === 'merchant') return v;
  return v.toLowerCase();
}

export const blocklistRow = z.object({
  id: z.number(),
  kind: blocklistKind,
  value: z.string(),
  reason: z.string(),
  /** When it stops applying; null: until removed. */
  endsAt: z.nullable(z.string()),
  /** Applies now: not removed and not past its end. */
  active: z.boolean(),
  createdBy: z.string(),
  createdAt: z.string(),
  removedBy: z.nullable(z.string()),
  removedAt: z.nullable(z.string()),
});

const blockValue = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(254), noControls);

const grants = { platform: ['operator'] } as const;

export const blocklist = {
  /** Newest first; removed and ended entries too (`state` narrows), as the record of what applied. */
  list: endpoint({
    method: 'GET',
    path: '/blocklist/list',
    caller: 'platform',
    grants,
    input: z.object({
      kind: z.optional(blocklistKind),
      state: z.optional(z.enum(['active', 'inactive'])),
      ...cursorPaging(50),
    }),
    output: listOf(blocklistRow),
  }),
  /**
   * A new entry, applied from the next request on. One live entry per kind and value (409 while one
   * applies); a merchant is named by its code (404 when there is none).
   */
  add: endpoint({
    method: 'POST',
    path: '/blocklist/add',
    caller: 'platform',
    grants,
    input: strictObject({
      kind: blocklistKind,
      value: blockValue,
      reason: actionReason,
      endsAt: z.optional(z.nullable(isoTime)),
    }),
    output: blocklistRow,
  }),
  /** Stops an entry applying; the entry stays, with who removed it and when. */
  remove: endpoint({
    method: 'POST',
    path: '/blocklist/remove',
    caller: 'platform',
    grants,
    input: strictObject({ id }),
    output: okFlag,
  }),
};
