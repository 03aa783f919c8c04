import { useStore } from '@nanostores/react';
import { useCallback, useMemo } from 'react';
import { allows, endpoints, type Output } from '../../../contract/index.ts';
import { settlement } from '../../../contract/machines.ts';
import { formatTotal } from '../../lib/format.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { type Column, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { TimeRangeChooser, useTimeRange } from '../../ui/TimeRange.tsx';
import { TotalsBar } from '../../ui/TotalsBar.tsx';
import { reachesNow } from '../../ui/timeRange.ts';
import { columnsOf } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import { TimeCell } from '../order/parts.tsx';
import { money, type Settlement, settlementColumns, useAvailable, type Wallet, walletApi } from './parts.tsx';
import { useSettlementDrawer } from './SettlementDrawer.tsx';
import './settlement.css';

type Answer = Output<typeof endpoints.settlementPayment.list>;

const c = columnsOf<Settlement>('screens.settlement');

/**
 * One wallet's settlement applications: the wallet's available balance, the period (at most the last 60
 * days), filters in the URL, totals of the filtered set, keyset pages and the application's drawer as
 * `?settlement=<number>`. A merchant user sees its own and applies; platform users see every merchant's
 * (or the one chosen).
 */
export function SettlementList({ wallet }: { wallet: Wallet }) {
  const t = useT();
  const api = walletApi(wallet);
  const grants = useStore($grants);
  const platform = grants?.kind === 'platform';
  const range = useTimeRange('7d');
  const [merchantId, setMerchantId] = useMerchantParam();
  const canBalance =
    allows(grants, [endpoints.merchantWallet.info]) && (!platform || merchantId !== undefined);
  const balance = useAvailable(wallet, platform ? merchantId : undefined, canBalance);

  const columns = useMemo<Column<Settlement>[]>(
    () => [
      c.time('createdAt', '160px', { cell: (r) => <TimeCell value={r.createdAt} /> }),
      ...settlementColumns({ platform, wallet: false }),
    ],
    [platform],
  );
  const filters: Filter[] = [
    {
      id: 'q',
      label: t('screens.settlement.search'),
      kind: 'text',
      placeholder: t('screens.settlement.searchPlaceholder'),
    },
    statusFilter(t, settlement, { label: t('screens.settlement.status') }),
    {
      id: 'type',
      label: t('screens.settlement.type'),
      kind: 'select',
      options: (['bank', 'usdt'] as const).map((v) => ({
        value: v,
        label: t(`screens.settlement.types.${v}`),
      })),
    },
  ];
  const toInput = useCallback(
    (f: Record<string, string>) => ({ q: f.q, status: f.status, type: f.type }),
    [],
  );

  const opened = useSettlementDrawer(wallet);

  const live =
    range.period !== null && reachesNow({ from: new Date(range.period.from), to: new Date(range.period.to) });
  return (
    <ListScreen
      id={`settlement-${wallet}`}
      endpoint={api.list}
      context="settlement"
      create
      above={
        balance && (
          <p className="settlement-available" data-testid="settlement-available">
            <span className="muted">{t(`screens.settlement.available.${wallet}`)}</span>{' '}
            <strong className="money">{money(balance.available)}</strong>{' '}
            <span className="muted">{balance.currency}</span>
          </p>
        )
      }
      columns={columns}
      filters={filters}
      toInput={toInput}
      input={range.period ? { ...range.period, merchantId: platform ? merchantId : undefined } : null}
      blockedText={range.error ? t(range.error) : undefined}
      paging="cursor"
      live={live}
      {...opened.table}
      countOf={(a) => (a as Answer).totals.count}
      toolbarStart={
        <>
          <TimeRangeChooser range={range} />
          {platform && <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />}
        </>
      }
      summary={(a) => <Totals answer={a as Answer | undefined} />}
    >
      {opened.drawer}
    </ListScreen>
  );
}

/** Count and sums of the filtered set, as the list answers them. */
function Totals({ answer }: { answer: Answer | undefined }) {
  const t = useT();
  const totals = answer?.totals;
  return (
    <TotalsBar
      label={t('screens.settlement.totalsLabel')}
      items={[
        {
          id: 'count',
          label: t('screens.settlement.count'),
          value: totals ? formatTotal(totals.count) : '—',
          tone: 'strong',
        },
        {
          id: 'amount',
          label: t('screens.settlement.totalAmount'),
          value: totals ? money(totals.amount) : '—',
        },
        {
          id: 'auditAmount',
          label: t('screens.settlement.totalAudit'),
          value: totals ? money(totals.auditAmount) : '—',
        },
        { id: 'fee', label: t('screens.settlement.totalFee'), value: totals ? money(totals.fee) : '—' },
      ]}
    />
  );
}
