import { persistentAtom } from '@nanostores/persistent';
import { atom } from 'nanostores';

export type Language = 'en' | 'zh_CN';
export type Size = 'medium' | 'small' | 'mini';

export const languages: readonly Language[] = ['en', 'zh_CN'];
export const sizes: readonly Size[] = ['medium', 'small', 'mini'];

/** The language a first visit starts in: the browser's, Chinese when it prefers Chinese. */
export function browserLanguage(
  list: readonly string[] = navigator.languages ?? [navigator.language],
): Language {
  const first = (list[0] ?? '').toLowerCase();
  return first.startsWith('zh') ? 'zh_CN' : 'en';
}

interface Settings {
  language: Language;
  size: Size;
}

function initialSettings(): Settings {
  return { language: typeof navigator === 'undefined' ? 'en' : browserLanguage(), size: 'medium' };
}

function parseSettings(raw: string): Settings {
  const fallback = initialSettings();
  try {
    const value = JSON.parse(raw) as Partial<Settings>;
    return {
      language: languages.includes(value.language as Language)
        ? (value.language as Language)
        : fallback.language,
      size: sizes.includes(value.size as Size) ? (value.size as Size) : fallback.size,
    };
  } catch {
    return fallback;
  }
}

/** Language and layout size, kept in localStorage. */
export const $settings = persistentAtom<Settings>('console-settings', initialSettings(), {
  decode: parseSettings,
  encode: JSON.stringify,
});

export function setLanguageSetting(language: Language): void {
  $settings.set({ ...$settings.get(), language });
}

export function setSizeSetting(size: Size): void {
  $settings.set({ ...$settings.get(), size });
}

/** Sidebar opened state; kept as '1' / '0' as the spec says. */
export const $sidebarOpened = atom<boolean>(true);
const sidebarKey = 'sidebarStatus';

export function loadSidebar(): void {
  $sidebarOpened.set(localStorage.getItem(sidebarKey) !== '0');
}

export function setSidebarOpened(opened: boolean): void {
  localStorage.setItem(sidebarKey, opened ? '1' : '0');
  $sidebarOpened.set(opened);
}

/** Mobile when the window is narrower than 1024 px minus 3. */
export const mobileBreakpoint = 1024 - 3;
export const $mobile = atom<boolean>(typeof window !== 'undefined' && window.innerWidth < mobileBreakpoint);
/** On mobile the sidebar is a drawer, closed unless asked for. */
export const $drawerOpen = atom(false);
