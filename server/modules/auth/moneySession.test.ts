import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { operationLog, parameters, recharges } from '../../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';

const { auth, merchantRechargeLog: recharge, balanceAdjustment } = endpoints;

/**
 * The money session (docs/SECURITY.md): one Google code lets this signed-in session send `session` for
 * the code of queue doors for `money_session_minutes`; not another session, not a door that creates money,
 * not after its end.
 */
describe.each(engines)('money session on %s', (engine) => {
  let s: TestServer;
  let holder: Awaited<ReturnType<TestServer['makeKeyHolder']>>;
  let owner: string;
  let refs = 0;

  beforeAll(async () => {
    s = await startTestServer(engine);
    holder = await s.makeKeyHolder([
      recharge.confirm.permission,
      recharge.reject.permission,
      balanceAdjustment.create.permission,
    ]);
    const m = await s.makeMerchant();
    owner = await s.login(m.ownerUsername, m.ownerPassword);
  });
  afterAll(() => s.close());

  const pending = async () => {
    const res = await s.call(recharge.create, { amount: '100.00', reference: `MS-${++refs}` }, owner);
    expect(res.errno, res.errmsg).toBe(0);
    return res.data.id as number;
  };
  const statusOf = async (id: number) =>
    (await s.db.select({ status: recharges.status }).from(recharges).where(eq(recharges.id, id)))[0]!.status;
  const bySession = (id: number, token = holder.token) =>
    s.call(recharge.confirm, { id, code: 'session', reason: 'on the statement' }, token);

  it('is closed until opened: `session` is refused with 1022 and changes nothing', async () => {
    const id = await pending();
    expect((await bySession(id)).errno).toBe(errno.moneySessionClosed);
    expect(await statusOf(id)).toBe('pending');
    const info = await s.call(auth.info, {}, holder.token);
    expect(info.data.moneyUntil).toBeNull();
  });

  it('opens with a good code only: a wrong one is 1003, as anywhere', async () => {
    expect((await s.call(auth.moneySessionOpen, { code: '000000' }, holder.token)).errno).toBe(errno.badCode);
    const opened = await s.call(auth.moneySessionOpen, { code: holder.code() }, holder.token);
    expect(opened.errno, opened.errmsg).toBe(0);
    // The default: five minutes from now.
    expect(Date.parse(opened.data.until) - s.clock.now().getTime()).toBe(5 * 60_000);
    expect((await s.call(auth.info, {}, holder.token)).data.moneyUntil).toBe(opened.data.until);
  });

  it('then a queue door takes `session` for its code, and the log says so', async () => {
    const id = await pending();
    const res = await bySession(id);
    expect(res.errno, res.errmsg).toBe(0);
    expect(await statusOf(id)).toBe('confirmed');
    const [logged] = await s.db
      .select()
      .from(operationLog)
      .where(and(eq(operationLog.action, 'merchantRechargeLog.confirm'), eq(operationLog.outcome, 'ok')))
      .orderBy(desc(operationLog.id))
      .limit(1);
    expect(logged?.detail).toMatchObject({ codeFrom: 'moneySession' });
    // A second decision in the same session: no new code either.
    const other = await pending();
    expect(
      (
        await s.call(
          recharge.reject,
          { id: other, code: 'session', reason: 'not on the statement' },
          holder.token,
        )
      ).errno,
    ).toBe(0);
    expect(await statusOf(other)).toBe('rejected');
  });

  it('is this session’s alone: the same user signed in elsewhere is refused', async () => {
    const elsewhere = await s.login(holder.username, holder.password, holder.code());
    const id = await pending();
    expect((await bySession(id, elsewhere)).errno).toBe(errno.moneySessionClosed);
    expect(await statusOf(id)).toBe('pending');
  });

  it('never stands in at a door that creates money: 422 there, nothing written', async () => {
    const before = await s.db.select().from(operationLog);
    const res = await s.call(
      balanceAdjustment.create,
      {
        merchantId: 1,
        wallet: 'payout_available',
        direction: 'credit',
        amount: '1.00',
        reason: 'x',
        code: 'session',
      },
      holder.token,
    );
    expect(res.errno).toBe(errno.invalid);
    expect(res.data.fields.map((f: { path: string }) => f.path)).toEqual(['code']);
    const after = await s.db.select().from(operationLog);
    expect(after.filter((r) => r.action === 'balanceAdjustment.create' && r.outcome === 'ok')).toEqual(
      before.filter((r) => r.action === 'balanceAdjustment.create' && r.outcome === 'ok'),
    );
  });

  it('ends at its time, and when ended by hand', async () => {
    const id = await pending();
    s.clock.advance(5 * 60_000);
    expect((await bySession(id)).errno).toBe(errno.moneySessionClosed);
    expect(await statusOf(id)).toBe('pending');
    expect((await s.call(auth.moneySessionOpen, { code: holder.code() }, holder.token)).errno).toBe(0);
    expect((await s.call(auth.moneySessionEnd, {}, holder.token)).errno).toBe(0);
    expect((await bySession(id)).errno).toBe(errno.moneySessionClosed);
    expect(await statusOf(id)).toBe('pending');
  });

  it('lasts what the parameter says', async () => {
    await s.db
      .insert(parameters)
      .values({ key: 'money_session_minutes', value: 2 })
      .onConflictDoUpdate({ target: parameters.key, set: { value: 2 } });
    const opened = await s.call(auth.moneySessionOpen, { code: holder.code() }, holder.token);
    expect(Date.parse(opened.data.until) - s.clock.now().getTime()).toBe(2 * 60_000);
    await s.db.delete(parameters).where(eq(parameters.key, 'money_session_minutes'));
  });

  it('needs a bound key to open', async () => {
    const bare = await s.makeUser({ perms: [recharge.confirm.permission] });
    expect((await s.call(auth.moneySessionOpen, { code: '123456' }, bare.token)).errno).toBe(
      errno.googleNotBound,
    );
  });
});
