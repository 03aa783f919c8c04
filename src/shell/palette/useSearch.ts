import { keepPreviousData, useQueries } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { type SearchHit, searchProviders } from '../../../commands/index.ts';
import { allows } from '../../../contract/index.ts';
import { $grants } from '../../lib/session.ts';
import { searchContext } from '../runtime.ts';

/**
 * Typing waits this long for the next key (a stale request is cancelled anyway, so this only saves
 * requests during a burst); a paste or a cleared input searches at once. PERFORMANCE.md's target is
 * 100 ms from keystroke to painted results.
 */
const debounceMs = 30;

function useDebounced(value: string): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const jump = value === '' || Math.abs(value.length - debounced.length) > 1;
    if (jump) {
      setDebounced(value);
      return;
    }
    const timer = window.setTimeout(() => setDebounced(value), debounceMs);
    return () => window.clearTimeout(timer);
  }, [value, debounced]);
  return debounced;
}

/** A result with the search term that found it (the previous term's stay on screen while the next load). */
export interface PaletteHit extends SearchHit {
  term: string;
}

/**
 * Live results of the registered search providers: debounced, only while the palette is open and the
 * input is non-empty. Each provider is its own query, so its results show as soon as it answers (on
 * PGlite the server answers one request at a time); until then its previous results stay on screen.
 * `settled` is the term once every provider has answered it.
 */
export function usePaletteSearch(
  query: string,
  open: boolean,
): { hits: PaletteHit[]; loading: boolean; settled: string | undefined } {
  const term = useDebounced(query.trim());
  const allowed = searchProviders.filter((p) => allows($grants.get(), p.needs) && term.length >= p.minLength);
  // Those the query looks like theirs are asked first (their order is also the hits' order on a tie).
  const providers = [...allowed.filter((p) => p.likely?.(term)), ...allowed.filter((p) => !p.likely?.(term))];
  const results = useQueries({
    queries: providers.map((p) => ({
      queryKey: ['palette-search', p.id, term],
      enabled: open && term !== '',
      placeholderData: keepPreviousData,
      staleTime: 10_000,
      retry: false,
      queryFn: async ({ signal }: { signal: AbortSignal }): Promise<PaletteHit[]> => {
        try {
          const hits = await p.search(term, searchContext(signal));
          return hits.map((h) => ({ ...h, term }));
        } catch (err) {
          // A provider that fails shows nothing; a superseded one is cancelled, not empty.
          if (signal.aborted) throw err;
          return [];
        }
      },
    })),
  });
  const hits = term === '' ? [] : results.flatMap((r) => r.data ?? []);
  const done = results.every((r) => r.isSuccess && !r.isPlaceholderData && !r.isFetching);
  return {
    hits,
    loading: results.some((r) => r.isFetching),
    settled: term !== '' && providers.length > 0 && done ? term : undefined,
  };
}
