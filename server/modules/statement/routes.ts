/**
 * Bank statement endpoints (contract/endpoints/statement.ts): mappings, import, lines, the exception
 * queue and its resolutions. Platform users only (the contract's grants): importing and reading evidence
 * is the operators' and finance's, deciding money with it (match, accept: posting.ts) finance's alone.
 */
import { Readable } from 'node:stream';
import { and, eq, inArray } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { statementLine } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import { type Db, inTransaction, sqlState } from '../../db/index.ts';
import { statementImports, statementLines, statementMappings } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import { AppError } from '../../http/errors.ts';
import { FileAnswer, handle } from '../../http/handle.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { approvalRequested } from '../approval/service.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { withImportSlot } from './importSlots.ts';
import { awaitingApproval, matchLines } from './matching.ts';
import { lockLine, matchLine, payableOrder, postLines, readyLinesOf } from './posting.ts';
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

/** Locks the lines a person acts on, all or none: 404 for an unknown one, 409 naming those `action` cannot move. */
async function lockLinesFor(tx: Db, ids: readonly number[], action: 'dismiss' | 'reopen'): Promise<void> {
  const found = await tx
    .select({ id: statementLines.id, status: statementLines.status })
    .from(statementLines)
    .where(inArray(statementLines.id, [...ids]))
    .for('update');
  if (found.length !== ids.length) throw new AppError(errno.notFound);
  const moved = found.filter((l) => !statementLine.can(action, l.status)).map((l) => l.id);
  if (moved.length) throw new AppError(errno.conflict, { lineIds: moved });
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
      // One import per person at a time: the statement workers' queue is shared by everyone.
      const answer = await withImportSlot(user.id, () => importStatement(deps, user.id, input, req.lang));
      audit({
        detail: { fileName: input.fileName ?? null, importId: answer.importId, counts: answer.counts },
      });
      if (answer.counts.matched) afterCommit(wakeWebhookWorkers);
      return answer;
    },
    // A large file is written in batches, each its own transaction (progress shows meanwhile).
    { outsideTransaction: true },
  ),

  handle(statement.importInfo, ({ input, tx, req }) => importInfo(tx, input.key, req.lang)),

  handle(statement.imports, ({ input, tx, req }) => importList(tx, input, req.lang)),

  handle(statement.file, async ({ input, tx, audit }) => {
    const f = await importFile(tx, input.id);
    audit({ target: `statementImport:${input.id}`, detail: { fileName: f.fileName } });
    return new FileAnswer(f.fileName, f.contentType, Readable.from([f.content]));
  }),

  handle(statement.list, ({ input, tx }) => lineList(tx, input)),

  handle(statement.exceptions, ({ input, tx }) => exceptionList(tx, input)),

  // A money door (contract/doors.ts `statement.pay`): the caller's code, within the day's sums, else a
  // request a second platform user decides.
  handle(statement.match, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const line = await lockLine(tx, input.lineId);
    audit({
      target: lineTarget(line.id),
      detail: { orderId: input.orderId, amount: formatMinor(line.amount), reason: input.reason },
    });
    // What the line may pay is checked before the code is spent.
    await payableOrder(tx, line, input.orderId, req.lang);
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const request = await matchLine(deps, tx, line, input.orderId, input.reason, user.id, req.lang);
    if (request) return approvalRequested(audit, request, { orderId: input.orderId });
    afterCommit(wakeWebhookWorkers);
    return lineInfo(tx, line.id);
  }),

  handle(
    statement.accept,
    async ({ input, user, deps, req, audit, afterCommit }) => {
      const db = deps.database.db;
      audit({
        target:
          input.importId === undefined
            ? `statementLines:${input.lineIds!.join(',')}`
            : `statementImport:${input.importId}`,
        detail: { reason: input.reason },
      });
      // The lines named first (an unknown import is 404 before the code is spent), then the code, in a
      // transaction of its own that commits a refusal's counted failure.
      const checked = await inTransaction(db, async (tx) => {
        const lineIds =
          input.importId === undefined ? input.lineIds! : await readyLinesOf(tx, input.importId);
        const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
        return { lineIds, refused };
      });
      if (checked.refused) return checked.refused;
      const out = await postLines(deps, checked.lineIds, input.reason, user.id, req.lang);
      audit({ detail: { reason: input.reason, lines: checked.lineIds.length, ...out } });
      if (out.matched) afterCommit(wakeWebhookWorkers);
      return out;
    },
    { outsideTransaction: true },
  ),

  handle(statement.dismiss, async ({ input, user, tx, deps, audit }) => {
    const ids = [...new Set(input.lineIds ?? [input.lineId!])];
    audit({ target: ids.map(lineTarget).join(','), detail: { reason: input.reason } });
    await lockLinesFor(tx, ids, 'dismiss');
    const waiting = await tx
      .select({ id: statementLines.id })
      .from(statementLines)
      .where(and(inArray(statementLines.id, ids), awaitingApproval));
    if (waiting.length) throw new AppError(errno.approvalPending, { lineIds: waiting.map((l) => l.id) });
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

  handle(statement.reopen, async ({ input, user, tx, deps, audit }) => {
    const ids = [...new Set(input.lineIds)];
    audit({ target: ids.map(lineTarget).join(',') });
    await lockLinesFor(tx, ids, 'reopen');
    const back = await tx
      .update(statementLines)
      .set({ status: statementLine.to('reopen')!, reason: null, resolvedBy: null, resolvedAt: null })
      .where(
        and(inArray(statementLines.id, ids), inStates(statementLines.status, statementLine.from('reopen'))),
      )
      .returning();
    if (back.length !== ids.length) throw new AppError(errno.conflict);
    // No payment without a person: what matching would pay waits ready for a finance user's post.
    const counts = await matchLines(deps, tx, back, user.id, true);
    audit({ detail: { ...counts } });
    return { reopened: back.length, ...counts };
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
