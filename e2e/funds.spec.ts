/**
 * The merchant's money screens on the demo workspace: a wallet transfer with a Google code, a recharge
 * submitted by a merchant and decided by a platform user, a secret reset (with a Google code) shown once
 * and checked with the signature helper against the real gateway, and the development settings'
 * whitelist form (with a Google code).
 * Keyboard first; the recharge rejection takes the mouse path.
 */
import { type Browser, expect, type Page, request, test } from '@playwright/test';
import { feeOf, formatMinor, percentToPpm, toMinor } from '../contract/money.ts';
import { nextCode } from './orders-support.ts';
import { adminPassword, baseURL, grouped, watchConsole } from './support.ts';

test.describe.configure({ mode: 'serial' });

/** A user of demo merchant M10001 with the owner role and a bound Google key (its own, so `demo` stays as it is). */
interface MerchantUser {
  username: string;
  password: string;
  secret: string;
}

let user: MerchantUser;
let merchantPage: Page;
let adminPage: Page;
const stamp = Date.now().toString(36);
const consoleErrors = new Map<Page, string[]>();

/** The merchant test user's next code. */
const googleCode = (spend = true) => nextCode(user.secret, spend);
/** A platform user of the built-in finance role with its own Google key: recharge decisions take a code. */
let finance: MerchantUser;

/** Minor units as the console prints them: 123456789 → "12,34,567.89". */
const group = (minor: number): string => grouped(formatMinor(minor));

type Client = Awaited<ReturnType<typeof signedIn>>;

/** A fresh request context per call: Playwright closes contexts a hook made once the hook ends. */
async function http<T>(
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body: Record<string, unknown> = {},
) {
  const context = await request.newContext({ baseURL, extraHTTPHeaders: { 'Accept-Language': 'en' } });
  try {
    const headers = token ? { 'admin-token': token } : undefined;
    const answer =
      method === 'GET'
        ? await context.get(`/api${path}`, { params: body as Record<string, string>, headers })
        : await context.post(`/api${path}`, { data: body, headers });
    const json = await answer.json();
    expect(json.errno, `${method} ${path}: ${json.errmsg}`).toBe(0);
    return json.data as T;
  } finally {
    await context.dispose();
  }
}

/**
 * An API client signed in once with the one-step login (which asks users with an e-mail for no e-mail
 * code); sign-ins are rate limited per address, so the specs sign in as few times as they can.
 */
async function signedIn(username: string, password: string) {
  const { token } = await http<{ token: string }>('', 'POST', '/auth/login', { username, password });
  return {
    ok: <T>(method: 'GET' | 'POST', path: string, body: Record<string, unknown> = {}) =>
      http<T>(token, method, path, body),
  };
}

/** The demo merchant's owner, for reading balances and settings beside the screens. */
let demo: Client;

async function newPage(browser: Browser, locale = 'en-US', width = 1280): Promise<Page> {
  const context = await browser.newContext({ locale, viewport: { width, height: 860 } });
  const page = await context.newPage();
  consoleErrors.set(page, watchConsole(page));
  return page;
}

/** Signs in through the login page; with `code` the Google step follows. */
async function signIn(page: Page, username: string, password: string, code?: string) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Password').press('Enter');
  if (code) {
    const field = page.getByLabel('Google code');
    await expect(field).toBeFocused();
    await field.fill(code);
    await field.press('Enter');
  }
  await expect(page).toHaveURL(/\/dashboard$/);
}

/** The wallet balances as the API answers them, in minor units. */
async function balances(api: Client) {
  const b = await api.ok<{ collection: { available: string }; payout: { available: string } }>(
    'POST',
    '/merchantWallet/info',
  );
  return { collection: toMinor(b.collection.available), payout: toMinor(b.payout.available) };
}

