import { useStore } from '@nanostores/react';
import { DropdownMenu } from 'radix-ui';
import { Link, useLocation } from 'wouter';
import { breadcrumbFor } from '../../commands/index.ts';
import { $user } from '../lib/session.ts';
import { $mobile, $settings, $sidebarOpened, languages, sizes } from '../lib/settings.ts';
import { useT } from '../lib/useT.ts';
import { Icon } from '../ui/Icon.tsx';
import { keyCaps } from './keys.ts';
import { runContext } from './runtime.ts';

function Breadcrumb() {
  const t = useT();
  const [location] = useLocation();
  const crumbs = breadcrumbFor(location);
  return (
    <nav className="breadcrumb" aria-label={t('app.breadcrumb')}>
      <ol>
        {crumbs.map((c, i) => {
          const last = i === crumbs.length - 1;
          return (
            <li key={c.titleKey}>
              {c.path && !last ? (
                <Link href={c.path}>{t(c.titleKey)}</Link>
              ) : (
                <span aria-current={last ? 'page' : undefined}>{t(c.titleKey)}</span>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

function Avatar({ name, url }: { name: string; url: string }) {
  if (url) return <img className="avatar" src={url} alt="" width={26} height={26} />;
  return (
    <span className="avatar avatar-initial" aria-hidden="true">
      {name.slice(0, 1).toUpperCase()}
    </span>
  );
}

/** Breadcrumb, palette, full screen, size, language and the user menu. */
export function TopBar() {
  const t = useT();
  const user = useStore($user);
  const settings = useStore($settings);
  const opened = useStore($sidebarOpened);
  const mobile = useStore($mobile);
  const ctx = () => runContext();
  const name = user?.name || user?.username || '';
  return (
    <header className="topbar no-print">
      <button
        type="button"
        className="icon-button"
        aria-label={t(mobile ? 'app.openMenu' : opened ? 'app.collapseMenu' : 'app.expandMenu')}
        aria-expanded={mobile ? undefined : opened}
        onClick={() => ctx().shell.toggleSidebar()}
      >
        <Icon name="menu" size={18} />
      </button>
      <Breadcrumb />
      <div className="topbar-tools">
        <button type="button" className="search-button" onClick={() => ctx().shell.openPalette()}>
          <Icon name="search" />
          <span className="search-label">{t('app.searchPlaceholder')}</span>
          <kbd>{keyCaps('mod+k').join(' ')}</kbd>
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={t('commands.app.fullscreen.title')}
          title={t('commands.app.fullscreen.title')}
          onClick={() => ctx().shell.toggleFullscreen()}
        >
          <Icon name="maximize" size={18} />
        </button>
        <DropdownMenu.Root>
          <DropdownMenu.Trigger className="icon-button" aria-label={t('app.size')} title={t('app.size')}>
            <Icon name="size" size={18} />
          </DropdownMenu.Trigger>
          <DropdownMenu.Portal>
            <DropdownMenu.Content className="menu-popup" align="end" sideOffset={6}>
              <DropdownMenu.Label className="menu-popup-label">{t('app.size')}</DropdownMenu.Label>
              <DropdownMenu.RadioGroup
                value={settings.size}
                onValueChange={(v) => ctx().shell.setSize(v as typeof settings.size)}
              >
                {sizes.map((s) => (
                  <DropdownMenu.RadioItem key={s} value={s} className="menu-popup-item">
                    <DropdownMenu.ItemIndicator className="menu-check">
                      <Icon name="check" size={14} />
                    </DropdownMenu.ItemIndicator>
                    {t(`app.sizes.${s}`)}
                  </DropdownMenu.RadioItem>
                ))}
              </DropdownMenu.RadioGroup>
            </DropdownMenu.Content>
          </DropdownMenu.Portal>
        </DropdownMenu.Root>
        <DropdownMenu.Root>
          <DropdownMenu.Trigger
            className="icon-button lang-button"
            aria-label={t('app.language')}
            title={t('app.language')}
          >
            <Icon name="globe" size={18} />
            <span className="lang-current">{t(`app.languages.${settings.language}`)}</span>
          </DropdownMenu.Trigger>
          <DropdownMenu.Portal>
            <DropdownMenu.Content className="menu-popup" align="end" sideOffset={6}>
              <DropdownMenu.RadioGroup
                value={settings.language}
                onValueChange={(v) => ctx().shell.setLanguage(v as typeof settings.language)}
              >
                {languages.map((l) => (
                  <DropdownMenu.RadioItem key={l} value={l} className="menu-popup-item">
                    <DropdownMenu.ItemIndicator className="menu-check">
                      <Icon name="check" size={14} />
                    </DropdownMenu.ItemIndicator>
                    {t(`app.languages.${l}`)}
                  </DropdownMenu.RadioItem>
                ))}
              </DropdownMenu.RadioGroup>
            </DropdownMenu.Content>
          </DropdownMenu.Portal>
        </DropdownMenu.Root>
        <DropdownMenu.Root>
          <DropdownMenu.Trigger className="user-button" aria-label={t('app.userMenu')}>
            <Avatar name={name} url={user?.avatar ?? ''} />
            <span className="user-name">{name}</span>
          </DropdownMenu.Trigger>
          <DropdownMenu.Portal>
            <DropdownMenu.Content className="menu-popup" align="end" sideOffset={6}>
              <DropdownMenu.Label className="menu-popup-label">{user?.username}</DropdownMenu.Label>
              <DropdownMenu.Item className="menu-popup-item" onSelect={() => ctx().navigate('/dashboard')}>
                <Icon name="home" size={14} />
                {t('app.home')}
              </DropdownMenu.Item>
              <DropdownMenu.Item
                className="menu-popup-item"
                onSelect={() => ctx().navigate('/profile/password')}
              >
                <Icon name="lock" size={14} />
                {t('commands.auth.password.title')}
              </DropdownMenu.Item>
              <DropdownMenu.Separator className="menu-popup-separator" />
              <DropdownMenu.Item className="menu-popup-item" onSelect={() => ctx().shell.logout()}>
                <Icon name="logout" size={14} />
                {t('commands.app.logout.title')}
              </DropdownMenu.Item>
            </DropdownMenu.Content>
          </DropdownMenu.Portal>
        </DropdownMenu.Root>
      </div>
    </header>
  );
}
