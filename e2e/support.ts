import { createHmac, randomBytes } from 'node:crypto';
import { type APIRequestContext, expect, type Locator, type Page, request } from '@playwright/test';
import * as OTPAuth from 'otpauth';
import { type Errno, httpStatus } from '../contract/errno.ts';
import { canonicalString } from '../contract/gateway.ts';

export const baseURL = process.env.E2E_BASE_URL ?? 'http://127.0.0.1:8181';
export const adminPassword = process.env.E2E_ADMIN_PASSWORD ?? 'Admin12345!';

interface Envelope<T> {
  errno: number;
  errmsg: string;
  data: T;
}

/** A small client of the admin API for setting up what the specs need. */
export class Api {
  private constructor(
    private readonly http: APIRequestContext,
    private token = '',
  ) {}

  static async create(): Promise<Api> {
    return new Api(await request.newContext({ baseURL, extraHTTPHeaders: { 'Accept-Language': 'en' } }));
  }

  async call<T>(
    method: 'GET' | 'POST',
    path: string,
    body: Record<string, unknown> = {},
  ): Promise<Envelope<T>> {
    const headers = this.token ? { 'admin-token': this.token } : undefined;
    const answer =
      method === 'GET'
        ? await this.http.get(`/api${path}`, { params: body as Record<string, string>, headers })
        : await this.http.post(`/api${path}`, { data: body, headers });
    // A refusal is the envelope too, with the HTTP status beside its errno (401, 403, 422, …).
    const envelope = (await answer.json()) as Envelope<T>;
    expect(
      answer.status(),
      `${method} ${path} answered HTTP ${answer.status()} for errno ${envelope.errno}`,
    ).toBe(httpStatus[envelope.errno as Errno]);
    return envelope;
  }

  async ok<T>(method: 'GET' | 'POST', path: string, body: Record<string, unknown> = {}): Promise<T> {
    const answer = await this.call<T>(method, path, body);
    expect(answer.errno, `${method} ${path}: ${answer.errmsg}`).toBe(0);
    return answer.data;
  }

  /** Signs in with the password alone (users without a Google key). */
  async signIn(username: string, password: string): Promise<void> {
    const data = await this.ok<{ token: string }>('POST', '/v1/auth/login/password', { username, password });
    this.token = data.token;
  }

  /** Signs in with the password and a Google code (users with a key: money actions need one). */
  async signInWithCode(username: string, password: string, code: string): Promise<void> {
    const data = await this.ok<{ token: string }>('POST', '/auth/login', { username, password, code });
    this.token = data.token;
  }

  async dispose(): Promise<void> {
    await this.http.dispose();
  }
}

/** The TOTP code of `secret` for the time step `steps` away from now (the server accepts ±1 step). */
export function totp(secret: string, steps = 0): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate({
    timestamp: Date.now() + steps * 30_000,
  });
}

export interface Fixture {
  operator: { username: string; password: string; secret: string };
  reader: { username: string; password: string };
}

/**
 * Creates, as the built-in admin: an operator with every permission and a bound Google key, and a
 * reader whose role holds only the operation log.
 */
export async function createFixture(): Promise<Fixture> {
  const api = await Api.create();
  await api.signIn('admin', adminPassword);
  const stamp = Date.now().toString(36);
  const roles = await api.ok<{ list: { id: number; perms: string[] }[] }>('GET', '/role/list', {
    pageSize: '100',
  });
  const superRole = roles.list.find((r) => r.perms.includes('*'));
  if (!superRole) throw new Error('no role with * among the seeded roles');
  const readerRole = await api.ok<{ id: number }>('POST', '/role/create', {
    name: `e2e log reader ${stamp}`,
    description: 'e2e',
    perms: ['GET /log/list'],
  });
  const operator = { username: `e2e_ops_${stamp}`, password: 'E2ePassw0rd!' };
  const reader = { username: `e2e_reader_${stamp}`, password: 'E2ePassw0rd!' };
  await api.ok('POST', '/admin/create', { ...operator, nickname: 'E2E Operator', roleIds: [superRole.id] });
  await api.ok('POST', '/admin/create', { ...reader, nickname: 'E2E Reader', roleIds: [readerRole.id] });
  await api.dispose();

  const own = await Api.create();
  await own.signIn(operator.username, operator.password);
  const info = await own.ok<{ secret: string }>('GET', '/auth/google/bindInfo');
  await own.ok('POST', '/v1/auth/google/bind', {
    secret: info.secret,
    code: totp(info.secret),
    password: operator.password,
  });
  await own.dispose();
  return { operator: { ...operator, secret: info.secret }, reader };
}

