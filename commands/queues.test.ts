import { describe, expect, it } from 'vitest';
import { dashboardQueues } from '../contract/endpoints/dashboard.ts';
import { endpoints } from '../contract/index.ts';
import en from '../locales/en.json' with { type: 'json' };
import zh from '../locales/zh_CN.json' with { type: 'json' };
import { type SearchContext, searchProviders } from './index.ts';
import { queueEntries, queueLabel, queueWordsKey } from './queues.ts';

type Tree = { [key: string]: string | Tree };

/** The locale's text for a key, `{{n}}` filled in, as the console's `t` does. */
const translator =
  (tree: Tree) =>
  (key: string, params: Record<string, unknown> = {}) => {
    let node: string | Tree | undefined = tree;
    for (const part of key.split('.')) node = typeof node === 'object' ? node[part] : undefined;
    if (typeof node !== 'string') throw new Error(`no text for ${key}`);
    return node.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(params[name]));
  };

const counts = Object.fromEntries(Object.keys(dashboardQueues).map((k, i) => [k, i + 1])) as Record<
  string,
  number | null
>;

describe('the dashboard queues in the palette', () => {
  const provider = searchProviders.find((p) => p.id === 'queue')!;
  const run = async (
    query: string,
    tree: Tree = en,
    answer = counts,
    userKind: 'platform' | 'merchant' = 'platform',
  ) => {
    const asked: unknown[] = [];
    const c = {
      call: async (endpoint: unknown, input: unknown) => {
        asked.push([endpoint, input]);
        return answer;
      },
      t: translator(tree),
      thousands: (v: string | number) => String(v),
      lookback: { from: '', to: '' },
      userKind,
    } as unknown as SearchContext;
    return { hits: await provider.search(query, c), asked };
  };

  it('are the contract’s queues, in its order, each with a label and search words in both languages', () => {
    expect(queueEntries.map((q) => q.key)).toEqual(Object.keys(dashboardQueues));
    for (const q of queueEntries) {
      for (const tree of [en, zh]) {
        expect(translator(tree)(queueLabel(q, 'platform'))).not.toBe('');
        expect(translator(tree)(queueLabel(q, 'merchant'))).not.toBe('');
        expect(translator(tree)(queueWordsKey(q))).not.toBe('');
      }
    }
  });

  it('link into the list filtered to exactly the states the server counts', () => {
    for (const q of queueEntries) {
      const url = new URL(q.href, 'http://console');
      const statuses = url.searchParams.getAll('status');
      // The approvals list and the exception queue show exactly their queue with no status chosen.
      if (q.key === 'approvalsPending' || q.key === 'statementExceptions')
        expect(statuses, q.key).toEqual([]);
      else if (q.key !== 'callbacksGaveUp')
        expect(statuses.sort(), q.key).toEqual([...dashboardQueues[q.key].states].sort());
    }
  });

  it('offers the queue a query names with its live count, and its filtered list', async () => {
    const { hits, asked } = await run('exceptions');
    expect(asked).toEqual([[endpoints.dashboard.queues, {}]]);
    expect(hits).toEqual([
      expect.objectContaining({
        id: 'queue:statementExceptions',
        title: 'Statement exceptions',
        detail: `${counts.statementExceptions} waiting`,
        route: '/receiving/exceptions',
      }),
    ]);
    expect((await run('approvals waiting')).hits.map((h) => h.id)).toEqual(['queue:approvalsPending']);
    expect((await run('settlements to confirm')).hits.map((h) => [h.id, h.route])).toEqual([
      ['queue:settlementsToConfirm', '/settlementquery?status=to_be_confirmed'],
    ]);
  });

  it('finds them by the Chinese words too', async () => {
    expect((await run('待审批', zh)).hits.map((h) => h.id)).toEqual(['queue:approvalsPending']);
    expect((await run('异常', zh)).hits.map((h) => h.id)).toEqual(['queue:statementExceptions']);
    const confirm = await run('待确认结算', zh);
    expect(confirm.hits.map((h) => [h.title, h.detail])).toEqual([
      ['待确认的结算', `${counts.settlementsToConfirm} 条待处理`],
    ]);
  });

  it('asks nothing for a query that names no queue, and leaves out a queue the caller may not see', async () => {
    expect((await run('masala')).asked).toEqual([]);
    const hidden = await run('exceptions', en, { ...counts, statementExceptions: null });
    expect(hidden.hits).toEqual([]);
  });

  it('names a queue as a merchant reads it', async () => {
    const { hits } = await run('recharges', en, counts, 'merchant');
    expect(hits.map((h) => h.title)).toEqual(['Recharges awaiting confirmation']);
  });
});
