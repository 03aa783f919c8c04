/**
 * Settlement applications end to end on the demo workspace: a merchant user applies for a bank
 * settlement of its collection wallet with a Google code; a platform finance user finds it by its
 * number (Ctrl-K) and confirms a lower audit amount; a second finance user completes it (the first may
 * not: maker–checker); the merchant sees it settled and its wallet's change log shows the postings.
 * Keyboard only first, then the same with the mouse.
 */
import { type Browser, expect, type Page, test } from '@playwright/test';
import { formatMinor, toMinor } from '../contract/money.ts';
import { adminApi, demoMerchantOperator, nextCode, type Operator, signIn } from './orders-support.ts';
import { demoOwner, financeUser } from './settlement-support.ts';
import { grouped, watchConsole } from './support.ts';

test.describe.configure({ mode: 'serial' });

const stamp = Date.now().toString(36).toUpperCase();
const consoleErrors = new Map<Page, string[]>();
let merchant: Operator;
let first: Operator;
let second: Operator;
let merchantPage: Page;
let firstPage: Page;
let secondPage: Page;
let demo: Awaited<ReturnType<typeof demoOwner>>;

/** Minor units as the console prints them: 123456789 → "12,34,567.89". */
const group = (minor: number): string => grouped(formatMinor(minor));

/** M10001's collection available balance, in minor units. */
async function available(): Promise<number> {
  const b = await demo.ok<{ collection: { available: string } }>('POST', '/merchantWallet/info');
  return toMinor(b.collection.available);
}

/** The fee the server fixed on an application, in minor units. */
async function feeOf(settlementNo: string): Promise<number> {
  const s = await demo.ok<{ fee: string }>('GET', '/settlementPayment/info', { settlementNo });
  return toMinor(s.fee);
}

async function signedInPage(browser: Browser, user: Operator): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  consoleErrors.set(page, watchConsole(page));
  await signIn(page, user);
  return page;
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  const admin = await adminApi();
  merchant = await demoMerchantOperator();
  first = await financeUser(admin, 'e2e_fin1');
  second = await financeUser(admin, 'e2e_fin2');
  await admin.dispose();
  demo = await demoOwner();
  merchantPage = await signedInPage(browser, merchant);
  firstPage = await signedInPage(browser, first);
  secondPage = await signedInPage(browser, second);
});

test.afterEach(() => {
  expect([...consoleErrors.values()].flat(), 'console errors').toEqual([]);
});

test.afterAll(async () => {
  for (const page of [merchantPage, firstPage, secondPage]) await page?.context().close();
  await demo?.dispose();
});

