import { type ComponentType, type LazyExoticComponent, lazy } from 'react';
import type { ScreenLoader } from '../../commands/index.ts';

const cache = new Map<ScreenLoader, LazyExoticComponent<ComponentType>>();
const loaded = new Map<ScreenLoader, ComponentType>();

/** One React.lazy per loader, so a screen's chunk is requested once and its component stays stable. */
export function lazyScreen(load: ScreenLoader): LazyExoticComponent<ComponentType> {
  let component = cache.get(load);
  if (!component) {
    component = lazy(load);
    cache.set(load, component);
  }
  return component;
}

/**
 * The screen's component: the loaded module itself once `preloadScreens` fetched it, so that opening
 * it does not suspend (a suspended first render costs React's fallback delay, about 300 ms).
 */
export function screenComponent(load: ScreenLoader): ComponentType {
  // A screen already shown through React.lazy keeps that component, so it is never remounted.
  return cache.get(load) ?? loaded.get(load) ?? lazyScreen(load);
}

/** Fetches the screens' chunks one after another (after the shell is idle), so later switches are instant. */
export async function preloadScreens(loaders: readonly ScreenLoader[]): Promise<void> {
  for (const load of loaders) {
    if (loaded.has(load)) continue;
    try {
      loaded.set(load, (await load()).default);
    } catch {
      // A chunk that fails now (offline, a new deployment) is loaded, or reported, when opened.
    }
  }
}
