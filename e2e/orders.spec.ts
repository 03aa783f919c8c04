import { readFileSync } from 'node:fs';
import { type Browser, expect, type Locator, type Page, test } from '@playwright/test';
import {
  adminApi,
  demoMerchantOperator,
  ensurePayoutRoom,
  type LostCallback,
  lastDays,
  lostCallback,
  merchantByCode,
  nextCode,
  type Operator,
  platformOperator,
  signIn,
  waitingPayin,
} from './orders-support.ts';
import { type Api, watchConsole } from './support.ts';

// Order triage on the demo workspace (scripts/e2e-server.mjs seeds it): the same flows by keyboard
// only and with the mouse, as a platform operator and as a merchant user.

test.describe.configure({ mode: 'serial' });

let api: Api;
let operator: Operator;
let merchantUser: Operator;
/** An order of Masala Mart (M10003): the demo merchant's user must never see it. */
let foreign: { orderNo: string; merchantOrderNo: string };
let masalaId: number;
const taken = new Set<string>();

let ops: { page: Page; errors: string[] };
let merchant: { page: Page; errors: string[] };

async function newPage(browser: Browser, width = 1280) {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width, height: 860 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  return { page, errors: watchConsole(page) };
}

const transferText = 'Name: Ravi Kumar\nA/c 123456789012\nIFSC HDFC0001234\nAmount 1,500.00';
const sheetRow = 'Asha Rao\t50100234567\tSBIN0004321\t2,250.50';

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  api = await adminApi();
  [operator, merchantUser] = await Promise.all([platformOperator(api), demoMerchantOperator()]);
  const masala = await merchantByCode(api, 'M10003');
  masalaId = masala.id;
  const page = await api.ok<{ list: { orderNo: string; merchantOrderNo: string }[] }>(
    'GET',
    '/merchantOrder/list',
    { ...lastDays(30), merchantId: String(masala.id), pageSize: '1' },
  );
  foreign = page.list[0]!;
  ops = await newPage(browser);
  merchant = await newPage(browser);
  await signIn(ops.page, operator);
  await signIn(merchant.page, merchantUser);
});

test.afterEach(() => {
  expect(ops.errors, 'console errors (operator)').toEqual([]);
  expect(merchant.errors, 'console errors (merchant)').toEqual([]);
});

test.afterAll(async () => {
  await ops.page.context().close();
  await merchant.page.context().close();
  await api.dispose();
});

function drawerOf(page: Page, orderNo: string): Locator {
  return page.getByRole('dialog', { name: orderNo });
}

/** After a supplement: the drawer reads the order again until it is paid and its callback delivered. */
async function expectPaidAndDelivered(drawer: Locator) {
  await expect(drawer.getByText('Paid', { exact: true }).first()).toBeVisible({ timeout: 10_000 });
  const callbacks = drawer.getByRole('region', { name: 'Callbacks' });
  const paidEvent = callbacks.locator('.callback-event', { hasText: 'payin.paid' });
  await expect(paidEvent.getByText('Delivered')).toBeVisible({ timeout: 20_000 });
  await expect(paidEvent.getByRole('cell', { name: '200', exact: true })).toBeVisible();
  await expect(drawer.getByText('Pushed', { exact: true }).first()).toBeVisible();
}

