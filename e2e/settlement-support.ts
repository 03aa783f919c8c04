import { expect, request } from '@playwright/test';
import { nextCode, type Operator } from './orders-support.ts';
import { Api, baseURL } from './support.ts';

/**
 * A platform user of the built-in finance role (it decides settlements) with a bound Google key,
 * created by the admin: the settlement specs need two, since who confirms may not complete.
 */
export async function financeUser(admin: Api, prefix: string): Promise<Operator> {
  const roles = await admin.ok<{ list: { id: number; perms: string[] }[] }>('GET', '/role/list', {
    pageSize: '100',
  });
  const finance = roles.list.find(
    (r) => r.perms.includes('POST /settlementPayment/complete') && !r.perms.includes('*'),
  );
  if (!finance) throw new Error('no built-in platform role completes settlements');
  const user = { username: `${prefix}_${Date.now().toString(36)}`, password: 'E2ePassw0rd!' };
  await admin.ok('POST', '/admin/create', { ...user, nickname: prefix, roleIds: [finance.id] });
  const own = await Api.create();
  await own.signIn(user.username, user.password);
  const info = await own.ok<{ secret: string }>('GET', '/auth/google/bindInfo');
  await own.ok('POST', '/v1/auth/google/bind', {
    secret: info.secret,
    code: await nextCode(info.secret),
    password: user.password,
  });
  await own.dispose();
  return { ...user, secret: info.secret };
}

/** A signed-in API client: `ok` answers the data of a call that must succeed. */
export interface Client {
  ok<T>(method: 'GET' | 'POST', path: string, body?: Record<string, unknown>): Promise<T>;
  dispose(): Promise<void>;
}

/** Signs in with the one-step `/auth/login` (with the Google code when the user has a key). */
async function clientOf(username: string, password: string, code?: string): Promise<Client> {
  const http = await request.newContext({ baseURL, extraHTTPHeaders: { 'Accept-Language': 'en' } });
  const login = await (
    await http.post('/api/auth/login', { data: { username, password, ...(code ? { code } : {}) } })
  ).json();
  expect(login.errno, `sign-in of ${username}: ${login.errmsg}`).toBe(0);
  const headers = { 'admin-token': login.data.token as string };
  return {
    async ok<T>(method: 'GET' | 'POST', path: string, body: Record<string, unknown> = {}): Promise<T> {
      const answer =
        method === 'GET'
          ? await http.get(`/api${path}`, { params: body as Record<string, string>, headers })
          : await http.post(`/api${path}`, { data: body, headers });
      const json = await answer.json();
      expect(json.errno, `${method} ${path}: ${json.errmsg}`).toBe(0);
      return json.data as T;
    },
    dispose: () => http.dispose(),
  };
}

/** The demo merchant's owner (an e-mail address and no Google key), for reading M10001's balances. */
export const demoOwner = () => clientOf('demo', 'Demo12345');

/** `user` signed in with its next Google code, for setting up what a spec needs through the API. */
export const clientAs = async (user: Operator) =>
  clientOf(user.username, user.password, await nextCode(user.secret));
