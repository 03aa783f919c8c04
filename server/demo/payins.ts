/**
 * The demo's pay-ins: when the merchants' payers arrive and for how much (more on weekdays and in the
 * Indian day, many small and a few large), what becomes of each, and how it is written. The special
 * stories (lost callbacks found by UTR, forced supplements, orders waiting right now) and the last hours
 * go through the real services; the bulk of ordinary ones is written whole at its outcome by the bulk
 * writer, as the services would have left it.
 */
import { eq } from 'drizzle-orm';
import { endpoints } from '../../contract/index.ts';
import { callback, type PayinStatus, payin } from '../../contract/machines.ts';
import { feeOf, formatMinor } from '../../contract/money.ts';
import { payinOrders, type simulatorTransactions } from '../db/schema.ts';
import { randomToken } from '../lib/crypto.ts';
import {
  createPayin,
  newOrderNo,
  type PayinRequest,
  publicUrl,
  requestHash,
} from '../modules/payin/creation.ts';
import { type SimulatorPayment, settleSimulatorPayin } from '../modules/payin/simulator.ts';
import { transition } from '../modules/payin/state.ts';
import { findPayment, orderUsingUtr, withUtrGuard } from '../modules/payin/utr.ts';
import { gatewayView, type PayinOrder } from '../modules/payin/views.ts';
import {
  day,
  demoAgent,
  firstNames,
  forceReasons,
  hour,
  ist,
  lastNames,
  minute,
  payinHours,
  rupees,
  weekdayFactor,
} from './business.ts';
import { historyOf } from './callbacks.ts';
import { type DemoMerchant, merchantOrderNoOf, notifyUrlAt } from './merchants.ts';
import type { Seed } from './seed.ts';

/** A row of the simulator's books. */
type SimulatorBook = typeof simulatorTransactions.$inferInsert;

/**
 * What becomes of a pay-in: the state the seed leaves it in, or a story told through the real services
 * (a payment whose callback was lost, found by UTR and supplemented or still open; a forced supplement).
 */
type PayinFate = PayinStatus | 'lostSupplement' | 'lostOpen' | 'forceFromFailed' | 'forceFromUnpaid';

export interface Arrival {
  m: DemoMerchant;
  t: number;
  amount: number;
  fate: PayinFate;
  /** Through the real services (else written in bulk). */
  real: boolean;
  payer: PayinRequest['payer'];
}

/** A payment the simulator recorded whose callback was lost: try UTR check, then Supplement. */
export interface LostCallback {
  merchant: string;
  orderNo: string;
  utr: string;
  status: PayinStatus;
}

