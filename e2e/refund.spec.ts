/**
 * Refunds by keyboard, in English and in Chinese (issue 30): an operator opens a paid order's drawer, `f`
 * refunds part of it with a reason, the payer's account and a Google code; the drawer lists the refund and
 * what is left; `g R` lists it among the refunds. Screenshots at 1280 and 800 px (into
 * `REFUND_SHOTS_DIR` when set, else the test's output folder).
 */
import { mkdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { adminApi, newPayin, nextCode, platformOperator, signIn } from './orders-support.ts';
import { setLanguage, shootWidths, tr } from './shots.ts';
import { grouped, watchConsole } from './support.ts';

const dir = process.env.REFUND_SHOTS_DIR;

const shoot = shootWidths(dir);

for (const lang of ['en', 'zh_CN'] as const) {
  test(`refund part of a paid order from its drawer by keyboard (${lang})`, async ({ browser }) => {
    test.setTimeout(120_000);
    if (dir) mkdirSync(dir, { recursive: true });
    const admin = await adminApi();
    const operator = await platformOperator(admin);
    const order = await newPayin('1234.00');
    await admin.ok('POST', '/simulator/pay', { orderNo: order.orderNo, result: 'success' });

    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = watchConsole(page);
    await signIn(page, operator);
    await setLanguage(page, lang);
    await page.goto(`/order?range=7d&order=${order.orderNo}`);
    const drawer = page.getByRole('dialog', { name: order.orderNo });
    await expect(drawer).toBeVisible();
    await expect(drawer.getByText(tr(lang, 'screens.refund.section'), { exact: true })).toBeVisible();

    // f: the refund form, its amount first.
    await page.keyboard.press('f');
    const form = page.getByRole('dialog', {
      name: tr(lang, 'screens.refund.title', { orderNo: order.orderNo }),
    });
    await expect(form.getByLabel(tr(lang, 'screens.refund.amount'))).toBeFocused();
    await expect(form).toContainText(tr(lang, 'screens.refund.amountHint', { amount: grouped('1234.00') }));
    await page.keyboard.type('200.00');
    await page.keyboard.press('Tab');
    await page.keyboard.type(lang === 'en' ? 'One item returned' : '退回一件商品');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Asha Rao');
    await page.keyboard.press('Tab');
    await page.keyboard.type('50100200300');
    await page.keyboard.press('Tab');
    await page.keyboard.type('HDFC0001234');
    await page.keyboard.press('Tab');
    await page.keyboard.type(await nextCode(operator.secret));
    await shoot(page, 'refund-1-form', lang);
    await page.keyboard.press('Enter');
    await expect(form).toBeHidden();

    // The drawer lists the refund and what is left of what was paid.
    await expect(
      drawer.getByText(
        tr(lang, 'screens.refund.sums', { refunded: grouped('200.00'), left: grouped('1034.00') }),
      ),
    ).toBeVisible();
    await expect(drawer.getByRole('cell', { name: '50100200300' })).toBeVisible();
    await drawer.getByRole('cell', { name: '50100200300' }).scrollIntoViewIfNeeded();
    await shoot(page, 'refund-2-drawer', lang);
    const sums = await admin.ok<{ refundedAmount: string; refundable: string }>('GET', '/refund/ofOrder', {
      payinId: String(order.id),
    });
    expect(sums).toMatchObject({ refundedAmount: '200.00', refundable: '1034.00' });

    // g R: the refunds list, this one first.
    await page.keyboard.press('Escape');
    await page.keyboard.press('g');
    await page.keyboard.press('R');
    const grid = page.getByRole('grid', { name: tr(lang, 'commands.refund.list.title') });
    await expect(grid.getByRole('row').filter({ hasText: order.orderNo })).toBeVisible();
    await shoot(page, 'refund-3-list', lang);
    expect(errors).toEqual([]);
    await context.close();
    await admin.dispose();
  });
}
