/**
 * The pay-ins routed to one receiving account (`receivingAccountId` on the pay-in list, its totals and its
 * export; a receiving account's `o`) on both databases: only that account's orders, each with its totals;
 * a merchant user's filter stays inside its own merchant; a bad id is refused with 422.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';
import { type BankSetup, bankPayin, bankSetup } from './testkit.ts';

const { merchantOrder } = endpoints;

describe.each(engines)('orders per receiving account on %s', (engine) => {
  let s: TestServer;
  let a: BankSetup;
  let b: BankSetup;
  let start: Date;

  beforeAll(async () => {
    s = await startTestServer(engine);
    start = s.clock.now();
    a = await bankSetup(s);
    b = await bankSetup(s);
  });
  afterAll(() => s.close());

  const period = () => ({
    from: new Date(start.getTime() - 60_000).toISOString(),
    to: new Date(s.clock.now().getTime() + 60_000).toISOString(),
  });

  it("lists only the account's pay-ins, with their totals and export", async () => {
    const onA = [
      (await bankPayin(s, a.merchant, { amount: '101.00' })).order,
      (await bankPayin(s, a.merchant, { amount: '102.00' })).order,
    ];
    const onB = (await bankPayin(s, b.merchant, { amount: '103.00' })).order;
    expect(onA.map((o) => o.receivingAccountId)).toEqual([a.accountId, a.accountId]);
    expect(onB.receivingAccountId).toBe(b.accountId);

    const list = await s.call(merchantOrder.list, { ...period(), receivingAccountId: a.accountId }, a.root);
    expect(list.errno, list.errmsg).toBe(0);
    expect(list.data.list.map((r: { orderNo: string }) => r.orderNo).sort()).toEqual(
      onA.map((o) => o.orderNo).sort(),
    );

    const totals = await s.call(
      merchantOrder.totals,
      { ...period(), receivingAccountId: b.accountId },
      a.root,
    );
    expect(totals.data).toMatchObject({ count: 1, amount: '103.00' });

    const query = new URLSearchParams({
      ...period(),
      receivingAccountId: String(b.accountId),
      format: 'csv',
    });
    const file = await s.request('GET', `/api/merchantOrder/export?${query}`, { token: a.root });
    expect(file.status).toBe(200);
    const text = file.text;
    expect(text).toContain(onB.orderNo);
    expect(text).not.toContain(onA[0]!.orderNo);
  });

  it("a merchant user's filter stays inside its merchant; a bad id is refused", async () => {
    const mine = (await bankPayin(s, a.merchant, { amount: '104.00' })).order;
    const user = await s.makeUser({
      kind: 'merchant',
      merchantId: b.merchant.id,
      perms: [merchantOrder.list.permission],
    });
    const theirs = await s.call(
      merchantOrder.list,
      { ...period(), receivingAccountId: a.accountId },
      user.token,
    );
    expect(theirs.errno, theirs.errmsg).toBe(0);
    expect(theirs.data.list.map((r: { orderNo: string }) => r.orderNo)).not.toContain(mine.orderNo);
    expect(theirs.data.list).toEqual([]);

    const bad = await s.call(merchantOrder.list, { ...period(), receivingAccountId: 'x' }, a.root);
    expect(bad.errno).toBe(errno.invalid);
  });
});
