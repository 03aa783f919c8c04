import { action } from './types.ts';

/** The shell's own commands: palette, cheat sheet, layout, language, size and sign-out. */
export const appCommands = [
  action({
    id: 'app.palette',
    shortcut: 'mod+k',
    icon: 'search',
    paletteHidden: true,
    run: (c) => c.shell.openPalette(),
  }),
  action({ id: 'app.cheatSheet', shortcut: '?', icon: 'keyboard', run: (c) => c.shell.openCheatSheet() }),
  action({ id: 'app.sidebar', shortcut: '[', icon: 'menu', run: (c) => c.shell.toggleSidebar() }),
  action({ id: 'app.fullscreen', shortcut: 'f', icon: 'maximize', run: (c) => c.shell.toggleFullscreen() }),
  action({ id: 'app.language.en', icon: 'globe', run: (c) => c.shell.setLanguage('en') }),
  action({ id: 'app.language.zh_CN', icon: 'globe', run: (c) => c.shell.setLanguage('zh_CN') }),
  action({ id: 'app.size.medium', icon: 'size', run: (c) => c.shell.setSize('medium') }),
  action({ id: 'app.size.small', icon: 'size', run: (c) => c.shell.setSize('small') }),
  action({ id: 'app.size.mini', icon: 'size', run: (c) => c.shell.setSize('mini') }),
  action({ id: 'app.logout', icon: 'logout', run: (c) => c.shell.logout() }),
  // Ctrl-Z outside a field: the undo on offer (a field's own Ctrl-Z stays the field's).
  action({ id: 'app.undo', shortcut: 'mod+z', icon: 'refresh', run: (c) => c.undo() }),
  action({
    id: 'app.sessionLog',
    shortcut: 'L',
    icon: 'list',
    run: (c) => void c.dialog(() => import('../src/shell/SessionLogDialog.tsx'), {}),
  }),
];

/** Keys of the focused list; they only fire while a table is active and nothing is being typed. */
export const tableCommands = [
  action({
    id: 'table.next',
    scope: 'table',
    shortcut: ['j', 'ArrowDown'],
    paletteHidden: true,
    run: (c) => c.table?.move(1),
  }),
  action({
    id: 'table.previous',
    scope: 'table',
    shortcut: ['k', 'ArrowUp'],
    paletteHidden: true,
    run: (c) => c.table?.move(-1),
  }),
  action({
    id: 'table.open',
    scope: 'table',
    shortcut: 'Enter',
    paletteHidden: true,
    run: (c) => c.table?.open(),
  }),
  action({
    id: 'table.select',
    scope: 'table',
    shortcut: 'x',
    paletteHidden: true,
    run: (c) => c.table?.toggleSelect(),
  }),
  // Every row of the page at once, for a bulk action on a queue (X again clears them).
  action({
    id: 'table.selectPage',
    scope: 'table',
    shortcut: 'X',
    paletteHidden: true,
    run: (c) => c.table?.toggleSelectPage(),
  }),
  action({
    id: 'table.filter',
    scope: 'table',
    shortcut: '/',
    paletteHidden: true,
    run: (c) => c.table?.focusFilter(),
  }),
];
