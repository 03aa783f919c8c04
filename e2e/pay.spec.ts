import { expect, type Page, test } from '@playwright/test';
import { lastDays, platformOperator } from './orders-support.ts';
import { postByApi } from './statement-support.ts';
import { Api, adminPassword, type BankMerchant, createBankMerchant, gatewayPayin } from './support.ts';

// The bank channel's pay page as a payer sees it: a bank channel, a public account bound to it and a
// merchant routed through it (set up through the admin API, as server/modules/receiving/testkit.ts
// does), a pay-in created through the signed gateway, and its payUrl opened on a 360 px phone and on a
// desktop. Screenshots go to /work/notes/shots (pay-en, pay-zh, pay-phone, pay-expired).

const shots = '/work/notes/shots';

interface Bank {
  merchant: BankMerchant;
  admin: Api;
  accountId: number;
}

let bank: Bank;

test.beforeAll(async () => {
  const admin = await Api.create();
  await admin.signIn('admin', adminPassword);
  const merchant = await createBankMerchant(admin, {
    tag: 'pay',
    name: 'Pay page',
    accountNumberPrefix: '5010',
    vpa: 'acme.collect@hdfcbank',
  });
  bank = { merchant, admin, accountId: merchant.accountId };
});

test.afterAll(async () => {
  await bank?.admin.dispose();
});

/** A pay-in through the signed gateway, as a merchant's server creates it; answers its order number and pay URL path. */
async function newPayin(amount: string) {
  const payin = await gatewayPayin(bank.merchant, {
    orderNoPrefix: 'E2EPAY',
    amount,
    returnUrl: 'https://shop.example.com/thanks',
  });
  expect(payin.payUrl).toMatch(new RegExp(`/pay/${payin.orderNo}$`));
  return { orderNo: payin.orderNo, path: new URL(payin.payUrl).pathname };
}

async function shoot(page: Page, name: string) {
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
}

test('a payer on a phone submits a UTR; the bank statement holding it, posted, pays the order, and the page says so', async ({
  browser,
}) => {
  const { orderNo, path } = await newPayin('1500.00');
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'en-IN' });
  const page = await context.newPage();
  await page.goto(path);
  await expect(page.getByTestId('amount')).toHaveText('₹1,500.00');
  const qr = page.getByRole('img', { name: 'UPI QR code for this payment' });
  await expect(qr).toBeVisible();
  expect(await qr.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  await expect(page.getByRole('timer')).toHaveText(/^(29|30):\d\d$/);
  await expect(page.getByText('acme.collect@hdfcbank')).toBeVisible();
  // Nothing is wider than the phone.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await shoot(page, 'pay-phone');

  // A malformed UTR: the server's reason, and nothing recorded.
  const utr = page.getByLabel('UTR (bank reference number)');
  await utr.fill('12-34');
  await page.getByRole('button', { name: 'Submit UTR' }).click();
  await expect(page.getByRole('alert')).toHaveText('A UTR is 6 to 32 letters and digits');

  const paidWith = `4${String(Date.now()).slice(-11)}`;
  await utr.fill(` ${paidWith} `);
  await page.getByRole('button', { name: 'Submit UTR' }).click();
  await expect(page.getByRole('status')).toContainText(
    `UTR ${paidWith} received. We will confirm your payment when the bank statement shows it.`,
  );

  // Recorded on the order (the console's drawer reads it), and the order is still waiting for the bank.
  const orders = await bank.admin.ok<{ list: { id: number; orderNo: string; status: string }[] }>(
    'GET',
    '/merchantOrder/list',
    { q: orderNo, ...lastDays(1) },
  );
  const row = orders.list.find((o) => o.orderNo === orderNo)!;
  const order = await bank.admin.ok<{ payerUtr: string | null; status: string }>(
    'GET',
    '/merchantOrder/info',
    {
      id: String(row.id),
    },
  );
  expect(order).toMatchObject({ payerUtr: paidWith, status: 'pending' });

  // The operator imports the account's statement, whose credit carries that UTR and amount: ready to
  // post; once a finance user posts it the order is paid, and the payer's page (polling) says so.
  const day = new Date().toLocaleDateString('en-CA', { timeZone: 'Asia/Kolkata' });
  const imported = await bank.admin.ok<{ importId: number; counts: { new: number; ready: number } }>(
    'POST',
    '/statement/import',
    {
      accountId: bank.accountId,
      mapping: {
        headerRow: 1,
        dateColumn: 'Date',
        dateFormat: 'yyyy-MM-dd',
        narrationColumn: 'Narration',
        creditColumn: 'Credit',
        utrPattern: '^UPI-(\\d{12})-',
      },
      text: `Date,Narration,Credit\n${day},UPI-${paidWith}-ASHA RAO,1500.00\n`,
    },
  );
  expect(imported.counts).toMatchObject({ new: 1, ready: 1 });
  expect(await bank.admin.ok('GET', '/merchantOrder/info', { id: String(row.id) })).toMatchObject({
    status: 'pending',
  });
  expect(await postByApi(await platformOperator(bank.admin), imported.importId)).toMatchObject({
    matched: 1,
  });
  expect(await bank.admin.ok('GET', '/merchantOrder/info', { id: String(row.id) })).toMatchObject({
    status: 'paid',
    paidBy: 'statement',
    utr: paidWith,
  });
  await expect(page.getByRole('heading', { name: 'Payment received' })).toBeVisible({ timeout: 10_000 });
  await context.close();
});

test('the page speaks English or Chinese, remembers the choice, and shows a desktop layout', async ({
  browser,
}) => {
  const { path } = await newPayin('24999.00');
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(path);
  await expect(page.getByTestId('amount')).toHaveText('₹24,999.00');
  await expect(page.getByRole('heading', { name: 'Or transfer to this account' })).toBeVisible();
  await shoot(page, 'pay-en');

  await page.getByRole('button', { name: '中文' }).click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  await expect(page.getByRole('heading', { name: '或转账到以下账户' })).toBeVisible();
  await shoot(page, 'pay-zh');
  await page.reload();
  await expect(page.getByRole('heading', { name: '或转账到以下账户' })).toBeVisible();
  await context.close();

  // A Chinese browser gets Chinese without asking.
  const zh = await browser.newContext({ locale: 'zh-CN' });
  const zhPage = await zh.newPage();
  await zhPage.goto(path);
  await expect(zhPage.getByText('请支付以下准确金额')).toBeVisible();
  await zh.close();
});

test('the countdown turns the page to "expired" at zero; an unknown order says so', async ({ browser }) => {
  const { path } = await newPayin('300.00');
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'en-IN' });
  const page = await context.newPage();
  await page.clock.install();
  await page.goto(path);
  await expect(page.getByTestId('amount')).toBeVisible();
  await page.clock.fastForward('31:00');
  await expect(page.getByRole('heading', { name: 'This order has expired' })).toBeVisible();
  await expect(page.getByRole('img')).toHaveCount(0);
  // A payer who paid late can still say so.
  await expect(page.getByRole('button', { name: 'Submit UTR' })).toBeVisible();
  await shoot(page, 'pay-expired');

  const unknown = await page.goto('/pay/PI000000000000000000');
  expect(unknown?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Order not found' })).toBeVisible();
  await shoot(page, 'pay-notfound');
  await context.close();
});
