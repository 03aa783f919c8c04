import { mkdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { demoMerchantOperator, signIn } from './orders-support.ts';
import { setLanguage, shooter, widths } from './shots.ts';
import { watchConsole } from './support.ts';

// Screenshots of the single transfer for people to look at, in both languages, at 1280 and 800 px: the
// form after a paste it is unsure of, and the review step. Nothing is sent.
//   TRANSFER_SHOTS_DIR=/tmp/shots/transfer E2E_PORT=8437 npx playwright test e2e/transfer-shots.spec.ts
// Skipped unless TRANSFER_SHOTS_DIR is set.

const dir = process.env.TRANSFER_SHOTS_DIR ?? '';
test.skip(!dir, 'screenshots are taken on demand (TRANSFER_SHOTS_DIR)');

const shoot = shooter(dir);

test('single transfer: the unsure paste and the review step', async ({ browser }) => {
  test.setTimeout(180_000);
  mkdirSync(dir, { recursive: true });
  const user = await demoMerchantOperator();
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors = watchConsole(page);
  await signIn(page, user);

  for (const language of ['en', 'zh_CN'] as const) {
    for (const width of widths) {
      await page.setViewportSize({ width, height: width < 1000 ? 1000 : 860 });
      await page.goto('/payout');
      await setLanguage(page, language);
      await page.getByRole('button', { name: language === 'en' ? 'Single transfer' : '单笔转账' }).click();
      const dialog = page.getByRole('dialog');
      const paste = dialog.locator('textarea');
      await paste.fill(
        'Hi, please pay ₹1,25,000.50 to Ramesh Kumar\n50100234567890 50100234567891\nIFSC HDFC0001234',
      );
      await shoot(page, 'transfer-unsure', language, width);

      await paste.fill('Ramesh Kumar 50100234567890 HDFC0001234 1,25,000.50');
      await dialog
        .getByLabel(language === 'en' ? 'Merchant order no. (optional)' : '商户订单号（选填）')
        .fill('INV-2025-0042');
      const code = dialog.getByRole('textbox').last();
      await code.fill('123456');
      await code.press('Enter');
      await expect(dialog.getByRole('region')).toContainText(
        language === 'en' ? 'One lakh twenty-five thousand rupees and fifty paise' : '十二万五千卢比五十派萨',
      );
      await shoot(page, 'transfer-review', language, width);
      await page.keyboard.press('Escape');
      await expect(dialog.getByRole('region')).toBeHidden();
      await page.keyboard.press('Escape');
      await expect(dialog).toBeHidden();
    }
  }
  expect(errors).toEqual([]);
  await context.close();
});
