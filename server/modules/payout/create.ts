/** Creating a payout: idempotent by merchant order number, its hold frozen at once. */
import { createHash, randomInt } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { heldKind } from '../../../contract/ledgerKinds.ts';
import { payout } from '../../../contract/machines.ts';
import { feeOf, formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { payoutOrderKeys, payoutOrders } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { type Entry, type EntryLine, merchantAccount, platformAccount, post } from '../../ledger/index.ts';
import { archivedNumber, byMerchantNumber } from '../orders/keys.ts';
import {
  type GatewayPayout,
  gatewayViewOf,
  type Merchant,
  type PayoutOrder,
  payoutRefType,
} from './views.ts';

/** `PO` + yyMMddHHmmss (UTC) + 8 random digits: sortable by time, unguessable enough to not collide. */
export function newPayoutOrderNo(now: Date): string {
  const p2 = (n: number) => String(n).padStart(2, '0');
  const stamp =
    p2(now.getUTCFullYear() % 100) +
    p2(now.getUTCMonth() + 1) +
    p2(now.getUTCDate()) +
    p2(now.getUTCHours()) +
    p2(now.getUTCMinutes()) +
    p2(now.getUTCSeconds());
  return `PO${stamp}${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
}

/** What a create asks for, already validated by the contract (amount in minor units). */
export interface PayoutRequest {
  /** Empty: the system order number is used. */
  merchantOrderNo?: string;
  amount: number;
  accountName: string;
  accountNumber: string;
  ifsc: string;
  /** Gateway requests name one; console and bulk orders notify the merchant's callback URL. */
  notifyUrl?: string;
}

/** SHA-256 of the canonical request: the same merchant order number with other content is a conflict. */
export function payoutRequestHash(merchantOrderNo: string, r: PayoutRequest): string {
  const canonical = JSON.stringify([
    merchantOrderNo,
    r.amount,
    r.accountName,
    r.accountNumber,
    r.ifsc,
    r.notifyUrl ?? '',
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

export interface Created {
  order: PayoutOrder;
  /** True when the merchant order number existed with the same content: nothing was done. */
  replayed: boolean;
  /** The original gateway answer (for a replay: the answer of the first create, unchanged). */
  answer: GatewayPayout;
}

/** The merchant's limits for one payout amount, as a 422 naming `field`. */
export function checkAmountLimits(m: Merchant, amount: number, lang: Lang, field = 'amount'): void {
  if (amount < m.minAmount || amount > m.maxAmount) {
    throw new AppError(errno.invalid, {
      fields: [
        {
          path: field,
          code: 'out_of_range',
          message: t(lang, 'validation.amountLimits', {
            min: formatMinor(m.minAmount),
            max: formatMinor(m.maxAmount),
          }),
        },
      ],
    });
  }
}

/** The order of a merchant order number, through its key row (its id and time pick the partition). */
export async function byMerchantOrderNo(tx: Db, merchantId: number, merchantOrderNo: string) {
  const [row] = await tx
    .select()
    .from(payoutOrders)
    .where(byMerchantNumber(payoutOrders, payoutOrderKeys, merchantId, merchantOrderNo));
  return row;
}

function replayOf(existing: PayoutOrder, hash: string): Created {
  if (existing.requestHash !== hash) {
    throw new AppError(errno.conflict, {
      fields: [{ path: 'merchantOrderNo', code: 'conflict', message: existing.merchantOrderNo }],
    });
  }
  const snap = existing.responseSnapshot as GatewayPayout | null;
  // jsonb keeps keys in its own order: put them back in the answer's, so a replay is byte-identical.
  const answer = snap
    ? (Object.fromEntries(
        Object.keys(gatewayViewOf(existing)).map((k) => [k, snap[k as keyof GatewayPayout] ?? null]),
      ) as GatewayPayout)
    : gatewayViewOf(existing);
  return { order: existing, replayed: true, answer };
}

/**
 * The journal entry of a step of the order's open hold (the header lists them): the freeze moves amount +
 * fee from the payout wallet (a refund's payout: the collection wallet) to frozen, the release moves it back, the spend sends the amount out and
 * gives the fee to the platform. The demo seed posts the same entries in bulk.
 */
export function holdEntry(
  o: Pick<PayoutOrder, 'id' | 'merchantId' | 'currency' | 'amount' | 'fee' | 'holds' | 'refundId'>,
  step: 'freeze' | 'release' | 'spend',
  memo: string,
  userId: number | null,
  at: Date,
): Entry {
  const total = o.amount + o.fee;
  // A refund's money comes from the collection balance its pay-in was paid into (docs/MONEY-BACK.md).
  const wallet = o.refundId === null ? 'payout_available' : 'collection_available';
  const available = merchantAccount(o.merchantId, wallet, o.currency);
  const frozen = merchantAccount(o.merchantId, 'frozen', o.currency);
  const lines: EntryLine[] =
    step === 'freeze'
      ? [
          { account: available, amount: -total },
          { account: frozen, amount: total },
        ]
      : step === 'release'
        ? [
            { account: frozen, amount: -total },
            { account: available, amount: total },
          ]
        : [
            { account: frozen, amount: -total },
            { account: platformAccount('payout_clearing', o.currency), amount: o.amount },
            ...(o.fee > 0 ? [{ account: platformAccount('fee_income', o.currency), amount: o.fee }] : []),
          ];
  const kind = step === 'spend' ? 'payout_success' : heldKind(`payout_${step}`, o.holds);
  return { kind, refType: payoutRefType, refId: o.id, memo, userId, at, lines };
}

/** The freeze of a hold: moves amount + fee from the payout wallet to frozen (1019 when short). */
export async function freeze(deps: Pick<Deps, 'clock'>, tx: Db, o: PayoutOrder, userId: number | null) {
  await post(tx, holdEntry(o, 'freeze', o.orderNo, userId, deps.clock.now()));
}

/**
 * Creates a payout for `merchant` in the caller's transaction: checks the merchant's limits, computes
 * the fee, and freezes amount + fee at once (insufficient balance: 1019, nothing written). The merchant
 * order number is the idempotency key: the same content answers the original order and does nothing;
 * other content is a conflict (409). Concurrent duplicates meet at the unique index: the later ones wait
 * for the first to commit and then replay it.
 */
export async function createPayout(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  merchant: Merchant,
  req: PayoutRequest,
  opts: {
    source: PayoutOrder['source'];
    lang: Lang;
    userId?: number | null;
    snapshot?: unknown;
    /** The refund it carries: no fee, and not the merchant's payout limits (the refund's own rules hold). */
    refundId?: number;
  },
): Promise<Created> {
  if (merchant.status !== 'active') throw new AppError(errno.forbidden, null, 'merchant frozen');
  const now = deps.clock.now();
  // A replay answers the original even if the merchant's limits changed since.
  if (req.merchantOrderNo) {
    const existing = await byMerchantOrderNo(tx, merchant.id, req.merchantOrderNo);
    if (existing) return replayOf(existing, payoutRequestHash(req.merchantOrderNo, req));
  }
  const refundId = opts.refundId ?? null;
  if (refundId === null) checkAmountLimits(merchant, req.amount, opts.lang);
  const fee = refundId === null ? feeOf(req.amount, merchant.payoutRatePpm, merchant.payoutFee) : 0;
  for (let attempt = 0; attempt < 5; attempt++) {
    const orderNo = newPayoutOrderNo(now);
    const merchantOrderNo = req.merchantOrderNo || orderNo;
    const hash = payoutRequestHash(merchantOrderNo, req);
    const values = {
      orderNo,
      merchantId: merchant.id,
      merchantOrderNo,
      currency: merchant.currency,
      amount: req.amount,
      fee,
      status: payout.initial,
      accountName: req.accountName,
      accountNumber: req.accountNumber,
      ifsc: req.ifsc,
      notifyUrl: req.notifyUrl ?? merchant.callbackUrl,
      source: opts.source,
      requestHash: hash,
      requestSnapshot: opts.snapshot ?? null,
      holds: 1,
      holdOpen: true,
      attempts: 0,
      nextAttemptAt: now,
      createdBy: opts.userId ?? null,
      createdAt: now,
      updatedAt: now,
      refundId,
    };
    const answer = gatewayViewOf({
      ...values,
      id: 0,
      channelId: null,
      channelOrderId: null,
      pushStatus: 'unpushed',
      utr: null,
      failureReason: null,
      responseSnapshot: null,
      completedAt: null,
      callbackAt: null,
    });
    // The numbers are claimed first in their key table (unique across the monthly partitions, migration
    // 0020), with the id the order then takes: nothing is written when either is taken.
    const [claimed] = await tx
      .insert(payoutOrderKeys)
      .values({
        id: sql`nextval('payout_orders_id_seq')`,
        createdAt: now,
        orderNo,
        merchantId: merchant.id,
        merchantOrderNo,
      })
      .onConflictDoNothing()
      .returning({ id: payoutOrderKeys.id });
    if (claimed) {
      const [order] = await tx
        .insert(payoutOrders)
        .values({ ...values, id: claimed.id, responseSnapshot: answer })
        .returning();
      if (!order) throw new Error('payout: insert returned nothing');
      await freeze(deps, tx, order, opts.userId ?? null);
      return { order, replayed: false, answer };
    }
    // Either a concurrent create with this merchant order number committed first, or (rarely) the
    // random order number was taken: replay the former, draw a new number for the latter.
    const existing = await byMerchantOrderNo(tx, merchant.id, merchantOrderNo);
    if (existing) return replayOf(existing, hash);
    if (await archivedNumber(tx, payoutOrderKeys, payoutOrders, merchant.id, merchantOrderNo)) {
      throw new AppError(errno.conflict, {
        fields: [{ path: 'merchantOrderNo', code: 'conflict', message: merchantOrderNo }],
      });
    }
  }
  throw new Error('payout: could not draw a free order number');
}
