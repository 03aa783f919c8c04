import type { Endpoint, Input, Output } from '../contract/index.ts';
import { endpoints } from '../contract/index.ts';
import { stateLabel } from '../contract/machine.ts';
import { payin, payout, settlement } from '../contract/machines.ts';
import { queueProvider } from './queues.ts';
import { settlementWallets } from './settlement.ts';
import type { ContextName, Contexts, IconName, RunContext, UserKind } from './types.ts';

/** A live result in the palette: where choosing it goes. */
export interface SearchHit {
  /** Unique across providers: `<provider>:<key>`. */
  id: string;
  title: string;
  detail?: string;
  /** Words it is also found by, ranked with its title (a queue's search words). */
  keywords?: string[];
  /** A queue of work waiting for a person, not a record: the palette shows it under its own heading. */
  queue?: boolean;
  icon?: IconName;
  route: string;
  /** The row found, as its list holds it: the palette offers its row actions on it (`freeze masala`). */
  record?: FoundRecord;
}

/** A row of one of the lists' contexts, found by a search. */
export type FoundRecord = { [K in ContextName]: { context: K; row: Contexts[K] } }[ContextName];

/** What the palette hands a provider for one search. */
export interface SearchContext {
  /** Calls an API endpoint; cancelled when a newer search supersedes this one. */
  call<E extends Endpoint>(endpoint: E, input: Input<E>): Promise<Output<E>>;
  t: RunContext['t'];
  /** A number with thousands separators, as the lists show amounts. */
  thousands(value: string | number): string;
  /** The order lists' whole window (`range=60d`: the last 60 days, today included), as the API takes it. */
  lookback: { from: string; to: string };
  /** Who searches: a platform user's open settlement opens over the real-time queue, where it is decided. */
  userKind: UserKind | null;
}

/**
 * A source of palette results (orders, merchants, … in later areas). It runs only when the user
 * may call one of `needs` and the query has at least `minLength` characters.
 */
export interface SearchProvider {
  id: string;
  needs: readonly Endpoint[];
  minLength: number;
  /**
   * Whether the query looks like what this provider finds (a name rather than a number): such providers
   * are asked first. On PGlite the server answers one request at a time, so the likely answer comes first.
   */
  likely?: (query: string) => boolean;
  search(query: string, c: SearchContext): Promise<SearchHit[]>;
}

/** What a pasted list of numbers is split on: whitespace, commas, semicolons (also the full-width ones). */
const separators = /[\s,;，；]+/;
/**
 * A word that could be one of an order's numbers (system, merchant, channel order id, UTR): the gateway's
 * own characters plus `/` and `#`, which channels' order ids and imported invoice numbers use.
 */
