/**
 * The T+N settlement endpoints (contract/endpoints/tn.ts): the lines (`/merchantSettlementtn/list`, a
 * merchant user sees its own), the runs (`/settlementtnLog/list`, `info`) and a run started by hand
 * (`/settlementtnLog/run`). The work itself is in `tn.ts`.
 */
import { and, eq, gte, lte, or, type SQL, sql } from 'drizzle-orm';
import { addDays, daysBetween, tnListDays } from '../../../contract/endpoints/tn.ts';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatMinor } from '../../../contract/money.ts';
import { type Db, inTransaction } from '../../db/index.ts';
import { merchants, tnLines, tnRuns } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { invalidField } from '../../http/validation.ts';
import { decodeCursor, encodeCursor } from '../../lib/paging.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import {
  businessNow,
  runTnSettlement,
  type TnRun,
  tnRunCount,
  tnRunMerchantOutcomes,
  tnRunsWithStarter,
} from './tn.ts';

/** A page's place in the lines: the last row's order day and id, opaque. */
const lineCursor = (orderDay: string, id: number) => Buffer.from(`${orderDay}|${id}`).toString('base64url');
function readLineCursor(cursor: string, lang: Parameters<typeof invalidField>[0]) {
  const [day, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const n = Number(id);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day ?? '') || !Number.isSafeInteger(n) || n < 0)
    throw invalidField(lang, 'cursor', 'validation.invalid');
  return { day: day!, id: n };
}

function runRow(r: TnRun, startedBy: string | null) {
  return {
    id: r.id,
    day: r.day,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
    merchants: r.merchants,
    lines: r.lines,
    amountReleased: formatMinor(r.amountReleased),
    outcome: r.outcome,
    startedBy,
    error: r.error,
  };
}

async function runById(db: Db, id: number) {
  const [row] = await tnRunsWithStarter(db, eq(tnRuns.id, id), 1);
  if (!row) throw new AppError(errno.notFound);
  return runRow(row.run, row.startedBy);
}

