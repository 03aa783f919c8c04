/**
 * Bank statements end to end: a bank channel with one public account and a merchant routed to it (set
 * up by API); three pay-ins, two of one amount and one whose payer submitted a UTR on the pay page.
 * (a) A statement holding that UTR and amount is imported through the import screen (preview, then
 * import): the order is ready to post, not paid; posting it (reason, Google code) pays it. (b) The
 * statement's other credit, of the shared amount without a UTR, waits in the exception queue as
 * ambiguous and is resolved by keys only (focus the row, m, the order number, the reason, the code,
 * Enter): that order is paid. (c) A proposal is posted with a, and two checked lines (an amount mismatch
 * and an unmatched credit) are dismissed at once with d and a reason.
 */
import { expect, type Page, test } from '@playwright/test';
import { adminApi, nextCode, type Operator, platformOperator, signIn } from './orders-support.ts';
import { type BankWorkspace, bankWorkspace, hdfcStatement } from './statement-support.ts';
import { type Api, watchConsole } from './support.ts';

test.describe.configure({ mode: 'serial' });

let admin: Api;
let operator: Operator;
let page: Page;
let errors: string[];
let bank: BankWorkspace;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  admin = await adminApi();
  operator = await platformOperator(admin);
  bank = await bankWorkspace(admin, true);
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  errors = watchConsole(page);
  await signIn(page, operator);
});

test.afterEach(() => {
  expect(errors, 'console errors').toEqual([]);
});

test.afterAll(async () => {
  await page?.context().close();
  await admin?.dispose();
});

const status = async (orderNo: string) =>
  (await admin.ok<{ status: string }>('GET', '/merchantOrder/info', { orderNo })).status;

test('an imported statement line carrying the payer’s UTR and amount is ready to post; posting it pays the order', async () => {
  test.setTimeout(90_000);
  const { withUtr } = bank;
  expect(await status(withUtr.orderNo)).toBe('pending');

  await page.goto(`/receiving/statements?accountId=${bank.accountId}`);
  await expect(page.getByRole('heading', { name: 'Statement import', level: 1 })).toBeVisible();
  await expect(page.getByLabel('Receiving account')).toHaveValue(String(bank.accountId));
  await page.getByLabel('Mapping', { exact: true }).selectOption({ label: 'HDFC Bank' });
  // The preset saved under a name of our own: this import then names its saved mapping.
  await page.getByText('Mapping fields').click();
  const mappingName = `HDFC e2e ${bank.stamp}`;
  await page.getByLabel('Save as (name)').fill(mappingName);
  await page.getByRole('button', { name: 'Save mapping as…' }).click();
  await expect(page.getByLabel('Mapping', { exact: true }).locator('option:checked')).toHaveText(
    `${mappingName} · HDFC Bank`,
  );
  await page.getByLabel('Or paste the statement').fill(hdfcStatement(bank));

  // Import is offered only once a preview without row errors is on screen.
  const importButton = page.getByRole('button', { name: 'Import', exact: true });
  await expect(importButton).toBeDisabled();
  await page.getByRole('button', { name: 'Preview', exact: true }).click();
  const preview = page.getByRole('region', { name: 'Preview', exact: true });
  await expect(preview.getByText('The first 5 of 5 lines')).toBeVisible();
  await expect(preview.getByRole('cell', { name: withUtr.utr, exact: true })).toBeVisible();
  await expect(preview.locator('.totals-item').filter({ hasText: 'New' })).toContainText('5');
  expect(await status(withUtr.orderNo), 'a preview writes nothing').toBe('pending');

  await expect(importButton).toBeEnabled();
  await importButton.click();
  const result = page.getByRole('region', { name: 'Imported', exact: true });
  await expect(result).toBeVisible({ timeout: 20_000 });
  await expect(result.locator('.totals-item').filter({ hasText: 'Ready to post' })).toContainText('1');
  await expect(result.getByRole('link', { name: /Exceptions waiting in the queue/ })).toBeVisible();
  // Evidence, not a decision: nothing is paid until a finance user posts it.
  expect(await status(withUtr.orderNo)).toBe('pending');
  await expect(result.getByRole('status').filter({ hasText: 'Ready to post: ' })).toBeVisible();
  await result.getByRole('button', { name: 'Post import' }).click();
  const post = page.getByRole('dialog', { name: 'Post import' });
  await expect(post.getByLabel('Reason')).toBeFocused();
  await page.keyboard.type('HDFC statement of this morning');
  await page.keyboard.press('Tab');
  await page.keyboard.type(await nextCode(operator.secret));
  await page.keyboard.press('Enter');
  await expect(post).toBeHidden();
  await expect(page.getByText('Posted: 1 paid or closed')).toBeVisible();
  expect(await status(withUtr.orderNo)).toBe('paid');

  // The import is listed with its kept file; the order list shows the order paid.
  await expect(
    page
      .getByRole('grid', { name: 'Imports' })
      .getByRole('row')
      .filter({ hasText: bank.accountNumber.slice(-4) })
      .first(),
  ).toContainText(mappingName);
  await page.goto(`/order?range=7d&q=${withUtr.orderNo}`);
  const row = page
    .getByRole('grid', { name: 'Collection orders' })
    .getByRole('row')
    .filter({ hasText: withUtr.orderNo });
  await expect(row).toContainText('Paid');
});

