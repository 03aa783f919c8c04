import { desc, eq, inArray } from 'drizzle-orm';
import { noticesShown } from '../../../contract/endpoints/memo.ts';
import { endpoints } from '../../../contract/index.ts';
import type { Db } from '../../db/index.ts';
import { systemMemos } from '../../db/schema.ts';
import { foundOne } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { changes } from '../../lib/redact.ts';
import { createdPlace, keysetList } from '../../list/engine.ts';

type Memo = typeof systemMemos.$inferSelect;

const rowOf = (m: Memo) => ({
  id: m.id,
  title: m.title,
  body: m.body,
  pinned: m.pinned,
  audience: m.audience,
  createdAt: m.createdAt.toISOString(),
  updatedAt: m.updatedAt.toISOString(),
});

/** The fields a change is logged with (the text itself is in the row; the log keeps what changed). */
const logged = (m: Pick<Memo, 'title' | 'body' | 'pinned' | 'audience'>) => ({
  title: m.title,
  body: m.body,
  pinned: m.pinned,
  audience: m.audience,
});

async function memoOf(tx: Db, id: number): Promise<Memo> {
  return foundOne(tx.select().from(systemMemos).where(eq(systemMemos.id, id)));
}

export const memoRoutes = [
  handle(endpoints.memo.list, async ({ input, tx, req }) => {
    const { page, ...rest } = await keysetList(
      tx,
      {
        query: tx.select().from(systemMemos).$dynamic(),
        table: systemMemos,
        where: input.audience ? eq(systemMemos.audience, input.audience) : undefined,
        keyset: { at: systemMemos.createdAt, id: systemMemos.id, serialId: true, placeOf: createdPlace },
      },
      input,
      req.lang,
    );
    return { list: page.map(rowOf), ...rest };
  }),

  handle(endpoints.memo.create, async ({ input, user, tx, deps, audit }) => {
    const now = deps.clock.now();
    const [row] = await tx
      .insert(systemMemos)
      .values({ ...input, createdBy: user.id, createdAt: now, updatedAt: now })
      .returning({ id: systemMemos.id });
    audit({ target: `memo:${row!.id}`, changes: changes({}, logged(input)) });
    return { id: row!.id };
  }),

  handle(endpoints.memo.update, async ({ input, tx, deps, audit }) => {
    const old = await memoOf(tx, input.id);
    audit({ target: `memo:${old.id}` });
    const { id, ...set } = input;
    await tx
      .update(systemMemos)
      .set({ ...set, updatedAt: deps.clock.now() })
      .where(eq(systemMemos.id, id));
    audit({ changes: changes(logged(old), set) });
    return { ok: true as const };
  }),

  handle(endpoints.memo.delete, async ({ input, tx, audit }) => {
    const old = await memoOf(tx, input.id);
    audit({ target: `memo:${old.id}`, detail: { title: old.title, audience: old.audience } });
    await tx.delete(systemMemos).where(eq(systemMemos.id, old.id));
    return { ok: true as const };
  }),

  handle(endpoints.memo.notices, async ({ user, tx }) => {
    const audiences = user.kind === 'platform' ? ['platform', 'everyone'] : ['merchants', 'everyone'];
    const rows = await tx
      .select()
      .from(systemMemos)
      .where(inArray(systemMemos.audience, audiences as Memo['audience'][]))
      .orderBy(desc(systemMemos.pinned), desc(systemMemos.createdAt), desc(systemMemos.id))
      .limit(noticesShown);
    return { list: rows.map(rowOf) };
  }),
];