/** Every pay-in of the 30 days, in time order, with its fate drawn. */
export function planPayins(seed: Seed, ms: readonly DemoMerchant[]): Arrival[] {
  const { rnd, now, start, todayIst, expiryMs } = seed;
  const { paid, failed, unpaid, pending, creation_failed } = payin.state;
  const amountFor = (m: DemoMerchant) => {
    const { median, sigma, points } = m.spec.payin;
    let a: number;
    const x0 = rnd.random();
    if (x0 < 0.025) {
      // The few large ones: between ten times the usual and most of the merchant's limit.
      const lo = Math.log(median * 10);
      const hi = Math.log(m.row.maxAmount * 0.8);
      a = Math.round(Math.exp(lo + rnd.random() * Math.max(0, hi - lo)) / 10_000) * 10_000;
    } else if (x0 < 0.36) a = rnd.pick(points);
    else {
      const x = median * Math.exp(sigma * rnd.normal());
      a = x < rupees(1_000) ? Math.round(x / 100) * 100 : Math.round(x / 1_000) * 1_000;
      if (rnd.random() < 0.1) a += Math.floor(rnd.random() * 100);
    }
    return Math.min(Math.max(a, m.row.minAmount), m.row.maxAmount);
  };
  const payer = (): PayinRequest['payer'] => {
    if (rnd.random() < 0.3) return undefined;
    const first = rnd.pick(firstNames);
    const last = rnd.pick(lastNames);
    return {
      name: `${first} ${last}`,
      email: `${first.toLowerCase()}.${last.toLowerCase()}${Math.floor(rnd.random() * 90 + 10)}@example.in`,
      phone: `+91${rnd.pick(['9', '8', '7'])}${rnd.digits(9)}`,
    };
  };

  const arrivals: Arrival[] = [];
  for (const m of ms) {
    for (let k = 30; k >= 0; k--) {
      const dayStart = todayIst - k * day;
      const weekday = new Date(dayStart + ist).getUTCDay();
      const trend = 0.85 + (0.15 * (30 - k)) / 30;
      const n = Math.round(m.spec.payinsPerDay * weekdayFactor[weekday]! * trend * rnd.between(0.85, 1.15));
      for (let i = 0; i < n; i++) {
        const t = seed.inHours(dayStart, payinHours);
        if (t < start || t > now - 20_000) continue;
        arrivals.push({ m, t, amount: amountFor(m), fate: paid, real: false, payer: payer() });
      }
    }
  }
  // A few that are certainly waiting right now, whatever the hour: for their payer, or (the lost
  // callback) for someone to find the payment the simulator recorded. And one the T+1 merchant was
  // paid minutes ago, so its pending balance holds money at any hour (after the 00:30 run released
  // yesterday's and before the night's first ordinary payment it would otherwise be empty).
  const explicit: [string, number, PayinFate][] = [
    ['M10001', 2, pending],
    ['M10001', 6, pending],
    ['M10001', 14, pending],
    ['M10001', 11, 'lostOpen'],
    ['M10002', 9, pending],
    ['M10002', 25, paid],
    ['M10003', 4, pending],
  ];
  for (const [code, agoMin, fate] of explicit) {
    const m = ms.find((x) => x.spec.code === code)!;
    const t = now - agoMin * minute - Math.floor(rnd.random() * 50_000);
    arrivals.push({ m, t, amount: amountFor(m), fate, real: true, payer: payer() });
  }
  arrivals.sort((a, b) => a.t - b.t);

  // Outcomes: recent orders may still be waiting; older ones paid, expired, failed, rarely refused.
  for (const a of arrivals) {
    if (a.real) continue;
    const age = now - a.t;
    const x = rnd.random();
    if (age < expiryMs + 5 * minute) {
      a.real = true;
      a.fate = x < 0.6 ? paid : x < 0.66 ? failed : pending;
    } else {
      a.fate = x < 0.81 ? paid : x < 0.935 ? unpaid : x < 0.995 ? failed : creation_failed;
      a.real = a.fate !== creation_failed && (age < 3 * hour || rnd.random() < 0.05);
    }
  }
  // The special cases, all through the real services.
  const ordinary = (a: Arrival, minAge: number, maxAge = Infinity) =>
    (a.fate === paid || a.fate === unpaid || a.fate === failed) && now - a.t >= minAge && now - a.t <= maxAge;
  const choose = (pred: (a: Arrival) => boolean, count: number, fates: PayinFate[]) => {
    const pool = arrivals.filter(pred);
    for (let i = 0; i < count && pool.length; i++) {
      const a = pool.splice(Math.floor(rnd.random() * pool.length), 1)[0]!;
      a.fate = fates[i % fates.length]!;
      a.real = true;
    }
  };
  choose((a) => ordinary(a, 30 * hour), 24, ['lostSupplement']);
  choose((a) => ordinary(a, 40 * hour), 8, ['forceFromFailed', 'forceFromUnpaid']);
  choose((a) => a.m.spec.code === 'M10001' && ordinary(a, hour, 2 * day), 4, ['lostOpen']);
  choose((a) => a.m.spec.code === 'M10003' && ordinary(a, hour, 2 * day), 1, ['lostOpen']);
  return arrivals;
}

/** Puts every pay-in on the timeline; the lost callbacks still open at the end are added to `lost`. */
export function schedulePayins(seed: Seed, arrivals: readonly Arrival[], lost: LostCallback[]): void {
  const requestOf = (a: Arrival): PayinRequest => ({
    merchantOrderNo: merchantOrderNoOf(seed, a.m, a.t),
    amount: a.amount,
    notifyUrl: notifyUrlAt(seed, a.m, a.t),
    ...(a.m.spec.payin.returnUrl ? { returnUrl: a.m.spec.payin.returnUrl } : {}),
    ...(a.payer ? { payer: a.payer } : {}),
  });
  for (const a of arrivals) {
    if (a.real) {
      seed.counts.realPayins++;
      realPayin(seed, a, requestOf(a), lost);
    } else bulkPayin(seed, a, requestOf(a));
  }
}

