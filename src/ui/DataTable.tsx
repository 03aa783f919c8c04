import { useStore } from '@nanostores/react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  type ColumnDef,
  type ColumnVisibilityState,
  columnVisibilityFeature,
  createSortedRowModel,
  type RowSelectionState,
  rowSelectionFeature,
  rowSortingFeature,
  type SortingState,
  sortFn_alphanumeric,
  tableFeatures,
  useTable,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { ContextMenu, DropdownMenu } from 'radix-ui';
import { type ReactNode, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'wouter';
import {
  type AnyAction,
  actionsFor,
  type ContextName,
  type Contexts,
  titleKey,
} from '../../commands/index.ts';
import type { Endpoint } from '../../contract/index.ts';
import { api } from '../lib/api.ts';
import { formatTotal } from '../lib/format.ts';
import { $grants } from '../lib/session.ts';
import { useT } from '../lib/useT.ts';
import { keyCaps } from '../shell/keys.ts';
import { $activeTable, runCommand } from '../shell/runtime.ts';
import { Icon } from './Icon.tsx';
import { useLiveInterval } from './live.ts';
import { Modal } from './Modal.tsx';
import { $selection, selectedRows } from './selection.ts';
import './lists.css';

/** A column of a list: `header` is a message key; `value` feeds sorting and the default cell. */
export interface Column<R> {
  id: string;
  header: string;
  value: (row: R) => string | number | boolean | null;
  cell?: (row: R) => ReactNode;
  /** CSS grid track, for example `minmax(120px, 1fr)` or `90px`. */
  width?: string;
  sortable?: boolean;
  /** Off unless the user turns it on in the column chooser. */
  hiddenByDefault?: boolean;
}

/**
 * A filter kept in the URL under its id. `multi` keeps several values (a repeated key, `status=a&status=b`)
 * and hands the endpoint an array. A `text` filter with `pasteMany` turns a paste of several words
 * (numbers one per line, or separated by spaces or commas) into that repeated key instead.
 */
export interface Filter {
  id: string;
  label: string;
  kind: 'text' | 'select' | 'date' | 'multi';
  options?: { value: string; label: string }[];
  pasteMany?: string;
  /** A text filter's placeholder; a select's choice of nothing (default "any"), when it means something else. */
  placeholder?: string;
  /** A longer explanation, shown on hover. */
  hint?: string;
}

/** At most this many values a pasted list keeps (the order lists take 100). */
const pasteLimit = 100;

/** Splits pasted text into distinct words: numbers one per line, or separated by spaces, commas, semicolons. */
export function splitPasted(text: string, limit = pasteLimit): string[] {
  return [...new Set(text.split(/[\s,;，；]+/).filter(Boolean))].slice(0, limit);
}

interface ListAnswer<R> {
  list: R[];
  total?: number;
  totalCapped?: boolean;
  nextCursor: string | null;
}

export interface DataTableProps<C extends ContextName> {
  /** Names the column choice in localStorage. */
  id: string;
  endpoint: Endpoint;
  context: C;
  columns: Column<Contexts[C]>[];
  filters?: Filter[];
  /** `cursor` for keyset lists, `page` where the endpoint pages by number. */
  paging: 'cursor' | 'page';
  rowKey: (row: Contexts[C]) => string;
  detailTitle: (row: Contexts[C]) => string;
  /** Extra content of the detail drawer under the fields. */
  detail?: (row: Contexts[C]) => ReactNode;
  /** Maps URL filter values to the endpoint's input (dates to ISO instants, for example). */
  toInput?: (filters: Record<string, string>) => Record<string, unknown>;
  /**
   * More input the screen computes (a period from the time range chooser, for example); `null` holds
   * the list back (nothing valid to ask yet) and shows `blockedText` instead of rows.
   */
  input?: Record<string, unknown> | null;
  blockedText?: string;
  toolbar?: ReactNode;
  /** Before the filters in the toolbar (a time range chooser, for example). */
  toolbarStart?: ReactNode;
  /**
   * Between the toolbar and the rows (a totals bar, for example). A function draws it from the page's
   * answer (undefined until one arrives), for lists whose endpoint answers its totals with the rows.
   */
  summary?: ReactNode | ((answer: unknown) => ReactNode);
  /** The footer's count, for an answer that carries it elsewhere than `total` (in its own totals, say). */
  countOf?: (answer: unknown) => number;
  /**
   * Live refresh: while on the first page, scrolled to the top and the tab visible, the page is read
   * again every few seconds; rows that arrive or change are highlighted for a moment.
   */
  live?: boolean;
  /** Opens a row (Enter, double click, Details) instead of the built-in drawer of its columns. */
  onOpen?: (row: Contexts[C]) => void;
  /**
   * The record open in the screen's own drawer: while set, it (not the focused row) is what the
   * palette's row actions act on, so they never reach a different order than the one on screen.
   */
  openRecord?: Contexts[C] | null;
  label: string;
}

const features = tableFeatures({
  columnVisibilityFeature,
  rowSortingFeature,
  rowSelectionFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric },
});

