import { randomInt } from 'node:crypto';
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatMinor, ppmToPercent } from '../../../contract/money.ts';
import { type Db, sqlState } from '../../db/index.ts';
import { agents, ledgerAccounts, merchants } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { changes } from '../../lib/redact.ts';
import { pagedList } from '../../list/engine.ts';
import { codeOrNameSearch } from '../../list/scope.ts';

type Agent = typeof agents.$inferSelect;

const codeTaken = (code: string) =>
  new AppError(errno.conflict, { fields: [{ path: 'code', code: 'taken', message: code }] });

async function nextAgentCode(tx: Db): Promise<string> {
  for (;;) {
    const code = `A${randomInt(10_000, 100_000)}`;
    const [taken] = await tx.select({ id: agents.id }).from(agents).where(eq(agents.code, code));
    if (!taken) return code;
  }
}

async function agentById(tx: Db, id: number, lock = false): Promise<Agent> {
  const q = tx.select().from(agents).where(eq(agents.id, id));
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw new AppError(errno.notFound);
  return row;
}

const shown = (a: Agent) => ({
  name: a.name,
  commissionRate: ppmToPercent(a.commissionPpm),
  status: a.status,
});

export const agentRoutes = [
  handle(endpoints.agent.list, async ({ input, tx }) => {
    const { page: rows, total: n } = await pagedList(
      tx,
      { query: tx.select().from(agents).$dynamic(), table: agents, ...codeOrNameSearch(agents, input.q) },
      input,
    );
    const ids = rows.map((r) => r.id);
    const merchantCounts = ids.length
      ? await tx
          .select({ agentId: merchants.agentId, n: count() })
          .from(merchants)
          .where(inArray(merchants.agentId, ids))
          .groupBy(merchants.agentId)
      : [];
    // Commission owed to the agent: its payable account(s). The platform runs one currency today.
    const payable = ids.length
      ? await tx
          .select({
            agentId: ledgerAccounts.ownerId,
            total: sql<string>`sum(${ledgerAccounts.balance})::text`,
          })
          .from(ledgerAccounts)
          .where(
            and(
              eq(ledgerAccounts.ownerType, 'agent'),
              eq(ledgerAccounts.kind, 'agent_commission_payable'),
              inArray(ledgerAccounts.ownerId, ids),
            ),
          )
          .groupBy(ledgerAccounts.ownerId)
      : [];
    return {
      list: rows.map((a) => ({
        id: a.id,
        code: a.code,
        name: a.name,
        commissionRate: ppmToPercent(a.commissionPpm),
        status: a.status,
        merchantCount: merchantCounts.find((c) => c.agentId === a.id)?.n ?? 0,
        commissionPayable: formatMinor(BigInt(payable.find((p) => p.agentId === a.id)?.total ?? '0')),
        createdAt: a.createdAt.toISOString(),
      })),
      total: n,
      nextCursor: null,
    };
  }),

  handle(endpoints.agent.create, async ({ input, tx, deps, audit }) => {
    const code = input.code ?? (await nextAgentCode(tx));
    const [taken] = await tx.select({ id: agents.id }).from(agents).where(eq(agents.code, code));
    if (taken) throw codeTaken(code);
    const now = deps.clock.now();
    let row: Agent | undefined;
    try {
      [row] = await tx
        .insert(agents)
        .values({
          code,
          name: input.name,
          commissionPpm: input.commissionRate,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
    } catch (err) {
      if (sqlState(err) === '23505') throw codeTaken(code);
      throw err;
    }
    audit({ target: `agent:${row!.id}`, changes: changes({}, { agentCode: code, ...shown(row!) }) });
    return { id: row!.id, code };
  }),

  handle(endpoints.agent.update, async ({ input, tx, deps, audit }) => {
    const old = await agentById(tx, input.id, true);
    audit({ target: `agent:${old.id}` });
    const set: Partial<typeof agents.$inferInsert> = { updatedAt: deps.clock.now() };
    if (input.name !== undefined) set.name = input.name;
    if (input.commissionRate !== undefined) set.commissionPpm = input.commissionRate;
    if (input.status !== undefined) set.status = input.status;
    const [row] = await tx.update(agents).set(set).where(eq(agents.id, old.id)).returning();
    audit({ changes: changes(shown(old), shown(row!)) });
    return { ok: true as const };
  }),
];
