import type { RowData } from '@tanstack/react-table';
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
  type Column as TableColumn,
  tableFeatures,
  useTable,
} from '@tanstack/react-table';
import { type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import type { ContextName } from '../../commands/index.ts';
import { t } from '../lib/i18n.ts';
import { offerUndo } from '../lib/undo.ts';
import { $selection } from './selection.ts';

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

/** A cell as the list and the built-in drawer show it: the column's own cell, or its value as text. */
export const cellOf = <R>(column: Column<R> | undefined, row: R): ReactNode =>
  column?.cell ? column.cell(row) : String(column?.value(row) ?? '');

export const features = tableFeatures({
  columnVisibilityFeature,
  rowSortingFeature,
  rowSelectionFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric },
});
export type Features = typeof features;

/** The sort kept in the URL: a column id, `-` in front for descending. */
export type Sort = { id: string; desc: boolean } | undefined;

const visibilityKey = (id: string) => `console-columns:${id}`;

function readVisibility(id: string): ColumnVisibilityState | null {
  try {
    const raw = localStorage.getItem(visibilityKey(id));
    return raw ? (JSON.parse(raw) as ColumnVisibilityState) : null;
  } catch {
    return null;
  }
}

/** Column choice, remembered per list in localStorage; new users see what is not hidden by default. */
function useColumnVisibility<R extends RowData>(id: string, columns: Column<R>[]) {
  const [visibility, setVisibility] = useState<ColumnVisibilityState>(
    () =>
      readVisibility(id) ??
      Object.fromEntries(columns.filter((c) => c.hiddenByDefault).map((c) => [c.id, false])),
  );
  const keep = (next: ColumnVisibilityState) => {
    localStorage.setItem(visibilityKey(id), JSON.stringify(next));
    setVisibility(next);
  };
  // Each change offers the columns as they were back for a few seconds.
  const choose = (next: ColumnVisibilityState) => {
    const before = visibility;
    keep(next);
    offerUndo(t('lists.columnsChanged'), () => keep(before), false);
  };
  return [visibility, choose] as const;
}

interface ListTableOptions<R extends RowData> {
  id: string;
  context: ContextName;
  columns: Column<R>[];
  data: R[];
  rowKey: (row: R) => string;
  sort: Sort;
  onSort: (sort: Sort) => void;
  /** Changes when the question changes (filters, page): the checked rows are cleared then. */
  resetKey: string;
}

/** The table model of a list: sorting from the URL, column choice, checked rows (published for bulk commands). */
export function useListTable<R extends RowData>(o: ListTableOptions<R>) {
  const { columns, data, rowKey, context } = o;
  const sorting: SortingState = useMemo(() => (o.sort ? [o.sort] : []), [o.sort]);
  const [visibility, setVisibility] = useColumnVisibility(o.id, columns);
  const [selection, setSelection] = useState<RowSelectionState>({});

  const columnDefs = useMemo<ColumnDef<Features, R>[]>(
    () =>
      columns.map((c) => ({
        id: c.id,
        accessorFn: (row: R) => c.value(row),
        header: c.header,
        enableSorting: c.sortable ?? false,
        sortFn: 'alphanumeric',
      })) as ColumnDef<Features, R>[],
    [columns],
  );

  const table = useTable<Features, R>({
    features,
    columns: columnDefs,
    data,
    getRowId: (row: R) => rowKey(row),
    state: { sorting, columnVisibility: visibility, rowSelection: selection },
    onSortingChange: (updater) => o.onSort((typeof updater === 'function' ? updater(sorting) : updater)[0]),
    onColumnVisibilityChange: (updater) =>
      setVisibility(typeof updater === 'function' ? updater(visibility) : updater),
    onRowSelectionChange: (updater) =>
      setSelection((s) => (typeof updater === 'function' ? updater(s) : updater)),
    enableRowSelection: true,
  });

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the question changes, by design
  useEffect(() => setSelection({}), [o.resetKey]);

  // Bulk commands read the checked rows of the list on screen (rowKey is read, not watched: screens
  // pass a new function on every render).
  const keyOfRow = useRef(rowKey);
  keyOfRow.current = rowKey;
  useEffect(() => {
    const checked = data.filter((row) => selection[keyOfRow.current(row)]);
    $selection.set({ context, rows: checked });
  }, [selection, data, context]);
  useEffect(() => () => $selection.set(null), []);

  const byId = useMemo(() => new Map(columns.map((c) => [c.id, c])), [columns]);
  return { table, byId, selectedCount: Object.keys(selection).length };
}

/**
 * The grid of the rows: the check box, the visible columns' tracks, the menu. Every row is its own
 * grid, so the table gets one width: the tracks' minimums, or the whole view.
 */
export function gridOf<R extends RowData>(visible: TableColumn<Features, R>[], byId: Map<string, Column<R>>) {
  const tracks = visible.map((c) => byId.get(c.id)?.width ?? 'minmax(100px, 1fr)');
  return {
    template: `34px ${tracks.join(' ')} 44px`,
    minWidth: tracks.reduce((sum, track) => sum + Number(/(\d+)px/.exec(track)?.[1] ?? 100), 34 + 44),
  };
}
