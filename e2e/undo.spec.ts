/**
 * Undo and this session's actions (issue 28), in Chromium on the demo workspace: a dismissed statement
 * line is put back in the queue by its toast's Undo (matched again, nothing paid); a paused receiving
 * account is active again with Ctrl-Z; a deleted notice is written again; a hidden column and a cleared
 * filter come back; an undo is offered only for a few seconds; L lists what this tab did, with results,
 * the undone ones marked, and links back. On the way, `o` on the account lists the pay-ins routed to it.
 */
import { expect, type Page, test } from '@playwright/test';
import { adminApi, type Operator, platformOperator, signIn } from './orders-support.ts';
import { type BankWorkspace, bankWorkspace, hdfcStatement, importByApi } from './statement-support.ts';
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
  bank = await bankWorkspace(admin);
  await importByApi(admin, bank, hdfcStatement(bank));
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

const lineStatus = async (narration: string) => {
  const lines = await admin.ok<{ list: { narration: string; status: string }[] }>('GET', '/statement/list', {
    accountId: String(bank.accountId),
  });
  return lines.list.find((l) => l.narration.includes(narration))?.status;
};

const toast = () =>
  page.locator('.toasts [role="status"]').filter({ has: page.getByRole('button', { name: 'Undo' }) });

test("a dismissed line comes back to the queue by its toast's Undo, matched again and paying nothing", async () => {
  await page.goto(`/receiving/exceptions?accountId=${bank.accountId}`);
  const grid = page.getByRole('grid', { name: 'Exception queue' });
  const line = grid.getByRole('row').filter({ hasText: 'Ambiguous' });
  await expect(line).toHaveCount(1);
  await line.click();
  await page.keyboard.press('d');
  const dialog = page.getByRole('dialog', { name: 'Dismiss line' });
  await expect(dialog.getByLabel('Reason')).toBeFocused();
  await page.keyboard.type('Our own transfer');
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(line).toHaveCount(0);
  expect(await lineStatus(`CASH DEPOSIT ${bank.stamp}`)).toBe('dismissed');

  await expect(toast()).toContainText('Lines dismissed: 1');
  await toast().getByRole('button', { name: 'Undo' }).click();
  await expect(page.locator('.toasts').getByText('Undone')).toBeVisible();
  await expect(line).toHaveCount(1);
  expect(await lineStatus(`CASH DEPOSIT ${bank.stamp}`)).toBe('exception');
  for (const o of bank.shared) {
    const info = await admin.ok<{ status: string }>('GET', '/merchantOrder/info', { orderNo: o.orderNo });
    expect(info.status, 'an undo pays nothing').toBe('pending');
  }
});

test('a paused receiving account is active again with Ctrl-Z; a second Ctrl-Z has nothing to undo', async () => {
  await page.goto(`/receiving/public?q=${bank.accountNumber}`);
  const grid = page.getByRole('grid');
  const row = grid.locator('tr[aria-rowindex="2"]');
  await expect(row).toContainText(bank.accountNumber);
  await expect(row).toContainText('Active');
  await row.click();
  await page.keyboard.press('p');
  await expect(row).toContainText('Paused');
  await expect(toast()).toContainText('Done: Pause');
  await page.keyboard.press('Control+z');
  await expect(row).toContainText('Active');
  const info = await admin.ok<{ status: string }>('GET', '/receivingAccount/info', { id: bank.accountId });
  expect(info.status).toBe('active');
  await page.keyboard.press('Control+z');
  await expect(page.locator('.toasts').getByText('Nothing to undo')).toBeVisible();

  // o on the account: the pay-ins routed to it, the pay-in list's own filter.
  await row.click();
  await page.keyboard.press('o');
  await expect(page).toHaveURL(new RegExp(`/order\\?receivingAccountId=${bank.accountId}$`));
  const orders = page.getByRole('grid');
  await expect(orders.locator('tr[aria-rowindex="2"]')).toBeVisible();
  for (const o of [bank.withUtr, ...bank.shared]) await expect(orders).toContainText(o.orderNo);
  await expect(orders.getByRole('row')).toHaveCount(4);
});

