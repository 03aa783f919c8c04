/**
 * Crash survival (RELIABILITY P6, issue 16): the real server (`server/main.ts`, a child process in a
 * process group of its own) on PostgreSQL is killed with SIGKILL at random points of a mixed load —
 * signed pay-in and payout creations, simulator payments, settlement applications and their decisions,
 * callbacks going out; and (issue 25) bank pay-ins proved by statements a person imports and another
 * posts, approval requests beyond a low maker–checker threshold and their decisions, withdrawal slips
 * of manual-bank payouts and their withdrawals, T+N runs — and restarted on the same database,
 * `CRASH_KILLS` times (20). Afterwards the work settles and the test shows:
 * - every acknowledged write is there with its acknowledged content (orders, payments, settlement steps);
 * - a creation whose answer the kill cut, sent again with its merchant order number, answers one order;
 * - no webhook-id arrived twice with different content, and no order's event came under two ids;
 * - every hold (payout, settlement) resolved exactly once, no frozen money left;
 * - every statement line paid at most one order and every order was paid once, by its own line's amount;
 * - the T+N pending balance equals the pending lines;
 * - the books balance (trial balance zero, chains unbroken, no negative merchant balance).
 * A request cut by the kill is unknown, never counted as acknowledged. Figures are printed at the end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalString } from '../../contract/gateway.ts';
import { endpoints } from '../../contract/index.ts';
import { type Database, inTransaction, openDatabase } from '../db/index.ts';
import { channels, parameters } from '../db/schema.ts';
import { claimMs } from '../jobs/webhooks.ts';
import { checkLedger } from '../ledger/check.ts';
import { merchantAccount, platformAccount, post, rowsOf } from '../ledger/index.ts';
import { hmacHex } from '../lib/crypto.ts';
import { codeAt, newTotpSecret } from '../modules/auth/totp.ts';
import { checkOrderStats } from '../modules/dashboard/stats.ts';
import { checkPayoutInvariants } from '../modules/payout/invariants.ts';
import { claimed, submitLeaseMs } from '../modules/payout/submission.ts';
import { checkSettlementHolds } from '../modules/settlement/invariants.ts';
import { checkTnLines } from '../modules/settlement/tn.ts';
import { type FreshPostgres, freshPostgresUrl, hasPostgres } from './pg.ts';
import { genuineAtReceipt, startCallbackReceiver } from './receiver.ts';
import { serverArgs } from './template.ts';

const root = join(import.meta.dirname, '../..');
const kills = Number(process.env.CRASH_KILLS ?? 20);
/** Concurrent clients of the load. */
const clients = 6;
const adminPassword = 'Crash12345!';
const merchantCount = 3;

type Json = { errno: number; errmsg: string; data: Record<string, unknown> };
/** An answer, or `unknown` when the connection failed or was cut before a whole answer arrived. */
type Answer = { status: number; json: Json } | { status: 'unknown'; error: string };

/**
 * A port the server keeps for the whole test, restarts included, taken below Linux's ephemeral range
 * (32768–60999): a port the kernel handed out for the check could go to any outgoing connection on this
 * machine (the test's, PostgreSQL's, the e2e run's beside it) before the server listened on it, or while
 * it was down between kills (once: EADDRINUSE at the first start, in a clean-clone run).
 */
const freePort = async (): Promise<number> => {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const srv = createNetServer()
        .once('error', () => resolve(false))
        .listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rand = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)]!;
/** Minor units as the API writes amounts. */
const money = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;

/** The server process, restarted on one database, one data folder (its APP_KEY) and one port. */
function serverProcess(databaseUrl: string, port: number, dataDir: string) {
  let proc: ChildProcess | undefined;
  let output = '';
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    APP_KEY: randomBytes(32).toString('hex'),
    WORKERS: process.env.CRASH_WORKERS ?? '1',
    DEMO: '0',
    SIMULATOR: '1',
    CALLBACK_ALLOW_PRIVATE: '1',
    LOG_LEVEL: 'warn',
    ADMIN_PASSWORD: adminPassword,
    // Payers on the pay page come from many addresses (X-Forwarded-For): its per-address limits hold each.
    TRUST_PROXY: '1',
  };

  const health = () => call(port, 'GET', '/api/health');

  return {
    output: () => output,
    /** Starts the server and waits until it answers; answers the milliseconds that took. */
    async start() {
      const t0 = Date.now();
      output = '';
      // Its own process group: the kill takes the primary and any workers at once.
      proc = spawn(process.execPath, serverArgs(), {
        cwd: root,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const keep = (d: Buffer) => {
        output = (output + d).slice(-20_000);
      };
      proc.stdout!.on('data', keep);
      proc.stderr!.on('data', keep);
      for (;;) {
        if (proc.exitCode !== null) throw new Error(`the server exited (${proc.exitCode}):\n${output}`);
        if (Date.now() - t0 > 120_000) throw new Error(`no answer within 120 s:\n${output}`);
        const h = await health();
        if (h.status === 200) return Date.now() - t0;
        await sleep(100);
      }
    },
    /** SIGKILL to the whole process group; answers once the process is gone. */
    async kill() {
      const p = proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => p.once('exit', () => resolve()));
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        p.kill('SIGKILL');
      }
      await gone;
    },
  };
}

/** One HTTP call on a connection of its own. */
function call(
  port: number,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        timeout: 30_000,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      },
      (res) => {
        let data = '';
        res.on('data', (d) => {
          data += d;
        });
        res.on('error', (e) => resolve({ status: 'unknown', error: String(e) }));
        res.on('aborted', () => resolve({ status: 'unknown', error: 'aborted' }));
        res.on('end', () => {
          if (!res.complete) return resolve({ status: 'unknown', error: 'incomplete' });
          try {
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(data) });
          } catch {
            resolve({ status: 'unknown', error: `not JSON: ${data.slice(0, 100)}` });
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: 'unknown', error: String(e) }));
    req.end(body);
  });
}

interface Merchant {
  id: number;
  code: string;
  apiSecret: string;
  webhookSecret: string;
  owner: KeyHolder;
}

