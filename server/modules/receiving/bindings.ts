/** Card bindings (`cardBinding.*`): which bank channel offers an account, with what weight, to which merchants, at what hours. */
import { and, desc, eq, inArray } from 'drizzle-orm';
import { endpoints } from '../../../contract/index.ts';
import { bankAdapterName } from '../../channels/bank.ts';
import { cardBindings, channels, merchants, receivingAccounts } from '../../db/schema.ts';
import { foundOne } from '../../http/errors.ts';
import { type Context, handle } from '../../http/handle.ts';
import { invalidField } from '../../http/validation.ts';
import { pagedList } from '../../list/engine.ts';
import { labelColumns, orTaken } from './shared.ts';

const { cardBinding } = endpoints;

/** "HH:MM" → minutes of the day, and back. */
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const clockOf = (m: number | null) =>
  m === null ? null : `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

async function createBinding({ input, tx, deps, req, audit }: Context<typeof cardBinding.create>) {
  audit({ detail: input });
  const [account] = await tx
    .select({ id: receivingAccounts.id })
    .from(receivingAccounts)
    .where(eq(receivingAccounts.id, input.accountId));
  if (!account) throw invalidField(req.lang, 'accountId', 'validation.accountUnknown');
  const [channel] = await tx
    .select({ adapter: channels.adapter })
    .from(channels)
    .where(eq(channels.id, input.channelId));
  if (channel?.adapter !== bankAdapterName)
    throw invalidField(req.lang, 'channelId', 'validation.bindingChannel');
  if (input.merchantIds.length) {
    const found = await tx
      .select({ id: merchants.id })
      .from(merchants)
      .where(inArray(merchants.id, input.merchantIds));
    if (found.length !== input.merchantIds.length)
      throw invalidField(req.lang, 'merchantIds', 'validation.merchantUnknown');
  }
  const from = input.activeFrom === undefined ? null : minutesOf(input.activeFrom);
  const to = input.activeTo === undefined ? null : minutesOf(input.activeTo);
  if (from !== null && from === to) throw invalidField(req.lang, 'activeTo', 'validation.hoursPair');
  const [row] = await orTaken(
    'channelId',
    tx
      .insert(cardBindings)
      .values({
        accountId: input.accountId,
        channelId: input.channelId,
        weight: input.weight,
        merchantIds: input.merchantIds,
        activeFrom: from,
        activeTo: to,
        createdAt: deps.clock.now(),
      })
      .returning(),
  );
  audit({ target: `cardBinding:${row!.id}` });
  return { id: row!.id };
}

async function listBindings({ input, tx }: Context<typeof cardBinding.list>) {
  const { page, ...rest } = await pagedList(
    tx,
    {
      query: tx
        .select({
          binding: cardBindings,
          ...labelColumns,
          channelCode: channels.code,
        })
        .from(cardBindings)
        .innerJoin(receivingAccounts, eq(receivingAccounts.id, cardBindings.accountId))
        .innerJoin(channels, eq(channels.id, cardBindings.channelId))
        .$dynamic(),
      table: cardBindings,
      where: and(
        input.accountId ? eq(cardBindings.accountId, input.accountId) : undefined,
        input.channelId ? eq(cardBindings.channelId, input.channelId) : undefined,
      ),
      orderBy: [desc(cardBindings.id)],
    },
    input,
  );
  return {
    list: page.map(({ binding: b, bankName, accountNumber, channelCode }) => ({
      id: b.id,
      accountId: b.accountId,
      accountLabel: `${bankName} ${accountNumber}`,
      channelId: b.channelId,
      channelCode,
      weight: b.weight,
      merchantIds: b.merchantIds,
      activeFrom: clockOf(b.activeFrom),
      activeTo: clockOf(b.activeTo),
      createdAt: b.createdAt.toISOString(),
    })),
    ...rest,
  };
}

async function deleteBinding({ input, tx, audit }: Context<typeof cardBinding.delete>) {
  const gone = await foundOne(tx.delete(cardBindings).where(eq(cardBindings.id, input.id)).returning());
  audit({
    target: `cardBinding:${gone.id}`,
    detail: { accountId: gone.accountId, channelId: gone.channelId, weight: gone.weight },
  });
  return { ok: true as const };
}

export const bindingRoutes = [
  handle(cardBinding.create, createBinding),
  handle(cardBinding.list, listBindings),
  handle(cardBinding.delete, deleteBinding),
];