test('an ambiguous credit is matched to an order from the exception queue by keys only', async () => {
  test.setTimeout(90_000);
  const [first, second] = bank.shared;
  expect(await status(first.orderNo)).toBe('pending');
  expect(await status(second.orderNo)).toBe('pending');

  await page.goto(`/receiving/exceptions?accountId=${bank.accountId}`);
  const grid = page.getByRole('grid', { name: 'Exception queue' });
  const line = grid.getByRole('row').filter({ hasText: 'Ambiguous' });
  await expect(line).toHaveCount(1);
  await expect(page.locator('.statement-kinds [data-kind="ambiguous"]')).toContainText(/[1-9]/);

  await page.locator('body').press('j');
  await expect(line).toHaveClass(/focused/);
  await page.keyboard.press('m');
  const dialog = page.getByRole('dialog', { name: 'Match to order' });
  await expect(dialog.getByLabel('Order number')).toBeFocused();
  await page.keyboard.type(second.orderNo);
  await expect(dialog.getByTestId('match-order')).toContainText(second.orderNo);
  // Paying with a statement is a money decision: a reason and the Google code.
  await page.keyboard.press('Tab');
  await expect(dialog.getByLabel('Reason')).toBeFocused();
  await page.keyboard.type('Payer sent the bank slip');
  await page.keyboard.press('Tab');
  await page.keyboard.type(await nextCode(operator.secret));
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(grid.getByRole('row').filter({ hasText: 'Ambiguous' })).toHaveCount(0);
  expect(await status(second.orderNo)).toBe('paid');
  expect(await status(first.orderNo), 'the other candidate stays waiting').toBe('pending');
});

test('a proposal is posted with a; two checked lines are dismissed at once with d and a reason', async () => {
  test.setTimeout(90_000);
  const alone = bank.alone!;
  expect(await status(alone.orderNo)).toBe('pending');
  await page.goto(`/receiving/exceptions?accountId=${bank.accountId}`);
  const grid = page.getByRole('grid', { name: 'Exception queue' });
  const rows = grid.getByRole('row');
  await expect(rows.filter({ hasText: 'Proposed' })).toContainText(alone.orderNo);

  await rows.filter({ hasText: 'Proposed' }).click();
  const at = await rows.filter({ hasText: 'Proposed' }).getAttribute('data-index');
  await page.keyboard.press('a');
  const post = page.getByRole('dialog', { name: 'Post line' });
  await expect(post.getByLabel('Reason')).toBeFocused();
  await page.keyboard.type('One open order of this amount');
  await page.keyboard.press('Tab');
  await page.keyboard.type(await nextCode(operator.secret));
  await page.keyboard.press('Enter');
  await expect(post).toBeHidden();
  await expect(rows.filter({ hasText: 'Proposed' })).toHaveCount(0);
  expect(await status(alone.orderNo)).toBe('paid');
  // The posted line left the queue: the line that took its place has the focus, the next a key away.
  await expect(grid.locator('tr:focus')).toHaveAttribute('data-index', at!);

  for (const kind of ['Amount mismatch', 'Unmatched']) {
    await rows.filter({ hasText: kind }).click();
    await page.keyboard.press('x');
  }
  await expect(page.getByText('2 selected')).toBeVisible();
  await page.keyboard.press('d');
  const dialog = page.getByRole('dialog', { name: 'Dismiss checked lines' });
  await expect(dialog).toContainText('The 2 checked lines');
  await expect(dialog.getByLabel('Reason')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog.getByText('Some information is not filled in')).toBeVisible();
  await page.keyboard.type('Refund of a duplicate payment');
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(rows.filter({ hasText: /Amount mismatch|Unmatched/ })).toHaveCount(0);
  const dismissed = await admin.ok<{ list: { status: string; reason: string | null }[] }>(
    'GET',
    '/statement/list',
    { accountId: String(bank.accountId), status: 'dismissed' },
  );
  expect(dismissed.list.map((l) => l.reason)).toEqual([
    'Refund of a duplicate payment',
    'Refund of a duplicate payment',
  ]);
  expect(await status(bank.mismatched!.orderNo), 'dismissing pays nothing').toBe('pending');
});