test.beforeAll(async ({ browser }) => {
  // The demo owner makes a second owner with its own Google key for the money actions.
  demo = await signedIn('demo', 'Demo12345');
  const owner = demo;
  const roles = await owner.ok<{ list: { id: number; perms: string[] }[] }>('GET', '/role/list', {
    pageSize: '100',
  });
  const ownerRole = roles.list.find((r) => r.perms.includes('*'));
  if (!ownerRole) throw new Error('the demo merchant has no owner role');
  const username = `e2e_funds_${stamp}`;
  const password = 'E2ePassw0rd!';
  await owner.ok('POST', '/admin/create', {
    username,
    password,
    nickname: 'E2E Funds',
    roleIds: [ownerRole.id],
  });
  const own = await signedIn(username, password);
  const info = await own.ok<{ secret: string }>('GET', '/auth/google/bindInfo');
  user = { username, password, secret: info.secret };
  await own.ok('POST', '/v1/auth/google/bind', { secret: info.secret, code: await googleCode(), password });

  const admin = await signedIn('admin', adminPassword);
  const platformRoles = await admin.ok<{ list: { id: number; perms: string[] }[] }>('GET', '/role/list', {
    pageSize: '100',
  });
  const financeRole = platformRoles.list.find(
    (r) => r.perms.includes('POST /merchantRechargeLog/confirm') && !r.perms.includes('*'),
  );
  if (!financeRole) throw new Error('no built-in platform role decides recharges');
  finance = { username: `e2e_finance_${stamp}`, password, secret: '' };
  await admin.ok('POST', '/admin/create', {
    username: finance.username,
    password,
    nickname: 'E2E Finance',
    roleIds: [financeRole.id],
  });
  const fin = await signedIn(finance.username, password);
  finance.secret = (await fin.ok<{ secret: string }>('GET', '/auth/google/bindInfo')).secret;
  await fin.ok('POST', '/v1/auth/google/bind', {
    secret: finance.secret,
    code: await nextCode(finance.secret),
    password,
  });

  merchantPage = await newPage(browser);
  await signIn(merchantPage, user.username, user.password, await googleCode());
  adminPage = await newPage(browser);
  await signIn(adminPage, finance.username, password, await nextCode(finance.secret));
});

test.afterEach(() => {
  expect([...consoleErrors.values()].flat(), 'console errors').toEqual([]);
});

test.afterAll(async () => {
  await merchantPage.context().close();
  await adminPage.context().close();
});

