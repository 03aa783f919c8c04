import { describe, expect, it } from 'vitest';
import { endpoints, type Grants } from '../contract/index.ts';
import {
  actionsFor,
  assemble,
  breadcrumbFor,
  type Contexts,
  cheatSheet,
  commands,
  globalActions,
  menuFor,
  screen,
  screenForPath,
  visibleScreens,
} from './index.ts';

const grants = (kind: Grants['kind'], ...perms: string[]): Grants => ({ kind, perms: new Set(perms) });
const ids = (list: readonly { id: string }[]) => list.map((c) => c.id);
const menuIds = (g: Grants | null) =>
  menuFor(g).map((e) => (e.kind === 'item' ? e.screen.id : `${e.group}[${ids(e.items).join(',')}]`));

const adminRow: Contexts['admin'] = {
  id: 2,
  username: 'ops',
  nickname: 'Ops',
  email: '',
  status: 'active',
  merchantId: null,
  roles: [],
  googleBound: true,
  lastLoginAt: null,
  createdAt: '2024-01-01T00:00:00Z',
};

describe('command registry', () => {
  it('gives a super admin every screen, system group included', async () => {
    // The whole menu, one entry a line, as a snapshot written from the declarations (a new screen shows
    // in its diff rather than in a list kept by hand).
    const lines = menuIds(grants('platform', '*')).map((entry) => `${entry.replace(/([[,])/g, '$1\n  ')}\n`);
    await expect(lines.join('')).toMatchFileSnapshot('./__snapshots__/menu-super-admin.txt');
  });

  // What every signed-in user sees: the screens that need only their own session's endpoints.
  const everyone = menuIds(grants('platform'));

  it('drops screens the user lacks and the group they leave empty', () => {
    expect(everyone).toContain('home.dashboard');
    expect(everyone.some((entry) => entry.startsWith('security[auth.google'))).toBe(true);
    expect(everyone.some((entry) => entry.startsWith('system['))).toBe(false);
    expect(menuIds(grants('platform', 'GET /auth/info'))).toEqual(everyone);
  });

  it('shows a screen when the user holds at least one of its endpoints', () => {
    expect(menuIds(grants('platform', 'GET /log/list'))).toEqual([...everyone, 'system[log.list]']);
    expect(ids(visibleScreens(grants('platform', 'POST /role/permissions')))).toContain('role.list');
  });

  it('keeps platform-only screens from merchant users even with *', () => {
    const ids_ = ids(visibleScreens(grants('merchant', '*')));
    expect(ids_).toContain('admin.list');
    expect(ids_).not.toContain('mailOutbox.list');
  });

  it('shows the mail outbox to super admins only, not to a role that holds its permission string', () => {
    expect(ids(visibleScreens(grants('platform', 'GET /mailOutbox/list', 'GET /log/list')))).not.toContain(
      'mailOutbox.list',
    );
    expect(ids(visibleScreens(grants('platform', '*')))).toContain('mailOutbox.list');
  });

  it('fails closed when nobody is signed in', () => {
    expect(menuFor(null)).toEqual([]);
    expect(globalActions(null)).toEqual([]);
  });

  it('keeps hidden screens out of the menu but reachable', () => {
    const g = grants('platform', '*');
    expect(ids(visibleScreens(g))).toContain('auth.password');
    expect(JSON.stringify(menuFor(g))).not.toContain('auth.password');
  });

  it('yields row actions by permission and state', () => {
    const all = ids(actionsFor(grants('platform', '*'), 'admin', adminRow));
    expect(all).toEqual(['admin.edit', 'admin.disable', 'admin.resetGoogle', 'admin.delete']);
    const readOnly = ids(actionsFor(grants('platform', 'GET /admin/list'), 'admin', adminRow));
    expect(readOnly).toEqual([]);
    const disabled = ids(
      actionsFor(grants('platform', 'POST /admin/update'), 'admin', { ...adminRow, status: 'disabled' }),
    );
    expect(disabled).toEqual(['admin.edit', 'admin.enable']);
  });

  it('offers global actions the user may run', () => {
    const withCreate = ids(globalActions(grants('platform', endpoints.admin.create.permission)));
    expect(withCreate).toContain('admin.create');
    expect(withCreate).not.toContain('role.create');
    expect(withCreate).toContain('app.language.zh_CN');
    expect(withCreate).not.toContain('table.next');
  });

  it('builds the breadcrumb from home', () => {
    expect(breadcrumbFor('/dashboard')).toEqual([
      { titleKey: 'commands.home.dashboard.title', path: '/dashboard' },
    ]);
    expect(breadcrumbFor('/role')).toEqual([
      { titleKey: 'commands.home.dashboard.title', path: '/dashboard' },
      { titleKey: 'menu.system' },
      { titleKey: 'commands.role.list.title' },
    ]);
    expect(breadcrumbFor('/nowhere')).toEqual([
      { titleKey: 'commands.home.dashboard.title', path: '/dashboard' },
      { titleKey: 'errorPage.404.title' },
    ]);
  });

  it('matches paths to screens, wildcards included', () => {
    expect(screenForPath('/admin')?.id).toBe('admin.list');
    expect(screenForPath('/redirect/admin')?.id).toBe('public.redirect');
    expect(screenForPath('/nope')).toBeUndefined();
  });

  it('lists shortcuts for the cheat sheet, g sequences for screens', () => {
    const sheet = cheatSheet(grants('platform', '*'));
    const nav = sheet.filter((l) => l.section === 'navigation').map((l) => `${l.keys[0]}=${l.command.id}`);
    expect(nav).toContain('g a=admin.list');
    expect(nav).toContain('g l=log.list');
    expect(sheet.some((l) => l.section === 'table' && l.keys.includes('j'))).toBe(true);
    expect(cheatSheet(grants('platform', 'GET /auth/info')).some((l) => l.command.id === 'admin.list')).toBe(
      false,
    );
  });

  it('refuses a repeated id, route or shortcut', () => {
    const load = async () => ({ default: () => null });
    const a = screen({ id: 'x.a', route: '/a', screen: load, shortcut: 'g x' });
    expect(() => assemble([a, screen({ id: 'x.a', route: '/b', screen: load })])).toThrow(/declared twice/);
    expect(() => assemble([a, screen({ id: 'x.b', route: '/a', screen: load })])).toThrow(/declared twice/);
    expect(() => assemble([a, screen({ id: 'x.c', route: '/c', screen: load, shortcut: 'g x' })])).toThrow(
      /repeats/,
    );
  });

  it('has every command id in the two-part area.name form', () => {
    for (const c of commands) expect(c.id).toMatch(/^[a-zA-Z]+\.[a-zA-Z_.]+$/);
  });
});

describe('command messages', () => {
  it('has a title for every command and menu group in both languages', async () => {
    const { default: en } = await import('../locales/en.json');
    const { default: zh } = await import('../locales/zh_CN.json');
    const { cheatSheetSectionKey, menuGroups, titleKey } = await import('./index.ts');
    const lookup = (table: unknown, key: string) =>
      key
        .split('.')
        .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], table);
    // Every section of the shortcut sheet of a platform and of a merchant user that may do everything.
    const sections = [grants('platform', '*'), grants('merchant', '*')].flatMap((g) =>
      cheatSheet(g).map((l) => cheatSheetSectionKey(l.section)),
    );
    const keys = [
      ...commands.map((c) => titleKey(c.id)),
      ...menuGroups.map((g) => `menu.${g}`),
      ...new Set(sections),
    ];
    for (const key of keys) {
      expect(typeof lookup(en, key), `en ${key}`).toBe('string');
      expect(typeof lookup(zh, key), `zh_CN ${key}`).toBe('string');
    }
  });
});
