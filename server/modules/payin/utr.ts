/**
 * UTR checks: where a payment's UTR can be found: imported bank statements first (the bank's own word),
 * then the channels (each adapter's `findUtr`).
 * And the guard of every write of a UTR (supplements, channel payments), which must stay unique.
 */
import { and, asc, eq, inArray, not } from 'drizzle-orm';
import { accountLabel } from '../../../contract/endpoints/receiving.ts';
import { errno } from '../../../contract/errno.ts';
import { statementLine } from '../../../contract/machines.ts';
import { normalUtr } from '../../../contract/schemas.ts';
import { paysByItself } from '../../../contract/statementSource.ts';
import type { Channel, ChannelPayment } from '../../channels/adapter.ts';
import { adapterFor } from '../../channels/index.ts';
import { type Db, sqlState } from '../../db/index.ts';
import {
  cardBindings,
  payinOrderKeys,
  receivingAccounts,
  statementImports,
  statementLines,
} from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { labelColumns } from '../receiving/shared.ts';
import { channelUsable } from './routing.ts';

export interface UtrPayment extends Partial<Pick<ChannelPayment, 'channelOrderId' | 'orderNo'>> {
  source: 'channel' | 'statement';
  utr: string;
  amount: number;
  at: Date;
  account: string;
  /** The channel that reported it (channel source only). */
  channelId?: number;
  /** The statement line that carries it (statement source only). */
  statementLineId?: number;
  /** The receiving account whose statement holds it (statement source only). */
  accountId?: number;
  /**
   * Whether the line may pay by itself (statement source only): a line of a person's statement (an
   * upload, a paste) pays only when posted, a money decision of its own (contract/doors.ts).
   */
  paysByItself?: boolean;
}

export interface UtrSource {
  find(deps: Deps, tx: Db, utr: string, channels: readonly Channel[]): Promise<UtrPayment | null>;
}

/** Asks each given channel's adapter. */
export const channelSource: UtrSource = {
  async find(deps, tx, utr, channels) {
    for (const channel of channels) {
      // The simulator's books prove no payment while SIMULATOR is off: a supplement must not credit one.
      if (!channelUsable(deps, channel)) continue;
      const hit = await adapterFor(channel.adapter).findUtr({ deps, tx, channel }, utr);
      if (hit) return { ...hit, source: 'channel', channelId: channel.id };
    }
    return null;
  },
};

/**
 * Imported bank statements: a credit line carrying the UTR on a receiving account bound to one of the
 * channels (a line set aside, dismissed, proves nothing). Its day is the payment's date (midnight UTC).
 */
export const statementSource: UtrSource = {
  async find(_deps, tx, utr, channels) {
    if (!channels.length) return null;
    const [hit] = await tx
      .select({
        id: statementLines.id,
        accountId: statementLines.accountId,
        amount: statementLines.amount,
        day: statementLines.day,
        ...labelColumns,
        source: statementImports.source,
      })
      .from(statementLines)
      .innerJoin(receivingAccounts, eq(receivingAccounts.id, statementLines.accountId))
      .innerJoin(statementImports, eq(statementImports.id, statementLines.importId))
      .where(
        and(
          eq(statementLines.utr, normalUtr(utr)),
          eq(statementLines.direction, 'credit'),
          not(inStates(statementLines.status, [statementLine.state.dismissed])),
          inArray(
            statementLines.accountId,
            tx
              .select({ id: cardBindings.accountId })
              .from(cardBindings)
              .where(
                inArray(
                  cardBindings.channelId,
                  channels.map((c) => c.id),
                ),
              ),
          ),
        ),
      )
      .orderBy(asc(statementLines.id))
      .limit(1);
    if (!hit) return null;
    return {
      source: 'statement',
      utr: normalUtr(utr),
      amount: hit.amount,
      at: new Date(`${hit.day}T00:00:00Z`),
      account: accountLabel(hit),
      statementLineId: hit.id,
      accountId: hit.accountId,
      paysByItself: paysByItself(hit.source),
    };
  },
};

/**
 * A supplement paid through a statement line: the line is matched to the order, so that it pays no
 * second one (409 when it moved meanwhile).
 */
export async function statementLinePaid(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  hit: UtrPayment,
  orderId: number,
  userId: number,
): Promise<void> {
  if (hit.statementLineId === undefined) return;
  const [moved] = await tx
    .update(statementLines)
    .set({
      status: statementLine.to('match')!,
      payinId: orderId,
      exceptionKind: null,
      candidatePayinId: null,
      resolvedBy: userId,
      resolvedAt: deps.clock.now(),
    })
    .where(
      and(
        eq(statementLines.id, hit.statementLineId),
        inStates(statementLines.status, statementLine.from('match')),
      ),
    )
    .returning({ id: statementLines.id });
  if (!moved) throw new AppError(errno.conflict, null, 'statement line moved meanwhile');
}

/** The sources a UTR check consults, in order; the first that knows the UTR answers. */
export const utrSources: UtrSource[] = [statementSource, channelSource];

/**
 * The sources a user of `tenant` (null: the platform) may consult: the bank statements are the
 * platform's alone (OPERATIONS.md section 2), so a merchant's user neither reads a statement credit nor
 * pays an order with one; the platform's queue and matching do.
 */
export const utrSourcesFor = (tenant: number | null): readonly UtrSource[] =>
  tenant === null ? utrSources : utrSources.filter((s) => s !== statementSource);

export async function findPayment(
  deps: Deps,
  tx: Db,
  utr: string,
  channels: readonly Channel[],
  sources: readonly UtrSource[] = utrSources,
): Promise<UtrPayment | null> {
  for (const source of sources) {
    const hit = await source.find(deps, tx, utr, channels);
    if (hit) return hit;
  }
  return null;
}

/**
 * The order that already carries this UTR (in its normal form, as every order stores it), if any: its key
 * row (migration 0020), one index read of a plain table, where a read of the orders would plan every
 * monthly partition. An order of a detached month is found too: its UTR stays taken.
 */
export async function orderUsingUtr(tx: Db, utr: string) {
  const [row] = await tx
    .select({ id: payinOrderKeys.id, orderNo: payinOrderKeys.orderNo, merchantId: payinOrderKeys.merchantId })
    .from(payinOrderKeys)
    .where(eq(payinOrderKeys.utr, normalUtr(utr)));
  return row;
}

/** Sets a UTR on an order; the unique index (on `payin_order_keys`) settles a race for the same UTR. */
export async function withUtrGuard<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (sqlState(err) === '23505') throw new AppError(errno.utrUsed);
    throw err;
  }
}
