/** Account holders (`accountHolder.*`): the people whose cards receive payments, and their commission. */
import { and, desc, eq, or, sql } from 'drizzle-orm';
import { endpoints } from '../../../contract/index.ts';
import { ppmToPercent } from '../../../contract/money.ts';
import { accountHolders, receivingAccounts } from '../../db/schema.ts';
import { foundOne } from '../../http/errors.ts';
import { type Context, handle } from '../../http/handle.ts';
import { changes } from '../../lib/redact.ts';
import { pagedList } from '../../list/engine.ts';
import { textContains } from '../../list/scope.ts';
import type { Holder } from './shared.ts';

const { accountHolder } = endpoints;

const auditedHolder = (h: Holder) => ({
  name: h.name,
  phone: h.phone,
  idNumber: h.idNumber,
  commissionPpm: h.commissionPpm,
  status: h.status,
});

async function createHolder({ input, tx, deps, audit }: Context<typeof accountHolder.create>) {
  const now = deps.clock.now();
  const [row] = await tx
    .insert(accountHolders)
    .values({
      name: input.name,
      phone: input.phone,
      idNumber: input.idNumber,
      commissionPpm: input.commissionRate,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  audit({ target: `accountHolder:${row!.id}`, changes: changes({}, auditedHolder(row!)) });
  return { id: row!.id };
}

async function listHolders({ input, tx }: Context<typeof accountHolder.list>) {
  const q = input.q?.trim();
  const cards = sql<number>`(select count(*)::int from ${receivingAccounts} where ${receivingAccounts.holderId} = ${accountHolders.id})`;
  const { page, ...rest } = await pagedList(
    tx,
    {
      query: tx.select({ holder: accountHolders, cards }).from(accountHolders).$dynamic(),
      table: accountHolders,
      where: and(
        input.status ? eq(accountHolders.status, input.status) : undefined,
        q ? or(textContains(accountHolders.name, q), textContains(accountHolders.phone, q)) : undefined,
      ),
      orderBy: [desc(accountHolders.id)],
    },
    input,
  );
  return {
    list: page.map(({ holder: h, cards }) => ({
      id: h.id,
      name: h.name,
      phone: h.phone,
      idNumber: h.idNumber,
      commissionRate: ppmToPercent(h.commissionPpm),
      status: h.status,
      cardCount: Number(cards),
      createdAt: h.createdAt.toISOString(),
    })),
    ...rest,
  };
}

async function updateHolder({ input, tx, deps, audit }: Context<typeof accountHolder.update>) {
  const old = await foundOne(
    tx.select().from(accountHolders).where(eq(accountHolders.id, input.id)).for('update'),
  );
  audit({ target: `accountHolder:${old.id}` });
  const set: Partial<typeof accountHolders.$inferInsert> = {};
  if (input.name !== undefined) set.name = input.name;
  if (input.phone !== undefined) set.phone = input.phone;
  if (input.idNumber !== undefined) set.idNumber = input.idNumber;
  if (input.commissionRate !== undefined) set.commissionPpm = input.commissionRate;
  if (input.status !== undefined) set.status = input.status;
  const [row] = await tx
    .update(accountHolders)
    .set({ ...set, updatedAt: deps.clock.now() })
    .where(eq(accountHolders.id, old.id))
    .returning();
  audit({ changes: changes(auditedHolder(old), auditedHolder(row!)) });
  return { ok: true as const };
}

export const holderRoutes = [
  handle(accountHolder.create, createHolder),
  handle(accountHolder.list, listHolders),
  handle(accountHolder.update, updateHolder),
];
