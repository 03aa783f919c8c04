/** Statement lines, imports and mappings as the console lists them (contract/endpoints/statement.ts). */
import { and, asc, count, desc, eq, gte, lte, not, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { accountLabel } from '../../../contract/endpoints/receiving.ts';
import { errno } from '../../../contract/errno.ts';
import { approval, statementLine } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import { normalUtr } from '../../../contract/schemas.ts';
import type { Db } from '../../db/index.ts';
import {
  approvals,
  payinOrders,
  receivingAccounts,
  statementImports,
  statementLines,
  statementMappings,
  users,
  withdrawalSlipLines,
  withdrawalSlips,
} from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { labelColumns } from '../receiving/shared.ts';
import { shownLine } from './lineFields.ts';
import type { Skipped } from './parse.ts';
import { statementPresets } from './presets.ts';
import type { StatementFormat } from './read.ts';
import { wouldPayOf } from './service.ts';

const candidate = alias(payinOrders, 'candidate');
const resolver = alias(users, 'resolver');
const candidateSlipLine = alias(withdrawalSlipLines, 'candidate_slip_line');
const candidateSlip = alias(withdrawalSlips, 'candidate_slip');
const waitingIn = alias(approvals, 'waiting_in');

const lineColumns = {
  line: statementLines,
  ...labelColumns,
  payinNo: payinOrders.orderNo,
  candidateNo: candidate.orderNo,
  candidateAmount: candidate.amount,
  slipNo: withdrawalSlips.slipNo,
  candidateSlipNo: candidateSlip.slipNo,
  source: statementImports.source,
  waitingIn: waitingIn.id,
  resolvedBy: resolver.username,
};

function linesQuery(tx: Db) {
  return tx
    .select(lineColumns)
    .from(statementLines)
    .innerJoin(receivingAccounts, eq(receivingAccounts.id, statementLines.accountId))
    .leftJoin(payinOrders, eq(payinOrders.id, statementLines.payinId))
    .leftJoin(candidate, eq(candidate.id, statementLines.candidatePayinId))
    .leftJoin(withdrawalSlipLines, eq(withdrawalSlipLines.id, statementLines.slipLineId))
    .leftJoin(withdrawalSlips, eq(withdrawalSlips.id, withdrawalSlipLines.slipId))
    .leftJoin(candidateSlipLine, eq(candidateSlipLine.id, statementLines.candidateSlipLineId))
    .leftJoin(candidateSlip, eq(candidateSlip.id, candidateSlipLine.slipId))
    .innerJoin(statementImports, eq(statementImports.id, statementLines.importId))
    .leftJoin(
      waitingIn,
      and(eq(waitingIn.id, statementLines.approvalId), eq(waitingIn.status, approval.state.pending)),
    )
    .leftJoin(resolver, eq(resolver.id, statementLines.resolvedBy));
}

type LineJoined = Awaited<ReturnType<ReturnType<typeof linesQuery>['execute']>>[number];

function lineRow(r: LineJoined) {
  const l = r.line;
  return {
    id: l.id,
    accountId: l.accountId,
    accountLabel: accountLabel(r),
    importId: l.importId,
    ...shownLine(l),
    status: l.status,
    exceptionKind: l.exceptionKind,
    payinId: l.payinId,
    payinNo: r.payinNo,
    candidateId: l.candidatePayinId,
    candidateNo: r.candidateNo,
    candidateAmount: r.candidateAmount === null ? null : formatMinor(r.candidateAmount),
    slipLineId: l.slipLineId,
    slipNo: r.slipNo,
    candidateSlipLineId: l.candidateSlipLineId,
    candidateSlipNo: r.candidateSlipNo,
    source: r.source,
    approvalId: r.waitingIn,
    reason: l.reason,
    resolvedBy: r.resolvedBy,
    resolvedAt: l.resolvedAt?.toISOString() ?? null,
    createdAt: l.createdAt.toISOString(),
  };
}

export type StatementLineRow = ReturnType<typeof lineRow>;

export async function lineInfo(tx: Db, id: number): Promise<StatementLineRow> {
  const [r] = await linesQuery(tx).where(eq(statementLines.id, id));
  if (!r) throw new AppError(errno.notFound);
  return lineRow(r);
}

const offsetOf = (page: number | undefined, pageSize: number) => ((page ?? 1) - 1) * pageSize;

async function totalOf(tx: Db, where: SQL | undefined): Promise<number> {
  const [r] = await tx.select({ n: count() }).from(statementLines).where(where);
  return r?.n ?? 0;
}

export interface LineFilter {
  accountId?: number;
  importId?: number;
  status?: (typeof statementLines.$inferSelect)['status'] | 'unmatched';
  direction?: 'credit' | 'debit';
  from?: string;
  to?: string;
  q?: string;
  page?: number;
  pageSize: number;
}

/** An account's statement flow: by day (newest first), then file order. */
export async function lineList(tx: Db, f: LineFilter) {
  const q = f.q?.trim();
  const where = and(
    f.accountId === undefined ? undefined : eq(statementLines.accountId, f.accountId),
    f.importId === undefined ? undefined : eq(statementLines.importId, f.importId),
    f.status === undefined
      ? undefined
      : f.status === 'unmatched'
        ? not(inStates(statementLines.status, [statementLine.state.matched]))
        : eq(statementLines.status, f.status),
    f.direction === undefined ? undefined : eq(statementLines.direction, f.direction),
    f.from === undefined ? undefined : gte(statementLines.day, f.from),
    f.to === undefined ? undefined : lte(statementLines.day, f.to),
    q
      ? sql`(${statementLines.utr} = ${normalUtr(q)} or ${statementLines.reference} = ${q} or ${statementLines.narration} ilike ${`%${q.replace(/[\\%_]/g, '\\$&')}%`})`
      : undefined,
  );
  const rows = await linesQuery(tx)
    .where(where)
    .orderBy(desc(statementLines.day), asc(statementLines.id))
    .limit(f.pageSize)
    .offset(offsetOf(f.page, f.pageSize));
  return { list: rows.map(lineRow), total: await totalOf(tx, where), nextCursor: null };
}

const openStates = inStates(statementLines.status, statementLine.sets.open);

/** The exception queue: open lines oldest first, and how many of each kind wait (all accounts or one). */
export async function exceptionList(
  tx: Db,
  f: { accountId?: number; kind?: string; page?: number; pageSize: number },
) {
  const account = f.accountId === undefined ? undefined : eq(statementLines.accountId, f.accountId);
  // A queue kind is a state with a candidate to post (ready, proposed) or an exception's kind.
  const asState = statementLine.sets.postable.filter((s) => s === f.kind);
  const kind =
    f.kind === undefined
      ? undefined
      : asState.length
        ? inStates(statementLines.status, asState)
        : sql`${statementLines.exceptionKind} = ${f.kind}`;
  const where = and(openStates, account, kind);
  const rows = await linesQuery(tx)
    .where(where)
    .orderBy(asc(statementLines.createdAt), asc(statementLines.id))
    .limit(f.pageSize)
    .offset(offsetOf(f.page, f.pageSize));
  const kinds = await tx
    .select({
      kind: sql<string>`coalesce(${statementLines.exceptionKind}, ${statementLines.status})`,
      n: count(),
    })
    .from(statementLines)
    .where(and(openStates, account))
    .groupBy(sql`1`);
  const byKind: Record<string, number> = {
    ready: 0,
    proposed: 0,
    amount_mismatch: 0,
    ambiguous: 0,
    unmatched: 0,
  };
  for (const k of kinds) byKind[k.kind] = k.n;
  return { list: rows.map(lineRow), total: await totalOf(tx, where), nextCursor: null, byKind };
}

const creator = alias(users, 'creator');

function importsQuery(tx: Db) {
  return tx
    .select({
      i: {
        id: statementImports.id,
        accountId: statementImports.accountId,
        fileName: statementImports.fileName,
        format: statementImports.format,
        source: statementImports.source,
        size: statementImports.size,
        sha256: statementImports.sha256,
        status: statementImports.status,
        lineCount: statementImports.lineCount,
        processed: statementImports.processed,
        newCount: statementImports.newCount,
        duplicateCount: statementImports.duplicateCount,
        matchedCount: statementImports.matchedCount,
        readyCount: statementImports.readyCount,
        proposedCount: statementImports.proposedCount,
        exceptionCount: statementImports.exceptionCount,
        gaps: statementImports.gaps,
        detected: statementImports.detected,
        bank: statementImports.bank,
        totals: statementImports.totals,
        skipped: statementImports.skipped,
        errorRows: statementImports.errorRows,
        createdAt: statementImports.createdAt,
        finishedAt: statementImports.finishedAt,
      },
      ...labelColumns,
      mappingName: statementMappings.name,
      createdBy: creator.username,
    })
    .from(statementImports)
    .innerJoin(receivingAccounts, eq(receivingAccounts.id, statementImports.accountId))
    .leftJoin(statementMappings, eq(statementMappings.id, statementImports.mappingId))
    .leftJoin(creator, eq(creator.id, statementImports.createdBy));
}

type ImportJoined = Awaited<ReturnType<ReturnType<typeof importsQuery>['execute']>>[number];

const money = (m: { count: number; sum: number }) => ({ count: m.count, sum: formatMinor(m.sum) });

function importRow(r: ImportJoined, wouldPay: { count: number; sum: string }, lang: Lang) {
  const i = r.i;
  return {
    id: i.id,
    accountId: i.accountId,
    accountLabel: accountLabel(r),
    fileName: i.fileName,
    format: i.format as StatementFormat,
    detected: i.detected,
    bank: i.bank,
    totals: i.totals && { credits: money(i.totals.credits), debits: money(i.totals.debits) },
    skipped: { count: i.skipped.count, rows: i.skipped.rows as Skipped['rows'] },
    errorRows: i.errorRows.map((e) => ({
      row: e.row,
      column: e.column,
      code: e.code,
      message: t(lang, e.key, e.params),
    })),
    source: i.source,
    size: i.size,
    sha256: i.sha256,
    mappingName: r.mappingName,
    status: i.status,
    lineCount: i.lineCount,
    processed: i.processed,
    counts: {
      lines: i.lineCount,
      new: i.newCount,
      duplicates: i.duplicateCount,
      matched: i.matchedCount,
      ready: i.readyCount,
      proposed: i.proposedCount,
      exceptions: i.exceptionCount,
    },
    gaps: i.gaps.map((g) => ({ row: g.row, expected: formatMinor(g.expected), found: formatMinor(g.found) })),
    wouldPay,
    createdBy: r.createdBy,
    createdAt: i.createdAt.toISOString(),
    finishedAt: i.finishedAt?.toISOString() ?? null,
  };
}

export async function importInfo(tx: Db, key: string, lang: Lang) {
  const [r] = await importsQuery(tx).where(eq(statementImports.key, key));
  if (!r) throw new AppError(errno.notFound);
  return importRow(r, (await wouldPayOf(tx, [r.i.id])).get(r.i.id)!, lang);
}

export async function importList(
  tx: Db,
  f: { accountId?: number; page?: number; pageSize: number },
  lang: Lang,
) {
  const where = f.accountId === undefined ? undefined : eq(statementImports.accountId, f.accountId);
  const rows = await importsQuery(tx)
    .where(where)
    .orderBy(desc(statementImports.id))
    .limit(f.pageSize)
    .offset(offsetOf(f.page, f.pageSize));
  const [total] = await tx.select({ n: count() }).from(statementImports).where(where);
  const wouldPay = await wouldPayOf(
    tx,
    rows.map((r) => r.i.id),
  );
  return {
    list: rows.map((r) => importRow(r, wouldPay.get(r.i.id)!, lang)),
    total: total?.n ?? 0,
    nextCursor: null,
  };
}

const contentTypes: Record<string, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  text: 'text/plain; charset=utf-8',
};

/** The imported file as it came, with an ASCII name and the content type of its format. */
export async function importFile(tx: Db, id: number) {
  const [f] = await tx
    .select({
      fileName: statementImports.fileName,
      format: statementImports.format,
      content: statementImports.content,
    })
    .from(statementImports)
    .where(eq(statementImports.id, id));
  if (!f) throw new AppError(errno.notFound);
  return {
    fileName: f.fileName || `statement-${id}`,
    contentType: contentTypes[f.format] ?? 'application/octet-stream',
    content: Buffer.from(f.content),
  };
}

/** Saved mappings by name, then the built-in presets (id null). */
export async function mappingList(tx: Db) {
  const saved = await tx.select().from(statementMappings).orderBy(asc(statementMappings.name));
  return {
    list: [
      ...saved.map((m) => ({
        id: m.id,
        preset: null,
        name: m.name,
        bankName: m.bankName,
        mapping: m.mapping,
        updatedAt: m.updatedAt.toISOString(),
      })),
      ...statementPresets.map((p) => ({
        id: null,
        preset: p.id,
        name: p.bankName,
        bankName: p.bankName,
        mapping: p.mapping,
        updatedAt: null,
      })),
    ],
  };
}
