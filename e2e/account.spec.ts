/**
 * The account's own security screens: the forgotten-password page's answer that tells nobody who exists,
 * binding a Google key with the current password, and signing out everywhere.
 */
import { type Browser, expect, type Page, test } from '@playwright/test';
import { Api, createFixture, type Fixture, totp, watchConsole } from './support.ts';

let fixture: Fixture;
let page: Page;
let errors: string[];

async function newPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
  const p = await context.newPage();
  return { page: p, errors: watchConsole(p) };
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ browser }) => {
  fixture = await createFixture();
  ({ page, errors } = await newPage(browser));
});

test.afterEach(() => {
  expect(errors, 'console errors').toEqual([]);
});

test.afterAll(async () => {
  await page.context().close();
});

test('reset: a code request answers alike for any name, without telling the address', async () => {
  await page.goto('/reset');
  await page.getByLabel('Username').fill(`nobody_${Date.now().toString(36)}`);
  await page.getByRole('button', { name: 'Send code' }).click();
  await expect(page.getByText('If the account has an e-mail address, a code was sent to it.')).toBeVisible();
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Resend in/ })).toBeDisabled();
});

test('account: binds a key with the current password, then signs out everywhere', async () => {
  const { reader } = fixture;
  // A second session of the same user, elsewhere: signing out everywhere ends it too.
  const elsewhere = await Api.create();
  await elsewhere.signIn(reader.username, reader.password);

  await page.goto('/login');
  await page.getByLabel('Username').fill(reader.username);
  await page.getByLabel('Password').fill(reader.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);

  await page.goto('/code');
  const secret = (await page.getByTestId('google-secret').textContent())?.trim() ?? '';
  expect(secret).toMatch(/^[A-Z2-7]{16,64}$/);
  await page.getByLabel('Google code').fill(totp(secret));
  await page.getByLabel('Current password').fill(reader.password);
  await page.getByRole('button', { name: 'Bind', exact: true }).click();
  await expect(page.getByText('Google Authenticator bound')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Unbind' })).toBeVisible();

  await page.goto('/profile/password');
  await page.getByRole('button', { name: 'Sign out everywhere' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Sign out everywhere' });
  await expect(confirm).toContainText('forget every remembered device');
  await confirm.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(page).toHaveURL(/\/login/);
  expect((await elsewhere.call('GET', '/auth/info')).errno).toBe(501);
  await elsewhere.dispose();
});
