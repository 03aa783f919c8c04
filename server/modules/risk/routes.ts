/**
 * The blocklist's endpoints (`blocklist.*`, docs/MONEY-BACK.md section 4): its entries newest first, an
 * entry added (one live per kind and value), an entry removed (recorded, never deleted). Each write is in
 * the operation log; the rules consult the list from the next request on (server/modules/risk/rules.ts).
 */
import { isIP } from 'node:net';
import { and, eq, gt, inArray, isNotNull, isNull, lte, or, type SQL } from 'drizzle-orm';
import type * as z from 'zod/mini';
import { type blocklistRow, normalBlockValue } from '../../../contract/endpoints/risk.ts';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import type { Db } from '../../db/index.ts';
import { blocklistEntries, merchants, users } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { invalidField } from '../../http/validation.ts';
import { createdPlace, keysetList } from '../../list/engine.ts';

type Entry = typeof blocklistEntries.$inferSelect;
type Row = z.output<typeof blocklistRow>;

const { blocklist } = endpoints;

/** Applies at `now`: not removed, not past its end. */
const activeAt = (e: Entry, now: Date) =>
  e.removedAt === null && (e.endsAt === null || e.endsAt.getTime() > now.getTime());

/** The list's `state` filter as SQL. */
function stateWhere(state: 'active' | 'inactive' | undefined, now: Date): SQL | undefined {
  if (state === 'active')
    return and(
      isNull(blocklistEntries.removedAt),
      or(isNull(blocklistEntries.endsAt), gt(blocklistEntries.endsAt, now)),
    );
  if (state === 'inactive')
    return or(isNotNull(blocklistEntries.removedAt), lte(blocklistEntries.endsAt, now));
  return undefined;
}

/** Console rows, with who added and removed each entry (one query for the names). */
async function rowsOf(tx: Db, entries: readonly Entry[], now: Date): Promise<Row[]> {
  const ids = [...new Set(entries.flatMap((e) => [e.createdBy, ...(e.removedBy ? [e.removedBy] : [])]))];
  const names = new Map(
    ids.length
      ? (
          await tx
            .select({ id: users.id, username: users.username })
            .from(users)
            .where(inArray(users.id, ids))
        ).map((u) => [u.id, u.username])
      : [],
  );
  const nameOf = (id: number) => names.get(id) ?? String(id);
  return entries.map((e) => ({
    id: e.id,
    kind: e.kind,
    value: e.value,
    reason: e.reason,
    endsAt: e.endsAt?.toISOString() ?? null,
    active: activeAt(e, now),
    createdBy: nameOf(e.createdBy),
    createdAt: e.createdAt.toISOString(),
    removedBy: e.removedBy === null ? null : nameOf(e.removedBy),
    removedAt: e.removedAt?.toISOString() ?? null,
  }));
}

export const riskRoutes = [
  handle(blocklist.list, async ({ input, tx, deps, req }) => {
    const now = deps.clock.now();
    const { page, ...rest } = await keysetList(
      tx,
      {
        query: tx.select().from(blocklistEntries).$dynamic(),
        table: blocklistEntries,
        where: and(
          input.kind ? eq(blocklistEntries.kind, input.kind) : undefined,
          stateWhere(input.state, now),
        ),
        keyset: {
          at: blocklistEntries.createdAt,
          id: blocklistEntries.id,
          serialId: true,
          placeOf: createdPlace,
        },
      },
      input,
      req.lang,
    );
    return { list: await rowsOf(tx, page, now), ...rest };
  }),

  handle(blocklist.add, async ({ input, user, tx, deps, req, audit }) => {
    const now = deps.clock.now();
    let value = normalBlockValue(input.kind, input.value);
    if (input.kind === 'payer_ip' && !isIP(value))
      throw invalidField(req.lang, 'value', 'validation.ipAddress');
    if (input.kind === 'merchant') {
      const [m] = await tx.select({ code: merchants.code }).from(merchants).where(eq(merchants.code, value));
      if (!m)
        throw new AppError(errno.notFound, {
          fields: [{ path: 'value', code: 'not_found', message: value }],
        });
      value = m.code;
    }
    const endsAt = input.endsAt ? new Date(input.endsAt) : null;
    if (endsAt && endsAt.getTime() <= now.getTime())
      throw invalidField(req.lang, 'endsAt', 'validation.futureTime');
    audit({
      detail: { kind: input.kind, value, reason: input.reason, endsAt: endsAt?.toISOString() ?? null },
    });
    // The live entry of this kind and value, locked: one that still applies refuses the new one; one past
    // its end is closed, so the new one takes its place under the unique key.
    const [live] = await tx
      .select()
      .from(blocklistEntries)
      .where(
        and(
          eq(blocklistEntries.kind, input.kind),
          eq(blocklistEntries.value, value),
          isNull(blocklistEntries.removedAt),
        ),
      )
      .for('update');
    if (live && activeAt(live, now)) throw new AppError(errno.conflict, null, `blocklist ${live.id} applies`);
    if (live)
      await tx
        .update(blocklistEntries)
        .set({ removedBy: user.id, removedAt: now })
        .where(eq(blocklistEntries.id, live.id));
    const [row] = await tx
      .insert(blocklistEntries)
      .values({ kind: input.kind, value, reason: input.reason, endsAt, createdBy: user.id, createdAt: now })
      .returning();
    audit({ target: `blocklist:${row!.id}` });
    return (await rowsOf(tx, [row!], now))[0]!;
  }),

  handle(blocklist.remove, async ({ input, user, tx, deps, audit }) => {
    const now = deps.clock.now();
    audit({ target: `blocklist:${input.id}` });
    const [removed] = await tx
      .update(blocklistEntries)
      .set({ removedBy: user.id, removedAt: now })
      .where(and(eq(blocklistEntries.id, input.id), isNull(blocklistEntries.removedAt)))
      .returning();
    if (!removed) {
      const [exists] = await tx
        .select({ id: blocklistEntries.id })
        .from(blocklistEntries)
        .where(eq(blocklistEntries.id, input.id));
      throw new AppError(exists ? errno.conflict : errno.notFound, null, 'removed already');
    }
    audit({ target: `blocklist:${removed.id}`, detail: { kind: removed.kind, value: removed.value } });
    return { ok: true as const };
  }),
];
