/**
 * Risk rules (docs/MONEY-BACK.md section 4) on both databases: the blocklist refusing a pay-in at creation
 * through the gateway and the console (the merchant, the payer's phone and e-mail) with riskBlocked and
 * nothing written, and the pay page refusing a blocked address; an entry past its end or removed no longer
 * applies; the merchant's velocity limits refusing with 429, by the creation's payer and by the page's
 * address; every refusal counted on the dashboard, the platform's and a merchant's own; the blocklist's
 * endpoints closed to merchant users.
 */
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { operationLog, payinOrders, riskRefusals } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { mon, payinBody } from '../payin/testkit.ts';
import { type BankSetup, bankPayin, bankSetup } from '../receiving/testkit.ts';

const { blocklist, merchant: merchantEp, merchantOrder, dashboard } = endpoints;

describe.each(engines)('risk rules on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let bank: BankSetup;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    bank = await bankSetup(s);
  });
  afterAll(() => s?.close());

  type Merchant = Awaited<ReturnType<TestServer['makeMerchant']>>;
  const add = (input: Record<string, unknown>) =>
    s.call(blocklist.add, { reason: 'fraud reported', ...input }, root);
  const create = (m: Merchant, overrides: Record<string, unknown> = {}) =>
    s.gateway(m, 'POST', '/gateway/v1/payin', payinBody(overrides));
  const ordersOf = async (merchantId: number) =>
    (await s.db.select({ n: count() }).from(payinOrders).where(eq(payinOrders.merchantId, merchantId)))[0]!.n;
  const refusalsOf = (merchantId: number) =>
    s.db.select().from(riskRefusals).where(eq(riskRefusals.merchantId, merchantId));
  const info = (orderNo: string, ip: string) =>
    s.request('GET', `/pay/${orderNo}/info`, { headers: { 'x-forwarded-for': ip } });
  const merchantUser = async (m: Merchant, perms: string[]) =>
    (await s.makeUser({ kind: 'merchant', merchantId: m.id, perms })).token;

  it('refuses a blocked merchant through the gateway and the console, writing nothing but the refusal', async () => {
    const m = await s.makeMerchant();
    const entry = await add({ kind: 'merchant', value: m.code });
    expect(entry.errno, entry.errmsg).toBe(0);
    expect(entry.data).toMatchObject({ kind: 'merchant', value: m.code, active: true, removedAt: null });

    const gw = await create(m);
    expect(gw.status).toBe(403);
    expect(gw.json).toMatchObject({ errno: errno.riskBlocked, data: { rule: 'merchant' } });

    const token = await merchantUser(m, [merchantOrder.create.permission]);
    const res = await s.request('POST', `/api${merchantOrder.create.path}`, {
      body: { amount: '100.00', merchantOrderNo: mon('CO') },
      token,
    });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ errno: errno.riskBlocked, data: { rule: 'merchant' } });

    expect(await ordersOf(m.id)).toBe(0);
    const refused = await refusalsOf(m.id);
    expect(refused.map((r) => r.rule)).toEqual(['merchant', 'merchant']);
    // The console's refusal is in the operation log, as failed, with its rule.
    const [logged] = await s.db
      .select()
      .from(operationLog)
      .where(
        and(eq(operationLog.action, merchantOrder.create.id), eq(operationLog.target, `merchant:${m.id}`)),
      );
    expect(logged).toMatchObject({ outcome: 'failed', errno: errno.riskBlocked });
  });

  it("refuses a blocked payer's phone, e-mail and UPI ID as written differently, naming the rule, never the value", async () => {
    const m = await s.makeMerchant();
    expect((await add({ kind: 'payer_phone', value: '+91 98765-43210' })).errno).toBe(0);
    expect((await add({ kind: 'payer_email', value: ' Fraud@Example.COM ' })).errno).toBe(0);

    const phone = await create(m, { payer: { phone: '+91 (98765) 43210' } });
    expect(phone.status).toBe(403);
    expect(phone.json.data).toEqual({ rule: 'payer_phone' });
    expect(JSON.stringify(phone.json)).not.toContain('98765');

    const email = await create(m, { payer: { email: 'fraud@example.com', name: 'A Payer' } });
    expect(email.status).toBe(403);
    expect(email.json.data).toEqual({ rule: 'payer_email' });
    expect(JSON.stringify(email.json)).not.toContain('fraud@');

    // A UPI ID the merchant passes along is met too.
    expect((await add({ kind: 'payer_vpa', value: 'mule.account@okaxis' })).errno).toBe(0);
    const vpa = await create(m, { payer: { vpa: ' Mule.Account@OKAXIS' } });
    expect(vpa.status).toBe(403);
    expect(vpa.json.data).toEqual({ rule: 'payer_vpa' });

    // Another payer, or none, is not refused.
    expect((await create(m, { payer: { phone: '9000000001', vpa: 'honest@okicici' } })).status).toBe(201);
    expect((await create(m)).status).toBe(201);
    expect(await ordersOf(m.id)).toBe(2);
    expect((await refusalsOf(m.id)).map((r) => r.rule).sort()).toEqual([
      'payer_email',
      'payer_phone',
      'payer_vpa',
    ]);
  });

  it('shows a blocked address no account on the pay page, and counts it once per order', async () => {
    const { order } = await bankPayin(s, bank.merchant);
    expect((await add({ kind: 'payer_ip', value: '198.51.100.77' })).errno).toBe(0);
    for (let i = 0; i < 2; i++) {
      const refused = await info(order.orderNo, '198.51.100.77');
      expect(refused.status).toBe(403);
      expect(refused.json).toMatchObject({ errno: errno.riskBlocked, data: { rule: 'payer_ip' } });
      expect(refused.text).not.toContain('accountNumber');
    }
    const other = await info(order.orderNo, '198.51.100.78');
    expect(other.status).toBe(200);
    expect(other.json.data).toMatchObject({ status: 'pending', account: { ifsc: 'HDFC0001234' } });
    const counted = await s.db.select().from(riskRefusals).where(eq(riskRefusals.orderNo, order.orderNo));
    expect(counted.map((r) => r.rule)).toEqual(['payer_ip']);
  });

  it('refuses one payer past the merchant’s daily count and amount with 429, others go on', async () => {
    const m = await s.makeMerchant();
    const set = await s.call(
      merchantEp.update,
      { id: m.id, velocityPayinsPerDay: 2, velocityAmountPerDay: '250.00' },
      root,
    );
    expect(set.errno, set.errmsg).toBe(0);
    const read = await s.call(merchantEp.info, { id: m.id }, root);
    expect(read.data).toMatchObject({ velocityPayinsPerDay: 2, velocityAmountPerDay: '250.00' });

    const payer = { phone: '9111111111' };
    expect((await create(m, { payer })).status).toBe(201);
    expect((await create(m, { payer, amount: '100.00' })).status).toBe(201);
    const third = await create(m, { payer });
    expect(third.status).toBe(429);
    expect(third.json).toMatchObject({ errno: errno.velocityExceeded, data: { rule: 'velocity_count' } });

    const spender = { email: 'Big@Spender.example' };
    expect((await create(m, { payer: spender, amount: '200.00' })).status).toBe(201);
    const over = await create(m, { payer: { email: 'big@spender.example' }, amount: '60.00' });
    expect(over.status).toBe(429);
    expect(over.json.data).toEqual({ rule: 'velocity_amount' });
    expect((await create(m, { payer: spender, amount: '50.00' })).status).toBe(201);

    // Limits taken off: the same payer goes on.
    await s.call(
      merchantEp.update,
      { id: m.id, velocityPayinsPerDay: null, velocityAmountPerDay: null },
      root,
    );
    expect((await create(m, { payer })).status).toBe(201);
    expect(await ordersOf(m.id)).toBe(5);
    expect((await refusalsOf(m.id)).map((r) => r.rule).sort()).toEqual(['velocity_amount', 'velocity_count']);
  });

  it('counts a payer the creation did not name by the pay page’s address', async () => {
    const m = bank.merchant;
    await s.call(merchantEp.update, { id: m.id, velocityPayinsPerDay: 1 }, root);
    try {
      const first = (await bankPayin(s, m)).order;
      const second = (await bankPayin(s, m)).order;
      expect((await info(first.orderNo, '192.0.2.10')).status).toBe(200);
      const refused = await info(second.orderNo, '192.0.2.10');
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ errno: errno.velocityExceeded, data: { rule: 'velocity_count' } });
      // The first order stays the payer's first, whoever polls it again.
      expect((await info(first.orderNo, '192.0.2.10')).status).toBe(200);
      const [keyed] = await s.db.select().from(payinOrders).where(eq(payinOrders.id, second.id));
      expect(keyed!.payerKey).toBe('ip:192.0.2.10');
    } finally {
      await s.call(merchantEp.update, { id: m.id, velocityPayinsPerDay: null }, root);
    }
  });

  it("counts today's refusals by rule on the dashboard: the platform's all, a merchant's its own", async () => {
    const m = await s.makeMerchant();
    await add({ kind: 'payer_phone', value: '9222222222' });
    for (let i = 0; i < 3; i++) await create(m, { payer: { phone: '9222222222' } });
    const platform = await s.call(dashboard.summary, {}, root);
    expect(platform.errno, platform.errmsg).toBe(0);
    const byRule = Object.fromEntries(
      (platform.data.riskRefusals as { rule: string; count: number }[]).map((r) => [r.rule, r.count]),
    );
    expect(byRule.payer_phone).toBeGreaterThanOrEqual(4);
    expect(byRule.merchant).toBeGreaterThanOrEqual(2);
    const own = await s.call(dashboard.summary, {}, await merchantUser(m, [dashboard.summary.permission]));
    expect(own.data.riskRefusals).toEqual([{ rule: 'payer_phone', count: 3 }]);
  });

  it('lists entries, refuses a second live one and removes one as a record; merchant users may not use it', async () => {
    const value = 'someone@example.org';
    const made = await add({ kind: 'payer_email', value });
    expect(made.errno).toBe(0);
    const again = await add({ kind: 'payer_email', value: value.toUpperCase() });
    expect(again.errno).toBe(errno.conflict);
    expect((await add({ kind: 'payer_ip', value: 'not-an-ip' })).errno).toBe(errno.invalid);
    expect((await add({ kind: 'merchant', value: 'NOSUCHCODE' })).errno).toBe(errno.notFound);

    const m = await s.makeMerchant();
    expect((await create(m, { payer: { email: value } })).status).toBe(403);
    const removed = await s.call(blocklist.remove, { id: made.data.id }, root);
    expect(removed.errno).toBe(0);
    expect((await s.call(blocklist.remove, { id: made.data.id }, root)).errno).toBe(errno.conflict);
    expect((await create(m, { payer: { email: value } })).status).toBe(201);

    const list = await s.call(blocklist.list, { kind: 'payer_email', state: 'inactive' }, root);
    const row = (list.data.list as { id: number }[]).find((r) => r.id === made.data.id);
    expect(row).toMatchObject({ active: false, removedBy: 'admin', value });
    const active = await s.call(blocklist.list, { state: 'active' }, root);
    expect((active.data.list as { id: number }[]).some((r) => r.id === made.data.id)).toBe(false);
    const logged = await s.db
      .select()
      .from(operationLog)
      .where(eq(operationLog.target, `blocklist:${made.data.id}`));
    expect(logged.map((l) => l.action).sort()).toEqual([
      blocklist.add.id,
      blocklist.remove.id,
      blocklist.remove.id,
    ]);

    const token = await merchantUser(m, ['*']);
    for (const [ep, input] of [
      [blocklist.list, {}],
      [blocklist.add, { kind: 'payer_ip', value: '192.0.2.1', reason: 'x' }],
      [blocklist.remove, { id: made.data.id }],
    ] as const) {
      const res = await s.call(ep, input, token);
      expect(res.errno, ep.id).toBe(errno.forbidden);
    }
  });

  it('no longer applies an entry past its end', async () => {
    const m = await s.makeMerchant();
    const endsAt = new Date(s.clock.now().getTime() + 60 * 60_000).toISOString();
    expect((await add({ kind: 'payer_phone', value: '9333333333', endsAt })).errno).toBe(0);
    expect((await create(m, { payer: { phone: '9333333333' } })).status).toBe(403);
    s.clock.advance(2 * 60 * 60_000);
    // Signed out by the idle time meanwhile.
    root = await s.adminToken();
    expect((await create(m, { payer: { phone: '9333333333' } })).status).toBe(201);
    // Ended, so a new entry for the same phone may be added: the ended one is closed as removed.
    expect((await add({ kind: 'payer_phone', value: '9333333333' })).errno).toBe(0);
    expect((await create(m, { payer: { phone: '9333333333' } })).status).toBe(403);
    // An end in the past is refused.
    const past = new Date(s.clock.now().getTime() - 60_000).toISOString();
    expect((await add({ kind: 'payer_phone', value: '9444444444', endsAt: past })).errno).toBe(errno.invalid);
  });
});
