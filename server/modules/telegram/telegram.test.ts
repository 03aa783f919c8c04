/**
 * Telegram alerts (OPERATIONS.md section 4) on both databases, against a local HTTP server speaking the
 * Bot API's `sendMessage`: an alert is delivered once however many sender passes run, retried on a 5xx
 * (and after a 429's `retry_after`), given up on a 4xx or when the schedule runs out; the token is sealed
 * and appears nowhere (database, answers, operation log, logs, stored errors, messages); each of the five
 * alerts fires from its event and respects a group's merchant and channel filter; the test message;
 * validation in both languages; permissions.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { operationLog, telegramBot, telegramDeliveries, telegramGroups } from '../../db/schema.ts';
import { deliverDue } from '../../jobs/webhooks.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { createOrder, makeChannel, merchantOn, simPay, startReceiver } from '../payin/testkit.ts';
import { seedPayoutBalance } from '../payout/testkit.ts';
import { bank, endpointsOf, merchantWithOwner } from '../settlement/testkit.ts';
import { sendDueTelegram, telegramSchedule } from './sender.ts';
import { channelRateMinimumOrders, enqueueTest, runTelegramChecks } from './service.ts';

const { telegram } = endpoints;
const token = '123456789:AAFakeTokenForTests_abcdefghijklmnop';

interface Sent {
  path: string;
  chatId: string;
  text: string;
}

/** A Bot API server: records every `sendMessage`; answers ok unless a test queued another answer. */
async function startBotApi() {
  const sent: Sent[] = [];
  const answers: { status: number; body: unknown }[] = [];
  /** Runs as a message arrives, before it is answered (a slow API, a second sender meanwhile). */
  const hook: { onSend: ((n: number) => void) | null } = { onSend: null };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const path = req.url ?? '';
      if (!/^\/bot[^/]+\/sendMessage$/.test(path)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
        return;
      }
      sent.push({ path, chatId: String(body.chat_id), text: String(body.text) });
      hook.onSend?.(sent.length);
      const answer = answers.shift() ?? {
        status: 200,
        body: { ok: true, result: { message_id: sent.length, chat: { id: body.chat_id }, text: body.text } },
      };
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    hook,
    /** The next answers, in order (then ok again). */
    answer: (...a: { status: number; body: unknown }[]) => answers.push(...a),
    fail: (status: number, description: string, extra: Record<string, unknown> = {}) => ({
      status,
      body: { ok: false, error_code: status, description, ...extra },
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const alertsOff = {
  callbackGaveUp: false,
  payoutStuckMinutes: null,
  settlementApplied: false,
  payoutBalanceFloor: null,
  channelSuccessFloorPct: null,
};

describe.each(engines)('telegram alerts on %s', (engine) => {
  let s: TestServer;
  let api: Awaited<ReturnType<typeof startBotApi>>;
  let holder: Awaited<ReturnType<TestServer['makeKeyHolder']>>;
  const logs: string[] = [];
  let chats = 0;

  beforeAll(async () => {
    api = await startBotApi();
    s = await startTestServer(engine, { logSink: logs, config: { telegramApiUrl: `${api.url}/` } });
    holder = await s.makeKeyHolder(Object.values(telegram).map((e) => e.permission));
  });
  afterAll(async () => {
    await s?.close();
    await api?.close();
  });
  // Each test sees only its own groups and messages.
  beforeEach(async () => {
    await s.db.delete(telegramGroups);
    api.sent.length = 0;
    // Tests move the clock by hours: sign in afresh (sessions end after 30 idle minutes).
    holder.token = await s.login(holder.username, holder.password, holder.code());
  });

  const group = async (over: Record<string, unknown> = {}) => {
    const res = await s.call(
      telegram.groupCreate,
      { chatId: `-100${++chats}`, name: `Ops ${chats}`, alerts: alertsOff, ...over },
      holder.token,
    );
    expect(res.errno, res.errmsg).toBe(0);
    return res.data as { id: number; chatId: string };
  };
  const deliveriesOf = (groupId: number) =>
    s.db.select().from(telegramDeliveries).where(eq(telegramDeliveries.groupId, groupId));
  const sendAll = async () => {
    while ((await sendDueTelegram(s.deps)) > 0) {}
  };

  it('refuses a test message while no bot token is set, then takes a token', async () => {
    expect((await s.call(telegram.bot, {}, holder.token)).data).toMatchObject({ set: false });
    const g = await group();
    expect((await s.call(telegram.test, { id: g.id }, holder.token)).errno).toBe(errno.telegramNoBot);
    const res = await s.call(telegram.botUpdate, { token, code: holder.code() }, holder.token);
    expect(res.errno, res.errmsg).toBe(0);
    expect(res.data).toMatchObject({ set: true, updatedBy: holder.username });
    // A wrong code changes nothing.
    const wrong = await s.call(telegram.botUpdate, { token: `9${token}`, code: '000000' }, holder.token);
    expect(wrong.errno).toBe(errno.badCode);
  });

  it('sends a test message to the group through the Bot API', async () => {
    const g = await group({ name: 'Night shift' });
    const res = await s.call(telegram.test, { id: g.id }, holder.token);
    expect(res.errno, res.errmsg).toBe(0);
    expect(res.data).toMatchObject({ status: 'sent', attempts: 1, alert: 'test', groupName: 'Night shift' });
    expect(api.sent).toEqual([{ path: `/bot${token}/sendMessage`, chatId: g.chatId, text: res.data.text }]);
    expect(res.data.text).toContain('Night shift');
    // A disabled group is not sent to.
    await s.call(
      telegram.groupUpdate,
      { id: g.id, chatId: g.chatId, name: 'Night shift', alerts: alertsOff, status: 'disabled' },
      holder.token,
    );
    expect((await s.call(telegram.test, { id: g.id }, holder.token)).errno).toBe(errno.telegramGroupDisabled);
  });

  it('delivers an alert once, and retries it when the API answers 500', async () => {
    const g = await group();
    api.answer(api.fail(500, 'Internal Server Error'));
    const first = await s.call(telegram.test, { id: g.id }, holder.token);
    expect(first.data).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: 'HTTP 500: Internal Server Error',
    });
    await sendAll();
    expect(api.sent).toHaveLength(1); // not due yet
    s.clock.advance(telegramSchedule[0]! * 1000);
    await sendAll();
    await sendAll();
    expect(api.sent).toHaveLength(2);
    const [d] = await deliveriesOf(g.id);
    expect(d).toMatchObject({ status: 'sent', attempts: 2, lastError: null });
    s.clock.advance(3600_000);
    await sendAll();
    expect(api.sent).toHaveLength(2);
  });

  it('sends each delivery once while a slow pass overlaps the next', async () => {
    await s.call(telegram.botUpdate, { token, code: holder.code() }, holder.token);
    const g = await group();
    const [row] = await s.db.select().from(telegramGroups).where(eq(telegramGroups.id, g.id));
    for (let i = 0; i < 6; i++) await enqueueTest(s.deps, s.db, row!);
    // Each message takes 14 s (under the attempt's timeout); after the fifth a second sender starts.
    let second: Promise<number> | null = null;
    api.hook.onSend = (n) => {
      s.clock.advance(14_000);
      if (n === 5) second = sendDueTelegram(s.deps);
    };
    try {
      await sendDueTelegram(s.deps);
      await second;
    } finally {
      api.hook.onSend = null;
    }
    expect(api.sent).toHaveLength(6);
    expect((await deliveriesOf(g.id)).map((d) => d.status)).toEqual(Array(6).fill('sent'));
  });

  it('waits out a 429 retry_after, gives up on a 4xx, and when the schedule runs out', async () => {
    const g = await group();
    api.answer(api.fail(429, 'Too Many Requests: retry after 40', { parameters: { retry_after: 40 } }));
    const limited = await s.call(telegram.test, { id: g.id }, holder.token);
    expect(limited.data.status).toBe('pending');
    expect(Date.parse(limited.data.nextAttemptAt) - s.clock.now().getTime()).toBe(40_000);

    const h = await group();
    api.answer(api.fail(400, 'Bad Request: chat not found'));
    const refused = await s.call(telegram.test, { id: h.id }, holder.token);
    expect(refused.data).toMatchObject({
      status: 'gave_up',
      attempts: 1,
      lastError: 'HTTP 400: Bad Request: chat not found',
    });

    // The 429's delivery would take the answers queued below.
    await s.db.delete(telegramGroups).where(eq(telegramGroups.id, g.id));
    const k = await group();
    api.answer(api.fail(502, 'Bad Gateway'));
    await s.call(telegram.test, { id: k.id }, holder.token);
    for (const wait of telegramSchedule) {
      api.answer(api.fail(502, 'Bad Gateway'));
      s.clock.advance(wait * 1000);
      await sendAll();
    }
    const [d] = await deliveriesOf(k.id);
    expect(d).toMatchObject({ status: 'gave_up', attempts: telegramSchedule.length + 1 });
    holder.token = await s.login(holder.username, holder.password, holder.code());
    const list = await s.call(telegram.deliveryList, { groupId: k.id }, holder.token);
    expect(list.data.list[0]).toMatchObject({
      status: 'gave_up',
      lastError: 'HTTP 502: Bad Gateway',
      nextAttemptAt: null,
    });
  });

  it('retries a waiting delivery now on request', async () => {
    const g = await group();
    api.answer(api.fail(503, 'Service Unavailable'));
    const first = await s.call(telegram.test, { id: g.id }, holder.token);
    const res = await s.call(telegram.deliveryRetry, { id: first.data.id }, holder.token);
    expect(res.data).toMatchObject({ status: 'sent', attempts: 2 });
    expect((await s.call(telegram.deliveryRetry, { id: first.data.id }, holder.token)).errno).toBe(
      errno.conflict,
    );
  });

  it('keeps the token secret everywhere', async () => {
    const g = await group();
    // An API that repeats the request path (with the token) in its error.
    api.answer(api.fail(400, `Bad Request: no such path /bot${token}/sendMessage`));
    await s.call(telegram.test, { id: g.id }, holder.token);
    const [d] = await deliveriesOf(g.id);
    expect(d!.lastError).toContain('[token]');
    const [bot] = await s.db.select().from(telegramBot);
    expect(bot!.tokenSealed).not.toContain(token.split(':')[1]!);
    expect(s.deps.sealer.open(bot!.tokenSealed)).toBe(token);
    const answers = [
      await s.request('GET', '/api/telegram/bot', { token: holder.token }),
      await s.request('GET', '/api/telegram/deliveryList', { token: holder.token }),
      await s.request('GET', '/api/telegram/groupList', { token: holder.token }),
    ];
    const log = await s.db.select().from(operationLog);
    const deliveries = await s.db.select().from(telegramDeliveries);
    const secret = token.split(':')[1]!;
    for (const text of [
      ...answers.map((a) => a.text),
      JSON.stringify(log),
      JSON.stringify(deliveries),
      logs.join('\n'),
      ...api.sent.map((m) => m.text),
    ])
      expect(text).not.toContain(secret);
  });

  it('alerts a callback the schedule gave up on, to the groups following its merchant', async () => {
    const m = await merchantOn(s);
    const other = await merchantOn(s);
    const mine = await group({ merchantIds: [m.id], alerts: { ...alertsOff, callbackGaveUp: true } });
    const theirs = await group({ merchantIds: [other.id], alerts: { ...alertsOff, callbackGaveUp: true } });
    const notAsked = await group({ merchantIds: [m.id] });
    const gone = await startReceiver(() => 410);
    try {
      const o = await createOrder(s, m, { notifyUrl: `${gone.url}?token=merchant-secret` });
      const admin = await s.adminToken();
      expect((await simPay(s, admin, o.orderNo, 'success')).errno).toBe(0);
      while ((await deliverDue(s.deps)) > 0) {}
      expect(await deliveriesOf(theirs.id)).toEqual([]);
      expect(await deliveriesOf(notAsked.id)).toEqual([]);
      await sendAll();
      await sendAll();
      expect(api.sent).toHaveLength(1);
      expect(api.sent[0]!.chatId).toBe(mine.chatId);
      expect(api.sent[0]!.text).toContain(o.orderNo);
      expect(api.sent[0]!.text).toContain(m.code);
      expect(api.sent[0]!.text).not.toContain('merchant-secret');
      expect(api.sent[0]!.text).not.toContain(m.webhookSecret);
    } finally {
      await gone.close();
    }
  });

  it('alerts a settlement applied for', async () => {
    const o = await merchantWithOwner(s);
    const other = await merchantWithOwner(s);
    const mine = await group({ merchantIds: [o.m.id], alerts: { ...alertsOff, settlementApplied: true } });
    const all = await group({ alerts: { ...alertsOff, settlementApplied: true } });
    const theirs = await group({
      merchantIds: [other.m.id],
      alerts: { ...alertsOff, settlementApplied: true },
    });
    const res = await s.call(
      endpointsOf.collection.create,
      { ...bank, amount: '1000.00', code: o.code() },
      o.token,
    );
    expect(res.errno, res.errmsg).toBe(0);
    expect(await deliveriesOf(mine.id)).toHaveLength(1);
    expect(await deliveriesOf(all.id)).toHaveLength(1);
    expect(await deliveriesOf(theirs.id)).toEqual([]);
    await sendAll();
    expect(api.sent).toHaveLength(2);
    expect(api.sent[0]!.text).toContain(res.data.settlementNo);
    expect(api.sent[0]!.text).not.toContain(bank.cardNumber);
  });

  it('alerts a payout stuck longer than the group allows, once', async () => {
    // Payouts are accepted from listed addresses only (the harness signs from 203.0.113.7).
    const m = await merchantOn(s, undefined, { payoutIpWhitelist: ['203.0.113.0/24'] });
    const other = await merchantOn(s);
    await seedPayoutBalance(s, m.id, 10_000_00);
    const mine = await group({ merchantIds: [m.id], alerts: { ...alertsOff, payoutStuckMinutes: 10 } });
    const theirs = await group({ merchantIds: [other.id], alerts: { ...alertsOff, payoutStuckMinutes: 10 } });
    const res = await s.gateway(m, 'POST', '/gateway/v1/payout', {
      merchantOrderNo: `TG-${Date.now()}`,
      amount: '100.00',
      accountName: 'Asha Verma',
      accountNumber: '123456789012',
      ifsc: 'HDFC0001234',
      notifyUrl: 'http://127.0.0.1:9/hook',
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const orderNo = res.json.data.orderNo as string;
    await runTelegramChecks(s.deps);
    expect(await deliveriesOf(mine.id)).toEqual([]);
    s.clock.advance(11 * 60_000);
    await runTelegramChecks(s.deps);
    await runTelegramChecks(s.deps);
    const [d, ...more] = await deliveriesOf(mine.id);
    expect(more).toEqual([]);
    expect(d).toMatchObject({ alert: 'payoutStuck', dedupeKey: `payoutStuck:${orderNo}` });
    expect(d!.text).toContain(orderNo);
    expect(d!.text).not.toContain('123456789012');
    expect(d!.text).not.toContain('Asha');
    expect(await deliveriesOf(theirs.id)).toEqual([]);
  });

  it('alerts a payout balance below the floor once a business day', async () => {
    const low = await merchantOn(s);
    const rich = await merchantOn(s);
    await seedPayoutBalance(s, low.id, 50_00);
    await seedPayoutBalance(s, rich.id, 5_000_00);
    const g = await group({
      merchantIds: [low.id, rich.id],
      alerts: { ...alertsOff, payoutBalanceFloor: '100.00' },
    });
    const elsewhere = await group({
      merchantIds: [rich.id],
      alerts: { ...alertsOff, payoutBalanceFloor: '100.00' },
    });
    await runTelegramChecks(s.deps);
    await runTelegramChecks(s.deps);
    const rows = await deliveriesOf(g.id);
    expect(rows.map((r) => r.alert)).toEqual(['payoutBalance']);
    expect(rows[0]!.text).toContain(low.code);
    expect(rows[0]!.text).toContain('50.00');
    expect(await deliveriesOf(elsewhere.id)).toEqual([]);
    s.clock.advance(24 * 3600_000);
    await runTelegramChecks(s.deps);
    expect(await deliveriesOf(g.id)).toHaveLength(2);
  });

  it("alerts a channel's success rate over the last hour below the floor", async () => {
    const c = await makeChannel(s);
    const quiet = await makeChannel(s);
    const m = await merchantOn(s, [{ channelId: c.id, weight: 100 }]);
    const mine = await group({ channelIds: [c.id], alerts: { ...alertsOff, channelSuccessFloorPct: 50 } });
    const theirs = await group({
      channelIds: [quiet.id],
      alerts: { ...alertsOff, channelSuccessFloorPct: 50 },
    });
    const admin = await s.adminToken();
    for (let i = 0; i < channelRateMinimumOrders; i++) {
      const o = await createOrder(s, m);
      expect((await simPay(s, admin, o.orderNo, i < 5 ? 'success' : 'fail')).errno).toBe(0);
      // One short of the minimum: no rate yet.
      if (i === channelRateMinimumOrders - 2) {
        s.clock.advance(1000);
        await runTelegramChecks(s.deps);
        expect(await deliveriesOf(mine.id)).toEqual([]);
      }
    }
    s.clock.advance(1000);
    await runTelegramChecks(s.deps);
    await runTelegramChecks(s.deps);
    const rows = await deliveriesOf(mine.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.text).toContain(c.code);
    expect(rows[0]!.text).toContain('25.0%');
    expect(await deliveriesOf(theirs.id)).toEqual([]);
    // An hour later the orders are out of the window.
    s.clock.advance(3600_000);
    await runTelegramChecks(s.deps);
    expect(await deliveriesOf(mine.id)).toHaveLength(1);
  });

  it('refuses bad groups and tokens with 422 in both languages', async () => {
    await group({ chatId: '-1009999' });
    const bad: Record<string, unknown>[] = [
      { chatId: 'not a chat' },
      { chatId: '-1009999' },
      { name: '' },
      { merchantIds: [2_000_000_000] },
      { channelIds: [1, 1] },
      { alerts: { ...alertsOff, payoutStuckMinutes: 0 } },
      { alerts: { ...alertsOff, channelSuccessFloorPct: 101 } },
      { alerts: { ...alertsOff, payoutBalanceFloor: '-1.00' } },
      { alerts: { ...alertsOff, surprise: true } },
      // Hostile input: a chat id that would break out of the Bot API's query, control characters.
      { chatId: '-1001\n-1002' },
      { chatId: '../-1001' },
      { chatId: '-1001?x=1#y' },
      { chatId: '@name with space' },
      { name: 'Ops\u001b[31m red' },
      { name: 'Two\nlines' },
      { merchantIds: 1 },
      { merchantIds: [true] },
    ];
    for (const over of bad) {
      const input = { chatId: '-1001', name: 'x', alerts: alertsOff, ...over };
      const en = await s.call(telegram.groupCreate, input, holder.token);
      expect(en.errno, JSON.stringify(over)).toBe(errno.invalid);
      const zh = await s.call(telegram.groupCreate, input, holder.token, { 'accept-language': 'zh-CN' });
      expect(zh.errno).toBe(errno.invalid);
    }
    const taken = await s.call(
      telegram.groupCreate,
      { chatId: '-1009999', name: 'x', alerts: alertsOff },
      holder.token,
      {
        'accept-language': 'zh-CN',
      },
    );
    expect(JSON.stringify(taken.data)).toContain('已有其他群组使用此会话');
    // The token goes into the Bot API's URL path: nothing but the shape @BotFather gives passes.
    const botBefore = (await s.call(telegram.bot, {}, holder.token)).data;
    for (const token of [
      'nope',
      '123456:ABCDEFGHIJKLMNOPQRSTUV/../x',
      '123456:ABCDEFGHIJKLMNOPQRSTUV?x#y',
      '123456:ABCDEFGHIJ\nKLMNOPQRSTUV',
      '123456:ABCDEFGHIJ KLMNOPQRSTUV',
      `123456:${'A'.repeat(1_000_000)}`,
    ]) {
      const badToken = await s.call(telegram.botUpdate, { token, code: holder.code() }, holder.token);
      expect(badToken.errno, token.slice(0, 40)).toBe(errno.invalid);
    }
    expect((await s.call(telegram.bot, {}, holder.token)).data).toEqual(botBefore);
    // An id is a number (or digits): `[id]` or `true` must not name row 1.
    const [only] = (await s.call(telegram.groupList, {}, holder.token)).data.list;
    for (const id of [[only.id], true, `${only.id}.5`, 2 ** 53 + 2]) {
      expect((await s.call(telegram.groupDelete, { id }, holder.token)).errno, String(id)).toBe(
        errno.invalid,
      );
    }
    expect(
      (
        await s.call(
          telegram.groupUpdate,
          { id: 2_000_000, chatId: '-1', name: 'x', alerts: alertsOff },
          holder.token,
        )
      ).errno,
    ).toBe(errno.notFound);
    expect((await s.db.select({ n: sql<number>`count(*)::int` }).from(telegramGroups))[0]!.n).toBe(1);
  });

  it('edits and deletes a group, logged', async () => {
    const g = await group({ name: 'Before' });
    const res = await s.call(
      telegram.groupUpdate,
      { id: g.id, chatId: '@paygate_ops', name: 'After', alerts: { ...alertsOff, callbackGaveUp: true } },
      holder.token,
    );
    expect(res.data).toMatchObject({
      chatId: '@paygate_ops',
      name: 'After',
      alerts: { callbackGaveUp: true },
    });
    expect((await s.call(telegram.groupDelete, { id: g.id }, holder.token)).errno).toBe(0);
    expect((await s.call(telegram.groupList, {}, holder.token)).data.list).toEqual([]);
    const logged = await s.db
      .select()
      .from(operationLog)
      .where(eq(operationLog.target, `telegramGroup:${g.id}`));
    expect(logged.length).toBeGreaterThanOrEqual(3);
  });

  it('lets only holders of each permission in', async () => {
    const reader = await s.makeUser({
      perms: [telegram.groupList.permission, telegram.deliveryList.permission],
    });
    expect((await s.call(telegram.groupList, {}, reader.token)).errno).toBe(0);
    expect(
      (await s.call(telegram.groupCreate, { chatId: '-1', name: 'x', alerts: alertsOff }, reader.token))
        .errno,
    ).toBe(errno.forbidden);
    expect((await s.call(telegram.bot, {}, reader.token)).errno).toBe(errno.forbidden);
    const m = await s.makeMerchant();
    const owner = await s.login(m.ownerUsername, m.ownerPassword);
    expect((await s.call(telegram.groupList, {}, owner)).errno).toBe(errno.forbidden);
  });
});