/** A pay-in through the real services: created, then paid, failed, expired, supplemented or forced. */
function realPayin(seed: Seed, a: Arrival, req: PayinRequest, lost: LostCallback[]): void {
  const { tx, rnd, now, clock, deps, sim, admin, expiryMs, later, real } = seed;
  const st: { order?: PayinOrder; utr?: string | null } = {};
  real(
    a.t,
    async () => {
      st.order = (
        await createPayin(deps, tx, a.m.row, req, { source: 'api', ip: a.m.spec.serverIp, lang: 'en' })
      ).order;
      seed.takenNos.add(st.order.orderNo);
    },
    false,
  );
  // Only a payment the channel reports moves money; a failure or a lost callback does not.
  const settle = (t: number, result: SimulatorPayment['result'], notify: boolean) =>
    real(
      t,
      async () => {
        const out = await settleSimulatorPayin(deps, tx, st.order!, sim, { result, notify });
        st.utr = out.utr;
        if (out.utr) seed.takenNos.add(out.utr);
      },
      result === 'success' && notify,
    );
  const expire = (t: number) =>
    real(
      t,
      async () => {
        if (!(await transition(deps, tx, st.order!.id, 'expire'))) throw new Error('demo: expiry refused');
      },
      false,
    );
  const expiresAt = a.t + expiryMs;
  const afterExpiry = () => later(expiresAt, 500, 5_000);
  const currentOrder = async () => {
    const [o] = await tx.select().from(payinOrders).where(eq(payinOrders.id, st.order!.id));
    return o!;
  };
  switch (a.fate) {
    case payin.state.paid:
      settle(a.t + seed.payDelay(), 'success', true);
      break;
    case payin.state.failed:
      settle(later(a.t, 30_000, 12 * minute), 'fail', true);
      break;
    case payin.state.unpaid:
      expire(afterExpiry());
      break;
    case payin.state.pending:
      break;
    case 'lostOpen': {
      settle(a.t + seed.payDelay(), 'success', false);
      if (expiresAt < now) expire(afterExpiry());
      seed.at(now, async () => {
        if (!st.utr) return;
        const o = await currentOrder();
        lost.push({ merchant: a.m.spec.code, orderNo: o.orderNo, utr: st.utr, status: o.status });
      });
      break;
    }
    case 'lostSupplement': {
      const paidAt = a.t + seed.payDelay();
      settle(paidAt, 'success', false);
      let supplementAt = later(paidAt, 6 * minute, 20 * minute);
      if (rnd.random() < 0.65 || supplementAt >= expiresAt) {
        expire(afterExpiry());
        supplementAt = seed.officeHours(later(expiresAt, 40 * minute, 20 * hour));
      }
      real(supplementAt, async () => {
        const o = await currentOrder();
        const utr = st.utr!;
        // The checks of POST /merchantOrder/supplement, with the same pieces.
        const hit = await findPayment(deps, tx, utr, [sim]);
        if (!hit || hit.orderNo !== o.orderNo || (await orderUsingUtr(tx, utr)))
          throw new Error(`demo: UTR ${utr} does not confirm ${o.orderNo}`);
        const paid = await withUtrGuard(() =>
          transition(
            deps,
            tx,
            o.id,
            'supplement',
            { utr, paidAmount: hit.amount, paidBy: 'supplement', paidAt: clock.now() },
            admin.id,
          ),
        );
        if (!paid) throw new Error('demo: supplement refused');
        seed.opLog(
          clock.now().getTime(),
          admin,
          endpoints.merchantOrder.supplement.id,
          `payin:${o.orderNo}`,
          { utr, paidAmount: null },
        );
      });
      break;
    }
    case 'forceFromFailed':
    case 'forceFromUnpaid': {
      let t: number;
      if (a.fate === 'forceFromFailed') {
        t = later(a.t, 30_000, 10 * minute);
        settle(t, 'fail', true);
      } else {
        t = afterExpiry();
        expire(t);
      }
      const forcedUtr = rnd.random() < 0.5 ? seed.newUtr() : undefined;
      const reason = rnd.pick(forceReasons);
      real(seed.officeHours(later(t, 3 * hour, 40 * hour)), async () => {
        const o = await currentOrder();
        const paid = await withUtrGuard(() =>
          transition(
            deps,
            tx,
            o.id,
            'force',
            {
              utr: forcedUtr ?? o.utr,
              paidAmount: o.amount,
              paidBy: 'force',
              paidAt: clock.now(),
              failureReason: o.failureReason,
            },
            admin.id,
          ),
        );
        if (!paid) throw new Error('demo: forced supplement refused');
        seed.opLog(
          clock.now().getTime(),
          admin,
          endpoints.merchantOrder.forceSupplement.id,
          `payin:${o.orderNo}`,
          { reason, utr: forcedUtr ?? null, paidAmount: formatMinor(o.amount) },
        );
      });
      break;
    }
    default:
      throw new Error(`demo: a ${a.fate} pay-in is written in bulk`);
  }
}

