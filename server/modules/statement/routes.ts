/**
 * Bank statement endpoints (contract/endpoints/statement.ts): mappings, import, lines, the exception
 * queue and its resolutions. Platform users only (the contract's grants). A person's match pays the
 * order at once: the bank statement proves the payment, so no second person is asked (docs/STATEMENTS.md).
 */
import { Readable } from 'node:stream';
import { and, eq, inArray } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { payin, statementLine } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import { type Db, inTransaction, sqlState } from '../../db/index.ts';
import { payinOrders, statementImports, statementLines, statementMappings } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { FileAnswer, handle } from '../../http/handle.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { type Line, payWithLine, utrFreeFor } from './matching.ts';
import { importStatement, rematch } from './service.ts';
import {
  exceptionList,
  importFile,
  importInfo,
  importList,
  lineInfo,
  lineList,
  mappingList,
} from './views.ts';

const { statement, statementMapping } = endpoints;

const lineTarget = (id: number) => `statementLine:${id}`;

/** The line, locked for this transaction (404 when unknown). */
async function lockLine(tx: Db, id: number): Promise<Line> {
  const [line] = await tx.select().from(statementLines).where(eq(statementLines.id, id)).for('update');
  if (!line) throw new AppError(errno.notFound);
  return line;
}

/**
 * Pays order `orderId` with an open credit line, as `userId`: the line open (409), a credit, the order
 * one a supplement may pay and of the line's amount (422), the line's UTR on no other order (1032).
 */
export async function matchLine(
  deps: Deps,
  tx: Db,
  line: Line,
  orderId: number,
  userId: number,
  lang: Lang,
): Promise<void> {
  if (!statementLine.can('match', line.status)) throw new AppError(errno.conflict, { status: line.status });
  if (line.direction !== 'credit') throw invalidField(lang, 'lineId', 'statement.match.debit');
  const [order] = await tx.select().from(payinOrders).where(eq(payinOrders.id, orderId));
  if (!order) throw new AppError(errno.notFound);
  if (!payin.can('supplement', order.status)) {
    throw invalidField(lang, 'orderId', 'statement.match.state', { order: order.orderNo });
  }
  if (order.receivingAccountId !== line.accountId) {
    throw invalidField(lang, 'orderId', 'statement.match.account', { order: order.orderNo });
  }
  if (order.amount !== line.amount) {
    throw invalidField(lang, 'orderId', 'statement.match.amount', {
      line: formatMinor(line.amount),
      order: formatMinor(order.amount),
    });
  }
  if (!(await utrFreeFor(tx, line.utr, order.id))) throw new AppError(errno.utrUsed);
  await payWithLine(deps, tx, line, order.id, userId, userId, 'refuse');
}

/** A refusal's words for a list of results (the field's message of a 422, else the errno's). */
function messageOf(err: AppError, lang: Lang): string {
  const fields = (err.data as { fields?: { message: string }[] } | null)?.fields;
  return fields?.[0]?.message ?? t(lang, `errno.${err.errno}`);
}

