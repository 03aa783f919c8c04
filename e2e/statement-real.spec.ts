/**
 * Issue 26's "Done when", in Chromium, in English and in Chinese: a person drops a bank's real download
 * (Kotak Mahindra Bank's NetBanking CSV, server/modules/statement/samples/india/) with no mapping chosen,
 * sees the mapping detected from it (the bank, header row 14, dates `dd-MM-yyyy`), the whole file's totals
 * (162 credits for 93,866.81, 387 debits for 93,960.84, as docs/STATEMENTS.md and SOURCES.md state them)
 * and the 3 rows that are no transaction (the closing-balance line and the bank's footer), imports it,
 * and the two orders whose payers named two of its credits' RRNs (same amounts) are ready to post; a
 * finance user posts them with a reason and a Google code, and both orders are paid.
 *
 * Each language has its own receiving account (a fresh one: its lines are new) and its own two credits of
 * the file (a UTR that paid one order never pays another). Screenshots of the file dropped, the preview,
 * the import done and the posting at 1280 and 800 px into STATEMENT_SHOTS_DIR when set; the assertions run always.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { type Browser, expect, type Locator, type Page, request, test } from '@playwright/test';
import { errno } from '../contract/errno.ts';
import { formatMinor, toMinor } from '../contract/money.ts';
import { adminApi, nextCode, type Operator, roleUser, signIn } from './orders-support.ts';
import { type Lang, setLanguage, shooter, tr, widths } from './shots.ts';
import { bankAccount } from './statement-support.ts';
import { type Api, baseURL, grouped, watchConsole } from './support.ts';

const kotakFile = resolve(
  import.meta.dirname,
  '../server/modules/statement/samples/india/kotak-shivam1304-statement.csv',
);
const kotakName = 'kotak-shivam1304-statement.csv';

const dir = process.env.STATEMENT_SHOTS_DIR ?? '';
const shoot = dir ? shooter(dir) : null;

interface Credit {
  /** The bank's serial number of the line. */
  serial: string;
  rrn: string;
  /** As the API takes it: `2670.00`. */
  amount: string;
  narration: string;
}

/**
 * The Kotak download's transactions (`Sl. No.` rows), each split into its cells (quotes honoured: the
 * bank quotes its grouped amounts), with the totals of its credits and debits in paise; and its credits
 * whose narration `UPI/<name>/<RRN>/<note>` carries an RRN no other line of the file carries.
 */
function readKotak() {
  const cells = (line: string) => {
    const out: string[] = [];
    let cell = '';
    let quoted = false;
    for (const ch of line.replace(/\r$/, '')) {
      if (ch === '"') quoted = !quoted;
      else if (ch === ',' && !quoted) {
        out.push(cell);
        cell = '';
      } else cell += ch;
    }
    out.push(cell);
    return out;
  };
  const rows = readFileSync(kotakFile, 'utf8')
    .split('\n')
    .map(cells)
    .filter((c) => /^\d+$/.test(c[0] ?? '') && c.length >= 9);
  const rrnOf = (narration: string) => /^UPI\/[^/]*\/(\d{12})(?:\/|$)/.exec(narration)?.[1];
  const seen = new Map<string, number>();
  for (const r of rows) {
    const rrn = rrnOf(r[3]!);
    if (rrn) seen.set(rrn, (seen.get(rrn) ?? 0) + 1);
  }
  const total = (side: 'CR' | 'DR') => {
    const lines = rows.filter((r) => r[6] === side);
    return {
      count: lines.length,
      sum: formatMinor(lines.reduce((s, r) => s + toMinor(r[5]!.replace(/,/g, '')), 0)),
    };
  };
  const credits: Credit[] = rows
    .filter((r) => r[6] === 'CR')
    .map((r) => ({
      serial: r[0]!,
      rrn: rrnOf(r[3]!) ?? '',
      amount: r[5]!.replace(/,/g, ''),
      narration: r[3]!,
    }))
    .filter((c) => c.rrn && seen.get(c.rrn) === 1);
  return { lines: rows.length, credits: total('CR'), debits: total('DR'), upiCredits: credits };
}

/**
 * The payer's UTR as the pay page sends it, from the payer's own address: a loopback address of its own
 * (each payer is a person on their own phone; the server takes 10 UTRs per address in 10 minutes, and the
 * other specs' payers submit theirs from 127.0.0.1). Answers the server's errno.
 */