test('keyboard only: apply, find by number, confirm lower, complete by a second person, settled and posted', async () => {
  test.setTimeout(240_000);
  const amount = 150_000;
  const audit = 140_000;
  const before = await available();
  expect(before, 'the demo merchant has collection balance to settle').toBeGreaterThan(amount * 2);

  // The merchant: g s opens its collection settlements, Ctrl-K offers the application.
  const m = merchantPage;
  await m.locator('body').press('g');
  await m.keyboard.press('s');
  await expect(m.getByRole('heading', { name: 'Collection settlement', level: 1 })).toBeVisible();
  await expect(m.getByTestId('settlement-available')).toContainText(group(before));
  await m.keyboard.press('Control+k');
  const palette = m.getByRole('dialog', { name: 'Command palette' });
  await expect(palette.getByRole('combobox')).toBeFocused();
  await m.keyboard.type('apply for collection');
  await expect(palette.getByRole('option', { name: /Apply for collection settlement/ })).toHaveAttribute(
    'aria-selected',
    'true',
  );
  await m.keyboard.press('Enter');
  const apply = m.getByRole('dialog', { name: 'Apply for collection settlement' });
  await expect(apply.getByLabel('Type')).toBeFocused();
  await expect(apply.getByLabel('Type')).toHaveValue('bank');
  // Empty fields are named before anything is sent.
  await m.keyboard.press('Tab');
  await m.keyboard.press('Enter');
  await expect(apply.getByText('Some information is not filled in').first()).toBeVisible();
  await apply.getByLabel('Amount').focus();
  await m.keyboard.type(formatMinor(amount));
  await m.keyboard.press('Tab');
  await m.keyboard.type('Asha Rao');
  await m.keyboard.press('Tab');
  await m.keyboard.type('123456789012');
  await m.keyboard.press('Tab');
  await m.keyboard.type('HDFC0001234');
  await m.keyboard.press('Tab');
  await expect(apply.getByLabel('Google code')).toBeFocused();
  await m.keyboard.type(await nextCode(merchant.secret));
  await m.keyboard.press('Enter');

  // The answer: the number, and the fee held with the amount.
  const applied = m.getByTestId('settlement-applied');
  await expect(applied).toBeVisible();
  const settlementNo = ((await applied.locator('dd.mono').textContent()) ?? '').trim();
  expect(settlementNo).not.toBe('');
  const fee = await feeOf(settlementNo);
  await expect(applied).toContainText(`${group(fee)} INR`);
  await expect(applied).toContainText(`${group(amount + fee)} INR`);
  await expect(m.getByRole('button', { name: 'Done' })).toBeFocused();
  await m.keyboard.press('Enter');
  await expect(apply).toBeHidden();
  const mine = m
    .getByRole('grid', { name: 'Collection settlement' })
    .getByRole('row')
    .filter({ hasText: settlementNo });
  await expect(mine).toContainText('To be confirmed');
  expect(await available()).toBe(before - amount - fee);

  // The first finance user finds it by its number: its drawer opens over the queue; c confirms.
  const p = firstPage;
  await p.locator('body').press('Control+k');
  const search = p.getByRole('dialog', { name: 'Command palette' });
  await expect(search.getByRole('combobox')).toBeFocused();
  await p.keyboard.insertText(settlementNo);
  await expect(search.getByRole('option', { name: new RegExp(settlementNo) })).toHaveAttribute(
    'aria-selected',
    'true',
  );
  await p.keyboard.press('Enter');
  const drawer = p.getByRole('dialog', { name: settlementNo });
  await expect(drawer).toBeVisible();
  await expect(p).toHaveURL(new RegExp(`/settlementquery\\?.*settlement=${settlementNo}`));
  await expect(drawer).toContainText('To be confirmed');
  await expect(drawer).toContainText(merchant.username);
  await p.keyboard.press('c');
  const confirm = p.getByRole('dialog', { name: 'Confirm settlement' });
  const auditField = confirm.getByLabel('Audit amount');
  await expect(auditField).toBeFocused();
  await expect(auditField).toHaveValue(formatMinor(amount));
  await p.keyboard.press('Control+a');
  await p.keyboard.type(formatMinor(audit));
  await p.keyboard.press('Tab');
  await p.keyboard.type(await nextCode(first.secret));
  await p.keyboard.press('Enter');
  await expect(confirm).toBeHidden();
  await expect(p.getByRole('status').filter({ hasText: `confirmed for ${group(audit)}` })).toBeVisible();
  await expect(drawer.locator('.detail-drawer-subtitle')).toContainText('Confirmed');
  await expect(drawer).toContainText(`${group(audit)} INR`);
  // What the audit amount leaves out went back to the merchant at once.
  expect(await available()).toBe(before - audit - fee);

  // Who confirmed may not complete: the refusal is said in the dialog, which stays open.
  await p.keyboard.press('o');
  const refused = p.getByRole('dialog', { name: 'Complete settlement' });
  await expect(refused.getByLabel('Reference')).toBeFocused();
  await p.keyboard.type(`UTR${stamp}A`);
  await p.keyboard.press('Tab');
  await p.keyboard.press('Tab');
  await p.keyboard.type(await nextCode(first.secret));
  await p.keyboard.press('Enter');
  await expect(refused.getByRole('alert')).toContainText('1040');
  await p.keyboard.press('Escape');
  await expect(refused).toBeHidden();

  // The second finance user: the queue of confirmed ones, j down to it, o completes it.
  const q = secondPage;
  await q.goto('/settlementquery?status=confirmed');
  const queue = q.getByRole('grid', { name: 'Real-time settlement queue' });
  const row = queue.getByRole('row').filter({ hasText: settlementNo });
  await expect(row).toBeVisible();
  await expect(q.getByTestId('queue-toComplete')).toBeVisible();
  for (let i = 0; i < 100 && !/focused/.test((await row.getAttribute('class')) ?? ''); i++)
    await q.locator('body').press('j');
  await expect(row).toHaveClass(/focused/);
  await q.keyboard.press('o');
  const complete = q.getByRole('dialog', { name: 'Complete settlement' });
  await expect(complete.getByLabel('Reference')).toBeFocused();
  await q.keyboard.type(`UTR${stamp}K`);
  await q.keyboard.press('Tab');
  await q.keyboard.press('Tab');
  await expect(complete.getByLabel('Google code')).toBeFocused();
  await q.keyboard.type(await nextCode(second.secret));
  await q.keyboard.press('Enter');
  await expect(complete).toBeHidden();
  await expect(
    q.getByRole('status').filter({ hasText: `Settlement ${settlementNo} completed` }),
  ).toBeVisible();
  await expect(row).toBeHidden();

  // The merchant: settled, for the audit amount; the wallet's change log has the three postings.
  await m.reload();
  await expect(mine).toContainText('Settled');
  await expect(mine).toContainText(group(audit));
  await m.locator('body').press('g');
  await m.keyboard.press('w');
  await expect(m.getByRole('heading', { name: 'Wallet', level: 1 })).toBeVisible();
  const log = m.getByRole('grid', { name: 'Balance change log' });
  await expect(log.getByRole('row').nth(1)).toContainText('Settlement paid out');
  await expect(log.getByRole('row').filter({ hasText: 'Settlement paid out' }).first()).toContainText(
    `-${group(audit + fee)}`,
  );
  await expect(
    log
      .getByRole('row')
      .filter({ hasText: 'Settlement hold #2' })
      .filter({ hasText: 'Collection available' }),
  ).toContainText(`+${group(amount - audit)}`);
  await expect(
    log
      .getByRole('row')
      .filter({ hasText: 'Settlement hold' })
      .filter({ hasText: `-${group(amount + fee)}` }),
  ).toContainText('Collection available');
  expect(await available()).toBe(before - audit - fee);
});

