/**
 * A bank freezes a donor card (issue 30), by keyboard, in English and in Chinese: two merchants' pay-ins
 * were paid into the card; an operator finds the card, `z` records the freeze with the bank's reference and
 * a Google code, and the freeze's drawer shows whose money it holds: the newest order's merchant in full,
 * the other's cut to fit. Screenshots at 1280 and 800 px (into `FREEZE_SHOTS_DIR` when set).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { adminApi, nextCode, platformOperator, signIn } from './orders-support.ts';
import { setLanguage, shootWidths, tr } from './shots.ts';
import { digits } from './statement-support.ts';
import { Api, gatewayPayin, grouped, watchConsole } from './support.ts';

const dir = process.env.FREEZE_SHOTS_DIR;

const shoot = shootWidths(dir);

/** A donor card on a bank channel, and two merchants routed to it, each with one pay-in paid into it. */
async function cardWithTwoMerchants(admin: Api, operator: { secret: string }) {
  const stamp = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const channel = await admin.ok<{ id: number }>('POST', '/channel/create', {
    code: `frz${stamp}`,
    name: `Freeze e2e ${stamp}`,
    adapter: 'bank',
    minAmount: '1.00',
    maxAmount: '1000000.00',
  });
  const holder = await admin.ok<{ id: number }>('POST', '/accountHolder/create', {
    name: 'Meena Iyer',
    phone: `+9198${digits(8)}`,
    idNumber: `ABCDE${digits(4)}F`,
    commissionRate: '0.5',
  });
  const accountNumber = `5010${digits(10)}`;
  const card = await admin.ok<{ id: number }>('POST', '/receivingAccount/create', {
    kind: 'card',
    holderId: holder.id,
    bankName: 'HDFC Bank',
    accountName: 'Meena Iyer',
    accountNumber,
    ifsc: 'HDFC0001234',
    dailyLimit: '1000000.00',
  });
  await admin.ok('POST', '/cardBinding/create', { accountId: card.id, channelId: channel.id, weight: 100 });
  const merchants = [];
  // The older order first: 300.00 of the first merchant, then 200.00 of the second.
  for (const [i, amount] of [
    [1, '300.00'],
    [2, '200.00'],
  ] as const) {
    const m = await admin.ok<{ id: number; code: string; apiSecret: string }>('POST', '/merchant/create', {
      name: `Freeze shop ${i} ${stamp}`,
      code: `FZ${i}${stamp}`.slice(0, 16),
      owner: { username: `fz${i}owner${stamp}`, password: 'Owner1234!' },
      channels: [{ channelId: channel.id, weight: 100 }],
    });
    const order = await gatewayPayin(m, { orderNoPrefix: `FZ${i}`, amount });
    const info = await admin.ok<{ id: number }>('GET', '/merchantOrder/info', { orderNo: order.orderNo });
    await admin.ok('POST', '/merchantOrder/forceSupplement', {
      id: info.id,
      reason: 'paid into the card, seen on its statement',
      code: await nextCode(operator.secret),
    });
    merchants.push(m);
  }
  return { cardId: card.id, accountNumber, merchants };
}

for (const lang of ['en', 'zh_CN'] as const) {
  test(`record a bank's freeze of a donor card and see whose money it holds (${lang})`, async ({
    browser,
  }) => {
    test.setTimeout(180_000);
    if (dir) mkdirSync(dir, { recursive: true });
    const admin = await adminApi();
    const operator = await platformOperator(admin);
    const own = await operatorApi(operator);
    const w = await cardWithTwoMerchants(own, operator);

    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = watchConsole(page);
    await signIn(page, operator);
    await setLanguage(page, lang);
    await page.goto(`/receiving/cards?q=${w.accountNumber}`);
    const grid = page.getByRole('grid', { name: tr(lang, 'commands.receivingAccount.cards.title') });
    const row = grid.getByRole('row').filter({ hasText: w.accountNumber.slice(-4) });
    await expect(row).toHaveCount(1);
    await page.locator('body').press('j');
    await expect(row).toBeFocused();

    // z: the freeze, its amount first: 450.00 of the 500.00 paid in.
    await page.keyboard.press('z');
    const form = page.getByRole('dialog', { name: tr(lang, 'commands.accountFreeze.record.title') });
    await expect(form.getByLabel(tr(lang, 'screens.accountFreeze.amount'))).toBeFocused();
    await page.keyboard.type('450.00');
    await page.keyboard.press('Tab');
    await page.keyboard.type(`CYB${digits(6)}`);
    await page.keyboard.press('Tab');
    await page.keyboard.type(lang === 'en' ? 'Cyber cell complaint, letter of today' : '网警投诉，今日来函');
    await page.keyboard.press('Tab');
    await page.keyboard.type(await nextCode(operator.secret));
    await shoot(page, 'freeze-1-record', lang);
    await page.keyboard.press('Enter');
    await expect(form).toBeHidden();

    // The freeze's drawer: the newer order's merchant in full (200.00), the older one cut to fit (250.00).
    const drawer = page.getByRole('dialog').filter({ hasText: tr(lang, 'screens.accountFreeze.linesTitle') });
    await expect(drawer).toBeVisible();
    const [older, newer] = w.merchants;
    await expect(drawer.getByRole('row').filter({ hasText: newer!.code })).toContainText(grouped('200.00'));
    await expect(drawer.getByRole('row').filter({ hasText: older!.code })).toContainText(grouped('250.00'));
    await shoot(page, 'freeze-2-whose-money', lang);
    const card = await admin.ok<{ status: string }>('GET', '/receivingAccount/info', {
      id: String(w.cardId),
    });
    expect(card.status).toBe('frozen');
    expect(errors).toEqual([]);
    await context.close();
    await own.dispose();
    await admin.dispose();
  });
}

/** The operator's own API session (its '*' role holds the finance doors the workspace uses). */
async function operatorApi(operator: { username: string; password: string; secret: string }): Promise<Api> {
  const api = await Api.create();
  await api.signInWithCode(operator.username, operator.password, await nextCode(operator.secret));
  return api;
}
