import { useStore } from '@nanostores/react';
import { atom } from 'nanostores';
import type { ReactNode } from 'react';
import { navigate } from 'wouter/use-browser-location';
import { queryClient } from '../lib/query.ts';
import { $user } from '../lib/session.ts';
import { $settings } from '../lib/settings.ts';
import { $tabs, type Closed, type VisitedTab } from '../lib/tabs.ts';
import { useT } from '../lib/useT.ts';
import { Icon } from '../ui/Icon.tsx';
import { $viewKey } from './view.ts';

export type TopMenu = 'size' | 'language' | 'user';

/** A top-bar menu clicked before the menus chunk arrived: it opens once the chunk is there. */
export const $menuRequested = atom<TopMenu | null>(null);

/** Applies a tab strip change: the new tabs, and where to go when the current one closed. */
export function applyTabs(result: Closed): void {
  $tabs.set(result.tabs);
  if (result.goTo) navigate(result.goTo);
}

/** Refreshes a tab: the current view re-mounts and refetches; another tab is opened. */
export function refreshTab(tab: VisitedTab, active: boolean): void {
  void queryClient.invalidateQueries();
  if (active) $viewKey.set($viewKey.get() + 1);
  else navigate(tab.fullPath);
}

let menus: Promise<typeof import('./menus.tsx')> | undefined;
/** True once the menus chunk is here: until then the shell renders look-alike triggers. */
export const $menusReady = atom(false);
/** The shell's menus chunk, requested once (by the shell when idle, or by a click). */
export function loadMenus() {
  menus ??= import('./menus.tsx').then((m) => {
    $menusReady.set(true);
    return m;
  });
  return menus;
}

export function Avatar({ name, url }: { name: string; url: string }) {
  if (url) return <img className="avatar" src={url} alt="" width={26} height={26} />;
  return (
    <span className="avatar avatar-initial" aria-hidden="true">
      {name.slice(0, 1).toUpperCase()}
    </span>
  );
}

/** A tool of the top bar: an icon button named by its title, read out and shown on hover. */
export function ToolButton({
  title,
  className = 'icon-button',
  onClick,
  children,
}: {
  title: string;
  className?: string;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button type="button" className={className} aria-label={title} title={title} onClick={onClick}>
      {children}
    </button>
  );
}

/** The top bar's menu buttons as they look before their menus load; a click asks for its menu. */
export function MenuTriggers() {
  const t = useT();
  const user = useStore($user);
  const settings = useStore($settings);
  const name = user?.name || user?.username || '';
  const request = (menu: TopMenu) => {
    $menuRequested.set(menu);
    void loadMenus();
  };
  return (
    <>
      <ToolButton title={t('app.size')} onClick={() => request('size')}>
        <Icon name="size" size={18} />
      </ToolButton>
      <ToolButton
        className="icon-button lang-button"
        title={t('app.language')}
        onClick={() => request('language')}
      >
        <Icon name="globe" size={18} />
        <span className="lang-current">{t(`app.languages.${settings.language}`)}</span>
      </ToolButton>
      <button
        type="button"
        className="user-button"
        aria-label={t('app.userMenu')}
        onClick={() => request('user')}
      >
        <Avatar name={name} url={user?.avatar ?? ''} />
        <span className="user-name">{name}</span>
      </button>
    </>
  );
}
