/**
 * The newcomer's walk-through of issue 25, by keyboard, in English and in Chinese: an operator imports a
 * bank file and sees what it would pay (and cannot post it); a finance user posts it with a reason and a
 * Google code; what passes the day's limit of maker–checker waits in Approvals; the poster cannot approve
 * it; a second finance user does, and both orders are paid. Screenshots of each step at 1280 and 800 px
 * (into `MONEY_DOORS_SHOTS_DIR` when set, else the test's output folder).
 */
import { mkdirSync } from 'node:fs';
import { type Browser, expect, request, test } from '@playwright/test';
import { formatMinor } from '../contract/money.ts';
import { parameterDefs } from '../contract/parameters.ts';
import { adminApi, nextCode, type Operator, roleUser, signIn } from './orders-support.ts';
import { type Lang, setLanguage, shootWidths, tr } from './shots.ts';
import { digits } from './statement-support.ts';
import { type Api, baseURL, watchConsole } from './support.ts';

test.describe.configure({ mode: 'serial' });

interface Workspace {
  accountId: number;
  day: string;
  /** Two pay-ins whose payers named their UTRs: together above the threshold. */
  orders: { orderNo: string; amount: string; utr: string }[];
}

/** A bank channel, a public account and a merchant routed to it; two pay-ins above the threshold together. */
async function workspace(admin: Api): Promise<Workspace> {
  const stamp = Date.now().toString(36).toUpperCase();
  const channel = await admin.ok<{ id: number }>('POST', '/channel/create', {
    code: `e2edoor${stamp.toLowerCase()}`,
    name: `E2E doors ${stamp}`,
    adapter: 'bank',
    minAmount: '1.00',
    maxAmount: '1000000.00',
  });
  const account = await admin.ok<{ id: number }>('POST', '/receivingAccount/create', {
    kind: 'public',
    bankName: 'HDFC Bank',
    accountName: `E2E Doors ${stamp}`,
    accountNumber: digits(12),
    ifsc: 'HDFC0001234',
    dailyLimit: '1000000.00',
  });
  await admin.ok('POST', '/cardBinding/create', {
    accountId: account.id,
    channelId: channel.id,
    weight: 100,
  });
  const owner = { username: `e2e_door_${stamp.toLowerCase()}`, password: 'E2ePassw0rd!' };
  await admin.ok('POST', '/merchant/create', {
    name: `E2E Doors Merchant ${stamp}`,
    owner,
    maxAmount: '500000.00',
    channels: [{ channelId: channel.id, weight: 100 }],
  });
  const http = await request.newContext({ baseURL, extraHTTPHeaders: { 'Accept-Language': 'en' } });
  try {
    const login = await (await http.post('/api/auth/login', { data: owner })).json();
    expect(login.errno, login.errmsg).toBe(0);
    const headers = { 'admin-token': login.data.token as string };
    // 60 % and 45 % of the threshold: the first fits the day's limit, the second does not.
    const threshold = parameterDefs.maker_checker_threshold.default;
    const orders = [];
    for (const share of [0.6, 0.45]) {
      const amount = formatMinor(Math.round(threshold * share) + Math.floor(Math.random() * 99));
      const made = await (await http.post('/api/merchantOrder/create', { data: { amount }, headers })).json();
      expect(made.errno, made.errmsg).toBe(0);
      const utr = digits(12);
      const sent = await (await http.post(`/pay/${made.data.orderNo}/utr`, { data: { utr } })).json();
      expect(sent.errno, sent.errmsg).toBe(0);
      orders.push({ orderNo: made.data.orderNo as string, amount, utr });
    }
    const period = await admin.ok<{ to: string }>('GET', '/statOrder/balance', { view: 'account' });
    return { accountId: account.id, day: period.to, orders };
  } finally {
    await http.dispose();
  }
}

