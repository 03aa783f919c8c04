/**
 * Pay-in and payout lists on the one engine answer alike: the same lookback edge, the same search by a
 * prefix of any number in list, totals and export, and the same 404 for a merchant naming another
 * merchant or another merchant's order. Each check runs on both kinds, through the endpoints.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { inTransaction } from '../../db/index.ts';
import { payoutOrders } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { createOrder, simPay } from '../payin/testkit.ts';
import { completePayout } from '../payout/service.ts';
import {
  drainQueue,
  type Merchant,
  orderByNo,
  payoutBody,
  seedPayoutBalance,
  simulatorMerchant,
} from '../payout/testkit.ts';
import { lookbackMs } from './list.ts';

const day = 86_400_000;

/** One order of a kind with all four numbers set (the UTR by its payment), as the list answers it. */
interface Numbers {
  id: number;
  orderNo: string;
  merchantOrderNo: string;
  channelOrderId: string;
  utr: string;
}

describe.each(engines)('the pay-in and payout lists alike on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  let a: Merchant;
  let b: Merchant;
  let ownerA: string;
  const kinds = {
    payin: { ep: endpoints.merchantOrder, orders: {} as Record<'a' | 'b', Numbers> },
    payout: { ep: endpoints.merchantPayout, orders: {} as Record<'a' | 'b', Numbers> },
  };
  const kindNames = Object.keys(kinds) as (keyof typeof kinds)[];

  async function payin(m: Merchant, tag: string): Promise<Numbers> {
    const o = await createOrder(s, m, { merchantOrderNo: `ALIKE-${tag}-${Date.now()}` });
    const paid = await simPay(s, admin, o.orderNo, 'success');
    return { ...o, channelOrderId: o.channelOrderId!, utr: paid.data.utr };
  }
  async function payout(m: Merchant, tag: string): Promise<Numbers> {
    const made = await s.gateway(
      m,
      'POST',
      '/gateway/v1/payout',
      payoutBody({ merchantOrderNo: `ALIKE-${tag}-${Date.now()}` }),
    );
    await drainQueue(s);
    const o = await orderByNo(s, made.json.data.orderNo);
    await inTransaction(s.db, (tx) =>
      completePayout(s.deps, tx, {
        orderId: o.id,
        result: 'success',
        utr: `UTRALIKE${tag}${o.id}`,
        by: 'manual',
      }),
    );
    const done = await orderByNo(s, o.orderNo);
    return { ...done, channelOrderId: done.channelOrderId!, utr: done.utr! };
  }

  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
    a = await simulatorMerchant(s, { payoutIpWhitelist: ['203.0.113.0/24'] });
    b = await simulatorMerchant(s, { payoutIpWhitelist: ['203.0.113.0/24'] });
    await seedPayoutBalance(s, a.id, 1_000_000);
    await seedPayoutBalance(s, b.id, 1_000_000);
    ownerA = await s.login(a.ownerUsername, a.ownerPassword);
    kinds.payin.orders = { a: await payin(a, 'A'), b: await payin(b, 'B') };
    kinds.payout.orders = { a: await payout(a, 'A'), b: await payout(b, 'B') };
  });
  afterAll(() => s.close());

  const period = () => ({
    from: new Date(s.clock.now().getTime() - day).toISOString(),
    to: new Date(s.clock.now().getTime() + day).toISOString(),
  });
  /** An export's answer: the file's lines, or the envelope of a refusal. */
  async function download(path: string, token: string, query: Record<string, unknown>) {
    const qs = new URLSearchParams({ format: 'csv' });
    for (const [k, v] of Object.entries(query)) qs.append(k, String(v));
    const res = await s.request('GET', `/api${path}?${qs}`, { token });
    return res.headers.get('content-type')?.includes('json')
      ? { errno: res.json.errno, lines: [] }
      : { errno: 0, lines: res.text.trim().split('\r\n').slice(1) };
  }

  it.each(kindNames)('answers a merchant naming another merchant, or its order, 404 (%s)', async (name) => {
    const { ep, orders } = kinds[name];
    const theirs = orders.b;
    const named = { ...period(), merchantId: b.id };
    expect((await s.call(ep.list, named, ownerA)).errno).toBe(errno.notFound);
    expect((await s.call(ep.totals, named, ownerA)).errno).toBe(errno.notFound);
    expect((await download(ep.export.path, ownerA, named)).errno).toBe(errno.notFound);
    expect((await s.call(ep.info, { id: theirs.id }, ownerA)).errno).toBe(errno.notFound);
    expect((await s.call(ep.info, { orderNo: theirs.orderNo }, ownerA)).errno).toBe(errno.notFound);
    // Its own merchant named, or none: its own orders.
    const own = await s.call(ep.list, { ...period(), merchantId: a.id }, ownerA);
    expect(own.errno).toBe(0);
    expect(own.data.list.map((r: { id: number }) => r.id)).toEqual([orders.a.id]);
    // Another merchant's numbers are searched, not refused: nothing is found.
    for (const q of [theirs.orderNo, theirs.utr]) {
      expect((await s.call(ep.list, { ...period(), q }, ownerA)).data.list).toEqual([]);
      expect((await s.call(ep.list, { ...period(), nos: q }, ownerA)).data.list).toEqual([]);
    }
  });

  it.each(kindNames)('looks back the same 61 days (60 and a day of tolerance) (%s)', async (name) => {
    const { ep } = kinds[name];
    expect(lookbackMs).toBe(61 * day);
    const now = s.clock.now().getTime();
    const to = new Date(now).toISOString();
    const edge = { from: new Date(now - 61 * day).toISOString(), to };
    const past = { from: new Date(now - 61 * day - 1).toISOString(), to };
    for (const call of [ep.list, ep.totals]) {
      expect((await s.call(call, edge, admin)).errno, call.id).toBe(0);
      const refused = await s.call(call, past, admin);
      expect(refused.errno, call.id).toBe(errno.invalid);
      expect(refused.data.fields[0], call.id).toMatchObject({ path: 'from' });
    }
    // The export is limited to a week within the same 61 days.
    const week = (from: number) => ({
      from: new Date(from).toISOString(),
      to: new Date(from + 7 * day).toISOString(),
    });
    expect((await download(ep.export.path, admin, week(now - 61 * day))).errno).toBe(0);
    expect((await download(ep.export.path, admin, week(now - 61 * day - 1))).errno).toBe(errno.invalid);
  });

  it.each(kindNames)(
    'finds an order by a prefix of any of its numbers in list, totals and export (%s)',
    async (name) => {
      const { ep, orders } = kinds[name];
      const o = orders.a;
      // Prefixes as a person types them: a UTR in lower case too (UTRs are stored upper case).
      const prefixes = [
        o.orderNo.slice(0, -2),
        o.merchantOrderNo.slice(0, -3),
        o.channelOrderId.slice(0, -2),
        o.utr.slice(0, -2),
        o.utr.slice(0, -2).toLowerCase(),
      ];
      for (const q of prefixes) {
        const filters = { ...period(), merchantId: a.id, q };
        const list = await s.call(ep.list, filters, admin);
        expect(list.errno, q).toBe(0);
        expect(
          list.data.list.map((r: { id: number }) => r.id),
          q,
        ).toContain(o.id);
        const totals = await s.call(ep.totals, filters, admin);
        expect(totals.data.count, q).toBeGreaterThanOrEqual(1);
        const file = await download(ep.export.path, admin, filters);
        expect(
          file.lines.some((line) => line.includes(o.orderNo)),
          q,
        ).toBe(true);
      }
      // A prefix is not an infix, and LIKE's wildcards are plain characters.
      for (const q of [
        o.orderNo.slice(1),
        `${o.merchantOrderNo.slice(0, 5)}%`,
        o.merchantOrderNo.replace('-', '_'),
      ]) {
        const filters = { ...period(), merchantId: a.id, q };
        expect((await s.call(ep.list, filters, admin)).data.list, q).toEqual([]);
        expect((await download(ep.export.path, admin, filters)).lines, q).toEqual([]);
      }
    },
  );

  it("shows a merchant no operators' note on a payout under review, in list, detail and export alike", async () => {
    const c = await simulatorMerchant(s, { payoutIpWhitelist: ['203.0.113.0/24'] });
    await seedPayoutBalance(s, c.id, 1_000_000);
    const made = await s.gateway(c, 'POST', '/gateway/v1/payout', payoutBody());
    const note = 'channel timeout, ask the bank';
    // The note an unclear hand-over leaves for the operators (set here as the submission would).
    await s.db
      .update(payoutOrders)
      .set({ status: 'needs_review', failureReason: note })
      .where(eq(payoutOrders.orderNo, made.json.data.orderNo));
    const owner = await s.login(c.ownerUsername, c.ownerPassword);
    const seen = async (token: string) => {
      const filters = { ...period(), merchantId: c.id };
      const list = await s.call(endpoints.merchantPayout.list, filters, token);
      const info = await s.call(endpoints.merchantPayout.info, { orderNo: made.json.data.orderNo }, token);
      const file = await download(endpoints.merchantPayout.export.path, token, filters);
      return [list.data.list[0].failureReason, info.data.failureReason, file.lines[0]!.includes(note)];
    };
    expect(await seen(owner)).toEqual([null, null, false]);
    expect(await seen(admin)).toEqual([note, note, true]);
  });
});
