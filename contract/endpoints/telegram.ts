/**
 * Telegram alerts (OPERATIONS.md section 4): the platform's bot (its token sealed, never answered), the
 * groups it alerts with the merchants and channels each follows and the alerts each asked for, a test
 * message, and every delivery recorded with its attempts and last error.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { telegramDelivery } from '../machines.ts';
import { amount, moneyOut } from '../money.ts';
import { code6, cursor, id, listOf, noControls, pageSize, strictObject } from '../schemas.ts';

/** The alert kinds a delivery can carry (`test`: a test message). */
export const telegramAlertKinds = [
  'callbackGaveUp',
  'payoutStuck',
  'settlementApplied',
  'payoutBalance',
  'channelRate',
  'nearThreshold',
  'statementFeed',
  'disputeDeadline',
  'test',
] as const;
export type TelegramAlertKind = (typeof telegramAlertKinds)[number];

/** At most this many merchants or channels a group follows by name (more: follow all). */
export const maxFollowed = 200;

/** The alerts of a group as the wire carries them: null or false, not wanted. */
const alertsIn = strictObject({
  callbackGaveUp: z._default(z.boolean(), false),
  /** Minutes a payout may stay under way before it is reported stuck (1 minute to 7 days). */
  payoutStuckMinutes: z._default(
    z.nullable(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(10_080))),
    null,
  ),
  settlementApplied: z._default(z.boolean(), false),
  /** Amounts decided alone just below the maker–checker threshold, repeated by one user or on one wallet. */
  nearThreshold: z._default(z.boolean(), false),
  /** A bank feed that cannot be read, or a file of it refused (docs/STATEMENTS.md "Bank feed (SFTP)"). */
  statementFeed: z._default(z.boolean(), false),
  /** An open dispute 48 hours and 4 hours before its deadline, and when it passes (docs/MONEY-BACK.md section 2). */
  disputeDeadline: z._default(z.boolean(), false),
  /** A merchant's payout wallet below this amount. */
  payoutBalanceFloor: z._default(z.nullable(amount), null),
  /** A channel's pay-in success rate over the last hour below this percentage. */
  channelSuccessFloorPct: z._default(
    z.nullable(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100))),
    null,
  ),
});

const alertsOut = z.object({
  callbackGaveUp: z.boolean(),
  payoutStuckMinutes: z.nullable(z.number()),
  settlementApplied: z.boolean(),
  nearThreshold: z.boolean(),
  statementFeed: z.boolean(),
  disputeDeadline: z.boolean(),
  payoutBalanceFloor: z.nullable(moneyOut),
  channelSuccessFloorPct: z.nullable(z.number()),
});

/** A Telegram chat id: a number (groups are negative) or a public channel's `@name`. */
const chatId = z
  .string()
  .check(
    z.trim(),
    z.regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/, { message: 'validation.telegramChat' }),
  );
const groupName = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(64), noControls);
const followed = z._default(
  z.array(id).check(
    z.maxLength(maxFollowed),
    z.refine((ids) => new Set(ids).size === ids.length, { message: 'validation.duplicate' }),
  ),
  [],
);

export const telegramGroupRow = z.object({
  id: z.number(),
  chatId: z.string(),
  name: z.string(),
  /** Empty: every merchant. */
  merchantIds: z.array(z.number()),
  /** Empty: every channel. */
  channelIds: z.array(z.number()),
  alerts: alertsOut,
  status: z.enum(['active', 'disabled']),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type TelegramGroupRow = z.output<typeof telegramGroupRow>;

export const telegramDeliveryRow = z.object({
  id: z.number(),
  groupId: z.number(),
  groupName: z.string(),
  alert: z.enum(telegramAlertKinds),
  text: z.string(),
  status: z.enum(telegramDelivery.states),
  attempts: z.number(),
  nextAttemptAt: z.nullable(z.string()),
  /** The last failure as the API (or the network) gave it, without the token. */
  lastError: z.nullable(z.string()),
  sentAt: z.nullable(z.string()),
  createdAt: z.string(),
});
export type TelegramDeliveryRow = z.output<typeof telegramDeliveryRow>;

const botInfo = z.object({
  /** Whether a token is set; the token itself is never answered. */
  set: z.boolean(),
  updatedAt: z.nullable(z.string()),
  updatedBy: z.nullable(z.string()),
});

const groupFields = {
  chatId,
  name: groupName,
  merchantIds: followed,
  channelIds: followed,
  alerts: alertsIn,
};

export const telegram = {
  bot: endpoint({
    method: 'GET',
    path: '/telegram/bot',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: z.object({}),
    output: botInfo,
  }),
  /** Sets or replaces the bot token (as @BotFather gives it), with the caller's Google code. */
  botUpdate: endpoint({
    method: 'POST',
    path: '/telegram/botUpdate',
    caller: 'platform',
    input: strictObject({
      token: z
        .string()
        .check(z.trim(), z.regex(/^\d{3,20}:[A-Za-z0-9_-]{20,80}$/, { message: 'validation.telegramToken' })),
      code: code6,
    }),
    output: botInfo,
  }),
  groupList: endpoint({
    method: 'GET',
    path: '/telegram/groupList',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: z.object({}),
    output: listOf(telegramGroupRow),
  }),
  groupCreate: endpoint({
    method: 'POST',
    path: '/telegram/groupCreate',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject(groupFields),
    output: telegramGroupRow,
  }),
  /** Replaces a group's settings; `status` disables or enables it. */
  groupUpdate: endpoint({
    method: 'POST',
    path: '/telegram/groupUpdate',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject({ id, ...groupFields, status: z.optional(z.enum(['active', 'disabled'])) }),
    output: telegramGroupRow,
  }),
  /** Deletes a group with its deliveries. */
  groupDelete: endpoint({
    method: 'POST',
    path: '/telegram/groupDelete',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject({ id }),
    output: z.object({ ok: z.literal(true) }),
  }),
  /** Sends a test message to a group now; answers the delivery (sent, or waiting for a retry, with the error). */
  test: endpoint({
    method: 'POST',
    path: '/telegram/test',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject({ id }),
    output: telegramDeliveryRow,
  }),
  /** Deliveries, newest first, keyset paged. */
  deliveryList: endpoint({
    method: 'GET',
    path: '/telegram/deliveryList',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: z.object({
      groupId: z.optional(id),
      status: z.optional(z.enum(telegramDelivery.states)),
      cursor,
      pageSize,
    }),
    output: listOf(telegramDeliveryRow),
  }),
  /** A delivery waiting for its next attempt, tried now. */
  deliveryRetry: endpoint({
    method: 'POST',
    path: '/telegram/deliveryRetry',
    caller: 'platform',
    grants: { platform: ['operator'] },
    input: strictObject({ id }),
    output: telegramDeliveryRow,
  }),
};
