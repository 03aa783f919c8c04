/**
 * Failover: the real server (`WORKERS=2`) on a PostgreSQL of the test's own, restarted under load (a fast
 * stop: every connection cut, as a crash or a failover looks to a client) and then kept down past the
 * server's retries. Shows: no answer is a 500 (each is OK or 503 with Retry-After); each acknowledged
 * pay-in creation exists once, and a creation whose answer was lost, sent again, answers the same order;
 * new requests succeed within seconds of the restart; a change committed by another process reaches both
 * workers again (the change feed's LISTEN re-established); the background jobs carry on (a callback is
 * delivered for an order expired after the restart).
 *
 * The server is stopped and started with pg_ctl asynchronously (`Instance.restart` blocks this process,
 * which is also the load generator).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalString } from '../../contract/gateway.ts';
import { hmacHex } from '../lib/crypto.ts';
import { hasInstances, type Instance, startInstance } from '../test/pgInstance.ts';
import { startCallbackReceiver } from '../test/receiver.ts';
import { startWorkersServer, type WorkersServer } from '../test/workers.ts';
import { outageBudgetMs } from './index.ts';

type Json = { errno: number; errmsg: string; data: Record<string, unknown> };
/** An answer, or `conn` when the connection failed before a whole answer arrived. */
type Answer =
  | { status: number; json: Json; headers: Record<string, string | string[] | undefined> }
  | { status: 'conn'; error: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** pg_ctl on `instance`'s folder, without blocking this process (as `postgres` when root). */
function pgCtl(instance: Instance, args: string[]) {
  const base = '/usr/lib/postgresql';
  const version = readdirSync(base)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(base, v, 'bin', 'pg_ctl')))
    .sort((x, y) => Number(y) - Number(x))[0]!;
  const path = join(base, version, 'bin', 'pg_ctl');
  const full = ['-D', join(instance.dir, 'data'), ...args];
  const [cmd, argv] =
    process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', path, ...full]] : [path, full];
  return new Promise<void>((resolve, reject) =>
    execFile(cmd, argv as string[], { timeout: 120_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`pg_ctl ${args.join(' ')}: ${err.message}\n${stdout}${stderr}`)) : resolve(),
    ),
  );
}
const stopPg = (i: Instance) => pgCtl(i, ['-m', 'fast', '-w', 'stop']);
const startPg = (i: Instance) => pgCtl(i, ['-l', join(i.dir, 'server.log'), '-w', '-t', '60', 'start']);

