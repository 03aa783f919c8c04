import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'wouter';
import { endpoints, type Output } from '../../../contract/index.ts';
import { settlement } from '../../../contract/machines.ts';
import { useT } from '../../lib/useT.ts';
import { type Column, DataTable, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { useDrawerParam } from '../../ui/drawerParam.ts';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { TotalsBar } from '../../ui/TotalsBar.tsx';
import { Page } from '../Page.tsx';
import { ageText, money, type Settlement, settlementColumns, type Wallet } from './parts.tsx';
import { SettlementDrawer } from './SettlementDrawer.tsx';
import './settlement.css';

type Answer = Output<typeof endpoints.settlementQuery.list>;
type Queued = Answer['list'][number];

/** Waiting longer than this is painted as late. */
const lateSeconds = 4 * 3600;

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
      {
        id: 'age',
        header: 'screens.settlement.age.header',
        value: (r) => (r as Queued).ageSeconds,
        cell: (r) => {
          const age = (r as Queued).ageSeconds;
          return <span className={`num${age >= lateSeconds ? ' settlement-late' : ''}`}>{ageText(age)}</span>;
        },
        width: '128px',
        sortable: true,
      },
      ...settlementColumns({ platform: true, wallet: true }),
    ],
    [],
  );
  const filters: Filter[] = [
    statusFilter(t, settlement, { label: t('screens.settlement.status'), states: settlement.sets.open }),
  ];
  const toInput = useCallback((f: Record<string, string>) => ({ status: f.status }), []);

  // The drawer names its wallet (both wallets' applications are here, each read through its own
  // endpoints); a link with the number alone leaves the drawer to find it.
  const statusChosen = params.get('status');
  const drawer = useDrawerParam<Settlement>('settlement', (r) => r.settlementNo, { wallet: (r) => r.wallet });
  const walletParam = params.get('wallet');
  const wallet: Wallet | undefined =
    walletParam === 'payout' || walletParam === 'collection' ? walletParam : undefined;
  const title = t('commands.settlementQuery.list.title');

  return (
    <Page title={title}>
      <DataTable
        id="settlement-queue"
        label={title}
        endpoint={endpoints.settlementQuery.list}
        context="settlement"
        columns={columns}
        filters={filters}
        toInput={toInput}
        input={{ merchantId }}
        paging="cursor"
        live
        rowKey={(r) => r.settlementNo}
        detailTitle={(r) => r.settlementNo}
        onOpen={drawer.open}
        openRecord={drawer.record}
        countOf={(a) => {
          // The summary counts every open application; the footer counts the rows the filter keeps.
          const { toConfirm, toComplete } = (a as Answer).summary;
          if (statusChosen === settlement.state.to_be_confirmed) return toConfirm.count;
          if (statusChosen === settlement.state.confirmed) return toComplete.count;
          return toConfirm.count + toComplete.count;
        }}
        toolbarStart={<MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />}
        summary={(a) => <QueueSummary answer={a as Answer | undefined} />}
      />
      {drawer.value && (
        <SettlementDrawer
          wallet={wallet}
          settlementNo={drawer.value}
          onClose={drawer.close}
          onShown={drawer.setShown}
        />
      )}
    </Page>
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
