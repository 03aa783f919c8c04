import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import en from '../locales/en.json' with { type: 'json' };
import zh from '../locales/zh_CN.json' with { type: 'json' };

// What the specs in both languages share: the two widths they shoot at, switching the console's language
// through its menu, a locale string as the console writes it, and saving a view as
// `<name>-<language>-<width>.png` in the spec's folder.

export type Lang = 'en' | 'zh_CN';

/** A locale string as the console writes it (`{{name}}` filled in). */
export function tr(lang: Lang, key: string, params: Record<string, string | number> = {}): string {
  let node: unknown = lang === 'en' ? en : zh;
  for (const part of key.split('.')) node = (node as Record<string, unknown>)[part];
  if (typeof node !== 'string') throw new Error(`no string ${key}`);
  return node.replace(/\{\{(\w+)\}\}/g, (_, k: string) => String(params[k] ?? ''));
}

export const widths = [1280, 800];

/** Switches the console to `language` through the language menu (nothing when it is already shown). */
export async function setLanguage(page: Page, language: Lang) {
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

/**
 * `shootWidths(dir)(page, name, lang)`: the view at both widths (back at 1280 after), as
 * `<name>-<lang>-<width>.png` in `dir` when set, else in the running test's output folder.
 */
export const shootWidths = (dir: string | undefined) => async (page: Page, name: string, lang: Lang) => {
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(300);
    const file = `${name}-${lang}-${width}.png`;
    await page.screenshot({ path: dir ? join(dir, file) : test.info().outputPath(file) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
};
