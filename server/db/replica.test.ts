/**
 * Read replica (issue 16, docs/DECISIONS.md "Read replica"): a real primary and hot standby of Debian's
 * PostgreSQL (`pg_basebackup`, streaming). With the standby's replay paused, the standby's answers are
 * the ones before a write, so which server answered is visible:
 * - reports and list totals of an operator who did not write come from the replica (the old figures);
 * - the operator who wrote reads the primary (its `rlsn` cookie is past the replica's replay) and sees it;
 * - pages themselves (the order list) always read the primary;
 * - once replay resumes the replica is used again and has the write; a replica that is down is skipped
 *   (the primary answers, no error), and sessions on it take no write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../contract/index.ts';
import { defaultBusinessTimeZone } from '../config.ts';
import { createOrder, type Merchant, merchantOn, simPay } from '../modules/payin/testkit.ts';
import { startTestServer, type TestServer } from '../test/harness.ts';
import { caughtUp, hasInstances, type Instance, startInstance, startStandby } from '../test/pgInstance.ts';

describe.runIf(hasInstances)('read replica on a real primary and hot standby', () => {
  let primary: Instance;
  let standby: Instance;
  let s: TestServer;
  let admin: string;
  let other: string;
  let m: Merchant;
  const start = new Date();
  const period = () => ({
    from: new Date(start.getTime() - 60_000).toISOString(),
    to: new Date(s.clock.now().getTime() + 60_000).toISOString(),
  });
  /** Today's business day (the reports' days are the business time zone's, not UTC's). */
  const day = () =>
    new Intl.DateTimeFormat('en-CA', { timeZone: defaultBusinessTimeZone }).format(s.clock.now());

  beforeAll(async () => {
    primary = await startInstance();
    standby = await startStandby(primary);
    s = await startTestServer('postgres', { database: { url: primary.url(), replicaUrl: standby.url() } });
    admin = await s.adminToken();
    other = (await s.makeUser({ perms: ['*'] })).token;
    m = await merchantOn(s);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await standby?.destroy();
    await primary?.destroy();
  });

  /** The `rlsn` cookie an answer set, as the next request sends it back. */
  const cookieOf = (headers: Headers) => {
    const set = headers.get('set-cookie') ?? '';
    const m = /rlsn=[0-9A-F]+\/[0-9A-F]+/i.exec(set);
    return m ? m[0] : undefined;
  };
  const paidTotals = (token: string, cookie?: string) =>
    s.call(
      endpoints.merchantOrder.totals,
      { ...period(), merchantId: m.id, status: ['paid'] },
      token,
      cookie ? { cookie } : {},
    );
  const report = (token: string, cookie?: string) =>
    s.call(
      endpoints.statOrder.list,
      { from: day(), to: day(), merchantId: m.id },
      token,
      cookie ? { cookie } : {},
    );

  it('serves reports and totals from the replica, and the writer its own write from the primary', async () => {
    const order = await createOrder(s, m);
    await caughtUp(primary, standby);
    const totalsBefore = (await paidTotals(other)).data;
    const reportBefore = (await report(other)).data.totals;
    expect(totalsBefore).toMatchObject({ count: 0 });

    await standby.query('select pg_wal_replay_pause()');
    // The admin pays the order through the console: a write, and its answer carries the write position.
    const paid = await s.request('POST', '/api/simulator/pay', {
      token: admin,
      body: { orderNo: order.orderNo, result: 'success' },
    });
    expect(paid.json.errno).toBe(0);
    const cookie = cookieOf(paid.headers);
    expect(cookie).toBeDefined();
    expect(paid.headers.get('set-cookie')).toMatch(/HttpOnly/);

    // Someone else reads the replica: the figures before the payment.
    expect((await paidTotals(other)).data).toEqual(totalsBefore);
    expect((await report(other)).data.totals).toEqual(reportBefore);
    // The writer (its cookie ahead of the replica's replay) reads the primary: the payment is there.
    expect((await paidTotals(admin, cookie)).data).toMatchObject({ count: 1 });
    expect((await report(admin, cookie)).data.totals).not.toEqual(reportBefore);
    // A page is never routed: the list shows the paid order to everyone at once.
    const page = await s.call(endpoints.merchantOrder.list, { ...period(), merchantId: m.id }, other);
    expect(page.data.list.map((r: { status: string }) => r.status)).toEqual(['paid']);

    await standby.query('select pg_wal_replay_resume()');
    await caughtUp(primary, standby);
    expect((await paidTotals(other)).data).toMatchObject({ count: 1 });
    expect((await report(other)).data.totals).toEqual((await report(admin, cookie)).data.totals);
    // Caught up, the writer's cookie no longer keeps it off the replica: the same answer either way.
    expect((await paidTotals(admin, cookie)).data).toEqual((await paidTotals(other)).data);
  }, 60_000);

  it('takes no write through the replica, and goes to the primary while the replica is down', async () => {
    const replica = s.deps.database.replica!;
    await expect(s.deps.database.raw(replica, 'create table nope (x int)', [])).rejects.toThrow(/read-only/);

    const second = await createOrder(s, m);
    await simPay(s, admin, second.orderNo, 'success');
    standby.stop();
    try {
      // Down: the routed read fails over to the primary (and the replica rests), the answer is current.
      expect((await paidTotals(other)).data).toMatchObject({ count: 2 });
      expect((await report(other)).errno).toBe(0);
    } finally {
      await standby.start();
    }
  }, 60_000);
});