const pageSizes = [20, 50, 100];
const rowHeightVar = 'var(--row-h)';

function readVisibility(id: string): ColumnVisibilityState | null {
  try {
    const raw = localStorage.getItem(`console-columns:${id}`);
    return raw ? (JSON.parse(raw) as ColumnVisibilityState) : null;
  } catch {
    return null;
  }
}

function useRowHeight(): number {
  const size = document.documentElement.dataset.size;
  return size === 'mini' ? 28 : size === 'small' ? 32 : 36;
}

/**
 * The list of every screen: server pages (keyset cursor or page number), sorting and filters in the
 * URL, column choice, j/k focus, Enter for the detail drawer, x to select, / to filter, and the
 * registry's row actions by key, from the ⋯ menu or a right click.
 */
export function DataTable<C extends ContextName>(props: DataTableProps<C>) {
  type R = Contexts[C];
  const { endpoint, context, columns, filters = [], paging, rowKey } = props;
  const t = useT();
  const grants = useStore($grants);
  const [params, setParams] = useSearchParams();
  const rowHeight = useRowHeight();

  const filterValues = useMemo(() => {
    const out: Record<string, string> = {};
    for (const f of filters) {
      const v = params.get(f.id);
      if (v && f.kind !== 'multi') out[f.id] = v;
    }
    return out;
  }, [params, filters]);
  // Several values under one key: multi filters and pasted lists. Joined, so the memo sees a string.
  const manyKeys = filters.flatMap((f) => (f.kind === 'multi' ? [f.id] : f.pasteMany ? [f.pasteMany] : []));
  const manyText = manyKeys.map((k) => `${k}=${params.getAll(k).join('\u0001')}`).join('\u0002');
  const manyValues = useMemo(() => {
    const out: Record<string, string[]> = {};
    for (const part of manyText.split('\u0002')) {
      const [key = '', joined = ''] = part.split('=');
      if (key && joined) out[key] = joined.split('\u0001');
    }
    return out;
  }, [manyText]);
  const sortParam = params.get('sort') ?? '';
  const pageSize = pageSizes.includes(Number(params.get('size'))) ? Number(params.get('size')) : 20;
  const cursor = params.get('cursor') ?? undefined;
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const [cursorStack, setCursorStack] = useState<string[]>([]);

  const extra = props.input;
  const blocked = extra === null;
  const input = useMemo(() => {
    const base = props.toInput ? props.toInput(filterValues) : filterValues;
    return {
      ...base,
      ...manyValues,
      ...(extra ?? {}),
      pageSize,
      ...(paging === 'cursor' ? { cursor } : { page }),
    };
  }, [filterValues, manyValues, extra, pageSize, cursor, page, paging, props.toInput]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const [atTop, setAtTop] = useState(true);
  const firstPage = paging === 'cursor' ? cursor === undefined : page === 1;
  const liveInterval = useLiveInterval(!!props.live && !blocked && firstPage && atTop);

  const query = useQuery({
    queryKey: ['list', endpoint.id, input],
    queryFn: ({ signal }) => api(endpoint, input as never, { signal }) as Promise<ListAnswer<R>>,
    placeholderData: keepPreviousData,
    enabled: !blocked,
    refetchInterval: liveInterval,
  });
  const data = blocked ? emptyRows : (query.data?.list ?? emptyRows);
  const fresh = useFreshRows(data, rowKey, JSON.stringify(input), !!props.live);

  const sorting: SortingState = useMemo(
    () => (sortParam ? [{ id: sortParam.replace(/^-/, ''), desc: sortParam.startsWith('-') }] : []),
    [sortParam],
  );
  const [visibility, setVisibility] = useState<ColumnVisibilityState>(
    () =>
      readVisibility(props.id) ??
      Object.fromEntries(columns.filter((c) => c.hiddenByDefault).map((c) => [c.id, false])),
  );
  const [selection, setSelection] = useState<RowSelectionState>({});

  const columnDefs = useMemo<ColumnDef<typeof features, R>[]>(
    () =>
      columns.map((c) => ({
        id: c.id,
        accessorFn: (row: R) => c.value(row),
        header: c.header,
        enableSorting: c.sortable ?? false,
        sortFn: 'alphanumeric',
      })) as ColumnDef<typeof features, R>[],
    [columns],
  );

  const table = useTable({
    features,
    columns: columnDefs,
    data,
    getRowId: (row: R) => rowKey(row),
    state: { sorting, columnVisibility: visibility, rowSelection: selection },
    onSortingChange: (updater) => {
      const next = typeof updater === 'function' ? updater(sorting) : updater;
      const first = next[0];
      setParams((p) => {
        const out = new URLSearchParams(p);
        if (first) out.set('sort', `${first.desc ? '-' : ''}${first.id}`);
        else out.delete('sort');
        return out;
      });
    },
    onColumnVisibilityChange: (updater) => {
      const next = typeof updater === 'function' ? updater(visibility) : updater;
      localStorage.setItem(`console-columns:${props.id}`, JSON.stringify(next));
      setVisibility(next);
    },
    onRowSelectionChange: (updater) =>
      setSelection((s) => (typeof updater === 'function' ? updater(s) : updater)),
    enableRowSelection: true,
  });

  const rows = table.getRowModel().rows;
  const visibleColumns = table.getVisibleLeafColumns();
  const byId = useMemo(() => new Map(columns.map((c) => [c.id, c])), [columns]);
  const tracks = visibleColumns.map((c) => byId.get(c.id)?.width ?? 'minmax(100px, 1fr)');
  const template = `34px ${tracks.join(' ')} 44px`;
  // Every row is its own grid, so the table gets one width: the tracks' minimums, or the whole view.
  const minWidth = tracks.reduce((sum, track) => sum + Number(/(\d+)px/.exec(track)?.[1] ?? 100), 34 + 44);

  const filterRef = useRef<HTMLInputElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    scrollPaddingStart: 34,
    overscan: 8,
  });

  // The focused row is kept by key, so rows arriving above it (live refresh) do not move the focus.
  const [focusedKey, setFocusedKey] = useState<string | null>(null);
  const focusedIndex = focusedKey === null ? -1 : rows.findIndex((r) => r.id === focusedKey);
  const focused = focusedIndex;
  const setFocused = useCallback((index: number) => setFocusedKey(rows[index]?.id ?? null), [rows]);
  const [detail, setDetail] = useState<R | null>(null);
  const [menuRow, setMenuRow] = useState<R | null>(null);
  const focusedRow = focused >= 0 ? rows[focused]?.original : undefined;
  const open = (row: R) => (props.onOpen ? props.onOpen(row) : setDetail(row));

  // A new page or new filters start again from the top; a live re-read of the same page keeps both.
  const inputKey = JSON.stringify(input);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the question changes, by design
  useEffect(() => {
    setFocusedKey(null);
    setSelection({});
  }, [inputKey]);

  // Bulk commands read the checked rows of the list on screen (rowKey is read, not watched: screens
  // pass a new function on every render).
  const keyOfRow = useRef(rowKey);
  keyOfRow.current = rowKey;
  useEffect(() => {
    const checked = data.filter((row) => selection[keyOfRow.current(row)]);
    $selection.set({ context, rows: checked });
  }, [selection, data, context]);
  useEffect(() => () => $selection.set(null), []);

  const focusRow = useCallback(
    (index: number) => {
      if (rows.length === 0) return;
      const next = Math.max(0, Math.min(rows.length - 1, index));
      setFocusedKey(rows[next]?.id ?? null);
      virtualizer.scrollToIndex(next, { align: 'auto' });
      requestAnimationFrame(() =>
        scrollRef.current
          ?.querySelector<HTMLElement>(`[data-index="${next}"]`)
          ?.focus({ preventScroll: true }),
      );
    },
    [rows, virtualizer],
  );

  const state = useRef({ focused, focusedRow, rows, open, openRecord: props.openRecord });
  state.current = { focused, focusedRow, rows, open, openRecord: props.openRecord };

  useEffect(() => {
    const handle = {
      context,
      focused: () => state.current.openRecord ?? state.current.focusedRow,
      controls: {
        move: (delta: number) => focusRow(state.current.focused < 0 ? 0 : state.current.focused + delta),
        open: () => {
          if (state.current.focusedRow) state.current.open(state.current.focusedRow as R);
        },
        toggleSelect: () => {
          const row = state.current.rows[state.current.focused];
          row?.toggleSelected();
        },
        focusFilter: () => filterRef.current?.focus(),
      },
    };
    $activeTable.set(handle);
    return () => {
      if ($activeTable.get() === handle) $activeTable.set(null);
    };
  }, [context, focusRow]);

  const setFilter = (id: string, value: string) =>
    setParams(
      (p) => {
        const out = new URLSearchParams(p);
        if (value) out.set(id, value);
        else out.delete(id);
        out.delete('cursor');
        out.delete('page');
        setCursorStack([]);
        return out;
      },
      { replace: true },
    );

  const setMany = (id: string, values: string[], clear?: string) =>
    setParams(
      (p) => {
        const out = new URLSearchParams(p);
        out.delete(id);
        for (const v of values) out.append(id, v);
        if (clear) out.delete(clear);
        out.delete('cursor');
        out.delete('page');
        setCursorStack([]);
        return out;
      },
      { replace: true },
    );

  const goNext = () => {
    const next = query.data?.nextCursor;
    setParams((p) => {
      const out = new URLSearchParams(p);
      if (paging === 'cursor' && next) {
        setCursorStack((s) => [...s, cursor ?? '']);
        out.set('cursor', next);
      } else out.set('page', String(page + 1));
      return out;
    });
  };
  const goPrevious = () =>
    setParams((p) => {
      const out = new URLSearchParams(p);
      if (paging === 'cursor') {
        const previous = cursorStack.at(-1);
        setCursorStack((s) => s.slice(0, -1));
        if (previous) out.set('cursor', previous);
        else out.delete('cursor');
      } else if (page > 2) out.set('page', String(page - 1));
      else out.delete('page');
      return out;
    });
  const hasPrevious = paging === 'cursor' ? cursor !== undefined : page > 1;
  const hasNext = paging === 'cursor' ? !!query.data?.nextCursor : page * pageSize < (query.data?.total ?? 0);

  const rowActions = (row: R): AnyAction[] => actionsFor(grants, context, row, selectedRows(context).length);
  const selectedCount = Object.keys(selection).length;
  const firstTextFilter = filters.findIndex((f) => f.kind === 'text');

  return (
    <section className="datatable" aria-label={props.label}>
      <div className="datatable-toolbar no-print">
        {props.toolbarStart}
        {filters.map((f, i) =>
          f.kind === 'multi' ? (
            <MultiFilter
              key={f.id}
              filter={f}
              values={manyValues[f.id] ?? []}
              onValues={(v) => setMany(f.id, v)}
            />
          ) : (
            <FilterInput
              key={f.id}
              filter={f}
              value={filterValues[f.id] ?? ''}
              onValue={(v) => setFilter(f.id, v)}
              inputRef={i === firstTextFilter ? filterRef : undefined}
              many={f.pasteMany ? (manyValues[f.pasteMany] ?? []) : undefined}
              onMany={f.pasteMany ? (v) => setMany(f.pasteMany as string, v, f.id) : undefined}
            />
          ),
        )}
        <div className="toolbar-spacer" />
        {selectedCount > 0 && (
          <span className="selection-count">{t('table.selected', { n: selectedCount })}</span>
        )}
        {props.toolbar}
        <DropdownMenu.Root>
          <DropdownMenu.Trigger className="button" aria-label={t('table.columns')}>
            <Icon name="columns" />
            <span className="button-label">{t('table.columns')}</span>
          </DropdownMenu.Trigger>
          <DropdownMenu.Portal>
            <DropdownMenu.Content className="menu-popup" align="end" sideOffset={6}>
              {table.getAllLeafColumns().map((col) => (
                <DropdownMenu.CheckboxItem
                  key={col.id}
                  className="menu-popup-item"
                  checked={col.getIsVisible()}
                  onCheckedChange={(v) => col.toggleVisibility(v === true)}
                  onSelect={(e) => e.preventDefault()}
                >
                  <DropdownMenu.ItemIndicator className="menu-check">
                    <Icon name="check" size={14} />
                  </DropdownMenu.ItemIndicator>
                  {t(byId.get(col.id)?.header ?? col.id)}
                </DropdownMenu.CheckboxItem>
              ))}
            </DropdownMenu.Content>
          </DropdownMenu.Portal>
        </DropdownMenu.Root>
      </div>

      {typeof props.summary === 'function' ? props.summary(blocked ? undefined : query.data) : props.summary}

      <div
        className="datatable-scroll"
        ref={scrollRef}
        onScroll={(e) => setAtTop(e.currentTarget.scrollTop < rowHeight)}
      >
        <table
          className="dt-table"
          // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: a table with role grid is the APG data grid pattern
          role="grid"
          aria-label={props.label}
          aria-rowcount={rows.length + 1}
          aria-multiselectable="true"
          aria-busy={query.isFetching}
          style={{ ['--grid' as string]: template, width: `max(100%, ${minWidth}px)` }}
        >
          <thead className="dt-head">
            <tr className="dt-row dt-header" aria-rowindex={1}>
              <th className="dt-check">
                <input
                  type="checkbox"
                  aria-label={t('table.selectAll')}
                  checked={table.getIsAllRowsSelected()}
                  onChange={(e) => table.toggleAllRowsSelected(e.target.checked)}
                  tabIndex={-1}
                />
              </th>
              {visibleColumns.map((col) => {
                const sorted = col.getIsSorted();
                const header = t(byId.get(col.id)?.header ?? col.id);
                return (
                  <th
                    key={col.id}
                    aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : undefined}
                  >
                    {col.getCanSort() ? (
                      <button
                        type="button"
                        className="dt-sort"
                        onClick={col.getToggleSortingHandler()}
                        tabIndex={-1}
                      >
                        {header}
                        <span className={`dt-sort-mark ${sorted || ''}`} aria-hidden="true" />
                      </button>
                    ) : (
                      header
                    )}
                  </th>
                );
              })}
              <th>
                <span className="sr-only">{t('table.actions')}</span>
              </th>
            </tr>
          </thead>
          <ContextMenu.Root onOpenChange={(open) => !open && setMenuRow(null)}>
            <ContextMenu.Trigger asChild disabled={rows.length === 0}>
              <tbody
                className="dt-body"
                style={{ height: rows.length ? virtualizer.getTotalSize() : undefined }}
              >
                {rows.length === 0 ? (
                  <tr className="dt-empty">
                    <td>
                      {blocked
                        ? (props.blockedText ?? t('table.empty'))
                        : query.isLoading
                          ? t('app.loading')
                          : t('table.empty')}
                    </td>
                  </tr>
                ) : (
                  virtualizer.getVirtualItems().map((item) => {
                    const row = rows[item.index];
                    if (!row) return null;
                    const original = row.original;
                    const isFocused = item.index === focused;
                    const isFresh = fresh.has(row.id);
                    return (
                      // Keys reach the row through the one keyboard dispatcher (j/k, Enter, x, row actions).
                      <tr
                        key={row.id}
                        data-index={item.index}
                        aria-rowindex={item.index + 2}
                        aria-selected={row.getIsSelected()}
                        tabIndex={isFocused || (focused < 0 && item.index === 0) ? 0 : -1}
                        data-fresh={isFresh || undefined}
                        className={`dt-row${isFocused ? ' focused' : ''}${row.getIsSelected() ? ' selected' : ''}${isFresh ? ' fresh' : ''}`}
                        style={{ transform: `translateY(${item.start}px)`, height: rowHeightVar }}
                        onFocus={() => setFocused(item.index)}
                        onClick={() => setFocused(item.index)}
                        onDoubleClick={() => open(original)}
                        onContextMenu={() => {
                          setFocused(item.index);
                          setMenuRow(original);
                        }}
                      >
                        <td className="dt-check">
                          <input
                            type="checkbox"
                            tabIndex={-1}
                            aria-label={t('table.selectRow')}
                            checked={row.getIsSelected()}
                            onChange={row.getToggleSelectedHandler()}
                          />
                        </td>
                        {visibleColumns.map((col) => {
                          const column = byId.get(col.id);
                          const value = column?.cell
                            ? column.cell(original)
                            : String(column?.value(original) ?? '');
                          return (
                            <td key={col.id} className="dt-cell">
                              {value}
                            </td>
                          );
                        })}
                        <td className="dt-actions">
                          <RowMenu
                            actions={rowActions(original)}
                            onOpenDetail={() => open(original)}
                            target={original}
                          />
                        </td>
                      </tr>
                    );
                  })
                )}
              </tbody>
            </ContextMenu.Trigger>
            <ContextMenu.Portal>
              <ContextMenu.Content className="menu-popup">
                {menuRow && (
                  <>
                    <ContextMenu.Item className="menu-popup-item" onSelect={() => open(menuRow)}>
                      <Icon name="list" size={14} />
                      {t('table.details')}
                      <kbd className="menu-kbd">{keyCaps('Enter')}</kbd>
                    </ContextMenu.Item>
                    {rowActions(menuRow).map((a) => (
                      <ContextMenu.Item
                        key={a.id}
                        className={`menu-popup-item${a.confirm?.danger ? ' danger' : ''}`}
                        onSelect={() => void runCommand(a, menuRow)}
                      >
                        {a.icon && <Icon name={a.icon} size={14} />}
                        {t(titleKey(a.id))}
                        {typeof a.shortcut === 'string' && (
                          <kbd className="menu-kbd">{keyCaps(a.shortcut).join(' ')}</kbd>
                        )}
                      </ContextMenu.Item>
                    ))}
                  </>
                )}
              </ContextMenu.Content>
            </ContextMenu.Portal>
          </ContextMenu.Root>
        </table>
      </div>

      <footer className="datatable-footer no-print">
        <span className="dt-total">
          {t('table.total', {
            n: formatTotal(
              blocked || !query.data
                ? 0
                : props.countOf
                  ? props.countOf(query.data)
                  : (query.data.total ?? 0),
              query.data?.totalCapped,
            ),
          })}
          {liveInterval !== false && (
            <span className="dt-live" title={t('lists.live.title')}>
              {t('lists.live.on')}
            </span>
          )}
        </span>
        <label className="dt-size">
          <span>{t('table.pageSize')}</span>
          <select
            value={pageSize}
            onChange={(e) =>
              setParams((p) => {
                const out = new URLSearchParams(p);
                out.set('size', e.target.value);
                out.delete('cursor');
                out.delete('page');
                setCursorStack([]);
                return out;
              })
            }
          >
            {pageSizes.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="button" disabled={!hasPrevious} onClick={goPrevious}>
          {t('table.previous')}
        </button>
        <button type="button" className="button" disabled={!hasNext} onClick={goNext}>
          {t('table.next')}
        </button>
      </footer>

      {detail && (
        <Modal title={props.detailTitle(detail)} onClose={() => setDetail(null)} variant="drawer">
          <dl className="detail-fields">
            {columns.map((c) => (
              <div key={c.id} className="detail-field">
                <dt>{t(c.header)}</dt>
                <dd>{c.cell ? c.cell(detail) : String(c.value(detail) ?? '')}</dd>
              </div>
            ))}
          </dl>
          {props.detail?.(detail)}
          <div className="detail-actions">
            {rowActions(detail).map((a) => (
              <button
                key={a.id}
                type="button"
                className={`button${a.confirm?.danger ? ' danger-outline' : ''}`}
                onClick={() => {
                  setDetail(null);
                  void runCommand(a, detail);
                }}
              >
                {a.icon && <Icon name={a.icon} />}
                {t(titleKey(a.id))}
              </button>
            ))}
          </div>
        </Modal>
      )}
    </section>
  );
}

