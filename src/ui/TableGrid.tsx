import type { Row, RowData, Column as TableColumn } from '@tanstack/react-table';
import type { Virtualizer } from '@tanstack/react-virtual';
import { ContextMenu } from 'radix-ui';
import { useState } from 'react';
import type { AnyAction } from '../../commands/index.ts';
import { useT } from '../lib/useT.ts';
import { keyCaps } from '../shell/keys.ts';
import { Icon } from './Icon.tsx';
import { type Column, cellOf, type Features } from './listTable.ts';
import { ActionItems, RowMenu } from './RowActions.tsx';

const rowHeightVar = 'var(--row-h)';

interface HeadProps<R extends RowData> {
  table: { getIsAllRowsSelected: () => boolean; toggleAllRowsSelected: (on: boolean) => void };
  visible: TableColumn<Features, R>[];
  byId: Map<string, Column<R>>;
}

/** The header row: check all, the visible columns (a button where the column sorts), the actions' column. */
export function TableHead<R extends RowData>({ table, visible, byId }: HeadProps<R>) {
  const t = useT();
  return (
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
        {visible.map((col) => {
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
  );
}

interface BodyProps<R extends RowData> {
  rows: Row<Features, R>[];
  visible: TableColumn<Features, R>[];
  byId: Map<string, Column<R>>;
  virtualizer: Virtualizer<HTMLDivElement, Element>;
  focused: number;
  setFocused: (index: number) => void;
  fresh: ReadonlySet<string>;
  /** What stands in the one row of an empty list (loading, nothing found, the screen's reason). */
  emptyText: string;
  open: (row: R) => void;
  rowActions: (row: R) => AnyAction[];
}

/**
 * A cell its column's width cuts short (an ellipsis) says its whole text on hover; one that fits says
 * nothing more. Read when the pointer arrives, so a live refresh or a wider column is taken into account.
 */
function titleWhenCut(e: React.MouseEvent<HTMLElement>): void {
  const cell = e.currentTarget;
  if (cell.scrollWidth > cell.clientWidth) cell.title = cell.textContent ?? '';
  else cell.removeAttribute('title');
}

/** The rows on screen (virtualised), with the right-click menu of the row under the pointer. */
export function TableBody<R extends RowData>(p: BodyProps<R>) {
  const t = useT();
  const [menuRow, setMenuRow] = useState<R | null>(null);
  const { rows, virtualizer } = p;
  return (
    <ContextMenu.Root onOpenChange={(open) => !open && setMenuRow(null)}>
      <ContextMenu.Trigger asChild disabled={rows.length === 0}>
        <tbody className="dt-body" style={{ height: rows.length ? virtualizer.getTotalSize() : undefined }}>
          {rows.length === 0 ? (
            <tr className="dt-empty">
              <td>{p.emptyText}</td>
            </tr>
          ) : (
            virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index];
              if (!row) return null;
              return (
                <TableRow
                  key={row.id}
                  row={row}
                  index={item.index}
                  start={item.start}
                  body={p}
                  onMenu={() => {
                    p.setFocused(item.index);
                    setMenuRow(row.original);
                  }}
                />
              );
            })
          )}
        </tbody>
      </ContextMenu.Trigger>
      <ContextMenu.Portal>
        <ContextMenu.Content className="menu-popup">
          {menuRow && (
            <>
              <ContextMenu.Item className="menu-popup-item" onSelect={() => p.open(menuRow)}>
                <Icon name="list" size={14} />
                {t('table.details')}
                <kbd className="menu-kbd">{keyCaps('Enter')}</kbd>
              </ContextMenu.Item>
              <ActionItems Item={ContextMenu.Item} actions={p.rowActions(menuRow)} target={menuRow} />
            </>
          )}
        </ContextMenu.Content>
      </ContextMenu.Portal>
    </ContextMenu.Root>
  );
}

function TableRow<R extends RowData>({
  row,
  index,
  start,
  body,
  onMenu,
}: {
  row: Row<Features, R>;
  index: number;
  start: number;
  body: BodyProps<R>;
  onMenu: () => void;
}) {
  const t = useT();
  const original = row.original;
  const isFocused = index === body.focused;
  const isFresh = body.fresh.has(row.id);
  const selected = row.getIsSelected();
  return (
    // Keys reach the row through the one keyboard dispatcher (j/k, Enter, x, row actions).
    <tr
      data-index={index}
      aria-rowindex={index + 2}
      aria-selected={selected}
      tabIndex={isFocused || (body.focused < 0 && index === 0) ? 0 : -1}
      data-fresh={isFresh || undefined}
      className={`dt-row${isFocused ? ' focused' : ''}${selected ? ' selected' : ''}${isFresh ? ' fresh' : ''}`}
      style={{ transform: `translateY(${start}px)`, height: rowHeightVar }}
      onFocus={() => body.setFocused(index)}
      onClick={() => body.setFocused(index)}
      onDoubleClick={() => body.open(original)}
      onContextMenu={onMenu}
    >
      <td className="dt-check">
        <input
          type="checkbox"
          tabIndex={-1}
          aria-label={t('table.selectRow')}
          checked={selected}
          onChange={row.getToggleSelectedHandler()}
        />
      </td>
      {body.visible.map((col) => (
        <td key={col.id} className="dt-cell" onMouseEnter={titleWhenCut}>
          {cellOf(body.byId.get(col.id), original)}
        </td>
      ))}
      <td className="dt-actions">
        <RowMenu
          actions={body.rowActions(original)}
          onOpenDetail={() => body.open(original)}
          target={original}
        />
      </td>
    </tr>
  );
}
