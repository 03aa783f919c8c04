import { useStore } from '@nanostores/react';
import { Command, defaultFilter } from 'cmdk';
import { Dialog } from 'radix-ui';
import { useEffect, useMemo, useRef, useState } from 'react';
import { navigate } from 'wouter/use-browser-location';
import {
  type AnyAction,
  actions,
  commandById,
  type IconName,
  keywordsKey,
  type Command as RegistryCommand,
  titleKey,
  visibleScreens,
} from '../../../commands/index.ts';
import { allows } from '../../../contract/index.ts';
import { hasKey, loadEnglishAliases, t, tEnglish } from '../../lib/i18n.ts';
import { $grants } from '../../lib/session.ts';
import { $settings } from '../../lib/settings.ts';
import { useT } from '../../lib/useT.ts';
import { Icon } from '../../ui/Icon.tsx';
import { keyCaps } from '../keys.ts';
import { $paletteDraft, $paletteOpen } from '../paletteState.ts';
import { actionApplies, activeTable, recentIds, runCommand } from '../runtime.ts';
import { type PaletteHit, usePaletteSearch } from './useSearch.ts';

interface Entry {
  value: string;
  title: string;
  keywords: string[];
  icon?: IconName | undefined;
  shortcut?: string | undefined;
  /** A search result's term (`data-term`: tests and benchmarks wait for a term's own results). */
  term?: string | undefined;
  /** A record's own title (its number or code and name), what it is ranked by: not its details. */
  matched?: string;
  run: () => void;
}

/** An action's title as a verb is matched against: in the console's language and in English, lower case. */
function titlesOf(action: AnyAction): string[] {
  const english = tEnglish(titleKey(action.id));
  return [t(titleKey(action.id)), ...(english ? [english] : [])].map((s) => s.toLowerCase());
}

/**
 * A query that begins with a row action's first word and goes on to name a record (`freeze masala`,
 * `push PI2611…`, `reject ST…`): the word, and the rest, which is what the records are searched by.
 */
export function verbOf(
  query: string,
  rowActions: readonly AnyAction[],
): { word: string; rest: string } | null {
  const [first = '', ...rest] = query.trim().split(/\s+/);
  const word = first.toLowerCase();
  if (rest.length === 0 || word.length < (/[\u3400-\u9fff]/.test(word) ? 2 : 3)) return null;
  return rowActions.some((a) => titlesOf(a).some((title) => title.startsWith(word)))
    ? { word, rest: rest.join(' ') }
    : null;
}

/** A palette entry made of a search result (its term is the result's). */
function hitEntry(
  hit: PaletteHit,
  value: string,
  title: string,
  icon: IconName | undefined,
  run: () => void,
) {
  return { value, title, keywords: [], icon, term: hit.term, run } satisfies Entry;
}

/** Each record found, with those of its list's actions that begin with the verb and apply to it. */
function verbEntries(hits: PaletteHit[], rowActions: readonly AnyAction[], word: string): Entry[] {
  return hits.flatMap((hit) => {
    const found = hit.record;
    if (!found) return [];
    const fitting = rowActions.filter(
      (a) =>
        a.context === found.context &&
        titlesOf(a).some((title) => title.startsWith(word)) &&
        actionApplies(a, found.row),
    );
    return fitting.map((a) =>
      hitEntry(hit, `verb:${hit.id}:${a.id}`, `${t(titleKey(a.id))} · ${hit.title}`, a.icon, () => {
        void runCommand(a, found.row);
      }),
    );
  });
}

/** Search words of a command: its keywords, and in Chinese the English title and keywords too. */
function keywordsOf(id: string, chinese: boolean): string[] {
  const words: string[] = [];
  if (hasKey(keywordsKey(id))) words.push(...t(keywordsKey(id)).split(','));
  if (chinese) {
    const english = tEnglish(titleKey(id));
    if (english) words.push(english);
    const englishWords = tEnglish(keywordsKey(id));
    if (englishWords) words.push(...englishWords.split(','));
  }
  return words.map((w) => w.trim()).filter(Boolean);
}

