import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { allows, type SearchHit, searchProviders } from '../../../commands/index.ts';
import { api } from '../../lib/api.ts';
import { $grants } from '../../lib/session.ts';

/**
 * Typing waits this long for the next key (a stale request is cancelled anyway, so this only saves
 * requests during a burst); a paste or a cleared input searches at once. PERFORMANCE.md's target is
 * 100 ms from keystroke to painted results.
 */
const debounceMs = 50;

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

/**
 * Live results of the registered search providers: debounced, only while the palette is open and
 * the input is non-empty, keeping the previous results on screen while the next ones load.
 */
export function usePaletteSearch(query: string, open: boolean): { hits: SearchHit[]; loading: boolean } {
  const term = useDebounced(query.trim());
  const providers = searchProviders.filter(
    (p) => allows($grants.get(), p.needs) && term.length >= p.minLength,
  );
  const result = useQuery({
    queryKey: ['palette-search', term, providers.map((p) => p.id)],
    enabled: open && term !== '' && providers.length > 0,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
    queryFn: async ({ signal }) => {
      const settled = await Promise.allSettled(
        providers.map((p) =>
          p.search(term, (e, input, s) => api(e, input, { signal: s, quiet: [403, 422] }), signal),
        ),
      );
      return settled.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
    },
  });
  const hits = term === '' ? [] : (result.data ?? []);
  return { hits, loading: result.isFetching };
}
