/**
 * P22: every endpoint x every point of view matches the permission matrix; default deny.
 * The matrix below is written by hand on purpose: adding an endpoint, or changing who may call one,
 * fails the first test until the matrix is updated (and the type checker already asks for every id).
 */
import { randomUUID } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEndpoints, type Caller, type Endpoint, endpoints } from '../../contract/index.ts';
import { operationLog, users } from '../db/schema.ts';
import { engines, errno, startTestServer, type TestServer } from './harness.ts';

type EndpointId = {
  [G in keyof typeof endpoints]: `${G}.${keyof (typeof endpoints)[G] & string}`;
}[keyof typeof endpoints];

const matrix: Record<EndpointId, Caller> = {
  'health.check': 'public',
  'auth.login': 'public',
  'auth.loginPassword': 'public',
  'auth.loginGoogleCode': 'public',
  'auth.loginEmailCode': 'public',
  'auth.sendEmailCode': 'public',
  'auth.resetPassword': 'public',
  'auth.logout': 'session',
  'auth.logoutAll': 'session',
  'auth.info': 'session',
  'auth.changePassword': 'session',
  'auth.updateProfile': 'session',
  'auth.googleBindInfo': 'session',
  'auth.googleBind': 'session',
  'auth.googleUnbind': 'session',
  'admin.list': 'both',
  'admin.create': 'both',
  'admin.update': 'both',
  'admin.delete': 'both',
  'admin.resetGoogle': 'both',
  'role.list': 'both',
  'role.create': 'both',
  'role.update': 'both',
  'role.delete': 'both',
  'role.permissions': 'both',
  'role.setPermissions': 'both',
  'log.list': 'both',
  'mailOutbox.list': 'superAdmin',
  'merchant.create': 'platform',
  'merchant.list': 'platform',
  'merchant.info': 'both',
  'merchant.update': 'platform',
  'merchant.freeze': 'platform',
  'merchant.resetSecret': 'both',
  'merchant.ipsUpdate': 'both',
  'merchant.callbackUpdate': 'both',
  'merchant.surchargeUpdate': 'both',
  'merchantUser.list': 'platform',
  'merchantUser.disable': 'platform',
  'merchantUser.enable': 'platform',
  'merchantUser.resetPassword': 'platform',
  'merchantUser.resetGoogle': 'platform',
  'memo.list': 'platform',
  'memo.create': 'platform',
  'memo.update': 'platform',
  'memo.delete': 'platform',
  'memo.notices': 'session',
  'telegram.bot': 'platform',
  'telegram.botUpdate': 'platform',
  'telegram.groupList': 'platform',
  'telegram.groupCreate': 'platform',
  'telegram.groupUpdate': 'platform',
  'telegram.groupDelete': 'platform',
  'telegram.test': 'platform',
  'telegram.deliveryList': 'platform',
  'telegram.deliveryRetry': 'platform',
  'agent.list': 'platform',
  'agent.create': 'platform',
  'agent.update': 'platform',
  'agentCommission.statement': 'platform',
  'agentCommission.pay': 'platform',
  'balanceAdjustment.list': 'both',
  'balanceAdjustment.create': 'platform',
  'channel.list': 'platform',
  'channel.create': 'platform',
  'channel.update': 'platform',
  'ledger.trialBalance': 'platform',
  'merchantWallet.info': 'both',
  'merchantWallet.log': 'both',
  'merchantWallet.transferVerify': 'merchant',
  'merchantWallet.transfer': 'merchant',
  'merchantRechargeLog.list': 'both',
  'merchantRechargeLog.create': 'merchant',
  'merchantRechargeLog.confirm': 'platform',
  'merchantRechargeLog.reject': 'platform',
  'merchantPayout.list': 'both',
  'merchantPayout.info': 'both',
  'merchantPayout.totals': 'both',
  'merchantPayout.export': 'both',
  'merchantPayout.create': 'merchant',
  'merchantPayout.bulkCreate': 'merchant',
  'merchantPayout.retry': 'platform',
  'merchantPayout.markSuccess': 'platform',
  'merchantPayout.markFailed': 'platform',
  'merchantPayout.push': 'both',
  'simulator.payout': 'platform',
  'merchantOrder.list': 'both',
  'merchantOrder.info': 'both',
  'merchantOrder.totals': 'both',
  'merchantOrder.export': 'both',
  'merchantOrder.create': 'merchant',
  'merchantOrder.update': 'both',
  'merchantOrder.delete': 'platform',
  'merchantOrder.utrCheck': 'both',
  'merchantOrder.supplement': 'both',
  'merchantOrder.forceSupplement': 'platform',
  'merchantOrder.uploadImage': 'both',
  'merchantOrder.push': 'both',
  'merchantOrder.image': 'both',
  'simulator.pay': 'platform',
  'dashboard.summary': 'both',
  'approval.list': 'platform',
  'approval.approve': 'platform',
  'approval.reject': 'platform',
  'settlementPayment.list': 'both',
  'settlementPayment.info': 'both',
  'settlementPayment.create': 'merchant',
  'settlementPayment.update': 'merchant',
  'settlementPayment.delete': 'merchant',
  'settlementPayment.confirm': 'platform',
  'settlementPayment.complete': 'platform',
  'settlementPayment.reject': 'platform',
  'settlementPayment.uploadImage': 'platform',
  'settlementPayment.image': 'both',
  'settlementPayout.list': 'both',
  'settlementPayout.info': 'both',
  'settlementPayout.create': 'merchant',
  'settlementPayout.update': 'merchant',
  'settlementPayout.delete': 'merchant',
  'settlementPayout.confirm': 'platform',
  'settlementPayout.complete': 'platform',
  'settlementPayout.reject': 'platform',
  'settlementPayout.uploadImage': 'platform',
  'settlementPayout.image': 'both',
  'settlementQuery.list': 'platform',
  'merchantSettlementtn.list': 'both',
  'settlementtnLog.list': 'platform',
  'settlementtnLog.info': 'platform',
  'settlementtnLog.run': 'platform',
  'statOrder.balance': 'both',
  'statOrder.unproved': 'platform',
  'statOrder.list': 'both',
  'statOrder.listExport': 'both',
  'statOrder.channel': 'platform',
  'statOrder.channelExport': 'platform',
  'statOrder.balanceExport': 'both',
  'parameter.list': 'platform',
  'parameter.update': 'platform',
  'withdrawalSlip.candidates': 'platform',
  'withdrawalSlip.create': 'platform',
  'withdrawalSlip.list': 'platform',
  'withdrawalSlip.info': 'platform',
  'withdrawalSlip.download': 'platform',
  'withdrawalSlip.withdraw': 'platform',
  'withdrawalSlip.drop': 'platform',
  'withdrawalSlip.void': 'platform',
  'receivingAccount.create': 'platform',
  'receivingAccount.list': 'platform',
  'receivingAccount.info': 'platform',
  'receivingAccount.update': 'platform',
  'receivingAccount.status': 'platform',
  'accountHolder.create': 'platform',
  'accountHolder.list': 'platform',
  'accountHolder.update': 'platform',
  'cardBinding.create': 'platform',
  'cardBinding.list': 'platform',
  'cardBinding.delete': 'platform',
  'holderNumber.create': 'platform',
  'holderNumber.list': 'platform',
  'holderNumber.update': 'platform',
  'statement.import': 'platform',
  'statement.importInfo': 'platform',
  'statement.imports': 'platform',
  'statement.file': 'platform',
  'statement.list': 'platform',
  'statement.exceptions': 'platform',
  'statement.match': 'platform',
  'statement.accept': 'platform',
  'statement.dismiss': 'platform',
  'statement.rematch': 'platform',
  'statementMapping.list': 'platform',
  'statementMapping.save': 'platform',
  'statementMapping.delete': 'platform',
  'statementFeed.get': 'platform',
  'statementFeed.save': 'platform',
  'statementFeed.delete': 'platform',
  'statementFeed.test': 'platform',
  'statementFeed.files': 'platform',
};

