/**
 * The operator's ten daily tasks (issue 28), each done by keys on the demo workspace, with the keys it
 * takes beyond what it names pinned: an identifier (an order, settlement or account number, a merchant's
 * name, a queue's words) or what the person writes (a reason, the Google code) is inserted as text and not
 * counted; every other key is (Ctrl-K, Enter, a row key, Ctrl-V of a payee or a statement). Each is at
 * most six; a change that costs a key fails here and says which task.
 */
import { type Browser, type BrowserContext, expect, type Page, test } from '@playwright/test';
import {
  adminApi,
  demoMerchantOperator,
  ensurePayoutRoom,
  lastDays,
  lostCallback,
  merchantByCode,
  nextCode,
  type Operator,
  platformOperator,
  signIn,
} from './orders-support.ts';
import { clientAs } from './settlement-support.ts';
import { bankWorkspace, hdfcStatement } from './statement-support.ts';
import { type Api, watchConsole } from './support.ts';

test.describe.configure({ mode: 'serial' });

let api: Api;
let operator: Operator;
let merchantUser: Operator;
let ops: { page: Page; errors: string[] };
let merchant: { page: Page; errors: string[] };
const taken = new Set<string>();
/** Each task's keys, for the summary the last test prints. */
const counted: [string, number][] = [];

