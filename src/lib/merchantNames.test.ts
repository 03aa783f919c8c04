/**
 * The console's merchant names (src/lib/merchantNames.ts) against the real server: the codes asked for
 * in one moment go out together, a hundred at most per request, each code once for the page's life, and
 * a user without the permission never asks. Only the transport is swapped: the console's own `api()`
 * calls the test server's app in-process instead of over the network.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { endpoints } from '../../contract/index.ts';
import { startTestServer, type TestServer } from '../../server/test/harness.ts';
import { $merchantNames, askMerchantName } from './merchantNames.ts';
import { $user, type UserInfo } from './session.ts';

describe('merchant names in the console', () => {
  let s: TestServer;
  let a: Awaited<ReturnType<TestServer['makeMerchant']>>;
  let b: Awaited<ReturnType<TestServer['makeMerchant']>>;
  /** The paths the console asked, in order. */
  const asked: URL[] = [];

  const signIn = async (token: string) => {
    vi.stubGlobal('document', { cookie: `Admin-Token=${token}`, documentElement: {} });
    const info = await s.call(endpoints.auth.info, {}, token);
    $user.set(info.data as UserInfo);
  };
  /** Longer than a gathering: what was asked for has been sent by then. */
  const settled = () => new Promise((resolve) => setTimeout(resolve, 50));

  beforeAll(async () => {
    s = await startTestServer('pglite');
    a = await s.makeMerchant({ name: 'Masala Mart' });
    b = await s.makeMerchant({ name: 'Chai Corner' });
    vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input instanceof Request ? input.url : input), 'http://localhost');
      asked.push(url);
      return s.app.request(url.href, init);
    });
  });
  afterAll(async () => {
    $user.set(null);
    vi.unstubAllGlobals();
    await s.close();
  });

  it('asks for the codes of one moment together, a hundred at a time, each once', async () => {
    await signIn((await s.makeUser({ perms: [endpoints.merchant.names.permission] })).token);
    const unknown = Array.from({ length: 148 }, (_, i) => `Z${i}X`);
    for (const code of [a.code, ...unknown, b.code, a.code]) askMerchantName(code);
    expect(asked).toHaveLength(0);
    // Masala Mart's code went in the first batch, Chai Corner's in the second.
    await vi.waitFor(() => expect(Object.keys($merchantNames.get())).toHaveLength(2));
    expect(asked.map((u) => u.pathname)).toEqual(['/api/merchant/names', '/api/merchant/names']);
    expect(asked.map((u) => u.searchParams.getAll('codes').length)).toEqual([100, 50]);
    expect($merchantNames.get()).toEqual({ [a.code]: 'Masala Mart', [b.code]: 'Chai Corner' });

    // Known and unknown alike are not asked again; a code no merchant could have is never sent.
    for (const code of [a.code, b.code, unknown[7]!, 'not a code']) askMerchantName(code);
    await settled();
    expect(asked).toHaveLength(2);
  });

  it('starts afresh for another user, and asks nothing for one without the permission', async () => {
    const owner = await s.login(a.ownerUsername, a.ownerPassword);
    await signIn(owner);
    expect($merchantNames.get()).toEqual({});
    askMerchantName(a.code);
    await settled();
    expect(asked).toHaveLength(2);
    expect($merchantNames.get()).toEqual({});
  });
});
