/**
 * Callbacks survive a restart (RELIABILITY P14, P16): what one server queued, and what it failed to
 * deliver, a second server on the same database delivers, with the same webhook-id. On PostgreSQL the
 * second instance is a new pool on the same database; on PGlite the data folder is closed and reopened.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalString } from '../../contract/gateway.ts';
import { bootstrap } from '../bootstrap.ts';
import type { Config } from '../config.ts';
import { inTransaction, openDatabase } from '../db/index.ts';
import { channels, webhookEvents } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { createApp } from '../http/app.ts';
import { checkLedger } from '../ledger/check.ts';
import { manualClock } from '../lib/clock.ts';
import { hmacHex, randomToken, sealer } from '../lib/crypto.ts';
import { createLogger } from '../lib/logger.ts';
import { createMailer } from '../lib/mail.ts';
import { rateLimiter } from '../lib/rateLimit.ts';
import { createMerchant } from '../modules/merchant/service.ts';
import { notifyPayin } from '../modules/payin/notifications.ts';
import { startReceiver, verifyCallback } from '../modules/payin/testkit.ts';
import { gatewayRoutes, routes } from '../routes.ts';
import { engines } from '../test/harness.ts';
import { type FreshPostgres, freshPostgresUrl } from '../test/pg.ts';
import { deliverDue } from './webhooks.ts';

type Clock = ReturnType<typeof manualClock>;

/** One server process: its own pool (or PGlite instance), deps and app, over a shared database. */
async function openServer(where: { url?: string; dataDir: string }, appKey: Buffer, clock: Clock) {
  const database = await openDatabase({ url: where.url, dataDir: where.url ? undefined : where.dataDir });
  const config: Config = {
    host: '127.0.0.1',
    port: 0,
    dataDir: where.dataDir,
    mailFrom: 'Paygate Test <test@localhost>',
    adminPassword: 'Admin12345!',
    demo: false,
    appKey,
    sessionIdleMinutes: 30,
    signinAttemptsPerAddress: 30,
    sessionMaxHours: 12,
    trustProxy: 1,
    simulator: true,
    callbackAllowPrivate: true,
    requireGoogleAuth: false,
    logLevel: 'warn',
    workers: 1,
    consoleDir: join(tmpdir(), 'no-console'),
  };
  const deps: Deps = {
    config,
    database,
    clock,
    mailer: createMailer({ from: config.mailFrom, db: () => database.db }),
    sealer: sealer(appKey),
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'warn'),
    authLimiter: rateLimiter({ limit: 1000, windowMs: 60_000, now: () => clock.now().getTime() }),
  };
  await bootstrap(deps);
  const app = createApp(deps, routes, gatewayRoutes);
  /** A signed gateway POST, as the merchant's server sends it. */
  const gatewayPost = async (merchant: { code: string; apiSecret: string }, path: string, body: unknown) => {
    const raw = JSON.stringify(body);
    const ts = String(Math.floor(clock.now().getTime() / 1000));
    const nonce = randomToken(16);
    const res = await app.request(`http://localhost${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-merchant-id': merchant.code,
        'x-timestamp': ts,
        'x-nonce': nonce,
        'x-signature': hmacHex(merchant.apiSecret, canonicalString(ts, nonce, 'POST', path, raw)),
      },
      body: raw,
    });
    return {
      status: res.status,
      json: (await res.json()) as { errno: number; data: Record<string, unknown> },
    };
  };
  return { deps, app, gatewayPost, close: () => database.close() };
}

describe.each(engines)('callbacks across a restart on %s', (engine) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-restart-'));
  let pg: FreshPostgres | undefined;
  const where = () => ({ url: pg?.url, dataDir });
  const appKey = randomBytes(32);
  const clock = manualClock(new Date(Date.now()));

  beforeAll(async () => {
    if (engine === 'postgres') pg = await freshPostgresUrl();
  });
  afterAll(async () => {
    await pg?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers what the first server queued or failed to deliver, with the same webhook-id', async () => {
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 200 : 500));
    try {
      // ---- the first server: two paid orders, one callback attempted and failed, one only queued.
      const first = await openServer(where(), appKey, clock);
      const [sim] = await first.deps.database.db
        .select()
        .from(channels)
        .where(eq(channels.code, 'simulator'));
      const made = await inTransaction(first.deps.database.db, (tx) =>
        createMerchant(first.deps, tx, {
          channels: [{ channelId: sim!.id, weight: 1 }],
          name: 'Restart merchant',
          code: `R${randomBytes(3).toString('hex')}`,
          owner: { username: `owner_r${randomBytes(3).toString('hex')}`, password: 'Owner1234!' },
          collectionRatePpm: 10_000,
        }),
      );
      const merchant = { code: made.merchant.code, apiSecret: made.apiSecret };
      const orders = [];
      for (const amount of ['100.00', '200.00']) {
        const res = await first.gatewayPost(merchant, '/gateway/v1/payin', {
          merchantOrderNo: `R-${randomBytes(4).toString('hex')}`,
          amount,
          notifyUrl: receiver.url,
        });
        expect(res.status).toBe(201);
        orders.push(res.json.data.orderNo as string);
      }
      for (const orderNo of orders) {
        const outcome = await notifyPayin(first.deps, {
          orderNo,
          channelId: sim!.id,
          result: 'success',
          utr: `RS${randomBytes(5).toString('hex').toUpperCase()}`,
        });
        expect(outcome.applied).toBe(true);
        // Only the first one is attempted before the "crash".
        if (orderNo === orders[0]) expect(await deliverDue(first.deps)).toBe(1);
      }
      expect(receiver.received).toHaveLength(1);
      const firstId = receiver.received[0]!.headers['webhook-id'];
      // The second order's event is claimed by a worker that then dies mid-delivery.
      await first.deps.database.db
        .update(webhookEvents)
        .set({ lockedUntil: new Date(clock.now().getTime() + 60_000) })
        .where(and(eq(webhookEvents.status, 'pending'), eq(webhookEvents.attempts, 0)));
      await first.close();

      // ---- the second server, on the same database.
      healthy = true;
      const second = await openServer(where(), appKey, clock);
      try {
        clock.advance(5_000);
        // The failed event is due again; the claimed one waits for its claim to lapse.
        expect(await deliverDue(second.deps)).toBe(1);
        expect(receiver.received).toHaveLength(2);
        expect(receiver.received[1]!.headers['webhook-id']).toBe(firstId);
        clock.advance(60_000);
        expect(await deliverDue(second.deps)).toBe(1);
        expect(receiver.received).toHaveLength(3);
        const events = await second.deps.database.db.select().from(webhookEvents);
        expect(events.map((e) => e.status)).toEqual(['delivered', 'delivered']);
        for (const r of receiver.received.slice(1)) {
          const payload = verifyCallback(
            made.webhookSecret,
            r,
            Number(r.headers['webhook-timestamp']) * 1000,
          );
          expect(payload.type).toBe('payin.paid');
          expect(orders).toContain(payload.data.orderNo);
        }
        expect(await deliverDue(second.deps)).toBe(0);
        const report = await checkLedger(second.deps.database.db);
        expect(report.balanced).toBe(true);
      } finally {
        await second.close();
      }
    } finally {
      await receiver.close();
    }
  });
});