/** A page whose keys are counted: every keydown but a modifier's own (text inserted makes none). */
async function countedPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const context: BrowserContext = await browser.newContext({
    locale: 'en-US',
    viewport: { width: 1280, height: 860 },
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await context.addInitScript(() => {
    const w = window as unknown as { keysPressed: number };
    w.keysPressed = 0;
    addEventListener(
      'keydown',
      (e) => {
        if (!e.repeat && !['Shift', 'Control', 'Alt', 'Meta'].includes(e.key)) w.keysPressed++;
      },
      true,
    );
  });
  const page = await context.newPage();
  return { page, errors: watchConsole(page) };
}

const keysSoFar = (page: Page) =>
  page.evaluate(() => (window as unknown as { keysPressed: number }).keysPressed);

/** Runs a task from the dashboard and pins the keys it took. */
async function task(page: Page, name: string, keys: number, run: () => Promise<void>) {
  await page.goto('/dashboard');
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
  const before = await keysSoFar(page);
  await run();
  const took = (await keysSoFar(page)) - before;
  counted.push([name, took]);
  expect(took, `keys for "${name}"`).toBe(keys);
  expect(took, 'a daily task takes at most six keys').toBeLessThanOrEqual(6);
}

const palette = (page: Page) => page.getByRole('dialog', { name: 'Command palette' });

/** Ctrl-K, the identifier inserted, the wanted hit chosen first, Enter. */
async function find(page: Page, text: string, hit: RegExp) {
  await page.keyboard.press('Control+k');
  await expect(palette(page).getByRole('combobox')).toBeFocused();
  await page.keyboard.insertText(text);
  await expect(palette(page).locator('[cmdk-item][aria-selected="true"]')).toHaveText(hit);
  await page.keyboard.press('Enter');
  await expect(palette(page)).toBeHidden();
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  api = await adminApi();
  [operator, merchantUser] = await Promise.all([platformOperator(api), demoMerchantOperator()]);
  ops = await countedPage(browser);
  merchant = await countedPage(browser);
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

test('orders: jump to one, check its UTR and supplement it, re-push its callback', async () => {
  test.setTimeout(90_000);
  const { page } = ops;
  const lost = await lostCallback(api, taken);
  await task(page, 'jump to an order', 2, async () => {
    await find(page, lost.orderNo, new RegExp(lost.orderNo));
    await expect(page.getByRole('dialog', { name: lost.orderNo })).toBeVisible();
  });

  await task(page, 'UTR check + supplement', 6, async () => {
    await find(page, lost.orderNo, new RegExp(lost.orderNo));
    // The drawer has read its order (its actions are shown) before its keys act on it.
    await expect(
      page.getByRole('dialog', { name: lost.orderNo }).getByRole('button', { name: /UTR check/ }),
    ).toBeVisible();
    await page.keyboard.press('u');
    const check = page.getByRole('dialog', { name: `UTR check · ${lost.orderNo}` });
    await expect(check.getByLabel('UTR')).toBeFocused();
    await page.keyboard.insertText(lost.utr);
    await page.keyboard.press('Enter');
    await expect(check.getByRole('button', { name: 'Supplement with this UTR' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('dialog', { name: `Supplement · ${lost.orderNo}` })).toBeVisible();
    await page.keyboard.press('Enter');
    await expect(page.getByText(`Order ${lost.orderNo} is paid`)).toBeVisible();
  });

  // Masala Mart's callback server answers 500: its paid orders wait unpushed.
  const masala = await merchantByCode(api, 'M10003');
  const failed = await api.ok<{ list: { orderNo: string }[] }>('GET', '/merchantOrder/list', {
    ...lastDays(7),
    merchantId: String(masala.id),
    pushStatus: 'unpushed',
    status: 'paid',
    pageSize: '1',
  });
  const orderNo = failed.list[0]!.orderNo;
  await task(page, 're-push a callback', 3, async () => {
    await find(page, orderNo, new RegExp(orderNo));
    await expect(
      page.getByRole('dialog', { name: orderNo }).getByRole('button', { name: /Push callback/ }),
    ).toBeVisible();
    await page.keyboard.press('p');
    await expect(page.getByText(/The merchant did not accept the callback: HTTP 500/)).toBeVisible({
      timeout: 20_000,
    });
  });
});

test('orders: bulk re-push from the queue of callbacks that gave up', async () => {
  test.setTimeout(90_000);
  const { page } = ops;
  await task(page, 'bulk re-push', 5, async () => {
    await find(page, 'callbacks that gave up', /^Callbacks that gave up · /);
    const grid = page.getByRole('grid', { name: 'Collection orders' });
    await expect(grid.locator('tr[aria-rowindex="3"]')).toBeVisible();
    // X checks the page's rows; p pushes them all (the bulk action on the checked rows); Enter runs it.
    await page.keyboard.press('X');
    await expect(page.getByText(/\d+ selected/).first()).toBeVisible();
    await page.keyboard.press('p');
    const bulk = page.getByRole('dialog', { name: 'Push callbacks of the checked orders' });
    await expect(bulk.getByRole('button', { name: /^Push \d+ callbacks$/ })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(bulk.getByText(/(\d+) of \1 done/)).toBeVisible({ timeout: 60_000 });
  });
  await page.keyboard.press('Escape');
});

test('settlements: with the money session open, one confirmed and one rejected by their numbers', async () => {
  test.setTimeout(180_000);
  const { page } = ops;
  // Two applications of the demo merchant, by its user through the API.
  const m = await clientAs(merchantUser);
  const made: { settlementNo: string }[] = [];
  for (const amount of ['1000.00', '1100.00'])
    made.push(
      await m.ok('POST', '/settlementPayment/create', {
        type: 'bank',
        accountName: 'Asha Rao',
        cardNumber: '123456789012',
        ifsc: 'HDFC0001234',
        amount,
        code: await nextCode(merchantUser.secret),
      }),
    );
  await m.dispose();

  // The money session, once for the queue: M, the code, Enter (two keys, every few minutes).
  await page.locator('body').press('M');
  const unlock = page.getByRole('dialog', { name: 'Money session' });
  await expect(unlock.getByLabel('Google code')).toBeFocused();
  await page.keyboard.insertText(await nextCode(operator.secret));
  await page.keyboard.press('Enter');
  await expect(unlock).toBeHidden();

  const [one, two] = made.map((s) => s.settlementNo) as [string, string];
  await task(page, 'confirm a settlement', 4, async () => {
    await find(page, one, new RegExp(one));
    await expect(page.getByRole('dialog', { name: one })).toContainText('To be confirmed');
    await page.keyboard.press('c');
    const confirm = page.getByRole('dialog', { name: 'Confirm settlement' });
    await expect(confirm.getByLabel('Audit amount')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(confirm).toBeHidden();
    await expect(page.getByRole('dialog', { name: one })).toContainText('Confirmed');
  });
  await task(page, 'reject a settlement', 4, async () => {
    await find(page, two, new RegExp(two));
    await expect(page.getByRole('dialog', { name: two })).toContainText('To be confirmed');
    await page.keyboard.press('r');
    const reject = page.getByRole('dialog', { name: 'Reject settlement' });
    await expect(reject.getByLabel(/Reason/)).toBeFocused();
    await page.keyboard.insertText('The beneficiary name does not match the KYC');
    await page.keyboard.press('Enter');
    await expect(reject).toBeHidden();
    await expect(page.getByRole('dialog', { name: two })).toContainText('Failed');
  });
});

test('merchants: found by name and its orders opened; frozen by a verb and its name', async () => {
  const { page } = ops;
  await task(page, 'find a merchant by name and open its orders', 4, async () => {
    await find(page, 'Masala Mart', /^M10003 · Masala Mart/);
    const grid = page.getByRole('grid', { name: 'Merchants' });
    await expect(grid.locator('tr[aria-rowindex="2"]')).toContainText('Masala Mart');
    await page.keyboard.press('j');
    await page.keyboard.press('o');
    await expect(page).toHaveURL(/\/order\?merchantId=\d+/);
    await expect(
      page.getByRole('grid', { name: 'Collection orders' }).locator('tr[aria-rowindex="2"]'),
    ).toContainText('M10003');
  });

  const bharat = await merchantByCode(api, 'M10002');
  try {
    await task(page, 'freeze a merchant', 3, async () => {
      await find(page, 'freeze bharat', /^Freeze merchant · M10002/);
      const freeze = page.getByRole('dialog', { name: /^Freeze M10002/ });
      await expect(freeze.getByLabel('Reason (for the operation log)')).toBeFocused();
      await page.keyboard.insertText('Chargebacks above the agreed ratio');
      await page.keyboard.press('Enter');
      await expect(freeze).toBeHidden();
      await expect(page.getByText(/frozen/i).first()).toBeVisible();
    });
  } finally {
    await api.ok('POST', '/merchant/freeze', { id: bharat.id, frozen: false });
  }
});

test('statements: an account found by its number, and its bank file pasted and imported', async () => {
  test.setTimeout(120_000);
  const { page } = ops;
  const w = await bankWorkspace(api);
  await page.evaluate((text) => navigator.clipboard.writeText(text), hdfcStatement(w));
  await task(page, 'import a statement', 5, async () => {
    await find(page, `import ${w.accountNumber}`, /^Import a statement · HDFC Bank/);
    await expect(page).toHaveURL(new RegExp(`/receiving/statements\\?accountId=${w.accountId}`));
    await expect(page.getByRole('heading', { name: 'Statement import', level: 1 })).toBeVisible();
    // Ctrl-V anywhere on the screen puts the file's text in the paste box; Ctrl-Enter previews it.
    await page.keyboard.press('Control+v');
    await expect(page.getByLabel('Or paste the statement')).toBeFocused();
    await page.keyboard.press('Control+Enter');
    await expect(page.getByRole('region', { name: 'Preview', exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Import', exact: true })).toBeEnabled();
    await page.keyboard.press('Control+Shift+Enter');
    await expect(page.getByRole('region', { name: 'Imported', exact: true })).toBeVisible({
      timeout: 20_000,
    });
  });
});

test('payouts: a merchant pastes the payee and sends a single transfer', async () => {
  test.setTimeout(90_000);
  const { page } = merchant;
  const m10001 = await merchantByCode(api, 'M10001');
  await ensurePayoutRoom(api, m10001.id, 2_000);
  await page.evaluate(
    (text) => navigator.clipboard.writeText(text),
    'Name: Ravi Kumar\nA/c 123456789012\nIFSC HDFC0001234\nAmount 1,500.00',
  );
  const code = await nextCode(merchantUser.secret);
  await task(page, 'single transfer', 5, async () => {
    await page.keyboard.press('+');
    await page.keyboard.press('p');
    const form = page.getByRole('dialog', { name: 'Single transfer' });
    await expect(form.getByLabel("Paste the payee's details")).toBeFocused();
    await page.keyboard.press('Control+v');
    // Every payee field filled: the focus moves on to the code, the one field left.
    await expect(form.getByLabel('Google code')).toBeFocused();
    await page.keyboard.insertText(code);
    await page.keyboard.press('Enter');
    const review = form.getByRole('region', { name: 'Payout to confirm' });
    await expect(review.getByRole('button', { name: 'Send payout' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByText(/Payout PO\d+ of 1,500\.00 is queued/)).toBeVisible();
  });
});

test('the ten tasks, each within six keys', () => {
  expect(counted.map(([name]) => name)).toHaveLength(10);
  test.info().annotations.push({
    type: 'keys',
    description: counted.map(([name, keys]) => `${name}: ${keys}`).join('; '),
  });
});