/** An ordinary pay-in written whole at the moment of its outcome, as the real services leave it. */
function bulkPayin(seed: Seed, a: Arrival, req: PayinRequest): void {
  const { deps, sim, writer, later, expiryMs } = seed;
  const m = a.m;
  const createdAt = new Date(a.t);
  const refused = a.fate === payin.state.creation_failed;
  const fee = Math.min(feeOf(a.amount, m.row.collectionRatePpm, m.row.platformFee), a.amount);
  const commission = m.row.agentId === null ? 0 : Math.min(feeOf(a.amount, demoAgent.commissionPpm), fee);
  const orderNo = seed.uniqueNo(() => newOrderNo(createdAt));
  const channelOrderId = refused ? null : seed.simId('SIMP', a.t);
  const order: PayinOrder = {
    id: 0,
    refundedAmount: 0,
    orderNo,
    merchantId: m.row.id,
    merchantOrderNo: req.merchantOrderNo,
    channelId: refused ? null : sim.id,
    channelOrderId,
    currency: m.row.currency,
    amount: a.amount,
    paidAmount: null,
    fee,
    agentCommission: commission,
    status: refused ? payin.state.creation_failed : payin.state.pending,
    pushStatus: 'unpushed',
    utr: null,
    notifyUrl: req.notifyUrl,
    returnUrl: req.returnUrl ?? null,
    payUrl: refused ? null : `${publicUrl(deps)}/sim/pay/${orderNo}`,
    payer: (req.payer as Record<string, unknown> | undefined) ?? null,
    requestHash: requestHash(req),
    requestSnapshot: {
      source: 'api',
      ip: m.spec.serverIp,
      userId: null,
      request: { ...req, amount: formatMinor(req.amount) },
    },
    responseSnapshot: null,
    paidBy: null,
    failureReason: refused ? `${sim.code}: simulator declined` : null,
    expiresAt: new Date(a.t + expiryMs),
    paidAt: null,
    callbackAt: null,
    createdAt,
    updatedAt: createdAt,
    receivingAccountId: null,
    payerUtr: null,
    payerKey: null,
  };
  order.responseSnapshot = gatewayView(order);
  let outcomeAt: number;
  let simRow: Pick<SimulatorBook, 'status' | 'utr' | 'settledAt'>;
  if (a.fate === payin.state.paid) {
    outcomeAt = a.t + seed.payDelay();
    const utr = seed.newUtr();
    order.status = payin.state.paid;
    order.paidAmount = a.amount;
    order.utr = utr;
    order.paidBy = 'channel';
    order.paidAt = new Date(outcomeAt);
    simRow = { status: 'success', utr, settledAt: new Date(outcomeAt) };
  } else if (a.fate === payin.state.failed) {
    outcomeAt = later(a.t, 30_000, 12 * minute);
    order.status = payin.state.failed;
    order.failureReason = 'the payer did not pay (simulator)';
    simRow = { status: 'fail', utr: null, settledAt: new Date(outcomeAt) };
  } else if (a.fate === payin.state.unpaid) {
    outcomeAt = later(a.t + expiryMs, 500, 5_000);
    order.status = payin.state.unpaid;
    simRow = { status: 'pending', utr: null, settledAt: null };
  } else {
    outcomeAt = a.t;
    simRow = { status: 'pending', utr: null, settledAt: null };
  }
  order.updatedAt = new Date(outcomeAt);
  const type =
    order.status === payin.state.paid
      ? 'payin.paid'
      : order.status === payin.state.failed
        ? 'payin.failed'
        : 'payin.unpaid';
  seed.at(outcomeAt, async () => {
    const history = refused ? null : historyOf(seed, new Date(outcomeAt), req.notifyUrl);
    if (history?.status === callback.state.delivered) {
      order.pushStatus = 'pushed';
      order.callbackAt = history.deliveredAt;
    }
    const { id: _id, ...values } = order;
    const row = writer.payin(values);
    if (channelOrderId)
      writer.sim({
        channelOrderId,
        kind: 'payin',
        orderNo,
        amount: a.amount,
        status: simRow.status,
        utr: simRow.utr,
        notified: simRow.status !== 'pending',
        createdAt,
        settledAt: simRow.settledAt,
      });
    if (order.status === payin.state.paid) {
      await writer.payment(order, m.row, new Date(outcomeAt), row);
    }
    if (history)
      writer.callback(
        {
          messageId: `msg_${randomToken(18)}`,
          merchantId: m.row.id,
          orderType: 'payin',
          type,
          round: 1,
          url: req.notifyUrl,
          payload: { type, data: gatewayView(order) },
          status: history.status,
          attempts: history.attempts.length,
          nextAttemptAt: history.nextAttemptAt,
          deliveredAt: history.deliveredAt,
          createdAt: new Date(outcomeAt),
        },
        row,
        history.attempts,
      );
  });
}
