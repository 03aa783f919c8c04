/**
 * An ended session, as the console meets it now that refusals carry their HTTP status (issue 29): the
 * server answers 401 with errno 501, and the console still says "Please log in again" in an alert, in
 * each language, then goes back to sign-in. The session is ended from outside (signed out by another
 * tab), and the next screen the user opens finds out.
 */
import { expect, test } from '@playwright/test';
import { adminPassword, baseURL, watchConsole } from './support.ts';

for (const [locale, title, message, ok] of [
  ['en-US', 'Signed out', 'Please log in again', 'OK'],
  ['zh-CN', '已退出登录', '请重新登录', '确定'],
] as const) {
  test(`an ended session: "${message}" in ${locale}, then the sign-in page`, async ({ browser }) => {
    const context = await browser.newContext({ locale, baseURL });
    const page = await context.newPage();
    const errors = watchConsole(page);
    const signedIn = await page.request.post('/api/v1/auth/login/password', {
      data: { username: 'admin', password: adminPassword },
    });
    const token = ((await signedIn.json()) as { data: { token: string } }).data.token;
    await context.addCookies([{ name: 'Admin-Token', value: token, url: baseURL }]);
    await page.goto('/dashboard');
    const menu = page.getByRole('navigation').first();
    await expect(menu.locator('a[href="/order"]')).toBeVisible();

    // Another tab signs out: this session is over on the server.
    const out = await page.request.post('/api/auth/logout', { data: {}, headers: { 'admin-token': token } });
    expect(out.status()).toBe(200);
    const ended = await page.request.get('/api/auth/info', { headers: { 'admin-token': token } });
    expect([ended.status(), ((await ended.json()) as { errno: number }).errno]).toEqual([401, 501]);

    // The next call the console makes finds out: the menu's next screen, or a screen's own refresh if it
    // comes first (then its alert already covers the menu, and the click has nothing to do).
    const alert = page.getByRole('alertdialog');
    try {
      await menu.locator('a[href="/order"]').click({ timeout: 5_000 });
    } catch {
      await expect(alert).toBeVisible();
    }
    await expect(alert).toBeVisible();
    await expect(alert).toContainText(title);
    await expect(alert).toContainText(message);
    await alert.getByRole('button', { name: ok }).click();
    await expect(page).toHaveURL(/\/login/);
    expect(errors).toEqual([]);
    await context.close();
  });
}
