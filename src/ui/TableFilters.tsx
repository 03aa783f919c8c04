import { DropdownMenu } from 'radix-ui';
import { useEffect, useId, useState } from 'react';
import { type AnyMachine, type StateOf, stateLabel } from '../../contract/machine.ts';
import { useT } from '../lib/useT.ts';
import { Icon } from './Icon.tsx';
import { MenuPopup, TickItem } from './menuItems.tsx';

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

/**
 * A filter by a machine's states (all of them, or the set given, in the machine's order), each named by
 * its label (`status.<machine>.<state>`). `also` adds choices that are no state (unmatched, say).
 */
export function statusFilter<M extends AnyMachine>(
  t: (key: string) => string,
  machine: M,
  o: {
    label: string;
    states?: readonly StateOf<M>[];
    kind?: 'select' | 'multi';
    placeholder?: string;
    also?: { value: string; label: string }[];
  },
): Filter {
  const states = o.states ?? (machine.states as readonly StateOf<M>[]);
  return {
    id: 'status',
    label: o.label,
    kind: o.kind ?? 'select',
    ...(o.placeholder ? { placeholder: o.placeholder } : {}),
    options: [...states.map((s) => ({ value: s, label: stateLabel(t, machine, s) })), ...(o.also ?? [])],
  };
}

/** At most this many values a pasted list keeps (the order lists take 100). */
const pasteLimit = 100;

/** Splits pasted text into distinct words: numbers one per line, or separated by spaces, commas, semicolons. */
export function splitPasted(text: string, limit = pasteLimit): string[] {
  return [...new Set(text.split(/[\s,;，；]+/).filter(Boolean))].slice(0, limit);
}

export function FilterInput({
  filter,
  value,
  onValue,
  onSubmit,
  inputRef,
  many,
  onMany,
}: {
  filter: Filter;
  value: string;
  onValue: (v: string) => void;
  /** Enter or ↓: the value is applied now and the list's results take the focus. */
  onSubmit?: ((v: string) => void) | undefined;
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
            if (e.key === 'Enter' || (e.key === 'ArrowDown' && onSubmit && filter.kind === 'text')) {
              e.preventDefault();
              onValue(draft);
              onSubmit?.(draft);
            }
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
export function MultiFilter({
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
        <MenuPopup align="start" sideOffset={4}>
          {options.map((o) => (
            <TickItem
              key={o.value}
              checked={values.includes(o.value)}
              onChecked={(on) => onValues(on ? [...values, o.value] : values.filter((v) => v !== o.value))}
            >
              {o.label}
            </TickItem>
          ))}
          {values.length > 0 && (
            <>
              <DropdownMenu.Separator className="menu-popup-separator" />
              <DropdownMenu.Item className="menu-popup-item" onSelect={() => onValues([])}>
                {t('lists.clearFilter')}
              </DropdownMenu.Item>
            </>
          )}
        </MenuPopup>
      </DropdownMenu.Root>
    </div>
  );
}
