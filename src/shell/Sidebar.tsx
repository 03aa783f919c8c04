import { useStore } from '@nanostores/react';
import { Link, useLocation } from 'wouter';
import { menuFor, type ScreenCommand, titleKey } from '../../commands/index.ts';
import { $grants } from '../lib/session.ts';
import { useT } from '../lib/useT.ts';
import { Icon } from '../ui/Icon.tsx';

function Item({ screen, collapsed }: { screen: ScreenCommand; collapsed: boolean }) {
  const t = useT();
  const [location] = useLocation();
  const active = location === screen.route || location.startsWith(`${screen.route}/`);
  const title = t(titleKey(screen.id));
  return (
    <li>
      <Link
        href={screen.route}
        className={`nav-item${active ? ' active' : ''}`}
        aria-current={active ? 'page' : undefined}
        title={collapsed ? title : undefined}
        aria-label={collapsed ? title : undefined}
      >
        {screen.icon && <Icon name={screen.icon} size={18} />}
        {!collapsed && <span className="nav-label">{title}</span>}
      </Link>
    </li>
  );
}

/** The menu generated from the registry: groups the user has nothing in are gone. */
export function Menu({ collapsed }: { collapsed: boolean }) {
  const t = useT();
  const grants = useStore($grants);
  return (
    <nav className="menu" aria-label={t('app.menu')}>
      {menuFor(grants).map((entry) =>
        entry.kind === 'item' ? (
          <ul key={entry.screen.id} className="menu-list">
            <Item screen={entry.screen} collapsed={collapsed} />
          </ul>
        ) : (
          <section key={entry.group} className="menu-group" aria-label={t(`menu.${entry.group}`)}>
            {collapsed ? (
              <hr className="menu-rule" />
            ) : (
              <h2 className="menu-heading">{t(`menu.${entry.group}`)}</h2>
            )}
            <ul className="menu-list">
              {entry.items.map((s) => (
                <Item key={s.id} screen={s} collapsed={collapsed} />
              ))}
            </ul>
          </section>
        ),
      )}
    </nav>
  );
}

export function Brand({ collapsed }: { collapsed: boolean }) {
  const t = useT();
  return (
    <Link href="/dashboard" className="brand" aria-label={t('app.name')}>
      <span className="brand-mark" aria-hidden="true" />
      {!collapsed && <span className="brand-name">{t('app.name')}</span>}
    </Link>
  );
}

export function Sidebar({ collapsed }: { collapsed: boolean }) {
  return (
    <aside className="sidebar no-print">
      <Brand collapsed={collapsed} />
      <Menu collapsed={collapsed} />
    </aside>
  );
}
