/**
 * Recording and settling a frozen receiving account (docs/MONEY-BACK.md section 3). Recording sets the
 * account `frozen` (out of routing), attributes the amount (attribution.ts) and holds each merchant's
 * share through the ledger's `holdFromMerchant`, each line the cause of its own hold; settling moves the
 * freeze by compare-and-set (`accountFreeze.settle`, once) and resolves every line's hold once.
 */
import { and, asc, eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { accountFreeze } from '../../../contract/machines.ts';
import { type Db, sqlState } from '../../db/index.ts';
import { accountFreezeLines, accountFreezes, receivingAccounts } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import { AppError, foundOne } from '../../http/errors.ts';
import {
  drawId,
  type HoldCause,
  holdFromMerchant,
  releaseMerchantHold,
  spendMerchantHold,
} from '../../ledger/index.ts';
import { apportion } from '../../lib/apportion.ts';
import { attribute } from './attribution.ts';

export type Freeze = typeof accountFreezes.$inferSelect;
export type FreezeLine = typeof accountFreezeLines.$inferSelect;

/** The ledger's name for a freeze line, the cause of its hold, release and write-off. */
export const freezeLineRefType = 'account_freeze_line';

/** Receiving accounts are Indian bank accounts: their pay-ins are in rupees. */
export const freezeCurrency = 'INR';

export interface FreezeRecord {
  accountId: number;
  amount: number;
  reference: string;
  frozenAt: Date;
  note: string;
}

const cause = (lineId: number, kind: string, at: Date, userId: number, memo: string): HoldCause => ({
  refType: freezeLineRefType,
  refId: lineId,
  kind,
  at,
  userId,
  memo,
});

/** The account, locked: recording and status changes of one account go one at a time. */
export async function lockedAccount(tx: Db, id: number) {
  return await foundOne(
    tx.select().from(receivingAccounts).where(eq(receivingAccounts.id, id)).for('update'),
  );
}

/** The account's open freeze, if any. */
export async function openFreezeOf(tx: Db, accountId: number): Promise<Freeze | undefined> {
  const [row] = await tx
    .select()
    .from(accountFreezes)
    .where(
      and(
        eq(accountFreezes.receivingAccountId, accountId),
        inStates(accountFreezes.status, accountFreeze.sets.open),
      ),
    );
  return row;
}

/**
 * Records a freeze of a locked account with no open one: the account `frozen`, the shares attributed
 * and held (the shortfall on each line), the freeze and its lines written. Answers the freeze and the
 * account's status before.
 */
export async function recordFreeze(
  tx: Db,
  r: FreezeRecord,
  userId: number,
  now: Date,
): Promise<{ freeze: Freeze; lines: FreezeLine[] }> {
  await tx
    .update(receivingAccounts)
    .set({ status: 'frozen', updatedAt: now })
    .where(eq(receivingAccounts.id, r.accountId));
  const { shares, unattributed } = await attribute(tx, r.accountId, freezeCurrency, r.frozenAt, r.amount);
  const freezeId = await drawId(tx, 'account_freezes');
  const lines: (typeof accountFreezeLines.$inferInsert)[] = [];
  for (const share of shares) {
    const id = await drawId(tx, 'account_freeze_lines');
    const hold = await holdFromMerchant(
      tx,
      cause(id, 'freeze_hold', now, userId, r.reference),
      share.merchantId,
      freezeCurrency,
      share.amount,
    );
    lines.push({
      id,
      freezeId,
      merchantId: share.merchantId,
      currency: freezeCurrency,
      amount: share.amount,
      orderIds: share.orderIds,
      orderCount: share.orderIds.length,
      heldCollectionAvailable: hold.held.collection_available,
      heldPayoutAvailable: hold.held.payout_available,
      unheld: hold.shortfall,
      createdAt: now,
    });
  }
  const held = lines.reduce((n, l) => n + l.heldCollectionAvailable! + l.heldPayoutAvailable!, 0);
  let freeze: Freeze;
  try {
    [freeze] = (await tx
      .insert(accountFreezes)
      .values({
        id: freezeId,
        receivingAccountId: r.accountId,
        currency: freezeCurrency,
        amount: r.amount,
        reference: r.reference,
        frozenAt: r.frozenAt,
        note: r.note,
        unattributed,
        held,
        unheld: r.amount - unattributed - held,
        recordedBy: userId,
        createdAt: now,
      })
      .returning()) as [Freeze];
  } catch (err) {
    // Another freeze of the account was recorded meanwhile (the open-freeze unique index).
    if (sqlState(err) === '23505') throw new AppError(errno.conflict);
    throw err;
  }
  const written = lines.length ? await tx.insert(accountFreezeLines).values(lines).returning() : [];
  return { freeze, lines: written };
}

export async function linesOf(tx: Db, freezeId: number): Promise<FreezeLine[]> {
  return await tx
    .select()
    .from(accountFreezeLines)
    .where(eq(accountFreezeLines.freezeId, freezeId))
    .orderBy(asc(accountFreezeLines.merchantId));
}

/**
 * A line's part of the bank's outcome: its written-off share is the freeze's written-off amount split in
 * proportion to the lines and the platform's unattributed part (exact, largest remainder); the rest of
 * its amount is released. The hold covers the written-off share first (the loss is what was held for);
 * what is left of it goes back.
 */
export function outcomeOf(
  freeze: Pick<Freeze, 'unattributed'>,
  lines: readonly FreezeLine[],
  writtenOff: number,
) {
  const shares = apportion(writtenOff, [...lines.map((l) => l.amount), freeze.unattributed]);
  return lines.map((line, i) => {
    const written = shares[i]!;
    const held = line.heldCollectionAvailable + line.heldPayoutAvailable;
    const spent = Math.min(written, held);
    return { line, released: line.amount - written, writtenOff: written, spent, back: held - spent };
  });
}

/**
 * Settles a freeze seen `frozen`, by compare-and-set: of two settlements racing exactly one finds it
 * there (409 for the other). Every line's hold is resolved once: its part back to the merchant's wallets
 * (`freeze_release`), its written-off part spent to channel clearing (`freeze_written_off`).
 */
export async function settleFreeze(
  tx: Db,
  id: number,
  outcome: { released: number; writtenOff: number; reason: string },
  userId: number,
  now: Date,
): Promise<{ freeze: Freeze; lines: FreezeLine[] }> {
  const [freeze] = await tx
    .update(accountFreezes)
    .set({
      status: accountFreeze.to('settle')!,
      released: outcome.released,
      writtenOff: outcome.writtenOff,
      settleReason: outcome.reason,
      settledBy: userId,
      settledAt: now,
    })
    .where(and(eq(accountFreezes.id, id), inStates(accountFreezes.status, accountFreeze.from('settle'))))
    .returning();
  if (!freeze) throw new AppError(errno.conflict);
  const lines: FreezeLine[] = [];
  for (const o of outcomeOf(freeze, await linesOf(tx, id), outcome.writtenOff)) {
    const { line } = o;
    const held = {
      collection_available: line.heldCollectionAvailable,
      payout_available: line.heldPayoutAvailable,
    };
    await releaseMerchantHold(
      tx,
      cause(line.id, 'freeze_release', now, userId, outcome.reason),
      line.merchantId,
      line.currency,
      held,
      o.back,
    );
    await spendMerchantHold(
      tx,
      cause(line.id, 'freeze_written_off', now, userId, outcome.reason),
      line.merchantId,
      line.currency,
      o.spent,
      'channel_clearing',
    );
    const [updated] = await tx
      .update(accountFreezeLines)
      .set({ released: o.released, writtenOff: o.writtenOff })
      .where(eq(accountFreezeLines.id, line.id))
      .returning();
    lines.push(updated!);
  }
  return { freeze, lines };
}
