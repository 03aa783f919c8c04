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
import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
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
import { Modal } from './Modal.tsx';

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

/** A filter kept in the URL under its id. */
export interface Filter {
  id: string;
  label: string;
  kind: 'text' | 'select' | 'date';
  options?: { value: string; label: string }[];
}

interface ListAnswer<R> {
  list: R[];
  total: number;
  totalCapped?: boolean;
  nextCursor: string | null;
}

interface DataTableProps<C extends ContextName> {
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
  toolbar?: ReactNode;
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
      if (v) out[f.id] = v;
    }
    return out;
  }, [params, filters]);
  const sortParam = params.get('sort') ?? '';
  const pageSize = pageSizes.includes(Number(params.get('size'))) ? Number(params.get('size')) : 20;
  const cursor = params.get('cursor') ?? undefined;
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const [cursorStack, setCursorStack] = useState<string[]>([]);

  const input = useMemo(() => {
    const base = props.toInput ? props.toInput(filterValues) : filterValues;
    return { ...base, pageSize, ...(paging === 'cursor' ? { cursor } : { page }) };
  }, [filterValues, pageSize, cursor, page, paging, props.toInput]);

  const query = useQuery({
    queryKey: ['list', endpoint.id, input],
    queryFn: ({ signal }) => api(endpoint, input as never, { signal }) as Promise<ListAnswer<R>>,
    placeholderData: keepPreviousData,
  });
  const data = query.data?.list ?? emptyRows;

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

  const scrollRef = useRef<HTMLDivElement>(null);
  const filterRef = useRef<HTMLInputElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    scrollPaddingStart: 34,
    overscan: 8,
  });

  const [focused, setFocused] = useState(-1);
  const [detail, setDetail] = useState<R | null>(null);
  const [menuRow, setMenuRow] = useState<R | null>(null);
  const focusedRow = focused >= 0 ? rows[focused]?.original : undefined;

  // A new page or new filters start again from the top.
  useEffect(() => {
    if (!query.data) return;
    setFocused(-1);
    setSelection({});
  }, [query.data]);

  const focusRow = useCallback(
    (index: number) => {
      if (rows.length === 0) return;
      const next = Math.max(0, Math.min(rows.length - 1, index));
      setFocused(next);
      virtualizer.scrollToIndex(next, { align: 'auto' });
      requestAnimationFrame(() =>
        scrollRef.current
          ?.querySelector<HTMLElement>(`[data-index="${next}"]`)
          ?.focus({ preventScroll: true }),
      );
    },
    [rows.length, virtualizer],
  );

  const state = useRef({ focused, focusedRow, rows });
  state.current = { focused, focusedRow, rows };

  useEffect(() => {
    const handle = {
      context,
      focused: () => state.current.focusedRow,
      controls: {
        move: (delta: number) => focusRow(state.current.focused < 0 ? 0 : state.current.focused + delta),
        open: () => {
          if (state.current.focusedRow) setDetail(state.current.focusedRow as R);
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

  const rowActions = (row: R): AnyAction[] => actionsFor(grants, context, row);
  const selectedCount = Object.keys(selection).length;
  const firstTextFilter = filters.findIndex((f) => f.kind === 'text');

  return (
    <section className="datatable" aria-label={props.label}>
      <div className="datatable-toolbar no-print">
        {filters.map((f, i) => (
          <FilterInput
            key={f.id}
            filter={f}
            value={filterValues[f.id] ?? ''}
            onValue={(v) => setFilter(f.id, v)}
            inputRef={i === firstTextFilter ? filterRef : undefined}
          />
        ))}
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

      <div className="datatable-scroll" ref={scrollRef}>
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
                    <td>{query.isLoading ? t('app.loading') : t('table.empty')}</td>
                  </tr>
                ) : (
                  virtualizer.getVirtualItems().map((item) => {
                    const row = rows[item.index];
                    if (!row) return null;
                    const original = row.original;
                    const isFocused = item.index === focused;
                    return (
                      // Keys reach the row through the one keyboard dispatcher (j/k, Enter, x, row actions).
                      <tr
                        key={row.id}
                        data-index={item.index}
                        aria-rowindex={item.index + 2}
                        aria-selected={row.getIsSelected()}
                        tabIndex={isFocused || (focused < 0 && item.index === 0) ? 0 : -1}
                        className={`dt-row${isFocused ? ' focused' : ''}${row.getIsSelected() ? ' selected' : ''}`}
                        style={{ transform: `translateY(${item.start}px)`, height: rowHeightVar }}
                        onFocus={() => setFocused(item.index)}
                        onClick={() => setFocused(item.index)}
                        onDoubleClick={() => setDetail(original)}
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
                            onOpenDetail={() => setDetail(original)}
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
                    <ContextMenu.Item className="menu-popup-item" onSelect={() => setDetail(menuRow)}>
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
          {t('table.total', { n: formatTotal(query.data?.total ?? 0, query.data?.totalCapped) })}
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
}: {
  filter: Filter;
  value: string;
  onValue: (v: string) => void;
  inputRef?: React.RefObject<HTMLInputElement | null> | undefined;
}) {
  const t = useT();
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
          <option value="">{t('table.any')}</option>
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
    <label className="filter">
      <span className="filter-label">{filter.label}</span>
      <input
        ref={inputRef}
        type={filter.kind === 'date' ? 'date' : 'search'}
        value={draft}
        onChange={(e) => (filter.kind === 'date' ? onValue(e.target.value) : setDraft(e.target.value))}
        onKeyDown={(e) => {
          if (e.key === 'Enter') onValue(draft);
          if (e.key === 'Escape') (e.target as HTMLInputElement).blur();
        }}
      />
    </label>
  );
}