test('a hidden column and a cleared filter come back by Undo', async () => {
  await page.goto(`/receiving/public?q=${bank.accountNumber}`);
  const grid = page.getByRole('grid');
  await expect(grid.locator('tr[aria-rowindex="2"]')).toContainText(bank.accountNumber);
  await page.getByRole('button', { name: 'Columns' }).click();
  const item = page.getByRole('menuitemcheckbox', { checked: true }).nth(1);
  const column = ((await item.textContent()) ?? '').trim();
  await item.click();
  await page.keyboard.press('Escape');
  await expect(grid.getByRole('columnheader', { name: column, exact: true })).toHaveCount(0);
  await expect(toast()).toContainText('Columns changed');
  await toast().getByRole('button', { name: 'Undo' }).click();
  await expect(grid.getByRole('columnheader', { name: column, exact: true })).toHaveCount(1);

  const search = page.getByRole('searchbox').first();
  await expect(search).toHaveValue(bank.accountNumber);
  await search.fill('');
  await search.press('Enter');
  await expect(page).not.toHaveURL(/q=/);
  await expect(toast()).toContainText('Filter cleared');
  await toast().getByRole('button', { name: 'Undo' }).click();
  await expect(page).toHaveURL(new RegExp(`q=${bank.accountNumber}`));
  await expect(grid.locator('tr[aria-rowindex="2"]')).toContainText(bank.accountNumber);
});

test('a deleted notice is written again by Undo, an edited one says again what it said; the offer lasts ten seconds only', async () => {
  test.setTimeout(60_000);
  const title = `Undo e2e ${bank.stamp}`;
  await admin.ok('POST', '/memo/create', { title, body: 'Kept by undo', audience: 'platform', pinned: true });
  await page.goto('/system/memo');
  const row = page.getByRole('row').filter({ hasText: title });
  await row.click();
  await page.keyboard.press('Delete');
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete notice' }).click();
  await expect(row).toHaveCount(0);
  await page.keyboard.press('Control+z');
  await expect(row).toHaveCount(1);
  const notices = await admin.ok<{ list: { title: string; body: string; pinned: boolean }[] }>(
    'GET',
    '/memo/list',
    {},
  );
  expect(notices.list.find((n) => n.title === title)).toMatchObject({ body: 'Kept by undo', pinned: true });

  // An edit is undone too: the notice says again what it said.
  await row.click();
  await page.keyboard.press('e');
  const edit = page.getByRole('dialog', { name: 'Edit notice' });
  await edit.getByLabel('Title').fill(`${title} (edited)`);
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit).toBeHidden();
  await expect(page.getByRole('row').filter({ hasText: `${title} (edited)` })).toHaveCount(1);
  await toast().getByRole('button', { name: 'Undo' }).click();
  await expect(page.getByRole('row').filter({ hasText: `${title} (edited)` })).toHaveCount(0);
  await expect(row).toHaveCount(1);

  // Another delete, left alone: after ten seconds Ctrl-Z has nothing to take back.
  await row.click();
  await page.keyboard.press('Delete');
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete notice' }).click();
  await expect(row).toHaveCount(0);
  await expect(toast()).toBeHidden({ timeout: 15_000 });
  await page.keyboard.press('Control+z');
  await expect(page.locator('.toasts').getByText('Nothing to undo')).toBeVisible();
  await page.waitForTimeout(1000);
  await expect(row).toHaveCount(0);
});

test("L lists this tab's actions: results, the undone marked, links back", async () => {
  await page.goto('/dashboard');
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
  await page.locator('body').press('L');
  const panel = page.getByRole('dialog', { name: "This session's actions" });
  await expect(panel).toBeVisible();
  const entries = panel.getByRole('listitem');
  // Newest first: the second notice's delete (kept), the edit taken back, the edit, the notice written
  // again by its undo, …
  await expect(entries.first()).toContainText('Delete notice');
  await expect(entries.first()).toContainText('Done');
  await expect(entries.nth(1)).toContainText('Undo: Edit notice');
  await expect(entries.nth(2)).toContainText('Edit notice');
  await expect(entries.nth(2)).toContainText('Undone');
  await expect(entries.nth(3)).toContainText('Undo: Delete notice');
  await expect(entries.filter({ hasText: 'Undo: Pause' })).toContainText('Done');
  await expect(entries.filter({ hasText: 'Undo: Dismiss line' })).toContainText('Done');
  const dismissal = entries.filter({ hasText: 'Dismiss line' }).filter({ hasNotText: 'Undo:' });
  await expect(dismissal).toContainText('Undone');
  await dismissal.getByRole('link', { name: 'Where it was done' }).click();
  await expect(panel).toBeHidden();
  await expect(page).toHaveURL(new RegExp(`/receiving/exceptions\\?accountId=${bank.accountId}`));
});
