import { useStore } from '@nanostores/react';
import { useCallback, useMemo } from 'react';
import { settlementWallets } from '../../../commands/index.ts';
import { allows, endpoints, type Output } from '../../../contract/index.ts';
import { settlement } from '../../../contract/machines.ts';
import { formatTotal } from '../../lib/format.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { useDrawerParam } from '../../ui/drawerParam.ts';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { TimeRangeChooser, useTimeRange } from '../../ui/TimeRange.tsx';
import { TotalsBar } from '../../ui/TotalsBar.tsx';
import { reachesNow } from '../../ui/timeRange.ts';
import { TimeCell } from '../order/parts.tsx';
import { Page } from '../Page.tsx';
import { money, type Settlement, settlementColumns, useAvailable, type Wallet, walletApi } from './parts.tsx';
import { SettlementDrawer } from './SettlementDrawer.tsx';
import './settlement.css';

type Answer = Output<typeof endpoints.settlementPayment.list>;

/**
 * One wallet's settlement applications: the wallet's available balance, the period (at most the last 60
 * days), filters in the URL, totals of the filtered set, keyset pages and the application's drawer as
 * `?settlement=<number>`. A merchant user sees its own and applies; platform users see every merchant's
 * (or the one chosen).
 */
export function SettlementList({ wallet }: { wallet: Wallet }) {
  const t = useT();
  const api = walletApi(wallet);
  const { base } = settlementWallets[wallet];
  const grants = useStore($grants);
  const platform = grants?.kind === 'platform';
  const range = useTimeRange('7d');
  const [merchantId, setMerchantId] = useMerchantParam();
  const canBalance =
    allows(grants, [endpoints.merchantWallet.info]) && (!platform || merchantId !== undefined);
  const balance = useAvailable(wallet, platform ? merchantId : undefined, canBalance);

  const columns = useMemo<Column<Settlement>[]>(
    () => [
      {
        id: 'createdAt',
        header: 'screens.settlement.createdAt',
        value: (r) => r.createdAt,
        cell: (r) => <TimeCell value={r.createdAt} />,
        width: '160px',
        sortable: true,
      },
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

  const drawer = useDrawerParam<Settlement>('settlement', (r) => r.settlementNo);

  const live =
    range.period !== null && reachesNow({ from: new Date(range.period.from), to: new Date(range.period.to) });
  const title = t(`commands.${base}.list.title`);

  return (
    <Page title={title} actions={<CommandButton id={`${base}.create`} primary />}>
      {balance && (
        <p className="settlement-available" data-testid="settlement-available">
          <span className="muted">{t(`screens.settlement.available.${wallet}`)}</span>{' '}
          <strong className="money">{money(balance.available)}</strong>{' '}
          <span className="muted">{balance.currency}</span>
        </p>
      )}
      <DataTable
        id={`settlement-${wallet}`}
        label={title}
        endpoint={api.list}
        context="settlement"
        columns={columns}
        filters={filters}
        toInput={toInput}
        input={range.period ? { ...range.period, merchantId: platform ? merchantId : undefined } : null}
        blockedText={range.error ? t(range.error) : undefined}
        paging="cursor"
        live={live}
        rowKey={(r) => r.settlementNo}
        detailTitle={(r) => r.settlementNo}
        onOpen={drawer.open}
        openRecord={drawer.record}
        countOf={(a) => (a as Answer).totals.count}
        toolbarStart={
          <>
            <TimeRangeChooser range={range} />
            {platform && <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />}
          </>
        }
        summary={(a) => <Totals answer={a as Answer | undefined} />}
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
