/**
 * Receiving accounts and the bank channel on both databases: creation and its validation (422 in both
 * languages, nothing written), platform-only access, routing to eligible accounts only (status, binding
 * merchants, hours, per-order bounds, daily amount and count), fail-over to the next channel when none is
 * eligible, capacity given back by an unpaid order, and (PostgreSQL) 50 concurrent creations against one
 * card never past its daily limits.
 */
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { defaultBusinessTimeZone } from '../../config.ts';
import { payinOrders, receivingAccountDays, receivingAccounts } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { expireDuePayins } from '../payin/expiry.ts';
import { type Merchant, makeChannel, payinBody, setRoutes, simulatorChannel } from '../payin/testkit.ts';

const { receivingAccount, accountHolder, cardBinding, holderNumber } = endpoints;

let seq = 0;
const accountNo = () => `${Date.now() % 1_000_000_000}${String(++seq).padStart(4, '0')}`;

/** The minute of the business day now, in the default business zone. */
function localMinute(at: Date): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: defaultBusinessTimeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const n = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return n('hour') * 60 + n('minute');
}
const hhmm = (m: number) => {
  const x = ((m % 1440) + 1440) % 1440;
  return `${String(Math.floor(x / 60)).padStart(2, '0')}:${String(x % 60).padStart(2, '0')}`;
};

