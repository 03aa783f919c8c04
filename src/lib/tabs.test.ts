import { describe, expect, it } from 'vitest';
import { close, closeAll, closeOthers, type VisitedTab, visit } from './tabs.ts';

const tab = (path: string, query = ''): VisitedTab => ({
  path,
  fullPath: path + query,
  query,
  titleKey: path,
});

describe('tab strip', () => {
  it('adds a visited view once and keeps its latest query, after the home tab', () => {
    let tabs = visit([], tab('/admin'));
    tabs = visit(tabs, tab('/role'));
    tabs = visit(tabs, tab('/admin', '?username=a'));
    expect(tabs.map((x) => x.fullPath)).toEqual(['/dashboard', '/admin?username=a', '/role']);
    expect(tabs[0]?.titleKey).toBe('commands.home.dashboard.title');
    // Home first is home once.
    expect(visit([], tab('/dashboard')).map((x) => x.path)).toEqual(['/dashboard']);
  });

  it('moves to the last remaining tab when the active one closes', () => {
    const tabs = [tab('/a'), tab('/b'), tab('/c')];
    expect(close(tabs, '/b', '/b')).toEqual({ tabs: [tab('/a'), tab('/c')], goTo: '/c' });
    expect(close(tabs, '/b', '/a')).toEqual({ tabs: [tab('/a'), tab('/c')] });
  });

  it('goes to / when the last tab closes', () => {
    expect(close([tab('/a')], '/a', '/a')).toEqual({ tabs: [], goTo: '/' });
    expect(closeAll([tab('/a')])).toEqual({ tabs: [], goTo: '/' });
  });

  it('closes the others and follows the kept tab when it was not active', () => {
    const tabs = [tab('/a'), tab('/b')];
    expect(closeOthers(tabs, '/a', '/a')).toEqual({ tabs: [tab('/a')] });
    expect(closeOthers(tabs, '/a', '/b')).toEqual({ tabs: [tab('/a')], goTo: '/a' });
  });

  it('keeps the home tab: it has no close, and closing others or all leaves it', () => {
    const tabs = [tab('/dashboard'), tab('/a'), tab('/b')];
    expect(close(tabs, '/dashboard', '/dashboard')).toEqual({ tabs });
    expect(closeOthers(tabs, '/b', '/a')).toEqual({ tabs: [tab('/dashboard'), tab('/b')], goTo: '/b' });
    expect(closeAll(tabs)).toEqual({ tabs: [tab('/dashboard')], goTo: '/' });
  });
});
