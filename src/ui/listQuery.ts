import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useSearchParams } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import type { Endpoint } from '../../contract/index.ts';
import { api } from '../lib/api.ts';
import { t } from '../lib/i18n.ts';
import { offerUndo } from '../lib/undo.ts';
import type { Sort } from './listTable.ts';
import { useLiveInterval } from './live.ts';
import type { Filter } from './TableFilters.tsx';

export const pageSizes = [20, 50, 100];

interface ListAnswer<R> {
  list: R[];
  total?: number;
  totalCapped?: boolean;
  nextCursor: string | null;
}

type Paging = 'cursor' | 'page';

/** A new question (filter, page size) starts again on the first page. */
const firstPageOf = (out: URLSearchParams) => {
  out.delete('cursor');
  out.delete('page');
  return out;
};

/** The list's question as the URL keeps it: filters, several-valued filters, sort, page size and page. */
function useListParams(filters: Filter[]) {
  const [params, setParams] = useSearchParams();
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
  const sort: Sort = useMemo(
    () => (sortParam ? { id: sortParam.replace(/^-/, ''), desc: sortParam.startsWith('-') } : undefined),
    [sortParam],
  );
  const pageSize = pageSizes.includes(Number(params.get('size'))) ? Number(params.get('size')) : 20;
  const cursor = params.get('cursor') ?? undefined;
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  return { setParams, filterValues, manyValues, sort, pageSize, cursor, page };
}

/** A cleared filter's undo: the screen's address as it was (the person may have gone on meanwhile). */
function offerQuestionBack(before: URLSearchParams): void {
  const address = `${location.pathname}?${before.toString()}`;
  offerUndo(t('lists.filterCleared'), () => navigate(address, { replace: true }), false);
}

interface ListQueryOptions {
  endpoint: Endpoint;
  filters: Filter[];
  paging: Paging;
  toInput?: ((filters: Record<string, string>) => Record<string, unknown>) | undefined;
  /** The screen's own input; `null` holds the list back. */
  extra: Record<string, unknown> | null | undefined;
  /** Live refresh wanted, and the rows scrolled to the top (a live list re-reads only then). */
  live: boolean;
  atTop: boolean;
}

/**
 * A list's page from the server: the question read from the URL (and the screen's input), the answer,
 * and the moves that change the question (filters, sort, page size, next and previous page).
 */
export function useListQuery<R>(o: ListQueryOptions) {
  const { endpoint, paging, toInput, extra } = o;
  const { setParams, filterValues, manyValues, sort, pageSize, cursor, page } = useListParams(o.filters);
  // The cursors of the pages before this one, for Previous on a keyset list.
  const [cursorStack, setCursorStack] = useState<string[]>([]);
  const blocked = extra === null;
  const input = useMemo(() => {
    const base = toInput ? toInput(filterValues) : filterValues;
    return {
      ...base,
      ...manyValues,
      ...(extra ?? {}),
      pageSize,
      ...(paging === 'cursor' ? { cursor } : { page }),
    };
  }, [filterValues, manyValues, extra, pageSize, cursor, page, paging, toInput]);

  const firstPage = paging === 'cursor' ? cursor === undefined : page === 1;
  const liveInterval = useLiveInterval(o.live && !blocked && firstPage && o.atTop);
  const query = useQuery({
    queryKey: ['list', endpoint.id, input],
    queryFn: ({ signal }) => api(endpoint, input as never, { signal }) as Promise<ListAnswer<R>>,
    placeholderData: keepPreviousData,
    enabled: !blocked,
    refetchInterval: liveInterval,
  });

  /** A new question; one that drops a filter offers the old question back for a few seconds. */
  const restart = (change: (out: URLSearchParams) => void, drops = false) =>
    setParams(
      (p) => {
        const out = new URLSearchParams(p);
        change(out);
        setCursorStack([]);
        if (drops) offerQuestionBack(p);
        return firstPageOf(out);
      },
      { replace: true },
    );
  const setFilter = (id: string, value: string) =>
    restart((out) => (value ? out.set(id, value) : out.delete(id)), !value && !!filterValues[id]);
  /** Several values under one key; `clear` drops the single-valued filter they replace (a pasted list). */
  const setMany = (id: string, values: string[], clear?: string) =>
    restart(
      (out) => {
        out.delete(id);
        for (const v of values) out.append(id, v);
        if (clear) out.delete(clear);
      },
      values.length === 0 && !!manyValues[id]?.length,
    );
  const setPageSize = (size: string) =>
    setParams((p) => {
      const out = new URLSearchParams(p);
      out.set('size', size);
      setCursorStack([]);
      return firstPageOf(out);
    });
  const setSort = (next: Sort) =>
    setParams((p) => {
      const out = new URLSearchParams(p);
      if (next) out.set('sort', `${next.desc ? '-' : ''}${next.id}`);
      else out.delete('sort');
      return out;
    });

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

  return {
    query,
    blocked,
    input,
    liveInterval,
    filterValues,
    manyValues,
    sort,
    pageSize,
    setFilter,
    setMany,
    setPageSize,
    setSort,
    paging: {
      goNext,
      goPrevious,
      hasPrevious: paging === 'cursor' ? cursor !== undefined : page > 1,
      hasNext: paging === 'cursor' ? !!query.data?.nextCursor : page * pageSize < (query.data?.total ?? 0),
    },
  };
}