const orderWord = /^[A-Za-z0-9_.:/#-]{3,64}$/;

/** The numbers of a palette query: one word, or several pasted at once (at most 100, as the lists take). */
export function orderNumbersIn(query: string): string[] {
  const words = [...new Set(query.trim().split(separators).filter(Boolean))];
  return words.every((w) => orderWord.test(w)) ? words.slice(0, 100) : [];
}

const resultSize = 5;

/**
 * One order list as a provider: a single word searches every number of an order, whole or by prefix
 * (`q`); several words pasted at once match whole numbers (`nos`) and add a hit that opens the list
 * filtered by them. Choosing an order opens its drawer over its list (`?order=`).
 */
function orderProvider(kind: 'payin' | 'payout'): SearchProvider {
  const list = kind === 'payin' ? endpoints.merchantOrder.list : endpoints.merchantPayout.list;
  const route = kind === 'payin' ? '/order' : '/payout';
  return {
    id: kind,
    needs: [list],
    minLength: 3,
    async search(query, c) {
      const words = orderNumbersIn(query);
      if (words.length === 0) return [];
      const several = words.length > 1;
      const page = await c.call(list, {
        ...c.lookback,
        ...(several ? { nos: words } : { q: words[0] }),
        pageSize: resultSize,
      });
      const hits: SearchHit[] = page.list.map((o) => ({
        id: `${kind}:${o.orderNo}`,
        title: o.orderNo,
        // What tells two orders apart first; the kind last (the icon says it too).
        detail: [
          o.merchantOrderNo,
          c.thousands(o.amount),
          stateLabel(c.t, kind === 'payin' ? payin : payout, o.status),
          o.merchantCode,
          c.t(`screens.${kind === 'payin' ? 'order' : 'payout'}.kind`),
        ].join(' · '),
        icon: kind === 'payin' ? 'clipboard' : 'send',
        route: `${route}?range=60d&order=${encodeURIComponent(o.orderNo)}`,
        // The list is the kind's: its rows are that context's.
        record: { context: kind, row: o } as FoundRecord,
      }));
      if (several && page.list.length > 0) {
        const filter = new URLSearchParams({ range: '60d' });
        for (const w of words) filter.append('nos', w);
        hits.unshift({
          id: `${kind}:nos`,
          title: c.t(`screens.${kind === 'payin' ? 'order' : 'payout'}.pastedHit`, { n: words.length }),
          detail: c.t('screens.order.pastedFound', { n: page.total, capped: page.totalCapped ? '+' : '' }),
          icon: 'filter',
          route: `${route}?${filter}`,
        });
      }
      return hits;
    },
  };
}

/** A settlement number, whole or its beginning (one word: settlements are found one at a time). */
const settlementWord = /^[A-Za-z0-9_-]{3,64}$/;

/**
 * One wallet's settlements by number; choosing one opens its drawer. A platform user's open application
 * opens over the real-time queue (where confirm, complete and reject are at hand), any other over its
 * wallet's list.
 */
function settlementProvider(wallet: keyof typeof settlementWallets): SearchProvider {
  const { base, route } = settlementWallets[wallet];
  const list = endpoints[base].list;
  return {
    id: `settlement-${wallet}`,
    needs: [list],
    minLength: 3,
    async search(query, c) {
      const q = query.trim();
      if (!settlementWord.test(q)) return [];
      const page = await c.call(list, { ...c.lookback, q, pageSize: resultSize });
      return page.list.map((s) => {
        const queued = c.userKind === 'platform' && settlement.is('open', s.status);
        const where = queued
          ? `/settlementquery?wallet=${wallet}&settlement=${encodeURIComponent(s.settlementNo)}`
          : `${route}?range=60d&settlement=${encodeURIComponent(s.settlementNo)}`;
        return {
          id: `settlement-${wallet}:${s.settlementNo}`,
          title: s.settlementNo,
          detail: [
            `${c.thousands(s.amount)} ${s.currency}`,
            stateLabel(c.t, settlement, s.status),
            s.merchantCode,
            c.t(`screens.settlement.wallets.${wallet}`),
          ].join(' · '),
          icon: 'bank',
          route: where,
          record: { context: 'settlement', row: s },
        };
      });
    },
  };
}

/**
 * A set-up list searched by its `q` (a code, number or name: "Masala Mart" is one name, not two numbers),
 * its first five matches as records of its context, which the palette offers their row actions on.
 */
function namedProvider<K extends 'merchant' | 'receivingAccount'>(
  context: K,
  list: Endpoint,
  hit: (row: Contexts[K], c: SearchContext) => Omit<SearchHit, 'id' | 'record'>,
): SearchProvider {
  return {
    id: context,
    needs: [list],
    minLength: 2,
    // A name: words, or a word without a digit ("Masala Mart", "bharat").
    likely: (query) => /\s/.test(query.trim()) || !/\d/.test(query),
    async search(query, c) {
      const q = query.trim();
      if (orderNumbersIn(q).filter((w) => /\d/.test(w)).length > 1) return [];
      const page = (await c.call(list, { q, pageSize: resultSize } as never)) as { list: Contexts[K][] };
      return page.list.map((row) => ({
        id: `${context}:${(row as { id: number }).id}`,
        ...hit(row, c),
        record: { context, row } as FoundRecord,
      }));
    },
  };
}

export const searchProviders: readonly SearchProvider[] = [
  queueProvider,
  orderProvider('payin'),
  orderProvider('payout'),
  settlementProvider('collection'),
  settlementProvider('payout'),
  namedProvider('merchant', endpoints.merchant.list, (m, c) => ({
    title: `${m.code} · ${m.name}`,
    detail: c.t('screens.order.merchantHit', { id: m.id }),
    icon: 'users',
    route: `/merchant?q=${encodeURIComponent(m.code)}`,
  })),
  namedProvider('receivingAccount', endpoints.receivingAccount.list, (a, c) => ({
    // A receiving account by its number (whole or its last digits), bank or name: its list, filtered.
    title: `${a.bankName} · ${a.accountNumber}`,
    detail: `${a.accountName} · ${c.t(`commands.receivingAccount.${a.kind === 'public' ? 'public' : 'cards'}.title`)}`,
    icon: 'bank',
    route: `/receiving/${a.kind === 'public' ? 'public' : 'cards'}?q=${encodeURIComponent(a.accountNumber)}`,
  })),
  {
    id: 'admin',
    needs: [endpoints.admin.list],
    minLength: 2,
    async search(query, c) {
      const page = await c.call(endpoints.admin.list, { username: query, pageSize: 5 });
      return page.list.map((u) => ({
        id: `admin:${u.id}`,
        title: u.username,
        detail: u.nickname,
        icon: 'user',
        route: `/admin?username=${encodeURIComponent(u.username)}`,
        record: { context: 'admin', row: u },
      }));
    },
  },
];
