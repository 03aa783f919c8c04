/** Disputes as the console reads them: rows with codes and names, and the detail with its evidence. */
import { asc, count, eq, inArray } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { disputeDetail, disputeRow } from '../../../contract/endpoints/dispute.ts';
import { dispute } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { disputeEvidence, merchants, refunds, users } from '../../db/schema.ts';
import { type Dispute, gatewayDisputeView } from './service.ts';

type Row = z.output<typeof disputeRow>;

const idsOf = (values: readonly (number | null)[]) => [
  ...new Set(values.flatMap((v) => (v === null ? [] : [v]))),
];

async function lookup<K extends number, V>(ids: readonly K[], read: (ids: K[]) => Promise<[K, V][]>) {
  return new Map(ids.length ? await read([...ids]) : []);
}

/**
 * The rows of `list`: merchant codes, refund numbers, evidence counts, and who opened, owns and decided
 * each case by username for platform readers (`withNames`); a merchant reader sees the sides only.
 */
export async function disputeRows(
  tx: Db,
  list: readonly Dispute[],
  withNames: boolean,
  now: Date,
): Promise<Row[]> {
  if (!list.length) return [];
  const codes = await lookup(idsOf(list.map((d) => d.merchantId)), async (ids) =>
    (
      await tx
        .select({ id: merchants.id, code: merchants.code })
        .from(merchants)
        .where(inArray(merchants.id, ids))
    ).map((m) => [m.id, m.code]),
  );
  const refundNos = await lookup(idsOf(list.map((d) => d.refundId)), async (ids) =>
    (
      await tx.select({ id: refunds.id, no: refunds.refundNo }).from(refunds).where(inArray(refunds.id, ids))
    ).map((r) => [r.id, r.no]),
  );
  const evidence = await lookup(
    list.map((d) => d.id),
    async (ids) =>
      (
        await tx
          .select({ id: disputeEvidence.disputeId, n: count() })
          .from(disputeEvidence)
          .where(inArray(disputeEvidence.disputeId, ids))
          .groupBy(disputeEvidence.disputeId)
      ).map((e) => [e.id, Number(e.n)]),
  );
  const names = await lookup(
    withNames ? idsOf(list.flatMap((d) => [d.ownerId, d.openedBy, d.decidedBy])) : [],
    async (ids) =>
      (await tx.select({ id: users.id, name: users.username }).from(users).where(inArray(users.id, ids))).map(
        (u) => [u.id, u.name],
      ),
  );
  const nameOf = (id: number | null) => (id === null ? null : (names.get(id) ?? null));
  // What the merchant's callback says of a case, and the console's own fields beside it.
  return list.map((d) => ({
    ...gatewayDisputeView(d),
    id: d.id,
    merchantId: d.merchantId,
    merchantCode: codes.get(d.merchantId) ?? '',
    payinId: d.payinId,
    overdue: dispute.is('open', d.status) && d.deadline <= now,
    owner: nameOf(d.ownerId),
    ownerId: withNames ? d.ownerId : null,
    openedSide: d.openedSide,
    openedBy: nameOf(d.openedBy),
    decidedBy: nameOf(d.decidedBy),
    refundId: d.refundId,
    refundNo: d.refundId === null ? null : (refundNos.get(d.refundId) ?? null),
    evidenceCount: evidence.get(d.id) ?? 0,
  }));
}

/** A case with where its hold came from and its evidence, oldest first. */
export async function disputeInfo(
  tx: Db,
  d: Dispute,
  withNames: boolean,
  now: Date,
): Promise<z.output<typeof disputeDetail>> {
  const [row] = await disputeRows(tx, [d], withNames, now);
  const items = await tx
    .select()
    .from(disputeEvidence)
    .where(eq(disputeEvidence.disputeId, d.id))
    .orderBy(asc(disputeEvidence.id));
  const names = await lookup(withNames ? idsOf(items.map((e) => e.userId)) : [], async (ids) =>
    (await tx.select({ id: users.id, name: users.username }).from(users).where(inArray(users.id, ids))).map(
      (u) => [u.id, u.name],
    ),
  );
  return {
    ...row!,
    heldCollectionAvailable: formatMinor(d.heldCollectionAvailable),
    heldPayoutAvailable: formatMinor(d.heldPayoutAvailable),
    evidence: items.map((e) => ({
      id: e.id,
      note: e.note,
      filename: e.filename,
      mime: e.mime,
      side: e.side,
      addedBy: e.userId === null ? null : (names.get(e.userId) ?? null),
      createdAt: e.createdAt.toISOString(),
    })),
  };
}
