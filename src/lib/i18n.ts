import { atom, computed } from 'nanostores';
import rosetta from 'rosetta';
import { $settings, type Language } from './settings.ts';

type Table = Record<string, unknown>;

const i18n = rosetta<Table>();
const loaders: Record<Language, () => Promise<{ default: Table }>> = {
  en: () => import('../../locales/en.json'),
  zh_CN: () => import('../../locales/zh_CN.json'),
};

/** Bumps when a language table has loaded, so subscribers re-render with the new text. */
const $loaded = atom<Language | null>(null);

export async function loadLanguage(lang: Language): Promise<void> {
  if (!i18n.table(lang)) i18n.set(lang, (await loaders[lang]()).default);
  i18n.locale(lang);
  document.documentElement.lang = lang === 'zh_CN' ? 'zh-CN' : 'en';
  $loaded.set(lang);
}

/** Translates a message key; a missing key shows itself, so gaps are visible rather than blank. */
export function t(key: string, params?: Record<string, unknown>): string {
  const text = i18n.t(key, params ?? {});
  return typeof text === 'string' && text !== '' ? text : key;
}

/** The English text of a key, used as a search alias when the console speaks Chinese. */
export function tEnglish(key: string): string | undefined {
  if (!i18n.table('en')) return undefined;
  const text = i18n.t(key, {}, 'en');
  return typeof text === 'string' && text !== '' ? text : undefined;
}

export function hasKey(key: string): boolean {
  const text = i18n.t(key, {});
  return typeof text === 'string' && text !== '';
}

/** Re-renders a component when the language changes. */
export const $language = computed([$loaded, $settings], (loaded, settings) => loaded ?? settings.language);

/** Loads English too when another language is chosen, for the palette's aliases. */
export function loadEnglishAliases(): Promise<void> {
  if (i18n.table('en')) return Promise.resolve();
  return loaders.en().then((m) => i18n.set('en', m.default));
}