export const tnRoutes = [
  handle(endpoints.merchantSettlementtn.list, async ({ input, user, tx, deps, req }) => {
    // A merchant user sees its own lines whatever the request names.
    const merchantId = user.kind === 'merchant' ? user.merchantId! : input.merchantId;
    const today = (await businessNow(tx, deps.clock.now())).day;
    const to = input.to ?? (input.from ? addDays(input.from, tnListDays - 1) : today);
    const from = input.from ?? addDays(to, -(tnListDays - 1));
    if (from > to) throw invalidField(req.lang, 'to', 'validation.periodOrder');
    if (daysBetween(from, to) >= tnListDays) throw invalidField(req.lang, 'to', 'validation.dayPeriod');
    const where = and(
      merchantId !== undefined ? eq(tnLines.merchantId, merchantId) : undefined,
      input.status ? eq(tnLines.status, input.status) : undefined,
      gte(tnLines.orderDay, from),
      lte(tnLines.orderDay, to),
    );
    let after: SQL | undefined;
    if (input.cursor) {
      const c = readLineCursor(input.cursor, req.lang);
      after = or(
        sql`${tnLines.orderDay} < ${c.day}::date`,
        and(eq(tnLines.orderDay, c.day), sql`${tnLines.id} < ${c.id}`),
      );
    }
    const rows = await tx
      .select({ l: tnLines, code: merchants.code })
      .from(tnLines)
      .innerJoin(merchants, eq(merchants.id, tnLines.merchantId))
      .where(and(where, after))
      .orderBy(sql`${tnLines.orderDay} desc, ${tnLines.id} desc`)
      .limit(input.pageSize + 1);
    const page = rows.slice(0, input.pageSize);
    const last = page.at(-1);
    // At most 62 days of lines per merchant and currency: the sums read them all.
    const sums = await tx
      .select({
        currency: tnLines.currency,
        lines: sql<number>`count(*)::int`,
        orders: sql<number>`coalesce(sum(${tnLines.orders}), 0)::int`,
        gross: sql<string>`coalesce(sum(${tnLines.gross}), 0)::text`,
        fee: sql<string>`coalesce(sum(${tnLines.fee}), 0)::text`,
        withheld: sql<string>`coalesce(sum(${tnLines.withheld}), 0)::text`,
        net: sql<string>`coalesce(sum(${tnLines.net}), 0)::text`,
      })
      .from(tnLines)
      .where(where)
      .groupBy(tnLines.currency)
      .orderBy(tnLines.currency);
    return {
      list: page.map(({ l, code }) => ({
        id: l.id,
        merchantId: l.merchantId,
        merchantCode: code,
        currency: l.currency,
        orderDay: l.orderDay,
        dueDay: l.dueDay,
        orders: l.orders,
        gross: formatMinor(l.gross),
        fee: formatMinor(l.fee),
        withheld: formatMinor(l.withheld),
        net: formatMinor(l.net),
        status: l.status,
        runId: l.runId,
        releasedAt: l.releasedAt?.toISOString() ?? null,
      })),
      total: sums.reduce((n, s) => n + Number(s.lines), 0),
      nextCursor: rows.length > page.length && last ? lineCursor(last.l.orderDay, last.l.id) : null,
      from,
      to,
      totals: sums.map((s) => ({
        currency: s.currency,
        orders: Number(s.orders),
        gross: formatMinor(BigInt(s.gross)),
        fee: formatMinor(BigInt(s.fee)),
        withheld: formatMinor(BigInt(s.withheld)),
        net: formatMinor(BigInt(s.net)),
      })),
    };
  }),

  handle(endpoints.settlementtnLog.list, async ({ input, tx }) => {
    const where = input.outcome ? eq(tnRuns.outcome, input.outcome) : undefined;
    let after: SQL | undefined;
    if (input.cursor) {
      const c = decodeCursor(input.cursor, 2_147_483_647);
      after = or(
        sql`${tnRuns.startedAt} < ${c.at.toISOString()}::timestamptz`,
        and(eq(tnRuns.startedAt, c.at), sql`${tnRuns.id} < ${c.id}`),
      );
    }
    const rows = await tnRunsWithStarter(tx, and(where, after), input.pageSize + 1);
    const page = rows.slice(0, input.pageSize);
    const last = page.at(-1);
    return {
      list: page.map((r) => runRow(r.run, r.startedBy)),
      total: await tnRunCount(tx, where),
      nextCursor: rows.length > page.length && last ? encodeCursor(last.run.startedAt, last.run.id) : null,
    };
  }),

  handle(endpoints.settlementtnLog.info, async ({ input, tx }) => {
    const run = await runById(tx, input.id);
    const outcomes = await tnRunMerchantOutcomes(tx, input.id);
    return {
      ...run,
      merchantOutcomes: outcomes.map(({ o, merchantCode }) => ({
        merchantId: o.merchantId,
        merchantCode,
        currency: o.currency,
        lines: o.lines,
        amount: formatMinor(o.amount),
        outcome: o.outcome,
        error: o.error,
      })),
    };
  }),

  handle(
    endpoints.settlementtnLog.run,
    async ({ input, user, tx: db, deps, req, audit }) => {
      audit({ target: `tn_run_day:${input.day}` });
      const today = (await businessNow(db, deps.clock.now())).day;
      if (input.day > today) throw invalidField(req.lang, 'day', 'validation.dayAfterToday', { today });
      // The code's use commits on its own: the run's transactions are the merchants'.
      const refused = await inTransaction(db, (t) => checkGoogleCode(t, deps, user, req.ip, input.code));
      if (refused) return refused;
      const run = await runTnSettlement(deps, db, input.day, user.id);
      const row = await runById(db, run!.id);
      audit({
        target: `tn_run:${row.id}`,
        detail: {
          day: row.day,
          merchants: row.merchants,
          lines: row.lines,
          amountReleased: row.amountReleased,
          outcome: row.outcome,
        },
      });
      return row;
    },
    // One transaction per merchant, never one across the run.
    { outsideTransaction: true },
  ),
];