/** The outbox's string too, as a role stored before the outbox became super administrators' only holds it. */
const limitedPerms = ['GET /admin/list', 'GET /log/list', 'GET /mailOutbox/list'];

interface PointOfView {
  name: string;
  /** null: anonymous. */
  kind: 'platform' | 'merchant' | null;
  perms: string[];
  userId?: number;
  token?: string;
  /** A fresh token of the same user, for calls that end the session. */
  throwaway?: () => Promise<string>;
}

type Outcome = 'not signed in' | 'forbidden' | 'allowed';

/** What the matrix says a point of view gets from an endpoint. */
function expectedOutcome(pov: PointOfView, id: EndpointId, permission: string): Outcome {
  const caller = matrix[id];
  if (caller === 'public') return 'allowed';
  if (pov.kind === null) return 'not signed in';
  if (caller === 'session') return 'allowed';
  // Super administrators only: no role grants it, so holding its permission string opens nothing.
  if (caller === 'superAdmin')
    return pov.kind === 'platform' && pov.perms.includes('*') ? 'allowed' : 'forbidden';
  const kindMay = caller === 'both' || caller === pov.kind;
  return kindMay && (pov.perms.includes('*') || pov.perms.includes(permission)) ? 'allowed' : 'forbidden';
}

/** Errnos that mean the call was stopped before the handler by authentication or authorisation. */
const stoppedAtTheDoor: number[] = [
  errno.notSignedIn,
  errno.sessionExpired,
  errno.forbidden,
  errno.bindGoogleFirst,
];

