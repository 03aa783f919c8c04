/**
 * Whether a statement import freezes the server (issue 25): the server as `npm start` runs it (or under
 * tsx with --tsx), `GET /api/health` asked every 20 ms, its answer times' p50 and p99 at rest for N
 * seconds, then again for N seconds while the largest allowed statements are imported one after another
 * (`POST /api/statement/import`, `dryRun`): a 10 MB paste of 200,000 lines and an XLSX unpacking to near
 * 50 MB. Each answer's time runs from when it was due, so a server that cannot answer counts its wait.
 * The data folder is the bench's own (PGlite, or --url for PostgreSQL); a bank account is made there.
 *
 *   npx tsx bench/import-health.ts --dir bench/out/import-health
 * Options: --seconds 20 (each phase), --tsx (the TypeScript under tsx), --url postgres://…, --cpu-prof
 * (profiles the server into bench/out/prof), --no-amounts (the same statements without amounts: every row
 * read and interpreted, a row error each, none looked up among the account's saved lines — what reading
 * alone costs the server).
 * Target (docs/PERFORMANCE.md): p99 during the imports ≤ 2 × p99 at rest, in the same run.
 */
import { mkdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { endpoints } from '../contract/index.ts';
import { maxStatementBytes, maxStatementRows } from '../server/modules/statement/read.ts';
import { args, benchAdminPassword, load, percentile, root, signIn, startServer, target } from './common.ts';

const a = args();
const t = target(a);
const seconds = Number(a.get('seconds') ?? 20);
const everyMs = 20;
mkdirSync(t.dir, { recursive: true });
const profDir = join(root, 'bench', 'out', 'prof');
if (a.has('cpu-prof')) mkdirSync(profDir, { recursive: true });

const server = await startServer({
  dir: t.dir,
  url: t.url,
  tsx: a.has('tsx'),
  nodeArgs: a.has('cpu-prof') ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [],
  env: { ADMIN_PASSWORD: benchAdminPassword, LOG_LEVEL: 'error' },
});
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/**
 * One call on a kept-alive connection: its status and body. A connection the server closed as idle just as
 * it was taken again (building the XLSX takes longer than the server's keep-alive) fails at once with
 * ECONNRESET or EPIPE: asked again once on a new one, as Node's documentation advises.
 */
async function call<T = unknown>(method: string, path: string, body?: unknown, token?: string) {
  const payload =
    body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  try {
    return await callOnce<T>(method, path, payload, token);
  } catch (err) {
    if (!(err as { reused?: boolean }).reused) throw err;
    return callOnce<T>(method, path, payload, token);
  }
}

function callOnce<T>(method: string, path: string, payload: Buffer | undefined, token?: string) {
  return new Promise<{ status: number; json: { errno: number; data: T } }>((done, fail) => {
    const req = request(
      `${server.base}/api${path}`,
      {
        method,
        agent,
        headers: {
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          ...(token ? { 'admin-token': token } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          done({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || '{}') }),
        );
        res.on('error', fail);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      fail(
        Object.assign(err, {
          reused: req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE'),
        }),
      ),
    );
    req.end(payload);
  });
}

async function ok(path: string, body: unknown, token: string) {
  const r = await call<{ id: number }>('POST', path, body, token);
  if (r.json.errno !== 0) throw new Error(`${path}: ${JSON.stringify(r.json)}`);
  return r.json.data;
}

// ---- a bank account to import into --------------------------------------------------------------------
const token = await signIn(server.base, 'admin', benchAdminPassword);
const suffix = Date.now().toString(36);
const channel = await ok(
  endpoints.channel.create.path,
  {
    code: `bank${suffix}`,
    name: 'Bank collections',
    adapter: 'bank',
    minAmount: '1.00',
    maxAmount: '1000000.00',
  },
  token,
);
const account = await ok(
  endpoints.receivingAccount.create.path,
  {
    kind: 'public',
    bankName: 'HDFC Bank',
    accountName: 'Acme Collections Pvt Ltd',
    accountNumber: `5010${Date.now().toString().slice(-10)}`,
    ifsc: 'HDFC0001234',
    dailyLimit: '1000000.00',
  },
  token,
);
await ok(
  endpoints.cardBinding.create.path,
  { accountId: account.id, channelId: channel.id, weight: 100 },
  token,
);

// ---- the largest allowed statements -------------------------------------------------------------------
const mapping = {
  headerRow: 1,
  dateColumn: 'Date',
  dateFormat: 'yyyy-MM-dd',
  narrationColumn: 'Narration',
  referenceColumn: 'Ref',
  debitColumn: 'Debit',
  creditColumn: 'Credit',
};
const day = (i: number) => `2026-11-${String((i % 28) + 1).padStart(2, '0')}`;
const withAmounts = !a.has('no-amounts');
const pasteLines = [
  'Date,Narration,Ref,Debit,Credit',
  ...Array.from(
    { length: maxStatementRows },
    (_, i) =>
      `${day(i)},UPI/CR/6315${String(i).padStart(8, '0')},R${i},,${withAmounts ? `${(i % 9000) + 100}.00` : ''}`,
  ),
];
const paste = `${pasteLines.join('\n')}\n`;
if (Buffer.byteLength(paste) > maxStatementBytes) throw new Error('the paste is past the limit');
const book = new ExcelJS.Workbook();
const sheet = book.addWorksheet('Statement');
sheet.addRow(['Date', 'Narration', 'Ref', 'Debit', 'Credit', 'Balance']);
for (let i = 0; i < 150_000; i++)
  sheet.addRow([
    new Date(`${day(i)}T00:00:00Z`),
    `UPI/CR/6315${String(i).padStart(8, '0')}/ASHA RAO/okicici/PAYMENT`,
    `R${i}`,
    null,
    withAmounts ? (i % 9000) + 100.25 : null,
    1_000_000 + i,
  ]);
const xlsx = Buffer.from(await book.xlsx.writeBuffer()).toString('base64');
// Bodies serialized once: stringifying 10 MB while health is timed would delay this process's own asks.
const importBody = (input: Record<string, unknown>) =>
  Buffer.from(JSON.stringify({ accountId: account.id, mapping, dryRun: true, ...input }));
const imports = [
  { name: `paste ${(Buffer.byteLength(paste) / 2 ** 20).toFixed(1)} MB`, body: importBody({ text: paste }) },
  {
    name: `XLSX ${((xlsx.length * 3) / 4 / 2 ** 20).toFixed(1)} MB`,
    body: importBody({ file: xlsx, fileName: 'big.xlsx' }),
  },
];

// ---- health, at rest and during imports ---------------------------------------------------------------
/** Asks for health every `everyMs` until `until` resolves; answers each answer's ms from when it was due. */
async function healthWhile(until: Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  const pending: Promise<void>[] = [];
  let stop = false;
  void until.then(() => {
    stop = true;
  });
  const start = performance.now();
  for (let n = 0; !stop; n++) {
    const due = start + n * everyMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      call('GET', endpoints.health.check.path).then((r) => {
        if (r.status !== 200) throw new Error(`health answered ${r.status}`);
        times.push(performance.now() - due);
      }),
    );
  }
  await Promise.all(pending);
  return times.sort((x, y) => x - y);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stats = (xs: number[]) => ({ p50: percentile(xs, 50), p99: percentile(xs, 99), n: xs.length });
const fmtStats = (s: ReturnType<typeof stats>) =>
  `p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms (${s.n} answers)`;

console.log(
  `${t.url ? 'PostgreSQL' : 'PGlite'} · ${a.has('tsx') ? 'tsx' : 'built'} server · ${withAmounts ? 'lines with amounts' : 'no amounts'} · ${seconds} s a phase · load ${load()}`,
);
// Warm: the statement worker starts, the code paths compile.
for (const i of imports) await call('POST', endpoints.statement.import.path, i.body, token);

const rest = stats(await healthWhile(sleep(seconds * 1000)));
console.log(`health at rest:        ${fmtStats(rest)}`);

const done: { name: string; ms: number; outcome: string }[] = [];
const importing = (async () => {
  const end = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const next = imports[i % imports.length]!;
    const started = performance.now();
    const outcome = await call<{ counts: { lines: number }; errors: unknown[] }>(
      'POST',
      endpoints.statement.import.path,
      next.body,
      token,
    ).then(
      (r) =>
        r.json.errno === 0
          ? `${r.json.data.counts.lines} lines, ${r.json.data.errors.length} row errors answered`
          : `errno ${r.json.errno} ${JSON.stringify(r.json.data)}`,
      (err: Error) => err.message,
    );
    done.push({ name: next.name, ms: performance.now() - started, outcome });
  }
})();
const during = stats(await healthWhile(importing));
console.log(`health during imports: ${fmtStats(during)}`);
for (const i of imports) {
  const mine = done.filter((d) => d.name === i.name);
  console.log(
    `  ${i.name}: ${mine.length} imports, ${mine.map((d) => (d.ms / 1000).toFixed(1)).join(' · ')} s, ${mine[0]?.outcome}`,
  );
}
await server.stop();
console.log(
  `health: p99 ${during.p99.toFixed(1)} ms during import = ${(during.p99 / rest.p99).toFixed(1)} × at rest (${rest.p99.toFixed(1)} ms) · load ${load()}`,
);
process.exit(0);