/** A 1×1 PNG: the proof image of the mouse path. */
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

test('the mouse path: apply from the button, confirm from the row menu, complete with a proof image', async () => {
  test.setTimeout(240_000);
  const amount = 120_000;
  const audit = 110_000;
  const before = await available();

  const m = merchantPage;
  await m.goto('/settlementpayment');
  await m.getByRole('button', { name: 'Apply for collection settlement' }).click();
  const apply = m.getByRole('dialog', { name: 'Apply for collection settlement' });
  await apply.getByLabel('Amount').fill(formatMinor(amount));
  await apply.getByLabel('Account name').fill('Ravi Kumar');
  await apply.getByLabel('Account number').fill('123456789013');
  await apply.getByLabel('IFSC').fill('hdfc0001234');
  await apply.getByLabel('Google code').fill(await nextCode(merchant.secret));
  await apply.getByRole('button', { name: 'Apply for collection settlement' }).click();
  const applied = m.getByTestId('settlement-applied');
  await expect(applied).toBeVisible();
  const settlementNo = ((await applied.locator('dd.mono').textContent()) ?? '').trim();
  const fee = await feeOf(settlementNo);
  await m.getByRole('button', { name: 'Done' }).click();
  const mine = m
    .getByRole('grid', { name: 'Collection settlement' })
    .getByRole('row')
    .filter({ hasText: settlementNo });
  await expect(mine).toContainText('To be confirmed');
  await expect(mine).toContainText('Ravi Kumar');

  // The first finance user: the queue from the menu, the row's ⋯ menu, Confirm.
  const p = firstPage;
  await p.goto('/dashboard');
  await p
    .getByRole('region', { name: 'Settlement' })
    .getByRole('link', { name: 'Real-time settlement queue' })
    .click();
  const queue = p.getByRole('grid', { name: 'Real-time settlement queue' });
  const row = queue.getByRole('row').filter({ hasText: settlementNo });
  await expect(row).toContainText('To be confirmed');
  await row.getByRole('button', { name: 'Row actions' }).click();
  await p.getByRole('menuitem', { name: 'Confirm settlement' }).click();
  const confirm = p.getByRole('dialog', { name: 'Confirm settlement' });
  await expect(confirm).toContainText(settlementNo);
  await confirm.getByLabel('Audit amount').fill(formatMinor(amount + 1));
  await confirm.getByLabel('Google code').fill('123456');
  await confirm.getByRole('button', { name: 'Confirm settlement' }).click();
  await expect(confirm.getByText('The audit amount may not exceed the amount applied')).toBeVisible();
  await confirm.getByLabel('Audit amount').fill(formatMinor(audit));
  await confirm.getByLabel('Google code').fill(await nextCode(first.secret));
  await confirm.getByRole('button', { name: 'Confirm settlement' }).click();
  await expect(confirm).toBeHidden();
  await expect(row).toContainText('Confirmed');

  // The second: double click opens the drawer; its Complete button, a reference and a proof image.
  const q = secondPage;
  await q.goto('/settlementquery');
  const theirs = q.getByRole('grid', { name: 'Real-time settlement queue' }).getByRole('row').filter({
    hasText: settlementNo,
  });
  await theirs.dblclick();
  const drawer = q.getByRole('dialog', { name: settlementNo });
  await expect(drawer).toContainText(first.username);
  await drawer.getByRole('button', { name: /Complete settlement/ }).click();
  const complete = q.getByRole('dialog', { name: 'Complete settlement' });
  await complete.getByLabel('Reference').fill(`UTR${stamp}M`);
  await complete
    .getByLabel('Proof images')
    .setInputFiles({ name: 'utr.png', mimeType: 'image/png', buffer: png });
  await expect(complete.getByText('1 images chosen')).toBeVisible();
  await complete.getByLabel('Google code').fill(await nextCode(second.secret));
  await complete.getByRole('button', { name: 'Complete settlement' }).click();
  await expect(complete).toBeHidden();
  await expect(drawer.locator('.detail-drawer-subtitle')).toContainText('Settled');
  await expect(drawer).toContainText(second.username);
  await expect(drawer.getByRole('img', { name: 'Proof image 1' })).toBeVisible();
  await expect(drawer.getByRole('region', { name: 'Ledger postings' })).toContainText('Settlement paid');
  await drawer.getByRole('button', { name: 'Close' }).click();
  await expect(theirs).toBeHidden();

  // The merchant: the row's drawer says settled; the wallet from the menu shows the postings.
  await m.reload();
  await expect(mine).toContainText('Settled');
  await mine.dblclick();
  const own = m.getByRole('dialog', { name: settlementNo });
  await expect(own).toContainText(`UTR${stamp}M`);
  await own.getByRole('button', { name: 'Close' }).click();
  await m.getByRole('region', { name: 'Funds' }).getByRole('link', { name: 'Wallet' }).click();
  const log = m.getByRole('grid', { name: 'Balance change log' });
  await expect(log.getByRole('row').filter({ hasText: 'Settlement paid out' }).first()).toContainText(
    `-${group(audit + fee)}`,
  );
  expect(await available()).toBe(before - audit - fee);
});
