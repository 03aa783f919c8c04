import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../contract/index.ts';
import { machines } from '../contract/machines.ts';
import { type Command, commands, type RunContext } from './index.ts';

/**
 * The derived command table, as a committed snapshot: what the routes, the sidebar, the palette, the row
 * menus and the keys are built from (ids in declaration order, keys, routes, permissions, contexts,
 * predicates) and what each action does when run against a stand-in row (the calls, dialogs, toasts and
 * navigations it makes). A change to how commands are declared must leave this file as it is; a new or
 * changed command shows here as a diff to read.
 */

/** A loader's module path (`() => import('…')`), so the snapshot says which screen or dialog opens. */
const importOf = (load: unknown) =>
  /import\w*\(["'`]([^"'`]+)["'`]\)/.exec(String(load))?.[1] ?? String(load);

/** Every state a row may be in: the machines' and the plain records' (active, disabled, frozen …). */
const states = [
  ...new Set([...machines.flatMap((m) => Object.keys(m.state)), 'active', 'disabled', 'frozen', 'paused']),
].sort();

/** A field that is set: a number above zero, not null, truthy, with set fields of its own. */
const setField: unknown = new Proxy(() => setField, {
  get: (_, key) => (key === Symbol.toPrimitive ? () => 1 : key === 'then' ? undefined : setField),
});

/**
 * What a predicate answers rather than how it is written: for each state, on a row whose other fields are
 * all null and on one whose other fields are all set, whether it holds (or throws); and the fields it reads.
 */
function predicateOf(when: unknown): Record<string, unknown> | undefined {
  if (typeof when !== 'function') return undefined;
  const reads = new Set<string>();
  const probe = (status: string, other: unknown) => {
    const row = new Proxy({} as Record<string, unknown>, {
      get: (_, key) => {
        if (typeof key === 'symbol' || key === 'then' || key === 'toJSON') return undefined;
        reads.add(key);
        return key === 'status' ? status : key === 'wallet' ? 'collection' : other;
      },
    });
    try {
      return when(row) ? 'y' : '.';
    } catch {
      return 'x';
    }
  };
  const answers = (other: unknown) => states.map((status) => probe(status, other)).join('');
  const onNull = answers(null);
  const onSet = answers(setField);
  return { reads: [...reads].sort(), onNull, onSet };
}

/**
 * A row (or a call's answer) that answers any field with its name (a day with a day): every branch that
 * reads one goes on.
 */
const standIns = new WeakSet<object>();
function standIn(name: string): Record<string, unknown> {
  const target = {};
  const proxy = new Proxy(target, {
    get: (_, key) => {
      if (key === 'then' || key === 'toJSON' || typeof key === 'symbol') return undefined;
      return key === 'day' ? '2024-03-05' : `${name}.${key}`;
    },
  });
  standIns.add(proxy);
  return proxy as Record<string, unknown>;
}

const plain = (value: unknown): unknown =>
  JSON.parse(
    JSON.stringify(value, (_, v) =>
      typeof v === 'object' && v !== null && standIns.has(v)
        ? '<row>'
        : typeof v === 'function'
          ? importOf(v)
          : v,
    ),
  );

/** Runs an action against stand-ins and returns what it did, in order. */
async function trace(command: Command): Promise<unknown[]> {
  if (command.kind !== 'action') return [];
  const did: unknown[] = [];
  const log =
    (what: string) =>
    (...args: unknown[]) => {
      did.push([what, ...args.map(plain)]);
    };
  const c: RunContext = {
    navigate: log('navigate'),
    t: (key, params) => (params ? `${key} ${JSON.stringify(plain(params))}` : key),
    call: async (endpoint: Endpoint, input: unknown) => {
      did.push(['call', endpoint.permission, plain(input)]);
      return standIn('answer') as never;
    },
    dialog: async (load, props) => {
      did.push(['dialog', importOf(load), plain(props)]);
      return standIn('dialog');
    },
    confirm: async (options) => {
      did.push(['confirm', options]);
      return true;
    },
    toast: log('toast'),
    title: `title:${command.id}`,
    // The undo runs at once, so the table pins the reverse call it would make.
    offerUndo: (text, undo) => {
      did.push(['offerUndo', text]);
      void undo();
    },
    undo: async () => log('undo')(),
    refresh: log('refresh'),
    shell: {
      openPalette: log('shell.openPalette'),
      openCheatSheet: log('shell.openCheatSheet'),
      toggleSidebar: log('shell.toggleSidebar'),
      toggleFullscreen: log('shell.toggleFullscreen'),
      setLanguage: log('shell.setLanguage'),
      setSize: log('shell.setSize'),
      logout: log('shell.logout'),
    },
    table: {
      move: log('table.move'),
      open: log('table.open'),
      toggleSelect: log('table.toggleSelect'),
      toggleSelectPage: log('table.toggleSelectPage'),
      focusFilter: log('table.focusFilter'),
    },
    selection: () => [standIn('checked1'), standIn('checked2')] as never,
    userKind: 'platform',
    merchantInView: 7,
  };
  try {
    const run = command.run as (c: RunContext, target?: unknown) => unknown;
    await (command.context ? run(c, standIn('row')) : run(c));
  } catch (error) {
    did.push(['throws', (error as Error).message]);
  }
  return did;
}

async function table() {
  const rows: Record<string, unknown>[] = [];
  for (const command of commands) {
    const common = {
      id: command.id,
      kind: command.kind,
      icon: command.icon,
      shortcut: command.shortcut,
      needs: command.needs?.map((e) => `${e.caller} ${e.permission}`),
    };
    if (command.kind === 'screen') {
      const { route, access, group, hidden } = command;
      rows.push({ ...common, route, access, group, hidden, screen: importOf(command.screen) });
    } else {
      const { context, scope, bulk, confirm, paletteHidden } = command;
      rows.push({
        ...common,
        context,
        scope,
        bulk,
        confirm,
        paletteHidden,
        when: predicateOf(command.when),
        run: await trace(command),
      });
    }
  }
  return rows;
}

describe('the derived command table', () => {
  it('stays as declared (ids, keys, routes, permissions, contexts, predicates, what runs do)', async () => {
    // One command a line, so a diff names the commands that moved.
    const text = (await table()).map((row) => `${JSON.stringify(row)}\n`).join('');
    await expect(text).toMatchFileSnapshot('./__snapshots__/command-table.jsonl');
  });
});
