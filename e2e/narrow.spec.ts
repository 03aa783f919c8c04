import { expect, type Page, test } from '@playwright/test';
import { screens } from '../commands/index.ts';
import { allows } from '../contract/permissions.ts';
import type { UserKind } from '../contract/schemas.ts';
import { adminPassword } from './support.ts';

// Every screen at a phone's width (390 px): nothing may reach past the screen's edge, so nothing needs
// a sideways scroll of the page. A list's own grid may scroll inside its box; the page may not. Walked
// as the platform's administrator and as a merchant's owner, each the screens its kind may open.

const phone = { width: 390, height: 844 };
const who: Record<UserKind, { username: string; password: string }> = {
  platform: { username: 'admin', password: adminPassword },
  merchant: { username: 'demo', password: 'Demo12345' },
};

/** The routes a user of that kind may open: every screen its super role allows, with no parameter in it. */
function routesOf(kind: UserKind): string[] {
  const grants = { kind, perms: ['*'] };
  return screens
    .filter((s) => s.access !== 'public' && !s.route.includes(':') && !s.route.includes('*'))
    .filter((s) => allows(grants, s.needs))
    .map((s) => s.route);
}

/** What reaches past the right edge: the page's own overflow, and the widest elements that cause it. */
async function overflow(page: Page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const over = document.documentElement.scrollWidth - width;
    if (over <= 0) return null;
    const culprits: string[] = [];
    // The outermost elements that stick out: their parent still fits.
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      const r = el.getBoundingClientRect();
      const parent = el.parentElement?.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 1 || (parent && parent.right > width + 1)) continue;
      culprits.push(`${el.tagName.toLowerCase()}.${el.className} (${Math.round(r.right)} px)`);
      if (culprits.length >= 3) break;
    }
    return { over, culprits };
  });
}

for (const kind of ['platform', 'merchant'] as const) {
  test(`at 390 px no ${kind} screen scrolls sideways`, async ({ browser }) => {
    test.setTimeout(240_000);
    const context = await browser.newContext({ locale: 'en-US', viewport: phone });
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByLabel('Username').fill(who[kind].username);
    await page.getByLabel('Password').fill(who[kind].password);
    await page.getByLabel('Password').press('Enter');
    await expect(page).toHaveURL(/\/dashboard$/);
    const found: string[] = [];
    for (const route of routesOf(kind)) {
      await page.goto(route);
      await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
      // Lists and charts arrive after the heading: give them their moment.
      await page.waitForLoadState('networkidle');
      const wide = await overflow(page);
      if (wide) found.push(`${route}: ${wide.over} px too wide, by ${wide.culprits.join(', ')}`);
    }
    expect(found).toEqual([]);
    await context.close();
  });
}
