/**
 * The simulator settles pay-ins and payouts without any bank: it is a real money path. It exists and
 * routes only with SIMULATOR on (the demo's default), and its controls need permissions of their own.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { channels, merchantChannels, roles } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { runSimulatorAuto } from '../payin/simulator.ts';
import { createOrder, orderById } from '../payin/testkit.ts';
import { autoSettleSimulatorPayouts } from '../payout/jobs.ts';
import {
  drainQueue,
  expectBooksBalanced,
  orderByNo,
  payoutBody,
  seedPayoutBalance,
} from '../payout/testkit.ts';
import { builtinRoles } from '../role/builtin.ts';

const { simulator, merchant } = endpoints;
const payoutIp = '203.0.113.7';

describe.each(engines)('the simulator switch on %s', (engine) => {
  it('with SIMULATOR off, the first start makes no simulator channel', async () => {
    const off = await startTestServer(engine, { config: { simulator: false } });
    try {
      expect(await off.db.select().from(channels).where(eq(channels.adapter, 'simulator'))).toEqual([]);
      // A merchant made then routes through nothing.
      const m = await off.makeMerchant();
      expect(
        await off.db.select().from(merchantChannels).where(eq(merchantChannels.merchantId, m.id)),
      ).toEqual([]);
      // Nor can one be made in the console: it would carry nothing.
      const made = await off.call(
        endpoints.channel.create,
        { code: 'sim_again', name: 'Simulator', adapter: 'simulator' },
        await off.adminToken(),
      );
      expect(made.errno).toBe(errno.invalid);
      expect(made.data.fields[0]).toMatchObject({
        path: 'adapter',
        message: expect.stringMatching(/SIMULATOR/),
      });
      expect(await off.db.select().from(channels)).toEqual([]);
    } finally {
      await off.close();
    }
  });

  describe('turned off after the simulator carried orders', () => {
    let s: TestServer;
    let root: string;
    beforeAll(async () => {
      s = await startTestServer(engine);
      root = await s.adminToken();
    });
    afterAll(() => s.close());

    it('routes nothing through it, settles nothing at it, and its controls answer 404', async () => {
      const m = await s.makeMerchant({ payoutIpWhitelist: [payoutIp] });
      await seedPayoutBalance(s, m.id, 1_000_000);
      const payin = await createOrder(s, m);
      // Paid at the simulator with its callback lost: only a UTR check would find the payment.
      const lost = await createOrder(s, m);
      const lostPay = await s.call(
        simulator.pay,
        { orderNo: lost.orderNo, result: 'success', notify: false },
        root,
      );
      expect(lostPay.errno, lostPay.errmsg).toBe(0);
      const sent = await s.gateway(m, 'POST', '/gateway/v1/payout', payoutBody(), { ip: payoutIp });
      expect(sent.status, JSON.stringify(sent.json)).toBe(201);
      await drainQueue(s);
      expect((await orderByNo(s, sent.json.data.orderNo)).status).toBe('processing');
      // Automatic mode on, so the jobs would settle both if they still ran.
      await s.db
        .update(channels)
        .set({ settings: { auto: true, successRate: 100, delayMs: 0 } })
        .where(eq(channels.code, 'simulator'));

      s.deps.config.simulator = false;

      // Pay-in routing: the merchant's only route is the simulator, so no channel takes the order.
      const refused = await s.gateway(m, 'POST', '/gateway/v1/payin', {
        merchantOrderNo: `MO-off-${Date.now()}`,
        amount: '100.00',
        notifyUrl: 'http://127.0.0.1:9/hook',
      });
      expect(refused.json.errno, JSON.stringify(refused.json)).toBe(errno.noChannel);
      // Payout candidates: a new payout finds no channel and fails at creation, its hold released.
      const late = await s.gateway(m, 'POST', '/gateway/v1/payout', payoutBody(), { ip: payoutIp });
      expect(late.status, JSON.stringify(late.json)).toBe(201);
      await drainQueue(s);
      expect((await orderByNo(s, late.json.data.orderNo)).status).toBe('creation_failed');

      // A UTR check no longer asks the simulator's books, by order, by merchant or across channels.
      const owner = await s.login(m.ownerUsername, m.ownerPassword);
      for (const [input, token] of [
        [{ utr: lostPay.data.utr, id: lost.id }, root],
        [{ utr: lostPay.data.utr }, owner],
        [{ utr: lostPay.data.utr }, root],
      ] as const) {
        const checked = await s.call(endpoints.merchantOrder.utrCheck, input, token);
        expect(checked.errno, checked.errmsg).toBe(0);
        expect(checked.data.found, JSON.stringify(input)).toBe(false);
      }
      // Nor does a supplement credit the order on the simulator's word.
      const supplement = await s.call(
        endpoints.merchantOrder.supplement,
        { id: lost.id, utr: lostPay.data.utr },
        root,
      );
      expect(supplement.errno, supplement.errmsg).toBe(errno.utrNotFound);

      // The controls and the automatic modes leave the simulator's orders alone.
      expect((await s.call(simulator.pay, { orderNo: payin.orderNo, result: 'success' }, root)).errno).toBe(
        errno.notFound,
      );
      expect(
        (await s.call(simulator.payout, { orderNo: sent.json.data.orderNo, result: 'success' }, root)).errno,
      ).toBe(errno.notFound);
      s.clock.advance(60_000);
      expect(await runSimulatorAuto(s.deps)).toBe(0);
      expect(await autoSettleSimulatorPayouts(s.deps)).toBe(0);
      expect((await orderById(s, payin.id)).status).toBe('pending');
      expect((await orderByNo(s, sent.json.data.orderNo)).status).toBe('processing');
      await expectBooksBalanced(s);

      // On again, it carries orders as before.
      s.deps.config.simulator = true;
      expect((await s.call(simulator.pay, { orderNo: payin.orderNo, result: 'success' }, root)).errno).toBe(
        0,
      );
      await expectBooksBalanced(s);
    });
  });

  describe('with the simulator on', () => {
    let s: TestServer;
    let root: string;
    beforeAll(async () => {
      s = await startTestServer(engine);
      root = await s.adminToken();
    });
    afterAll(() => s.close());

    it('a merchant created without channels routes through none', async () => {
      const made = await s.call(
        merchant.create,
        { name: 'No Routes', owner: { username: `noroutes_${Date.now()}`, password: 'Owner1234' } },
        root,
      );
      expect(made.errno, made.errmsg).toBe(0);
      expect((await s.call(merchant.info, { id: made.data.id }, root)).data.channels).toEqual([]);
      expect(
        await s.db.select().from(merchantChannels).where(eq(merchantChannels.merchantId, made.data.id)),
      ).toEqual([]);
    });

    it('simulator controls need their own permissions, held by no built-in role but super admin', async () => {
      const m = await s.makeMerchant({ payoutIpWhitelist: [payoutIp] });
      const payin = await createOrder(s, m);
      const builtin = async (key: string) => {
        const [role] = await s.db
          .select()
          .from(roles)
          .where(and(eq(roles.kind, 'platform'), isNull(roles.merchantId), eq(roles.builtinKey, key)));
        return s.makeUser({ perms: role!.perms });
      };
      for (const key of ['auditor', 'finance', 'operator']) {
        const user = await builtin(key);
        expect(
          (await s.call(simulator.pay, { orderNo: payin.orderNo, result: 'success' }, user.token)).errno,
          key,
        ).toBe(errno.forbidden);
        expect(
          (await s.call(simulator.payout, { orderNo: payin.orderNo, result: 'success' }, user.token)).errno,
          key,
        ).toBe(errno.forbidden);
      }
      for (const kind of ['platform', 'merchant'] as const)
        for (const role of builtinRoles[kind]) {
          const perms = role.perms();
          if (perms.includes('*')) continue;
          expect(perms, `${kind} ${role.key}`).not.toContain(simulator.pay.permission);
          expect(perms, `${kind} ${role.key}`).not.toContain(simulator.payout.permission);
        }
      // Granted on purpose, the permission works.
      const tester = await s.makeUser({ perms: [simulator.pay.permission] });
      const paid = await s.call(simulator.pay, { orderNo: payin.orderNo, result: 'success' }, tester.token);
      expect(paid.errno, paid.errmsg).toBe(0);
      expect(paid.data.status).toBe('paid');
    });
  });
});
