/**
 * Maker–checker approvals (OPERATIONS.md section 1): an action on money above the
 * `maker_checker_threshold` parameter waits here as a request until a second platform user approves it
 * (the action then runs, in the approver's name) or rejects it (nothing runs).
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { approval } from '../machines.ts';
import { moneyOut } from '../money.ts';
import { actionReason, cursorPaging, id, listOf, moneyCode, strictObject } from '../schemas.ts';

/** The actions that can wait for a second person, named `<area>.<action>`. */
export const approvalActions = [
  'settlement.confirm',
  'payin.force',
  'payout.markSuccess',
  'wallet.adjust',
  'agentCommission.pay',
  'statement.pay',
  'recharge.confirm',
  'refund.create',
  'parameter.update',
  'statementFeed.save',
] as const;
export type ApprovalAction = (typeof approvalActions)[number];

export const approvalStatus = z.enum(approval.states);

export const approvalRow = z.object({
  id: z.number(),
  action: z.enum(approvalActions),
  /** The object it acts on: `payin`, `payout`, `settlement`… and its id. */
  refType: z.string(),
  refId: z.string(),
  /** The object as people name it (an order number, a settlement number); null when it has none. */
  label: z.nullable(z.string()),
  merchantId: z.nullable(z.number()),
  merchantCode: z.nullable(z.string()),
  currency: z.string(),
  /** The amount that made it need a second person. */
  amount: moneyOut,
  /** What the action will do beyond the amount (a UTR, a price), amounts as decimal strings. */
  summary: z.array(z.object({ key: z.string(), value: z.string() })),
  /** Why the requester asked. */
  reason: z.string(),
  /** Who may not decide it besides the requester: the importers of the statement it pays from. */
  barred: z.array(z.string()),
  status: approvalStatus,
  requestedBy: z.string(),
  requestedAt: z.string(),
  decidedBy: z.nullable(z.string()),
  decidedAt: z.nullable(z.string()),
  /** The approver's or rejecter's words. */
  decisionNote: z.nullable(z.string()),
});

export const approvalEndpoints = {
  /** Requests, oldest first (the queue's order); pending ones unless another status is asked for. */
  list: endpoint({
    method: 'GET',
    path: '/approval/list',
    caller: 'platform',
    grants: { platform: ['finance'] },
    input: z.object({
      status: z._default(approvalStatus, approval.state.pending),
      action: z.optional(z.enum(approvalActions)),
      ...cursorPaging(50),
    }),
    output: listOf(approvalRow),
  }),
  /** Runs the requested action in the approver's name; never by the user who asked (errno sameUser). */
  approve: endpoint({
    method: 'POST',
    path: '/approval/approve',
    caller: 'platform',
    grants: { platform: ['finance'] },
    input: strictObject({ id, code: moneyCode }),
    output: approvalRow,
  }),
  /** Nothing runs; the object is left as it is. */
  reject: endpoint({
    method: 'POST',
    path: '/approval/reject',
    caller: 'platform',
    grants: { platform: ['finance'] },
    input: strictObject({ id, reason: actionReason, code: moneyCode }),
    output: approvalRow,
  }),
};