export const statementRoutes = [
  handle(statementMapping.list, ({ tx }) => mappingList(tx)),

  handle(statementMapping.save, async ({ input, user, tx, deps, audit }) => {
    audit({
      target: `statementMapping:${input.id ?? input.name}`,
      detail: { name: input.name, mapping: input.mapping },
    });
    const values = {
      name: input.name,
      bankName: input.bankName,
      mapping: input.mapping,
      updatedAt: deps.clock.now(),
    };
    try {
      if (input.id === undefined) {
        const [row] = await tx
          .insert(statementMappings)
          .values({ ...values, createdBy: user.id })
          .returning({ id: statementMappings.id });
        return { id: row!.id };
      }
      const [row] = await tx
        .update(statementMappings)
        .set(values)
        .where(eq(statementMappings.id, input.id))
        .returning({ id: statementMappings.id });
      if (!row) throw new AppError(errno.notFound);
      return { id: row.id };
    } catch (err) {
      if (sqlState(err) === '23505') throw new AppError(errno.conflict, null, 'mapping name taken');
      throw err;
    }
  }),

  handle(statementMapping.delete, async ({ input, tx, audit }) => {
    audit({ target: `statementMapping:${input.id}` });
    // An import keeps the mapping it was read with (its own copy): only the link to the name goes.
    await tx
      .update(statementImports)
      .set({ mappingId: null })
      .where(eq(statementImports.mappingId, input.id));
    const [gone] = await tx
      .delete(statementMappings)
      .where(eq(statementMappings.id, input.id))
      .returning({ id: statementMappings.id });
    if (!gone) throw new AppError(errno.notFound);
    return { ok: true as const };
  }),

  handle(
    statement.import,
    async ({ input, user, deps, req, audit, afterCommit }) => {
      audit({
        target: `receivingAccount:${input.accountId}`,
        detail: {
          fileName: input.fileName ?? null,
          dryRun: input.dryRun ?? false,
          mappingId: input.mappingId ?? null,
        },
      });
      const answer = await importStatement(deps, user.id, input, req.lang);
      audit({
        detail: { fileName: input.fileName ?? null, importId: answer.importId, counts: answer.counts },
      });
      if (answer.counts.matched) afterCommit(wakeWebhookWorkers);
      return answer;
    },
    // A large file is written in batches, each its own transaction (progress shows meanwhile).
    { outsideTransaction: true },
  ),

  handle(statement.importInfo, ({ input, tx }) => importInfo(tx, input.key)),

  handle(statement.imports, ({ input, tx }) => importList(tx, input)),

  handle(statement.file, async ({ input, tx, audit }) => {
    const f = await importFile(tx, input.id);
    audit({ target: `statementImport:${input.id}`, detail: { fileName: f.fileName } });
    return new FileAnswer(f.fileName, f.contentType, Readable.from([f.content]));
  }),

  handle(statement.list, ({ input, tx }) => lineList(tx, input)),

  handle(statement.exceptions, ({ input, tx }) => exceptionList(tx, input)),

  handle(statement.match, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const line = await lockLine(tx, input.lineId);
    audit({
      target: lineTarget(line.id),
      detail: { orderId: input.orderId, amount: formatMinor(line.amount) },
    });
    await matchLine(deps, tx, line, input.orderId, user.id, req.lang);
    afterCommit(wakeWebhookWorkers);
    return lineInfo(tx, line.id);
  }),

  handle(
    statement.accept,
    async ({ input, user, deps, req, audit, afterCommit }) => {
      const refused: { lineId: number; message: string }[] = [];
      let matched = 0;
      // Named before the first payment commits: a failure midway is logged against these lines too.
      audit({ target: `statementLines:${input.lineIds.join(',')}` });
      // Each line in its own transaction: one refused leaves the others paid.
      for (const lineId of new Set(input.lineIds)) {
        try {
          await inTransaction(deps.database.db, async (tx) => {
            const line = await lockLine(tx, lineId);
            if (line.status !== 'proposed' || line.candidatePayinId === null) {
              throw new AppError(errno.conflict, { status: line.status });
            }
            await matchLine(deps, tx, line, line.candidatePayinId, user.id, req.lang);
          });
          matched++;
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          refused.push({ lineId, message: messageOf(err, req.lang) });
        }
      }
      audit({ detail: { matched, refused } });
      if (matched) afterCommit(wakeWebhookWorkers);
      return { matched, refused };
    },
    { outsideTransaction: true },
  ),

  handle(statement.dismiss, async ({ input, user, tx, deps, audit }) => {
    const ids = [...new Set(input.lineIds ?? [input.lineId!])];
    audit({ target: ids.map(lineTarget).join(','), detail: { reason: input.reason } });
    const found = await tx
      .select({ id: statementLines.id, status: statementLines.status })
      .from(statementLines)
      .where(inArray(statementLines.id, ids))
      .for('update');
    if (found.length !== ids.length) throw new AppError(errno.notFound);
    const moved = found.filter((l) => !statementLine.can('dismiss', l.status)).map((l) => l.id);
    if (moved.length) throw new AppError(errno.conflict, { lineIds: moved });
    const done = await tx
      .update(statementLines)
      .set({
        status: statementLine.to('dismiss')!,
        exceptionKind: null,
        reason: input.reason,
        resolvedBy: user.id,
        resolvedAt: deps.clock.now(),
      })
      .where(
        and(inArray(statementLines.id, ids), inStates(statementLines.status, statementLine.from('dismiss'))),
      )
      .returning({ id: statementLines.id });
    if (done.length !== ids.length) throw new AppError(errno.conflict);
    return { dismissed: done.length };
  }),

  handle(
    statement.rematch,
    async ({ input, user, deps, audit, afterCommit }) => {
      audit({
        target: input.accountId === undefined ? 'statementLines' : `receivingAccount:${input.accountId}`,
      });
      const counts = await rematch(deps, user.id, input.accountId);
      audit({ detail: { ...counts } });
      if (counts.matched) afterCommit(wakeWebhookWorkers);
      return counts;
    },
    { outsideTransaction: true },
  ),
];
