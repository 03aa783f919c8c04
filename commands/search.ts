import type { Endpoint, Input, Output } from '../contract/index.ts';
import { endpoints } from '../contract/index.ts';
import type { IconName } from './types.ts';

/** A live result in the palette: where choosing it goes. */
export interface SearchHit {
  /** Unique across providers: `<provider>:<key>`. */
  id: string;
  title: string;
  detail?: string;
  icon?: IconName;
  route: string;
}

export type SearchCall = <E extends Endpoint>(
  endpoint: E,
  input: Input<E>,
  signal: AbortSignal,
) => Promise<Output<E>>;

/**
 * A source of palette results (orders, merchants, … in later areas). It runs only when the user
 * may call one of `needs` and the query has at least `minLength` characters.
 */
export interface SearchProvider {
  id: string;
  needs: readonly Endpoint[];
  minLength: number;
  search(query: string, call: SearchCall, signal: AbortSignal): Promise<SearchHit[]>;
}

export const searchProviders: readonly SearchProvider[] = [
  {
    id: 'admin',
    needs: [endpoints.admin.list],
    minLength: 2,
    async search(query, call, signal) {
      const page = await call(endpoints.admin.list, { username: query, pageSize: 5 }, signal);
      return page.list.map((u) => ({
        id: `admin:${u.id}`,
        title: u.username,
        detail: u.nickname,
        icon: 'user',
        route: `/admin?username=${encodeURIComponent(u.username)}`,
      }));
    },
  },
];
