import rosetta from 'rosetta';
import en from '../../locales/en.json' with { type: 'json' };
import zh from '../../locales/zh_CN.json' with { type: 'json' };

export type Lang = 'en' | 'zh_CN';

const i18n = rosetta({ en, zh_CN: zh });

/** Picks the answer language from Accept-Language: Chinese when it comes first, else English. */
export function langFrom(header: string | undefined): Lang {
  if (!header) return 'en';
  const first = header.split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('zh') ? 'zh_CN' : 'en';
}

export function t(lang: Lang, key: string, params?: Record<string, unknown>): string {
  const text = i18n.t(key, params ?? {}, lang);
  return typeof text === 'string' && text !== '' ? text : key;
}

export function hasKey(lang: Lang, key: string): boolean {
  const text = i18n.t(key, {}, lang);
  return typeof text === 'string' && text !== '';
}