function payerUtr(orderNo: string, utr: string): Promise<{ errno: number; errmsg: string }> {
  const from = `127.${1 + Math.floor(Math.random() * 254)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
  const url = new URL(`/pay/${orderNo}/utr`, baseURL);
  const body = JSON.stringify({ utr });
  return new Promise((done, fail) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          try {
            done(JSON.parse(text));
          } catch (error) {
            fail(error);
          }
        });
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

interface Proved extends Credit {
  orderNo: string;
}

interface Workspace {
  accountId: number;
  accountNumber: string;
  /** Two pending pay-ins on the account whose payers named two credits of the download (RRN and amount). */
  proved: [Proved, Proved];
}

/**
 * As the admin: a Kotak account (statement-support.ts `bankAccount`); then, as the merchant's owner, a
 * pay-in of each of two of `credits`' amounts whose payer submits that credit's RRN on the pay page. A credit whose RRN an
 * earlier run's order already holds (a reused server) is passed over: a UTR pays one order only.
 */
async function workspace(admin: Api, credits: Credit[]): Promise<Workspace> {
  const { accountId, accountNumber, owner } = await bankAccount(
    admin,
    { name: 'Kotak Mahindra Bank', ifsc: 'KKBK0000001', handle: 'kotak', word: 'Kotak' },
    10,
  );
  const http = await request.newContext({ baseURL, extraHTTPHeaders: { 'Accept-Language': 'en' } });
  try {
    const login = await (await http.post('/api/auth/login', { data: owner })).json();
    expect(login.errno, `sign-in of ${owner.username}: ${login.errmsg}`).toBe(0);
    const headers = { 'admin-token': login.data.token as string };
    const proved: Proved[] = [];
    for (const credit of credits) {
      if (proved.length === 2) break;
      const made = await (
        await http.post('/api/merchantOrder/create', { data: { amount: credit.amount }, headers })
      ).json();
      expect(made.errno, `pay-in of ${credit.amount}: ${made.errmsg}`).toBe(0);
      const sent = await payerUtr(made.data.orderNo, credit.rrn);
      // errno.utrUsed: an earlier run's order holds this RRN (a reused server); the pay-in is left to expire.
      if (sent.errno === errno.utrUsed) continue;
      expect(sent.errno, `payer UTR ${credit.rrn}: ${sent.errmsg}`).toBe(0);
      proved.push({ ...credit, orderNo: made.data.orderNo as string });
    }
    expect(proved, 'two credits of the download whose RRN no order holds yet').toHaveLength(2);
    return { accountId, accountNumber, proved: proved as [Proved, Proved] };
  } finally {
    await http.dispose();
  }
}

async function newPage(browser: Browser, user: Operator, lang: Lang) {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = watchConsole(page);
  await signIn(page, user);
  await setLanguage(page, lang);
  // The keys work once the user's permissions are in: the menu shows the import screen then.
  await expect(
    page.getByRole('link', { name: tr(lang, 'commands.statement.import.title'), exact: true }),
  ).toBeAttached();
  return { page, errors };
}

/** With STATEMENT_SHOTS_DIR: the view at both widths, `target`'s top at the top of the screen; back at 1280 after. */
async function shots(page: Page, name: string, lang: Lang, target?: Locator) {
  if (!shoot) return;
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    if (target) await target.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await shoot(page, name, lang, width);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

const kotak = readKotak();

test('the Kotak download as the sample notes state it', () => {
  // The figures the screen must show, read here from the file itself (SOURCES.md: counted on the original).
  expect(kotak.lines).toBe(549);
  expect(kotak.credits).toEqual({ count: 162, sum: '93866.81' });
  expect(kotak.debits).toEqual({ count: 387, sum: '93960.84' });
  expect(kotak.upiCredits[0]).toMatchObject({ rrn: '600206745632', amount: '50.00' });
});

for (const lang of ['en', 'zh_CN'] as const) {
  test(`a real bank download (${lang}): dropped with no mapping, detected, totals and skipped rows seen, imported, posted; its orders paid`, async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    if (dir) mkdirSync(dir, { recursive: true });
    const admin = await adminApi();
    const isFinance = (perms: string[]) => perms.includes('POST /statement/accept');
    const operator = await roleUser(
      admin,
      'e2e_kimp',
      (p) => p.includes('POST /statement/import') && !isFinance(p),
    );
    const finance = await roleUser(admin, 'e2e_kfin', isFinance);
    // English proves the file's first credits (the 50.00 of PERSON 001 first), Chinese its last ones.
    const w = await workspace(admin, lang === 'en' ? kotak.upiCredits : [...kotak.upiCredits].reverse());
    const order = async (orderNo: string) =>
      admin.ok<{ status: string; amount: string; utr: string | null }>('GET', '/merchantOrder/info', {
        orderNo,
      });
    for (const p of w.proved) expect((await order(p.orderNo)).status).toBe('pending');

    // 1. The operator opens the import screen from the palette, chooses the account and drops the file.
    const op = await newPage(browser, operator, lang);
    const page = op.page;
    const title = tr(lang, 'commands.statement.import.title');
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: tr(lang, 'app.palette.title') });
    await expect(palette.getByRole('combobox')).toBeFocused();
    await page.keyboard.type(title);
    await expect(palette.getByRole('option', { name: title })).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('Enter');
    await expect(palette).toBeHidden();
    await expect(page.getByRole('heading', { name: title, level: 1 })).toBeVisible();
    await expect(page).toHaveURL(/\/receiving\/statements/);

    await page
      .getByLabel(tr(lang, 'statement.import.account'), { exact: true })
      .selectOption(String(w.accountId));
    await expect(page).toHaveURL(new RegExp(`accountId=${w.accountId}\\b`));
    const mapping = page.getByLabel(tr(lang, 'statement.import.mappingChoice'), { exact: true });
    // No mapping chosen: the screen reads the layout from the file.
    await expect(mapping).toHaveValue('');
    await expect(mapping.locator('option:checked')).toHaveText(tr(lang, 'statement.import.detect'));
    await page.getByLabel(tr(lang, 'statement.import.file'), { exact: true }).setInputFiles(kotakFile);
    await expect(
      page.getByText(
        tr(lang, 'statement.import.fileChosen', {
          name: kotakName,
          size: grouped(String(statSync(kotakFile).size)),
        }),
      ),
    ).toBeVisible();

    await shots(page, 'real-drop', lang, page.getByRole('heading', { name: title, level: 1 }));

    // 2. Ctrl-Enter previews: how the file was read, the totals, the skipped rows. Nothing is written.
    const importButton = page.getByRole('button', { name: tr(lang, 'statement.import.import'), exact: true });
    await expect(importButton).toBeDisabled();
    await mapping.press('Control+Enter');
    const preview = page.getByRole('region', {
      name: tr(lang, 'statement.import.previewTitle'),
      exact: true,
    });
    await expect(preview).toBeVisible({ timeout: 20_000 });
    const read = preview.getByTestId('statement-read');
    await expect(read).toContainText(
      tr(lang, 'statement.import.detected', {
        format: 'CSV',
        bank: tr(lang, 'statement.import.detectedBank', { bank: 'Kotak Mahindra Bank' }),
        row: 14,
        dateFormat: 'dd-MM-yyyy',
      }),
    );
    await expect(read.getByRole('button', { name: tr(lang, 'statement.import.useDetected') })).toBeVisible();
    const total = (t: { count: number; sum: string }) =>
      tr(lang, 'statement.import.totalOf', { count: grouped(String(t.count)), sum: grouped(t.sum) });
    await expect(preview.getByTestId('totals-credits')).toHaveText(total(kotak.credits));
    await expect(preview.getByTestId('totals-credits')).toHaveText(
      lang === 'en' ? '162 for 93,866.81' : '162 笔，共 93,866.81',
    );
    await expect(preview.getByTestId('totals-debits')).toHaveText(
      lang === 'en' ? '387 for 93,960.84' : '387 笔，共 93,960.84',
    );
    const previewCounts = preview.getByRole('region', {
      name: tr(lang, 'statement.import.countsOf', { of: tr(lang, 'statement.import.previewTitle') }),
    });
    const count = (bar: Locator, key: string) =>
      bar
        .locator('.totals-item')
        .filter({ has: page.getByText(tr(lang, `statement.import.counts.${key}`), { exact: true }) })
        .locator('dd');
    await expect(count(previewCounts, 'lines')).toHaveText('549');
    await expect(count(previewCounts, 'new')).toHaveText('549');
    // No row errors: every transaction row of the real file reads.
    await expect(preview.locator('.statement-table.bad')).toHaveCount(0);
    const skipped = preview.locator('details.statement-skipped');
    await expect(skipped.locator('summary')).toHaveText(tr(lang, 'statement.import.skipped', { count: 3 }));
    await skipped.locator('summary').click();
    await expect(skipped).toHaveAttribute('open', '');
    const skippedRows = skipped.locator('tbody tr');
    await expect(skippedRows).toHaveCount(3);
    await expect(skippedRows.nth(0)).toContainText('Closing balance');
    await expect(skippedRows.nth(2)).toContainText('Kotak Mahindra Bank Ltd.');
    await expect(skippedRows.nth(0)).toContainText(tr(lang, 'statement.import.skipKinds.text'));
    // The first lines as read: the 50.00 credit of PERSON 001 with its RRN as the UTR.
    await expect(preview.getByRole('row').filter({ hasText: '600206745632' }).first()).toContainText('50.00');
    for (const p of w.proved)
      expect((await order(p.orderNo)).status, 'a preview writes nothing').toBe('pending');
    await shots(page, 'real-preview', lang, preview);

    // 3. Ctrl-Shift-Enter imports: the two credits whose RRN and amount the payers named are ready to post.
    await expect(importButton).toBeEnabled();
    await mapping.press('Control+Shift+Enter');
    const result = page.getByRole('region', { name: tr(lang, 'statement.import.result'), exact: true });
    await expect(result).toBeVisible({ timeout: 30_000 });
    const resultCounts = result.getByRole('region', {
      name: tr(lang, 'statement.import.countsOf', { of: tr(lang, 'statement.import.result') }),
    });
    await expect(count(resultCounts, 'lines')).toHaveText('549');
    await expect(count(resultCounts, 'new')).toHaveText('549');
    await expect(count(resultCounts, 'ready')).toHaveText('2');
    await expect(count(resultCounts, 'matched')).toHaveText('0');
    const sum = formatMinor(toMinor(w.proved[0].amount) + toMinor(w.proved[1].amount));
    await expect(result.getByRole('status')).toHaveText(
      new RegExp(
        `^${tr(lang, 'statement.import.wouldPay', { n: 2, sum: grouped(sum) }).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    );
    // Evidence, not a decision: the operator may not post it, and nothing is paid yet.
    await expect(result.getByRole('button', { name: tr(lang, 'commands.statement.post.title') })).toHaveCount(
      0,
    );
    for (const p of w.proved) expect((await order(p.orderNo)).status).toBe('pending');
    await shots(page, 'real-done', lang, result);

    // 4. A finance user posts the import (p on its row): a reason and the Google code. Both orders are paid.
    const fin = await newPage(browser, finance, lang);
    await fin.page.goto(`/receiving/statements?accountId=${w.accountId}`);
    const imports = fin.page.getByRole('grid', { name: tr(lang, 'statement.import.history') });
    const row = imports.getByRole('row').nth(1);
    await expect(row).toContainText(kotakName);
    await expect(imports.getByRole('row')).toHaveCount(2);
    await fin.page.locator('body').press('j');
    await expect(row).toBeFocused();
    await fin.page.keyboard.press('p');
    const post = fin.page.getByRole('dialog', { name: tr(lang, 'commands.statement.post.title') });
    await expect(post.getByLabel(tr(lang, 'statement.post.reason'))).toBeFocused();
    await expect(post.getByRole('note')).toHaveText(
      tr(lang, 'statement.post.intro', { n: 2, sum: grouped(sum) }),
    );
    await expect(post).toContainText(kotakName);
    await fin.page.keyboard.type(
      lang === 'en'
        ? 'Kotak download of this morning, UPI RRNs checked'
        : '今早下载的 Kotak 流水，已核对 UPI RRN',
    );
    await fin.page.keyboard.press('Tab');
    await fin.page.keyboard.type(await nextCode(finance.secret));
    await shots(fin.page, 'real-post', lang);
    await fin.page.keyboard.press('Enter');
    await expect(post).toBeHidden();
    await expect(fin.page.getByText(tr(lang, 'statement.post.done', { n: 2 }))).toBeVisible();
    for (const p of w.proved) {
      const paid = await order(p.orderNo);
      expect(paid.status, `${p.orderNo} proved by line ${p.serial}`).toBe('paid');
      expect(paid.utr).toBe(p.rrn);
      expect(paid.amount).toBe(p.amount);
    }

    for (const p of [op, fin]) {
      expect(p.errors, 'console errors').toEqual([]);
      await p.page.context().close();
    }
    await admin.dispose();
  });
}
