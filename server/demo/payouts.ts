/**
 * The demo's payouts: in office hours through the API and the console, the demo merchant's weekly bulk
 * file of vendor payouts on Fridays, and a few that were retried, marked by hand, refused, or are queued
 * and processing right now. Each is shrunk to what the payout wallet covers when it is made. The special
 * ones and the last hours go through the real services; the bulk of ordinary ones is written by the bulk
 * writer: frozen at creation, spent or released at completion.
 */
import { endpoints } from '../../contract/index.ts';
import { callback, type PayoutStatus, payout } from '../../contract/machines.ts';
import { feeOf, formatMinor } from '../../contract/money.ts';
import { merchantAccount } from '../ledger/index.ts';
import { randomToken } from '../lib/crypto.ts';
import {
  type Completion,
  completePayout,
  createPayout,
  failCreation,
  gatewayViewOf,
  holdEntry,
  newPayoutOrderNo,
  type PayoutOrder,
  type PayoutRequest,
  payoutRequestHash,
  retryPayout,
  submitPayout,
} from '../modules/payout/service.ts';
import { settleSimulatorPayout } from '../modules/payout/simulator.ts';
import { day, hour, ist, manualFailReasons, minute, payoutHours, rupees, weekdayFactor } from './business.ts';
import { type CallbackOutcome, historyOf } from './callbacks.ts';
import { type DemoMerchant, notifyUrlAt, ownerOf, payoutOrderNoOf } from './merchants.ts';
import type { Seed } from './seed.ts';
import type { Pending } from './writer.ts';

/** What becomes of a payout: the state the seed leaves it in, or a story of hands and retries. */
type PayoutFate =
  | PayoutStatus
  | 'manualSuccess'
  | 'manualFailed'
  | 'retrySuccess'
  | 'retryFailedAgain'
  | 'retryQueued';

export interface PayoutPlan {
  m: DemoMerchant;
  t: number;
  amount: number;
  fate: PayoutFate;
  /** Through the real services (else written in bulk). */
  real: boolean;
  source: 'api' | 'console' | 'bulk';
  file?: { name: string; row: number };
}

/** Every payout of the 30 days, in time order, with its fate drawn. */
export function planPayouts(seed: Seed, ms: readonly DemoMerchant[]): PayoutPlan[] {
  const { rnd, now, start, todayIst } = seed;
  const { success, failed, processing, queued, creation_failed } = payout.state;
  const amountFor = (m: DemoMerchant) => {
    const { median, sigma, min, max } = m.spec.payout;
    const x = median * Math.exp(sigma * rnd.normal());
    const a = x < rupees(10_000) ? Math.round(x / 1_000) * 1_000 : Math.round(x / 10_000) * 10_000;
    return Math.min(Math.max(a, min, m.row.minAmount), max, m.row.maxAmount);
  };
  const plans: PayoutPlan[] = [];
  for (const m of ms) {
    for (let k = 30; k >= 0; k--) {
      const dayStart = todayIst - k * day;
      const weekday = new Date(dayStart + ist).getUTCDay();
      const n = Math.round(m.spec.payoutsPerDay * weekdayFactor[weekday]! * rnd.between(0.6, 1.4));
      for (let i = 0; i < n; i++) {
        const t = seed.inHours(dayStart, payoutHours);
        if (t < start + 6 * hour || t > now - 3 * minute) continue;
        plans.push({
          m,
          t,
          amount: amountFor(m),
          fate: success,
          real: false,
          source: rnd.random() < 0.65 ? 'api' : 'console',
        });
      }
      // Fridays at six: the demo merchant uploads its weekly vendor payouts.
      if (m.spec.code === 'M10001' && weekday === 5) {
        const t = dayStart + 18 * hour + Math.floor(rnd.random() * 20 * minute);
        if (t < start + 6 * hour || t > now - hour) continue;
        const name = `vendors-${seed.istDay(t)}.xlsx`;
        for (let row = 2; row < 10; row++) {
          plans.push({
            m,
            t: t + row,
            amount: amountFor(m),
            fate: success,
            real: false,
            source: 'bulk',
            file: { name, row },
          });
        }
      }
    }
  }
  const explicit: [string, number, PayoutFate][] = [
    ['M10001', 25, processing],
    ['M10001', 48, processing],
    ['M10003', 12, processing],
    ['M10002', 1.5, queued],
    ['M10001', 0.7, queued],
    ['M10001', 190, 'retryQueued'],
  ];
  for (const [code, agoMin, fate] of explicit) {
    const m = ms.find((x) => x.spec.code === code)!;
    plans.push({
      m,
      t: now - agoMin * minute - Math.floor(rnd.random() * 30_000),
      amount: amountFor(m),
      fate,
      real: true,
      source: 'console',
    });
  }
  plans.sort((a, b) => a.t - b.t);
  for (const p of plans) {
    if (p.fate !== success) continue;
    const age = now - p.t;
    p.fate = rnd.random() < 0.91 ? success : failed;
    p.real = age < 6 * hour || rnd.random() < 0.12;
    if (age < 40 * minute && rnd.random() < 0.5) p.fate = processing;
  }
  const choose = (count: number, fates: PayoutFate[], minAge: number) => {
    const pool = plans.filter(
      (p) => (p.fate === success || p.fate === failed) && p.source !== 'bulk' && now - p.t >= minAge,
    );
    for (let i = 0; i < count && pool.length; i++) {
      const p = pool.splice(Math.floor(rnd.random() * pool.length), 1)[0]!;
      p.fate = fates[i % fates.length]!;
      p.real = true;
    }
  };
  choose(5, ['retrySuccess'], day);
  choose(2, ['retryFailedAgain'], day);
  choose(3, ['manualSuccess'], day);
  choose(3, ['manualFailed'], day);
  choose(3, [creation_failed], 2 * hour);
  return plans;
}