test('wallet: a merchant transfers collection to payout balance with a Google code, by keyboard', async () => {
  const page = merchantPage;
  const api = demo;
  const before = await balances(api);
  const amount = 12_345; // 123.45
  expect(before.collection, 'the demo merchant has collection balance to move').toBeGreaterThan(amount);

  await page.keyboard.press('g');
  await page.keyboard.press('w');
  await expect(page.getByRole('heading', { name: 'Wallet', level: 1 })).toBeVisible();
  const collection = page.locator('[data-account="collection_available"] .stat-value');
  const payout = page.locator('[data-account="payout_available"] .stat-value');
  await expect(collection).toHaveText(group(before.collection));
  await expect(payout).toHaveText(group(before.payout));

  await page.keyboard.press('t');
  const dialog = page.getByRole('dialog', { name: 'Transfer to payout balance' });
  await expect(dialog).toBeVisible();
  const amountField = dialog.getByLabel('Amount');
  await expect(amountField).toBeFocused();

  // The contract's schemas refuse a third decimal and a short code before anything is sent.
  await page.keyboard.type('1.234');
  await page.keyboard.press('Tab');
  await page.keyboard.type('12');
  await page.keyboard.press('Enter');
  await expect(dialog.getByText('Enter an amount with at most two decimals, not negative')).toBeVisible();
  await expect(dialog.getByText('The verification code is exactly 6 digits')).toBeVisible();

  await amountField.fill('');
  await amountField.focus();
  await page.keyboard.type(formatMinor(amount));
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+a');
  await page.keyboard.type(await googleCode());
  await page.keyboard.press('Enter');

  // transferVerify: the preview shows both balances after the move; nothing has moved yet.
  await expect(dialog.getByText('Collection available after')).toBeVisible();
  await expect(dialog.getByText(group(before.collection - amount), { exact: true })).toBeVisible();
  await expect(dialog.getByText(group(before.payout + amount), { exact: true })).toBeVisible();
  expect(await balances(api)).toEqual(before);
  await expect(dialog.getByRole('button', { name: 'Transfer', exact: true })).toBeFocused();
  await page.keyboard.press('Enter');

  await expect(dialog).toBeHidden();
  await expect(
    page.getByRole('status').filter({ hasText: '123.45 moved to the payout balance' }),
  ).toBeVisible();
  await expect(collection).toHaveText(group(before.collection - amount));
  await expect(payout).toHaveText(group(before.payout + amount));
  expect(await balances(api)).toEqual({
    collection: before.collection - amount,
    payout: before.payout + amount,
  });

  // The change log's newest lines are the transfer's two postings, with before / change / after.
  const log = page.getByRole('grid', { name: 'Balance change log' });
  const first = log.getByRole('row').nth(1);
  await expect(first).toContainText('Transfer to payout balance');
  await expect(
    log
      .getByRole('row')
      .filter({ hasText: `+${group(amount)}` })
      .first(),
  ).toContainText('Payout available');
  await expect(
    log
      .getByRole('row')
      .filter({ hasText: `-${group(amount)}` })
      .first(),
  ).toContainText('Collection available');
});

