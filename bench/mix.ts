/**
 * The day's mix (bench/day.ts, issue 31) as a module: the seeded database made ready (10 merchants, M20001
 * holding half, wallets credited, payout whitelist, two merchants' pay-ins on a bank account of ours and a
 * finance user to post its statement), a callback receiver, the server on a fresh copy of
 * the database, one event of each class, an open-loop step at a rate, and what the server acknowledged
 * (for the crash run, bench/day-crash.ts).
 */
import { execFileSync } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import http, { createServer } from 'node:http';
import { basename } from 'node:path';
import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import { tnLine } from '../contract/machines.ts';
import { formatMinor, toMinor } from '../contract/money.ts';
import type { StatementMapping } from '../contract/statementMapping.ts';
import { inTransaction } from '../server/db/index.ts';
import {
  cardBindings,
  channels,
  merchantChannels,
  merchants,
  receivingAccounts,
  roles,
  tnLines,
  userRoles,
  users,
} from '../server/db/schema.ts';
import type { Deps } from '../server/deps.ts';
import { merchantAccount, platformAccount, post } from '../server/ledger/index.ts';
import { writeParameter } from '../server/lib/parameters.ts';
import { codeAt, newTotpSecret } from '../server/modules/auth/totp.ts';
import { resetMerchantSecrets } from '../server/modules/merchant/service.ts';
import { businessNow } from '../server/modules/settlement/tn.ts';
import {
  type BenchServer,
  type BenchTarget,
  benchAdminPassword,
  copyTarget,
  cpuPerCall,
  createdPrefix,
  engineVersion,
  fmtInt,
  fmtMs,
  freePort,
  gatewayHeaders,
  largeMerchantCode,
  loopbackNotify,
  one,
  openBench,
  percentile,
  prng,
  root,
  rows,
  signIn,
  startServer,
} from './common.ts';

export type ClassName = 'payin' | 'payout' | 'pay' | 'payoutDone' | 'list' | 'lookup' | 'report';
/** Per 100 events, and each class's p99 bound in ms (the header's table). */
export const mix: Record<ClassName, { per100: number; bound: number }> = {
  payin: { per100: 36, bound: 200 },
  payout: { per100: 10, bound: 200 },
  pay: { per100: 25, bound: 200 },
  payoutDone: { per100: 9, bound: 200 },
  list: { per100: 9, bound: 100 },
  lookup: { per100: 7, bound: 50 },
  report: { per100: 4, bound: 100 },
};
export const classes = Object.keys(mix) as ClassName[];
if (classes.reduce((s, c) => s + mix[c].per100, 0) !== 100) throw new Error('the mix must add to 100');
export interface ClassFigures {
  n: number;
  errors: number;
  p50: number;
  p99: number;
}
export interface Step {
  offered: number;
  achieved: number;
  byClass: Record<ClassName, ClassFigures>;
  errors: number;
  skipped: number;
  held: boolean;
  cpu: { server: number; database: number; load: number };
  /** The step's slowest events, slowest first: class, when it was due (ms into the step), its latency. */
  slowest: { c: ClassName; dueMs: number; ms: number }[];
}

export interface TnRunRow {
  day: string;
  startedAt: string;
  finishedAt: string | null;
  merchants: number;
  lines: number;
  amountReleased: string;
  outcome: string;
}

interface BenchMerchant {
  id: number;
  code: string;
  apiSecret: string;
}

/**
 * The merchants whose pay-ins go to an account of ours behind a bank channel: their payers say their UTRs
 * on the pay page, and the day's statement import pays those orders (two of the nine small merchants: one
 * pay-in in nine; the rest are paid by the simulator channel).
 */
const bankMerchantCodes = ['M20008', 'M20009'];
const bankChannelCode = 'bench-day-bank';
/** The finance user who posts the day's statement: a second platform user, with a bound Google key. */
const financeUsername = 'bench-finance';