/** Puts every payout on the timeline, and each bulk file's upload before its rows. */
export function schedulePayouts(seed: Seed, plans: readonly PayoutPlan[]): void {
  const bulkFiles = new Set<string>();
  for (const p of plans) {
    if (p.file && !bulkFiles.has(p.file.name)) {
      bulkFiles.add(p.file.name);
      const file = p.file.name;
      seed.at(p.t - 1, async () => {
        seed.opLog(
          seed.clock.now().getTime(),
          ownerOf(p.m),
          endpoints.merchantPayout.bulkCreate.id,
          `merchant:${p.m.row.id}`,
          { filename: file, dryRun: false },
        );
      });
    }
    if (p.real) {
      seed.counts.realPayouts++;
      realPayout(seed, p);
    } else bulkPayout(seed, p);
  }
}

/** The request as the merchant made it: the signed API body, or the console's or the file's fields. */
function requestOf(seed: Seed, p: PayoutPlan): PayoutRequest {
  const b = seed.rnd.pick(p.m.beneficiaries);
  if (p.source !== 'api') return { amount: p.amount, ...b };
  return {
    merchantOrderNo: payoutOrderNoOf(seed, p.m, p.t),
    amount: p.amount,
    ...b,
    notifyUrl: notifyUrlAt(seed, p.m, p.t),
  };
}

/** What each entry point stores as the request: the signed body, the console's input, the file's row. */
const snapshotOf = (p: PayoutPlan, req: PayoutRequest): unknown =>
  p.source === 'api'
    ? { ...req, amount: formatMinor(req.amount) }
    : p.source === 'bulk'
      ? { file: p.file!.name, row: p.file!.row }
      : req;

/** The amount shrunk to what the payout balance covers now (null: too little to pay anything). */
async function affordable(seed: Seed, m: DemoMerchant, amount: number): Promise<number | null> {
  const available = await seed.writer.balance(merchantAccount(m.row.id, 'payout_available', m.row.currency));
  const covered = (a: number) => a + feeOf(a, m.row.payoutRatePpm, m.row.payoutFee) <= available;
  if (covered(amount)) return amount;
  const a = Math.floor((available * 0.6) / rupees(100)) * rupees(100);
  return a >= Math.max(m.spec.payout.min, m.row.minAmount) && covered(a) ? a : null;
}