describe.each(engines)('receiving accounts and the bank channel on %s', (engine) => {
  let s: TestServer;
  let root: string;
  let bankId: number;
  let holderId: number;

  beforeAll(async () => {
    s = await startTestServer(engine);
    root = await s.adminToken();
    const made = await s.call(
      endpoints.channel.create,
      {
        code: `bank_${engine}`,
        name: 'Bank collections',
        adapter: 'bank',
        minAmount: '1.00',
        maxAmount: '100000.00',
      },
      root,
    );
    expect(made.errno, made.errmsg).toBe(0);
    bankId = made.data.id;
    const h = await s.call(
      accountHolder.create,
      { name: 'Ravi Kumar', phone: '+919812345678', idNumber: 'ABCDE1234F', commissionRate: '0.5' },
      root,
    );
    expect(h.errno, h.errmsg).toBe(0);
    holderId = h.data.id;
  });
  afterAll(() => s.close());

  async function newCard(fields: Record<string, unknown> = {}) {
    const res = await s.call(
      receivingAccount.create,
      {
        kind: 'card',
        bankName: 'HDFC Bank',
        accountName: 'Ravi Kumar',
        accountNumber: accountNo(),
        ifsc: 'HDFC0001234',
        vpa: 'ravi@okhdfc',
        dailyLimit: '1000.00',
        holderId,
        ...fields,
      },
      root,
    );
    expect(res.errno, res.errmsg).toBe(0);
    return res.data.id as number;
  }
  async function bind(accountId: number, extra: Record<string, unknown> = {}, channelId = bankId) {
    const res = await s.call(cardBinding.create, { accountId, channelId, weight: 100, ...extra }, root);
    expect(res.errno, res.errmsg).toBe(0);
    return res.data.id as number;
  }
  /** A merchant routed through the given channels (default: the bank channel only). */
  const merchantOn = (routes = [{ channelId: bankId, weight: 100 }]) => s.makeMerchant({ channels: routes });
  async function create(m: Merchant, amount: string) {
    const res = await s.gateway(m, 'POST', '/gateway/v1/payin', payinBody({ amount }));
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const [order] = await s.db
      .select()
      .from(payinOrders)
      .where(eq(payinOrders.orderNo, res.json.data.orderNo));
    return { order: order!, answer: res.json.data };
  }
  async function today(accountId: number) {
    const res = await s.call(receivingAccount.info, { id: accountId }, root);
    expect(res.errno, res.errmsg).toBe(0);
    return { amount: res.data.todayAmount as string, count: res.data.todayCount as number };
  }

  it('creates accounts, holders, bindings and numbers, and lists them', async () => {
    const pub = await s.call(
      receivingAccount.create,
      {
        kind: 'public',
        bankName: 'ICICI Bank',
        accountName: 'Acme Payments Pvt Ltd',
        accountNumber: accountNo(),
        ifsc: 'icic0000104',
        dailyLimit: '500000.00',
        dailyCount: 1000,
        minAmount: '100.00',
        maxAmount: '50000.00',
      },
      root,
    );
    expect(pub.errno, pub.errmsg).toBe(0);
    const info = await s.call(receivingAccount.info, { id: pub.data.id }, root);
    expect(info.data).toMatchObject({
      kind: 'public',
      ifsc: 'ICIC0000104',
      dailyLimit: '500000.00',
      minAmount: '100.00',
      status: 'active',
      todayAmount: '0.00',
      todayCount: 0,
      holderId: null,
    });
    const card = await newCard();
    const list = await s.call(receivingAccount.list, { kind: 'card', holderId }, root);
    expect(list.data.list.map((r: { id: number }) => r.id)).toContain(card);
    expect(list.data.list.find((r: { id: number }) => r.id === card).holderName).toBe('Ravi Kumar');
    const b = await bind(card, { merchantIds: [], activeFrom: '09:00', activeTo: '21:00' });
    const bindings = await s.call(cardBinding.list, { accountId: card }, root);
    expect(bindings.data.list).toMatchObject([
      { id: b, activeFrom: '09:00', activeTo: '21:00', weight: 100 },
    ]);
    expect(
      (await s.call(cardBinding.create, { accountId: card, channelId: bankId, weight: 5 }, root)).errno,
    ).toBe(errno.conflict);
    expect((await s.call(cardBinding.delete, { id: b }, root)).errno).toBe(0);
    const num = await s.call(
      holderNumber.create,
      { holderId, kind: 'upi', value: 'ravi@okhdfc', accountIds: [card] },
      root,
    );
    expect(num.errno, num.errmsg).toBe(0);
    expect((await s.call(holderNumber.update, { id: num.data.id, status: 'disabled' }, root)).errno).toBe(0);
    const nums = await s.call(holderNumber.list, { holderId }, root);
    expect(nums.data.list).toMatchObject([{ value: 'ravi@okhdfc', accountIds: [card], status: 'disabled' }]);
    const holders = await s.call(accountHolder.list, {}, root);
    expect(holders.data.list.find((h: { id: number }) => h.id === holderId)).toMatchObject({
      commissionRate: '0.5',
    });
    const paused = await s.call(receivingAccount.status, { id: card, status: 'paused' }, root);
    expect(paused.errno).toBe(0);
    expect((await s.call(receivingAccount.info, { id: card }, root)).data.status).toBe('paused');
  });

  it('refuses invalid accounts with 422 in both languages and writes nothing', async () => {
    const before = (await s.db.select().from(receivingAccounts)).length;
    const base = {
      kind: 'public',
      bankName: 'SBI',
      accountName: 'Acme',
      accountNumber: accountNo(),
      ifsc: 'SBIN0001234',
      dailyLimit: '1000.00',
    };
    const bad = [
      { ...base, ifsc: 'SBIN1234' },
      { ...base, vpa: 'no-handle' },
      { ...base, minAmount: '500.00', maxAmount: '100.00' },
      { ...base, kind: 'card' },
      { ...base, holderId },
      { ...base, dailyLimit: '0' },
    ];
    for (const input of bad) {
      const res = await s.call(receivingAccount.create, input, root);
      expect(res.errno, JSON.stringify(input)).toBe(errno.invalid);
    }
    const en = await s.call(receivingAccount.create, { ...base, vpa: 'x' }, root, {
      'accept-language': 'en',
    });
    const zh = await s.call(receivingAccount.create, { ...base, vpa: 'x' }, root, {
      'accept-language': 'zh-CN',
    });
    expect(JSON.stringify(en.data)).toContain('name@bank');
    expect(JSON.stringify(zh.data)).toContain('UPI 地址');
    const unknownHolder = await s.call(
      receivingAccount.create,
      { ...base, kind: 'card', holderId: 999_999 },
      root,
    );
    expect(unknownHolder.errno).toBe(errno.invalid);
    expect((await s.db.select().from(receivingAccounts)).length).toBe(before);
    expect((await s.call(receivingAccount.create, base, root)).errno).toBe(0);
    const again = await s.call(receivingAccount.create, base, root);
    expect(again.errno).toBe(errno.conflict);
    expect(JSON.stringify(again.data)).toContain('accountNumber');
    expect((await s.db.select().from(receivingAccounts)).length).toBe(before + 1);
    const card = await newCard();
    const upd = await s.call(
      receivingAccount.update,
      { id: card, minAmount: '2000.00', maxAmount: '100.00' },
      root,
    );
    expect(upd.errno).toBe(errno.invalid);
    const sim = await simulatorChannel(s);
    const wrongChannel = await s.call(
      cardBinding.create,
      { accountId: card, channelId: sim.id, weight: 1 },
      root,
    );
    expect(wrongChannel.errno).toBe(errno.invalid);
    const otherHolder = await s.call(
      accountHolder.create,
      { name: 'Someone Else', phone: '9876543210', idNumber: 'ZZZZ9999', commissionRate: '0' },
      root,
    );
    const foreign = await s.call(
      holderNumber.create,
      { holderId: otherHolder.data.id, kind: 'phone', value: '9876543210', accountIds: [card] },
      root,
    );
    expect(foreign.errno).toBe(errno.invalid);
  });

  it('answers merchant users 403 and unknown ids 404', async () => {
    const m = await s.makeMerchant();
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    const card = await newCard();
    expect((await s.call(receivingAccount.list, {}, owner)).errno).toBe(errno.forbidden);
    expect((await s.call(receivingAccount.info, { id: card }, owner)).errno).toBe(errno.forbidden);
    expect((await s.call(accountHolder.list, {}, owner)).errno).toBe(errno.forbidden);
    expect(
      (await s.call(cardBinding.create, { accountId: card, channelId: bankId, weight: 1 }, owner)).errno,
    ).toBe(errno.forbidden);
    expect((await s.call(receivingAccount.info, { id: 999_999 }, root)).errno).toBe(errno.notFound);
    expect((await s.call(receivingAccount.status, { id: 999_999, status: 'frozen' }, root)).errno).toBe(
      errno.notFound,
    );
  });

  it('routes a pay-in only to an eligible account and reserves its capacity', async () => {
    const channel = await makeChannel(s, { adapter: 'bank', supportsPayin: true });
    const m = await merchantOn([{ channelId: channel.id, weight: 100 }]);
    const other = await s.makeMerchant();
    const minute = localMinute(s.clock.now());
    const eligible = await newCard({
      dailyLimit: '250.00',
      dailyCount: 2,
      minAmount: '50.00',
      maxAmount: '200.00',
    });
    const paused = await newCard();
    const forOther = await newCard();
    const closedHours = await newCard();
    const frozen = await newCard();
    await bind(
      eligible,
      { merchantIds: [m.id], activeFrom: hhmm(minute - 60), activeTo: hhmm(minute + 60) },
      channel.id,
    );
    await bind(paused, {}, channel.id);
    await bind(forOther, { merchantIds: [other.id] }, channel.id);
    await bind(closedHours, { activeFrom: hhmm(minute + 60), activeTo: hhmm(minute + 120) }, channel.id);
    await bind(frozen, {}, channel.id);
    await s.call(receivingAccount.status, { id: paused, status: 'paused' }, root);
    await s.call(receivingAccount.status, { id: frozen, status: 'frozen' }, root);

    const first = await create(m, '100.00');
    expect(first.order).toMatchObject({
      status: 'pending',
      receivingAccountId: eligible,
      channelId: channel.id,
    });
    expect(first.answer.payUrl).toMatch(new RegExp(`/pay/${first.order.orderNo}$`));
    expect(await today(eligible)).toEqual({ amount: '100.00', count: 1 });
    // Outside the account's per-order bounds, and past its daily amount: nobody can take it.
    expect((await create(m, '20.00')).order).toMatchObject({
      status: 'creation_failed',
      receivingAccountId: null,
    });
    expect((await create(m, '160.00')).order.status).toBe('creation_failed');
    expect((await create(m, '150.00')).order.receivingAccountId).toBe(eligible);
    expect(await today(eligible)).toEqual({ amount: '250.00', count: 2 });
    // The daily count is spent even where the amount would fit.
    await s.call(receivingAccount.update, { id: eligible, dailyLimit: '10000.00' }, root);
    expect((await create(m, '60.00')).order.status).toBe('creation_failed');
    const list = await s.call(receivingAccount.list, { holderId }, root);
    expect(list.data.list.find((r: { id: number }) => r.id === eligible)).toMatchObject({
      todayAmount: '250.00',
      todayCount: 2,
    });
  });

  it('fails over to the next channel when no account is eligible, and gives capacity back when unpaid', async () => {
    const channel = await makeChannel(s, { adapter: 'bank', supportsPayin: true });
    const sim = await simulatorChannel(s);
    const m = await merchantOn([{ channelId: channel.id, weight: 100 }]);
    const card = await newCard({ dailyLimit: '100.00' });
    await bind(card, {}, channel.id);
    const onCard = await create(m, '100.00');
    expect(onCard.order.receivingAccountId).toBe(card);
    // Full now: the bank channel refuses, and the simulator behind it takes the order.
    await setRoutes(s, m.id, [
      { channelId: channel.id, weight: 100 },
      { channelId: sim.id, weight: 1 },
    ]);
    expect(await today(card)).toEqual({ amount: '100.00', count: 1 });
    const next = await create(m, '100.00');
    expect(next.order).toMatchObject({ status: 'pending', channelId: sim.id, receivingAccountId: null });
    // Expired unpaid: the card's capacity comes back, and it takes the next order.
    s.clock.advance(2 * 60 * 60_000);
    await expireDuePayins(s.deps);
    root = await s.adminToken();
    const expired = await s.db.select().from(payinOrders).where(eq(payinOrders.id, onCard.order.id));
    expect(expired[0]!.status).toBe('unpaid');
    expect((await today(card)).count).toBe(0);
  });

  it.runIf(engine === 'postgres')(
    'never passes a card’s daily limits under 50 concurrent creations',
    async () => {
      const channel = await makeChannel(s, { adapter: 'bank', supportsPayin: true });
      const m = await merchantOn([{ channelId: channel.id, weight: 100 }]);
      const byAmount = await newCard({ dailyLimit: '1000.00', dailyCount: 40 });
      const byCount = await newCard({ dailyLimit: '100000.00', dailyCount: 4 });
      await bind(byAmount, {}, channel.id);
      await bind(byCount, {}, channel.id);
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          s.gateway(m, 'POST', '/gateway/v1/payin', payinBody({ amount: '150.00' })),
        ),
      );
      expect(answers.every((a) => a.status === 201)).toBe(true);
      const orders = await s.db
        .select()
        .from(payinOrders)
        .where(inArray(payinOrders.receivingAccountId, [byAmount, byCount]));
      const on = (id: number) => orders.filter((o) => o.receivingAccountId === id);
      expect(on(byAmount).reduce((t, o) => t + o.amount, 0)).toBeLessThanOrEqual(100_000);
      expect(on(byAmount).length).toBe(6);
      expect(on(byCount).length).toBe(4);
      const days = await s.db
        .select()
        .from(receivingAccountDays)
        .where(inArray(receivingAccountDays.accountId, [byAmount, byCount]));
      expect(days.find((d) => d.accountId === byAmount)).toMatchObject({ amount: 90_000, count: 6 });
      expect(days.find((d) => d.accountId === byCount)).toMatchObject({ amount: 60_000, count: 4 });
    },
  );
});