/** The statement import of the day: what it held, what it did, how long the import and the posting took. */
export interface StatementImportReport {
  /** Credits carrying a payer's UTR, and the lines besides (a charge, an unknown payer). */
  withUtr: number;
  others: number;
  counts: { lines: number; new: number; ready: number; exceptions: number; matched: number };
  importMs: number;
  /** Posted by the finance user with a Google code: orders paid, lines refused, an approval asked. */
  paid: number;
  refused: number;
  approval: boolean;
  postMs: number;
  /** When (`performance.now()`) the import was asked for, the finance user signed in, the posting answered. */
  at: { start: number; signedIn: number; posted: number };
}

/** A write the server acknowledged: what it said it made. */
export interface Acknowledged {
  orderNo: string;
  merchantId: number;
  merchantOrderNo: string;
  /** Minor units. */
  amount: number;
}

const dayMs = 86_400_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The generator's HTTP client: node:http over kept-alive sockets, a GET without a body and a POST with
 * one, 30 s at most. Leaner than fetch (the generator shares the server's two cores), and an event's
 * latency is the server's answer, whatever client waits for it. FIFO: each request takes the socket idle
 * longest, so the load spreads over every socket, and so over both workers, as many merchants' own
 * connections would (Node's default, LIFO, kept reusing the last freed one: one worker took 4 in 5).
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 256, scheduling: 'fifo' });
function call(
  url: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: body === undefined ? 'GET' : 'POST', headers, agent, timeout: 30_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Opens the day on the seeded database `t` (seeded by bench/seed-orders.ts with `orders` pay-ins when it
 * has none): `only` the named classes, in their shares.
 */
export async function openDay(t: BenchTarget, o: { only?: string; orders: number; workers: number }) {
  const dbName = t.url ? new URL(t.url).pathname.slice(1) : basename(t.dir);
  const random = prng(20261130);
  /** `--only payin,list`: those classes alone, in their shares of the mix (to see what one class costs). */
  const chosen = o.only ? (o.only.split(',') as ClassName[]) : classes;
  for (const c of chosen)
    if (!classes.includes(c)) throw new Error(`--only: no class ${c} (${classes.join(', ')})`);

  // ---- the database: seeded when empty, the 10 merchants made ready ----------------------------------
  {
    const deps = await openBench(t, 2);
    const { n } = await one<{ n: string }>(
      deps.database.db,
      sql`select count(*)::text as n from payin_orders`,
    );
    await deps.database.close();
    if (n === '0') {
      console.log(`no pay-ins in ${dbName}: seeding ${fmtInt(o.orders)} with bench/seed-orders.ts`);
      execFileSync(
        process.execPath,
        [
          '--import',
          'tsx',
          'bench/seed-orders.ts',
          '--dir',
          t.dir,
          ...(t.url ? ['--url', t.url] : []),
          '--orders',
          String(o.orders),
        ],
        { cwd: root, stdio: 'inherit' },
      );
    }
  }
  const deps = await openBench(t, 2);
  const { db } = deps.database;
  const version = await engineVersion(deps.database);
  const count = Number((await one<{ n: string }>(db, sql`select count(*)::text as n from payin_orders`)).n);
  /** The large merchant and the next nine (seeded as M20001 … M20050). */
  const codes = Array.from({ length: 10 }, (_, i) => `M${20001 + i}`);
  if (codes[0] !== largeMerchantCode) throw new Error('the large merchant is not M20001');
  const found = await db.select().from(merchants).where(inArray(merchants.code, codes));
  if (found.length !== 10)
    throw new Error('merchants M20001 … M20010 missing: seed with bench/seed-orders.ts');
  const team: BenchMerchant[] = [];
  for (const code of codes) {
    const m = found.find((x) => x.code === code)!;
    const { apiSecret } = await resetMerchantSecrets(deps, db, m.id, 'api');
    team.push({ id: m.id, code, apiSecret });
  }
  await db
    .update(merchants)
    .set({ payoutIpWhitelist: ['127.0.0.1'] })
    .where(inArray(merchants.code, codes));
  // Payouts need money in the payout wallet: credited as a confirmed recharge would.
  for (const m of team)
    await inTransaction(db, (tx) =>
      post(tx, {
        kind: 'recharge_confirmed',
        refType: 'bench_day',
        refId: randomUUID(),
        at: new Date(),
        lines: [
          { account: platformAccount('settlement_clearing', 'INR'), amount: -1_000_000_000_00 },
          { account: merchantAccount(m.id, 'payout_available', 'INR'), amount: 1_000_000_000_00 },
        ],
      }),
    );
  // The T+N run of the day: for each merchant on T+N, a day's collections due today, in its
  // `collection_pending` as the payments would have left them (once: every phase runs on a copy, where the
  // run releases them). The daily job runs it in the server at the minute `serve` sets (`tnRunAt`).
  const today = (await businessNow(db, new Date())).day;
  const onTn = await db
    .select({ id: merchants.id, days: merchants.settlementDays })
    .from(merchants)
    .where(gt(merchants.settlementDays, 0));
  const dueAlready = new Set(
    (await db.select({ merchantId: tnLines.merchantId }).from(tnLines).where(eq(tnLines.dueDay, today))).map(
      (l) => l.merchantId,
    ),
  );
  for (const m of onTn) {
    if (dueAlready.has(m.id)) continue;
    const net = 2_500_000_00;
    const orderDay = new Date(Date.parse(`${today}T00:00:00Z`) - m.days * dayMs).toISOString().slice(0, 10);
    await inTransaction(db, async (tx) => {
      await post(tx, {
        kind: 'payin_paid',
        refType: 'bench_day',
        refId: randomUUID(),
        at: new Date(),
        lines: [
          { account: platformAccount('channel_clearing', 'INR'), amount: -net },
          { account: merchantAccount(m.id, 'collection_pending', 'INR'), amount: net },
        ],
      });
      await tx.insert(tnLines).values({
        merchantId: m.id,
        currency: 'INR',
        orderDay,
        dueDay: today,
        orders: 2_000,
        gross: net,
        net,
        status: tnLine.state.pending,
      });
    });
  }
  const bank = await bankOfTheDay(
    deps,
    team.filter((m) => bankMerchantCodes.includes(m.code)),
  );
  /** Order numbers for the palette's look-ups: seeded orders of the last 60 days, any merchant. */
  const lookupNumbers = rows<{ order_no: string }>(
    await db.execute(
      sql`select order_no from payin_orders tablesample system (1)
          where created_at >= ${new Date(Date.now() - 59 * dayMs)} limit 2000`,
    ),
  ).map((r) => r.order_no);
  if (lookupNumbers.length < 100) throw new Error('too few orders to look up');
  await deps.database.close();

  /**
   * Where callbacks go: a receiver in this process that answers 200 for nine merchants; M20010's port is
   * closed, so its callbacks fail and are retried (the failing receiver of the day).
   */
  let callbacksAnswered = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      callbacksAnswered++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('success');
    });
  });
  const receiverPort = await freePort();
  await new Promise<void>((done) => receiver.listen(receiverPort, '127.0.0.1', done));
  const notifyUrlOf = (m: BenchMerchant) =>
    m.code === 'M20010'
      ? `${loopbackNotify}/${m.code}`
      : `http://127.0.0.1:${receiverPort}/callback/${m.code}`;
  const pickMerchant = () => (random() < 0.5 ? team[0]! : team[1 + Math.floor(random() * 9)]!);
  // Dealt from a shuffled deck of the chosen classes in their shares (100 cards for the whole mix): each
  // deck's events hold the mix exactly, so a step's count of each class is known beforehand (bench/day.ts
  // sizes its steps by it).
  const deck = chosen.flatMap((c) => Array<ClassName>(mix[c].per100).fill(c));
  let dealt = deck.length;
  const pickClass = (): ClassName => {
    if (dealt === deck.length) {
      for (let i = deck.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [deck[i], deck[j]] = [deck[j]!, deck[i]!];
      }
      dealt = 0;
    }
    return deck[dealt++]!;
  };

  let server: BenchServer;
  let base = '';
  let token = '';
  /** The copy the server runs on (its backends' CPU is counted). */
  let serving: string | undefined;
  const runId = `${createdPrefix}DAY-${Date.now().toString(36)}-`;
  let serial = 0;
  /** Pay-ins this phase made and nobody paid yet, oldest first (`bank`: on the bank's account). */
  let unpaid: { orderNo: string; amount: number; bank: boolean }[] = [];
  /** Bank pay-ins whose payers said their UTRs, waiting for the statement. */
  let saidUtr: { orderNo: string; amount: number; utr: string }[] = [];
  let payers = 0;
  /** Payouts this phase made that the channel has not answered yet, oldest first, with when they were made. */
  let unanswered: { orderNo: string; at: number }[] = [];
  /** What the server acknowledged: creations (201) and payments (errno 0). */
  const acknowledged = {
    payin: [] as Acknowledged[],
    payout: [] as Acknowledged[],
    /** Pay-ins paid, payouts the channel completed. */
    paid: [] as string[],
    done: [] as string[],
  };

  /** The server on a fresh copy of the seeded database (`suffix` names the copy), `env` added. */
  async function serve(
    suffix: string,
    opts: { env?: Record<string, string>; nodeArgs?: string[]; tnRunAt?: Date } = {},
  ) {
    const copy = await copyTarget(t, suffix);
    {
      // The job runs the day's T+N at its first wake-up (every 30 s) from this minute of business time on:
      // the minute after `tnRunAt`, or none today.
      const onCopy = await openBench({ dir: copy.dir, url: copy.url }, 1);
      const at =
        opts.tnRunAt && (await businessNow(onCopy.database.db, new Date(opts.tnRunAt.getTime() + 60_000)));
      await writeParameter(onCopy.database.db, 'tn_run_time', at && at.day === today ? at.time : '23:59');
      await onCopy.database.close();
    }
    serving = copy.name;
    const up = async () => {
      server = await startServer({
        dir: copy.dir,
        url: copy.url,
        // Payers reach the pay page through one proxy of ours, each from an address of its own.
        env: { WORKERS: String(o.workers), TRUST_PROXY: '1', ...opts.env },
        nodeArgs: opts.nodeArgs,
      });
      base = server.base;
      token = await signIn(base, 'admin', benchAdminPassword);
    };
    await up();
    unpaid = [];
    saidUtr = [];
    unanswered = [];
    return {
      copy,
      async stop() {
        await server.stop();
        await copy.drop();
      },
      /** A crash (SIGKILL to the process group) and the server started again on the same copy. */
      async crash() {
        await server.kill();
        await up();
      },
    };
  }

  const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  /** One event of a class: answers whether it succeeded (`undefined`: nothing to do, not counted). */
  async function fire(c: ClassName): Promise<boolean | undefined> {
    const consoleCall = (path: string, body?: string) =>
      call(`${base}${path}`, { 'admin-token': token, 'content-type': 'application/json' }, body);
    const console_ = (path: string, body?: string) =>
      consoleCall(path, body).then((r) => r.status === 200 && r.text.startsWith('{"errno":0'));
    const now = Date.now();
    switch (c) {
      case 'payin':
      case 'payout': {
        const m = pickMerchant();
        const path = `/gateway/v1/${c}`;
        const amount = `${100 + (serial % 900)}.00`;
        const merchantOrderNo = `${runId}${++serial}`;
        const body = JSON.stringify(
          c === 'payin'
            ? { merchantOrderNo, amount, notifyUrl: notifyUrlOf(m) }
            : {
                merchantOrderNo,
                amount,
                accountName: 'Asha Verma',
                accountNumber: '123456789012',
                ifsc: 'HDFC0001234',
                notifyUrl: notifyUrlOf(m),
              },
        );
        const res = await call(
          `${base}${path}`,
          gatewayHeaders(m.code, m.apiSecret, 'POST', path, body),
          body,
        );
        const text = res.text;
        if (res.status !== 201) {
          if (errorSamples.size < 5) errorSamples.add(`${c} ${res.status} ${text.slice(0, 160)}`);
          return false;
        }
        const { orderNo } = (JSON.parse(text) as { data: { orderNo: string } }).data;
        acknowledged[c].push({
          orderNo,
          merchantId: m.id,
          merchantOrderNo,
          amount: toMinor(amount),
        });
        if (c === 'payin')
          unpaid.push({ orderNo, amount: toMinor(amount), bank: bankMerchantCodes.includes(m.code) });
        else unanswered.push({ orderNo, at: Date.now() });
        return true;
      }
      case 'pay': {
        const order = unpaid.shift();
        if (!order) return undefined;
        const { orderNo } = order;
        if (order.bank) {
          // The payer paid by UPI into our account and says the UTR on the pay page; the statement pays it.
          const utr = String(randomInt(700_000_000_000, 800_000_000_000));
          const n = ++payers;
          const res = await call(
            `${base}/pay/${orderNo}/utr`,
            {
              'content-type': 'application/json',
              'x-forwarded-for': `10.${n >> 16}.${(n >> 8) & 255}.${n & 255}`,
            },
            JSON.stringify({ utr }),
          );
          const said = res.status === 200 && res.text.startsWith('{"errno":0');
          if (said) saidUtr.push({ orderNo, amount: order.amount, utr });
          else if (errorSamples.size < 5)
            errorSamples.add(`pay (UTR) ${res.status} ${res.text.slice(0, 160)}`);
          return said;
        }
        const paid = await console_('/api/simulator/pay', JSON.stringify({ orderNo, result: 'success' }));
        if (paid) acknowledged.paid.push(orderNo);
        return paid;
      }
      case 'payoutDone': {
        // The channel answers a payout the server handed it (processing): a second after its creation at
        // the earliest; one not handed over yet waits at the back of the line.
        const next = unanswered[0];
        if (!next || next.at > now - 1_000) return undefined;
        unanswered.shift();
        const res = await consoleCall(
          '/api/simulator/payout',
          JSON.stringify({ orderNo: next.orderNo, result: 'success' }),
        );
        const text = res.text;
        if (res.status === 200 && text.startsWith('{"errno":0')) {
          acknowledged.done.push(next.orderNo);
          return true;
        }
        // 404: no channel yet (queued, not the simulator's until handed over); 409: not processing yet.
        if (res.status === 404 || (res.status === 409 && !text.includes('already settled'))) {
          unanswered.push({ orderNo: next.orderNo, at: now });
          return undefined;
        }
        if (errorSamples.size < 5) errorSamples.add(`payoutDone ${res.status} ${text.slice(0, 160)}`);
        return false;
      }
      case 'list': {
        const p = new URLSearchParams({
          from: new Date(now - 30 * dayMs).toISOString(),
          to: new Date(now).toISOString(),
          merchantId: String(pickMerchant().id),
          pageSize: '20',
        });
        return console_(`/api/merchantOrder/list?${p}`);
      }
      case 'lookup': {
        const q = lookupNumbers[Math.floor(random() * lookupNumbers.length)]!;
        const p = new URLSearchParams({
          from: new Date(now - 60 * dayMs).toISOString(),
          to: new Date(now).toISOString(),
          q,
        });
        return console_(`/api/merchantOrder/list?${p}`);
      }
      case 'report': {
        const p = new URLSearchParams({
          from: ymd(now - 6 * dayMs),
          to: ymd(now),
          merchantId: String(pickMerchant().id),
        });
        return console_(`/api/statOrder/list?${p}`);
      }
    }
  }
  const errorSamples = new Set<string>();

  /** One step: `rate` events a second for `seconds`, each timed from its scheduled moment. */
  async function step(rate: number, seconds: number): Promise<Step> {
    const total = Math.round(rate * seconds);
    dealt = deck.length; // a fresh deck: each whole deck of the step holds the mix
    const ms: Record<ClassName, number[]> = {
      payoutDone: [],
      payin: [],
      payout: [],
      pay: [],
      list: [],
      lookup: [],
      report: [],
    };
    const errors = Object.fromEntries(classes.map((c) => [c, 0])) as Record<ClassName, number>;
    let skipped = 0;
    let ok = 0;
    let lastAnswer = 0;
    const slowest: Step['slowest'] = [];
    const keepSlow = (c: ClassName, due: number, ms: number) => {
      if (slowest.length === 5 && ms <= slowest[4]!.ms) return;
      slowest.push({ c, dueMs: due - t0, ms });
      slowest.sort((x, y) => y.ms - x.ms).splice(5);
    };
    const t0 = performance.now() + 20;
    const cpu = await cpuPerCall(
      server.process.pid!,
      serving,
      async () => {
        const inFlight: Promise<void>[] = [];
        for (let i = 0; i < total; i++) {
          const due = t0 + (i * 1000) / rate;
          const wait = due - performance.now();
          if (wait >= 1) await sleep(wait);
          const c = pickClass();
          inFlight.push(
            fire(c).then(
              (r) => {
                const at = performance.now();
                if (r === undefined) {
                  skipped++;
                  return;
                }
                ms[c].push(at - due);
                keepSlow(c, due, at - due);
                lastAnswer = Math.max(lastAnswer, at);
                if (r) ok++;
                else errors[c]++;
              },
              (e: unknown) => {
                ms[c].push(performance.now() - due);
                keepSlow(c, due, performance.now() - due);
                errors[c]++;
                if (errorSamples.size < 5) errorSamples.add(`${c} ${String(e)}`);
              },
            ),
          );
        }
        await Promise.all(inFlight);
      },
      () => total - skipped,
    );
    const byClass = {} as Record<ClassName, ClassFigures>;
    for (const c of classes) {
      const s = ms[c].sort((x, y) => x - y);
      byClass[c] = { n: s.length, errors: errors[c], p50: percentile(s, 50), p99: percentile(s, 99) };
    }
    const errorCount = classes.reduce((s, c) => s + errors[c], 0);
    const held =
      errorCount === 0 && chosen.every((c) => !(byClass[c].p99 > mix[c].bound) && byClass[c].n > 0);
    return {
      offered: rate,
      achieved: ok / ((Math.max(lastAnswer, t0 + 1) - t0) / 1000),
      byClass,
      errors: errorCount,
      skipped,
      held,
      cpu: { server: cpu.server, database: cpu.database, load: cpu.load },
      slowest,
    };
  }

  const header =
    '| offered /s | achieved /s | ' +
    classes.map((c) => `${c} p50 / p99 ms (≤ ${mix[c].bound})`).join(' | ') +
    ' | errors | CPU µs an event: server · PostgreSQL · load | |';
  const cell = (f: ClassFigures, c: ClassName) =>
    f.n ? `${fmtMs(f.p50)} / ${fmtMs(f.p99)}${f.p99 > mix[c].bound ? ' ✗' : ''}` : '—';
  const line = (s: Step) =>
    `| ${fmtInt(s.offered)} | ${fmtInt(s.achieved)} | ` +
    classes.map((c) => cell(s.byClass[c], c)).join(' | ') +
    ` | ${s.errors}${s.skipped ? ` (${s.skipped} skipped: nothing to pay or answer yet)` : ''} | ${fmtInt(s.cpu.server)} · ${fmtInt(s.cpu.database)} · ${fmtInt(s.cpu.load)} | ${s.held ? '✓' : '✗'} |`;

  /**
   * The day's statement import: the bank account's statement in HDFC's export layout (the `hdfc` preset,
   * read from the console's mappings), holding a UPI credit for each UTR a payer said so far, a cash
   * deposit nobody can name and the bank's charge; imported by the operator (`POST /statement/import`),
   * then its ready lines posted by the finance user with a Google code and a reason (`/statement/accept`).
   */
  async function statementImport(): Promise<StatementImportReport> {
    const credits = saidUtr.splice(0);
    const ddmmyy = `${today.slice(8, 10)}/${today.slice(5, 7)}/${today.slice(2, 4)}`;
    let balance = 50_000_000;
    const row = (narration: string, reference: string, debit: number, credit: number) => {
      balance += credit - debit;
      const cell = (v: number) => (v ? `"${formatMinor(v)}"` : '');
      return `${ddmmyy},${narration},${reference},${ddmmyy},${cell(debit)},${cell(credit)},"${formatMinor(balance)}"`;
    };
    const text = [
      'Date,Narration,Chq./Ref.No.,Value Dt,Withdrawal Amt.,Deposit Amt.,Closing Balance',
      ...credits.map((c, i) =>
        row(
          `UPI-PAYER ${i + 1}-payer${i + 1}@okaxis-UTIB0000123-${c.utr}-PAYMENT`,
          `0000${c.utr}`,
          0,
          c.amount,
        ),
      ),
      row(`CASH DEPOSIT ${runId}`, '', 0, 77_777),
      row('SMS CHARGES FOR THE QUARTER', '', 1_770, 0),
      '',
    ].join('\n');
    const asJson = { 'admin-token': token, 'content-type': 'application/json' };
    const mappings = JSON.parse((await call(`${base}/api/statementMapping/list`, asJson)).text) as {
      data: { list: { preset: string | null; mapping: StatementMapping }[] };
    };
    const start = performance.now();
    const hdfc = mappings.data.list.find((m) => m.preset === 'hdfc');
    if (!hdfc) throw new Error('no HDFC preset among the mappings');
    let t0 = performance.now();
    const imported = await call(
      `${base}/api/statement/import`,
      asJson,
      JSON.stringify({ accountId: bank.accountId, mapping: hdfc.mapping, text }),
    );
    const importMs = performance.now() - t0;
    const done = JSON.parse(imported.text) as {
      errno: number;
      data: { importId: number; counts: StatementImportReport['counts'] };
    };
    if (done.errno !== 0) throw new Error(`the statement import failed: ${imported.text.slice(0, 300)}`);
    // The finance user signs in with one code and posts with the next (a code is taken once, in order).
    const step = Math.floor(Date.now() / 30_000);
    const codeOf = (k: number) => codeAt(bank.financeSecret, new Date(k * 30_000));
    const login = JSON.parse(
      (
        await call(
          `${base}/api/auth/login`,
          { 'content-type': 'application/json' },
          JSON.stringify({ username: financeUsername, password: benchAdminPassword, code: codeOf(step) }),
        )
      ).text,
    ) as { errno: number; data: { token: string } };
    if (login.errno !== 0) throw new Error(`the finance user's sign-in failed: ${JSON.stringify(login)}`);
    t0 = performance.now();
    const signedIn = t0;
    const posted = await call(
      `${base}/api/statement/accept`,
      { 'admin-token': login.data.token, 'content-type': 'application/json' },
      JSON.stringify({
        importId: done.data.importId,
        reason: "the day's statement checked",
        code: codeOf(step + 1),
      }),
    );
    const postMs = performance.now() - t0;
    const post = JSON.parse(posted.text) as {
      errno: number;
      data: { matched: number; refused: unknown[]; approval: unknown };
    };
    if (post.errno !== 0) throw new Error(`posting the statement failed: ${posted.text.slice(0, 300)}`);
    return {
      withUtr: credits.length,
      others: done.data.counts.lines - credits.length,
      counts: done.data.counts,
      importMs,
      paid: post.data.matched,
      refused: post.data.refused.length,
      approval: post.data.approval !== null,
      postMs,
      at: { start, signedIn, posted: t0 + postMs },
    };
  }

  return {
    dbName,
    /** The prefix of this run's merchant order numbers. */
    runId,
    version,
    count,
    chosen,
    team,
    serve,
    step,
    header,
    line,
    errorSamples,
    acknowledged,
    callbacks: () => callbacksAnswered,
    statementImport,
    /** The T+N runs of the phase's server, as the console lists them. */
    async tnRuns() {
      const res = await call(`${base}/api/settlementtnLog/list`, { 'admin-token': token });
      return (JSON.parse(res.text) as { data: { list: TnRunRow[] } }).data.list;
    },
    closeReceiver: () => receiver.close(),
  };
}

