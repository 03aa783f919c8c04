import { useStore } from '@nanostores/react';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { $tabs, close, pinned } from '../lib/tabs.ts';
import { useT } from '../lib/useT.ts';
import { Icon } from '../ui/Icon.tsx';
import { $menusReady, applyTabs, loadMenus } from './menuTriggers.tsx';

const TabMenu = lazy(() => loadMenus().then((m) => ({ default: m.TabMenu })));
const TabsOverflowMenu = lazy(() => loadMenus().then((m) => ({ default: m.TabsOverflowMenu })));

/**
 * The strip's list: the active tab is scrolled into view whenever it changes, and whether the tabs
 * overflow the strip (then a menu lists them all).
 */
function useStripOverflow(active: string, count: number) {
  const list = useRef<HTMLUListElement>(null);
  const [overflows, setOverflows] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the view or the tabs change, by design
  useEffect(() => {
    const el = list.current;
    if (!el) return;
    // On every change of the list's width too: the menu's button narrows it when it appears.
    const keepInView = () => {
      setOverflows(el.scrollWidth > el.clientWidth + 1);
      const tab = el.querySelector('[aria-current="page"]')?.closest('li');
      tab?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    };
    keepInView();
    const observer = new ResizeObserver(keepInView);
    observer.observe(el);
    return () => observer.disconnect();
  }, [active, count]);
  return { list, overflows };
}

/**
 * A right-click on a tab before its menu is there (the menus chunk arrives about a second after a load): the
 * browser's own menu is held back and the tab's menu opens where it was asked for once the chunk is here.
 */
function menuBeforeChunk(e: React.MouseEvent, path: string): void {
  // The menu's own trigger (it marks its state) opens it; until it wraps the link, this does.
  if (e.currentTarget.hasAttribute('data-state')) return;
  e.preventDefault();
  const { clientX, clientY } = e;
  void loadMenus().then(() => {
    let frames = 0;
    const replay = () => {
      const trigger = document.querySelector(`.tabstrip li[data-tab="${CSS.escape(path)}"] a[data-state]`);
      if (trigger) {
        trigger.dispatchEvent(
          new MouseEvent('contextmenu', { bubbles: true, cancelable: true, button: 2, clientX, clientY }),
        );
      } else if (frames++ < 60) requestAnimationFrame(replay);
    };
    requestAnimationFrame(replay);
  });
}

/** Visited views; right-click for refresh, close, close others, close all. */
export function TabStrip() {
  const t = useT();
  const tabs = useStore($tabs);
  const [location] = useLocation();
  const menusReady = useStore($menusReady);
  const { list, overflows } = useStripOverflow(location, tabs.length);
  if (tabs.length === 0) return null;
  return (
    <nav className="tabstrip no-print" aria-label={t('app.tabs.label')}>
      <ul ref={list}>
        {tabs.map((tab) => {
          const active = tab.path === location;
          const tabLink = (
            <Link
              href={tab.fullPath}
              className="tab-link"
              aria-current={active ? 'page' : undefined}
              onContextMenu={(e) => menuBeforeChunk(e, tab.path)}
            >
              {t(tab.titleKey)}
            </Link>
          );
          return (
            <li key={tab.path} className={`tab${active ? ' active' : ''}`} data-tab={tab.path}>
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
      {overflows && menusReady && (
        <Suspense fallback={null}>
          <TabsOverflowMenu location={location} />
        </Suspense>
      )}
    </nav>
  );
}