function entryOf(command: RegistryCommand, chinese: boolean, prefix: string, target?: unknown): Entry {
  const shortcut = typeof command.shortcut === 'string' ? command.shortcut : command.shortcut?.[0];
  return {
    value: `${prefix}${command.id}`,
    title: t(titleKey(command.id)),
    keywords: keywordsOf(command.id, chinese),
    icon: command.icon,
    shortcut,
    run: () => void runCommand(command, target),
  };
}

interface Ranked {
  entries: Entry[];
  /** The best entry's score (0 with no query): groups are ordered by it. */
  best: number;
}

/**
 * Ranks entries with cmdk's own scorer; we filter ourselves because server results must not be: `keepAll`
 * (the server's records, found by more than their titles) only orders them.
 */
function rank(entries: Entry[], query: string, keepAll = false): Ranked {
  if (!query) return { entries, best: 0 };
  const scored = entries
    .map((e) => ({ e, score: defaultFilter(e.matched ?? e.title, query, e.keywords) }))
    .filter((x) => keepAll || x.score > 0)
    .sort((a, b) => b.score - a.score);
  return { entries: scored.map((x) => x.e), best: scored[0]?.score ?? 0 };
}

/**
 * What the server found, the queues or the records, all of them ranked by how well their titles (and
 * a queue's words) match: choosing one goes where it leads.
 */
function foundEntries(hits: PaletteHit[], query: string, queues: boolean): Ranked {
  return rank(
    hits
      .filter((hit) => !!hit.queue === queues)
      .map((hit) => {
        const title = hit.detail ? `${hit.title} · ${hit.detail}` : hit.title;
        return {
          ...hitEntry(hit, `hit:${hit.id}`, title, hit.icon, () => navigate(hit.route)),
          keywords: hit.keywords ?? [],
          matched: hit.title,
        };
      }),
    query,
    true,
  );
}

function Item({ entry, close }: { entry: Entry; close: () => void }) {
  return (
    <Command.Item
      value={entry.value}
      data-term={entry.term}
      onSelect={() => {
        close();
        entry.run();
      }}
      className="palette-item"
    >
      {entry.icon ? <Icon name={entry.icon} /> : <span className="icon" />}
      <span className="palette-title">{entry.title}</span>
      {entry.shortcut && (
        <span className="palette-keys" aria-hidden="true">
          {keyCaps(entry.shortcut).map((cap) => (
            <kbd key={cap}>{cap}</kbd>
          ))}
        </span>
      )}
    </Command.Item>
  );
}

