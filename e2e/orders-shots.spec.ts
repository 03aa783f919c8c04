import { mkdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { adminApi, demoMerchantOperator, lastDays, signIn } from './orders-support.ts';
import { setLanguage, shooter, widths } from './shots.ts';
import { adminPassword, watchConsole } from './support.ts';

// Screenshots of the order screens for people to look at, in both languages, at 1280 and 800 px:
//   ORDERS_SHOTS_DIR=/tmp/shots/orders E2E_PORT=8191 npx playwright test e2e/orders-shots.spec.ts
// Skipped unless ORDERS_SHOTS_DIR is set; it asserts only that each view rendered without errors.

const dir = process.env.ORDERS_SHOTS_DIR ?? '';
test.skip(!dir, 'screenshots are taken on demand (ORDERS_SHOTS_DIR)');
test.describe.configure({ mode: 'serial' });

const shoot = shooter(dir);

test('order screens: list, drawer, palette results and the single transfer form', async ({ browser }) => {
  test.setTimeout(240_000);
  mkdirSync(dir, { recursive: true });
  const api = await adminApi();
  // A paid order whose callback went out and whose money moved: the fullest drawer.
  const paid = await api.ok<{ list: { orderNo: string; merchantOrderNo: string }[] }>(
    'GET',
    '/merchantOrder/list',
    { ...lastDays(3), status: 'paid', pageSize: '1' },
  );
  const order = paid.list[0]!;
  const unpaid = await api.ok<{ list: { orderNo: string; utr: string | null }[] }>(
    'GET',
    '/merchantOrder/list',
    {
      ...lastDays(7),
      status: 'unpaid',
      pageSize: '1',
    },
  );
  const waiting = unpaid.list[0]!;
  const merchantUser = await demoMerchantOperator();
  await api.dispose();

  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors = watchConsole(page);
  await page.goto('/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill(adminPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  const merchantContext = await browser.newContext({
    locale: 'en-US',
    viewport: { width: 1280, height: 860 },
  });
  const merchantPage = await merchantContext.newPage();
  const merchantErrors = watchConsole(merchantPage);
  await signIn(merchantPage, merchantUser);

  for (const language of ['en', 'zh_CN'] as const) {
    for (const width of widths) {
      await page.setViewportSize({ width, height: width < 1000 ? 1000 : 860 });
      await page.goto('/order?range=7d');
      await setLanguage(page, language);
      await expect(page.getByRole('grid').getByRole('row').nth(3)).toBeVisible();
      await shoot(page, 'order-list', language, width);

      // A broad number search: more than 500 orders start with "PI", so the total says "500+".
      await page.goto('/order?range=60d&q=PI');
      await expect(page.getByRole('grid').getByRole('row').nth(3)).toBeVisible();
      await shoot(page, 'order-search-broad', language, width);

      await page.goto(`/order?range=7d&order=${order.orderNo}`);
      await expect(
        page.getByRole('dialog', { name: order.orderNo }).locator('.callback-event').first(),
      ).toBeVisible();
      await shoot(page, 'order-drawer', language, width);
      await page.keyboard.press('Escape');

      await page.goto(`/order?range=7d&order=${waiting.orderNo}`);
      await expect(page.getByRole('dialog', { name: waiting.orderNo }).getByRole('toolbar')).toBeVisible();
      await page.keyboard.press('u');
      await expect(page.getByRole('dialog').getByRole('textbox', { name: 'UTR' })).toBeFocused();
      await page.keyboard.insertText('123456789012');
      await page.keyboard.press('Enter');
      await expect(page.locator('.utr-result')).toBeVisible();
      await shoot(page, 'utr-check', language, width);
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');

      await page.keyboard.press('Control+k');
      await page.keyboard.insertText(order.merchantOrderNo.slice(0, 8));
      await expect(
        page.getByRole('option', { name: new RegExp(order.merchantOrderNo.slice(0, 8)) }).first(),
      ).toBeVisible();
      await shoot(page, 'palette-orders', language, width);
      await page.keyboard.press('Escape');

      await page.goto('/payout?range=7d');
      await expect(page.getByRole('grid').getByRole('row').nth(2)).toBeVisible();
      await shoot(page, 'payout-list', language, width);

      await merchantPage.setViewportSize({ width, height: width < 1000 ? 1000 : 860 });
      await merchantPage.goto('/payout?range=7d');
      await setLanguage(merchantPage, language);
      await merchantPage
        .getByRole('button', { name: language === 'en' ? 'Single transfer' : '单笔转账' })
        .click();
      const form = merchantPage.getByRole('dialog');
      await form
        .locator('textarea')
        .fill('Name: Ravi Kumar\nA/c 123456789012\nIFSC HDFC0001234\nAmount 1,500.00');
      await shoot(merchantPage, 'single-transfer', language, width);
      await merchantPage.keyboard.press('Escape');
    }
  }
  expect(errors).toEqual([]);
  expect(merchantErrors).toEqual([]);
  await context.close();
  await merchantContext.close();
});