test('recharge: a merchant submits one by keyboard and a platform user confirms it by key, with a reason and a Google code', async () => {
  const page = merchantPage;
  // Typed in lower case: references are kept upper case, so one transfer cannot be reported twice.
  const typed = `e2e-ok-${stamp}`;
  const reference = typed.toUpperCase();
  const api = demo;
  const before = await balances(api);

  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette.getByRole('combobox')).toBeFocused();
  await page.keyboard.type('new recharge');
  await expect(palette.getByRole('option', { name: /New recharge/ })).toHaveAttribute(
    'aria-selected',
    'true',
  );
  await page.keyboard.press('Enter');
  const form = page.getByRole('dialog', { name: 'New recharge' });
  await expect(form.getByLabel('Amount')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(form.getByText('Some information is not filled in').first()).toBeVisible();
  await page.keyboard.type('25000.00');
  await page.keyboard.press('Tab');
  await page.keyboard.type(typed);
  await page.keyboard.press('Enter');
  await expect(form).toBeHidden();
  await expect(page).toHaveURL(/\/merchantrechargelog/);
  const mine = page
    .getByRole('grid', { name: 'Recharge records' })
    .getByRole('row')
    .filter({ hasText: reference });
  await expect(mine).toContainText('Pending');
  await expect(mine).toContainText('25,000.00');

  // The same transfer reported again, in any case, is refused next to its field.
  await page.getByRole('button', { name: 'New recharge' }).click();
  const again = page.getByRole('dialog', { name: 'New recharge' });
  await again.getByLabel('Amount').fill('25000.00');
  await again.getByLabel('Bank reference').fill(` ${reference.toLowerCase()} `);
  await again.getByRole('button', { name: 'Submit' }).click();
  await expect(again.getByText('This reference was already used for another recharge')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(again).toBeHidden();

  // The platform user: pending recharges, newest first; j focuses it, c opens the confirmation, which
  // takes a reason and the Google code.
  const admin = adminPage;
  await admin.goto('/merchantrechargelog?status=pending');
  const grid = admin.getByRole('grid', { name: 'Recharge records' });
  const row = grid.getByRole('row').filter({ hasText: reference });
  await expect(row).toContainText('M10001');
  await expect(grid.getByRole('row').nth(1)).toContainText(reference);
  await admin.locator('body').press('j');
  await expect(row).toHaveClass(/focused/);
  await admin.keyboard.press('c');
  const question = admin.getByRole('dialog', { name: 'Confirm recharge' });
  await expect(question).toContainText(reference);
  await expect(question).toContainText('credited to its payout balance');
  await expect(question.getByLabel('Reason')).toBeFocused();
  await admin.keyboard.press('Enter');
  await expect(question.getByText('Some information is not filled in').first()).toBeVisible();
  await admin.keyboard.type('NEFT line on the HDFC statement');
  await admin.keyboard.press('Tab');
  await admin.keyboard.type('000000');
  await admin.keyboard.press('Enter');
  await expect(question.getByText('The verification code is wrong')).toBeVisible();
  await question.getByLabel('Google code').fill(await nextCode(finance.secret));
  await admin.keyboard.press('Enter');
  await expect(question).toBeHidden();
  await expect(admin.getByRole('status').filter({ hasText: 'confirmed' })).toBeVisible();
  await expect(row).toBeHidden();

  await admin.goto('/merchantrechargelog?status=confirmed');
  await expect(
    admin.getByRole('grid', { name: 'Recharge records' }).getByRole('row').filter({ hasText: reference }),
  ).toContainText('Confirmed');
  expect((await balances(api)).payout).toBe(before.payout + 2_500_000);

  await page.reload();
  await expect(mine).toContainText('Confirmed');
});

test('recharge: the mouse path, submitted from the button and rejected from the row menu with a reason', async () => {
  const page = merchantPage;
  const reference = `E2E-NO-${stamp}`.toUpperCase();
  await page.getByRole('button', { name: 'New recharge' }).click();
  const form = page.getByRole('dialog', { name: 'New recharge' });
  await form.getByLabel('Amount').fill('-5');
  await form.getByRole('button', { name: 'Submit' }).click();
  await expect(form.getByText('Enter an amount with at most two decimals, not negative')).toBeVisible();
  await form.getByLabel('Amount').fill('777.70');
  await form.getByLabel('Bank reference').fill(reference);
  await form.getByLabel('Note').fill('sent from the e2e account');
  await form.getByRole('button', { name: 'Submit' }).click();
  await expect(form).toBeHidden();

  const admin = adminPage;
  await admin.goto('/merchantrechargelog');
  const row = admin
    .getByRole('grid', { name: 'Recharge records' })
    .getByRole('row')
    .filter({ hasText: reference });
  await row.getByRole('button', { name: 'Row actions' }).click();
  await admin.getByRole('menuitem', { name: 'Reject recharge' }).click();
  const reject = admin.getByRole('dialog', { name: 'Reject recharge' });
  await expect(reject).toContainText(reference);
  await reject.getByRole('button', { name: 'Reject recharge' }).click();
  await expect(reject.getByText('Some information is not filled in').first()).toBeVisible();
  await reject.getByLabel('Reason').fill('No such transfer on our statement');
  await reject.getByLabel('Google code').fill(await nextCode(finance.secret));
  await reject.getByRole('button', { name: 'Reject recharge' }).click();
  await expect(reject).toBeHidden();
  await expect(row).toContainText('Rejected');

  await page.reload();
  const mine = page
    .getByRole('grid', { name: 'Recharge records' })
    .getByRole('row')
    .filter({ hasText: reference });
  await expect(mine).toContainText('Rejected');
  await mine.dblclick();
  await expect(page.getByRole('dialog').getByText('No such transfer on our statement')).toBeVisible();
  await page.keyboard.press('Escape');
});

test('money session: one Google code (M), then two recharges decided by key with a reason and no code each', async () => {
  // The finance user's code of the test before spent this step: the next may be up to 30 s away.
  test.setTimeout(90_000);
  const references = [`E2E-MS1-${stamp}`, `E2E-MS2-${stamp}`].map((r) => r.toUpperCase());
  for (const reference of references)
    await demo.ok('POST', '/merchantRechargeLog/create', { amount: '10.00', reference });
  const admin = adminPage;
  await admin.goto('/merchantrechargelog?status=pending');
  const grid = admin.getByRole('grid', { name: 'Recharge records' });
  await expect(grid.getByRole('row').filter({ hasText: references[1]! })).toBeVisible();

  // M opens the money session: one code, and the top bar says until when.
  await admin.locator('body').press('M');
  const unlock = admin.getByRole('dialog', { name: 'Money session' });
  await expect(unlock.getByLabel('Google code')).toBeFocused();
  await admin.keyboard.type(await nextCode(finance.secret));
  await admin.keyboard.press('Enter');
  await expect(unlock).toBeHidden();
  const chip = admin.getByRole('button', { name: /Queue decisions take no Google code until/ });
  await expect(chip).toBeVisible();

  // Newest first: j focuses the first; each decision is c, a reason, Enter (the code field says it may
  // stay empty), and the row that takes the decided one's place has the focus for the next.
  await admin.locator('body').press('j');
  for (const reference of [...references].reverse()) {
    const row = grid.getByRole('row').filter({ hasText: reference });
    await expect(row).toBeFocused();
    await admin.keyboard.press('c');
    const question = admin.getByRole('dialog', { name: 'Confirm recharge' });
    await expect(question).toContainText(reference);
    await expect(question.getByText(/Money session open until .*: leave the code empty/)).toBeVisible();
    await admin.keyboard.type('On the HDFC statement');
    await admin.keyboard.press('Enter');
    await expect(question).toBeHidden();
    await expect(row).toBeHidden();
  }

  // Ended from its chip, the next decision asks for a code again.
  await chip.click();
  await admin.getByRole('dialog', { name: 'Money session' }).getByRole('button', { name: 'End now' }).click();
  await expect(chip).toBeHidden();
  const log = await demo.ok<{ list: { reference: string; status: string }[] }>(
    'GET',
    '/merchantRechargeLog/list',
    {
      pageSize: '50',
    },
  );
  for (const reference of references)
    expect(log.list.find((r) => r.reference === reference)?.status).toBe('confirmed');
});

test('development settings: reset the API secret, see it once, and sign a gateway call with it', async () => {
  const page = merchantPage;
  await page.keyboard.press('g');
  await page.keyboard.press('v');
  await expect(page.getByRole('heading', { name: 'Development settings', level: 1 })).toBeVisible();
  await expect(page.getByTestId('merchant-code')).toHaveText('M10001');
  const masked = page.getByTestId('api-secret-masked');
  const maskedBefore = await masked.textContent();

  await page.keyboard.press('Control+k');
  await expect(page.getByRole('dialog', { name: 'Command palette' }).getByRole('combobox')).toBeFocused();
  await page.keyboard.type('reset api secret');
  await expect(
    page.getByRole('dialog', { name: 'Command palette' }).getByRole('option', { name: /Reset API secret/ }),
  ).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  // The dialog names the merchant and takes the user's Google code (the API secret can pay out).
  const question = page.getByRole('dialog', { name: 'Reset API secret' });
  await expect(question).toContainText('M10001 Demo Merchant');
  await expect(question.getByLabel('Google code')).toBeFocused();
  await page.keyboard.type(await googleCode());
  await page.keyboard.press('Enter');

  const once = page.getByRole('dialog', { name: 'New API secret' });
  const shown = once.getByTestId('new-secret');
  await expect(shown).toHaveText(/^sk_[0-9a-f]{64}$/);
  const secret = (await shown.textContent()) ?? '';
  await expect(once.getByRole('button', { name: 'Copy API secret' })).toBeVisible();
  await once.getByRole('button', { name: 'I have stored it' }).click();
  await expect(once).toBeHidden();

  await expect(masked).not.toHaveText(maskedBefore ?? '');
  await expect(page.locator('body')).not.toContainText(secret);
  await page.reload();
  await expect(masked).toBeVisible();
  await expect(page.locator('body')).not.toContainText(secret);

  // The signature helper, with the new secret pasted: its headers are accepted by the gateway.
  await page.getByLabel('Sample request').selectOption({ label: 'Query the balance' });
  await page.getByRole('button', { name: 'Now' }).click();
  await page.getByLabel('API secret').fill(secret);
  const canonical = page.getByTestId('sign-canonical');
  await expect(canonical).toContainText('GET');
  await expect(canonical).toContainText('/gateway/v1/balance');
  const signature = (await page.getByTestId('sign-signature').textContent()) ?? '';
  expect(signature).toMatch(/^[0-9a-f]{64}$/);
  const headers = Object.fromEntries(
    ((await page.getByTestId('sign-headers').textContent()) ?? '')
      .split('\n')
      .map((line) => line.split(': ') as [string, string]),
  );
  const answer = await page.request.get(`${baseURL}/gateway/v1/balance`, { headers });
  expect(answer.status()).toBe(200);
  expect((await answer.json()).errno).toBe(0);
  // The helper never leaves the secret in the page once the field is cleared.
  await page.getByLabel('API secret').fill('');
  await expect(page.getByTestId('sign-signature')).toHaveCount(0);
});

test('development settings: the payout IP whitelist names each wrong entry and saves the good ones', async () => {
  // Its Google code may wait for the next 30-second step (the specs before spent the current ones).
  test.setTimeout(90_000);
  const page = merchantPage;
  await page.getByRole('button', { name: 'Edit payout IP whitelist' }).click();
  const form = page.getByRole('dialog', { name: 'Edit payout IP whitelist' });
  const field = form.getByLabel('Payout IP whitelist');
  const current = await field.inputValue();
  // Confirmed with the user's Google code; a refused list does not spend it.
  await form.getByLabel('Google code').fill(await googleCode());
  await field.fill(`${current}\n203.0.113.0/24\nnot-an-ip, 10.0.0.300`);
  await field.press('Control+Enter');
  // The contract's pattern catches the first on the spot; the server's real address check the second,
  // and its range rule the third (everyone, or more than a /16).
  await expect(form.getByRole('alert')).toHaveText(
    'not-an-ip: Enter an IPv4 or IPv6 address, optionally with /prefix',
  );
  await field.fill(`${current}\n203.0.113.0/24, 10.0.0.300, 0.0.0.0/0`);
  await form.getByRole('button', { name: 'Save' }).click();
  const errors = form.getByRole('alert');
  await expect(errors).toContainText('10.0.0.300: Enter an IPv4 or IPv6 address, optionally with /prefix');
  await expect(errors).toContainText('0.0.0.0/0: Too broad');
  await field.fill(`${current}\n203.0.113.0/24`);
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form).toBeHidden();
  await expect(page.getByTestId('ip-list')).toContainText('203.0.113.0/24');
});

