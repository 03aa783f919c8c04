import { useQuery } from '@tanstack/react-query';
import type { Endpoint, Input, Output } from '../../contract/index.ts';
import { api } from '../lib/api.ts';

/** How many rows a select offers: the lists chosen from (channels, holders, roles, accounts) are short. */
const offered = 100;

/**
 * The rows a form, a filter or a picker offers to choose from: the first page of a list endpoint, cached
 * under the endpoint and its input, so screens that offer the same rows share one read.
 */
export function useChoices<E extends Endpoint>(
  endpoint: E,
  input: Omit<Input<E>, 'pageSize'>,
  options: { enabled?: boolean; staleTime?: number } = {},
) {
  return useQuery<Output<E>>({
    queryKey: ['choices', endpoint.id, input],
    queryFn: ({ signal }) => api(endpoint, { ...input, pageSize: offered } as Input<E>, { signal }),
    ...options,
  });
}
