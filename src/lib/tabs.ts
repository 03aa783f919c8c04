import { atom } from 'nanostores';
import { homeRoute, screens } from '../../commands/registry.ts';
import { titleKey } from '../../commands/types.ts';

/** A visited view in the tab strip. */
export interface VisitedTab {
  path: string;
  fullPath: string;
  query: string;
  titleKey: string;
}

const storageKey = 'console-tabs';

function load(): VisitedTab[] {
  try {
    const raw = typeof sessionStorage === 'undefined' ? null : sessionStorage.getItem(storageKey);
    const value = raw ? (JSON.parse(raw) as VisitedTab[]) : [];
    return Array.isArray(value) ? value.filter((x) => typeof x?.path === 'string') : [];
  } catch {
    return [];
  }
}

export const $tabs = atom<VisitedTab[]>(load());
$tabs.listen((tabs) => {
  if (typeof sessionStorage !== 'undefined') sessionStorage.setItem(storageKey, JSON.stringify(tabs));
});

const home: VisitedTab = {
  path: homeRoute,
  fullPath: homeRoute,
  query: '',
  titleKey: titleKey(screens.find((s) => s.route === homeRoute)?.id ?? 'home.dashboard'),
};

/**
 * Adds a view, or updates its query when it is already open. The home tab leads the strip even when
 * the first view of a session was another (a bookmark, a reload).
 */
export function visit(tabs: readonly VisitedTab[], tab: VisitedTab): VisitedTab[] {
  if (!tabs.some((x) => pinned(x.path)) && !pinned(tab.path)) tabs = [home, ...tabs];
  const i = tabs.findIndex((x) => x.path === tab.path);
  if (i < 0) return [...tabs, tab];
  const next = [...tabs];
  next[i] = tab;
  return next;
}

/** The result of closing: the tabs left and, when the active view closed, where to go. */
export interface Closed {
  tabs: VisitedTab[];
  goTo?: string;
}

/** The home view's tab (the dashboard) stays: nothing closes it, so there is always a way back. */
export const pinned = (path: string): boolean => path === homeRoute;

/** Closing the active tab moves to the last remaining one, or to `/` when none remain. */
export function close(tabs: readonly VisitedTab[], path: string, activePath: string): Closed {
  if (pinned(path)) return { tabs: [...tabs] };
  const rest = tabs.filter((x) => x.path !== path);
  if (path !== activePath) return { tabs: rest };
  return { tabs: rest, goTo: rest.at(-1)?.fullPath ?? '/' };
}

export function closeOthers(tabs: readonly VisitedTab[], path: string, activePath: string): Closed {
  const kept = tabs.filter((x) => x.path === path || pinned(x.path));
  const target = kept.find((x) => x.path === path);
  return { tabs: kept, ...(path !== activePath && target ? { goTo: target.fullPath } : {}) };
}

export function closeAll(tabs: readonly VisitedTab[]): Closed {
  return { tabs: tabs.filter((x) => pinned(x.path)), goTo: '/' };
}

export function resetTabs(): void {
  $tabs.set([]);
}
