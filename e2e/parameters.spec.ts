import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import {
  Api,
  adminPassword,
  baseURL,
  createBankMerchant,
  gatewayPayin,
  totp,
  watchConsole,
} from './support.ts';

// The parameters screen: reached by Ctrl-K, the pay page support text changed in its dialog with the
// user's Google code, and the change seen by a payer on the pay page of a new bank pay-in. The support
// text is set back to empty at the end (other specs look at the pay page). Screenshots in both languages
// go to /work/notes/shots (parameters-en, parameters-zh, parameters-dialog).

const shots = '/work/notes/shots';

interface Setup {
  admin: Api;
  merchant: { code: string; apiSecret: string };
  user: { username: string; token: string; secret: string };
}

let setup: Setup;

test.beforeAll(async () => {
  const admin = await Api.create();
  await admin.signIn('admin', adminPassword);
  const stamp = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  // A bank channel with a public account, and a merchant routed through it (as pay.spec.ts does).
  const merchant = await createBankMerchant(admin, {
    tag: 'prm',
    name: 'Parameters',
    accountNumberPrefix: '5020',
    vpa: 'acme.params@hdfcbank',
  });

  // A platform user who may read and change parameters, signed in before binding its key (so that no
  // sign-in spends a code step), then bound with the previous step's code: now's stays for the dialog.
  const role = await admin.ok<{ id: number }>('POST', '/role/create', {
    name: `e2e parameters ${stamp}`,
    description: 'e2e',
    perms: ['GET /parameter/list', 'POST /parameter/update'],
  });
  const username = `e2e_prm_${stamp}`;
  const password = 'E2ePassw0rd!';
  await admin.ok('POST', '/admin/create', {
    username,
    password,
    nickname: 'E2E Parameters',
    roleIds: [role.id],
  });
  const signed = await as('', 'POST', '/v1/auth/login/password', { username, password });
  const token = signed.token as string;
  const info = await as(token, 'GET', '/auth/google/bindInfo');
  const secret = info.secret as string;
  await as(token, 'POST', '/v1/auth/google/bind', { secret, code: totp(secret, -1), password });
  setup = { admin, merchant, user: { username, token, secret } };
});

/** One admin API call with a session token (the user's own, which `Api` does not take); answers its data. */
async function as(token: string, method: 'GET' | 'POST', path: string, body?: Record<string, unknown>) {
  const res = await fetch(`${baseURL}/api${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      'accept-language': 'en',
      ...(token ? { 'admin-token': token } : {}),
    },
    body: body && JSON.stringify(body),
  });
  const json = (await res.json()) as { errno: number; errmsg: string; data: Record<string, unknown> };
  expect(json.errno, `${method} ${path}: ${json.errmsg}`).toBe(0);
  return json.data;
}

test.afterAll(async () => {
  await setup?.admin.dispose();
});

/** A bank pay-in through the signed gateway; answers its pay page path. */
async function newPayin(amount: string): Promise<string> {
  const payin = await gatewayPayin(setup.merchant, { orderNoPrefix: 'E2EPRM', amount });
  return new URL(payin.payUrl).pathname;
}

test('the pay page support text changed on the parameters screen shows on a new pay page', async ({
  browser,
}) => {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
  await context.addCookies([{ name: 'Admin-Token', value: setup.user.token, url: baseURL }]);
  const page = await context.newPage();
  const errors = watchConsole(page);

  await page.goto('/dashboard');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette).toBeVisible();
  await page.keyboard.type('Parameters');
  await expect(palette.getByRole('option', { name: /^Parameters/ })).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/system\/parameters$/);
  await expect(page.getByRole('heading', { name: 'Parameters', level: 1 })).toBeVisible();
  for (const label of ['Pay-in expiry', 'Callback schedule', 'Business time zone', 'Statement auto-matching'])
    await expect(page.getByText(label, { exact: true })).toBeVisible();
  await expect(page.getByTestId('parameter-value-payin_expiry_minutes')).toContainText('30 min');
  await page.screenshot({ path: `${shots}/parameters-en.png`, fullPage: true });

  // The row, then `e`: the dialog of its kind (a text area), confirmed with the Google code.
  await page.getByText('Pay page support text', { exact: true }).click();
  await page.keyboard.press('e');
  const dialog = page.getByRole('dialog', { name: 'Pay page support text' });
  await expect(dialog).toBeVisible();
  const words = 'Trouble paying? WhatsApp +91 98765 43210 <b>24×7</b>';
  await dialog.getByLabel('Pay page support text').fill(words);
  // A wrong code is refused at the code field, and nothing changes.
  await dialog.getByLabel('Google code').fill('000000');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText('The verification code is wrong', { exact: false })).toBeVisible();
  await dialog.getByLabel('Google code').fill(totp(setup.user.secret));
  await page.screenshot({ path: `${shots}/parameters-dialog.png` });
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('parameter-value-pay_page_support_text')).toContainText('WhatsApp +91');

  // A payer's pay page: the words as plain text (the tags shown, not obeyed).
  const payer = await browser.newPage({ viewport: { width: 360, height: 740 } });
  await payer.goto(await newPayin('250.00'));
  await expect(payer.getByTestId('support')).toHaveText(words);
  await expect(payer.locator('.support b')).toHaveCount(0);
  await payer.close();

  // The screen in Chinese.
  await page.getByRole('button', { name: 'Language' }).click();
  await page.getByRole('menuitemradio', { name: '中文' }).click();
  await expect(page.getByRole('heading', { name: '参数设置', level: 1 })).toBeVisible();
  await page.screenshot({ path: `${shots}/parameters-zh.png`, fullPage: true });
  await page.setViewportSize({ width: 800, height: 800 });
  await page.screenshot({ path: `${shots}/parameters-zh-800.png`, fullPage: true });
  await page.getByRole('button', { name: '语言' }).click();
  await page.getByRole('menuitemradio', { name: 'English' }).click();
  await expect(page.getByRole('heading', { name: 'Parameters', level: 1 })).toBeVisible();
  await page.screenshot({ path: `${shots}/parameters-en-800.png`, fullPage: true });

  expect(errors, 'console errors').toEqual([]);
  await context.close();
  // Back to empty for the other specs' pay pages (through the API, the next code step).
  await as(setup.user.token, 'POST', '/parameter/update', {
    key: 'pay_page_support_text',
    value: '',
    code: totp(setup.user.secret, 1),
  });
});