/** A payout through the real services: created, handed over, then paid, failed, marked, retried. */
function realPayout(seed: Seed, p: PayoutPlan): void {
  const { tx, rnd, now, clock, deps, admin, later, real } = seed;
  const st: { order?: PayoutOrder; stop?: boolean } = {};
  const planned = requestOf(seed, p);
  const go = (t: number, run: (o: PayoutOrder) => Promise<PayoutOrder | undefined>) =>
    real(t, async () => {
      if (!st.order || st.stop) return;
      st.order = (await run(st.order)) ?? st.order;
    });
  real(p.t, async () => {
    const amount = await affordable(seed, p.m, planned.amount);
    if (amount === null) return;
    const req = { ...planned, amount };
    const made = await createPayout(deps, tx, p.m.row, req, {
      source: p.source,
      lang: 'en',
      userId: p.source === 'api' ? null : p.m.ownerId,
      snapshot: snapshotOf(p, req),
    });
    st.order = made.order;
    if (p.source === 'console')
      seed.opLog(
        clock.now().getTime(),
        ownerOf(p.m),
        endpoints.merchantPayout.create.id,
        `payout:${made.order.orderNo}`,
        { amount: formatMinor(amount), merchantOrderNo: null, replayed: false },
      );
  });
  const submit = (t: number) => go(t, (o) => submitPayout(seed.depsInSeed, o.id));
  const channel = (t: number, result: Completion['result']) =>
    go(t, (o) => settleSimulatorPayout(deps, tx, o, result));
  const retry = (t: number) =>
    go(t, async (o) => {
      const need = o.amount + o.fee;
      if ((await seed.writer.balance(merchantAccount(o.merchantId, 'payout_available', o.currency))) < need) {
        st.stop = true;
        return undefined;
      }
      const r = await retryPayout(deps, tx, o.id, p.m.ownerId);
      seed.opLog(
        clock.now().getTime(),
        ownerOf(p.m),
        endpoints.merchantPayout.retry.id,
        `payout:${o.orderNo}`,
        {
          changes: { status: { before: payout.state.failed, after: payout.state.queued } },
        },
      );
      return r;
    });
  const manual = (t: number, result: Completion['result']) =>
    go(t, async (o) => {
      const reason = result === 'success' ? 'Confirmed on the bank statement' : rnd.pick(manualFailReasons);
      const utr = result === 'success' ? seed.newUtr() : null;
      const r = await completePayout(deps, tx, {
        orderId: o.id,
        result,
        utr,
        reason,
        by: 'manual',
        userId: admin.id,
      });
      seed.opLog(
        clock.now().getTime(),
        admin,
        result === 'success'
          ? endpoints.merchantPayout.markSuccess.id
          : endpoints.merchantPayout.markFailed.id,
        `payout:${o.orderNo}`,
        {
          reason,
          ...(utr ? { utr } : {}),
          changes: {
            status: {
              before: payout.state.processing,
              after: result === 'success' ? payout.state.success : payout.state.failed,
            },
          },
        },
      );
      return r;
    });
  const submitAt = later(p.t, 800, 2_500);
  const doneAt = () =>
    submitAt + Math.round(Math.min(45 * minute, Math.max(20_000, 3 * minute * Math.exp(rnd.normal()))));
  switch (p.fate) {
    case payout.state.queued:
      break;
    case payout.state.processing:
      submit(submitAt);
      break;
    case payout.state.success:
    case payout.state.failed:
      submit(submitAt);
      channel(doneAt(), p.fate === payout.state.success ? 'success' : 'fail');
      break;
    case payout.state.creation_failed:
      go(submitAt, (o) => failCreation(deps, tx, o.id, 'Every channel declined the payout'));
      break;
    case 'manualSuccess':
    case 'manualFailed':
      submit(submitAt);
      manual(
        seed.officeHours(later(submitAt, 2 * hour, 6 * hour)),
        p.fate === 'manualSuccess' ? 'success' : 'fail',
      );
      break;
    case 'retrySuccess':
    case 'retryFailedAgain':
    case 'retryQueued': {
      submit(submitAt);
      const failedAt = doneAt();
      channel(failedAt, 'fail');
      const retryAt =
        p.fate === 'retryQueued' ? now - 40_000 : seed.officeHours(later(failedAt, 30 * minute, 5 * hour));
      retry(retryAt);
      if (p.fate === 'retryQueued') break;
      const resubmit = later(retryAt, 800, 2_500);
      submit(resubmit);
      channel(later(resubmit, 40_000, 15 * minute), p.fate === 'retrySuccess' ? 'success' : 'fail');
      break;
    }
    default:
      throw new Error(`demo: no payout story ends ${p.fate}`);
  }
}

