import type { Endpoint } from '../contract/endpoint.ts';
import { type DashboardQueue, dashboardQueues } from '../contract/endpoints/dashboard.ts';
import { endpoints } from '../contract/index.ts';
import { payin, payout } from '../contract/machines.ts';
import type { SearchProvider } from './search.ts';
import type { IconName, UserKind } from './types.ts';

/** The list's filter to these states (`status=a&status=b`). */
const inStatus = (states: readonly string[]) => states.map((s) => `status=${s}`).join('&');
const statesOf = (key: DashboardQueue) => inStatus(dashboardQueues[key].states);

/** How the console shows one queue: the link a person follows, its icon, and for whom it reads otherwise. */
interface QueueView {
  /** The list filtered to exactly the rows the queue counts (the lists' URL filters). */
  href: string;
  icon: IconName;
  /** The same queue's rows in a second list: its link and label key. */
  also?: { href: string; label: string };
  /** The label's key for a merchant user, who waits for the platform here rather than works the queue. */
  merchantLabel?: string;
}

/** Where each of the dashboard's queues (`dashboardQueues`, counted by the server) is worked. */
const views: Record<DashboardQueue, QueueView> = {
  // The lists have no callback-state filter: final orders with an unpushed callback (those still being
  // retried show too).
  callbacksGaveUp: {
    href: `/order?range=60d&${inStatus(payin.sets.announced)}&pushStatus=unpushed`,
    icon: 'refresh',
    also: {
      href: `/payout?range=60d&${inStatus(payout.sets.announced)}&pushStatus=unpushed`,
      label: 'screens.dashboard.queueCallbacksPayouts',
    },
  },
  payoutsQueued: { href: `/payout?range=60d&${statesOf('payoutsQueued')}`, icon: 'send' },
  payoutsProcessing: { href: `/payout?range=60d&${statesOf('payoutsProcessing')}`, icon: 'send' },
  // Resolved by the platform: a merchant sees them waiting, as with its recharges.
  payoutsNeedReview: {
    href: `/payout?range=60d&${statesOf('payoutsNeedReview')}`,
    icon: 'eye',
    merchantLabel: 'payoutsInReview',
  },
  // A merchant's pending recharges wait for the platform, not for the merchant.
  rechargesPending: {
    href: `/merchantrechargelog?${statesOf('rechargesPending')}`,
    icon: 'wallet',
    merchantLabel: 'rechargesAwaiting',
  },
  settlementsToConfirm: { href: `/settlementquery?${statesOf('settlementsToConfirm')}`, icon: 'check' },
  settlementsToComplete: { href: `/settlementquery?${statesOf('settlementsToComplete')}`, icon: 'bank' },
  // The approvals list with no status chosen is the pending requests.
  approvalsPending: { href: '/approvals', icon: 'shield' },
  // The exception queue with no kind chosen is every open line.
  statementExceptions: { href: '/receiving/exceptions', icon: 'filter' },
  slipsToWithdraw: { href: `/withdrawalslip?${statesOf('slipsToWithdraw')}`, icon: 'clipboard' },
  // The dispute list puts the open cases first, the overdue first among them.
  disputesOpen: { href: `/dispute?${statesOf('disputesOpen')}`, icon: 'shield' },
  disputesOverdue: { href: `/dispute?${statesOf('disputesOverdue')}`, icon: 'zap' },
};

/** One queue as the dashboard's panel and the palette show it. */
export interface QueueEntry extends QueueView {
  key: DashboardQueue;
  /** Its list's endpoints: the server counts it only for a caller who may call one. */
  needs: readonly Endpoint[];
}

/** The queues in the panel's order: the contract's declaration with the console's view of each. */
export const queueEntries: readonly QueueEntry[] = (Object.keys(dashboardQueues) as DashboardQueue[]).map(
  (key) => ({ key, needs: dashboardQueues[key].needs, ...views[key] }),
);

/** A queue's label key, as the user reads it (a merchant waits for the platform's queues). */
export const queueLabel = (q: QueueEntry, kind: UserKind | null) =>
  `screens.dashboard.queue.${kind === 'merchant' && q.merchantLabel ? q.merchantLabel : q.key}`;

/** A queue's search words besides its label (both languages hold them: `screens.dashboard.queueWords`). */
export const queueWordsKey = (q: QueueEntry) => `screens.dashboard.queueWords.${q.key}`;

/** Whether every word typed appears in the text (anywhere: Chinese has no spaces between words). */
function matches(query: string, text: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = text.toLowerCase();
  return words.length > 0 && words.every((w) => haystack.includes(w));
}

/**
 * The queues in the palette: typing words of a queue's label or search words ("exceptions", "approvals
 * waiting", "待确认") offers it with its live count, and choosing it opens the same filtered list as
 * the dashboard's panel. Only a query that names a queue asks the server (one small count each).
 */
export const queueProvider: SearchProvider = {
  id: 'queue',
  needs: [endpoints.dashboard.queues],
  minLength: 2,
  async search(query, c) {
    const named = queueEntries
      .map((q) => {
        const title = c.t(queueLabel(q, c.userKind));
        const keywords = c
          .t(queueWordsKey(q))
          .split(',')
          .map((w) => w.trim())
          .filter(Boolean);
        return { q, title, keywords };
      })
      .filter((x) => matches(query, [x.title, ...x.keywords].join(' ')));
    if (named.length === 0) return [];
    const counts = await c.call(endpoints.dashboard.queues, {});
    return named.flatMap(({ q, title, keywords }) => {
      const n = counts[q.key];
      if (n === null) return [];
      return [
        {
          id: `queue:${q.key}`,
          title,
          detail: c.t('screens.dashboard.queueWaiting', { n: c.thousands(n) }),
          keywords,
          queue: true,
          icon: q.icon,
          route: q.href,
        },
      ];
    });
  },
};
