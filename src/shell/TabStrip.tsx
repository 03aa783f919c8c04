import { useStore } from '@nanostores/react';
import { lazy, Suspense } from 'react';
import { Link, useLocation } from 'wouter';
import { $tabs, close, pinned } from '../lib/tabs.ts';
import { useT } from '../lib/useT.ts';
import { Icon } from '../ui/Icon.tsx';
import { $menusReady, applyTabs, loadMenus } from './menuTriggers.tsx';

const TabMenu = lazy(() => loadMenus().then((m) => ({ default: m.TabMenu })));

/** Visited views; right-click for refresh, close, close others, close all. */
export function TabStrip() {
  const t = useT();
  const tabs = useStore($tabs);
  const [location] = useLocation();
  const menusReady = useStore($menusReady);
  if (tabs.length === 0) return null;
  return (
    <nav className="tabstrip no-print" aria-label={t('app.tabs.label')}>
      <ul>
        {tabs.map((tab) => {
          const active = tab.path === location;
          const tabLink = (
            <Link href={tab.fullPath} className="tab-link" aria-current={active ? 'page' : undefined}>
              {t(tab.titleKey)}
            </Link>
          );
          return (
            <li key={tab.path} className={`tab${active ? ' active' : ''}`}>
              {menusReady ? (
                <Suspense fallback={tabLink}>
                  <TabMenu tab={tab} active={active} location={location}>
                    {tabLink}
                  </TabMenu>
                </Suspense>
              ) : (
                tabLink
              )}
              {!pinned(tab.path) && (
                <button
                  type="button"
                  className="tab-close"
                  aria-label={t('app.tabs.closeNamed', { name: t(tab.titleKey) })}
                  onClick={() => applyTabs(close(tabs, tab.path, location))}
                >
                  <Icon name="close" size={12} />
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