/** An ordinary completed payout: frozen at creation, spent or released at completion. */
function bulkPayout(seed: Seed, p: PayoutPlan): void {
  const { sim, writer, later } = seed;
  const m = p.m;
  const planned = requestOf(seed, p);
  const state: { row?: Pending<unknown>; order?: PayoutOrder; history?: CallbackOutcome } = {};
  const submitAt = later(p.t, 800, 2_500);
  const completedAt =
    submitAt + Math.round(Math.min(45 * minute, Math.max(20_000, 3 * minute * Math.exp(seed.rnd.normal()))));
  const success = p.fate === payout.state.success;
  seed.at(p.t, async () => {
    const amount = await affordable(seed, m, planned.amount);
    if (amount === null) return;
    const req = { ...planned, amount };
    const createdAt = new Date(p.t);
    const fee = feeOf(amount, m.row.payoutRatePpm, m.row.payoutFee);
    const orderNo = seed.uniqueNo(() => newPayoutOrderNo(createdAt));
    const merchantOrderNo = req.merchantOrderNo || orderNo;
    const userId = p.source === 'api' ? null : m.ownerId;
    const created: PayoutOrder = {
      id: 0,
      refundId: null,
      orderNo,
      merchantId: m.row.id,
      merchantOrderNo,
      channelId: null,
      channelOrderId: null,
      currency: m.row.currency,
      amount,
      fee,
      status: payout.initial,
      pushStatus: 'unpushed',
      accountName: req.accountName,
      accountNumber: req.accountNumber,
      ifsc: req.ifsc,
      utr: null,
      notifyUrl: req.notifyUrl ?? m.row.callbackUrl,
      source: p.source,
      requestHash: payoutRequestHash(merchantOrderNo, req),
      requestSnapshot: snapshotOf(p, req),
      responseSnapshot: null,
      failureReason: null,
      holds: 1,
      holdOpen: true,
      attempts: 0,
      nextAttemptAt: createdAt,
      completedAt: null,
      callbackAt: null,
      createdBy: userId,
      createdAt,
      updatedAt: createdAt,
    };
    created.responseSnapshot = gatewayViewOf(created);
    const channelOrderId = seed.simId('SIMO', submitAt);
    const utr = success ? seed.newUtr() : null;
    const done: PayoutOrder = {
      ...created,
      status: success ? payout.state.success : payout.state.failed,
      channelId: sim.id,
      channelOrderId,
      holdOpen: false,
      utr,
      failureReason: success ? null : 'Declined by the simulator bank',
      attempts: 1,
      nextAttemptAt: null,
      completedAt: new Date(completedAt),
      updatedAt: new Date(completedAt),
    };
    const history = historyOf(seed, new Date(completedAt), done.notifyUrl);
    if (history.status === callback.state.delivered) {
      done.pushStatus = 'pushed';
      done.callbackAt = history.deliveredAt;
    }
    const { id: _id, ...values } = done;
    const row = writer.payout(values);
    Object.assign(state, { order: done, row, history });
    writer.sim({
      channelOrderId,
      kind: 'payout',
      orderNo,
      amount,
      status: success ? 'success' : 'fail',
      utr,
      account: `${req.accountName} ${req.accountNumber} ${req.ifsc}`,
      notified: true,
      createdAt,
      settledAt: new Date(completedAt),
    });
    await writer.post({ ...holdEntry(done, 'freeze', orderNo, userId, createdAt), ref: row });
    if (p.source === 'console')
      seed.opLog(p.t, ownerOf(m), endpoints.merchantPayout.create.id, `payout:${orderNo}`, {
        amount: formatMinor(amount),
        merchantOrderNo: null,
        replayed: false,
      });
  });
  seed.at(completedAt, async () => {
    const { order, row, history } = state;
    if (!order || !row || !history) return;
    const memo = success ? 'channel' : `channel: ${order.failureReason}`;
    await writer.post({
      ...holdEntry(order, success ? 'spend' : 'release', memo, null, new Date(completedAt)),
      ref: row,
    });
    const type = success ? 'payout.success' : 'payout.failed';
    writer.callback(
      {
        messageId: `msg_${randomToken(18)}`,
        merchantId: m.row.id,
        orderType: 'payout',
        type,
        round: 1,
        url: order.notifyUrl,
        payload: { type, data: gatewayViewOf(order) },
        status: history.status,
        attempts: history.attempts.length,
        nextAttemptAt: history.nextAttemptAt,
        deliveredAt: history.deliveredAt,
        createdAt: new Date(completedAt),
      },
      row,
      history.attempts,
    );
  });
}