test('orders: keyboard only, Control+k finds an order by its merchant number, u then Enter supplements it by UTR', async () => {
  test.setTimeout(60_000);
  const { page } = ops;
  const lost: LostCallback = await lostCallback(api, taken);

  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette.getByRole('combobox')).toBeFocused();
  await page.keyboard.insertText(lost.merchantOrderNo);
  const hit = palette.getByRole('option', { name: new RegExp(lost.orderNo) });
  await expect(hit).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');

  const drawer = drawerOf(page, lost.orderNo);
  await expect(drawer).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/order\\?.*order=${lost.orderNo}`));
  await expect(drawer.getByRole('button', { name: /UTR check/ })).toBeVisible();
  // Over the drawer, the palette's row actions are this order's.
  await page.keyboard.press('Control+k');
  await expect(palette.getByRole('combobox')).toBeFocused();
  await page.keyboard.type('supplem');
  const focusedRow = palette.getByRole('group', { name: 'Focused row' });
  await expect(focusedRow.getByRole('option', { name: /^Supplement order/ })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();
  await expect(drawer).toBeVisible();

  await page.keyboard.press('u');
  const check = page.getByRole('dialog', { name: `UTR check · ${lost.orderNo}` });
  await expect(check.getByLabel('UTR')).toBeFocused();
  await page.keyboard.insertText(lost.utr);
  await page.keyboard.press('Enter');
  const result = check.getByRole('region', { name: 'Result of the UTR check' });
  await expect(result.getByText('Found at the channel')).toBeVisible();
  await expect(result.getByText('Not used by any order')).toBeVisible();
  await expect(check.getByRole('button', { name: 'Supplement with this UTR' })).toBeFocused();
  await page.keyboard.press('Enter');

  const supplement = page.getByRole('dialog', { name: `Supplement · ${lost.orderNo}` });
  await expect(supplement.getByLabel('UTR')).toHaveValue(lost.utr);
  await expect(supplement.getByLabel('Amount paid')).toHaveValue(lost.amount);
  await page.keyboard.press('Enter');
  await expect(page.getByText(`Order ${lost.orderNo} is paid`)).toBeVisible();
  await expect(supplement).toBeHidden();

  await expectPaidAndDelivered(drawer);
  // Paid is final: the drawer no longer offers a UTR check or a supplement.
  await expect(drawer.getByRole('button', { name: /UTR check/ })).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();
  await expect(page).not.toHaveURL(/order=/);
});

test('orders: keyboard only, j and p re-push a failed callback from the list; x x p re-push two with a per-row result', async () => {
  test.setTimeout(60_000);
  const { page } = ops;
  // Masala Mart's callback server answers 500: its paid orders' callbacks failed and wait unpushed.
  await page.goto(`/order?range=7d&merchantId=${masalaId}&pushStatus=unpushed&status=paid`);
  const grid = page.getByRole('grid', { name: 'Collection orders' });
  const rows = grid.getByRole('row');
  await expect(rows.nth(2)).toBeVisible();
  // The merchant's name beside its code, looked up once for the page (GET /merchant/names).
  await expect(rows.nth(1).getByTitle('M10003 · Masala Mart')).toHaveText('M10003 · Masala Mart');

  await page.keyboard.press('j');
  await expect(rows.nth(1)).toBeFocused();
  const first = (await rows.nth(1).locator('.mono').first().textContent()) ?? '';
  await page.keyboard.press('p');
  await expect(page.getByText(/The merchant did not accept the callback: HTTP 500/)).toBeVisible({
    timeout: 20_000,
  });

  await page.keyboard.press('Enter');
  const drawer = drawerOf(page, first);
  await expect(drawer).toBeVisible();
  const manual = drawer.getByRole('region', { name: 'Callbacks' }).getByRole('row', { name: /By hand/ });
  await expect(manual.first()).toBeVisible();
  await expect(manual.first().getByRole('cell', { name: '500' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();

  await expect(rows.nth(1)).toBeFocused();
  await page.keyboard.press('x');
  await page.keyboard.press('j');
  await page.keyboard.press('x');
  await expect(page.getByText('2 selected')).toBeVisible();
  await page.keyboard.press('p');
  const bulk = page.getByRole('dialog', { name: 'Push callbacks of the checked orders' });
  await expect(bulk.getByText('2 will run, 0 left out')).toBeVisible();
  await expect(bulk.getByRole('button', { name: 'Push 2 callbacks' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(bulk.getByText('2 of 2 done, 0 succeeded')).toBeVisible({ timeout: 40_000 });
  await expect(bulk.getByRole('row', { name: /Failed HTTP 500/ })).toHaveCount(2);
  await page.keyboard.press('Escape');
  await expect(bulk).toBeHidden();
});

test('orders: keyboard only, several numbers pasted into the palette open the list filtered by them', async () => {
  const { page } = ops;
  const two = await api.ok<{ list: { orderNo: string }[] }>('GET', '/merchantOrder/list', {
    ...lastDays(7),
    pageSize: '2',
  });
  const [a, b] = two.list.map((o) => o.orderNo);
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette.getByRole('combobox')).toBeFocused();
  await page.evaluate((text) => navigator.clipboard.writeText(text), `${a}\n${b}`);
  await page.keyboard.press('Control+v');
  const hit = palette.getByRole('option', { name: /Collection orders of these 2 numbers/ });
  await expect(hit).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`nos=${a}&nos=${b}`));
  const grid = page.getByRole('grid', { name: 'Collection orders' });
  await expect(grid.getByRole('row')).toHaveCount(3);
  await expect(grid.getByRole('row', { name: new RegExp(a!) })).toBeVisible();
  await expect(page.getByText('2 numbers')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Totals of the filtered orders' })).toContainText('2');
});

test('orders: the list at its top shows an order that changed meanwhile, highlighted', async () => {
  const { page } = ops;
  const demo = await merchantByCode(api, 'M10001');
  await page.goto(`/order?range=7d&merchantId=${demo.id}`);
  const grid = page.getByRole('grid', { name: 'Collection orders' });
  await expect(grid.getByRole('row').nth(2)).toBeVisible();
  await expect(page.getByText('Live', { exact: true })).toBeVisible();
  // A waiting order on the first page (the newest ones): the simulator's, or one made just now.
  const waiting = await waitingPayin(api, taken);
  await page.reload();
  await expect(grid.getByRole('row').nth(2)).toBeVisible();
  const row = grid.getByRole('row', { name: new RegExp(waiting.orderNo) });
  await expect(row.getByText('Waiting')).toBeVisible();
  // The payer pays at the simulator; nobody touches the console.
  await api.ok('POST', '/simulator/pay', { orderNo: waiting.orderNo, result: 'success' });
  await expect(row.getByText('Paid', { exact: true })).toBeVisible({ timeout: 12_000 });
  await expect(row).toHaveAttribute('data-fresh', 'true');
});

test('payouts: keyboard only, a merchant pastes the payee and sends a single transfer', async () => {
  test.setTimeout(90_000);
  const { page } = merchant;
  await page.keyboard.press('g');
  await page.keyboard.press('y');
  await expect(page).toHaveURL(/\/payout$/);
  await expect(page.getByRole('grid', { name: 'Payout orders' })).toBeVisible();

  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette.getByRole('combobox')).toBeFocused();
  await page.keyboard.type('single tran');
  await expect(palette.getByRole('option', { name: /Single transfer/ })).toHaveAttribute(
    'aria-selected',
    'true',
  );
  await page.keyboard.press('Enter');

  const form = page.getByRole('dialog', { name: 'Single transfer' });
  const paste = form.getByLabel("Paste the payee's details");
  await expect(paste).toBeFocused();
  await page.evaluate((text) => navigator.clipboard.writeText(text), transferText);
  await page.keyboard.press('Control+v');
  await expect(form.getByText('Filled in: Account name, Account number, IFSC, Amount.')).toBeVisible();
  await expect(form.getByLabel('Account name')).toHaveValue('Ravi Kumar');
  await expect(form.getByLabel('Account number')).toHaveValue('123456789012');
  await expect(form.getByLabel('IFSC')).toHaveValue('HDFC0001234');
  await expect(form.getByRole('textbox', { name: 'Amount', exact: true })).toHaveValue('1500.00');

  const code = form.getByLabel('Google code');
  for (let i = 0; i < 8 && !(await code.evaluate((el) => el === document.activeElement)); i++)
    await page.keyboard.press('Tab');
  await expect(code).toBeFocused();
  // An empty code is refused by the same schema as the server's, next to the field.
  await page.keyboard.press('Enter');
  await expect(form.getByText('The verification code is exactly 6 digits')).toBeVisible();
  await page.keyboard.type(await nextCode(merchantUser.secret));
  // Enter opens the review; its confirm button has the focus, and only it sends.
  await page.keyboard.press('Enter');
  const review = form.getByRole('region', { name: 'Payout to confirm' });
  await expect(review).toContainText('One thousand five hundred rupees');
  await expect(review.getByRole('button', { name: 'Send payout' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByText(/Payout PO\d+ of 1,500\.00 is queued/)).toBeVisible();
  await expect(form).toBeHidden();
  const grid = page.getByRole('grid', { name: 'Payout orders' });
  await expect(grid.getByRole('row', { name: /Ravi Kumar/ }).first()).toBeVisible();
});

test('tenancy: keyboard only, a merchant user finds none of another merchant’s orders by palette or URL', async () => {
  const { page } = merchant;
  // Its own orders are found (the search works for this user) …
  const own = await api.ok<{ list: { orderNo: string; merchantCode: string }[] }>(
    'GET',
    '/merchantOrder/list',
    {
      ...lastDays(7),
      q: 'PI',
      pageSize: '50',
    },
  );
  const mine = own.list.find((o) => o.merchantCode === 'M10001')!;
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette.getByRole('combobox')).toBeFocused();
  await page.keyboard.insertText(mine.orderNo);
  await expect(palette.getByRole('option', { name: new RegExp(mine.orderNo) })).toBeVisible();

  // … another merchant's are not, by either number.
  for (const number of [foreign.orderNo, foreign.merchantOrderNo]) {
    await palette.getByRole('combobox').fill('');
    await page.keyboard.insertText(number);
    await expect(palette.getByRole('status')).toHaveCount(0, { timeout: 10_000 });
    await expect(palette.getByRole('option', { name: new RegExp(foreign.orderNo) })).toHaveCount(0);
    await expect(palette.getByText('Nothing matches')).toBeVisible();
  }
  await page.keyboard.press('Escape');

  await page.goto(`/order?range=60d&order=${foreign.orderNo}`);
  const drawer = drawerOf(page, foreign.orderNo);
  await expect(drawer.getByRole('alert')).toHaveText(new RegExp(`No order ${foreign.orderNo} here`));
  await page.keyboard.press('Escape');
  await page.goto(`/order?range=60d&nos=${foreign.orderNo}&nos=${foreign.merchantOrderNo}`);
  await expect(page.getByRole('grid', { name: 'Collection orders' }).getByText('No records')).toBeVisible();
  await expect(page.getByText('2 numbers')).toBeVisible();
});

test('orders: with the mouse, the search button finds the order, its drawer buttons check the UTR and supplement it', async () => {
  test.setTimeout(60_000);
  const { page } = ops;
  const lost = await lostCallback(api, taken);
  await page.getByRole('button', { name: /Search/ }).click();
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await palette.getByRole('combobox').fill(lost.merchantOrderNo);
  await palette.getByRole('option', { name: new RegExp(lost.orderNo) }).click();

  const drawer = drawerOf(page, lost.orderNo);
  await drawer.getByRole('button', { name: /UTR check/ }).click();
  const check = page.getByRole('dialog', { name: `UTR check · ${lost.orderNo}` });
  await check.getByLabel('UTR').fill(lost.utr);
  await check.getByRole('button', { name: 'Check' }).click();
  await check.getByRole('button', { name: 'Supplement with this UTR' }).click();
  const supplement = page.getByRole('dialog', { name: `Supplement · ${lost.orderNo}` });
  await supplement.getByRole('button', { name: 'Supplement order' }).click();
  await expect(page.getByText(`Order ${lost.orderNo} is paid`)).toBeVisible();
  await expectPaidAndDelivered(drawer);
  await drawer.getByRole('button', { name: 'Close' }).click();
  await expect(drawer).toBeHidden();
});

test('orders: with the mouse, filters and the row menu re-push a failed callback, the checkboxes two more', async () => {
  // Three pushes to a failing receiver, each recorded: beside vitest on two cores it passed 60 s once.
  test.setTimeout(90_000);
  const { page } = ops;
  await page
    .getByRole('navigation', { name: 'Menu' })
    .getByRole('link', { name: 'Collection orders' })
    .click();
  await page.getByRole('combobox', { name: 'Merchant' }).selectOption({ label: 'M10003 · Masala Mart' });
  await page.getByRole('combobox', { name: 'Push status' }).selectOption({ label: 'Not pushed' });
  await page.getByRole('button', { name: 'Status: Any' }).click();
  await page.getByRole('menuitemcheckbox', { name: 'Paid', exact: true }).click();
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(/pushStatus=unpushed/);
  await expect(page).toHaveURL(/status=paid/);

  const grid = page.getByRole('grid', { name: 'Collection orders' });
  const rows = grid.getByRole('row');
  await expect(rows.nth(2)).toBeVisible();
  await rows.nth(1).getByRole('button', { name: 'Row actions' }).click();
  await page.getByRole('menuitem', { name: /Push callback/ }).click();
  await expect(page.getByText(/The merchant did not accept the callback: HTTP 500/).first()).toBeVisible({
    timeout: 20_000,
  });

  await rows.nth(1).getByRole('checkbox').check();
  await rows.nth(2).getByRole('checkbox').check();
  await rows.nth(2).click({ button: 'right' });
  await page.getByRole('menuitem', { name: /Push callbacks of the checked orders/ }).click();
  const bulk = page.getByRole('dialog', { name: 'Push callbacks of the checked orders' });
  await bulk.getByRole('button', { name: 'Push 2 callbacks' }).click();
  await expect(bulk.getByText('2 of 2 done, 0 succeeded')).toBeVisible({ timeout: 40_000 });
  await bulk.getByRole('button', { name: 'Close' }).last().click();
  await expect(bulk).toBeHidden();
});

test('exports: with the mouse, the filtered set as CSV; a period over a week is refused first', async () => {
  const { page } = ops;
  await page.goto('/order?range=7d&status=paid');
  const grid = page.getByRole('grid', { name: 'Collection orders' });
  await expect(grid.getByRole('row').nth(1)).toBeVisible();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/\.csv$/);
  const path = await download.path();
  const text = readFileSync(path, 'utf8');
  const lines = text.trim().split(/\r?\n/);
  expect(lines.length).toBeGreaterThan(1);
  const totals = page.getByRole('region', { name: 'Totals of the filtered orders' });
  const count = Number(
    ((await totals.locator('.totals-item.strong dd').textContent()) ?? '').replace(/[,+]/g, ''),
  );
  expect(lines.length - 1).toBe(count);

  await page.getByRole('combobox', { name: 'Period' }).selectOption({ label: 'Last 30 days' });
  let downloaded = false;
  page.once('download', () => {
    downloaded = true;
  });
  await page.getByRole('button', { name: 'Export XLSX' }).click();
  await expect(page.getByText('Choose a period of at most one week')).toBeVisible();
  expect(downloaded).toBe(false);
});

test('payouts: with the mouse, a merchant pastes a spreadsheet row and sends a single transfer', async () => {
  test.setTimeout(90_000);
  await ensurePayoutRoom(api, (await merchantByCode(api, 'M10001')).id, 2_500);
  const { page } = merchant;
  await page.getByRole('navigation', { name: 'Menu' }).getByRole('link', { name: 'Payout orders' }).click();
  await page.getByRole('button', { name: 'Single transfer' }).click();
  const form = page.getByRole('dialog', { name: 'Single transfer' });
  await form.getByLabel("Paste the payee's details").fill(sheetRow);
  await expect(form.getByLabel('Account name')).toHaveValue('Asha Rao');
  await expect(form.getByLabel('IFSC')).toHaveValue('SBIN0004321');
  await expect(form.getByRole('textbox', { name: 'Amount', exact: true })).toHaveValue('2250.50');
  // A wrong IFSC is refused next to its field before anything is sent.
  await form.getByLabel('IFSC').fill('SBIN4321');
  await form.getByLabel('Google code').fill(await nextCode(merchantUser.secret));
  await form.getByRole('button', { name: 'Review payout' }).click();
  await expect(form.getByText('An IFSC looks like ABCD0123456')).toBeVisible();
  await form.getByLabel('IFSC').fill('SBIN0004321');
  await form.getByRole('button', { name: 'Review payout' }).click();
  await form
    .getByRole('region', { name: 'Payout to confirm' })
    .getByRole('button', { name: 'Send payout' })
    .click();
  await expect(page.getByText(/Payout PO\d+ of 2,250\.50 is queued/)).toBeVisible();
  await expect(
    page
      .getByRole('grid', { name: 'Payout orders' })
      .getByRole('row', { name: /Asha Rao/ })
      .first(),
  ).toBeVisible();
});

test('tenancy: with the mouse, another merchant’s number in the list filter finds nothing', async () => {
  const { page } = merchant;
  await page
    .getByRole('navigation', { name: 'Menu' })
    .getByRole('link', { name: 'Collection orders' })
    .click();
  await page.getByRole('combobox', { name: 'Period' }).selectOption({ label: 'Last 60 days' });
  const search = page.getByRole('searchbox', { name: 'Order no. / UTR' });
  await search.fill(foreign.orderNo);
  await expect(page).toHaveURL(new RegExp(`q=${foreign.orderNo}`));
  const grid = page.getByRole('grid', { name: 'Collection orders' });
  await expect(grid.getByText('No records')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Totals of the filtered orders' })).toContainText('0');
});
