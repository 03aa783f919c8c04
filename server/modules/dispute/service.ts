/**
 * Disputes (docs/MONEY-BACK.md section 2). Opening holds the disputed amount from the merchant's wallets
 * (`holdFromMerchant`, the case the hold's cause); what they cannot cover is recorded as unheld. The case
 * ends once, by compare-and-set on its status (the `dispute` machine), and its hold resolves with it:
 * released when won or withdrawn; spent when lost — a chargeback's to channel clearing (the payer's bank
 * took the money back), a complaint's or wrong payment's to the payer through a refund held from it. What
 * was never held becomes the merchant's debt (`merchant_debt`), which the platform advances.
 */
import { and, eq, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { type DisputeStatus, dispute, payin } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { disputes, payinOrders } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { enqueueCallback } from '../../jobs/webhooks.ts';
import {
  type HoldCause,
  holdFromMerchant,
  merchantAccount,
  platformAccount,
  post,
  recordMerchantDebt,
  releaseMerchantHold,
  rowsOf,
  spendMerchantHold,
} from '../../ledger/index.ts';
import { newOrderNo } from '../payin/creation.ts';
import type { PayinOrder } from '../payin/views.ts';
import type { Merchant } from '../payout/views.ts';
import { disputedOf, type Payee, recordRefund, refundable, startRefund } from '../refund/service.ts';

export type Dispute = typeof disputes.$inferSelect;
export type DisputeKind = Dispute['kind'];
export type Side = Dispute['openedSide'];

/** The ledger's, the operation log's and the callbacks' name for a case. */
export const disputeRefType = 'dispute';

const cause = (d: Pick<Dispute, 'id' | 'disputeNo'>, kind: string, at: Date, userId: number): HoldCause => ({
  refType: disputeRefType,
  refId: d.id,
  kind,
  at,
  userId,
  memo: d.disputeNo,
});

export const heldOf = (d: Dispute) => d.heldCollectionAvailable + d.heldPayoutAvailable;

/** The pay-in, locked: opening cases of one order goes one at a time, so their sum never passes it. */
export async function lockedOrder(tx: Db, order: PayinOrder): Promise<PayinOrder> {
  const [row] = await tx
    .select()
    .from(payinOrders)
    .where(and(eq(payinOrders.id, order.id), eq(payinOrders.createdAt, order.createdAt)))
    .for('update');
  if (!row) throw new AppError(errno.notFound);
  return row;
}

/**
 * What a (locked) order still has to dispute or refund: paid, less refunded, less what its open cases
 * hold (`disputedOf`, the refunds' own rule).
 */
export async function disputable(tx: Db, order: PayinOrder): Promise<number> {
  return Math.max(0, refundable(order) - (await disputedOf(tx, order.id)));
}

export interface DisputeAsk {
  kind: DisputeKind;
  amount: number;
  deadline: Date;
  reason: string;
}

/**
 * Everything an opening is refused for, before the user's Google code is spent: the order's state (409),
 * the kind a merchant may not open (422), the deadline (422), the amount against what is left (422).
 */
export async function checkOpening(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  order: PayinOrder,
  ask: DisputeAsk,
  side: Side,
  lang: Lang,
): Promise<void> {
  if (!payin.can('refund', order.status))
    throw new AppError(errno.conflict, null, `dispute of ${order.status}`);
  if (side === 'merchant' && ask.kind === 'chargeback')
    throw invalidField(lang, 'kind', 'validation.disputeKindMerchant');
  if (ask.deadline <= deps.clock.now()) throw invalidField(lang, 'deadline', 'validation.disputeDeadline');
  const left = await disputable(tx, order);
  if (ask.amount > left)
    throw invalidField(lang, 'amount', 'validation.disputeTooMuch', { max: formatMinor(left) }, 'too_big');
}

/** Opens a case against a locked, checked order and holds its amount: one transaction, the caller's. */
export async function openDispute(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  order: PayinOrder,
  ask: DisputeAsk,
  side: Side,
  userId: number,
): Promise<Dispute> {
  const now = deps.clock.now();
  const [row] = await tx
    .insert(disputes)
    .values({
      disputeNo: newOrderNo(now, 'DP'),
      merchantId: order.merchantId,
      payinId: order.id,
      payinCreatedAt: order.createdAt,
      orderNo: order.orderNo,
      merchantOrderNo: order.merchantOrderNo,
      kind: ask.kind,
      currency: order.currency,
      amount: ask.amount,
      // Nothing held yet: the hold below says what each wallet gave.
      unheldAmount: ask.amount,
      deadline: ask.deadline,
      openedSide: side,
      openedBy: userId,
      reason: ask.reason,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  const hold = await holdFromMerchant(
    tx,
    cause(row!, 'dispute_hold', now, userId),
    order.merchantId,
    order.currency,
    ask.amount,
  );
  const [held] = await tx
    .update(disputes)
    .set({
      heldCollectionAvailable: hold.held.collection_available,
      heldPayoutAvailable: hold.held.payout_available,
      unheldAmount: hold.shortfall,
    })
    .where(eq(disputes.id, row!.id))
    .returning();
  await notify(deps, tx, held!, 1);
  return held!;
}

/** Moves an open case to `to` by compare-and-set (409 when it ended meanwhile). */
async function end(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  d: Dispute,
  action: 'win' | 'lose' | 'withdraw',
  reason: string,
  userId: number,
): Promise<Dispute> {
  const now = deps.clock.now();
  const [ended] = await tx
    .update(disputes)
    .set({
      status: dispute.to(action)! as DisputeStatus,
      outcomeReason: reason,
      decidedBy: userId,
      decidedAt: now,
      updatedAt: now,
    })
    .where(and(eq(disputes.id, d.id), inStates(disputes.status, dispute.from(action))))
    .returning();
  if (!ended) throw new AppError(errno.conflict, null, `dispute ${d.disputeNo}: ${action} from ${d.status}`);
  return ended;
}

/** Won or withdrawn: the hold goes back to the wallets it came from. */
export async function releaseDispute(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  d: Dispute,
  action: 'win' | 'withdraw',
  reason: string,
  userId: number,
): Promise<Dispute> {
  const ended = await end(deps, tx, d, action, reason, userId);
  await releaseMerchantHold(
    tx,
    cause(ended, 'dispute_release', deps.clock.now(), userId),
    ended.merchantId,
    ended.currency,
    { collection_available: ended.heldCollectionAvailable, payout_available: ended.heldPayoutAvailable },
    heldOf(ended),
  );
  await notify(deps, tx, ended, 2);
  return ended;
}

/**
 * Lost: a chargeback's hold is spent to channel clearing, and what was never held is the merchant's debt
 * against it. A complaint's or wrong payment's hold goes to the merchant's collection balance with what
 * the platform advances for the unheld part (the merchant's debt), and a refund to the payer is held from
 * it at once: at most what the order still has to refund (a refund made while the case was open already
 * paid part of it back, and that part stays the merchant's). `payee` comes from `payeeOf`, checked first.
 */
export async function loseDispute(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  d: Dispute,
  reason: string,
  userId: number,
  refund: { order: PayinOrder; merchant: Merchant; payee: Payee; lang: Lang } | null,
): Promise<Dispute> {
  let ended = await end(deps, tx, d, 'lose', reason, userId);
  const now = deps.clock.now();
  const held = heldOf(ended);
  const debt = merchantAccount(ended.merchantId, 'merchant_debt', ended.currency);
  if (ended.kind === 'chargeback' || !refund) {
    await spendMerchantHold(
      tx,
      cause(ended, 'dispute_lost', now, userId),
      ended.merchantId,
      ended.currency,
      held,
      'channel_clearing',
    );
    if (ended.unheldAmount)
      await recordMerchantDebt(tx, {
        ...cause(ended, 'dispute_debt', now, userId),
        merchantId: ended.merchantId,
        currency: ended.currency,
        amount: ended.unheldAmount,
        against: platformAccount('channel_clearing', ended.currency),
      });
  } else {
    const order = await lockedOrder(tx, refund.order);
    // This case has ended: another open case of the order keeps its own part out of the refund.
    const back = Math.min(ended.amount, await disputable(tx, order));
    const advanced = Math.max(0, back - held);
    const collection = merchantAccount(ended.merchantId, 'collection_available', ended.currency);
    if (held || advanced)
      await post(tx, {
        ...cause(ended, 'dispute_refund', now, userId),
        lines: [
          ...(held
            ? [{ account: merchantAccount(ended.merchantId, 'frozen', ended.currency), amount: -held }]
            : []),
          ...(advanced ? [{ account: debt, amount: -advanced }] : []),
          { account: collection, amount: held + advanced },
        ],
      });
    if (back > 0) {
      const ask = { amount: back, reason, source: 'console' as const };
      const { row } = await recordRefund(
        deps,
        tx,
        order,
        refund.merchant,
        ask,
        refund.payee,
        { userId },
        refund.lang,
      );
      const started = await startRefund(deps, tx, row, refund.merchant, userId, order);
      const [linked] = await tx
        .update(disputes)
        .set({ refundId: started.id })
        .where(eq(disputes.id, ended.id))
        .returning();
      ended = linked!;
    }
  }
  await notify(deps, tx, ended, 2);
  return ended;
}

/**
 * The merchant hears of a case when it opens (round 1) and when it ends (round 2): `dispute.updated`
 * to the order's notifyUrl.
 */
async function notify(deps: Pick<Deps, 'clock'>, tx: Db, d: Dispute, round: 1 | 2) {
  const [order] = await tx
    .select({ notifyUrl: payinOrders.notifyUrl })
    .from(payinOrders)
    .where(and(eq(payinOrders.id, d.payinId), eq(payinOrders.createdAt, d.payinCreatedAt)));
  if (!order) return;
  await enqueueCallback(deps, tx, {
    merchantId: d.merchantId,
    orderType: 'dispute',
    orderId: d.id,
    type: 'dispute.updated',
    round,
    url: order.notifyUrl,
    data: gatewayDisputeView(d),
  });
}

/** A case as its callback carries it: the merchant's view, without who on the platform worked on it. */
export function gatewayDisputeView(d: Dispute) {
  return {
    disputeNo: d.disputeNo,
    orderNo: d.orderNo,
    merchantOrderNo: d.merchantOrderNo,
    kind: d.kind,
    status: d.status,
    currency: d.currency,
    amount: formatMinor(d.amount),
    held: formatMinor(heldOf(d)),
    unheld: formatMinor(d.unheldAmount),
    deadline: d.deadline.toISOString(),
    reason: d.reason,
    outcomeReason: d.outcomeReason,
    createdAt: d.createdAt.toISOString(),
    decidedAt: d.decidedAt?.toISOString() ?? null,
  };
}

/**
 * Every case's hold resolved once (docs/RELIABILITY.md's promise for holds): a case that held money has
 * one `dispute_hold` entry; an open one nothing else; an ended one exactly one entry that takes the held
 * amount out of `frozen` (`dispute_release`, `dispute_lost` or `dispute_refund`). Answers the cases that
 * break it.
 */
export async function checkDisputeHolds(tx: Db): Promise<{ disputeNo: string; problem: string }[]> {
  const rows = rowsOf<{
    no: string;
    status: DisputeStatus;
    held: string;
    holds: string;
    ends: string;
    out: string;
  }>(
    await tx.execute(sql`
      select d.dispute_no as no, d.status, (d.held_collection_available + d.held_payout_available)::text as held,
        count(*) filter (where e.kind = 'dispute_hold')::text as holds,
        count(*) filter (where e.kind in ('dispute_release', 'dispute_lost', 'dispute_refund'))::text as ends,
        coalesce(-sum(p.amount) filter (where e.kind in ('dispute_release', 'dispute_lost', 'dispute_refund')
          and a.kind = 'frozen'), 0)::text as out
      from ${disputes} d
      left join journal_entries e on e.ref_type = ${disputeRefType} and e.ref_id = d.id::text
      left join postings p on p.entry_id = e.id
      left join ledger_accounts a on a.id = p.account_id
      group by d.id`),
  );
  const problems: { disputeNo: string; problem: string }[] = [];
  for (const r of rows) {
    const held = Number(r.held);
    // Entries are counted once per posting line: a hold entry has at least two lines.
    const holds = Number(r.holds) > 0 ? 1 : 0;
    if (holds !== (held > 0 ? 1 : 0))
      problems.push({ disputeNo: r.no, problem: `held ${held}, hold entries ${r.holds}` });
    const open = dispute.is('open', r.status);
    if (open && Number(r.ends) > 0) problems.push({ disputeNo: r.no, problem: 'open, yet its hold moved' });
    if (!open && Number(r.out) !== held)
      problems.push({ disputeNo: r.no, problem: `${r.status}: ${r.out} of ${held} taken out of frozen` });
  }
  return problems;
}