/** Collects console errors and page errors; a spec fails when any appear. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    // A refusal answers its HTTP status (a 422 beside its field errors, a 401 for an ended session), which
    // Chromium logs as a failed resource: the console shows it its own way. A 5xx still counts.
    if (
      m.type() === 'error' &&
      !/^Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())
    )
      errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

export interface BankMerchant {
  code: string;
  apiSecret: string;
  /** The public account bound to the merchant's bank channel (the one its pay page shows). */
  accountId: number;
}

/**
 * As the admin: a bank channel, a public account bound to it and a merchant routed through it (as
 * server/modules/receiving/testkit.ts does), so that the merchant's pay-ins open the bank pay page.
 * `tag` keeps the codes of one spec apart; the account number and VPA are each spec's own, shown on its pay page.
 */
export async function createBankMerchant(
  admin: Api,
  spec: { tag: string; name: string; accountNumberPrefix: string; vpa: string },
): Promise<BankMerchant> {
  const stamp = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const channel = await admin.ok<{ id: number }>('POST', '/channel/create', {
    code: `${spec.tag}bank${stamp}`,
    name: `Bank collections (${spec.name.toLowerCase()} e2e)`,
    adapter: 'bank',
    minAmount: '1.00',
    maxAmount: '1000000.00',
  });
  const account = await admin.ok<{ id: number }>('POST', '/receivingAccount/create', {
    kind: 'public',
    bankName: 'HDFC Bank',
    accountName: 'Acme Collections Pvt Ltd',
    accountNumber: `${spec.accountNumberPrefix}${Date.now() % 100_000_000}`,
    ifsc: 'HDFC0001234',
    vpa: spec.vpa,
    dailyLimit: '1000000.00',
  });
  await admin.ok('POST', '/cardBinding/create', {
    accountId: account.id,
    channelId: channel.id,
    weight: 100,
  });
  const merchant = await admin.ok<{ code: string; apiSecret: string }>('POST', '/merchant/create', {
    name: `${spec.name} shop`,
    code: `${spec.tag}${stamp}`,
    owner: { username: `${spec.tag}owner${stamp}`, password: 'Owner1234!' },
    channels: [{ channelId: channel.id, weight: 100 }],
  });
  return { code: merchant.code, apiSecret: merchant.apiSecret, accountId: account.id };
}

/** A pay-in through the signed gateway, as a merchant's server creates it; answers its order number and pay URL. */
export async function gatewayPayin(
  merchant: { code: string; apiSecret: string },
  order: { orderNoPrefix: string; amount: string; returnUrl?: string },
) {
  const path = '/gateway/v1/payin';
  const body = JSON.stringify({
    merchantOrderNo: `${order.orderNoPrefix}${Date.now().toString(36)}${randomBytes(2).toString('hex')}`,
    amount: order.amount,
    notifyUrl: 'http://127.0.0.1:9/hook',
    ...(order.returnUrl ? { returnUrl: order.returnUrl } : {}),
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString('hex');
  const signature = createHmac('sha256', merchant.apiSecret)
    .update(canonicalString(timestamp, nonce, 'POST', path, body))
    .digest('hex');
  const res = await fetch(`${baseURL}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-merchant-id': merchant.code,
      'x-timestamp': timestamp,
      'x-nonce': nonce,
      'x-signature': signature,
    },
    body,
  });
  const json = (await res.json()) as { errmsg: string; data: { orderNo: string; payUrl: string } };
  expect(res.status, json.errmsg).toBe(201);
  return json.data;
}

/**
 * Puts the list's cursor on its only row with `j`, pressing again until the list has taken the key: on a
 * busy machine the rows can show before the list listens, and the first key is lost.
 */
export async function cursorOnOnlyRow(page: Page, grid: Locator): Promise<void> {
  await expect(async () => {
    await page.keyboard.press('j');
    await expect(grid.locator('tr.dt-row[data-index="0"]')).toHaveClass(/\bfocused\b/, { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
}

/**
 * An amount or count as the console groups it (src/lib/format.ts `thousands`), written out here rather
 * than imported: in English India's lakh and crore, 2644104.96 → "26,44,104.96"; in Chinese by thousands,
 * "2,644,104.96".
 */
export function grouped(value: string | number, lang: 'en' | 'zh_CN' = 'en'): string {
  return String(value).replace(/^(-?)(\d+)/, (_, sign: string, int: string) =>
    int.length <= 3 || lang === 'zh_CN'
      ? sign + int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
      : `${sign}${int.slice(0, -3).replace(/\B(?=(\d{2})+(?!\d))/g, ',')},${int.slice(-3)}`,
  );
}
