import { mkdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { adminApi, signIn } from './orders-support.ts';
import { financeUser } from './settlement-support.ts';
import { setLanguage, shooter, widths } from './shots.ts';
import { watchConsole } from './support.ts';

// Screenshots of the D0 settlement summary for people to look at, in both languages, at 1280 and 800 px:
//   D0_SHOTS_DIR=/tmp/shots/d0 E2E_PORT=8413 npx playwright test e2e/d0-shots.spec.ts
// Skipped unless D0_SHOTS_DIR is set. On the way it checks that the demo's 60 days tie to the ledger.

const dir = process.env.D0_SHOTS_DIR ?? '';
test.skip(!dir, 'screenshots are taken on demand (D0_SHOTS_DIR)');

const shoot = shooter(dir);

test('D0 settlement summary: every merchant, one merchant, the totals', async ({ browser }) => {
  test.setTimeout(300_000);
  mkdirSync(dir, { recursive: true });
  const admin = await adminApi();
  const week = await admin.ok<{ from: string; to: string }>('GET', '/statOrder/balance', { view: 'd0' });
  // The demo's history, 62 days up to today: every row and the totals tie to the ledger.
  const from = new Date(`${week.to}T00:00:00Z`);
  from.setUTCDate(from.getUTCDate() - 61);
  let cursor: string | null = null;
  let rows = 0;
  do {
    const page: {
      list: { mismatch: boolean; day: string; merchantCode: string }[];
      nextCursor: string | null;
    } = await admin.ok('GET', '/statOrder/balance', {
      view: 'd0',
      from: from.toISOString().slice(0, 10),
      to: week.to,
      pageSize: '100',
      ...(cursor ? { cursor } : {}),
    });
    expect(page.list.filter((r) => r.mismatch)).toEqual([]);
    rows += page.list.length;
    cursor = page.nextCursor;
  } while (cursor);
  expect(rows).toBeGreaterThan(20);
  const finance = await financeUser(admin, 'e2e_d0');
  await admin.dispose();

  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors = watchConsole(page);
  await signIn(page, finance);
  for (const language of ['en', 'zh_CN'] as const) {
    for (const width of widths) {
      await page.setViewportSize({ width, height: width < 1000 ? 1000 : 860 });
      await page.goto('/statsettlementapply');
      await setLanguage(page, language);
      await expect(page.getByRole('grid').getByRole('row').nth(2)).toBeVisible();
      await expect(page.locator('.totals-bar')).toContainText(`${week.from} – ${week.to}`);
      await shoot(page, 'd0-all', language, width);
    }
  }
  // A row's drawer: the first row's merchant and day.
  await setLanguage(page, 'en');
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.goto('/statsettlementapply');
  const firstMerchant = await page
    .getByRole('grid')
    .getByRole('row')
    .nth(1)
    .getByRole('gridcell')
    .nth(2)
    .textContent();
  expect(firstMerchant ?? '').toMatch(/^M\d+/);
  await page.getByRole('grid').getByRole('row').nth(1).dblclick();
  await expect(page.getByRole('dialog')).toContainText(firstMerchant ?? '');
  await shoot(page, 'd0-row-drawer', 'en', 1280);
  await page.keyboard.press('Escape');
  // How a row that does not tie looks: the answer altered on its way to the console.
  await page.route('**/api/statOrder/balance?**', async (route) => {
    const answer = await (await route.fetch()).json();
    const [first] = answer.data.list;
    Object.assign(first, { ledgerClosing: (Number(first.closing) + 10).toFixed(2), mismatch: true });
    await route.fulfill({ json: answer });
  });
  await page.goto('/statsettlementapply');
  await expect(page.getByRole('grid').getByRole('row').nth(1)).toContainText('Differs by 10.00');
  await shoot(page, 'd0-mismatch', 'en', 1280);
  expect(errors).toEqual([]);
  await context.close();
});
