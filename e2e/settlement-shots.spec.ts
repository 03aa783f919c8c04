import { mkdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { adminApi, demoMerchantOperator, nextCode, type Operator, signIn } from './orders-support.ts';
import { clientAs, financeUser } from './settlement-support.ts';
import { setLanguage, shooter, widths } from './shots.ts';
import { watchConsole } from './support.ts';

// Screenshots of the settlement screens for people to look at, in both languages, at 1280 and 800 px:
//   SETTLEMENT_SHOTS_DIR=/tmp/shots/settlement E2E_PORT=8411 npx playwright test e2e/settlement-shots.spec.ts
// Skipped unless SETTLEMENT_SHOTS_DIR is set; it asserts only that each view rendered without errors.

const dir = process.env.SETTLEMENT_SHOTS_DIR ?? '';
test.skip(!dir, 'screenshots are taken on demand (SETTLEMENT_SHOTS_DIR)');
test.describe.configure({ mode: 'serial' });

const shoot = shooter(dir);

/** Applications in each open state (bank and USDT), so the queue and its drawer have something to show. */
async function openApplications(merchant: Operator, confirmer: Operator): Promise<string[]> {
  const m = await clientAs(merchant);
  const made: { id: number; settlementNo: string }[] = [];
  const destinations = [
    { type: 'bank', accountName: 'Asha Rao', cardNumber: '123456789012', ifsc: 'HDFC0001234' },
    { type: 'usdt', returnAddress: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE' },
    {
      type: 'bank',
      accountName: 'Sundaram Venkataraghavan Iyer',
      cardNumber: '50100234567891',
      ifsc: 'ICIC0000104',
    },
  ];
  for (const [i, d] of destinations.entries()) {
    made.push(
      await m.ok('POST', '/settlementPayment/create', {
        ...d,
        amount: `${1000 + i * 250}.00`,
        code: await nextCode(merchant.secret),
      }),
    );
  }
  await m.dispose();
  const p = await clientAs(confirmer);
  await p.ok('POST', '/settlementPayment/confirm', {
    id: made[0]!.id,
    auditAmount: '950.00',
    code: await nextCode(confirmer.secret),
  });
  await p.dispose();
  return made.map((s) => s.settlementNo);
}

test('settlement screens: the queue, the drawer, the wallet list and the dialogs', async ({ browser }) => {
  test.setTimeout(900_000);
  mkdirSync(dir, { recursive: true });
  const admin = await adminApi();
  const merchant = await demoMerchantOperator();
  const finance = await financeUser(admin, 'e2e_shots');
  await admin.dispose();
  const [confirmed, usdt] = await openApplications(merchant, finance);

  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors = watchConsole(page);
  await signIn(page, finance);
  const merchantContext = await browser.newContext({
    locale: 'en-US',
    viewport: { width: 1280, height: 860 },
  });
  const merchantPage = await merchantContext.newPage();
  const merchantErrors = watchConsole(merchantPage);
  await signIn(merchantPage, merchant);

  for (const language of ['en', 'zh_CN'] as const) {
    for (const width of widths) {
      await page.setViewportSize({ width, height: width < 1000 ? 1000 : 860 });
      await page.goto('/settlementquery');
      await setLanguage(page, language);
      await expect(page.getByRole('grid').getByRole('row').nth(3)).toBeVisible();
      await shoot(page, 'queue', language, width);

      await page.goto(`/settlementquery?wallet=collection&settlement=${confirmed}`);
      await expect(
        page.getByRole('dialog', { name: confirmed }).locator('.mini-table').first(),
      ).toBeVisible();
      await shoot(page, 'drawer-confirmed', language, width);
      await page.keyboard.press('o');
      await expect(page.getByRole('dialog').locator('input').first()).toBeFocused();
      await shoot(page, 'complete-dialog', language, width);
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');

      await page.goto(`/settlementquery?wallet=collection&settlement=${usdt}`);
      await expect(page.getByRole('dialog', { name: usdt }).getByRole('toolbar')).toBeVisible();
      await shoot(page, 'drawer-usdt', language, width);
      await page.keyboard.press('c');
      const confirm = page.getByRole('dialog').filter({ has: page.locator('form') });
      await confirm.locator('input').nth(1).fill('86.25');
      await shoot(page, 'confirm-dialog-usdt', language, width);
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');

      await page.goto('/settlementpayment?range=7d');
      await expect(page.getByRole('grid').getByRole('row').nth(2)).toBeVisible();
      await shoot(page, 'collection-platform', language, width);

      await merchantPage.setViewportSize({ width, height: width < 1000 ? 1000 : 860 });
      await merchantPage.goto('/settlementpayment?range=7d');
      await setLanguage(merchantPage, language);
      await expect(merchantPage.getByRole('grid').getByRole('row').nth(2)).toBeVisible();
      await shoot(merchantPage, 'collection-merchant', language, width);
      await merchantPage.locator('.page-actions .button.primary').click();
      await merchantPage.getByRole('dialog').locator('form').getByRole('button').last().click();
      await shoot(merchantPage, 'apply-dialog-errors', language, width);
      await merchantPage.keyboard.press('Escape');
    }
  }
  expect(errors).toEqual([]);
  expect(merchantErrors).toEqual([]);
  await context.close();
  await merchantContext.close();
});
