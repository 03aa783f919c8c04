import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'wouter';
import { endpoints, type Output } from '../../../contract/index.ts';
import { settlement } from '../../../contract/machines.ts';
import { useT } from '../../lib/useT.ts';
import { type Column, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { TotalsBar } from '../../ui/TotalsBar.tsx';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { ageText, money, type Settlement, settlementColumns } from './parts.tsx';
import { useSettlementDrawer } from './SettlementDrawer.tsx';
import './settlement.css';

type Answer = Output<typeof endpoints.settlementQuery.list>;
type Queued = Answer['list'][number];

/** Waiting longer than this is painted as late. */
const lateSeconds = 4 * 3600;

const c = columnsOf<Settlement>('screens.settlement');

/**
 * The platform's real-time settlement queue: open applications of both wallets and every merchant,
 * oldest first, with how long each has waited; what waits to be confirmed and to be completed (count,
 * sum, oldest) above; confirm (c), complete (o) and reject (r) on the focused row or in the drawer. The
 * page re-reads itself every few seconds while it is at its top.
 */
export default function QueueScreen() {
  const t = useT();
  const [params] = useSearchParams();
  const [merchantId, setMerchantId] = useMerchantParam();
  const columns = useMemo<Column<Settlement>[]>(
    () => [
      c.of('age', (r) => (r as Queued).ageSeconds, {
        header: 'screens.settlement.age.header',
        cell: (r) => {
          const age = (r as Queued).ageSeconds;
          return <span className={`num${age >= lateSeconds ? ' settlement-late' : ''}`}>{ageText(age)}</span>;
        },
        width: '128px',
      }),
      ...settlementColumns({ platform: true, wallet: true }),
    ],
    [],
  );
  const filters: Filter[] = [
    statusFilter(t, settlement, { label: t('screens.settlement.status'), states: settlement.sets.open }),
  ];
  const toInput = useCallback((f: Record<string, string>) => ({ status: f.status }), []);

  const statusChosen = params.get('status');
  const opened = useSettlementDrawer('named');

  return (
    <ListScreen
      id="settlement-queue"
      endpoint={endpoints.settlementQuery.list}
      context="settlement"
      columns={columns}
      filters={filters}
      toInput={toInput}
      input={{ merchantId }}
      paging="cursor"
      live
      {...opened.table}
      countOf={(a) => {
        // The summary counts every open application; the footer counts the rows the filter keeps.
        const { toConfirm, toComplete } = (a as Answer).summary;
        if (statusChosen === settlement.state.to_be_confirmed) return toConfirm.count;
        if (statusChosen === settlement.state.confirmed) return toComplete.count;
        return toConfirm.count + toComplete.count;
      }}
      toolbarStart={<MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />}
      summary={(a) => <QueueSummary answer={a as Answer | undefined} />}
    >
      {opened.drawer}
    </ListScreen>
  );
}

/** What waits for each step: how many, what they hold, and how long the oldest has waited. */
function QueueSummary({ answer }: { answer: Answer | undefined }) {
  const t = useT();
  const step = (id: 'toConfirm' | 'toComplete') => {
    const s = answer?.summary[id];
    return {
      id,
      label: t(`screens.settlement.queue.${id}`),
      value: s ? (
        <span className="queue-step" data-testid={`queue-${id}`}>
          <span className="queue-count">{s.count}</span>
          <span className="muted">·</span>
          <span className="money">{money(s.amount)}</span>
          {s.oldestAgeSeconds !== null && (
            <>
              <span className="muted">·</span>
              <span className="muted">
                {t('screens.settlement.queue.oldest', { age: ageText(s.oldestAgeSeconds) })}
              </span>
            </>
          )}
        </span>
      ) : (
        '—'
      ),
    };
  };
  return (
    <TotalsBar label={t('screens.settlement.queue.label')} items={[step('toConfirm'), step('toComplete')]} />
  );
}
