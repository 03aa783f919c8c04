/** Creating a slip: its lines checked and locked, its file written and kept as the audit copy. */
import { randomInt } from 'node:crypto';
import { asc, eq, inArray } from 'drizzle-orm';
import { maxSlipLines, type SlipFormat } from '../../../contract/endpoints/slip.ts';
import { errno } from '../../../contract/errno.ts';
import { type Db, sqlState } from '../../db/index.ts';
import {
  payoutOrders,
  receivingAccounts,
  settlements,
  withdrawalSlipLines,
  withdrawalSlips,
} from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { businessNow } from '../settlement/tn.ts';
import { type Candidate, payoutCandidates, settlementCandidates } from './candidates.ts';
import { slipLayouts, writeSlipFile } from './formats.ts';
import type { Slip } from './service.ts';

const lines = withdrawalSlipLines;

export interface SlipRequest {
  format: SlipFormat;
  accountId: number;
  settlementIds: number[];
  payoutIds: number[];
}

/** A slip checked and ready to write: its objects are locked until the transaction ends. */
export interface PreparedSlip {
  format: SlipFormat;
  accountId: number;
  currency: string;
  lines: Candidate[];
}

/** Locks the rows of `ids` in id order: one order for every slip, so two slips cannot deadlock. */
async function lockInOrder(tx: Db, table: typeof settlements | typeof payoutOrders, ids: number[]) {
  if (!ids.length) return [];
  return tx
    .select({ id: table.id })
    .from(table)
    .where(inArray(table.id, ids))
    .orderBy(asc(table.id))
    .for('update');
}

/**
 * Locks the objects a new slip names and checks each is still a candidate: an unknown one is 404, one
 * that is not a candidate any more (sent on another slip, settled, rejected) refuses the whole slip
 * (409, naming them), one the format cannot carry is 422 at its place in the request.
 */
export async function prepareSlip(tx: Db, req: SlipRequest, lang: Lang): Promise<PreparedSlip> {
  // Paid from one of the platform's own accounts (a donor card is lent to collect, not to pay out).
  const [account] = await tx
    .select({ kind: receivingAccounts.kind })
    .from(receivingAccounts)
    .where(eq(receivingAccounts.id, req.accountId));
  if (account?.kind !== 'public') throw invalidField(lang, 'accountId', 'validation.slipPaidFrom');
  const lockedSettlements = await lockInOrder(tx, settlements, req.settlementIds);
  const lockedPayouts = await lockInOrder(tx, payoutOrders, req.payoutIds);
  if (lockedSettlements.length !== req.settlementIds.length || lockedPayouts.length !== req.payoutIds.length)
    throw new AppError(errno.notFound);
  // Read after the locks: a slip that took one of them meanwhile has committed its line by now.
  const found = [
    ...(req.settlementIds.length
      ? await settlementCandidates(tx, inArray(settlements.id, req.settlementIds), maxSlipLines)
      : []),
    ...(req.payoutIds.length
      ? await payoutCandidates(tx, inArray(payoutOrders.id, req.payoutIds), maxSlipLines)
      : []),
  ];
  const byKey = new Map(found.map((c) => [`${c.objectType}:${c.objectId}`, c]));
  const gone = {
    settlementIds: req.settlementIds.filter((id) => !byKey.has(`settlement:${id}`)),
    payoutIds: req.payoutIds.filter((id) => !byKey.has(`payout:${id}`)),
  };
  if (gone.settlementIds.length || gone.payoutIds.length) throw new AppError(errno.conflict, gone);

  // In the order asked: settlements first, then payouts.
  const chosen = [
    ...req.settlementIds.map((id) => ({ path: 'settlementIds', id, c: byKey.get(`settlement:${id}`)! })),
    ...req.payoutIds.map((id) => ({ path: 'payoutIds', id, c: byKey.get(`payout:${id}`)! })),
  ];
  const currency = chosen[0]!.c.currency;
  const layout = slipLayouts[req.format];
  const fields: { path: string; code: string; message: string }[] = [];
  const indexIn = (path: string, id: number) =>
    (path === 'settlementIds' ? req.settlementIds : req.payoutIds).indexOf(id);
  for (const { path, id, c } of chosen) {
    const refusal = c.currency !== currency ? 'slipCurrencies' : layout.refusal(c);
    if (refusal)
      fields.push({
        path: `${path}.${indexIn(path, id)}`,
        code: refusal,
        message: t(lang, `validation.${refusal}`, { objectNo: c.objectNo }),
      });
  }
  if (fields.length) throw new AppError(errno.invalid, { fields });
  return { format: req.format, accountId: req.accountId, currency, lines: chosen.map((x) => x.c) };
}

/** `WS` + yyMMdd (UTC) + 5 random digits: short enough that slip and line fit a bank's 20-character reference. */
export function newSlipNo(now: Date): string {
  const p2 = (n: number) => String(n).padStart(2, '0');
  const day = p2(now.getUTCFullYear() % 100) + p2(now.getUTCMonth() + 1) + p2(now.getUTCDate());
  return `WS${day}${String(randomInt(0, 100_000)).padStart(5, '0')}`;
}

const live = (err: unknown) => {
  // The partial unique index on live lines: a concurrent slip took one of the objects.
  if (sqlState(err) === '23505') throw new AppError(errno.conflict);
  throw err;
};

/** Writes a prepared slip: its file (kept as the audit copy) and its lines. Answers the slip. */
export async function writeSlip(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  prepared: PreparedSlip,
  userId: number,
): Promise<Slip> {
  const now = deps.clock.now();
  const { day } = await businessNow(tx, now);
  for (let attempt = 0; attempt < 5; attempt++) {
    const slipNo = newSlipNo(now);
    const file = writeSlipFile(prepared.format, { slipNo, day, lines: prepared.lines });
    const [row] = await tx
      .insert(withdrawalSlips)
      .values({
        slipNo,
        format: prepared.format,
        currency: prepared.currency,
        lineCount: prepared.lines.length,
        total: prepared.lines.reduce((sum, l) => sum + l.amount, 0),
        fileName: file.fileName,
        content: file.content,
        accountId: prepared.accountId,
        createdBy: userId,
        createdAt: now,
      })
      .onConflictDoNothing({ target: withdrawalSlips.slipNo })
      .returning();
    if (!row) continue;
    await tx
      .insert(lines)
      .values(
        prepared.lines.map((l, i) => ({
          slipId: row.id,
          objectType: l.objectType,
          objectId: l.objectId,
          merchantId: l.merchantId,
          amount: l.amount,
          beneficiaryName: file.lines[i]!.beneficiaryName,
          accountNumber: l.accountNumber,
          ifsc: l.ifsc,
          narration: file.lines[i]!.narration,
        })),
      )
      .catch(live);
    return row;
  }
  throw new Error('slip: could not draw a free slip number');
}