/** A signed-in user with a bound Google key, who spends each code step at most once. */
interface KeyHolder {
  token: string;
  secret: string;
  lastStep: number;
}

const stepOf = (ms: number) => Math.floor(ms / 30_000);
/**
 * The next code this user may use now (steps either side of now are accepted, each once and in
 * order), or null until the next step. A code whose answer a kill cut counts as spent.
 */
function nextCode(u: KeyHolder): string | null {
  const now = Date.now();
  const current = stepOf(now);
  // The previous step only while well inside the current one (the server checks a moment later).
  const earliest = now % 30_000 < 20_000 ? current - 1 : current;
  const step = Math.max(u.lastStep + 1, earliest);
  if (step > current + 1) return null;
  u.lastStep = step;
  return codeAt(u.secret, new Date(step * 30_000 + 15_000));
}

/** A creation sent through the gateway, and what became of it. */
interface Creation {
  kind: 'payin' | 'payout';
  /** Who signs it: a merchant's id, code and API secret. */
  merchant: Pick<Merchant, 'id' | 'code' | 'apiSecret'>;
  merchantOrderNo: string;
  amount: number;
  body: string;
  outcome: 'ack' | 'refused' | 'unknown';
  orderNo?: string;
  /** How long an answered creation took, ms. */
  ms?: number;
}

interface Settlement {
  id: number;
  merchant: Merchant;
  wallet: 'collection' | 'payout';
  amount: number;
  /** The status the last acknowledged answer gave; `unsure` after an unknown decision. */
  status: string;
  busy: boolean;
  /** Decisions acknowledged, to check against the end. */
  acked: string[];
}

