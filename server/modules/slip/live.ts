/**
 * Whether a settlement or payout is on a live withdrawal slip: then its slip finishes it (the line marked
 * withdrawn or dropped), never a hand action meanwhile: rejected, completed or marked by hand, the bank
 * could pay it twice or its line wait forever. Apart from the slips' service, which the settlement engine
 * it completes through could not import.
 */
import { and, eq, type SQL } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { slipLine } from '../../../contract/machines.ts';
import type { Db } from '../../db/index.ts';
import { withdrawalSlipLines as lines, withdrawalSlips } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import { AppError } from '../../http/errors.ts';

export type SlipObjectType = (typeof lines.$inferSelect)['objectType'];

/** A live line of the object `objectType`/`id` (a column or a value): no other slip may take it. */
export const liveLineOf = (objectType: SlipObjectType, id: SQL | number) =>
  and(eq(lines.objectType, objectType), eq(lines.objectId, id), inStates(lines.status, slipLine.sets.live));

/** The slip number of the live slip a settlement or payout is on, or null. */
export async function liveSlipOf(
  tx: Db,
  objectType: SlipObjectType,
  objectId: number,
): Promise<string | null> {
  const [row] = await tx
    .select({ slipNo: withdrawalSlips.slipNo })
    .from(lines)
    .innerJoin(withdrawalSlips, eq(withdrawalSlips.id, lines.slipId))
    .where(liveLineOf(objectType, objectId));
  return row?.slipNo ?? null;
}

/** Refuses (1042, naming the slip) a hand action on an object while a live slip carries it. */
export async function refuseWhileOnSlip(tx: Db, objectType: SlipObjectType, objectId: number): Promise<void> {
  const slipNo = await liveSlipOf(tx, objectType, objectId);
  if (slipNo) throw new AppError(errno.onSlip, { slipNo });
}
