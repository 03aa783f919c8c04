/**
 * Issue 29: the gateway's document tells the truth about its answers. Every gateway answer (pay-in create,
 * its replay, get and find; payout create, replay, get and find; balance) carries exactly the keys the
 * OpenAPI document (`/gateway/openapi.json`, generated from contract/gateway.ts) lists for it, at every
 * depth, and parses with the contract's output schema; every callback body is `{type, data}` with the
 * data its type declares (`callbackData`). `settlement.updated` is checked in settlement.test.ts.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allGatewayEndpoints,
  type CallbackType,
  callbackData,
  callbackTypes,
  type GatewayEndpoint,
  gatewayEndpoints,
} from '../../contract/gateway.ts';
import { endpoints } from '../../contract/index.ts';
import { payinOrders, payoutOrders, refunds } from '../db/schema.ts';
import { gatewayOpenApi } from '../gateway/openapi.ts';
import { deliverDue } from '../jobs/webhooks.ts';
import { expireDuePayins } from '../modules/payin/expiry.ts';
import { merchantOn, payinBody, simPay, startReceiver } from '../modules/payin/testkit.ts';
import { drainQueue, payoutBody, seedPayoutBalance } from '../modules/payout/testkit.ts';
import { fund } from '../modules/settlement/testkit.ts';
import { documentOf, type JsonSchema, undocumentedKeys } from './documented.ts';
import { engines, errno, startTestServer, type TestServer } from './harness.ts';

type Operation = { responses: Record<string, { content: Record<string, { schema: JsonSchema }> }> };

/** The documented success answer (the whole envelope) of an endpoint, as the OpenAPI document has it. */
function documentedAnswer(ep: GatewayEndpoint): JsonSchema {
  const doc = gatewayOpenApi() as { paths: Record<string, Record<string, Operation>> };
  const operation = doc.paths[ep.path.replace(/:(\w+)/g, '{$1}')]![ep.method.toLowerCase()]!;
  return operation.responses[String(ep.status)]!.content['application/json']!.schema;
}