test('fee settings: rates, a fee worked out as the server does, and the surcharge', async () => {
  const page = merchantPage;
  await page.keyboard.press('g');
  await page.keyboard.press('f');
  await expect(page.getByRole('heading', { name: 'Fee settings', level: 1 })).toBeVisible();
  const api = demo;
  const info = await api.ok<{ collectionRate: string; platformFee: string }>('GET', '/merchant/info');
  await expect(page.getByText(`${info.collectionRate} %`).first()).toBeVisible();
  await page.getByLabel('Order amount').fill('2000.00');
  const fee = feeOf(200_000, percentToPpm(info.collectionRate), toMinor(info.platformFee));
  await expect(page.getByTestId('fee-calculation')).toContainText(`${group(fee)} INR`);

  await page.getByRole('button', { name: 'Change surcharge' }).click();
  const form = page.getByRole('dialog', { name: 'Change surcharge' });
  await form.getByLabel('Surcharge (%)').fill('1.23456');
  await form.getByLabel('Surcharge (%)').press('Enter');
  await expect(form.getByRole('alert')).toHaveText(
    'Enter a percentage from 0 to 100 with at most four decimals',
  );
  await form.getByLabel('Surcharge (%)').fill('1.5');
  await form.getByLabel('Surcharge (%)').press('Enter');
  await expect(form).toBeHidden();
  await expect(page.getByText('1.5 %')).toBeVisible();
});

