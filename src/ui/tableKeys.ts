import type { Row, RowData } from '@tanstack/react-table';
import type { Virtualizer } from '@tanstack/react-virtual';
import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';
import type { ContextName } from '../../commands/index.ts';
import { registerTable } from '../shell/runtime.ts';
import type { Features } from './listTable.ts';

interface RowFocusOptions<R extends RowData> {
  context: ContextName;
  rows: Row<Features, R>[];
  virtualizer: Virtualizer<HTMLDivElement, Element>;
  scrollRef: RefObject<HTMLDivElement | null>;
  filterRef: RefObject<HTMLInputElement | null>;
  open: (row: R) => void;
  /** The record open in the screen's own drawer: the palette's row actions act on it while set. */
  openRecord: R | null | undefined;
  /** Changes when the question changes (filters, page): the focus starts again from the top then. */
  resetKey: string;
  /** The list has not answered yet: a move asked for now is made when its rows arrive. */
  waiting: boolean;
  /** Checks every row of the page, or clears them all when they all are. */
  toggleSelectPage: () => void;
}

/**
 * The focused row and the list's keys: j/k move, Enter opens, x checks, / goes to the filter. The
 * keys reach the list through the shell's one dispatcher, which reads the active table's handle.
 */
export function useRowFocus<R extends RowData>(o: RowFocusOptions<R>) {
  const { context, rows, virtualizer, scrollRef } = o;
  // The focused row is kept by key, so rows arriving above it (live refresh) do not move the focus.
  const [focusedKey, setFocusedKey] = useState<string | null>(null);
  const focused = focusedKey === null ? -1 : rows.findIndex((r) => r.id === focusedKey);
  const setFocused = useCallback((index: number) => setFocusedKey(rows[index]?.id ?? null), [rows]);
  const focusedRow = focused >= 0 ? rows[focused]?.original : undefined;

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the question changes, by design
  useEffect(() => setFocusedKey(null), [o.resetKey]);

  // Read by the keys' handle at the time of the key: rows painted are rows the keys reach, even before
  // the effects of the render that painted them have run (a key pressed in between found no rows).
  const now = {
    focused,
    focusedRow,
    rows,
    open: o.open,
    openRecord: o.openRecord,
    waiting: o.waiting,
    toggleSelectPage: o.toggleSelectPage,
  };
  const state = useRef(now);
  state.current = now;
  // A j typed while the list loads (straight after opening the screen) is kept, not lost: the row it
  // asked for takes the focus when the rows arrive, unless the person has gone elsewhere meanwhile.
  const ahead = useRef<number | null>(null);

  /** Focuses a row: asked for by a key, or (`handedOn`) by the list itself, which never takes the focus from elsewhere. */
  const focusRow = useCallback(
    (index: number, handedOn = false) => {
      const { rows, waiting } = state.current;
      if (rows.length === 0) {
        ahead.current = waiting ? index : null;
        return;
      }
      ahead.current = null;
      const next = Math.max(0, Math.min(rows.length - 1, index));
      setFocusedKey(rows[next]?.id ?? null);
      virtualizer.scrollToIndex(next, { align: 'auto' });
      requestAnimationFrame(() => {
        const list = scrollRef.current;
        if (!list || !mayTakeFocus(list, handedOn)) return;
        list.querySelector<HTMLElement>(`[data-index="${next}"]`)?.focus({ preventScroll: true });
      });
    },
    [virtualizer, scrollRef],
  );

  const filterRef = o.filterRef;

  useEffect(() => {
    if (ahead.current === null) return;
    if (rows.length === 0) {
      if (!o.waiting) ahead.current = null; // answered empty: nothing to move to
      return;
    }
    const index = ahead.current;
    ahead.current = null;
    const active = document.activeElement;
    if (!active || active === document.body || scrollRef.current?.contains(active)) focusRow(index, true);
  }, [rows, o.waiting, focusRow, scrollRef]);

  // A focused row that leaves the list (acted on in a queue, so no longer in it) hands the focus to the
  // row that took its place, so the next one is a key away; the page's focus moves with it only when it
  // was on the row or fell to the page (a dialog closing returns it to a row that is gone).
  // (Within one question: a new filter or page starts again from the top.)
  const last = useRef({ index: -1, question: o.resetKey });
  useEffect(() => {
    if (focused >= 0) {
      last.current = { index: focused, question: o.resetKey };
      return;
    }
    if (focusedKey === null || rows.length === 0 || last.current.index < 0) return;
    if (last.current.question !== o.resetKey) return;
    const next = Math.min(last.current.index, rows.length - 1);
    const active = document.activeElement;
    if (!active || active === document.body || scrollRef.current?.contains(active)) focusRow(next, true);
    else setFocusedKey(rows[next]?.id ?? null);
  }, [focused, focusedKey, rows, focusRow, scrollRef, o.resetKey]);

  useEffect(() => {
    const handle = {
      context,
      focused: () => state.current.openRecord ?? state.current.focusedRow,
      controls: {
        move: (delta: number) => focusRow(state.current.focused < 0 ? 0 : state.current.focused + delta),
        open: () => {
          if (state.current.focusedRow) state.current.open(state.current.focusedRow as R);
        },
        toggleSelectPage: () => state.current.toggleSelectPage(),
        toggleSelect: () => {
          const row = state.current.rows[state.current.focused];
          row?.toggleSelected();
        },
        focusFilter: () => filterRef.current?.focus(),
      },
    };
    return registerTable(handle, () => scrollRef.current);
  }, [context, focusRow, filterRef, scrollRef]);

  return { focused, setFocused, focusRow };
}

/**
 * Whether a row of `list` may take the page's focus now: never while a dialog, alert or menu is open (a
 * focus moved outside a dialog dismisses it: a queue's row handed on late, after the next dialog opened,
 * closed it and its typed reason went to the page as keys); a row the list hands on itself (`handedOn`)
 * only from nowhere or from this list's own parts (its rows, its filter), never from elsewhere.
 */
function mayTakeFocus(list: HTMLElement, handedOn: boolean): boolean {
  if (document.querySelector('[role="dialog"], [role="alertdialog"], [role="menu"]')) return false;
  if (!handedOn) return true;
  const active = document.activeElement;
  if (!active || active === document.body) return true;
  return (list.closest('.datatable') ?? list).contains(active);
}