/**
 * The bank of the day, on the seeded database (once; its key renewed each run): a bank channel with one
 * public HDFC account of ours, the bank merchants routed through it alone, and the finance user who posts
 * statements (the admin's password, the finance role, a Google key whose secret the run keeps).
 */
async function bankOfTheDay(deps: Deps, routed: readonly BenchMerchant[]) {
  const { db } = deps.database;
  const financeSecret = newTotpSecret();
  const accountId = await inTransaction(db, async (tx) => {
    const [known] = await tx
      .select({ accountId: cardBindings.accountId })
      .from(cardBindings)
      .innerJoin(channels, eq(channels.id, cardBindings.channelId))
      .where(eq(channels.code, bankChannelCode));
    if (known) return known.accountId;
    const [channel] = await tx
      .insert(channels)
      .values({ code: bankChannelCode, name: 'UPI bank collections', adapter: 'bank', supportsPayout: false })
      .returning({ id: channels.id });
    const [account] = await tx
      .insert(receivingAccounts)
      .values({
        kind: 'public',
        bankName: 'HDFC Bank',
        accountName: 'Bench Collections Pvt Ltd',
        accountNumber: '50200099887766',
        ifsc: 'HDFC0001234',
        vpa: 'benchcollect@hdfcbank',
        dailyLimit: 100_000_000_000,
      })
      .returning({ id: receivingAccounts.id });
    await tx.insert(cardBindings).values({ accountId: account!.id, channelId: channel!.id, weight: 100 });
    const ids = routed.map((m) => m.id);
    await tx.delete(merchantChannels).where(inArray(merchantChannels.merchantId, ids));
    await tx
      .insert(merchantChannels)
      .values(ids.map((merchantId) => ({ merchantId, channelId: channel!.id })));
    return account!.id;
  });
  await inTransaction(db, async (tx) => {
    const [admin] = await tx.select().from(users).where(eq(users.username, 'admin'));
    const [finance] = await tx
      .select({ id: roles.id })
      .from(roles)
      .where(and(eq(roles.kind, 'platform'), eq(roles.builtinKey, 'finance')));
    if (!admin || !finance) throw new Error('no admin or finance role in the seeded database');
    const sealed = deps.sealer.seal(financeSecret);
    const [user] = await tx
      .insert(users)
      .values({
        kind: 'platform',
        username: financeUsername,
        nickname: 'Finance (bench)',
        passwordHash: admin.passwordHash,
        totpSecret: sealed,
      })
      .onConflictDoUpdate({ target: users.username, set: { totpSecret: sealed, totpLastStep: 0 } })
      .returning({ id: users.id });
    await tx.insert(userRoles).values({ userId: user!.id, roleId: finance.id }).onConflictDoNothing();
  });
  return { accountId, financeSecret };
}
