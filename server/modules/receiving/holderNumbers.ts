/** A holder's numbers (`holderNumber.*`): phone numbers and the like, linked to the holder's own cards. */
import { and, desc, eq, inArray } from 'drizzle-orm';
import { endpoints } from '../../../contract/index.ts';
import type { Db } from '../../db/index.ts';
import { accountHolders, holderNumbers, receivingAccounts } from '../../db/schema.ts';
import { foundOne } from '../../http/errors.ts';
import { type Context, handle } from '../../http/handle.ts';
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { changes } from '../../lib/redact.ts';
import { pagedList } from '../../list/engine.ts';
import { holderOr422, orTaken } from './shared.ts';

const { holderNumber } = endpoints;

async function createHolderNumber({ input, tx, deps, req, audit }: Context<typeof holderNumber.create>) {
  audit({ detail: input });
  await holderOr422(tx, input.holderId, req.lang);
  await checkHolderCards(tx, input.holderId, input.accountIds, req.lang);
  const [row] = await orTaken(
    'value',
    tx
      .insert(holderNumbers)
      .values({
        holderId: input.holderId,
        kind: input.kind,
        value: input.value,
        accountIds: input.accountIds,
        createdAt: deps.clock.now(),
      })
      .returning(),
  );
  audit({ target: `holderNumber:${row!.id}` });
  return { id: row!.id };
}

async function listHolderNumbers({ input, tx }: Context<typeof holderNumber.list>) {
  const { page, ...rest } = await pagedList(
    tx,
    {
      query: tx
        .select({ n: holderNumbers, holderName: accountHolders.name })
        .from(holderNumbers)
        .innerJoin(accountHolders, eq(accountHolders.id, holderNumbers.holderId))
        .$dynamic(),
      table: holderNumbers,
      where: input.holderId ? eq(holderNumbers.holderId, input.holderId) : undefined,
      orderBy: [desc(holderNumbers.id)],
    },
    input,
  );
  return {
    list: page.map(({ n: h, holderName }) => ({
      id: h.id,
      holderId: h.holderId,
      holderName,
      kind: h.kind,
      value: h.value,
      accountIds: h.accountIds,
      status: h.status,
      createdAt: h.createdAt.toISOString(),
    })),
    ...rest,
  };
}

async function updateHolderNumber({ input, tx, req, audit }: Context<typeof holderNumber.update>) {
  const old = await foundOne(
    tx.select().from(holderNumbers).where(eq(holderNumbers.id, input.id)).for('update'),
  );
  audit({ target: `holderNumber:${old.id}` });
  if (input.accountIds !== undefined) await checkHolderCards(tx, old.holderId, input.accountIds, req.lang);
  const set: Partial<typeof holderNumbers.$inferInsert> = {};
  if (input.accountIds !== undefined) set.accountIds = input.accountIds;
  if (input.status !== undefined) set.status = input.status;
  if (Object.keys(set).length) await tx.update(holderNumbers).set(set).where(eq(holderNumbers.id, old.id));
  audit({
    changes: changes(
      { accountIds: old.accountIds, status: old.status },
      { accountIds: set.accountIds, status: set.status },
    ),
  });
  return { ok: true as const };
}

export const holderNumberRoutes = [
  handle(holderNumber.create, createHolderNumber),
  handle(holderNumber.list, listHolderNumbers),
  handle(holderNumber.update, updateHolderNumber),
];

/** A holder's numbers link only to that holder's own cards. */
async function checkHolderCards(tx: Db, holderId: number, accountIds: readonly number[], lang: Lang) {
  if (!accountIds.length) return;
  const own = await tx
    .select({ id: receivingAccounts.id })
    .from(receivingAccounts)
    .where(and(inArray(receivingAccounts.id, [...accountIds]), eq(receivingAccounts.holderId, holderId)));
  if (own.length !== new Set(accountIds).size)
    throw invalidField(lang, 'accountIds', 'validation.holderCards');
}
