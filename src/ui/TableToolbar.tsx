import type { RowData, Column as TableColumn } from '@tanstack/react-table';
import { DropdownMenu } from 'radix-ui';
import type { ReactNode, RefObject } from 'react';
import { useT } from '../lib/useT.ts';
import { Icon } from './Icon.tsx';
import type { Column, Features } from './listTable.ts';
import { MenuPopup, TickItem } from './menuItems.tsx';
import { type Filter, FilterInput, MultiFilter } from './TableFilters.tsx';

interface ToolbarProps<R extends RowData> {
  start: ReactNode;
  filters: Filter[];
  filterValues: Record<string, string>;
  manyValues: Record<string, string[]>;
  setFilter: (id: string, value: string) => void;
  setMany: (id: string, values: string[], clear?: string) => void;
  /** Given to the first text filter: `/` puts the cursor there. */
  filterRef: RefObject<HTMLInputElement | null>;
  /** Enter or ↓ in a text filter: to the first row of what it finds. */
  toResults: (id: string, value: string) => void;
  selectedCount: number;
  end: ReactNode;
  columns: TableColumn<Features, R>[];
  byId: Map<string, Column<R>>;
}

/** Above the rows: the screen's start, the filters, the count of checked rows, the screen's buttons, the column chooser. */
export function TableToolbar<R extends RowData>(p: ToolbarProps<R>) {
  const t = useT();
  const firstTextFilter = p.filters.findIndex((f) => f.kind === 'text');
  return (
    <div className="datatable-toolbar no-print">
      {p.start}
      {p.filters.map((f, i) =>
        f.kind === 'multi' ? (
          <MultiFilter
            key={f.id}
            filter={f}
            values={p.manyValues[f.id] ?? []}
            onValues={(v) => p.setMany(f.id, v)}
          />
        ) : (
          <FilterInput
            key={f.id}
            filter={f}
            value={p.filterValues[f.id] ?? ''}
            onValue={(v) => p.setFilter(f.id, v)}
            onSubmit={(v) => p.toResults(f.id, v)}
            inputRef={i === firstTextFilter ? p.filterRef : undefined}
            many={f.pasteMany ? (p.manyValues[f.pasteMany] ?? []) : undefined}
            onMany={f.pasteMany ? (v) => p.setMany(f.pasteMany as string, v, f.id) : undefined}
          />
        ),
      )}
      <div className="toolbar-spacer" />
      {p.selectedCount > 0 && (
        <span className="selection-count">{t('table.selected', { n: p.selectedCount })}</span>
      )}
      {p.end}
      <ColumnChooser columns={p.columns} byId={p.byId} />
    </div>
  );
}

/** Which columns the list shows (remembered per list). */
function ColumnChooser<R extends RowData>({
  columns,
  byId,
}: {
  columns: TableColumn<Features, R>[];
  byId: Map<string, Column<R>>;
}) {
  const t = useT();
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger className="button" aria-label={t('table.columns')}>
        <Icon name="columns" />
        <span className="button-label">{t('table.columns')}</span>
      </DropdownMenu.Trigger>
      <MenuPopup align="end" sideOffset={6}>
        {columns.map((col) => (
          <TickItem
            key={col.id}
            checked={col.getIsVisible()}
            onChecked={(v) => col.toggleVisibility(v === true)}
          >
            {t(byId.get(col.id)?.header ?? col.id)}
          </TickItem>
        ))}
      </MenuPopup>
    </DropdownMenu.Root>
  );
}
