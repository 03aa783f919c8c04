/** What may go on a slip: bank settlements the platform confirmed, payouts a manual bank channel accepted. */
import { and, asc, count, eq, notExists, type SQL, sql } from 'drizzle-orm';
import { maxSlipLines } from '../../../contract/endpoints/slip.ts';
import { payout, settlement } from '../../../contract/machines.ts';
import { manualBankAdapterName } from '../../channels/manualBank.ts';
import type { Db } from '../../db/index.ts';
import { channels, merchants, payoutOrders, settlements, withdrawalSlipLines } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import { paidOf } from '../settlement/service.ts';
import type { SlipLineInput } from './formats.ts';
import { liveLineOf } from './live.ts';

const lines = withdrawalSlipLines;

/** Bank settlements the platform confirmed and has not sent: `settlement.slip` may start from them. */
const settlementReady = and(
  inStates(settlements.status, settlement.from('slip')),
  eq(settlements.type, 'bank'),
  notExists(sql`(select 1 from ${lines} where ${liveLineOf('settlement', sql`${settlements.id}`)})`),
);

/** Payouts a manual bank channel accepted and nobody has sent yet. */
const payoutReady = and(
  eq(payoutOrders.status, payout.state.processing),
  eq(channels.adapter, manualBankAdapterName),
  notExists(sql`(select 1 from ${lines} where ${liveLineOf('payout', sql`${payoutOrders.id}`)})`),
);

export interface Candidate extends SlipLineInput {
  objectId: number;
  merchantId: number;
  merchantCode: string;
  readyAt: Date;
}

export async function settlementCandidates(
  tx: Db,
  where: SQL | undefined,
  limit: number,
): Promise<Candidate[]> {
  const rows = await tx
    .select({ s: settlements, merchantCode: merchants.code })
    .from(settlements)
    .innerJoin(merchants, eq(merchants.id, settlements.merchantId))
    .where(and(settlementReady, where))
    .orderBy(asc(settlements.confirmedAt), asc(settlements.id))
    .limit(limit);
  return rows.map(({ s, merchantCode }) => ({
    objectType: 'settlement',
    objectId: s.id,
    objectNo: s.settlementNo,
    merchantId: s.merchantId,
    merchantCode,
    // What the platform approved goes out; the fee stays with the platform.
    amount: paidOf(s),
    currency: s.currency,
    beneficiaryName: s.accountName ?? '',
    accountNumber: s.cardNumber ?? '',
    ifsc: s.ifsc ?? '',
    readyAt: s.confirmedAt ?? s.createdAt,
  }));
}

export async function payoutCandidates(tx: Db, where: SQL | undefined, limit: number): Promise<Candidate[]> {
  const rows = await tx
    .select({ o: payoutOrders, merchantCode: merchants.code })
    .from(payoutOrders)
    .innerJoin(channels, eq(channels.id, payoutOrders.channelId))
    .innerJoin(merchants, eq(merchants.id, payoutOrders.merchantId))
    .where(and(payoutReady, where))
    .orderBy(asc(payoutOrders.createdAt), asc(payoutOrders.id))
    .limit(limit);
  return rows.map(({ o, merchantCode }) => ({
    objectType: 'payout',
    objectId: o.id,
    objectNo: o.orderNo,
    merchantId: o.merchantId,
    merchantCode,
    amount: o.amount,
    currency: o.currency,
    beneficiaryName: o.accountName,
    accountNumber: o.accountNumber,
    ifsc: o.ifsc,
    readyAt: o.createdAt,
  }));
}

/** What may go on a new slip, oldest first (as many as one slip holds), and how many there are. */
export async function slipCandidates(tx: Db): Promise<{ list: Candidate[]; total: number }> {
  const both = [
    ...(await settlementCandidates(tx, undefined, maxSlipLines)),
    ...(await payoutCandidates(tx, undefined, maxSlipLines)),
  ].sort((a, b) => a.readyAt.getTime() - b.readyAt.getTime() || a.objectId - b.objectId);
  const [s] = await tx.select({ n: count() }).from(settlements).where(settlementReady);
  const [p] = await tx
    .select({ n: count() })
    .from(payoutOrders)
    .innerJoin(channels, eq(channels.id, payoutOrders.channelId))
    .where(payoutReady);
  return { list: both.slice(0, maxSlipLines), total: (s?.n ?? 0) + (p?.n ?? 0) };
}
