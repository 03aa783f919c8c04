import { mkdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { adminApi, nextCode, signIn } from './orders-support.ts';
import { financeUser } from './settlement-support.ts';
import { setLanguage, shooter, widths } from './shots.ts';
import { watchConsole } from './support.ts';

// Screenshots of the T+N screens for people to look at, in both languages, at 1280 and 800 px:
//   TN_SHOTS_DIR=/tmp/shots/tn E2E_PORT=8412 npx playwright test e2e/tn-shots.spec.ts
// Skipped unless TN_SHOTS_DIR is set. On the way it runs the settlement by keyboard (Shift-R, the day, the
// Google code, Enter) and checks that the demo's T+1 merchant's due lines were released.

const dir = process.env.TN_SHOTS_DIR ?? '';
test.skip(!dir, 'screenshots are taken on demand (TN_SHOTS_DIR)');

const shoot = shooter(dir);

test('T+N screens: the lines, a run by keyboard, the runs and a run’s drawer', async ({ browser }) => {
  test.setTimeout(300_000);
  mkdirSync(dir, { recursive: true });
  const admin = await adminApi();
  const finance = await financeUser(admin, 'e2e_tn');
  await admin.dispose();
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors = watchConsole(page);
  await signIn(page, finance);

  // The demo's T+1 merchant's line of today waits (its earlier days were released by the demo's runs).
  await page.goto('/merchantsettlementtn?status=pending');
  await expect(page.getByRole('grid').getByRole('row').nth(1)).toBeVisible();
  await shoot(page, 'tn-lines-pending', 'en', 1280);

  // Run settlement now, by keyboard only.
  await page.goto('/settlementtnlog');
  await expect(page.getByRole('button', { name: 'Run settlement now' })).toBeVisible();
  // The newest run is the first row (the demo's runs fill more than a page: count the run numbers).
  const newest = Number(
    await page.getByRole('grid').getByRole('row').nth(1).getByRole('gridcell').nth(1).textContent(),
  );
  await page.keyboard.press('Shift+R');
  const dialog = page.getByRole('dialog');
  // The day is today; the Google code field has the focus.
  await expect(dialog.getByLabel('Google code')).toBeFocused();
  await page.keyboard.type(await nextCode(finance.secret));
  await shoot(page, 'tn-run-dialog', 'en', 1280);
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('grid').getByRole('row').nth(1).getByRole('gridcell').nth(1)).toHaveText(
    String(newest + 1),
  );
  await expect(page.getByRole('grid').getByRole('row').nth(1)).toContainText('Succeeded');

  for (const language of ['en', 'zh_CN'] as const) {
    for (const width of widths) {
      await page.setViewportSize({ width, height: width < 1000 ? 1000 : 860 });
      await page.goto('/merchantsettlementtn');
      await setLanguage(page, language);
      await expect(page.getByRole('grid').getByRole('row').nth(2)).toBeVisible();
      await shoot(page, 'tn-lines', language, width);

      await page.goto('/settlementtnlog');
      await expect(page.getByRole('grid').getByRole('row').nth(1)).toBeVisible();
      await shoot(page, 'tn-runs', language, width);
      // The daily job's run, the first: the demo's due lines, released.
      await page.getByRole('grid').getByRole('row').last().dblclick();
      await expect(page.getByRole('dialog').locator('.mini-table')).toBeVisible();
      await shoot(page, 'tn-run-drawer', language, width);
      await page.keyboard.press('Escape');
    }
  }
  expect(errors).toEqual([]);
  await context.close();
});
