import { type ComponentType, type LazyExoticComponent, lazy } from 'react';
import type { ScreenLoader } from '../../commands/index.ts';

const cache = new Map<ScreenLoader, LazyExoticComponent<ComponentType>>();

/** One React.lazy per loader, so a screen's chunk is requested once and its component stays stable. */
export function lazyScreen(load: ScreenLoader): LazyExoticComponent<ComponentType> {
  let component = cache.get(load);
  if (!component) {
    component = lazy(load);
    cache.set(load, component);
  }
  return component;
}
