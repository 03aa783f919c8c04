import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page, request } from '@playwright/test';
import * as OTPAuth from 'otpauth';
import { errno } from '../contract/errno.ts';
import { Api, adminPassword, baseURL } from './support.ts';

/** Where scripts/e2e-server.mjs writes what the demo printed at its first start (same name there). */
export function e2eStateFile(port = new URL(baseURL).port): string {
  return join(tmpdir(), `paygate-e2e-${port}.json`);
}

export interface LostCallback {
  orderNo: string;
  merchantOrderNo: string;
  utr: string;
  amount: string;
}

export interface PayinInfo {
  id: number;
  orderNo: string;
  merchantOrderNo: string;
  merchantCode: string;
  status: string;
  amount: string;
  utr: string | null;
}

/** Signs in the API client as the built-in platform admin. */
export async function adminApi(): Promise<Api> {
  const api = await Api.create();
  await api.signIn('admin', adminPassword);
  return api;
}

/**
 * A demo pay-in whose payment reached the simulator but whose callback was lost: first the ones the
 * demo printed at its first start; when those are used up (a reused server), the simulator pays a
 * waiting demo order and loses its callback the same way.
 */
export async function lostCallback(api: Api, taken: Set<string>): Promise<LostCallback> {
  const file = e2eStateFile();
  const printed: { orderNo: string; utr: string }[] = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { lost: { orderNo: string; utr: string }[] }).lost
    : [];
  for (const l of printed) {
    if (taken.has(l.orderNo)) continue;
    const o = await api.ok<PayinInfo>('GET', '/merchantOrder/info', { orderNo: l.orderNo });
    if (o.merchantCode !== 'M10001' || !['pending', 'unpaid', 'failed'].includes(o.status)) continue;
    taken.add(o.orderNo);
    return { orderNo: o.orderNo, merchantOrderNo: o.merchantOrderNo, utr: l.utr, amount: o.amount };
  }
  const o = await waitingPayin(api, taken);
  const paid = await api.ok<{ utr: string }>('POST', '/simulator/pay', {
    orderNo: o.orderNo,
    result: 'success',
    notify: false,
  });
  return { orderNo: o.orderNo, merchantOrderNo: o.merchantOrderNo, utr: paid.utr, amount: o.amount };
}

/**
 * A waiting (pending) demo pay-in of M10001 no spec has used yet, marked as used; when none is left
 * (they expire after half an hour) the demo merchant makes a new one from its console.
 */
export async function waitingPayin(api: Api, taken: Set<string>): Promise<PayinInfo> {
  const merchant = await merchantByCode(api, 'M10001');
  const waiting = await api.ok<{ list: PayinInfo[] }>('GET', '/merchantOrder/list', {
    ...lastDays(7),
    merchantId: String(merchant.id),
    status: 'pending',
    pageSize: '50',
  });
  const o = waiting.list.find((x) => !taken.has(x.orderNo)) ?? (await newPayin());
  taken.add(o.orderNo);
  return o;
}

/**
 * A new pay-in of M10001, made by the demo merchant from its console: waiting, and known to no channel yet
 * (a waiting demo order may already be paid at the simulator with its callback lost, by another spec).
 */
export async function newPayin(amount = '777.00'): Promise<PayinInfo> {
  let made: PayinInfo | undefined;
  await callAs('demo', 'Demo12345', async (call) => {
    made = await call<PayinInfo>('POST', '/merchantOrder/create', { amount });
  });
  return made!;
}

export async function merchantByCode(api: Api, code: string): Promise<{ id: number; code: string }> {
  const page = await api.ok<{ list: { id: number; code: string }[] }>('GET', '/merchant/list', { q: code });
  const m = page.list.find((x) => x.code === code);
  if (!m) throw new Error(`no merchant ${code}`);
  return m;
}

/** The last `days` days, as the lists take them. */
export function lastDays(days: number): { from: string; to: string } {
  const now = Date.now();
  return {
    from: new Date(now - (days - 1) * 86_400_000 - 3_600_000).toISOString(),
    to: new Date(now + 3_600_000).toISOString(),
  };
}

const stepMs = 30_000;
/** How long a code must stay acceptable after it is made: typing it and the server's check can take this long on a loaded machine. */
const marginMs = 15_000;
const usedSteps = new Map<string, number>();

/**
 * A Google code the server will take now: it accepts a code of the current time step ±1, and each
 * user's codes only for a later step than the last one used (no replay). So successive codes of one
 * user walk forward a step at a time, waiting for the clock when they run ahead of it. A step is taken
 * only while its code stays acceptable for `marginMs` more (a code of the last step made near the end
 * of this one expired before a loaded server checked it). `spend: false` for a preview (the transfer's),
 * which checks a code without using it up: the next code may be the same.
 */
export async function nextCode(secret: string, spend = true): Promise<string> {
  for (;;) {
    const now = Date.now();
    const current = Math.floor(now / stepMs);
    let step = Math.max(current - 1, (usedSteps.get(secret) ?? Number.NEGATIVE_INFINITY) + 1);
    // The code of `step` is accepted until step + 2 begins.
    while ((step + 2) * stepMs - now < marginMs) step += 1;
    if (step <= current + 1) {
      if (spend) usedSteps.set(secret, step);
      return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate({
        timestamp: step * stepMs,
      });
    }
    await new Promise((r) => setTimeout(r, (step - 1) * stepMs - now + 500));
  }
}

