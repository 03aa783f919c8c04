import { type APIRequestContext, expect, type Page, request } from '@playwright/test';
import * as OTPAuth from 'otpauth';

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
    expect(answer.ok(), `${method} ${path} answered HTTP ${answer.status()}`).toBe(true);
    return (await answer.json()) as Envelope<T>;
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
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}