/** Ctrl-K / Cmd-K: go anywhere, act on the focused row, switch language or size, find records. */
export default function Palette() {
  const tr = useT();
  const open = useStore($paletteOpen);
  const grants = useStore($grants);
  const { language } = useStore($settings);
  // The query lives in the shell's store: keys typed before this input had focus are already in it.
  const query = useStore($paletteDraft);
  const setQuery = (value: string) => $paletteDraft.set(value);
  const input = useRef<HTMLInputElement>(null);
  const chinese = language === 'zh_CN';
  const rowActions = useMemo(
    () => actions.filter((a) => a.context && !a.paletteHidden && allows(grants, a.needs)),
    [grants],
  );
  // `freeze masala`: the records are searched by what follows the verb, and offered with its actions.
  const verb = verbOf(query, rowActions);
  const { hits, loading, settled } = usePaletteSearch(verb ? verb.rest : query, open);
  const close = () => $paletteOpen.set(false);

  if (chinese) void loadEnglishAliases();

  const groups = useMemo(() => {
    const table = activeTable();
    const target = table?.focused();
    const selection =
      table && target !== undefined
        ? actions
            .filter((a) => a.context === table.context && actionApplies(a, target))
            .map((a) => entryOf(a, chinese, 'row:', target))
        : [];
    const screens = visibleScreens(grants).map((s) => entryOf(s, chinese, 'screen:'));
    const global = actions
      .filter((a) => !a.context && !a.scope && !a.paletteHidden && allows(grants, a.needs))
      .map((a) => entryOf(a, chinese, 'action:'));
    const recent = recentIds()
      .map((id) => commandById(id))
      .filter(
        (c): c is RegistryCommand =>
          !!c &&
          (c.kind === 'screen' ? visibleScreens(grants).includes(c) : allows(grants, c.needs) && !c.context),
      )
      .map((c) => entryOf(c, chinese, 'recent:'));
    return { selection, screens, global, recent };
  }, [grants, chinese]);

  const q = query.trim();
  // cmdk selects the first item in the list: the group holding the best match comes first, so typing
  // an action's name picks that action even when a screen's keywords match the letters too. Ties (and
  // an empty query, where recent commands follow the row's actions) keep the declared order.
  // Records the server found are all shown (its search reads more than their titles: a UTR, a merchant
  // order number), ranked by how well their titles match; the group leads when a record's title matches
  // better than any command's ("masala" is the merchant before a screen whose letters it contains, while
  // "merchant" stays the Merchants screen, whose title it begins).
  const records = foundEntries(hits, q, false);
  const verbs = verb ? verbEntries(hits, rowActions, verb.word) : [];
  const ranked = [
    // A verb and a record named: the record's action is what was asked for, ahead of everything.
    { heading: 'app.palette.verbs', entries: verbs, best: verbs.length ? Number.MAX_SAFE_INTEGER : 0 },
    { heading: 'app.palette.selection', ...rank(groups.selection, q) },
    { heading: 'app.palette.recent', entries: q ? [] : groups.recent, best: 0 },
    // The queues a query names (with their live counts) before the screens that list them, on a tie.
    { heading: 'app.palette.queues', ...foundEntries(hits, q, true) },
    { heading: 'app.palette.screens', ...rank(groups.screens, q) },
    { heading: 'app.palette.actions', ...rank(groups.global, q) },
    { heading: 'app.palette.results', ...records },
  ].sort((a, b) => b.best - a.best);
  // The best entry is selected whenever it changes (records arrive after the commands are ranked), until
  // the person moves the selection with the keys; a new query hands it back.
  const top = ranked.find((g) => g.entries.length > 0)?.entries[0]?.value ?? '';
  const [selected, setSelected] = useState('');
  const moved = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new query is what resets it.
  useEffect(() => {
    moved.current = false;
  }, [q]);
  useEffect(() => {
    if (!moved.current) setSelected(top);
  }, [top]);

  return (
    <Dialog.Root open={open} onOpenChange={(o) => $paletteOpen.set(o)}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay palette-overlay" />
        <Dialog.Content
          className="palette"
          aria-describedby={undefined}
          onOpenAutoFocus={(e) => {
            // Radix would select the carried-over text, and the next key would replace it.
            e.preventDefault();
            const field = input.current;
            field?.focus();
            field?.setSelectionRange(field.value.length, field.value.length);
          }}
        >
          <Dialog.Title className="sr-only">{tr('app.palette.title')}</Dialog.Title>
          <Command
            shouldFilter={false}
            loop
            label={tr('app.palette.title')}
            value={selected}
            onValueChange={setSelected}
            onKeyDown={(e) => {
              if (['ArrowUp', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown'].includes(e.key))
                moved.current = true;
            }}
          >
            <div className="palette-input">
              <Icon name="search" />
              <Command.Input
                ref={input}
                value={query}
                onValueChange={setQuery}
                placeholder={tr('app.palette.placeholder')}
              />
              {loading && <span className="palette-loading" role="status" aria-label={tr('app.loading')} />}
            </div>
            {/* `data-results-for`: the search term every provider has answered (tests wait on it). */}
            <Command.List className="palette-list" data-results-for={settled}>
              <Command.Empty className="palette-empty">{tr('app.palette.empty')}</Command.Empty>
              {ranked.map(
                (group) =>
                  group.entries.length > 0 && (
                    <Command.Group key={group.heading} heading={tr(group.heading)}>
                      {group.entries.map((e) => (
                        <Item key={e.value} entry={e} close={close} />
                      ))}
                    </Command.Group>
                  ),
              )}
            </Command.List>
          </Command>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
