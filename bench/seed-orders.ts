/**
 * Bulk-loads pay-in orders for the read benchmarks (bench/orders.ts). The platform (simulator channel,
 * roles, `admin`) comes from the server's bootstrap and the 50 merchants from `createMerchant`, so the
 * database is one the server opens as its own; the orders themselves go in by multi-row INSERTs (under
 * PGlite's 32,768-parameter ceiling), not through the HTTP path. They carry the columns, numbers and
 * snapshots the creation path writes, in time order over 60 days: one large merchant (35 %) and 49 others
 * by a Zipf-like share; 70 % paid (with UTR and channel order id), 21 % unpaid, 6 % failed, 3 % creation
 * failed. No order is pending (they would expire under the server's job), no ledger entries are posted
 * (the books stay balanced: nothing was credited), and every callback address is a closed loopback port.
 *
 *   npx tsx bench/seed-orders.ts --dir bench/out/pglite-1m                       # PGlite, 1,000,000 orders
 *   npx tsx bench/seed-orders.ts --dir bench/out/pg-1m \
 *     --url postgres://postgres@127.0.0.1:5432/bench                              # PostgreSQL
 *   … --orders 10000000                                                           # the opt-in 10 M run
 *   … --reset                                                                     # start from an empty database
 */

import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { payin } from '../contract/machines.ts';
import { formatMinor } from '../contract/money.ts';
import { bootstrap } from '../server/bootstrap.ts';
import { inTransaction } from '../server/db/index.ts';
import { channels, merchants } from '../server/db/schema.ts';
import { businessTimeZoneOf, rebuildOrderStats } from '../server/modules/dashboard/stats.ts';
import { createMerchant } from '../server/modules/merchant/service.ts';
import { requestHash } from '../server/modules/payin/creation.ts';
import {
  args,
  engineVersion,
  fmtInt,
  largeMerchantCode,
  load,
  loopbackNotify,
  one,
  openBench,
  prng,
  rawClient,
  target,
} from './common.ts';

const { state } = payin;

const a = args();
const t = target(a);
const total = Number(a.get('orders') ?? 1_000_000);
if (!Number.isInteger(total) || total < 1000 || total > 50_000_000)
  throw new Error('--orders must be a whole number from 1,000 to 50,000,000');
const random = prng(Number(a.get('seed') ?? 20261121));