/** Screenshots of every money screen for a person to look at: FUNDS_SHOTS=/tmp/shots/funds. */
test('screenshots of the money screens in both languages, desktop and 800 px', async ({ browser }) => {
  const dir = process.env.FUNDS_SHOTS;
  test.skip(!dir, 'set FUNDS_SHOTS to a folder to take them');
  test.setTimeout(240_000);
  const merchantState = await merchantPage.context().storageState();
  const adminState = await adminPage.context().storageState();
  for (const language of ['en', 'zh_CN'] as const) {
    for (const width of [1280, 800]) {
      // The console scrolls inside its content pane: grow the window to show all of it.
      const shot = async (p: Page, name: string) => {
        const height = await p.evaluate(() => {
          const pane = document.querySelector('.content');
          return pane ? pane.scrollHeight + pane.getBoundingClientRect().top + 16 : 900;
        });
        await p.setViewportSize({ width, height: Math.max(900, Math.ceil(height)) });
        await p.screenshot({ path: `${dir}/${name}-${language}-${width}.png` });
        await p.setViewportSize({ width, height: 900 });
      };
      const open = async (state: typeof merchantState) => {
        const context = await browser.newContext({
          storageState: state,
          viewport: { width, height: 900 },
          locale: language === 'zh_CN' ? 'zh-CN' : 'en-US',
        });
        await context.addInitScript((lang) => {
          localStorage.setItem('console-settings', JSON.stringify({ language: lang, size: 'medium' }));
        }, language);
        const p = await context.newPage();
        consoleErrors.set(p, watchConsole(p));
        return p;
      };
      const m = await open(merchantState);
      await m.goto('/wallet');
      await expect(m.locator('.dt-row').nth(3)).toBeVisible();
      await shot(m, 'wallet');
      await m.keyboard.press('t');
      const transfer = m.getByRole('dialog');
      await transfer.getByRole('textbox').first().fill('100.00');
      await transfer
        .getByRole('textbox')
        .nth(1)
        .fill(await googleCode(false));
      await shot(m, 'wallet-transfer');
      await transfer.getByRole('textbox').nth(1).press('Enter');
      await expect(transfer.locator('.facts').nth(1)).toBeVisible();
      await shot(m, 'wallet-transfer-preview');
      await m.keyboard.press('Escape');

      await m.goto('/merchantrechargelog');
      await expect(m.locator('.dt-row').nth(2)).toBeVisible();
      await shot(m, 'recharge');
      await m.locator('.page-actions .button.primary').click();
      await m.getByRole('dialog').getByRole('button').last().click();
      await shot(m, 'recharge-form');
      await m.keyboard.press('Escape');

      await m.goto('/dev');
      await expect(m.getByTestId('merchant-code')).toBeVisible();
      await m
        .locator('input[type="password"]')
        .fill('sk_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef');
      await m.locator('.sign-grid select').first().selectOption('payoutCreate');
      await shot(m, 'dev');
      await m.locator('.card-actions .button').nth(3).click();
      await m.getByRole('dialog').locator('textarea').fill('203.0.113.0/24\nnot-an-ip');
      await m.getByRole('dialog').locator('.button.primary').click();
      await expect(m.getByRole('dialog').getByRole('alert').first()).toBeVisible();
      await shot(m, 'dev-ips-error');
      await m.keyboard.press('Escape');
      if ((language === 'en' && width === 1280) || (language === 'zh_CN' && width === 800)) {
        await m.locator('.card-actions .button').nth(1).click();
        await m
          .getByRole('dialog')
          .locator('input[autocomplete="one-time-code"]')
          .fill(await googleCode());
        await m.getByRole('dialog').locator('.button.danger').click();
        await expect(m.getByTestId('new-secret')).toBeVisible();
        await shot(m, 'dev-secret-once');
        await m.getByRole('dialog').locator('.button.primary').click();
      }

      await m.goto('/costManagement');
      await expect(m.getByTestId('fee-calculation')).toBeVisible();
      await shot(m, 'fees');
      await m.locator('.page-actions .button.primary').click();
      await shot(m, 'fees-surcharge');
      await m.keyboard.press('Escape');
      await m.context().close();

      const a = await open(adminState);
      await a.goto('/merchantrechargelog');
      await expect(a.locator('.dt-row').nth(2)).toBeVisible();
      await shot(a, 'recharge-platform');
      await a.goto('/wallet');
      await expect(a.locator('.merchant-bar select')).toBeVisible();
      await shot(a, 'wallet-platform-choose');
      await a.locator('.merchant-bar select').selectOption({ index: 1 });
      await expect(a.locator('.dt-row').nth(3)).toBeVisible();
      await shot(a, 'wallet-platform');
      await a.context().close();
    }
  }
});

