/**
 * Telegram alerts' endpoints (contract/endpoints/telegram.ts): the bot token (sealed, never answered), the
 * groups, a test message and the deliveries. Sending waits on the network, so the test message and
 * "retry now" run outside the request's transaction (recorded first, then sent, then settled).
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { TelegramDeliveryRow, TelegramGroupRow } from '../../../contract/endpoints/telegram.ts';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { telegramDelivery } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import { type Db, inTransaction } from '../../db/index.ts';
import {
  channels,
  merchants,
  type TelegramAlerts,
  telegramBot,
  telegramDeliveries,
  telegramGroups,
  users,
} from '../../db/schema.ts';
import { AppError, foundOne, refuse } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { changes } from '../../lib/redact.ts';
import { createdPlace, keysetList } from '../../list/engine.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { botToken, sendNow } from './sender.ts';
import { enqueueTest } from './service.ts';

type Group = typeof telegramGroups.$inferSelect;
type Delivery = typeof telegramDeliveries.$inferSelect;

const groupRowOf = (g: Group): TelegramGroupRow => ({
  id: g.id,
  chatId: g.chatId,
  name: g.name,
  merchantIds: g.merchantIds,
  channelIds: g.channelIds,
  alerts: {
    ...g.alerts,
    nearThreshold: g.alerts.nearThreshold ?? false,
    statementFeed: g.alerts.statementFeed ?? false,
    disputeDeadline: g.alerts.disputeDeadline ?? false,
    payoutBalanceFloor: g.alerts.payoutBalanceFloor == null ? null : formatMinor(g.alerts.payoutBalanceFloor),
  },
  status: g.status,
  createdAt: g.createdAt.toISOString(),
  updatedAt: g.updatedAt.toISOString(),
});

const deliveryRowOf = (d: Delivery, groupName: string): TelegramDeliveryRow => ({
  id: d.id,
  groupId: d.groupId,
  groupName,
  alert: d.alert as TelegramDeliveryRow['alert'],
  text: d.text,
  status: d.status,
  attempts: d.attempts,
  nextAttemptAt: d.status === telegramDelivery.state.pending ? d.nextAttemptAt.toISOString() : null,
  lastError: d.lastError,
  sentAt: d.sentAt?.toISOString() ?? null,
  createdAt: d.createdAt.toISOString(),
});

async function botInfo(tx: Db) {
  const [bot] = await tx
    .select({ updatedAt: telegramBot.updatedAt, by: users.username })
    .from(telegramBot)
    .leftJoin(users, eq(users.id, telegramBot.updatedBy))
    .where(eq(telegramBot.id, 1));
  return { set: !!bot, updatedAt: bot?.updatedAt.toISOString() ?? null, updatedBy: bot?.by ?? null };
}

async function groupOf(tx: Db, id: number): Promise<Group> {
  const [g] = await tx.select().from(telegramGroups).where(eq(telegramGroups.id, id));
  if (!g) throw new AppError(errno.notFound);
  return g;
}

interface GroupInput {
  chatId: string;
  name: string;
  merchantIds: number[];
  channelIds: number[];
  alerts: Omit<TelegramAlerts, never>;
}

/** 422 for a merchant or channel that does not exist, or a chat another group already has. */
async function checkGroup(tx: Db, g: GroupInput, lang: Lang, self?: number) {
  const missing = async (table: typeof merchants | typeof channels, ids: number[]) => {
    if (!ids.length) return false;
    const found = await tx.select({ id: table.id }).from(table).where(inArray(table.id, ids));
    return found.length !== ids.length;
  };
  if (await missing(merchants, g.merchantIds))
    throw invalidField(lang, 'merchantIds', 'validation.merchantUnknown');
  if (await missing(channels, g.channelIds))
    throw invalidField(lang, 'channelIds', 'validation.channelUnknown');
  const [other] = await tx
    .select({ id: telegramGroups.id })
    .from(telegramGroups)
    .where(eq(telegramGroups.chatId, g.chatId));
  if (other && other.id !== self) throw invalidField(lang, 'chatId', 'validation.telegramChatTaken');
}

/** What the operation log keeps of a group. */
const logged = (g: GroupInput & { status?: string }) => ({
  chatId: g.chatId,
  name: g.name,
  merchantIds: g.merchantIds,
  channelIds: g.channelIds,
  alerts: g.alerts,
  status: g.status,
});

async function deliveryOf(tx: Db, id: number) {
  return foundOne(
    tx
      .select({ d: telegramDeliveries, name: telegramGroups.name })
      .from(telegramDeliveries)
      .innerJoin(telegramGroups, eq(telegramGroups.id, telegramDeliveries.groupId))
      .where(eq(telegramDeliveries.id, id)),
  );
}