describe.each(engines)('gateway answers carry exactly the documented keys on %s', (engine) => {
  let s: TestServer;
  let admin: string;
  beforeAll(async () => {
    s = await startTestServer(engine);
    admin = await s.adminToken();
  });
  afterAll(() => s.close());

  it('answers every gateway endpoint, and sends every callback, with the keys its document lists', async () => {
    const receiver = await startReceiver();
    try {
      const m = await merchantOn(s, undefined, { payoutIpWhitelist: ['203.0.113.0/24'] });
      await seedPayoutBalance(s, m.id, 1_000_000);
      const seen = new Set<string>();
      /** A call's answer: its status as the endpoint declares it (or the replay's 200), its keys as documented. */
      const answered = async (
        ep: GatewayEndpoint,
        args: [method: 'GET' | 'POST', path: string, body?: unknown],
        status: number = ep.status,
      ) => {
        const res = await s.gateway(m, ...args);
        expect(res.status, `${ep.id}: ${JSON.stringify(res.json)}`).toBe(status);
        expect(res.json.errno).toBe(errno.ok);
        expect(undocumentedKeys(documentedAnswer(ep), res.json), ep.id).toEqual([]);
        expect(ep.output.safeParse(res.json.data).success, ep.id).toBe(true);
        seen.add(ep.id);
        return res.json.data as { orderNo: string };
      };
      const g = gatewayEndpoints;

      const payin = payinBody({ notifyUrl: receiver.url });
      const made = await answered(g.payinCreate, ['POST', '/gateway/v1/payin', payin]);
      await answered(g.payinCreate, ['POST', '/gateway/v1/payin', payin], 200);
      await answered(g.payinGet, ['GET', `/gateway/v1/payin/${made.orderNo}`]);
      const find = `/gateway/v1/payin?merchantOrderNo=${encodeURIComponent(payin.merchantOrderNo)}`;
      await answered(g.payinFind, ['GET', find]);
      const failing = await answered(g.payinCreate, [
        'POST',
        '/gateway/v1/payin',
        payinBody({ notifyUrl: receiver.url }),
      ]);
      await answered(g.payinCreate, ['POST', '/gateway/v1/payin', payinBody({ notifyUrl: receiver.url })]);

      const payout = payoutBody({ notifyUrl: receiver.url });
      const sent = await answered(g.payoutCreate, ['POST', '/gateway/v1/payout', payout]);
      await answered(g.payoutCreate, ['POST', '/gateway/v1/payout', payout], 200);
      const refused = await answered(g.payoutCreate, [
        'POST',
        '/gateway/v1/payout',
        payoutBody({ notifyUrl: receiver.url }),
      ]);
      await drainQueue(s);
      await answered(g.payoutGet, ['GET', `/gateway/v1/payout/${sent.orderNo}`]);
      await answered(g.payoutFind, ['GET', `/gateway/v1/payout?merchantOrderNo=${payout.merchantOrderNo}`]);

      // Every callback type of the orders: paid, failed, unpaid (expired), payout success and failure.
      expect((await simPay(s, admin, made.orderNo, 'success')).errno).toBe(errno.ok);
      expect((await simPay(s, admin, failing.orderNo, 'fail')).errno).toBe(errno.ok);
      s.clock.advance(31 * 60_000);
      expect(await expireDuePayins(s.deps)).toBeGreaterThan(0);
      admin = await s.adminToken();
      // Refunds of the paid order: one paid back (payin.refunded), one whose payout fails (refund.failed).
      await fund(s, m.id, 'collection', 1_000_000);
      const payee = { accountName: 'Asha Rao', accountNumber: '50100200300', ifsc: 'HDFC0001234' };
      const back = { orderNo: made.orderNo, refundNo: `RF-${made.orderNo}`, amount: '10.00', payee };
      const lost = { ...back, refundNo: `RF2-${made.orderNo}`, amount: '5.00' };
      await answered(g.refundCreate, ['POST', '/gateway/v1/refund', back]);
      await answered(g.refundCreate, ['POST', '/gateway/v1/refund', back], 200);
      await answered(g.refundCreate, ['POST', '/gateway/v1/refund', lost]);
      await answered(g.refundGet, ['GET', `/gateway/v1/refund/${back.refundNo}`]);
      await drainQueue(s);
      const payoutOfRefund = async (refundNo: string) => {
        const [r] = await s.db.select().from(refunds).where(eq(refunds.merchantRefundNo, refundNo));
        const [p] = await s.db.select().from(payoutOrders).where(eq(payoutOrders.id, r!.payoutId!));
        return { orderNo: p!.orderNo };
      };
      for (const [o, result] of [
        [sent, 'success'],
        [refused, 'fail'],
        [await payoutOfRefund(back.refundNo), 'success'],
        [await payoutOfRefund(lost.refundNo), 'fail'],
      ] as const) {
        const settled = await s.call(endpoints.simulator.payout, { orderNo: o.orderNo, result }, admin);
        expect(settled.errno, settled.errmsg).toBe(errno.ok);
      }
      // A dispute of the paid order, opened by a platform user: its dispute.updated callback.
      const opener = await s.makeKeyHolder(['*']);
      const [paidOrder] = await s.db.select().from(payinOrders).where(eq(payinOrders.orderNo, made.orderNo));
      const opened = await s.call(
        endpoints.dispute.open,
        {
          payinId: paidOrder!.id,
          kind: 'chargeback',
          amount: '1.00',
          deadline: new Date(s.clock.now().getTime() + 86_400_000).toISOString(),
          reason: 'NPCI chargeback',
          code: opener.code(),
        },
        opener.token,
      );
      expect(opened.errno, opened.errmsg).toBe(errno.ok);
      await answered(g.balance, ['GET', '/gateway/v1/balance']);
      // The balance's nested wallets are checked too: a key added to one of them shows.
      expect(
        undocumentedKeys(documentOf(g.balance.output), {
          currency: 'INR',
          collection: { available: '0.00', pending: '0.00', frozen: '0.00', held: '0.00' },
          payout: { available: '0.00', frozen: '0.00' },
        }),
      ).toEqual(['collection.held: answered, not documented']);
      expect([...seen].sort()).toEqual(allGatewayEndpoints.map((e) => e.id).sort());

      while ((await deliverDue(s.deps)) > 0) {}
      const bodies = receiver.received.map(
        (r) => JSON.parse(r.body) as { type: CallbackType; data: unknown },
      );
      expect(new Set(bodies.map((b) => b.type))).toEqual(
        new Set(callbackTypes.filter((t) => t !== 'settlement.updated')),
      );
      for (const body of bodies) {
        expect(Object.keys(body).sort(), body.type).toEqual(['data', 'type']);
        expect(undocumentedKeys(documentOf(callbackData[body.type]), body.data), body.type).toEqual([]);
        expect(callbackData[body.type].safeParse(body.data).success, body.type).toBe(true);
      }
    } finally {
      await receiver.close();
    }
  });
});
