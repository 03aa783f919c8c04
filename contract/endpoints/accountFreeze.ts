/**
 * Frozen receiving accounts (docs/MONEY-BACK.md section 3): a bank's freeze of one of our accounts recorded
 * with the amount and the bank's reference, attributed to the merchants whose pay-ins were paid into it
 * (newest first back from the freeze), each one's share held; settled once by what the bank released and
 * wrote off. Platform users only: a merchant sees its held share in its wallet's `frozen` and its log.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { accountFreeze as machine } from '../machines.ts';
import { amount, amountOrZero, moneyOut } from '../money.ts';
import {
  actionReason,
  bankReference,
  code6,
  id,
  isoTime,
  listOf,
  noControls,
  noControlsButBreaks,
  pagePaging,
  strictObject,
} from '../schemas.ts';

export const accountFreezeStatus = z.enum(machine.states);

export const accountFreezeRow = z.object({
  id: z.number(),
  receivingAccountId: z.number(),
  /** The account as lists name it (`accountLabel`): its bank and the number's last four digits. */
  accountLabel: z.string(),
  accountKind: z.enum(['public', 'card']),
  currency: z.string(),
  amount: moneyOut,
  reference: z.string(),
  frozenAt: z.string(),
  note: z.string(),
  status: accountFreezeStatus,
  /** What the account's paid orders could not cover: the platform's own. */
  unattributed: moneyOut,
  /** Held from the merchants, and what their wallets could not cover. */
  held: moneyOut,
  unheld: moneyOut,
  merchants: z.number(),
  released: z.nullable(moneyOut),
  writtenOff: z.nullable(moneyOut),
  settleReason: z.nullable(z.string()),
  recordedBy: z.string(),
  createdAt: z.string(),
  settledBy: z.nullable(z.string()),
  settledAt: z.nullable(z.string()),
});

/** One merchant's share of a freeze and what became of it. */
export const accountFreezeLine = z.object({
  id: z.number(),
  merchantId: z.number(),
  merchantCode: z.string(),
  merchantName: z.string(),
  currency: z.string(),
  amount: moneyOut,
  orderCount: z.number(),
  heldCollectionAvailable: moneyOut,
  heldPayoutAvailable: moneyOut,
  held: moneyOut,
  unheld: moneyOut,
  /** The line's part of the bank's outcome (null until settled). */
  released: z.nullable(moneyOut),
  writtenOff: z.nullable(moneyOut),
});

export const accountFreezeDetail = z.object({
  ...accountFreezeRow.shape,
  lines: z.array(accountFreezeLine),
});

const grants = { platform: ['finance'] } as const;
const reads = { platform: ['operator', 'finance'] } as const;

export const accountFreezeEndpoints = {
  /**
   * Records a freeze: the account becomes `frozen` (out of routing) and each attributed merchant's share
   * is held, in one transaction. One open freeze per account (409 while one is).
   */
  record: endpoint({
    method: 'POST',
    path: '/accountFreeze/record',
    caller: 'platform',
    grants,
    input: strictObject({
      accountId: id,
      amount,
      reference: bankReference(noControls),
      /** When the bank froze it (default: now; never later than now). */
      frozenAt: z.optional(isoTime),
      note: z._default(z.string().check(z.trim(), z.maxLength(2000), noControlsButBreaks), ''),
      code: code6,
    }),
    output: accountFreezeDetail,
  }),
  /** Newest first. */
  list: endpoint({
    method: 'GET',
    path: '/accountFreeze/list',
    caller: 'platform',
    grants: reads,
    input: z.object({
      accountId: z.optional(id),
      status: z.optional(accountFreezeStatus),
      ...pagePaging(20),
    }),
    output: listOf(accountFreezeRow),
  }),
  /** A freeze with its lines: whose money it holds. */
  info: endpoint({
    method: 'GET',
    path: '/accountFreeze/info',
    caller: 'platform',
    grants: reads,
    input: z.object({ id }),
    output: accountFreezeDetail,
  }),
  /**
   * The bank's outcome (`released + writtenOff = amount`, else 422): released shares go back to the
   * merchants, written-off shares are spent to channel clearing, in proportion to each line. Never by the
   * user who recorded it (errno sameUser); once (409).
   */
  settle: endpoint({
    method: 'POST',
    path: '/accountFreeze/settle',
    caller: 'platform',
    grants,
    input: strictObject({
      id,
      released: amountOrZero,
      writtenOff: amountOrZero,
      reason: actionReason,
      code: code6,
    }),
    output: accountFreezeDetail,
  }),
};
