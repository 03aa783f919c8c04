import { useStore } from '@nanostores/react';
import { ContextMenu, DropdownMenu } from 'radix-ui';
import { type ReactNode, useEffect, useState } from 'react';
import { navigate } from 'wouter/use-browser-location';
import { $user } from '../lib/session.ts';
import { $settings, languages, sizes } from '../lib/settings.ts';
import { $tabs, close, closeAll, closeOthers, type VisitedTab } from '../lib/tabs.ts';
import { useT } from '../lib/useT.ts';
import { Icon } from '../ui/Icon.tsx';
import { ChoiceItems, MenuPopup } from '../ui/menuItems.tsx';
import { $menuRequested, Avatar, applyTabs, refreshTab, type TopMenu } from './menuTriggers.tsx';
import { runContext } from './runtime.ts';

/**
 * The shell's pop-up menus (size, language, user; a tab's right-click menu), loaded after the first
 * screen is painted: they are the only users of the menu code on most screens' first load.
 */
export function TopMenus() {
  const t = useT();
  const user = useStore($user);
  const settings = useStore($settings);
  // A trigger clicked before this chunk arrived opens its menu now. The request is read while rendering
  // but cleared only once this render is committed: React may throw away a render (an update arriving
  // while the lazy menus mount) and run the initialiser again, which must still see the request. A click
  // on the look-alike trigger between this render and its commit is read again when committed (it was
  // lost: the menu stayed shut, seen once in the e2e suite under load).
  const [open, setOpen] = useState<TopMenu | null>(() => $menuRequested.get());
  useEffect(() => {
    const late = $menuRequested.get();
    if (late) setOpen(late);
    $menuRequested.set(null);
  }, []);
  const menu = (which: TopMenu) => ({
    open: open === which,
    onOpenChange: (opened: boolean) => setOpen(opened ? which : null),
  });
  const ctx = () => runContext();
  const name = user?.name || user?.username || '';
  return (
    <>
      <DropdownMenu.Root {...menu('size')}>
        <DropdownMenu.Trigger className="icon-button" aria-label={t('app.size')} title={t('app.size')}>
          <Icon name="size" size={18} />
        </DropdownMenu.Trigger>
        <MenuPopup align="end" sideOffset={6}>
          <DropdownMenu.Label className="menu-popup-label">{t('app.size')}</DropdownMenu.Label>
          <ChoiceItems
            value={settings.size}
            values={sizes}
            label={(s) => t(`app.sizes.${s}`)}
            onValue={(s) => ctx().shell.setSize(s)}
          />
        </MenuPopup>
      </DropdownMenu.Root>
      <DropdownMenu.Root {...menu('language')}>
        <DropdownMenu.Trigger
          className="icon-button lang-button"
          aria-label={t('app.language')}
          title={t('app.language')}
        >
          <Icon name="globe" size={18} />
          <span className="lang-current">{t(`app.languages.${settings.language}`)}</span>
        </DropdownMenu.Trigger>
        <MenuPopup align="end" sideOffset={6}>
          <ChoiceItems
            value={settings.language}
            values={languages}
            label={(l) => t(`app.languages.${l}`)}
            onValue={(l) => ctx().shell.setLanguage(l)}
          />
        </MenuPopup>
      </DropdownMenu.Root>
      <DropdownMenu.Root {...menu('user')}>
        <DropdownMenu.Trigger className="user-button" aria-label={t('app.userMenu')}>
          <Avatar name={name} url={user?.avatar ?? ''} />
          <span className="user-name">{name}</span>
        </DropdownMenu.Trigger>
        <MenuPopup align="end" sideOffset={6}>
          <DropdownMenu.Label className="menu-popup-label">{user?.username}</DropdownMenu.Label>
          <DropdownMenu.Item className="menu-popup-item" onSelect={() => ctx().navigate('/dashboard')}>
            <Icon name="home" size={14} />
            {t('app.home')}
          </DropdownMenu.Item>
          <DropdownMenu.Item className="menu-popup-item" onSelect={() => ctx().navigate('/profile/password')}>
            <Icon name="lock" size={14} />
            {t('commands.auth.password.title')}
          </DropdownMenu.Item>
          <DropdownMenu.Separator className="menu-popup-separator" />
          <DropdownMenu.Item className="menu-popup-item" onSelect={() => ctx().shell.logout()}>
            <Icon name="logout" size={14} />
            {t('commands.app.logout.title')}
          </DropdownMenu.Item>
        </MenuPopup>
      </DropdownMenu.Root>
    </>
  );
}

/** A tab's right-click menu: refresh, close, close others, close all. */
export function TabMenu({
  tab,
  active,
  location,
  children,
}: {
  tab: VisitedTab;
  active: boolean;
  location: string;
  children: ReactNode;
}) {
  const t = useT();
  const tabs = useStore($tabs);
  return (
    <ContextMenu.Root>
      <ContextMenu.Trigger asChild>{children}</ContextMenu.Trigger>
      <ContextMenu.Portal>
        <ContextMenu.Content className="menu-popup">
          <ContextMenu.Item className="menu-popup-item" onSelect={() => refreshTab(tab, active)}>
            <Icon name="refresh" size={14} />
            {t('app.tabs.refresh')}
          </ContextMenu.Item>
          <ContextMenu.Item
            className="menu-popup-item"
            onSelect={() => applyTabs(close(tabs, tab.path, location))}
          >
            <Icon name="close" size={14} />
            {t('app.tabs.close')}
          </ContextMenu.Item>
          <ContextMenu.Item
            className="menu-popup-item"
            onSelect={() => applyTabs(closeOthers(tabs, tab.path, location))}
          >
            {t('app.tabs.closeOthers')}
          </ContextMenu.Item>
          <ContextMenu.Item className="menu-popup-item" onSelect={() => applyTabs(closeAll(tabs))}>
            {t('app.tabs.closeAll')}
          </ContextMenu.Item>
        </ContextMenu.Content>
      </ContextMenu.Portal>
    </ContextMenu.Root>
  );
}

/** Every open view, for when the strip cannot show them all: choose one to go to it. */
export function TabsOverflowMenu({ location }: { location: string }) {
  const t = useT();
  const tabs = useStore($tabs);
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger className="tab-overflow" aria-label={t('app.tabs.all', { n: tabs.length })}>
        <Icon name="chevronDown" size={14} />
        <span>{tabs.length}</span>
      </DropdownMenu.Trigger>
      <MenuPopup align="end" sideOffset={4}>
        {tabs.map((tab) => (
          <DropdownMenu.Item
            key={tab.path}
            className="menu-popup-item"
            aria-current={tab.path === location ? 'page' : undefined}
            onSelect={() => navigate(tab.fullPath)}
          >
            {t(tab.titleKey)}
          </DropdownMenu.Item>
        ))}
      </MenuPopup>
    </DropdownMenu.Root>
  );
}
