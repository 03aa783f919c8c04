import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, expect, type Page, test } from '@playwright/test';
import { adminApi, e2eStateFile, lostCallback, newPayin } from './orders-support.ts';
import { tr } from './shots.ts';
import { watchConsole } from './support.ts';

// The README's first hour, followed as written: what it says the first start prints is what this
// server printed, every user it names signs in with its password in a fresh browser, and its recipes'
// keys do what it says. A README that drifts from the product fails here.

const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
/** The same reading of a printed line as scripts/e2e-server.mjs makes of the server's own output. */
const userLine = /^ {2}(?:First start|Demo \w+).*?"(\w+)", password "([^"]+)"/;
const readmeUsers = readme
  .split('\n')
  .map((line) => line.match(userLine))
  .filter((m) => m !== null)
  .map((m) => ({ username: m[1]!, password: m[2]! }));
// The administrator's password is generated at a first start (the e2e server sets its own).
const demoUsers = readmeUsers.filter((u) => u.username !== 'admin');

function printed(): { users: { username: string; password: string }[] } {
  const file = e2eStateFile();
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { users: [] };
}

/** A browser with nothing remembered: no session, no trusted device. */
async function freshPage(browser: Browser, locale = 'en-US') {
  const context = await browser.newContext({ locale, viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  return { page, errors: watchConsole(page) };
}

/** The sign-in form as the README has a newcomer use it: the user's name, its password, Enter. */
async function signIn(page: Page, user: { username: string; password: string }) {
  if (!page.url().includes('/login')) await page.goto('/login');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByLabel('Password').press('Enter');
  await expect(page).toHaveURL(/\/dashboard$/);
}

test('README: the users it says the first start prints are the ones this server printed', () => {
  expect(demoUsers.map((u) => u.username)).toEqual(['demo', 'bharat', 'masala', 'priya', 'arjun']);
  expect(printed().users.filter((u) => u.username !== 'admin')).toEqual(demoUsers);
});

for (const user of demoUsers) {
  test(`README: "${user.username}" signs in with the password alone in a fresh browser`, async ({
    browser,
  }) => {
    const { page, errors } = await freshPage(browser);
    await page.goto('/');
    await expect(page).toHaveURL(/\/login/);
    await signIn(page, user);
    expect(errors).toEqual([]);
    await page.context().close();
  });
}

test('README: a lost callback, as written: Ctrl-K, its order number, Enter, u, its UTR, Enter, Enter, Enter', async ({
  browser,
}) => {
  test.setTimeout(60_000);
  // The recipe as README.md words it; the steps below are these, key for key.
  expect(readme.replace(/\s+/g, ' ')).toContain(
    'Ctrl-K, paste its order number, Enter, `u`, paste its UTR, Enter, Enter (*Supplement with this UTR*), Enter',
  );
  const api = await adminApi();
  const lost = await lostCallback(api, new Set());
  await api.dispose();
  const demo = demoUsers.find((u) => u.username === 'demo')!;
  const { page, errors } = await freshPage(browser);
  await signIn(page, demo);

  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette.getByRole('combobox')).toBeFocused();
  await page.keyboard.insertText(lost.orderNo);
  await expect(palette.getByRole('option', { name: new RegExp(lost.orderNo) })).toHaveAttribute(
    'aria-selected',
    'true',
  );
  await page.keyboard.press('Enter');
  const drawer = page.getByRole('dialog', { name: lost.orderNo });
  // The order's actions show with their keys once it is read.
  await expect(drawer.getByRole('button', { name: /UTR check/ })).toBeVisible();

  await page.keyboard.press('u');
  const check = page.getByRole('dialog', { name: `UTR check · ${lost.orderNo}` });
  await expect(check.getByLabel('UTR')).toBeFocused();
  await page.keyboard.insertText(lost.utr);
  await page.keyboard.press('Enter');
  await expect(check.getByRole('button', { name: 'Supplement with this UTR' })).toBeFocused();
  await page.keyboard.press('Enter');
  const supplement = page.getByRole('dialog', { name: `Supplement · ${lost.orderNo}` });
  await expect(supplement.getByLabel('UTR')).toHaveValue(lost.utr);
  await page.keyboard.press('Enter');
  await expect(page.getByText(`Order ${lost.orderNo} is paid`)).toBeVisible();
  expect(errors).toEqual([]);
  await page.context().close();
});

for (const lang of ['en', 'zh_CN'] as const) {
  test(`README: a waiting order's payment link is the simulator's checkout, where its payer pays it (${lang})`, async ({
    browser,
  }) => {
    const api = await adminApi();
    const order = await newPayin('1499.00');
    const { payUrl } = await api.ok<{ payUrl: string }>('GET', '/merchantOrder/info', {
      orderNo: order.orderNo,
    });
    // The payer has no session: a fresh browser in the payer's language, no sign-in.
    const { page, errors } = await freshPage(browser, lang === 'en' ? 'en-US' : 'zh-CN');
    await page.goto(payUrl);
    await expect(page.getByRole('heading', { name: tr(lang, 'pay.simulator.title') })).toBeVisible();
    await expect(page.getByText(order.orderNo)).toBeVisible();
    await expect(page.getByText(tr(lang, 'pay.simulator.note'))).toBeVisible();
    const pay = page.getByRole('button', { name: tr(lang, 'pay.simulator.pay'), exact: true });
    await expect(pay).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('status')).toContainText(tr(lang, 'pay.paidTitle'));
    expect(
      (await api.ok<{ status: string }>('GET', '/merchantOrder/info', { orderNo: order.orderNo })).status,
    ).toBe('paid');
    expect(errors).toEqual([]);
    await page.context().close();
    await api.dispose();
  });
}

test('README: a money dialog tells a user with no Google key where to bind one before asking for a code', async ({
  browser,
}) => {
  const demo = demoUsers.find((u) => u.username === 'demo')!;
  const { page, errors } = await freshPage(browser);
  await signIn(page, demo);
  await expect(page.getByRole('heading', { name: 'Dashboard', level: 1 })).toBeVisible();
  // + s: apply to take money out of the collection wallet, a door that takes the Google code.
  await page.keyboard.press('+');
  await page.keyboard.press('s');
  const apply = page.getByRole('dialog', { name: 'Apply for collection settlement' });
  await expect(apply.getByRole('alert')).toContainText('Google Authenticator is not bound to this account');
  await apply.getByRole('link', { name: 'Bind Google Authenticator' }).click();
  await expect(page).toHaveURL(/\/code$/);
  await expect(apply).toBeHidden();
  expect(errors).toEqual([]);
  await page.context().close();
});