describe.runIf(hasInstances)('failover: PostgreSQL restarted under load (WORKERS=2)', () => {
  let instance: Instance;
  let cluster: WorkersServer;
  let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
  let port: number;
  let admin: string;
  let merchant: { id: number; code: string; apiSecret: string };

  beforeAll(async () => {
    instance = await startInstance();
    receiver = await startCallbackReceiver();
    cluster = await startWorkersServer('failover', {
      databaseUrl: instance.url(),
      env: { CALLBACK_ALLOW_PRIVATE: '1' },
    });
    admin = cluster.admin;
    port = cluster.port;
    const [sim] = await instance.query<{ id: number }>(`select id from channels where code = 'simulator'`);
    const made = await cluster.api(
      '/merchant/create',
      {
        name: 'Failover Shop',
        owner: { username: `o${randomBytes(4).toString('hex')}`, password: 'Owner1234' },
        channels: [{ channelId: sim!.id, weight: 100 }],
      },
      admin,
    );
    expect(made.json.errno).toBe(0);
    merchant = made.json.data as typeof merchant;
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    await receiver?.close();
    await instance?.destroy();
  }, 60_000);

  /** One call on a connection of its own (each worker in turn), with the answer's headers. */
  const call = (method: string, path: string, body?: string, headers: Record<string, string> = {}) =>
    new Promise<Answer>((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent: false,
          timeout: 60_000,
          headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
        },
        (res) => {
          let data = '';
          res.on('data', (d) => {
            data += d;
          });
          res.on('end', () => {
            try {
              resolve({ status: res.statusCode ?? 0, json: JSON.parse(data), headers: res.headers });
            } catch {
              resolve({
                status: res.statusCode ?? 0,
                json: { errno: -1, errmsg: data, data: {} },
                headers: {},
              });
            }
          });
          res.on('error', (e) => resolve({ status: 'conn', error: String(e) }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (e) => resolve({ status: 'conn', error: String(e) }));
      req.end(body);
    });
  const createPayin = (merchantOrderNo: string) => {
    const path = '/gateway/v1/payin';
    const body = JSON.stringify({ merchantOrderNo, amount: '150.00', notifyUrl: receiver.url });
    const ts = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(12).toString('base64url');
    return call('POST', path, body, {
      'x-merchant-id': merchant.code,
      'x-timestamp': ts,
      'x-nonce': nonce,
      'x-signature': hmacHex(merchant.apiSecret, canonicalString(ts, nonce, 'POST', path, body)),
    });
  };
  const consoleRead = () => call('GET', '/api/admin/list', undefined, { 'admin-token': admin });
  const ok = (a: Answer) =>
    a.status !== 'conn' && (a.status === 200 || a.status === 201) && a.json.errno === 0;

  interface Sent {
    kind: 'create' | 'read';
    sentAt: number;
    doneAt: number;
    status: number | 'conn';
    errno?: number;
    retryAfter?: string;
  }
  const sent: Sent[] = [];
  const record = async (kind: Sent['kind'], run: () => Promise<Answer>) => {
    const sentAt = Date.now();
    const a = await run();
    sent.push({
      kind,
      sentAt,
      doneAt: Date.now(),
      status: a.status,
      ...(a.status !== 'conn'
        ? { errno: a.json.errno, retryAfter: a.headers['retry-after'] as string | undefined }
        : {}),
    });
    return a;
  };

  /** Each creation's number, and the order it was acknowledged with (once, by any of its sends). */
  const creations = new Map<string, { orderNo?: string; lostFirst: boolean }>();
  let serial = 0;
  /** Creates a pay-in, sending it again (same merchant order number) until an answer says what it is. */
  async function createUntilKnown() {
    const no = `FO-${++serial}-${randomBytes(3).toString('hex')}`;
    const c = { lostFirst: false } as { orderNo?: string; lostFirst: boolean };
    creations.set(no, c);
    const t0 = Date.now();
    while (Date.now() - t0 < 90_000) {
      const a = await record('create', () => createPayin(no));
      if (a.status !== 'conn' && (a.status === 201 || a.status === 200) && a.json.errno === 0) {
        const orderNo = a.json.data.orderNo as string;
        if (c.orderNo && c.orderNo !== orderNo) throw new Error(`${no}: two orders ${c.orderNo}, ${orderNo}`);
        c.orderNo = orderNo;
        return;
      }
      c.lostFirst = true;
      await sleep(300);
    }
  }

  it('restarts under load: no 500, every creation once, new requests succeed within seconds', async () => {
    expect(ok(await consoleRead())).toBe(true);
    let loading = true;
    const clients = Array.from({ length: 6 }, async (_, i) => {
      while (loading) {
        if (i % 2 === 0) await createUntilKnown();
        else await record('read', consoleRead);
      }
    });
    await sleep(2_000);
    const stopAt = Date.now();
    await stopPg(instance);
    const downAt = Date.now();
    await sleep(3_000);
    await startPg(instance);
    const upAt = Date.now();
    await sleep(6_000);
    loading = false;
    await Promise.all(clients);

    const statuses = new Map<string, number>();
    for (const s of sent) statuses.set(String(s.status), (statuses.get(String(s.status)) ?? 0) + 1);
    // Only OK or 503 (with Retry-After); a connection-level failure only during the restart.
    expect([...statuses.keys()].filter((k) => !['200', '201', '503', 'conn'].includes(k))).toEqual([]);
    for (const s of sent.filter((x) => x.status === 503)) {
      expect(s.errno).toBe(503);
      expect(s.retryAfter).toBe('5');
    }
    for (const s of sent.filter((x) => x.status === 'conn')) {
      expect(s.sentAt).toBeLessThan(upAt + 2_000);
      expect(s.doneAt).toBeGreaterThan(stopAt);
    }
    // Within a few seconds of the restart, every request answers OK the first time.
    const after = sent.filter((s) => s.sentAt >= upAt + 3_000);
    expect(after.length).toBeGreaterThan(10);
    expect(after.filter((s) => s.status !== 200 && s.status !== 201)).toEqual([]);
    const firstOkAfterUp = Math.min(
      ...sent.filter((s) => s.sentAt >= upAt && (s.status === 200 || s.status === 201)).map((s) => s.doneAt),
    );
    // Requests in flight while the database was down waited for it (the clients wait for their answers,
    // so none is sent during the outage) and then answered.
    const duringOutage = sent.filter((s) => s.sentAt < upAt && s.doneAt > downAt);
    expect(duringOutage.length).toBeGreaterThan(0);

    // Each acknowledged creation exists once, with the order it was acknowledged with.
    const acked = [...creations].filter(([, c]) => c.orderNo);
    expect(acked.length).toBe(creations.size);
    const rows = await instance.query<{ no: string; order_no: string; n: number }>(
      `select merchant_order_no as no, min(order_no) as order_no, count(*)::int as n from payin_orders
       where merchant_id = $1 group by merchant_order_no`,
      [merchant.id],
    );
    const byNo = new Map(rows.map((r) => [r.no, r]));
    for (const [no, c] of acked) {
      expect(byNo.get(no)?.n, no).toBe(1);
      expect(byNo.get(no)?.order_no, no).toBe(c.orderNo);
    }
    // Sent again (an answer lost on the way, as the client sees it): the same order, replayed.
    const again = [...acked.filter(([, c]) => c.lostFirst), ...acked.slice(0, 10)].slice(0, 20);
    for (const [no, c] of again) {
      const a = await createPayin(no);
      expect(a.status).toBe(200);
      if (a.status !== 'conn') expect(a.json.data.orderNo).toBe(c.orderNo);
    }

    const figures = {
      requests: sent.length,
      creations: creations.size,
      creationsAnsweredLate: acked.filter(([, c]) => c.lostFirst).length,
      statuses: Object.fromEntries(statuses),
      stopMs: downAt - stopAt,
      downMs: upAt - downAt,
      inFlightDuringOutage: duringOutage.length,
      slowestDuringOutageMs: Math.max(...duringOutage.map((s) => s.doneAt - s.sentAt)),
      firstOkAfterUpMs: firstOkAfterUp - upAt,
    };
    console.log('failover restart figures', JSON.stringify(figures));
    expect(cluster.output()).not.toMatch(/handler failed|worker died|unhandled/);
  }, 180_000);

  it('hears another process’s change on both workers after the restart (LISTEN re-established)', async () => {
    const name = `f${randomBytes(4).toString('hex')}`;
    const role = await cluster.api(
      '/role/create',
      { name: `role-${name}`, perms: ['GET /admin/list'] },
      admin,
    );
    expect(role.json.errno).toBe(0);
    const password = 'Passw0rd!x1';
    const user = await cluster.api(
      '/admin/create',
      { username: name, nickname: name, password, roleIds: [role.json.data.id] },
      admin,
    );
    expect(user.json.errno).toBe(0);
    const token = await cluster.login(name, password);
    const list = async () => {
      const a = await call('GET', '/api/admin/list', undefined, { 'admin-token': token });
      return a.status === 'conn' ? -1 : a.json.errno;
    };
    // Both workers hold the session in their caches.
    for (let i = 0; i < 6; i++) expect(await list()).toBe(0);
    // Taken away by another process, straight in the database: only the change feed tells the workers.
    const t0 = Date.now();
    await instance.query(`update roles set perms = '["GET /log/list"]'::jsonb where id = $1`, [
      role.json.data.id,
    ]);
    for (;;) {
      const both = await Promise.all([list(), list()]);
      if (both.every((e) => e === 403)) break;
      expect(Date.now() - t0).toBeLessThan(5_000);
      await sleep(20);
    }
    const heardMs = Date.now() - t0;
    const next = await Promise.all(Array.from({ length: 10 }, () => list()));
    expect(next).toEqual(Array(10).fill(403));
    console.log('failover change feed figures', JSON.stringify({ heardMs }));
  }, 60_000);

  it('carries on its jobs: an order expired after the restart gets its callback', async () => {
    const no = `FO-exp-${randomBytes(3).toString('hex')}`;
    const a = await createPayin(no);
    expect(a.status).toBe(201);
    await instance.query(
      `update payin_orders set expires_at = now() - interval '1 minute' where merchant_id = $1 and merchant_order_no = $2`,
      [merchant.id, no],
    );
    const t0 = Date.now();
    while (!receiver.received.some(({ body }) => body.includes(no) && body.includes('payin.unpaid'))) {
      expect(Date.now() - t0).toBeLessThan(30_000);
      await sleep(100);
    }
    console.log('failover job figures', JSON.stringify({ callbackMs: Date.now() - t0 }));
  }, 60_000);

  it('answers 503 with Retry-After while the database stays down, and recovers when it is back', async () => {
    await stopPg(instance);
    const t0 = Date.now();
    const no = `FO-down-${randomBytes(3).toString('hex')}`;
    const [read, health, create] = await Promise.all([
      consoleRead(),
      call('GET', '/api/health'),
      createPayin(no),
    ]);
    const answeredMs = Date.now() - t0;
    for (const a of [read, health, create]) {
      expect(a.status).toBe(503);
      if (a.status !== 'conn') {
        expect(a.json.errno).toBe(503);
        expect(a.headers['retry-after']).toBe('5');
      }
    }
    expect(answeredMs).toBeGreaterThanOrEqual(outageBudgetMs - 1_000);
    await startPg(instance);
    const upAt = Date.now();
    let recoveredMs = -1;
    for (;;) {
      const r = await consoleRead();
      if (ok(r)) {
        recoveredMs = Date.now() - upAt;
        break;
      }
      expect(Date.now() - upAt).toBeLessThan(10_000);
      await sleep(100);
    }
    // The creation that answered 503 is sent again: created now, once.
    const again = await createPayin(no);
    expect(ok(again)).toBe(true);
    const [row] = await instance.query<{ n: number }>(
      'select count(*)::int as n from payin_orders where merchant_id = $1 and merchant_order_no = $2',
      [merchant.id, no],
    );
    expect(row!.n).toBe(1);
    expect((await call('GET', '/api/health')).status).toBe(200);
    console.log('failover outage figures', JSON.stringify({ answered503Ms: answeredMs, recoveredMs }));
    expect(cluster.output()).not.toMatch(/handler failed|worker died|unhandled/);
  }, 90_000);
});
