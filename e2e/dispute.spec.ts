/**
 * Disputes by keyboard, in English and in Chinese (issue 30): an operator opens a paid order's drawer, `D`
 * opens a chargeback of part of it with its deadline, a reason and a Google code; the dispute's drawer shows
 * the amount held from the merchant's wallets; `o` goes back to the order, whose drawer lists the case; `g D`
 * lists it among the disputes; the merchant's wallet shows the hold in its frozen balance and change log;
 * `c` withdraws it with a reason and the Google code, and the hold goes back.
 * Then a second operator adds evidence to a complaint another opened (`n`) and decides it lost (`l`): the
 * order has no refund to take the payer's account from, so the server asks for it at the account's fields. Screenshots at 1280 and 800 px (into `DISPUTE_SHOTS_DIR` when
 * set, else the test's output folder).
 */
import { mkdirSync } from 'node:fs';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { adminApi, newPayin, nextCode, platformOperator, signIn } from './orders-support.ts';
import { setLanguage, shootWidths, tr } from './shots.ts';
import { Api, grouped, watchConsole } from './support.ts';

const dir = process.env.DISPUTE_SHOTS_DIR;

const shoot = shootWidths(dir);

/** Tab until `target` has the focus (a date-time input takes one Tab per part: month, day, year…). */
async function tabTo(page: Page, target: Locator, most = 12) {
  for (let i = 0; i < most; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  await expect(target).toBeFocused();
}

/** Waits out the toasts that name `text` (they would cover a drawer's title in a shot). */
async function toastsGone(page: Page, text: string) {
  await expect(page.getByRole('status').filter({ hasText: text })).toHaveCount(0, { timeout: 10_000 });
}

for (const lang of ['en', 'zh_CN'] as const) {
  test(`dispute part of a paid order from its drawer and see the hold by keyboard (${lang})`, async ({
    browser,
  }) => {
    test.setTimeout(150_000);
    if (dir) mkdirSync(dir, { recursive: true });
    const admin = await adminApi();
    const operator = await platformOperator(admin);
    const order = await newPayin('1500.00');
    await admin.ok('POST', '/simulator/pay', { orderNo: order.orderNo, result: 'success' });
    // An amount no other hold of the demo merchant has, so its line in the wallet's log is this one.
    const amount = `6${String(Date.now() % 100).padStart(2, '0')}.${String(Math.floor(Math.random() * 90) + 10)}`;

    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = watchConsole(page);
    await signIn(page, operator);
    await setLanguage(page, lang);
    await page.goto(`/order?range=7d&order=${order.orderNo}`);
    const orderDrawer = page.getByRole('dialog', { name: order.orderNo });
    await expect(orderDrawer).toBeVisible();
    await expect(orderDrawer.getByText(tr(lang, 'screens.dispute.none'), { exact: true })).toBeVisible();

    // D: the dispute form, its kind first (a chargeback), then the amount (what is left of what was paid).
    await page.keyboard.press('D');
    const form = page.getByRole('dialog', {
      name: tr(lang, 'screens.dispute.openTitle', { orderNo: order.orderNo }),
    });
    await expect(form.getByLabel(tr(lang, 'screens.dispute.kind'))).toBeFocused();
    const amountField = form.getByLabel(tr(lang, 'screens.dispute.amount'));
    await expect(amountField).toHaveValue('1500.00');
    await page.keyboard.press('Tab');
    await expect(amountField).toBeFocused();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(amount);
    // The deadline keeps its default, a week ahead.
    const deadline = form.getByLabel(tr(lang, 'screens.dispute.deadline'));
    await expect(deadline).not.toHaveValue('');
    await tabTo(page, form.getByLabel(tr(lang, 'screens.dispute.reason')));
    await page.keyboard.type(
      lang === 'en' ? 'Chargeback notice from the payer’s bank' : '付款人银行的拒付通知',
    );
    await page.keyboard.press('Tab');
    await page.keyboard.type(await nextCode(operator.secret));
    await shoot(page, 'dispute-1-open', lang);
    await page.keyboard.press('Enter');
    await expect(form).toBeHidden();

    // The dispute's drawer: the amount held from the merchant's wallets, nothing left unheld.
    const made = await admin.ok<{
      list: { id: number; disputeNo: string; merchantId: number; held: string; unheld: string }[];
    }>('GET', '/dispute/list', { payinId: String(order.id) });
    const dispute = made.list[0]!;
    expect(dispute).toMatchObject({ held: amount, unheld: '0.00' });
    const said = tr(lang, 'screens.dispute.openedDone', {
      disputeNo: dispute.disputeNo,
      held: grouped(amount, lang),
      currency: 'INR',
    });
    await expect(page.getByRole('status').filter({ hasText: said })).toBeVisible();
    await toastsGone(page, dispute.disputeNo);
    const drawer = page.getByRole('dialog', { name: dispute.disputeNo });
    await expect(drawer).toBeVisible();
    const held = drawer.locator('.detail-field').filter({
      has: page.getByText(tr(lang, 'screens.dispute.held'), { exact: true }),
    });
    await expect(held).toContainText(`${grouped(amount, lang)} INR`);
    await expect(drawer.getByRole('button', { name: tr(lang, 'commands.dispute.win.title') })).toBeVisible();
    await shoot(page, 'dispute-2-drawer', lang);

    // o: its pay-in, whose drawer lists the case with what it holds.
    await page.keyboard.press('o');
    await expect(orderDrawer).toBeVisible();
    const part = orderDrawer.getByRole('region', { name: tr(lang, 'screens.dispute.section') });
    const line = part.getByRole('row').filter({ hasText: dispute.disputeNo });
    await expect(line).toContainText(grouped(amount, lang));
    await expect(line).toContainText(tr(lang, 'status.dispute.open'));
    await line.scrollIntoViewIfNeeded();
    await shoot(page, 'dispute-3-order', lang);

    // g D: the disputes list has the case, open, with its held amount.
    await page.keyboard.press('Escape');
    await expect(orderDrawer).toBeHidden();
    await page.keyboard.press('g');
    await page.keyboard.press('D');
    const grid = page.getByRole('grid', { name: tr(lang, 'commands.dispute.list.title') });
    const row = grid.getByRole('row').filter({ hasText: dispute.disputeNo });
    await expect(row).toContainText(grouped(amount, lang));
    await expect(row).toContainText(tr(lang, 'status.dispute.open'));
    await shoot(page, 'dispute-4-list', lang);

    // The merchant's wallet: the frozen balance holds it, and its log names the hold.
    const wallet = await admin.ok<{ frozen: string }>('POST', '/merchantWallet/info', {
      merchantId: dispute.merchantId,
    });
    await page.goto(`/wallet?merchantId=${dispute.merchantId}&account=frozen`);
    await expect(page.locator('[data-account="frozen"]')).toContainText(grouped(wallet.frozen, lang));
    const log = page
      .getByRole('grid')
      .getByRole('row')
      .filter({ hasText: grouped(amount, lang) });
    await expect(log.first()).toBeVisible();
    await shoot(page, 'dispute-5-wallet', lang);

    // c: withdrawn with a reason and the Google code (the door `dispute.withdraw`): the hold goes back.
    await page.goto(`/dispute?dispute=${dispute.id}`);
    await expect(drawer).toBeVisible();
    await page.keyboard.press('c');
    const withdraw = page.getByRole('dialog', { name: tr(lang, 'commands.dispute.withdraw.title') });
    await expect(withdraw.getByLabel(tr(lang, 'screens.dispute.withdrawReason'))).toBeFocused();
    await page.keyboard.type(lang === 'en' ? 'The payer’s bank withdrew its notice' : '付款人银行已撤回通知');
    await tabTo(page, withdraw.getByLabel(tr(lang, 'screens.order.googleCode')));
    await page.keyboard.type(await nextCode(operator.secret));
    await shoot(page, 'dispute-5b-withdraw', lang);
    await page.keyboard.press('Enter');
    await expect(withdraw).toBeHidden();
    await expect(drawer.getByText(tr(lang, 'status.dispute.withdrawn'), { exact: true })).toBeVisible();
    const ended = await admin.ok<{ status: string }>('GET', '/dispute/info', { id: String(dispute.id) });
    expect(ended.status).toBe('withdrawn');
    expect(errors).toEqual([]);
    await context.close();
    await admin.dispose();
  });
}

for (const lang of ['en', 'zh_CN'] as const) {
  test(`add evidence to a complaint and decide it lost with the payer's account by keyboard (${lang})`, async ({
    browser,
  }) => {
    test.setTimeout(150_000);
    if (dir) mkdirSync(dir, { recursive: true });
    const admin = await adminApi();
    const opener = await platformOperator(admin);
    const decider = await platformOperator(admin);
    const order = await newPayin('900.00');
    await admin.ok('POST', '/simulator/pay', { orderNo: order.orderNo, result: 'success' });
    const own = await Api.create();
    await own.signInWithCode(opener.username, opener.password, await nextCode(opener.secret));
    const opened = await own.ok<{ id: number; disputeNo: string }>('POST', '/dispute/open', {
      payinId: order.id,
      kind: 'complaint',
      amount: '400.00',
      deadline: new Date(Date.now() + 3 * 86_400_000).toISOString(),
      reason: 'Payer says the goods never came',
      code: await nextCode(opener.secret),
    });

    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = watchConsole(page);
    await signIn(page, decider);
    await setLanguage(page, lang);
    await page.goto(`/dispute?dispute=${opened.id}`);
    const drawer = page.getByRole('dialog', { name: opened.disputeNo });
    await expect(drawer.getByText(tr(lang, 'screens.dispute.noEvidence'))).toBeVisible();

    // n: a note, added.
    await page.keyboard.press('n');
    const evidence = page.getByRole('dialog', { name: tr(lang, 'commands.dispute.evidence.title') });
    await expect(evidence.getByLabel(tr(lang, 'screens.dispute.note'))).toBeFocused();
    const note = lang === 'en' ? 'Courier confirms delivery on 28 Nov' : '快递确认 11 月 28 日已签收';
    await page.keyboard.type(note);
    await tabTo(page, evidence.getByRole('button', { name: tr(lang, 'commands.dispute.evidence.title') }));
    await page.keyboard.press('Enter');
    await expect(evidence).toBeHidden();
    await expect(drawer.getByText(note)).toBeVisible();

    // l: lost, without the payer's account first: the server asks for it above the account's fields.
    await page.keyboard.press('l');
    const decide = page.getByRole('dialog', { name: tr(lang, 'commands.dispute.lose.title') });
    await expect(decide.getByLabel(tr(lang, 'screens.dispute.outcomeReason'))).toBeFocused();
    await page.keyboard.type(lang === 'en' ? 'No proof of delivery to the payer' : '无法证明已交付给付款人');
    await tabTo(page, decide.getByLabel(tr(lang, 'screens.order.googleCode')));
    await page.keyboard.type(await nextCode(decider.secret));
    await page.keyboard.press('Enter');
    await expect(decide.getByText(tr(lang, 'validation.refundPayee'))).toBeVisible();
    await toastsGone(page, opened.disputeNo);
    await shoot(page, 'dispute-6-payee', lang);
    await tabTo(page, decide.getByLabel(tr(lang, 'screens.refund.accountName')));
    await page.keyboard.type('Asha Rao');
    await page.keyboard.press('Tab');
    await page.keyboard.type('50100200300');
    await page.keyboard.press('Tab');
    await page.keyboard.type('HDFC0001234');
    await page.keyboard.press('Enter');
    await expect(decide).toBeHidden();

    // Lost: the payer is refunded from the hold, and the drawer names the refund.
    await expect(drawer.getByText(tr(lang, 'status.dispute.lost'), { exact: true })).toBeVisible();
    const info = await admin.ok<{ status: string; refundNo: string | null }>('GET', '/dispute/info', {
      id: String(opened.id),
    });
    expect(info.status).toBe('lost');
    await expect(drawer.getByRole('link', { name: info.refundNo! })).toBeVisible();
    await toastsGone(page, opened.disputeNo);
    await shoot(page, 'dispute-7-lost', lang);
    expect(errors).toEqual([]);
    await context.close();
    await own.dispose();
    await admin.dispose();
  });
}