if (a.has('reset')) {
  if (t.url) {
    const url = new URL(t.url);
    const name = url.pathname.slice(1);
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unexpected database name ${name}`);
    url.pathname = '/postgres';
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
    await admin.end();
  }
  rmSync(t.dir, { recursive: true, force: true });
} else if (t.url) {
  // Creates the database on first use.
  const url = new URL(t.url);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
  if (!found.rowCount) await admin.query(`create database ${name.replace(/[^a-z0-9_]/g, '')}`);
  await admin.end();
}

const deps = await openBench(t);
const { db } = deps.database;
const version = await engineVersion(deps.database);
console.log(`${version} · ${t.url ? t.url : join(t.dir, 'pgdata')} · load ${load()}`);

const [existing] = await db
  .select({ id: merchants.id })
  .from(merchants)
  .where(eq(merchants.code, largeMerchantCode));
if (existing) {
  console.error('This database is seeded already: pass --reset to start again.');
  process.exit(1);
}

// ---- platform and merchants, through the server's own code ----------------------------------------
await bootstrap(deps);
const [simulator] = await db.select().from(channels).where(eq(channels.code, 'simulator'));
if (!simulator) throw new Error('bootstrap made no simulator channel');

const merchantCount = 50;
interface SeedMerchant {
  id: number;
  code: string;
  ratePpm: number;
  platformFee: number;
  style: number;
}
const seeded: SeedMerchant[] = [];
for (let k = 1; k <= merchantCount; k++) {
  const code = `M${20_000 + k}`;
  const ratePpm = 20_000 + Math.floor(random() * 20) * 1_000;
  const platformFee = k % 3 === 0 ? 500 : 0;
  const made = await inTransaction(db, (tx) =>
    createMerchant(deps, tx, {
      code,
      name: k === 1 ? 'Bench Large Merchant' : `Bench Merchant ${k}`,
      owner: {
        username: `bench_${code.toLowerCase()}`,
        password: 'Owner1234!',
        email: `${code}@bench.example`,
      },
      collectionRatePpm: ratePpm,
      platformFee,
      payoutRatePpm: 10_000,
      payoutFee: 500,
      settlementDays: k % 4 === 0 ? 1 : 0,
      callbackUrl: `${loopbackNotify}/${code}`,
      // A merchant routes only through the channels it is created with.
      channels: [{ channelId: simulator.id, weight: 1 }],
    }),
  );
  seeded.push({ id: made.merchant.id, code, ratePpm, platformFee, style: k % 4 });
}

// One large merchant (35 %), the rest by a Zipf-like share of the other 65 %.
const zipf = seeded.slice(1).map((_, i) => 1 / (i + 1) ** 0.9);
const zipfSum = zipf.reduce((s, x) => s + x, 0);
const cumulative: number[] = [];
let acc = 0.35;
cumulative.push(acc);
for (const z of zipf) {
  acc += (0.65 * z) / zipfSum;
  cumulative.push(acc);
}
const pickMerchant = (): SeedMerchant => {
  const x = random();
  for (let i = 0; i < cumulative.length; i++) if (x < cumulative[i]!) return seeded[i]!;
  return seeded.at(-1)!;
};

// ---- orders --------------------------------------------------------------------------------------
const columns = [
  'order_no',
  'merchant_id',
  'merchant_order_no',
  'channel_id',
  'channel_order_id',
  'currency',
  'amount',
  'paid_amount',
  'fee',
  'agent_commission',
  'status',
  'push_status',
  'utr',
  'notify_url',
  'pay_url',
  'payer',
  'request_hash',
  'request_snapshot',
  'response_snapshot',
  'paid_by',
  'failure_reason',
  'expires_at',
  'paid_at',
  'callback_at',
  'created_at',
  'updated_at',
] as const;
/** Rows per INSERT: 1,000 × 26 = 26,000 parameters, under PGlite's ceiling of 32,768. */
const batch = 1_000;
if (batch * columns.length >= 32_768) throw new Error('batch over the parameter ceiling');
const placeholders = (n: number) =>
  Array.from(
    { length: n },
    (_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(',')})`,
  ).join(',');
const fullInsert = `insert into payin_orders (${columns.join(',')}) values ${placeholders(batch)}`;

const end = Date.now() - 2 * 3_600_000;
const start = end - 60 * 24 * 3_600_000;
const span = end - start;
const publicBase = 'http://127.0.0.1:8080';
/** A bijection on 0 … 10^8 − 1 (48271 is prime to 10^8): unique, unsorted-looking digits. */
const scramble = (i: number) => (i * 48_271 + 12_345) % 100_000_000;
const stamp = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(2, 14);
const perMerchant = new Map<number, number>();
const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, '0');

function order(i: number): unknown[] {
  const m = pickMerchant();
  const seq = (perMerchant.get(m.id) ?? 0) + 1;
  perMerchant.set(m.id, seq);
  // Time order: ids grow with created_at, as they do in a live table.
  const created = new Date(start + Math.floor(((i + random()) / total) * span));
  const expires = new Date(created.getTime() + 30 * 60_000);
  const orderNo = `PI${stamp(created)}${String(scramble(i)).padStart(8, '0')}`;
  const merchantOrderNo =
    m.style === 0
      ? `${m.code}-${String(seq).padStart(9, '0')}`
      : m.style === 1
        ? `ord_${created.getTime().toString(36)}${hex(seq, 6).toLowerCase()}`
        : m.style === 2
          ? `${stamp(created)}${String(seq).padStart(7, '0')}`
          : `INV/${created.getUTCFullYear()}/${seq}`;
  // Amounts from 100.00 to 50,000.00, most of them small (log-uniform), in whole rupees.
  const amount = Math.round(10 ** (2 + random() * 2.7)) * 100;
  const fee = Math.min(Math.round((amount * m.ratePpm) / 1_000_000) + m.platformFee, amount);
  const roll = random();
  const status =
    roll < 0.7 ? state.paid : roll < 0.91 ? state.unpaid : roll < 0.97 ? state.failed : state.creation_failed;
  const made = status !== state.creation_failed;
  const channelOrderId = made
    ? `SIMP${created.getTime().toString(36).toUpperCase()}${hex(scramble(i), 8)}`
    : null;
  const payUrl = made ? `${publicBase}/sim/pay/${orderNo}` : null;
  const paidAt =
    status === state.paid ? new Date(created.getTime() + 20_000 + Math.floor(random() * 1_200_000)) : null;
  const utr = status === state.paid ? String(100_000_000_000 + scramble(i) * 10 + (i % 10)) : null;
  const final = status === state.paid ? paidAt! : status === state.creation_failed ? created : expires;
  const pushed = status !== state.creation_failed && random() < 0.97;
  const callbackAt = pushed ? new Date(final.getTime() + 300 + Math.floor(random() * 3000)) : null;
  const notifyUrl = `${loopbackNotify}/${m.code}`;
  const payer = random() < 0.2 ? { email: `payer${scramble(i) % 99_991}@mail.example` } : null;
  const request = {
    merchantOrderNo,
    amount,
    notifyUrl,
    ...(payer ? { payer } : {}),
  };
  const requestSnapshot = {
    source: 'api',
    ip: `203.0.113.${(m.id % 250) + 1}`,
    userId: null,
    request: { ...request, amount: formatMinor(amount) },
  };
  // What the creation answered (gatewayView of the order as it left `creating`), in the contract's key order.
  const responseSnapshot = {
    orderNo,
    merchantOrderNo,
    status: made ? state.pending : state.creation_failed,
    currency: 'INR',
    amount: formatMinor(amount),
    paidAmount: null,
    fee: formatMinor(fee),
    utr: null,
    payUrl,
    createdAt: created.toISOString(),
    expiresAt: expires.toISOString(),
    paidAt: null,
  };
  return [
    orderNo,
    m.id,
    merchantOrderNo,
    made ? simulator!.id : null,
    channelOrderId,
    'INR',
    amount,
    status === state.paid ? amount : null,
    fee,
    0,
    status,
    pushed ? 'pushed' : 'unpushed',
    utr,
    notifyUrl,
    payUrl,
    payer ? JSON.stringify(payer) : null,
    requestHash(request),
    JSON.stringify(requestSnapshot),
    JSON.stringify(responseSnapshot),
    status === state.paid ? 'channel' : null,
    status === state.failed
      ? 'failed at the channel'
      : status === state.creation_failed
        ? 'simulator: simulator declined'
        : null,
    expires.toISOString(),
    paidAt?.toISOString() ?? null,
    callbackAt?.toISOString() ?? null,
    created.toISOString(),
    (callbackAt ?? final).toISOString(),
  ];
}

