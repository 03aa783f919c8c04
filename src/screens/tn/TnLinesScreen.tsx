import { useStore } from '@nanostores/react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'wouter';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { tnLine } from '../../../contract/machines.ts';
import { api } from '../../lib/api.ts';
import { formatTime, thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { $user } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';
import { type Column, type Filter, statusFilter } from '../../ui/DataTable.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { type TotalItem, TotalsBar } from '../../ui/TotalsBar.tsx';
import { columnsOf, merchantColumn } from '../columns.tsx';
import { ListScreen } from '../ListScreen.tsx';
import '../wallet/wallet.css';

type Line = Contexts['tnLine'];

const lineTone: Record<Line['status'], Tone> = { pending: 'warn', released: 'ok' };

const c = columnsOf<Line>('screens.tn');
const amountWidth = 'minmax(110px, 0.8fr)';

function columnsFor(platform: boolean): Column<Line>[] {
  return [
    c.text('orderDay', '110px'),
    ...merchantColumn<Line>('screens.tn.merchant', platform),
    c.text('dueDay', '110px'),
    c.count('orders', '80px'),
    c.money('gross', amountWidth),
    c.money('fee', 'minmax(90px, 0.6fr)'),
    c.money('withheld', 'minmax(90px, 0.6fr)'),
    c.money('net', amountWidth),
    c.text('currency', '84px', { sortable: false }),
    c.text('status', '100px', {
      cell: (l) => <Badge tone={lineTone[l.status]}>{stateLabel(t, tnLine, l.status)}</Badge>,
    }),
    c.of('runId', (l) => l.runId, { width: '70px', sortable: false, hiddenByDefault: !platform }),
    c.time('releasedAt', '150px', {
      cell: (l) => (l.releasedAt ? formatTime(l.releasedAt, false) : null),
      sortable: false,
      hiddenByDefault: true,
    }),
  ];
}

/**
 * T+N settlement lines: what a T+N merchant's pending collection is made of, one line per order day,
 * pending until the run of its due day releases it to the available balance. Merchant users see their
 * own; platform users every merchant's or one chosen. Totals of the filtered set above the rows.
 */
export default function TnLinesScreen() {
  const t = useT();
  const user = useStore($user);
  const platform = user?.kind === 'platform';
  const [merchantId, setMerchantId] = useMerchantParam();
  const [params] = useSearchParams();
  const columns = useMemo(() => columnsFor(platform), [platform]);
  const filters: Filter[] = [
    statusFilter(t, tnLine, { label: t('screens.tn.status') }),
    { id: 'from', label: t('screens.tn.from'), kind: 'date', hint: t('screens.tn.periodHint') },
    { id: 'to', label: t('screens.tn.to'), kind: 'date' },
  ];
  const toInput = useCallback(
    (f: Record<string, string>) => ({
      status: f.status,
      from: f.from,
      to: f.to,
      merchantId: platform ? merchantId : undefined,
    }),
    [platform, merchantId],
  );
  // The same filters as the list, one row: the answer's totals and the order days it covers.
  const filtered: Record<string, string> = {};
  for (const k of ['status', 'from', 'to']) {
    const v = params.get(k);
    if (v) filtered[k] = v;
  }
  const sumsInput = { ...toInput(filtered), pageSize: 1 };
  const sums = useQuery({
    queryKey: ['totals', endpoints.merchantSettlementtn.list.id, sumsInput],
    queryFn: ({ signal }) => api(endpoints.merchantSettlementtn.list, sumsInput as never, { signal }),
    placeholderData: keepPreviousData,
  });
  const figures = sums.data;
  const items: TotalItem[] = [
    {
      id: 'period',
      label: t('screens.tn.period'),
      value: figures ? `${figures.from} – ${figures.to}` : '—',
    },
    {
      id: 'lines',
      label: t('screens.tn.lines'),
      value: figures ? thousands(figures.total) : '—',
      tone: 'strong',
    },
    ...(figures?.totals ?? []).flatMap((c) => [
      { id: `orders-${c.currency}`, label: t('screens.tn.orders'), value: thousands(c.orders) },
      {
        id: `gross-${c.currency}`,
        label: t('screens.tn.gross'),
        value: `${thousands(c.gross)} ${c.currency}`,
      },
      { id: `fee-${c.currency}`, label: t('screens.tn.fee'), value: `${thousands(c.fee)} ${c.currency}` },
      {
        id: `withheld-${c.currency}`,
        label: t('screens.tn.withheld'),
        value: `${thousands(c.withheld)} ${c.currency}`,
      },
      {
        id: `net-${c.currency}`,
        label: t('screens.tn.net'),
        value: `${thousands(c.net)} ${c.currency}`,
        tone: 'strong' as const,
      },
    ]),
  ];
  return (
    <ListScreen
      id={platform ? 'tnLinesPlatform' : 'tnLines'}
      endpoint={endpoints.merchantSettlementtn.list}
      context="tnLine"
      hint="screens.tn.linesHint"
      columns={columns}
      filters={filters}
      toInput={toInput}
      paging="cursor"
      detailTitle={(l) => t('screens.tn.lineTitle', { merchant: l.merchantCode, day: l.orderDay })}
      toolbarStart={platform && <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />}
      summary={
        <TotalsBar
          label={t('screens.tn.totals')}
          busy={sums.isFetching && sums.isPlaceholderData}
          items={items}
        />
      }
    />
  );
}