describe('the permission matrix', () => {
  it('lists every endpoint of the registry with its caller kind, and nothing else', () => {
    const registry = Object.fromEntries(allEndpoints.map((e) => [e.id, e.caller]));
    expect(Object.keys(matrix).sort(), 'endpoint ids').toEqual(Object.keys(registry).sort());
    expect(registry).toEqual(matrix);
    for (const ep of allEndpoints) expect(ep.permission).toBe(`${ep.method} ${ep.path}`);
  });
});

describe.each(engines)('permission matrix on %s', (engine) => {
  let s: TestServer;
  const povs: PointOfView[] = [];
  const denied: Array<{ requestId: string; action: string; userId: number }> = [];
  let forbiddenAnswers = 0;

  beforeAll(async () => {
    s = await startTestServer(engine);
    const merchant = await s.makeMerchant();
    const user = async (
      name: string,
      kind: 'platform' | 'merchant',
      perms: string[],
    ): Promise<PointOfView> => {
      const u = await s.makeUser({
        kind,
        perms,
        ...(kind === 'merchant' ? { merchantId: merchant.id } : {}),
      });
      return {
        name,
        kind,
        perms,
        userId: u.id,
        token: u.token,
        throwaway: () => s.login(u.username, u.password),
      };
    };
    const [adminRow] = await s.db.select({ id: users.id }).from(users).where(eq(users.username, 'admin'));
    povs.push(
      { name: 'anonymous', kind: null, perms: [] },
      await user('platform, no permissions', 'platform', []),
      await user('platform, limited role', 'platform', limitedPerms),
      await user('merchant, *', 'merchant', ['*']),
      await user('merchant, no permissions', 'merchant', []),
      await user('merchant, limited role', 'merchant', limitedPerms),
      {
        name: 'platform, * (admin)',
        kind: 'platform',
        perms: ['*'],
        userId: adminRow!.id,
        token: await s.adminToken(),
        throwaway: () => s.adminToken(),
      },
    );
  });
  afterAll(() => s.close());

  it.each(allEndpoints.map((ep) => [ep.id, ep] as const))(
    '%s answers every point of view as the matrix says',
    async (id, ep) => {
      const mismatches: string[] = [];
      for (const pov of povs) {
        const want = expectedOutcome(pov, id as EndpointId, `${ep.method} ${ep.path}`);
        // Signing out would end the token the other endpoints reuse: use a throwaway one.
        const token = ep.id === 'auth.logout' && pov.throwaway ? await pov.throwaway() : pov.token;
        const requestId = randomUUID();
        const res = await s.request(...requestOf(ep, token, requestId));
        const got = res.json?.errno;
        // Signing out everywhere ended the token the other endpoints reuse too: take a new one.
        if (ep.id === 'auth.logoutAll' && pov.throwaway) pov.token = await pov.throwaway();
        const where = `${pov.name}: HTTP ${res.status} errno ${got} ${res.json?.errmsg ?? res.text.slice(0, 80)}`;
        if (res.status !== 200 || typeof got !== 'number') {
          mismatches.push(`${where} (not an envelope with HTTP 200)`);
          continue;
        }
        if (want === 'not signed in' && got !== errno.notSignedIn) mismatches.push(`${where}, wanted 501`);
        if (want === 'forbidden') {
          if (got !== errno.forbidden) mismatches.push(`${where}, wanted 403`);
          else {
            forbiddenAnswers++;
            denied.push({ requestId, action: ep.id, userId: pov.userId! });
          }
        }
        if (want === 'allowed') {
          if (stoppedAtTheDoor.includes(got) || got === errno.internal)
            mismatches.push(`${where}, wanted to reach the handler`);
          const fields = (res.json.data as { fields?: unknown[] } | null)?.fields;
          if (got === errno.invalid && !(Array.isArray(fields) && fields.length > 0)) {
            mismatches.push(`${where}: 422 without field errors`);
          }
        }
        if (ep.id === 'auth.logout' && token && want === 'allowed') {
          if (got !== errno.ok) mismatches.push(`${where}: logout failed`);
          const after = await s.call(endpoints.auth.info, {}, token);
          if (after.errno !== errno.notSignedIn)
            mismatches.push(`${pov.name}: the token still works after logout`);
          if (pov.token && (await s.call(endpoints.auth.info, {}, pov.token)).errno !== errno.ok) {
            mismatches.push(`${pov.name}: logout of another session ended this one`);
          }
        }
      }
      expect(mismatches).toEqual([]);
    },
  );

  it('wrote exactly one "denied" row for every 403, naming the user and the endpoint', async () => {
    expect(forbiddenAnswers).toBeGreaterThan(40);
    const rows = await s.db
      .select()
      .from(operationLog)
      .where(
        inArray(
          operationLog.requestId,
          denied.map((d) => d.requestId),
        ),
      );
    expect(rows.length).toBe(denied.length);
    for (const d of denied) {
      const row = rows.find((r) => r.requestId === d.requestId);
      expect(row, d.action).toMatchObject({
        action: d.action,
        userId: d.userId,
        outcome: 'denied',
        errno: errno.forbidden,
      });
    }
    const allDenied = await s.db
      .select({ id: operationLog.id })
      .from(operationLog)
      .where(eq(operationLog.outcome, 'denied'));
    expect(allDenied.length).toBe(denied.length);
  });

  it("ends a disabled user's live session at its next call (501), whether disabled by an admin or in the database", async () => {
    const admin = await s.adminToken();
    const byAdmin = await s.makeUser({ perms: ['GET /admin/list'] });
    const inDb = await s.makeUser({ perms: ['GET /admin/list'] });
    for (const u of [byAdmin, inDb])
      expect((await s.call(endpoints.admin.list, {}, u.token)).errno).toBe(errno.ok);

    expect((await s.call(endpoints.admin.update, { id: byAdmin.id, status: 'disabled' }, admin)).errno).toBe(
      errno.ok,
    );
    // Without the session revocation that admin.update does: only the account status says no.
    await s.db.update(users).set({ status: 'disabled' }).where(eq(users.id, inDb.id));

    for (const u of [byAdmin, inDb]) {
      expect((await s.call(endpoints.admin.list, {}, u.token)).errno, u.username).toBe(errno.notSignedIn);
      expect((await s.call(endpoints.auth.info, {}, u.token)).errno, u.username).toBe(errno.notSignedIn);
      expect((await s.call(endpoints.auth.login, { username: u.username, password: u.password })).errno).toBe(
        errno.accountDisabled,
      );
    }
    // Enabling again does not bring back the session the admin ended, only the one that was merely refused.
    await s.db
      .update(users)
      .set({ status: 'active' })
      .where(inArray(users.id, [byAdmin.id, inDb.id]));
    expect((await s.call(endpoints.auth.info, {}, byAdmin.token)).errno).toBe(errno.notSignedIn);
    expect((await s.call(endpoints.auth.info, {}, inDb.token)).errno).toBe(errno.ok);
  });
});

/** An endpoint called with an empty input: GET without a query, POST with `{}`. */
function requestOf(
  ep: Endpoint,
  token: string | undefined,
  requestId: string,
): [string, string, { body?: unknown; token?: string; headers: Record<string, string> }] {
  const headers = { 'x-request-id': requestId };
  return ep.method === 'GET'
    ? ['GET', `/api${ep.path}`, { token, headers }]
    : ['POST', `/api${ep.path}`, { body: {}, token, headers }];
}