const emptyRows: never[] = [];

function RowMenu({
  actions,
  onOpenDetail,
  target,
}: {
  actions: AnyAction[];
  onOpenDetail: () => void;
  target: unknown;
}) {
  const t = useT();
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger className="icon-button" aria-label={t('table.rowActions')} tabIndex={-1}>
        <Icon name="more" />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className="menu-popup" align="end">
          <DropdownMenu.Item className="menu-popup-item" onSelect={onOpenDetail}>
            <Icon name="list" size={14} />
            {t('table.details')}
          </DropdownMenu.Item>
          {actions.map((a) => (
            <DropdownMenu.Item
              key={a.id}
              className={`menu-popup-item${a.confirm?.danger ? ' danger' : ''}`}
              onSelect={() => void runCommand(a, target)}
            >
              {a.icon && <Icon name={a.icon} size={14} />}
              {t(titleKey(a.id))}
              {typeof a.shortcut === 'string' && (
                <kbd className="menu-kbd">{keyCaps(a.shortcut).join(' ')}</kbd>
              )}
            </DropdownMenu.Item>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

function FilterInput({
  filter,
  value,
  onValue,
  inputRef,
  many,
  onMany,
}: {
  filter: Filter;
  value: string;
  onValue: (v: string) => void;
  inputRef?: React.RefObject<HTMLInputElement | null> | undefined;
  many?: string[] | undefined;
  onMany?: ((values: string[]) => void) | undefined;
}) {
  const t = useT();
  const inputId = useId();
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  useEffect(() => {
    if (filter.kind !== 'text' || draft === value) return;
    const timer = window.setTimeout(() => onValue(draft), 350);
    return () => window.clearTimeout(timer);
  }, [draft, value, filter.kind, onValue]);

  if (filter.kind === 'select') {
    return (
      <label className="filter">
        <span className="filter-label">{filter.label}</span>
        <select value={value} onChange={(e) => onValue(e.target.value)}>
          <option value="">{filter.placeholder ?? t('table.any')}</option>
          {filter.options?.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
    );
  }
  return (
    <div className="filter">
      <label className="filter-label" htmlFor={inputId}>
        {filter.label}
      </label>
      <div className="filter-row">
        <input
          id={inputId}
          ref={inputRef}
          type={filter.kind === 'date' ? 'date' : 'search'}
          value={draft}
          placeholder={filter.placeholder}
          title={filter.hint}
          onChange={(e) => (filter.kind === 'date' ? onValue(e.target.value) : setDraft(e.target.value))}
          onPaste={(e) => {
            if (!onMany) return;
            const words = splitPasted(e.clipboardData.getData('text'));
            if (words.length < 2) return;
            // Several numbers at once: the list shows exactly those, not a prefix search of the first.
            e.preventDefault();
            setDraft('');
            onMany(words);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') onValue(draft);
            if (e.key === 'Escape') (e.target as HTMLInputElement).blur();
          }}
        />
        {many && many.length > 0 && onMany && (
          <span className="filter-chip" title={many.join('\n')}>
            {t('lists.pasted', { n: many.length })}
            <button
              type="button"
              className="filter-chip-clear"
              aria-label={t('lists.pastedClear')}
              onClick={() => onMany([])}
            >
              <Icon name="close" size={12} />
            </button>
          </span>
        )}
      </div>
    </div>
  );
}

/** Several values of one filter (statuses, for example), as a menu of checkboxes. */
function MultiFilter({
  filter,
  values,
  onValues,
}: {
  filter: Filter;
  values: string[];
  onValues: (values: string[]) => void;
}) {
  const t = useT();
  const options = filter.options ?? [];
  const chosen = options.filter((o) => values.includes(o.value));
  const summary =
    chosen.length === 0
      ? t('table.any')
      : chosen.length <= 2
        ? chosen.map((o) => o.label).join(', ')
        : t('table.selected', { n: chosen.length });
  return (
    <div className="filter">
      <span className="filter-label">{filter.label}</span>
      <DropdownMenu.Root>
        <DropdownMenu.Trigger className="filter-multi" aria-label={`${filter.label}: ${summary}`}>
          <span className="filter-multi-text">{summary}</span>
          <Icon name="chevron" size={12} />
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content className="menu-popup" align="start" sideOffset={4}>
            {options.map((o) => (
              <DropdownMenu.CheckboxItem
                key={o.value}
                className="menu-popup-item"
                checked={values.includes(o.value)}
                onCheckedChange={(on) =>
                  onValues(on ? [...values, o.value] : values.filter((v) => v !== o.value))
                }
                onSelect={(e) => e.preventDefault()}
              >
                <DropdownMenu.ItemIndicator className="menu-check">
                  <Icon name="check" size={14} />
                </DropdownMenu.ItemIndicator>
                {o.label}
              </DropdownMenu.CheckboxItem>
            ))}
            {values.length > 0 && (
              <>
                <DropdownMenu.Separator className="menu-popup-separator" />
                <DropdownMenu.Item className="menu-popup-item" onSelect={() => onValues([])}>
                  {t('lists.clearFilter')}
                </DropdownMenu.Item>
              </>
            )}
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
    </div>
  );
}

/** How long a row that arrived or changed in a live re-read stays highlighted. */
const freshMs = 4_000;

/**
 * Keys of rows that are new or changed since the previous answer to the same question (same input):
 * the highlight of a live list. A different question (filters, page) starts afresh, highlighting nothing.
 */
function useFreshRows<R>(rows: readonly R[], rowKey: (row: R) => string, question: string, on: boolean) {
  const seen = useRef<{ question: string; rows: Map<string, string> } | null>(null);
  const keyOf = useRef(rowKey);
  keyOf.current = rowKey;
  const [fresh, setFresh] = useState<ReadonlySet<string>>(emptySet);
  // Runs when the answer changes (the query keeps an unchanged answer's identity), not on every render.
  useEffect(() => {
    if (!on || rows.length === 0) return;
    const now = new Map(rows.map((r) => [keyOf.current(r), JSON.stringify(r)]));
    const before = seen.current;
    seen.current = { question, rows: now };
    const changed = new Set<string>();
    if (before && before.question === question)
      for (const [key, signature] of now) if (before.rows.get(key) !== signature) changed.add(key);
    setFresh(changed.size ? changed : emptySet);
    if (changed.size === 0) return;
    const timer = window.setTimeout(() => setFresh(emptySet), freshMs);
    return () => window.clearTimeout(timer);
  }, [rows, question, on]);
  return fresh;
}

const emptySet: ReadonlySet<string> = new Set();