test('bulk payouts: the file is checked row by row first; a refusal that comes without the rows says why', async () => {
  // The specs before spend the user's Google codes faster than one per 30-second step: its codes may wait.
  test.setTimeout(120_000);
  const page = merchantPage;
  await page.goto('/payout');
  await expect(page.getByRole('heading', { name: 'Payout orders', level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Bulk payouts from a file' }).click();
  const dialog = page.getByRole('dialog', { name: 'Bulk payouts from a file' });
  await expect(dialog).toBeVisible();

  // Row 3's IFSC is no IFSC: the check lists it, and nothing is created.
  const csv = [
    'account name,account number,IFSC,amount,merchant order no.',
    `Asha Rao,123456789012,HDFC0001234,150.00,e2e-bulk-${stamp}-1`,
    `Ravi Kumar,123456789013,not-an-ifsc,160.00,e2e-bulk-${stamp}-2`,
  ].join('\n');
  await dialog.getByLabel('CSV or XLSX file').setInputFiles({
    name: 'payouts.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(csv),
  });
  await dialog.getByLabel('Google code').fill(await googleCode(false));
  await dialog.getByRole('button', { name: 'Check the file' }).click();
  const preview = dialog.getByRole('region', { name: 'Check of the file' });
  await expect(preview.getByRole('row', { name: /^3 IFSC/ })).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Check the file' })).toBeVisible();

  // The same file without that row checks clean and offers the creation. A merchant order number taken
  // between the check and the creation (by another upload, say) is refused without a preview: the
  // dialog says why instead of leaving the person with a button that did nothing.
  await dialog.getByLabel('CSV or XLSX file').setInputFiles({
    name: 'payouts.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(csv.split('\n').slice(0, 2).join('\n')),
  });
  await dialog.getByRole('button', { name: 'Check the file' }).click();
  await expect(dialog.getByText('All 1 rows are valid')).toBeVisible();
  const taken = { errno: 409, errmsg: 'Conflict: merchant order number already used', data: null };
  await page.route('**/api/merchantPayout/bulkCreate', (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(taken) }),
  );
  try {
    await dialog.getByLabel('Google code').fill(await googleCode());
    await dialog.getByRole('button', { name: /^Create 1 payouts of / }).click();
    const said = page.getByRole('alertdialog', { name: 'Error' });
    await expect(said).toContainText('409: Conflict: merchant order number already used');
    await said.getByRole('button', { name: 'OK' }).click();
  } finally {
    await page.unroute('**/api/merchantPayout/bulkCreate');
  }
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
});