export const telegramRoutes = [
  handle(endpoints.telegram.bot, async ({ tx }) => botInfo(tx)),

  handle(endpoints.telegram.botUpdate, async ({ input, user, tx, deps, req, audit }) => {
    audit({ target: 'telegram:bot' });
    const refusal = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refusal) return refusal;
    const had = (await botInfo(tx)).set;
    const set = {
      tokenSealed: deps.sealer.seal(input.token),
      updatedBy: user.id,
      updatedAt: deps.clock.now(),
    };
    await tx
      .insert(telegramBot)
      .values({ id: 1, ...set })
      .onConflictDoUpdate({ target: telegramBot.id, set });
    audit({ detail: { replaced: had } });
    return botInfo(tx);
  }),

  handle(endpoints.telegram.groupList, async ({ tx }) => {
    const rows = await tx.select().from(telegramGroups).orderBy(telegramGroups.name, telegramGroups.id);
    return { list: rows.map(groupRowOf), total: rows.length, nextCursor: null };
  }),

  handle(endpoints.telegram.groupCreate, async ({ input, tx, deps, req, audit }) => {
    await checkGroup(tx, input, req.lang);
    const now = deps.clock.now();
    const [g] = await tx
      .insert(telegramGroups)
      .values({ ...input, createdAt: now, updatedAt: now })
      .returning();
    audit({ target: `telegramGroup:${g!.id}`, changes: changes({}, logged(input)) });
    return groupRowOf(g!);
  }),

  handle(endpoints.telegram.groupUpdate, async ({ input, tx, deps, req, audit }) => {
    const old = await groupOf(tx, input.id);
    audit({ target: `telegramGroup:${old.id}` });
    await checkGroup(tx, input, req.lang, old.id);
    const { id, ...set } = input;
    const [g] = await tx
      .update(telegramGroups)
      .set({ ...set, updatedAt: deps.clock.now() })
      .where(eq(telegramGroups.id, id))
      .returning();
    audit({ changes: changes(logged(old), logged(set)) });
    return groupRowOf(g!);
  }),

  handle(endpoints.telegram.groupDelete, async ({ input, tx, audit }) => {
    const old = await groupOf(tx, input.id);
    audit({ target: `telegramGroup:${old.id}`, detail: { chatId: old.chatId, name: old.name } });
    await tx.delete(telegramGroups).where(eq(telegramGroups.id, old.id));
    return { ok: true as const };
  }),

  handle(
    endpoints.telegram.test,
    async ({ input, deps, audit }) => {
      audit({ target: `telegramGroup:${input.id}` });
      const token = await botToken(deps);
      if (!token) return refuse(errno.telegramNoBot);
      const id = await inTransaction(deps.database.db, async (tx) => {
        const g = await groupOf(tx, input.id);
        if (g.status !== 'active') throw new AppError(errno.telegramGroupDisabled);
        return enqueueTest(deps, tx, g);
      });
      await sendNow(deps, id, token);
      const row = await deliveryOf(deps.database.db, id);
      audit({ detail: { delivery: id, status: row.d.status } });
      return deliveryRowOf(row.d, row.name);
    },
    { outsideTransaction: true },
  ),

  handle(endpoints.telegram.deliveryList, async ({ input, tx, req }) => {
    const { page, ...rest } = await keysetList(
      tx,
      {
        query: tx
          .select({ d: telegramDeliveries, name: telegramGroups.name })
          .from(telegramDeliveries)
          .innerJoin(telegramGroups, eq(telegramGroups.id, telegramDeliveries.groupId))
          .$dynamic(),
        table: telegramDeliveries,
        where: and(
          input.groupId ? eq(telegramDeliveries.groupId, input.groupId) : undefined,
          input.status ? eq(telegramDeliveries.status, input.status) : undefined,
        ),
        keyset: {
          at: telegramDeliveries.createdAt,
          id: telegramDeliveries.id,
          placeOf: (r) => createdPlace(r.d),
        },
      },
      input,
      req.lang,
    );
    return { list: page.map((r) => deliveryRowOf(r.d, r.name)), ...rest };
  }),

  handle(
    endpoints.telegram.deliveryRetry,
    async ({ input, deps, audit }) => {
      audit({ target: `telegramDelivery:${input.id}` });
      const before = await deliveryOf(deps.database.db, input.id);
      if (before.d.status !== telegramDelivery.state.pending) throw new AppError(errno.conflict);
      const token = await botToken(deps);
      if (!token) return refuse(errno.telegramNoBot);
      // Null: another sender holds it right now; its outcome shows in the list.
      await sendNow(deps, input.id, token);
      const row = await deliveryOf(deps.database.db, input.id);
      audit({ detail: { status: row.d.status } });
      return deliveryRowOf(row.d, row.name);
    },
    { outsideTransaction: true },
  ),
];