const client = rawClient(db);
const started = performance.now();
let lastReport = started;
for (let done = 0; done < total; ) {
  const n = Math.min(batch, total - done);
  const params: unknown[] = [];
  for (let r = 0; r < n; r++) params.push(...order(done + r));
  await client.query(
    n === batch ? fullInsert : `insert into payin_orders (${columns.join(',')}) values ${placeholders(n)}`,
    params,
  );
  done += n;
  const now = performance.now();
  if (now - lastReport > 10_000 || done === total) {
    lastReport = now;
    const s = (now - started) / 1000;
    console.log(`  ${fmtInt(done)} orders, ${s.toFixed(0)} s, ${fmtInt(done / s)} rows/s, load ${load()}`);
  }
}
const loadSeconds = (performance.now() - started) / 1000;

// Bring the planner's statistics and the visibility map up to date, as autovacuum would on a live table
// (PGlite runs no autovacuum).
const tAnalyze = performance.now();
await db.execute(sql`vacuum (analyze) payin_orders`);
const analyzeSeconds = (performance.now() - tAnalyze) / 1000;
// The dashboard's daily order stats, made once from the bulk-loaded orders (the write path keeps them after).
const tStats = performance.now();
await rebuildOrderStats(db, businessTimeZoneOf(deps.config));
console.log(`order stats rebuilt in ${((performance.now() - tStats) / 1000).toFixed(1)} s`);

const sizes = await one<{ table: string; total: string; db: string; n: string }>(
  db,
  // Summed over the monthly partitions (migration 0020): the partitioned parent itself holds nothing.
  sql`select pg_size_pretty(sum(pg_relation_size(relid))) as table,
             pg_size_pretty(sum(pg_total_relation_size(relid))) as total,
             pg_size_pretty(pg_database_size(current_database())) as db,
             (select count(*) from payin_orders)::text as n
      from pg_partition_tree('payin_orders')`,
);
await deps.database.close();
const folder =
  !t.url && existsSync(join(t.dir, 'pgdata'))
    ? execFileSync('du', ['-sh', join(t.dir, 'pgdata')], { encoding: 'utf8' }).split('\t')[0]
    : undefined;
console.log(
  `Seeded ${fmtInt(Number(sizes.n))} pay-in orders for ${merchantCount} merchants in ${loadSeconds.toFixed(1)} s ` +
    `(${fmtInt(total / loadSeconds)} rows/s), vacuum analyze ${analyzeSeconds.toFixed(1)} s.`,
);
console.log(
  `payin_orders: heap ${sizes.table}, with indexes ${sizes.total}; database ${sizes.db}` +
    (folder ? `; data folder ${folder}` : ''),
);