/** The two credits as HDFC's download writes them (the preset's layout). */
function statement(w: Workspace): string {
  const day = `${w.day.slice(8, 10)}/${w.day.slice(5, 7)}/${w.day.slice(2, 4)}`;
  let balance = 100_000_000;
  const rows = w.orders.map((o) => {
    balance += Math.round(Number(o.amount) * 100);
    return `${day},UPI-PAYER-payer@okicici-ICIC0001234-${o.utr}-PAYMENT,0000${o.utr},${day},,"${o.amount}","${formatMinor(balance)}"`;
  });
  return [
    'Date,Narration,Chq./Ref.No.,Value Dt,Withdrawal Amt.,Deposit Amt.,Closing Balance',
    ...rows,
    '',
  ].join('\n');
}

const dir = process.env.MONEY_DOORS_SHOTS_DIR;

async function newPage(browser: Browser, user: Operator, lang: Lang) {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = watchConsole(page);
  await signIn(page, user);
  await setLanguage(page, lang);
  return { page, errors };
}

/** The screen at both widths, back at 1280 after. */
const shoot = shootWidths(dir);

for (const lang of ['en', 'zh_CN'] as const) {
  test(`walk-through (${lang}): import as evidence, post with a code, the rest waits for a second person`, async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    if (dir) mkdirSync(dir, { recursive: true });
    const admin = await adminApi();
    const isFinance = (perms: string[]) => perms.includes('POST /statement/accept');
    const [operator, poster, approver] = [
      await roleUser(admin, 'e2e_imp', (p) => p.includes('POST /statement/import') && !isFinance(p)),
      await roleUser(admin, 'e2e_post', isFinance),
      await roleUser(admin, 'e2e_appr', isFinance),
    ];
    const w = await workspace(admin);
    const status = async (orderNo: string) =>
      (await admin.ok<{ status: string }>('GET', '/merchantOrder/info', { orderNo })).status;

    // 1. The operator imports the bank's file: evidence. It shows what it would pay, and pays nothing.
    const op = await newPage(browser, operator, lang);
    await op.page.goto(`/receiving/statements?accountId=${w.accountId}`);
    await op.page
      .getByLabel(tr(lang, 'statement.import.mappingChoice'), { exact: true })
      .selectOption({ label: 'HDFC Bank' });
    const pasted = op.page.getByLabel(tr(lang, 'statement.import.paste'));
    await pasted.fill(statement(w));
    // The screen's keys: Ctrl-Enter previews, Ctrl-Shift-Enter imports (once a clean preview is shown).
    await pasted.press('Control+Enter');
    await expect(
      op.page.getByRole('region', { name: tr(lang, 'statement.import.previewTitle'), exact: true }),
    ).toBeVisible();
    await expect(
      op.page.getByRole('button', { name: tr(lang, 'statement.import.import'), exact: true }),
    ).toBeEnabled();
    await pasted.press('Control+Shift+Enter');
    const result = op.page.getByRole('region', { name: tr(lang, 'statement.import.result'), exact: true });
    await expect(result).toBeVisible({ timeout: 20_000 });
    // "Ready to post: <sum> (credits: 2)…": what it would pay, once a finance user posts it.
    const wouldPay = tr(lang, 'statement.import.wouldPay', { sum: '|' }).split('|')[0]!;
    await expect(result.getByRole('status').filter({ hasText: wouldPay })).toBeVisible();
    // Posting is not the operator's: no button offers it.
    await expect(result.getByRole('button', { name: tr(lang, 'commands.statement.post.title') })).toHaveCount(
      0,
    );
    for (const o of w.orders) expect(await status(o.orderNo)).toBe('pending');
    await shoot(op.page, 'doors-1-imported', lang);

    // 2. A finance user posts it (p on the import's row): a reason and the Google code.
    const fin = await newPage(browser, poster, lang);
    await fin.page.goto(`/receiving/statements?accountId=${w.accountId}`);
    const imports = fin.page.getByRole('grid', { name: tr(lang, 'statement.import.history') });
    // The import's own row (the list says "Loading…" in a row of its own until it answers).
    const row = imports.locator('tr[aria-rowindex="2"]');
    await expect(row).toBeVisible();
    await fin.page.locator('body').press('j');
    await expect(row).toBeFocused();
    await fin.page.keyboard.press('p');
    const post = fin.page.getByRole('dialog', { name: tr(lang, 'commands.statement.post.title') });
    await expect(post.getByLabel(tr(lang, 'statement.post.reason'))).toBeFocused();
    await fin.page.keyboard.type(lang === 'en' ? 'HDFC statement of this morning' : '今早的 HDFC 流水');
    await fin.page.keyboard.press('Tab');
    await fin.page.keyboard.type(await nextCode(poster.secret));
    await shoot(fin.page, 'doors-2-post', lang);
    await fin.page.keyboard.press('Enter');
    await expect(post).toBeHidden();
    await expect(fin.page.getByText(tr(lang, 'statement.post.done', { n: 1 }))).toBeVisible();
    expect(await status(w.orders[0]!.orderNo)).toBe('paid');
    expect(await status(w.orders[1]!.orderNo), 'beyond the day’s limit it waits').toBe('pending');

    // 3. In Approvals the poster finds the request and may not approve it.
    await fin.page.keyboard.press('g');
    await fin.page.keyboard.press('k');
    const grid = fin.page.getByRole('grid', { name: tr(lang, 'commands.approval.list.title') });
    const request = grid.getByRole('row').filter({ hasText: w.orders[1]!.orderNo });
    await expect(request).toBeVisible();
    await expect(request).toContainText(poster.username);
    const index = Number(await request.getAttribute('aria-rowindex')) - 2;
    for (let i = 0; i <= index; i++) await fin.page.keyboard.press('j');
    await expect(request).toBeFocused();
    await fin.page.keyboard.press('a');
    const own = fin.page.getByRole('dialog', { name: tr(lang, 'commands.approval.approve.title') });
    await expect(own.getByLabel(tr(lang, 'screens.order.googleCode'))).toBeFocused();
    await fin.page.keyboard.type(await nextCode(poster.secret));
    await fin.page.keyboard.press('Enter');
    await expect(own.getByRole('alert')).toContainText('1040');
    await shoot(fin.page, 'doors-3-own-refused', lang);
    await fin.page.keyboard.press('Escape');

    // 4. A second finance user approves it: the second order is paid, in their name.
    const second = await newPage(browser, approver, lang);
    // The keys work once the user's permissions are in: the menu shows the screen then.
    await expect(
      second.page
        .getByRole('navigation', { name: tr(lang, 'app.menu') })
        .getByRole('link', { name: tr(lang, 'commands.approval.list.title'), exact: true }),
    ).toBeVisible();
    await second.page.locator('body').press('g');
    await second.page.keyboard.press('k');
    const grid2 = second.page.getByRole('grid', { name: tr(lang, 'commands.approval.list.title') });
    const request2 = grid2.getByRole('row').filter({ hasText: w.orders[1]!.orderNo });
    await expect(request2).toBeVisible();
    const index2 = Number(await request2.getAttribute('aria-rowindex')) - 2;
    for (let i = 0; i <= index2; i++) await second.page.keyboard.press('j');
    await expect(request2).toBeFocused();
    await shoot(second.page, 'doors-4-approvals', lang);
    await second.page.keyboard.press('a');
    const approve = second.page.getByRole('dialog', { name: tr(lang, 'commands.approval.approve.title') });
    await expect(approve.getByLabel(tr(lang, 'screens.order.googleCode'))).toBeFocused();
    await second.page.keyboard.type(await nextCode(approver.secret));
    await second.page.keyboard.press('Enter');
    await expect(approve).toBeHidden();
    await expect.poll(() => status(w.orders[1]!.orderNo)).toBe('paid');

    for (const p of [op, fin, second]) {
      expect(p.errors, 'console errors').toEqual([]);
      await p.page.context().close();
    }
    await admin.dispose();
  });
}
