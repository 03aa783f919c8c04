/** `GET /merchant/names`: merchants' names by their codes, for the platform's lists (issue 28). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantNamesBatch } from '../../../contract/endpoints/merchant.ts';
import { endpoints } from '../../../contract/index.ts';
import { engines, errno, startTestServer, type TestServer } from '../../test/harness.ts';

const { names } = endpoints.merchant;

describe.each(engines)('merchant names by code on %s', (engine) => {
  let s: TestServer;
  let reader: string;
  let a: Awaited<ReturnType<TestServer['makeMerchant']>>;
  let b: Awaited<ReturnType<TestServer['makeMerchant']>>;

  beforeAll(async () => {
    s = await startTestServer(engine);
    a = await s.makeMerchant({ name: 'Masala Mart' });
    b = await s.makeMerchant({ name: 'Chai Corner' });
    // A platform user holding this one permission and nothing else.
    reader = (await s.makeUser({ perms: [names.permission] })).token;
  });
  afterAll(() => s.close());

  const byCode = (list: { code: string; name: string }[]) =>
    Object.fromEntries(list.map((m) => [m.code, m.name]));

  it('answers the names of known codes and leaves unknown ones out', async () => {
    const res = await s.call(names, { codes: [a.code, 'NOPE404', b.code, a.code] }, reader);
    expect(res.errno, res.errmsg).toBe(0);
    expect(res.data.list).toHaveLength(2);
    expect(byCode(res.data.list)).toEqual({ [a.code]: 'Masala Mart', [b.code]: 'Chai Corner' });
  });

  it('takes a single code (one query key) as well as several', async () => {
    const one = await s.call(names, { codes: b.code }, reader);
    expect(one.errno, one.errmsg).toBe(0);
    expect(one.data.list).toEqual([{ code: b.code, name: 'Chai Corner' }]);
    const none = await s.call(names, { codes: 'NOPE404' }, reader);
    expect(none.data).toEqual({ list: [] });
  });

  it('refuses more than one batch of codes, none at all, or a code no merchant could have', async () => {
    const many = Array.from({ length: merchantNamesBatch + 1 }, (_, i) => `X${i}00`);
    expect((await s.call(names, { codes: many }, reader)).errno).toBe(errno.invalid);
    const full = await s.call(names, { codes: [...many.slice(2), a.code] }, reader);
    expect(full.errno, full.errmsg).toBe(0);
    expect(full.data.list).toEqual([{ code: a.code, name: 'Masala Mart' }]);
    expect((await s.call(names, {}, reader)).errno).toBe(errno.invalid);
    expect((await s.call(names, { codes: 'a b' }, reader)).errno).toBe(errno.invalid);
  });

  it('is for platform users: a merchant user is refused, its owner too', async () => {
    const merchantUser = await s.makeUser({ kind: 'merchant', merchantId: a.id, perms: ['*'] });
    expect((await s.call(names, { codes: [a.code] }, merchantUser.token)).errno).toBe(errno.forbidden);
    const owner = await s.login(a.ownerUsername, a.ownerPassword);
    expect((await s.call(names, { codes: [a.code, b.code] }, owner)).errno).toBe(errno.forbidden);
    // A platform user without the permission is refused too.
    const other = await s.makeUser({ perms: [endpoints.merchant.list.permission] });
    expect((await s.call(names, { codes: [a.code] }, other.token)).errno).toBe(errno.forbidden);
  });
});
