import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { Endpoint, Input, Output } from '../../contract/index.ts';
import { api } from '../lib/api.ts';
import './lists.css';

export interface TotalItem {
  id: string;
  /** Already translated. */
  label: string;
  value: ReactNode;
  /** Already translated; shown on hover (for example why a figure ends in "+"). */
  title?: string;
  tone?: 'default' | 'strong';
}

/**
 * The figures of a list's whole filtered set (count, amounts), above the table. `busy` dims the
 * figures while the next ones load, so stale numbers never pass for fresh ones.
 */
export function TotalsBar({ label, items, busy }: { label: string; items: TotalItem[]; busy?: boolean }) {
  return (
    <section className="totals-bar" aria-label={label} aria-busy={busy || undefined}>
      <dl>
        {items.map((item) => (
          <div key={item.id} className={`totals-item${item.tone === 'strong' ? ' strong' : ''}`}>
            <dt>{item.label}</dt>
            <dd title={item.title}>{item.value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/**
 * Fetches a totals endpoint for the same input as the list (null input: nothing to count yet).
 * `live` re-reads every so many milliseconds while the list itself refreshes live.
 */
export function useTotals<E extends Endpoint>(
  endpoint: E,
  input: Input<E> | null,
  options: { live?: number | false } = {},
) {
  return useQuery({
    queryKey: ['totals', endpoint.id, input],
    queryFn: ({ signal }) => api(endpoint, input as Input<E>, { signal }) as Promise<Output<E>>,
    enabled: input !== null,
    placeholderData: keepPreviousData,
    refetchInterval: options.live || false,
  });
}
