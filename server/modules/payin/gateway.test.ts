/**
 * The pay-in gateway (GATEWAY.md): signing refusals, idempotency on the merchant order number, amount
 * limits, routing by weight and limits with fallback, queries and balances, and tenancy.
 */
import { count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { ChannelRefused } from '../../channels/adapter.ts';
import { adapters } from '../../channels/index.ts';
import { gatewayNonces, journalEntries, merchants, payinOrders, webhookEvents } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { codeAt } from '../auth/totp.ts';
import {
  createOrder,
  expectBalanced,
  type Merchant,
  makeChannel,
  merchantOn,
  mon,
  payinBody,
  simPay,
} from './testkit.ts';

describe.each(engines)('pay-in gateway on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  let m: Merchant;
  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
    m = await merchantOn(s, undefined, { minAmount: 1000, maxAmount: 100_000, collectionRatePpm: 20_000 });
  });
  afterEach(() => expectBalanced(s));
  afterAll(() => s.close());

  /** Everything a refused request must leave alone. */
  const footprint = async () => {
    const n = async (table: typeof payinOrders | typeof webhookEvents | typeof journalEntries) =>
      (await s.db.select({ n: count() }).from(table))[0]!.n;
    const nonces = (await s.db.select({ n: count() }).from(gatewayNonces))[0]!.n;
    return {
      orders: await n(payinOrders),
      events: await n(webhookEvents),
      entries: await n(journalEntries),
      nonces,
    };
  };

  describe('signing', () => {
    const now = () => Math.floor(s.clock.now().getTime() / 1000);
    const cases: Array<[string, () => Parameters<TestServer['gateway']>]> = [
      ['a wrong signature', () => [m, 'POST', '/gateway/v1/payin', payinBody(), { secret: 'sk_wrong' }]],
      [
        'a timestamp 301 s in the past',
        () => [m, 'POST', '/gateway/v1/payin', payinBody(), { timestamp: String(now() - 301) }],
      ],
      [
        'a timestamp 301 s in the future',
        () => [m, 'POST', '/gateway/v1/payin', payinBody(), { timestamp: String(now() + 301) }],
      ],
      [
        'an unknown merchant',
        () => [{ code: 'NOPE0000', apiSecret: m.apiSecret }, 'POST', '/gateway/v1/payin', payinBody()],
      ],
      ['a GET with a wrong signature', () => [m, 'GET', '/gateway/v1/balance', undefined, { secret: 'x' }]],
      // GATEWAY.md: lowercase hex. The right signature in upper or mixed case is not it.
      [
        'the right signature in upper case',
        () => [m, 'POST', '/gateway/v1/payin', payinBody(), { signature: (hex) => hex.toUpperCase() }],
      ],
      [
        'the right signature in mixed case',
        () => [
          m,
          'POST',
          '/gateway/v1/payin',
          payinBody(),
          { signature: (hex) => hex.replace(/[a-f]/, (c) => c.toUpperCase()) },
        ],
      ],
      [
        'a GET with the right signature in upper case',
        () => [m, 'GET', '/gateway/v1/balance', undefined, { signature: (hex) => hex.toUpperCase() }],
      ],
      [
        'the right signature prefixed sha256=',
        () => [m, 'POST', '/gateway/v1/payin', payinBody(), { signature: (hex) => `sha256=${hex}` }],
      ],
    ];
    it.each(cases)('refuses %s with 401, writing nothing', async (_name, args) => {
      const before = await footprint();
      const res = await s.gateway(...args());
      expect(res.status).toBe(401);
      expect(res.json.errno).toBe(errno.unauthenticated);
      expect(await footprint()).toEqual(before);
    });

    it('accepts a timestamp 300 s off either way', async () => {
      // Whole seconds: the window is compared with the clock's fractional seconds.
      s.clock.set(new Date(now() * 1000));
      for (const ts of [now() - 300, now() + 300]) {
        const res = await s.gateway(m, 'GET', '/gateway/v1/balance', undefined, { timestamp: String(ts) });
        expect(res.status).toBe(200);
      }
    });

    it('refuses a replayed nonce with 401, writing no second order', async () => {
      const body = payinBody();
      const first = await s.gateway(m, 'POST', '/gateway/v1/payin', body);
      expect(first.status).toBe(201);
      const before = await footprint();
      const replay = await s.gateway(m, 'POST', '/gateway/v1/payin', body, { nonce: first.nonce });
      expect(replay.status).toBe(401);
      expect(await footprint()).toEqual(before);
    });

    it('spends the nonce of a refused call too: its replay answers 401', async () => {
      // Refused inside the creation's transaction (amount limits), before it (validation), and a success.
      const bodies = [payinBody({ amount: '99999.00' }), { ...payinBody(), amount: 'abc' }, payinBody()];
      for (const [i, body] of bodies.entries()) {
        const first = await s.gateway(m, 'POST', '/gateway/v1/payin', body);
        expect(first.status).toBe([422, 422, 201][i]);
        const replay = await s.gateway(m, 'POST', '/gateway/v1/payin', body, { nonce: first.nonce });
        expect(replay.status).toBe(401);
        expect(replay.json.errno).toBe(errno.unauthenticated);
      }
      const [spent] = await s.db
        .select({ n: count() })
        .from(gatewayNonces)
        .where(eq(gatewayNonces.merchantId, m.id));
      expect(spent!.n).toBeGreaterThanOrEqual(3);
    });

    it('sees a console change of the merchant on the very next call, though it keeps merchants', async () => {
      const k = await merchantOn(s);
      expect((await s.gateway(k, 'GET', '/gateway/v1/balance')).status).toBe(200);
      const adminKey = await s.bindGoogle(admin);
      // The reset takes the admin's Google code, of a step the bind did not use.
      s.clock.advance(30_000);
      const code = codeAt(adminKey, s.clock.now());
      const reset = await s.call(endpoints.merchant.resetSecret, { id: k.id, which: 'api', code }, admin);
      expect(reset.errno, reset.errmsg).toBe(0);
      expect((await s.gateway(k, 'GET', '/gateway/v1/balance')).status).toBe(401);
      const fresh = { code: k.code, apiSecret: reset.data.apiSecret as string };
      expect((await s.gateway(fresh, 'GET', '/gateway/v1/balance')).status).toBe(200);
      expect((await s.call(endpoints.merchant.freeze, { id: k.id, frozen: true }, admin)).errno).toBe(0);
      expect((await s.gateway(fresh, 'POST', '/gateway/v1/payin', payinBody())).status).toBe(403);
      expect((await s.call(endpoints.merchant.freeze, { id: k.id, frozen: false }, admin)).errno).toBe(0);
      expect((await s.gateway(fresh, 'POST', '/gateway/v1/payin', payinBody())).status).toBe(201);
    });

    it('refuses a frozen merchant with 403, creating nothing', async () => {
      const frozen = await merchantOn(s);
      await s.db.update(merchants).set({ status: 'frozen' }).where(eq(merchants.id, frozen.id));
      const before = await footprint();
      const res = await s.gateway(frozen, 'POST', '/gateway/v1/payin', payinBody());
      expect(res.status).toBe(403);
      expect(res.json.errno).toBe(errno.forbidden);
      const after = await footprint();
      // The signed request's nonce is spent (a replay stays refused); nothing else is written.
      expect({ ...after, nonces: before.nonces }).toEqual(before);
    });
  });

  describe('idempotency on the merchant order number', () => {
    it('answers a repeated create with the original answer, 200 and Idempotent-Replayed', async () => {
      const body = payinBody({ payer: { name: 'Asha', phone: '+919800000000' } });
      const first = await s.gateway(m, 'POST', '/gateway/v1/payin', body);
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(first.json.data).toMatchObject({
        merchantOrderNo: body.merchantOrderNo,
        status: 'pending',
        amount: '100.00',
        fee: '2.00',
        paidAmount: null,
      });
      expect(first.json.data.payUrl).toMatch(/^https?:\/\/.+\/sim\/pay\/PI\d{20}$/);
      const before = await footprint();
      // Same content with the keys in another order is the same request.
      const reordered = { payer: { phone: '+919800000000', name: 'Asha' }, ...body };
      for (const again of [body, reordered]) {
        const replay = await s.gateway(m, 'POST', '/gateway/v1/payin', again);
        expect(replay.status).toBe(200);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(JSON.stringify(replay.json)).toBe(JSON.stringify(first.json));
      }
      const after = await footprint();
      expect({ ...after, nonces: before.nonces }).toEqual(before);
    });

    it('replays the original answer even after the order moved on', async () => {
      const body = payinBody();
      const first = await s.gateway(m, 'POST', '/gateway/v1/payin', body);
      expect((await simPay(s, admin, first.json.data.orderNo, 'success')).errno).toBe(0);
      const replay = await s.gateway(m, 'POST', '/gateway/v1/payin', body);
      expect(replay.status).toBe(200);
      expect(replay.json.data).toEqual(first.json.data);
      const now = await s.gateway(m, 'GET', `/gateway/v1/payin/${first.json.data.orderNo}`);
      expect(now.json.data.status).toBe('paid');
    });

    it.each([
      ['another amount', { amount: '100.01' }],
      ['another notify URL', { notifyUrl: 'http://127.0.0.1:9/other' }],
      ['a return URL added', { returnUrl: 'https://shop.example/back' }],
    ])('answers 409 to the same number with %s, writing nothing', async (_name, change) => {
      const body = payinBody();
      const first = await s.gateway(m, 'POST', '/gateway/v1/payin', body);
      expect(first.status).toBe(201);
      const before = await footprint();
      const [orderBefore] = await s.db
        .select()
        .from(payinOrders)
        .where(eq(payinOrders.orderNo, first.json.data.orderNo));
      const res = await s.gateway(m, 'POST', '/gateway/v1/payin', { ...body, ...change });
      expect(res.status).toBe(409);
      expect(res.json.errno).toBe(errno.conflict);
      const after = await footprint();
      expect({ ...after, nonces: before.nonces }).toEqual(before);
      const [orderAfter] = await s.db
        .select()
        .from(payinOrders)
        .where(eq(payinOrders.orderNo, first.json.data.orderNo));
      expect(orderAfter).toEqual(orderBefore);
    });

    // Issue 29 (DECISIONS.md): the body is judged first. A body that fails validation is 422 whatever its
    // number (there is no content to compare); a valid body under a taken number is a replay or a 409,
    // before the merchant's limits or the channels are asked.
    it.each([
      ['a malformed amount', { amount: '1e3' }, 'amount'],
      ['a notify URL that is no URL', { notifyUrl: 'not a url' }, 'notifyUrl'],
      ['a field the gateway does not know', { colour: 'red' }, undefined],
    ])(
      'answers 422 to the same number with %s, writing nothing: validation comes first',
      async (_name, change, path) => {
        const body = payinBody();
        const first = await s.gateway(m, 'POST', '/gateway/v1/payin', body);
        expect(first.status).toBe(201);
        const [orderBefore] = await s.db
          .select()
          .from(payinOrders)
          .where(eq(payinOrders.orderNo, first.json.data.orderNo));
        const before = await footprint();
        const res = await s.gateway(m, 'POST', '/gateway/v1/payin', { ...body, ...change });
        expect(res.status).toBe(422);
        expect(res.json.errno).toBe(errno.invalid);
        if (path) expect(res.json.data.fields[0]).toMatchObject({ path });
        const after = await footprint();
        expect({ ...after, nonces: before.nonces }).toEqual(before);
        const [orderAfter] = await s.db
          .select()
          .from(payinOrders)
          .where(eq(payinOrders.orderNo, first.json.data.orderNo));
        expect(orderAfter).toEqual(orderBefore);
        // The original is still what the number answers.
        expect((await s.gateway(m, 'POST', '/gateway/v1/payin', body)).status).toBe(200);
      },
    );

    it('judges the number before the limits: a taken number with an amount outside them is 409, the same content a replay', async () => {
      const limited = await merchantOn(s, undefined, { minAmount: 1000, maxAmount: 100_000 });
      const body = payinBody({ amount: '100.00' });
      const first = await s.gateway(limited, 'POST', '/gateway/v1/payin', body);
      expect(first.status).toBe(201);
      const before = await footprint();
      const beyond = await s.gateway(limited, 'POST', '/gateway/v1/payin', { ...body, amount: '1000.01' });
      expect(beyond.status).toBe(409);
      expect(beyond.json.errno).toBe(errno.conflict);
      // Limits changed since the original: its repeat is still answered with it.
      await s.db.update(merchants).set({ minAmount: 20_000 }).where(eq(merchants.id, limited.id));
      const replay = await s.gateway(limited, 'POST', '/gateway/v1/payin', body);
      expect(replay.status).toBe(200);
      expect(replay.json.data).toEqual(first.json.data);
      const after = await footprint();
      expect({ ...after, nonces: before.nonces }).toEqual(before);
    });

    it('scopes the number per merchant: another merchant may use it', async () => {
      const other = await merchantOn(s);
      const body = payinBody();
      expect((await s.gateway(m, 'POST', '/gateway/v1/payin', body)).status).toBe(201);
      const res = await s.gateway(other, 'POST', '/gateway/v1/payin', body);
      expect(res.status).toBe(201);
    });

    it.runIf(engine === 'postgres')(
      'creates exactly one order from 20 concurrent identical creates',
      async () => {
        const body = payinBody();
        const answers = await Promise.all(
          Array.from({ length: 20 }, () => s.gateway(m, 'POST', '/gateway/v1/payin', body)),
        );
        expect(answers.map((a) => a.status).sort((x, y) => x - y)).toEqual([...Array(19).fill(200), 201]);
        const created = answers.find((a) => a.status === 201)!;
        for (const a of answers) {
          expect(a.json.data).toEqual(created.json.data);
          if (a.status === 200) expect(a.headers.get('idempotent-replayed')).toBe('true');
        }
        const rows = await s.db
          .select({ n: count() })
          .from(payinOrders)
          .where(eq(payinOrders.merchantOrderNo, body.merchantOrderNo));
        expect(rows[0]!.n).toBe(1);
      },
    );
  });

  describe('amounts', () => {
    it.each([
      ['below the minimum', '9.99'],
      ['above the maximum', '1000.01'],
    ])('refuses an amount %s with 422 naming the field, writing nothing', async (_name, amount) => {
      const before = await footprint();
      const res = await s.gateway(m, 'POST', '/gateway/v1/payin', payinBody({ amount }));
      expect(res.status).toBe(422);
      expect(res.json.errno).toBe(errno.invalid);
      expect(res.json.data.fields[0]).toMatchObject({ path: 'amount' });
      expect(res.json.data.fields[0].message).toContain('10.00');
      const after = await footprint();
      expect({ ...after, nonces: before.nonces }).toEqual(before);
    });

    it.each([
      ['the minimum', '10.00'],
      ['the maximum', '1000.00'],
    ])('accepts %s', async (_name, amount) => {
      expect((await s.gateway(m, 'POST', '/gateway/v1/payin', payinBody({ amount }))).status).toBe(201);
    });

    it.each([['0'], ['-1'], ['1.005'], ['1e3'], ['12,00']])(
      'refuses the malformed amount %s with 422',
      async (amount) => {
        const res = await s.gateway(m, 'POST', '/gateway/v1/payin', payinBody({ amount }));
        expect(res.status).toBe(422);
      },
    );

    it('refuses a NUL character in a text field with 422, not a server error', async () => {
      const res = await s.gateway(m, 'POST', '/gateway/v1/payin', payinBody({ payer: { name: 'a\u0000b' } }));
      expect(res.status).toBe(422);
    });

    it('fixes the fee at creation: rate and platform fee, rounded half up', async () => {
      const f = await merchantOn(s, undefined, { collectionRatePpm: 25_000, platformFee: 300 });
      // 123.45 × 2.5 % = 3.08625 → 3.09, plus 3.00
      const order = await createOrder(s, f, { amount: '123.45' });
      expect(order).toMatchObject({ amount: 12_345, fee: 609, agentCommission: 0 });
    });
  });

  describe('routing', () => {
    it('spreads orders over the channels by weight', async () => {
      const a = await makeChannel(s);
      const b = await makeChannel(s);
      const r = await merchantOn(s, [
        { channelId: a.id, weight: 300 },
        { channelId: b.id, weight: 100 },
      ]);
      const made = [];
      for (let i = 0; i < 160; i++) made.push(await createOrder(s, r));
      const onA = made.filter((o) => o.channelId === a.id).length;
      expect(made.every((o) => o.channelId === a.id || o.channelId === b.id)).toBe(true);
      // Expect 120 of 160 (75 %); the bounds are more than 4 standard deviations wide.
      expect(onA).toBeGreaterThan(95);
      expect(onA).toBeLessThan(145);
    });

    it("respects the channels' amount limits, and answers 422 (1030) when none takes the amount", async () => {
      const small = await makeChannel(s, { maxAmount: 50_000, weight: 10_000 });
      const large = await makeChannel(s, { minAmount: 50_001, maxAmount: 100_000, weight: 1 });
      const r = await merchantOn(s, [
        { channelId: small.id, weight: 10_000 },
        { channelId: large.id, weight: 1 },
      ]);
      for (let i = 0; i < 5; i++) {
        expect((await createOrder(s, r, { amount: '600.00' })).channelId).toBe(large.id);
        expect((await createOrder(s, r, { amount: '400.00' })).channelId).toBe(small.id);
      }
      const before = await footprint();
      const res = await s.gateway(r, 'POST', '/gateway/v1/payin', payinBody({ amount: '2000.00' }));
      expect(res.status).toBe(422);
      expect(res.json.errno).toBe(errno.noChannel);
      const after = await footprint();
      expect({ ...after, nonces: before.nonces }).toEqual(before);
    });

    it('tries the next channel when one refuses, and records creation_failed when all refuse', async () => {
      const refusing = await makeChannel(s, { settings: { refuseRate: 100 } });
      const willing = await makeChannel(s);
      const r = await merchantOn(s, [
        { channelId: refusing.id, weight: 10_000 },
        { channelId: willing.id, weight: 1 },
      ]);
      for (let i = 0; i < 5; i++) {
        const o = await createOrder(s, r);
        expect(o).toMatchObject({ channelId: willing.id, status: 'pending' });
      }
      const allRefuse = await merchantOn(s, [{ channelId: refusing.id, weight: 100 }]);
      const body = payinBody();
      const res = await s.gateway(allRefuse, 'POST', '/gateway/v1/payin', body);
      expect(res.status).toBe(201);
      expect(res.json.data).toMatchObject({ status: 'creation_failed', payUrl: null });
      const [row] = await s.db
        .select()
        .from(payinOrders)
        .where(eq(payinOrders.orderNo, res.json.data.orderNo));
      expect(row).toMatchObject({ status: 'creation_failed', channelId: null });
      expect(row!.failureReason).toContain('simulator declined');
      const replay = await s.gateway(allRefuse, 'POST', '/gateway/v1/payin', body);
      expect(replay.status).toBe(200);
      expect(replay.json.data).toEqual(res.json.data);
    });

    it('uses a named channel instead of routing, and only one of the merchant’s own', async () => {
      const a = await makeChannel(s, { weight: 10_000 });
      const b = await makeChannel(s, { weight: 1 });
      const stranger = await makeChannel(s);
      const r = await merchantOn(s, [
        { channelId: a.id, weight: 10_000 },
        { channelId: b.id, weight: 1 },
      ]);
      expect((await createOrder(s, r, { channel: b.code })).channelId).toBe(b.id);
      const res = await s.gateway(r, 'POST', '/gateway/v1/payin', payinBody({ channel: stranger.code }));
      expect(res.status).toBe(422);
      expect(res.json.errno).toBe(errno.noChannel);
    });

    it('rolls back the whole create when an adapter fails in an unexpected way', async () => {
      adapters.broken = {
        ...adapters.simulator!,
        async createPayin() {
          throw new Error('provider exploded');
        },
      };
      adapters.refusing = {
        ...adapters.simulator!,
        async createPayin() {
          throw new ChannelRefused('no');
        },
      };
      try {
        const broken = await makeChannel(s, { adapter: 'broken' });
        const r = await merchantOn(s, [{ channelId: broken.id, weight: 1 }]);
        const before = await footprint();
        const res = await s.gateway(r, 'POST', '/gateway/v1/payin', payinBody());
        expect(res.status).toBe(500);
        const after = await footprint();
        expect({ ...after, nonces: before.nonces }).toEqual(before);
        const refusing = await makeChannel(s, { adapter: 'refusing' });
        const r2 = await merchantOn(s, [{ channelId: refusing.id, weight: 1 }]);
        const failed = await s.gateway(r2, 'POST', '/gateway/v1/payin', payinBody());
        expect(failed.json.data.status).toBe('creation_failed');
      } finally {
        delete adapters.broken;
        delete adapters.refusing;
      }
    });
  });

  describe('queries and balances', () => {
    it('finds an order by system number and by merchant number; the answers equal the create', async () => {
      const body = payinBody();
      const made = await s.gateway(m, 'POST', '/gateway/v1/payin', body);
      const byNo = await s.gateway(m, 'GET', `/gateway/v1/payin/${made.json.data.orderNo}`);
      const byMerchantNo = await s.gateway(
        m,
        'GET',
        `/gateway/v1/payin?merchantOrderNo=${encodeURIComponent(body.merchantOrderNo)}`,
      );
      expect(byNo.status).toBe(200);
      expect(byNo.json.data).toEqual(made.json.data);
      expect(byMerchantNo.json.data).toEqual(made.json.data);
      expect((await s.gateway(m, 'GET', '/gateway/v1/payin/PI000')).status).toBe(404);
      expect((await s.gateway(m, 'GET', `/gateway/v1/payin?merchantOrderNo=${mon('none')}`)).status).toBe(
        404,
      );
    });

    it('answers the balances, which grow by the net of a paid order', async () => {
      const b = await merchantOn(s, undefined, { collectionRatePpm: 30_000 });
      const empty = await s.gateway(b, 'GET', '/gateway/v1/balance');
      expect(empty.json.data).toEqual({
        currency: 'INR',
        collection: { available: '0.00', pending: '0.00', frozen: '0.00' },
        payout: { available: '0.00', frozen: '0.00' },
      });
      const o = await createOrder(s, b, { amount: '200.00' });
      await simPay(s, admin, o.orderNo, 'success');
      const after = await s.gateway(b, 'GET', '/gateway/v1/balance');
      expect(after.json.data.collection.available).toBe('194.00');
    });

    it("never shows another merchant's order: 404 by either number", async () => {
      const a = await merchantOn(s);
      const b = await merchantOn(s);
      const body = payinBody();
      const bOrder = await s.gateway(b, 'POST', '/gateway/v1/payin', body);
      const byNo = await s.gateway(a, 'GET', `/gateway/v1/payin/${bOrder.json.data.orderNo}`);
      expect(byNo.status).toBe(404);
      expect(byNo.json.data).toBeNull();
      const byMerchantNo = await s.gateway(
        a,
        'GET',
        `/gateway/v1/payin?merchantOrderNo=${body.merchantOrderNo}`,
      );
      expect(byMerchantNo.status).toBe(404);
      // A's balance is A's: B's money does not show.
      await simPay(s, admin, bOrder.json.data.orderNo, 'success');
      const balance = await s.gateway(a, 'GET', '/gateway/v1/balance');
      expect(balance.json.data.collection.available).toBe('0.00');
    });
  });

  it('keeps order numbers unique and shaped PI + yyMMddHHmmss + 8 digits', async () => {
    const rows = await s.db.select({ orderNo: payinOrders.orderNo }).from(payinOrders);
    expect(new Set(rows.map((r) => r.orderNo)).size).toBe(rows.length);
    for (const r of rows) expect(r.orderNo).toMatch(/^PI\d{20}$/);
  });
});
