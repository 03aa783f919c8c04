/** Helpers shared by the pay-in and callback tests (not a test file itself). */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { channels, merchantChannels, payinOrders } from '../../db/schema.ts';
import { checkLedger } from '../../ledger/check.ts';
import type { TestServer } from '../../test/harness.ts';
import { checkOrderStats } from '../dashboard/stats.ts';

export type Merchant = Awaited<ReturnType<TestServer['makeMerchant']>>;

let seq = 0;
/** A unique merchant order number. */
export const mon = (prefix = 'MO') => `${prefix}${Date.now().toString(36)}${++seq}`;

export function payinBody(overrides: Record<string, unknown> = {}) {
  return {
    merchantOrderNo: mon(),
    amount: '100.00',
    notifyUrl: 'http://127.0.0.1:9/hook',
    ...overrides,
  };
}

export async function simulatorChannel(s: TestServer) {
  const [c] = await s.db.select().from(channels).where(eq(channels.code, 'simulator'));
  return c!;
}

/** One more channel on the simulator adapter (settings as the simulator reads them). */
export async function makeChannel(
  s: TestServer,
  opts: {
    code?: string;
    weight?: number;
    minAmount?: number;
    maxAmount?: number;
    settings?: Record<string, unknown>;
    adapter?: string;
    supportsPayin?: boolean;
  } = {},
) {
  const [c] = await s.db
    .insert(channels)
    .values({
      code: opts.code ?? `sim${++seq}${Date.now().toString(36).slice(-4)}`,
      name: 'Test channel',
      adapter: opts.adapter ?? 'simulator',
      weight: opts.weight ?? 100,
      minAmount: opts.minAmount ?? 100,
      maxAmount: opts.maxAmount ?? 1_000_000_000,
      settings: opts.settings ?? {},
      supportsPayin: opts.supportsPayin ?? true,
    })
    .returning();
  return c!;
}

/** A merchant routed through exactly the given channels (default: the simulator only). */
export async function merchantOn(
  s: TestServer,
  routes?: { channelId: number; weight: number }[],
  terms: Parameters<TestServer['makeMerchant']>[0] = {},
) {
  const sim = await simulatorChannel(s);
  return s.makeMerchant({ channels: routes ?? [{ channelId: sim.id, weight: 100 }], ...terms });
}

export async function setRoutes(
  s: TestServer,
  merchantId: number,
  routes: { channelId: number; weight: number }[],
) {
  await s.db.delete(merchantChannels).where(eq(merchantChannels.merchantId, merchantId));
  if (routes.length) await s.db.insert(merchantChannels).values(routes.map((r) => ({ merchantId, ...r })));
}

export async function createOrder(s: TestServer, m: Merchant, overrides: Record<string, unknown> = {}) {
  const res = await s.gateway(m, 'POST', '/gateway/v1/payin', payinBody(overrides));
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.json)}`);
  const [order] = await s.db.select().from(payinOrders).where(eq(payinOrders.orderNo, res.json.data.orderNo));
  return order!;
}

export async function orderById(s: TestServer, id: number) {
  const [o] = await s.db.select().from(payinOrders).where(eq(payinOrders.id, id));
  return o!;
}

/** The simulator's pay control as the platform admin uses it. */
export async function simPay(
  s: TestServer,
  token: string,
  orderNo: string,
  result: 'success' | 'fail',
  extra: { utr?: string; notify?: boolean } = {},
) {
  return s.call(endpoints.simulator.pay, { orderNo, result, ...extra }, token);
}

/** The ledger's own check finds nothing wrong: every entry balances, every chain and account ties. */
export async function expectLedgerBalanced(s: TestServer) {
  expect(await checkLedger(s.db)).toMatchObject({
    balanced: true,
    unbalancedEntries: [],
    brokenChains: [],
    accountMismatches: [],
  });
}

export async function expectBalanced(s: TestServer) {
  await expectLedgerBalanced(s);
  // The dashboard's order stats equal a GROUP BY over the orders.
  expect(await checkOrderStats(s.db)).toEqual({ ok: true, mismatches: [] });
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A merchant's callback receiver: a real HTTP server on 127.0.0.1 (port 0). `answer` decides each
 * response's status (default 200); every request is recorded.
 */
export async function startReceiver(answer: (n: number, r: Received) => number = () => 200) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      const status = answer(received.length, r);
      if (status >= 300 && status < 400) res.setHeader('location', 'http://127.0.0.1:9/elsewhere');
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'OK' : `no (${status})`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Verifies a received callback with the `standardwebhooks` library, as a merchant would, at `nowMs`
 * (the library compares the timestamp with Date.now; tests run on a moved clock). Answers the payload.
 */
export function verifyCallback(
  secret: string,
  r: Received,
  nowMs: number,
): { type: string; data: Record<string, unknown> } {
  const realNow = Date.now;
  Date.now = () => nowMs;
  try {
    return new Webhook(secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    }) as { type: string; data: Record<string, unknown> };
  } finally {
    Date.now = realNow;
  }
}
