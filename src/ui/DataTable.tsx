import { useStore } from '@nanostores/react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { type AnyAction, actionsFor, type ContextName, type Contexts } from '../../commands/index.ts';
import type { Endpoint } from '../../contract/index.ts';
import { $grants } from '../lib/session.ts';
import { useT } from '../lib/useT.ts';
import { useFreshRows } from './freshRows.ts';
import { useListQuery } from './listQuery.ts';
import { type Column, gridOf, useListTable } from './listTable.ts';
import { RowDetail } from './RowActions.tsx';
import { selectedRows } from './selection.ts';
import type { Filter } from './TableFilters.tsx';
import { TableFooter } from './TableFooter.tsx';
import { TableBody, TableHead } from './TableGrid.tsx';
import { TableToolbar } from './TableToolbar.tsx';
import { useRowFocus } from './tableKeys.ts';
import './lists.css';

export type { Column } from './listTable.ts';
export { type Filter, splitPasted, statusFilter } from './TableFilters.tsx';

/** Rows with an id are keyed by it unless the list says otherwise; other rows must say how. */
export type RowKeyOf<R> = { rowKey?: (row: R) => string } & ([R] extends [{ id: number | string }]
  ? unknown
  : { rowKey: (row: R) => string });

export type DataTableProps<C extends ContextName> = DataTableFields<C> & RowKeyOf<Contexts[C]>;

/** What a list declares besides its row key. */
export interface DataTableFields<C extends ContextName> {
  /** Names the column choice in localStorage. */
  id: string;
  endpoint: Endpoint;
  context: C;
  columns: Column<Contexts[C]>[];
  filters?: Filter[];
  /** `cursor` for keyset lists, `page` where the endpoint pages by number. */
  paging: 'cursor' | 'page';
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

function useRowHeight(): number {
  const size = document.documentElement.dataset.size;
  return size === 'mini' ? 28 : size === 'small' ? 32 : 36;
}

const emptyRows: never[] = [];

const rowIdOf = (row: unknown) => String((row as { id: number | string }).id);

/**
 * The list of every screen: server pages (keyset cursor or page number), sorting and filters in the
 * URL, column choice, j/k focus, Enter for the detail drawer, x to select, / to filter, and the
 * registry's row actions by key, from the ⋯ menu or a right click.
 */
export function DataTable<C extends ContextName>(props: DataTableProps<C>) {
  type R = Contexts[C];
  const { context, columns, filters = [] } = props;
  const rowKey = props.rowKey ?? rowIdOf;
  const t = useT();
  const grants = useStore($grants);
  const rowHeight = useRowHeight();
  const scrollRef = useRef<HTMLDivElement>(null);
  const filterRef = useRef<HTMLInputElement>(null);
  const [atTop, setAtTop] = useState(true);

  const list = useListQuery<R>({
    endpoint: props.endpoint,
    filters,
    paging: props.paging,
    toInput: props.toInput,
    extra: props.input,
    live: !!props.live,
    atTop,
  });
  const { query, blocked } = list;
  // A new page or new filters start again from the top; a live re-read of the same page keeps both.
  const inputKey = JSON.stringify(list.input);
  const data = blocked ? emptyRows : (query.data?.list ?? emptyRows);
  const fresh = useFreshRows(data, rowKey, inputKey, !!props.live);
  const { table, byId, selectedCount } = useListTable<R>({
    id: props.id,
    context,
    columns,
    data,
    rowKey,
    sort: list.sort,
    onSort: list.setSort,
    resetKey: inputKey,
  });
  const rows = table.getRowModel().rows;
  const visible = table.getVisibleLeafColumns();
  const { template, minWidth } = gridOf(visible, byId);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    scrollPaddingStart: 34,
    overscan: 8,
  });
  const [detail, setDetail] = useState<R | null>(null);
  const open = (row: R) => (props.onOpen ? props.onOpen(row) : setDetail(row));
  const { focused, setFocused, focusRow } = useRowFocus<R>({
    context,
    rows,
    virtualizer,
    scrollRef,
    filterRef,
    open,
    openRecord: props.openRecord,
    resetKey: inputKey,
    waiting: !blocked && query.isLoading,
    toggleSelectPage: () => table.toggleAllPageRowsSelected(!table.getIsAllPageRowsSelected()),
  });
  // Enter (or ↓) in a text filter goes to the results: the first row takes the focus once the list
  // answers the filter as typed (at once when it already does), so j, Enter and the row keys follow.
  const [wantFirst, setWantFirst] = useState<{ id: string; value: string } | null>(null);
  useEffect(() => {
    if (!wantFirst || query.isFetching || (list.filterValues[wantFirst.id] ?? '') !== wantFirst.value) return;
    setWantFirst(null);
    if (rows.length) focusRow(0);
  }, [wantFirst, list.filterValues, query.isFetching, rows, focusRow]);
  const rowActions = (row: R): AnyAction[] => actionsFor(grants, context, row, selectedRows(context).length);
  const emptyText = blocked
    ? (props.blockedText ?? t('table.empty'))
    : query.isLoading
      ? t('app.loading')
      : t('table.empty');
  const count =
    blocked || !query.data ? 0 : props.countOf ? props.countOf(query.data) : (query.data.total ?? 0);

  return (
    <section className="datatable" aria-label={props.label}>
      <TableToolbar
        start={props.toolbarStart}
        filters={filters}
        filterValues={list.filterValues}
        manyValues={list.manyValues}
        setFilter={list.setFilter}
        setMany={list.setMany}
        filterRef={filterRef}
        toResults={(id, value) => setWantFirst({ id, value })}
        selectedCount={selectedCount}
        end={props.toolbar}
        columns={table.getAllLeafColumns()}
        byId={byId}
      />

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
          <TableHead table={table} visible={visible} byId={byId} />
          <TableBody
            rows={rows}
            visible={visible}
            byId={byId}
            virtualizer={virtualizer}
            focused={focused}
            setFocused={setFocused}
            fresh={fresh}
            emptyText={emptyText}
            open={open}
            rowActions={rowActions}
          />
        </table>
      </div>

      <TableFooter
        count={count}
        capped={query.data?.totalCapped}
        live={list.liveInterval !== false}
        pageSize={list.pageSize}
        setPageSize={list.setPageSize}
        paging={list.paging}
      />

      {detail && (
        <RowDetail
          row={detail}
          title={props.detailTitle(detail)}
          columns={columns}
          extra={props.detail?.(detail)}
          actions={rowActions(detail)}
          onClose={() => setDetail(null)}
        />
      )}
    </section>
  );
}