export interface Operator {
  username: string;
  password: string;
  secret: string;
}

/**
 * Calls the API as `username`, signed in with the one-step `/auth/login` (the demo owner has an e-mail
 * address, so the two-step flow would ask for an e-mailed code; without a Google key this one does not).
 */
async function callAs(
  username: string,
  password: string,
  calls: (call: Call) => Promise<void>,
): Promise<void> {
  const http = await request.newContext({ baseURL, extraHTTPHeaders: { 'Accept-Language': 'en' } });
  try {
    const login = await (await http.post('/api/auth/login', { data: { username, password } })).json();
    expect(login.errno, `sign-in of ${username}: ${login.errmsg}`).toBe(0);
    const headers = { 'admin-token': login.data.token as string };
    await calls(async (method, path, body = {}) => {
      const answer =
        method === 'GET'
          ? await http.get(`/api${path}`, { params: body as Record<string, string>, headers })
          : await http.post(`/api${path}`, { data: body, headers });
      const json = await answer.json();
      expect(json.errno, `${method} ${path}: ${json.errmsg}`).toBe(0);
      return json.data;
    });
  } finally {
    await http.dispose();
  }
}

type Call = <T>(method: 'GET' | 'POST', path: string, body?: Record<string, unknown>) => Promise<T>;

/**
 * Creates, through `call` (its creator's session), a user holding the first role the creator sees whose
 * permissions `fits` picks (by default the all-permissions role), with a bound Google key.
 */
async function operatorOf(
  call: Call,
  prefix: string,
  fits: (perms: string[]) => boolean = (perms) => perms.includes('*'),
): Promise<Operator> {
  const user = { username: `${prefix}_${Date.now().toString(36)}`, password: 'E2ePassw0rd!' };
  const roles = await call<{ list: { id: number; perms: string[] }[] }>('GET', '/role/list', {
    pageSize: '100',
  });
  const role = roles.list.find((r) => fits(r.perms));
  if (!role) throw new Error(`the creator sees no role for ${prefix}`);
  await call('POST', '/admin/create', { ...user, nickname: prefix, roleIds: [role.id] });
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

/** A platform operator with every permission and a bound Google key, created by the admin. */
export const platformOperator = (admin: Api) => operatorOf((m, p, b) => admin.ok(m, p, b), 'e2e_ops');

/**
 * Makes sure the merchant's payout balance holds `rupees` (the demo's balance depends on the hour it was
 * seeded: payouts drain it by day, the D0 transfer fills it in the evening). Short, a finance user credits
 * the difference through the door an operator would use, a balance adjustment with a Google code and a
 * reason; above the daily threshold a second person approves it.
 */
export async function ensurePayoutRoom(admin: Api, merchantId: number, rupees: number): Promise<void> {
  const wallet = await admin.ok<{ payout: { available: string } }>('POST', '/merchantWallet/info', {
    merchantId,
  });
  const short = Math.ceil(rupees - Number(wallet.payout.available));
  if (short <= 0) return;
  const maker = await platformOperator(admin);
  const made = await asOperator(maker, async (api) =>
    api.call<{ approvalId?: number }>('POST', '/balanceAdjustment/create', {
      merchantId,
      wallet: 'payout_available',
      direction: 'credit',
      amount: `${short}.00`,
      reason: 'e2e: room for the payout under test',
      code: await nextCode(maker.secret),
    }),
  );
  if (made.errno === 0) return;
  expect(made.errno, `balance adjustment: ${made.errmsg}`).toBe(errno.approvalRequested);
  const checker = await platformOperator(admin);
  await asOperator(checker, async (api) =>
    api.ok('POST', '/approval/approve', { id: made.data.approvalId, code: await nextCode(checker.secret) }),
  );
}

/** Runs `calls` signed in as `user` (password and Google code). */
async function asOperator<T>(user: Operator, calls: (api: Api) => Promise<T>): Promise<T> {
  const api = await Api.create();
  try {
    await api.signInWithCode(user.username, user.password, await nextCode(user.secret));
    return await calls(api);
  } finally {
    await api.dispose();
  }
}

/** A platform user holding the built-in role (not `*`) whose permissions `fits` picks, with a bound Google key. */
export const roleUser = (admin: Api, prefix: string, fits: (perms: string[]) => boolean) =>
  operatorOf(
    (m, p, b) => admin.ok(m, p, b),
    prefix,
    (perms) => !perms.includes('*') && fits(perms),
  );

/**
 * A user of the demo merchant M10001 with the owner's role and a bound Google key (payouts need the
 * code), created by the demo owner, so the demo's own sign-in stays as the README prints it.
 */
export async function demoMerchantOperator(): Promise<Operator> {
  let made: Operator | undefined;
  await callAs('demo', 'Demo12345', async (call) => {
    made = await operatorOf(call, 'e2e_m');
  });
  return made!;
}

/** Signs in through the form: password, then the Google code the server asks for. */
export async function signIn(page: Page, user: Operator): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const code = page.getByLabel('Google code');
  await expect(code).toBeFocused();
  await code.fill(await nextCode(user.secret));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}
