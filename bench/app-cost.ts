/**
 * The app's own cost a call, in one process, without HTTP or a load generator: the pay-in list as the
 * real app answers it (`createApp`, every layer: request id, log line, security headers, body limit,
 * session, validation, handler, envelope) against `lean` (bench/floor.ts's: the session looked up in
 * memory, the query validated, the filters, the page statement, the rows written as JSON), the same page
 * of the same database, interleaved in rounds so that the machine's noise falls on both alike. CPU time
 * of this process a call (`process.cpuUsage`), which is what a server spends; PostgreSQL's is not in it.
 * For judging a change to the per-call layers back to back (issue 16); the HTTP ratios under load are
 * bench/floor.ts's `--only pass,lean,list`.
 *
 *   npx tsx bench/app-cost.ts --dir bench/out/pg-1m --url postgres://postgres@127.0.0.1:5432/bench
 * Options: --calls 2000 (per side per round), --rounds 5, --concurrency 8, --side app|lean (only that
 *   side: for a CPU profile, `node --cpu-prof --import tsx bench/app-cost.ts … --side app`).
 */
import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { endpoints } from '../contract/index.ts';
import { merchants } from '../server/db/schema.ts';
import { createApp } from '../server/http/app.ts';
import type { SessionUser } from '../server/http/session.ts';
import { sha256 } from '../server/lib/crypto.ts';
import { payinList } from '../server/modules/orders/kinds.ts';
import { payinOrderRow } from '../server/modules/payin/views.ts';
import { gatewayRoutes, routes } from '../server/routes.ts';
import { args, benchAdminPassword, largeMerchantCode, load, openBench, target } from './common.ts';

const a = args();
const t = target(a);
const calls = Number(a.get('calls') ?? 2000);
const rounds = Number(a.get('rounds') ?? 5);
const concurrency = Number(a.get('concurrency') ?? 8);
const only = a.get('side') as 'app' | 'lean' | undefined;

const deps = await openBench(t, 20);
deps.logger.level = 'warn';
const { database } = deps;
const [merchant] = await database.db.select().from(merchants).where(eq(merchants.code, largeMerchantCode));
if (!merchant) throw new Error('seed the bench database first (bench/seed-orders.ts)');
const app = createApp(deps, routes, gatewayRoutes);

const signedIn = (await (
  await app.request('http://localhost/api/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '127.0.0.1' },
    body: JSON.stringify({ username: 'admin', password: benchAdminPassword }),
  })
).json()) as { errno: number; data: { token: string } };
if (signedIn.errno !== 0) throw new Error(`sign-in failed: ${JSON.stringify(signedIn)}`);
const token = signedIn.data.token;

const now = Date.now();
const query = new URLSearchParams({
  from: new Date(now - 30 * 86_400_000).toISOString(),
  to: new Date(now).toISOString(),
  merchantId: String(merchant.id),
  status: 'paid',
  pageSize: '20',
});

// `lean` as bench/floor.ts serves it.
const { cursorAfter, filters: listFilters, listPage } = payinList;
const rowJson = payinOrderRow.json;
const floorToken = 'floor-session-token';
const sessions = new Map([[sha256(floorToken), { kind: 'platform', merchantId: null } as SessionUser]]);
const lean = new Hono();
lean.get('/lean', async (c) => {
  const who = sessions.get(sha256(c.req.header('admin-token') ?? ''));
  if (!who) return c.json({ errno: 1001, errmsg: '', data: null });
  const parsed = endpoints.merchantOrder.list.input.safeParse(c.req.query());
  if (!parsed.success) return c.json({ errno: 422, errmsg: '', data: null });
  const lf = listFilters(deps, who, parsed.data, 'en');
  const rows = await listPage(database, database.db, lf, parsed.data.cursor, parsed.data.pageSize + 1);
  const page = rows.slice(0, parsed.data.pageSize);
  const next = rows.length > page.length ? cursorAfter(page.at(-1)!) : null;
  return c.body(
    `{"errno":0,"errmsg":"","data":{"list":[${page.map(rowJson).join(',')}],"total":10000,"totalCapped":true,"nextCursor":${JSON.stringify(next)}}}`,
    200,
    { 'content-type': 'application/json' },
  );
});

const sides = {
  lean: () => lean.request(`http://localhost/lean?${query}`, { headers: { 'admin-token': floorToken } }),
  app: () =>
    app.request(`http://localhost/api/merchantOrder/list?${query}`, {
      headers: { 'admin-token': token, 'x-forwarded-for': '127.0.0.1', 'accept-language': 'en' },
    }),
};

/** `calls` calls, `concurrency` at a time; answers CPU µs and wall µs a call. */
async function measure(call: () => Response | Promise<Response>) {
  let left = calls;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) {
        const res = await call();
        const text = await res.text();
        if (!text.startsWith('{"errno":0,')) throw new Error(`refused: ${text.slice(0, 200)}`);
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { cpu: (cpu.user + cpu.system) / calls, wall: ((performance.now() - t0) * 1000) / calls };
}

console.log(
  `app cost · ${t.url ? 'PostgreSQL' : 'PGlite'} · ${calls} calls × ${rounds} rounds, ${concurrency} at a time · load ${load()}`,
);
// Warm both (JIT, prepared statements, caches).
if (only !== 'app') await measure(sides.lean);
if (only !== 'lean') await measure(sides.app);
const got = { lean: [] as number[], app: [] as number[] };
for (let r = 0; r < rounds; r++) {
  for (const side of only ? [only] : r % 2 ? (['app', 'lean'] as const) : (['lean', 'app'] as const)) {
    const m = await measure(sides[side]);
    got[side].push(m.cpu);
  }
  console.log(
    `round ${r + 1}: lean ${got.lean.at(-1)?.toFixed(0) ?? '—'} µs · app ${got.app.at(-1)?.toFixed(0) ?? '—'} µs a call (CPU of this process)`,
  );
}
if (only) {
  await database.close();
  process.exit(0);
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const l = median(got.lean);
const p = median(got.app);
console.log(
  `median: lean ${l.toFixed(0)} µs, app ${p.toFixed(0)} µs: the app's layers ${(p - l).toFixed(0)} µs a call (${(p / l).toFixed(2)} × lean) · load ${load()}`,
);
await database.close();
