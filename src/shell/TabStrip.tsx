import { useStore } from '@nanostores/react';
import { ContextMenu } from 'radix-ui';
import { Link, useLocation } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import { queryClient } from '../lib/query.ts';
import { $tabs, type Closed, close, closeAll, closeOthers, type VisitedTab } from '../lib/tabs.ts';
import { useT } from '../lib/useT.ts';
import { Icon } from '../ui/Icon.tsx';
import { $viewKey } from './view.ts';

function apply(result: Closed): void {
  $tabs.set(result.tabs);
  if (result.goTo) navigate(result.goTo);
}

function refresh(tab: VisitedTab, active: boolean): void {
  void queryClient.invalidateQueries();
  if (active) $viewKey.set($viewKey.get() + 1);
  else navigate(tab.fullPath);
}

/** Visited views; right-click for refresh, close, close others, close all. */
export function TabStrip() {
  const t = useT();
  const tabs = useStore($tabs);
  const [location] = useLocation();
  if (tabs.length === 0) return null;
  return (
    <nav className="tabstrip no-print" aria-label={t('app.tabs.label')}>
      <ul>
        {tabs.map((tab) => {
          const active = tab.path === location;
          return (
            <li key={tab.path} className={`tab${active ? ' active' : ''}`}>
              <ContextMenu.Root>
                <ContextMenu.Trigger asChild>
                  <Link href={tab.fullPath} className="tab-link" aria-current={active ? 'page' : undefined}>
                    {t(tab.titleKey)}
                  </Link>
                </ContextMenu.Trigger>
                <ContextMenu.Portal>
                  <ContextMenu.Content className="menu-popup">
                    <ContextMenu.Item className="menu-popup-item" onSelect={() => refresh(tab, active)}>
                      <Icon name="refresh" size={14} />
                      {t('app.tabs.refresh')}
                    </ContextMenu.Item>
                    <ContextMenu.Item
                      className="menu-popup-item"
                      onSelect={() => apply(close(tabs, tab.path, location))}
                    >
                      <Icon name="close" size={14} />
                      {t('app.tabs.close')}
                    </ContextMenu.Item>
                    <ContextMenu.Item
                      className="menu-popup-item"
                      onSelect={() => apply(closeOthers(tabs, tab.path, location))}
                    >
                      {t('app.tabs.closeOthers')}
                    </ContextMenu.Item>
                    <ContextMenu.Item className="menu-popup-item" onSelect={() => apply(closeAll())}>
                      {t('app.tabs.closeAll')}
                    </ContextMenu.Item>
                  </ContextMenu.Content>
                </ContextMenu.Portal>
              </ContextMenu.Root>
              <button
                type="button"
                className="tab-close"
                aria-label={t('app.tabs.closeNamed', { name: t(tab.titleKey) })}
                onClick={() => apply(close(tabs, tab.path, location))}
              >
                <Icon name="close" size={12} />
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