describe.skipIf(!hasPostgres)('crash survival on PostgreSQL', () => {
  let fresh: FreshPostgres | undefined;
  let db: Database | undefined;
  let server: ReturnType<typeof serverProcess> | undefined;
  let receiver: Awaited<ReturnType<typeof startCallbackReceiver>> | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'paygate-crash-'));

  afterAll(async () => {
    await server?.kill();
    await db?.close();
    await receiver?.close();
    await fresh?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`loses no acknowledged write over ${kills} SIGKILLs during mixed load`, async () => {
    const started = Date.now();
    fresh = await freshPostgresUrl();
    const port = await freePort();
    receiver = await startCallbackReceiver();
    server = serverProcess(fresh.url, port, dataDir);
    const restarts: number[] = [await server.start()];
    db = await openDatabase({ url: fresh.url, poolSize: 3, migrate: false });
    const d = db.db;

    // ---- setup, through the API as the platform and merchants use it.
    const api = (path: string, body: unknown, token?: string) =>
      call(port, 'POST', `/api${path}`, JSON.stringify(body), token ? { 'admin-token': token } : {});
    const must = async (path: string, body: unknown, token?: string) => {
      const a = await api(path, body, token);
      if (a.status === 'unknown' || a.json.errno !== 0) throw new Error(`${path}: ${JSON.stringify(a)}`);
      return a.json.data;
    };
    const login = async (username: string, password: string) =>
      (await must('/auth/login', { username, password })).token as string;
    const bind = async (token: string, password: string): Promise<KeyHolder> => {
      const secret = newTotpSecret();
      const step = stepOf(Date.now());
      await must(
        endpoints.auth.googleBind.path,
        { secret, code: codeAt(secret, new Date(step * 30_000 + 15_000)), password },
        token,
      );
      return { token, secret, lastStep: step };
    };
    const admin = await login('admin', adminPassword);
    // Bound like every platform user's (a key is the norm, and some actions ask for it).
    await bind(admin, adminPassword);

    // The simulator settles pay-ins and payouts by itself too (1 s after; 80 % succeed).
    const [sim] = await d.select().from(channels).where(eq(channels.code, 'simulator'));
    await d
      .update(channels)
      .set({ settings: { auto: true, delayMs: 1000, successRate: 80, lostCallbackRate: 0, refuseRate: 0 } })
      .where(eq(channels.id, sim!.id));

    const merchants: Merchant[] = [];
    for (let i = 0; i < merchantCount; i++) {
      const username = `crash${i}${randomBytes(3).toString('hex')}`;
      const password = 'Owner12345!';
      const made = await must(
        endpoints.merchant.create.path,
        {
          name: `Crash Shop ${i}`,
          owner: { username, password },
          channels: [{ channelId: sim!.id, weight: 100 }],
          payoutIpWhitelist: ['127.0.0.1'],
          callbackUrl: receiver.url,
        },
        admin,
      );
      const id = made.id as number;
      // Money on both wallets, as confirmed recharges put it there.
      await inTransaction(d, async (tx) => {
        for (const kind of ['collection_available', 'payout_available'] as const)
          await post(tx, {
            kind: 'recharge_confirmed',
            refType: 'test_recharge',
            refId: randomUUID(),
            at: new Date(),
            lines: [
              { account: platformAccount('settlement_clearing', 'INR'), amount: -100_000_000 },
              { account: merchantAccount(id, kind, 'INR'), amount: 100_000_000 },
            ],
          });
      });
      const token = await login(username, password);
      merchants.push({
        id,
        code: made.code as string,
        apiSecret: made.apiSecret as string,
        webhookSecret: made.webhookSecret as string,
        owner: await bind(token, password),
      });
    }

    // Platform finance: one confirms, the others complete (maker–checker: never the same person).
    const settlementPerms = [
      ...Object.values(endpoints.settlementPayment),
      ...Object.values(endpoints.settlementPayout),
      ...Object.values(endpoints.settlementQuery),
    ]
      .filter((e) => (e as { caller: string }).caller !== 'merchant')
      .map((e) => e.permission);
    // Issue 25's doors too: statements imported and posted, approvals decided, slips, T+N runs.
    const moneyPerms = [
      endpoints.statement.import,
      endpoints.statement.accept,
      endpoints.approval.list,
      endpoints.approval.approve,
      endpoints.approval.reject,
      ...Object.values(endpoints.withdrawalSlip),
      endpoints.settlementtnLog.run,
    ].map((e) => e.permission);
    const role = await must(
      '/role/create',
      { name: 'crash-finance', perms: [...settlementPerms, ...moneyPerms] },
      admin,
    );
    const finance: KeyHolder[] = [];
    for (let i = 0; i < 8; i++) {
      const username = `fin${i}${randomBytes(3).toString('hex')}`;
      const password = 'Finance12345!';
      await must('/admin/create', { username, nickname: username, password, roleIds: [role.id] }, admin);
      finance.push(await bind(await login(username, password), password));
    }
    const [confirmer, ...others] = finance as [KeyHolder, ...KeyHolder[]];
    const completers = others.slice(0, 3);
    /** Who imports statements, posts them, decides requests and sends slips: never the same twice. */
    const bankStaff = others.slice(3);
    const withCode = (users: readonly KeyHolder[]) => {
      for (const u of users) {
        const code = nextCode(u);
        if (code) return { u, code };
      }
      return null;
    };

    // A low maker–checker threshold (3,000.00): confirmations and postings go beyond the day's sums
    // within minutes, and wait in Approvals for a second person.
    await d
      .insert(parameters)
      .values({ key: 'maker_checker_threshold', value: 300_000 })
      .onConflictDoUpdate({ target: parameters.key, set: { value: 300_000 } });
    // Collections into our own account (a bank channel and its public account), and payouts sent by hand
    // through a manual bank channel on withdrawal slips paid from that account.
    const bankChannel = await must(
      endpoints.channel.create.path,
      { code: 'crashbank', name: 'Bank', adapter: 'bank', minAmount: '1.00', maxAmount: '1000000.00' },
      admin,
    );
    const account = await must(
      endpoints.receivingAccount.create.path,
      {
        kind: 'public',
        bankName: 'HDFC Bank',
        accountName: 'Crash Collections',
        accountNumber: '50200099887766',
        ifsc: 'HDFC0001234',
        dailyLimit: '100000000.00',
      },
      admin,
    );
    await must(
      endpoints.cardBinding.create.path,
      { accountId: account.id, channelId: bankChannel.id, weight: 100 },
      admin,
    );
    const manualChannel = await must(
      endpoints.channel.create.path,
      {
        code: 'crashmanual',
        name: 'HDFC by hand',
        adapter: 'manual_bank',
        minAmount: '1.00',
        maxAmount: '1000000.00',
      },
      admin,
    );
    const routedMerchant = async (name: string, channelId: number, cycle?: string) => {
      const username = `crash${name}${randomBytes(3).toString('hex')}`;
      const made = await must(
        endpoints.merchant.create.path,
        {
          name: `Crash ${name}`,
          owner: { username, password: 'Owner12345!' },
          channels: [{ channelId, weight: 100 }],
          payoutIpWhitelist: ['127.0.0.1'],
          callbackUrl: receiver!.url,
          ...(cycle ? { settlementCycle: cycle } : {}),
        },
        admin,
      );
      await inTransaction(d, (tx) =>
        post(tx, {
          kind: 'recharge_confirmed',
          refType: 'test_recharge',
          refId: randomUUID(),
          at: new Date(),
          lines: [
            { account: platformAccount('settlement_clearing', 'INR'), amount: -100_000_000 },
            { account: merchantAccount(made.id as number, 'payout_available', 'INR'), amount: 100_000_000 },
          ],
        }),
      );
      return {
        id: made.id as number,
        code: made.code as string,
        apiSecret: made.apiSecret as string,
        webhookSecret: made.webhookSecret as string,
      };
    };
    // The bank merchant settles T+1: its collections wait for the T+N runs.
    const bankMerchant = await routedMerchant('bank', bankChannel.id as number, 'T1');
    const slipMerchant = await routedMerchant('slip', manualChannel.id as number);
    /** Merchants whose owners act in no request here (their callbacks are verified with the others'). */
    const routed = [bankMerchant, slipMerchant];

    // ---- the load.
    const creations: Creation[] = [];
    const payments: {
      orderNo: string;
      result: 'success' | 'fail';
      outcome: 'ack' | 'refused' | 'unknown';
    }[] = [];
    const settlementList: Settlement[] = [];
    const counts = { applyUnknown: 0, applyRefused: 0, decisionsUnknown: 0, decisionsRefused: 0 };
    /** Bank pay-ins whose payer named a UTR: the statements' credits. */
    const bankPayins: { orderNo: string; amount: number; utr: string }[] = [];
    const imports: number[] = [];
    const bank = {
      imports: 0,
      importsCut: 0,
      posts: 0,
      postsCut: 0,
      linesPaid: 0,
      approvalsAsked: 0,
      decisions: 0,
      decisionsCut: 0,
      slips: 0,
      withdrawals: 0,
      tnRuns: 0,
      cut: 0,
      /** Refusals of the statement calls, shown if they happen (none is expected). */
      refusals: [] as string[],
    };
    let serial = 0;

    const gateway = (m: Pick<Merchant, 'code' | 'apiSecret'>, path: string, body: string) => {
      const ts = String(Math.floor(Date.now() / 1000));
      const nonce = randomBytes(12).toString('base64url');
      return call(port, 'POST', path, body, {
        'x-merchant-id': m.code,
        'x-timestamp': ts,
        'x-nonce': nonce,
        'x-signature': hmacHex(m.apiSecret, canonicalString(ts, nonce, 'POST', path, body)),
      });
    };
    const createBody = (kind: Creation['kind'], merchantOrderNo: string, amount: number) =>
      JSON.stringify(
        kind === 'payin'
          ? { merchantOrderNo, amount: money(amount), notifyUrl: receiver!.url }
          : {
              merchantOrderNo,
              amount: money(amount),
              accountName: 'Asha Verma',
              accountNumber: '123456789012',
              ifsc: 'HDFC0001234',
              notifyUrl: receiver!.url,
            },
      );
    const gatewayPath = (kind: Creation['kind']) => `/gateway/v1/${kind}`;

    async function create(kind: Creation['kind']) {
      const merchant = pick(merchants);
      const merchantOrderNo = `CR-${kind}-${++serial}-${randomBytes(3).toString('hex')}`;
      const amount = kind === 'payin' ? rand(100_00, 5_000_00) : rand(10_00, 500_00);
      const body = createBody(kind, merchantOrderNo, amount);
      const c: Creation = { kind, merchant, merchantOrderNo, amount, body, outcome: 'unknown' };
      creations.push(c);
      const sent = performance.now();
      const a = await gateway(merchant, gatewayPath(kind), body);
      c.ms = performance.now() - sent;
      if (a.status === 'unknown') return;
      if (a.status === 201 && a.json.errno === 0) {
        c.outcome = 'ack';
        c.orderNo = a.json.data.orderNo as string;
      } else c.outcome = 'refused';
    }

    async function pay() {
      const open = creations.filter((c) => c.kind === 'payin' && c.outcome === 'ack');
      if (!open.length) return create('payin');
      const c = pick(open.slice(-30));
      const result = Math.random() < 0.8 ? 'success' : 'fail';
      const p = { orderNo: c.orderNo!, result, outcome: 'unknown' } as (typeof payments)[number];
      payments.push(p);
      const a = await api('/simulator/pay', { orderNo: c.orderNo, result }, admin);
      if (a.status === 'unknown') return;
      p.outcome = a.json.errno === 0 ? 'ack' : 'refused';
    }

    const settlementBase = (wallet: Settlement['wallet']) =>
      wallet === 'collection' ? '/settlementPayment' : '/settlementPayout';

    async function settle() {
      const toConfirm = settlementList.filter((s) => !s.busy && s.status === 'to_be_confirmed');
      const toComplete = settlementList.filter((s) => !s.busy && s.status === 'confirmed');
      const roll = Math.random();
      if (toComplete.length && roll < 0.4) {
        const holder = completers.find((u) => u.lastStep < stepOf(Date.now()) + 1);
        const code = holder && nextCode(holder);
        if (holder && code)
          return decide(pick(toComplete), 'complete', { reference: `REF${++serial}`, code }, holder.token);
      }
      if (toConfirm.length && roll < 0.7) {
        const s = pick(toConfirm);
        if (Math.random() < 0.5) return decide(s, 'delete', {}, s.merchant.owner.token);
        const code = nextCode(confirmer);
        if (code) return decide(s, 'confirm', { auditAmount: money(s.amount), code }, confirmer.token);
      }
      const merchant = pick(merchants);
      const code = nextCode(merchant.owner);
      if (!code) return create('payin');
      const wallet = Math.random() < 0.5 ? 'collection' : 'payout';
      const amount = rand(100_00, 1_000_00);
      const a = await api(
        `${settlementBase(wallet)}/create`,
        {
          type: 'bank',
          amount: money(amount),
          accountName: 'Asha Traders',
          cardNumber: '123456789012',
          ifsc: 'HDFC0001234',
          code,
        },
        merchant.owner.token,
      );
      if (a.status === 'unknown') counts.applyUnknown++;
      else if (a.json.errno !== 0) counts.applyRefused++;
      else
        settlementList.push({
          id: a.json.data.id as number,
          merchant,
          wallet,
          amount,
          status: a.json.data.status as string,
          busy: false,
          acked: ['create'],
        });
    }

    async function decide(s: Settlement, action: string, body: Record<string, unknown>, token: string) {
      s.busy = true;
      const a = await api(`${settlementBase(s.wallet)}/${action}`, { id: s.id, ...body }, token);
      s.busy = false;
      if (a.status === 'unknown') {
        counts.decisionsUnknown++;
        s.status = 'unsure';
      } else if (a.json.errno !== 0) {
        counts.decisionsRefused++;
        s.status = 'unsure';
      } else {
        s.status = a.json.data.status as string;
        s.acked.push(action);
      }
    }

    const today = () => new Date(Date.now() + 5.5 * 3_600_000).toISOString().slice(0, 10);

    /** A bank pay-in, and the UTR its payer names on the pay page. */
    async function bankPayin() {
      const merchantOrderNo = `CR-bank-${++serial}-${randomBytes(3).toString('hex')}`;
      const amount = rand(100_00, 2_000_00);
      const body = createBody('payin', merchantOrderNo, amount);
      const c: Creation = {
        kind: 'payin',
        merchant: bankMerchant,
        merchantOrderNo,
        amount,
        body,
        outcome: 'unknown',
      };
      creations.push(c);
      const a = await gateway(bankMerchant, gatewayPath('payin'), body);
      if (a.status === 'unknown') return;
      if (a.status !== 201 || a.json.errno !== 0) {
        c.outcome = 'refused';
        return;
      }
      c.outcome = 'ack';
      c.orderNo = a.json.data.orderNo as string;
      const utr = `7${randomBytes(6).readUIntBE(0, 6) % 100_000_000_000}`.padEnd(12, '0');
      const said = await call(port, 'POST', `/pay/${c.orderNo}/utr`, JSON.stringify({ utr }), {
        'x-forwarded-for': `10.9.${rand(0, 255)}.${rand(1, 254)}`,
      });
      if (said.status !== 'unknown' && said.json.errno === 0)
        bankPayins.push({ orderNo: c.orderNo, amount, utr });
    }

    /** The account's statement of the last bank pay-ins, pasted by one person (evidence, pays nothing). */
    async function importStatement() {
      // Importing is evidence: no code; one of the bank staff by turns.
      const who = { u: bankStaff[serial % bankStaff.length]! };
      if (bankPayins.length < 2) return bankPayin();
      const rows = bankPayins.slice(-8).map((p) => `${today()},UPI/${p.utr}/payer,${money(p.amount)}`);
      const a = await api(
        endpoints.statement.import.path,
        {
          accountId: account.id,
          mapping: {
            headerRow: 1,
            dateColumn: 'Date',
            dateFormat: 'yyyy-MM-dd',
            narrationColumn: 'Narration',
            creditColumn: 'Credit',
            utrPattern: '^UPI/(\\d{12})/',
          },
          text: `Date,Narration,Credit\n${rows.join('\n')}\n`,
        },
        who.u.token,
      );
      if (a.status === 'unknown') {
        bank.importsCut++;
        return;
      }
      if (a.json.errno === 0) {
        bank.imports++;
        imports.push(a.json.data.importId as number);
      } else bank.refusals.push(`import: ${a.json.errno} ${a.json.errmsg}`);
    }

    /** Another person posts an import's ready lines: paid within the day's sums, the rest asked for. */
    async function postImport() {
      const importId = imports.at(-1 - rand(0, Math.min(3, imports.length - 1)));
      const who = withCode(bankStaff);
      if (importId === undefined || !who) return importStatement();
      const a = await api(
        endpoints.statement.accept.path,
        { importId, reason: 'statement checked', code: who.code },
        who.u.token,
      );
      if (a.status === 'unknown') {
        bank.postsCut++;
        return;
      }
      if (a.json.errno !== 0) {
        bank.refusals.push(`post: ${a.json.errno} ${a.json.errmsg}`);
        return;
      }
      bank.posts++;
      bank.linesPaid += a.json.data.matched as number;
      if (a.json.data.approval) bank.approvalsAsked++;
    }

    /** A second person decides the oldest pending request they may decide. */
    async function decideRequest() {
      const who = withCode(bankStaff.concat(completers));
      if (!who) return;
      const list = await call(port, 'GET', `/api${endpoints.approval.list.path}?pageSize=20`, undefined, {
        'admin-token': who.u.token,
      });
      if (list.status === 'unknown' || list.json.errno !== 0) return;
      const pending = (list.json.data.list as { id: number }[]).at(rand(0, 3));
      if (!pending) return;
      const a = await api(endpoints.approval.approve.path, { id: pending.id, code: who.code }, who.u.token);
      if (a.status === 'unknown') bank.decisionsCut++;
      else if (a.json.errno === 0) bank.decisions++;
    }

    /** A payout sent by hand: the slip merchant's payouts wait on the manual bank channel. */
    const slipPayout = async () => {
      const merchantOrderNo = `CR-slip-${++serial}-${randomBytes(3).toString('hex')}`;
      const amount = rand(10_00, 300_00);
      const body = createBody('payout', merchantOrderNo, amount);
      const c: Creation = {
        kind: 'payout',
        merchant: slipMerchant,
        merchantOrderNo,
        amount,
        body,
        outcome: 'unknown',
      };
      creations.push(c);
      const a = await gateway(slipMerchant, gatewayPath('payout'), body);
      if (a.status === 'unknown') return;
      c.outcome = a.status === 201 && a.json.errno === 0 ? 'ack' : 'refused';
      if (c.outcome === 'ack') c.orderNo = a.json.data.orderNo as string;
    };

    /** One person writes a slip of what waits; another marks its lines withdrawn. */
    async function slipRound(most = 5) {
      const maker = withCode(bankStaff);
      if (!maker) return slipPayout();
      const candidates = await call(
        port,
        'GET',
        `/api${endpoints.withdrawalSlip.candidates.path}`,
        undefined,
        {
          'admin-token': maker.u.token,
        },
      );
      if (candidates.status === 'unknown' || candidates.json.errno !== 0) return;
      const payoutIds = (candidates.json.data.list as { objectType: string; id: number }[])
        .filter((c) => c.objectType === 'payout')
        .slice(0, most)
        .map((c) => c.id);
      if (!payoutIds.length) return slipPayout();
      const made = await api(
        endpoints.withdrawalSlip.create.path,
        { format: 'generic_csv', accountId: account.id, payoutIds, code: maker.code },
        maker.u.token,
      );
      if (made.status === 'unknown' || made.json.errno !== 0) return;
      bank.slips++;
      const closer = withCode(bankStaff.filter((u) => u !== maker.u));
      if (!closer) return;
      const lines = (made.json.data.lines as { id: number }[]).map((l) => ({
        lineId: l.id,
        reference: `N${String(++serial).padStart(12, '0')}`,
      }));
      const a = await api(
        endpoints.withdrawalSlip.withdraw.path,
        { id: made.json.data.id, lines, code: closer.code },
        closer.u.token,
      );
      if (a.status !== 'unknown' && a.json.errno === 0) bank.withdrawals++;
    }

    async function tnRun() {
      const who = withCode(completers);
      if (!who) return;
      const a = await api(endpoints.settlementtnLog.run.path, { day: today(), code: who.code }, who.u.token);
      if (a.status !== 'unknown' && a.json.errno === 0) bank.tnRuns++;
    }

    /**
     * Clients send mixed requests for `ms`, then the server is killed while they are mid-request: what
     * was in flight ends unknown. Each client stops after its current request.
     */
    async function loadThenKill(ms: number) {
      let stop = false;
      const client = async () => {
        while (!stop) {
          const r = Math.random();
          await (r < 0.3
            ? create('payin')
            : r < 0.45
              ? pay()
              : r < 0.62
                ? create('payout')
                : r < 0.74
                  ? settle()
                  : r < 0.82
                    ? bankPayin()
                    : r < 0.86
                      ? importStatement()
                      : r < 0.9
                        ? postImport()
                        : r < 0.93
                          ? decideRequest()
                          : r < 0.97
                            ? slipRound()
                            : r < 0.98
                              ? slipPayout()
                              : tnRun());
        }
      };
      const running = Promise.all(Array.from({ length: clients }, client));
      await sleep(ms);
      stop = true;
      await server!.kill();
      await running;
    }

    let lastKill = new Date();
    for (let k = 0; k < kills; k++) {
      await loadThenKill(rand(500, 3_000));
      lastKill = new Date();
      restarts.push(await server.start());
    }

    // ---- the leases the killed servers held end now instead of after their length (a payout's
    // hand-over 2 minutes, a callback's delivery 1 minute: most of this test's time, waited for nothing
    // it proves). A lease taken by the running server is later than the last kill and is left alone;
    // what a lease's length means is the job tests' subject, on a clock they move.
    const leasesEnded = {
      handOvers: rowsOf(
        await d.execute(sql`update payout_orders set updated_at = updated_at - ${`${submitLeaseMs} milliseconds`}::interval
          where status = ${claimed} and updated_at <= ${lastKill.toISOString()} returning id`),
      ).length,
      deliveries: rowsOf(
        await d.execute(sql`update webhook_events set locked_until = ${lastKill.toISOString()}
          where locked_until > ${lastKill.toISOString()}
            and locked_until <= ${new Date(lastKill.getTime() + claimMs).toISOString()} returning id`),
      ).length,
    };

    // ---- after the last restart: creations whose answer was cut, sent again with the same numbers.
    const retried = { created: 0, replayed: 0, other: 0 };
    for (const c of creations.filter((x) => x.outcome === 'unknown')) {
      const a = await gateway(c.merchant, gatewayPath(c.kind), c.body);
      if (a.status === 'unknown') throw new Error(`retry of ${c.merchantOrderNo}: ${a.error}`);
      expect(a.json.errno, `${c.merchantOrderNo}: ${JSON.stringify(a.json)}`).toBe(0);
      expect(a.json.data).toMatchObject({ merchantOrderNo: c.merchantOrderNo, amount: money(c.amount) });
      if (a.status === 201) retried.created++;
      else if (a.status === 200) retried.replayed++;
      else retried.other++;
      c.orderNo = a.json.data.orderNo as string;
    }
    expect(retried.other).toBe(0);
    // Acknowledged ones replay the order they were answered with.
    for (const c of creations.filter((x) => x.outcome === 'ack').slice(0, 60)) {
      const a = await gateway(c.merchant, gatewayPath(c.kind), c.body);
      expect(a.status).toBe(200);
      if (a.status !== 'unknown') expect(a.json.data.orderNo).toBe(c.orderNo);
    }

    // ---- requests still waiting are decided by a second person; payouts sent by hand go out on slips.
    for (let round = 0; ; round++) {
      const pending = rowsOf<{ id: number; requested_by: number; barred: number[] }>(
        await d.execute(
          sql`select id, requested_by, barred from approvals where status = 'pending' order by id`,
        ),
      );
      if (!pending.length) break;
      if (round > 200) throw new Error(`requests still pending: ${JSON.stringify(pending)}`);
      for (const r of pending) {
        const who = withCode(bankStaff.concat(completers));
        if (!who) break;
        const a = await api(
          endpoints.approval.approve.path,
          { id: Number(r.id), code: who.code },
          who.u.token,
        );
        // Not theirs to decide, or the object moved on: another person rejects it instead.
        if (a.status !== 'unknown' && a.json.errno !== 0 && a.json.errno !== 1040) {
          const other = withCode(bankStaff.concat(completers));
          if (other)
            await api(
              endpoints.approval.reject.path,
              { id: Number(r.id), reason: 'closing the test', code: other.code },
              other.u.token,
            );
        }
      }
      await sleep(1_000);
    }
    /**
     * Payouts sent by hand go out as a person would send them: on a slip of what waits (one user), its
     * lines marked withdrawn (another). Answers how many still wait on the manual channel.
     */
    const sendManualPayouts = async () => {
      const [waiting] = rowsOf<{ n: number }>(
        await d.execute(sql`select count(*)::int as n from payout_orders o join channels c on c.id = o.channel_id
          where c.adapter = 'manual_bank' and o.status = 'processing'`),
      );
      if (!waiting!.n) return 0;
      const open = rowsOf<{ slip_id: number; line_id: number }>(
        await d.execute(
          sql`select slip_id, id as line_id from withdrawal_slip_lines where status = 'to_be_withdrawn'`,
        ),
      );
      if (!open.length) await slipRound(500);
      for (const slipId of new Set(open.map((o) => Number(o.slip_id)))) {
        const closer = withCode(completers);
        if (!closer) break;
        const lines = open
          .filter((o) => Number(o.slip_id) === slipId)
          .map((o) => ({ lineId: Number(o.line_id), reference: `N${String(++serial).padStart(12, '0')}` }));
        await api(
          endpoints.withdrawalSlip.withdraw.path,
          { id: slipId, lines, code: closer.code },
          closer.u.token,
        );
      }
      return waiting!.n;
    };
    for (let round = 0; (await sendManualPayouts()) > 0; round++) {
      if (round > 200) throw new Error('manual payouts still processing');
      await sleep(1_000);
    }

    // ---- every hold resolved: open settlements are cancelled or completed as a person would.
    const openSettlements = async () =>
      rowsOf<{ id: number; status: string; merchant_id: number; wallet: string }>(
        await d.execute(
          sql`select id, status, merchant_id, wallet from settlements where status in ('to_be_confirmed', 'confirmed') order by id`,
        ),
      );
    for (let round = 0; ; round++) {
      const open = await openSettlements();
      if (!open.length) break;
      if (round > 200) throw new Error(`settlements still open: ${JSON.stringify(open)}`);
      for (const o of open) {
        const wallet = o.wallet as Settlement['wallet'];
        const m = merchants.find((x) => x.id === Number(o.merchant_id))!;
        if (o.status === 'to_be_confirmed') {
          await must(`${settlementBase(wallet)}/delete`, { id: Number(o.id) }, m.owner.token);
          continue;
        }
        const holder = completers.find((u) => nextCodeAvailable(u));
        const code = holder && nextCode(holder);
        if (holder && code)
          await must(
            `${settlementBase(wallet)}/complete`,
            { id: Number(o.id), reference: `REF${++serial}`, code },
            holder.token,
          );
      }
      await sleep(1_000);
    }

    // ---- let the jobs finish: payouts settle, callbacks go out (a delivery the kill cut is claimed
    // for a minute before another attempt takes it). Bank pay-ins no statement proved wait for their
    // payers: they stay pending.
    const settleStarted = Date.now();
    const underWay = async () =>
      rowsOf<{ payouts: number; creating: number; pending_payins: number; callbacks: number }>(
        await d.execute(sql`select
          (select count(*)::int from payout_orders where status in ('queued', 'submitting', 'processing', 'needs_review')) as payouts,
          (select count(*)::int from payin_orders where status = 'creating') as creating,
          (select count(*)::int from payin_orders where status = 'pending' and receiving_account_id is null) as pending_payins,
          (select count(*)::int from webhook_events where status = 'pending') as callbacks`),
      )[0]!;
    let shown = 0;
    for (;;) {
      const u = await underWay();
      if (!u.payouts && !u.creating && !u.pending_payins && !u.callbacks) break;
      // A manual payout whose hand-over a kill cut is sent again once its lease ends: it needs a slip too.
      if (u.payouts) await sendManualPayouts();
      if (process.env.CRASH_VERBOSE && Date.now() - shown > 5_000) {
        shown = Date.now();
        console.log(`  ${Math.round((shown - settleStarted) / 1000)} s after: ${JSON.stringify(u)}`);
      }
      if (Date.now() - settleStarted > 200_000)
        throw new Error(`still under way after 200 s: ${JSON.stringify(u)}\n${server.output()}`);
      await sleep(500);
    }
    const settleMs = Date.now() - settleStarted;

    // ---- acknowledged writes are all there, as acknowledged.
    const payinRows = rowsOf<{
      order_no: string;
      merchant_id: number;
      merchant_order_no: string;
      amount: string;
      status: string;
    }>(
      await d.execute(
        sql`select order_no, merchant_id, merchant_order_no, amount::text, status from payin_orders`,
      ),
    );
    const payoutRows = rowsOf<{
      order_no: string;
      merchant_id: number;
      merchant_order_no: string;
      amount: string;
      status: string;
    }>(
      await d.execute(
        sql`select order_no, merchant_id, merchant_order_no, amount::text, status from payout_orders`,
      ),
    );
    const byKey = new Map<string, (typeof payinRows)[number]>();
    for (const [kind, rows] of [
      ['payin', payinRows],
      ['payout', payoutRows],
    ] as const)
      for (const r of rows) {
        const key = `${kind}:${r.merchant_id}:${r.merchant_order_no}`;
        expect(byKey.has(key), `two orders for ${key}`).toBe(false);
        byKey.set(key, r);
      }
    const lost: string[] = [];
    for (const c of creations) {
      const row = byKey.get(`${c.kind}:${c.merchant.id}:${c.merchantOrderNo}`);
      if (c.outcome === 'refused') continue;
      // Acknowledged, or retried above: exactly the order answered, with its amount.
      if (!row || row.order_no !== c.orderNo || Number(row.amount) !== c.amount)
        lost.push(`${c.kind} ${c.merchantOrderNo} (${c.outcome}): ${JSON.stringify(row)}`);
    }
    expect(lost).toEqual([]);
    const statusOf = new Map(payinRows.map((r) => [r.order_no, r.status]));
    const wrongPayments = payments
      .filter((p) => p.outcome === 'ack')
      .filter((p) => statusOf.get(p.orderNo) !== (p.result === 'success' ? 'paid' : 'failed'));
    expect(wrongPayments).toEqual([]);
    const settlementRows = new Map(
      rowsOf<{ id: number; amount: string; status: string }>(
        await d.execute(sql`select id, amount::text, status from settlements`),
      ).map((r) => [Number(r.id), r]),
    );
    for (const s of settlementList) {
      const row = settlementRows.get(s.id);
      expect(row && Number(row.amount), `settlement ${s.id}`).toBe(s.amount);
      const last = s.acked.at(-1);
      if (last === 'complete') expect(row!.status).toBe('settled');
      if (last === 'delete') expect(row!.status).toBe('failed');
      if (last === 'confirm') expect(row!.status).toBe('settled'); // completed by the clean-up above
    }

    // ---- callbacks: one content per webhook-id, one id per event, each genuine and each delivered.
    const bodiesOf = new Map<string, Set<string>>();
    for (const r of receiver.received) {
      const set = bodiesOf.get(r.id) ?? new Set();
      set.add(r.body);
      bodiesOf.set(r.id, set);
    }
    const conflicting = [...bodiesOf].filter(([, b]) => b.size > 1);
    expect(conflicting).toEqual([]);
    const secrets = [...merchants, ...routed].map((m) => new Webhook(m.webhookSecret));
    const idsOfEvent = new Map<string, Set<string>>();
    for (const r of receiver.received) {
      const verified = genuineAtReceipt(r, secrets);
      expect(verified, `callback ${r.id} not signed by its merchant`).toBe(true);
      const payload = JSON.parse(r.body) as { type: string; data: Record<string, unknown> };
      const key = `${payload.type}:${payload.data.orderNo ?? payload.data.settlementNo}:${payload.type === 'settlement.updated' ? payload.data.status : ''}`;
      const ids = idsOfEvent.get(key) ?? new Set();
      ids.add(r.id);
      idsOfEvent.set(key, ids);
    }
    expect([...idsOfEvent].filter(([, ids]) => ids.size > 1)).toEqual([]);
    const events = rowsOf<{ message_id: string; payload: unknown; status: string }>(
      await d.execute(sql`select message_id, payload, status from webhook_events`),
    );
    const undelivered = events.filter(
      (e) =>
        e.status !== 'delivered' ||
        ![...(bodiesOf.get(e.message_id) ?? [])].some(
          (b) => JSON.stringify(JSON.parse(b)) === JSON.stringify(e.payload),
        ),
    );
    expect(undelivered).toEqual([]);
    // One event per order and end state (a state is entered once).
    const doubled = rowsOf(
      await d.execute(sql`select order_type, order_id, type, payload->'data'->>'status' as status, count(*)::int as n
        from webhook_events group by 1, 2, 3, 4 having count(*) > 1`),
    );
    expect(doubled).toEqual([]);

    // ---- holds resolved once, nothing frozen, the books balance.
    const payoutsReport = await checkPayoutInvariants(d);
    expect(payoutsReport).toEqual({
      ok: true,
      frozenMismatches: [],
      holdMismatches: [],
      amountMismatches: [],
    });
    expect(await checkSettlementHolds(d)).toEqual([]);
    const holds = rowsOf<{
      payout_holds: number;
      payout_open: number;
      settlements: number;
      frozen: string;
      negative: number;
    }>(
      await d.execute(sql`select
        (select coalesce(sum(holds), 0)::int from payout_orders) as payout_holds,
        (select count(*)::int from payout_orders where hold_open) as payout_open,
        (select count(*)::int from settlements) as settlements,
        (select coalesce(sum(balance), 0)::text from ledger_accounts where owner_type = 'merchant' and kind = 'frozen') as frozen,
        (select count(*)::int from ledger_accounts where owner_type = 'merchant' and balance < 0) as negative`),
    )[0]!;
    expect(holds).toMatchObject({ payout_open: 0, frozen: '0', negative: 0 });
    const ledger = await checkLedger(d);
    expect(ledger).toMatchObject({
      balanced: true,
      unbalancedEntries: [],
      brokenChains: [],
      accountMismatches: [],
      dailyMismatches: [],
    });
    expect(await checkOrderStats(d)).toEqual({ ok: true, mismatches: [] });
    expect(await checkTnLines(d)).toEqual({ ok: true, mismatches: [] });
    // Every statement line paid at most one order, every order was paid once, by its line's amount.
    const twicePaid = rowsOf(
      await d.execute(sql`select ref_id, count(*)::int as n from journal_entries
        where ref_type = 'payin' and kind = 'payin_paid' group by 1 having count(*) > 1`),
    );
    expect(twicePaid).toEqual([]);
    const byLine = rowsOf(
      await d.execute(sql`select o.order_no, o.paid_amount, l.amount, count(l.id) over (partition by o.id) as lines
        from payin_orders o join statement_lines l on l.payin_id = o.id
        where o.paid_amount <> l.amount or o.status <> 'paid'`),
    );
    expect(byLine).toEqual([]);
    const statementPaid = rowsOf<{ n: number }>(
      await d.execute(sql`select count(*)::int as n from payin_orders where paid_by = 'statement'`),
    )[0]!;

    // ---- the figures.
    const tally = (kind: Creation['kind']) => {
      const xs = creations.filter((c) => c.kind === kind);
      const ms = xs
        .filter((c) => c.outcome === 'ack')
        .map((c) => c.ms ?? 0)
        .sort((x, y) => x - y);
      const at = (p: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(ms.length * p))] ?? 0);
      return `${xs.length} sent (answered in median ${at(0.5)} / p95 ${at(0.95)} ms), ${xs.filter((c) => c.outcome === 'ack').length} acknowledged, ${xs.filter((c) => c.outcome === 'unknown').length} cut by a kill, ${xs.filter((c) => c.outcome === 'refused').length} refused`;
    };
    const sorted = restarts.slice(1).sort((a, b) => a - b);
    const statusCount = (rows: { status: string }[]) =>
      Object.entries(
        rows.reduce<Record<string, number>>((acc, r) => {
          acc[r.status] = (acc[r.status] ?? 0) + 1;
          return acc;
        }, {}),
      )
        .map(([s, n]) => `${s} ${n}`)
        .join(', ');
    const ackedTotal =
      creations.filter((c) => c.outcome === 'ack').length +
      payments.filter((p) => p.outcome === 'ack').length +
      settlementList.reduce((n, s) => n + s.acked.length, 0);
    const lines = [
      `crash survival: ${kills} SIGKILLs (WORKERS=${process.env.CRASH_WORKERS ?? '1'}) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
      `  restarts: first start ${restarts[0]} ms; after a kill min ${sorted[0]} / median ${sorted[Math.floor(sorted.length / 2)]} / max ${sorted.at(-1)} ms`,
      `  requests acknowledged: ${ackedTotal}`,
      `  pay-in creations: ${tally('payin')}`,
      `  payout creations: ${tally('payout')}`,
      `  cut creations sent again: ${retried.created} created now, ${retried.replayed} had been created (replayed)`,
      `  simulator payments: ${payments.length} sent, ${payments.filter((p) => p.outcome === 'ack').length} acknowledged, ${payments.filter((p) => p.outcome === 'unknown').length} cut, ${payments.filter((p) => p.outcome === 'refused').length} refused (already settled)`,
      `  settlements: ${settlementList.length} applications acknowledged (${counts.applyUnknown} cut, ${counts.applyRefused} refused), decisions acknowledged ${settlementList.reduce((n, s) => n + s.acked.length - 1, 0)} (${counts.decisionsUnknown} cut, ${counts.decisionsRefused} refused)`,
      `  orders: pay-ins ${payinRows.length} (${statusCount(payinRows)}); payouts ${payoutRows.length} (${statusCount(payoutRows)}); settlements ${holds.settlements} (${statusCount([...settlementRows.values()])})`,
      `  callbacks: ${events.length} events, ${receiver.received.length} deliveries received, ${bodiesOf.size} distinct webhook-ids, ${receiver.received.length - bodiesOf.size} repeated deliveries (same content), ${conflicting.length} ids with different content`,
      `  holds: ${holds.payout_holds} payout holds and ${holds.settlements} settlement holds, each resolved once; 0 open, frozen 0`,
      `  books: balanced (${ledger.totals.map((t) => `${t.currency} ${t.total}`).join(', ')}), no negative merchant balance`,
      `  leases of the killed servers ended at once: ${leasesEnded.handOvers} payout hand-overs, ${leasesEnded.deliveries} callback deliveries`,
      `  settling after the last restart: ${(settleMs / 1000).toFixed(1)} s`,
      `  statements: ${bank.imports} imports acknowledged (${bank.importsCut} cut), ${bank.posts} postings (${bank.postsCut} cut) paid ${bank.linesPaid} lines at once, ${bank.approvalsAsked} asked a second person; ${statementPaid.n} orders paid by statement, each by one line`,
      ...(bank.refusals.length
        ? [`  statement calls refused: ${[...new Set(bank.refusals)].join('; ')}`]
        : []),
      `  approvals decided under load: ${bank.decisions} (${bank.decisionsCut} cut); slips ${bank.slips} written, ${bank.withdrawals} withdrawn under load; T+N runs ${bank.tnRuns}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }, 900_000);
});

/** Whether the user has a code step left right now. */
function nextCodeAvailable(u: KeyHolder) {
  return Math.max(u.lastStep + 1, stepOf(Date.now())) <= stepOf(Date.now()) + 1;
}
