import { join } from 'node:path';
import { expect, type Page } from '@playwright/test';

// What the *-shots specs share: the two widths they shoot at, switching the console's language through its
// menu, and saving a view as `<name>-<language>-<width>.png` in the spec's folder.

export const widths = [1280, 800];

/** Switches the console to `language` through the language menu (nothing when it is already shown). */
export async function setLanguage(page: Page, language: 'en' | 'zh_CN') {
  const current = await page.evaluate(() => document.documentElement.lang);
  if ((current === 'zh-CN') === (language === 'zh_CN')) return;
  await page.getByRole('button', { name: language === 'zh_CN' ? 'Language' : '语言' }).click();
  await page.getByRole('menuitemradio', { name: language === 'zh_CN' ? '中文' : 'English' }).click();
  await expect(page.locator('html')).toHaveAttribute('lang', language === 'zh_CN' ? 'zh-CN' : 'en');
}

/** A `shoot(page, name, language, width)` saving into `dir`, after the view has settled. */
export const shooter = (dir: string) => async (page: Page, name: string, language: string, width: number) => {
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(dir, `${name}-${language}-${width}.png`) });
};
