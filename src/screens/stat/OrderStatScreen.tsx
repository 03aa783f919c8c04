import { useStore } from '@nanostores/react';
import { useMemo } from 'react';
import { useSearchParams } from 'wouter';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints, type Output } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { $grants } from '../../lib/session.ts';
import { type Translate, useT } from '../../lib/useT.ts';
import type { Column } from '../../ui/DataTable.tsx';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import type { TotalItem } from '../../ui/TotalsBar.tsx';
import { columnsOf, merchantColumn } from '../columns.tsx';
import {
  amountTotal,
  countColumn,
  currencyColumn,
  dayColumn,
  moneyColumn,
  moneySeries,
  periodTotal,
  ReportSummary,
  useChannelFilter,
  useReportPeriod,
} from './ReportPeriod.tsx';
import { ReportScreen } from './ReportScreen.tsx';
import { type OrderCount, percent } from './report.ts';
import './stat.css';

type Row = Contexts['orderStatRow'];
type Answer = Output<typeof endpoints.statOrder.list>;
type Figures = Answer['totals'][number];
type Day = Answer['series'][number];

type Amount = 'payinPaidAmount' | 'payinFee' | 'payinNet' | 'payoutAmount' | 'payoutFee';

const c = columnsOf<Row>('reports.order');

function columnsFor(platform: boolean, byChannel: boolean): Column<Row>[] {
  const count = (id: OrderCount) => countColumn<Row, OrderCount>(id, `reports.order.${id}`);
  const money = (id: Amount, width?: string) => moneyColumn<Row, Amount>(id, `reports.order.${id}`, width);
  return [
    dayColumn<Row>(),
    ...merchantColumn<Row>('reports.merchant', platform),
    ...(byChannel
      ? [
          c.text('channelName', 'minmax(140px, 0.8fr)', {
            header: 'reports.channelName',
            cell: (r) => r.channelName ?? <span className="muted">{'—'}</span>,
          }),
        ]
      : []),
    count('payinCreated'),
    count('payinPaid'),
    c.of('payinSuccessRate', (r) => r.payinSuccessRate, {
      cell: (r) => <span className="num">{percent(r.payinSuccessRate)}</span>,
      width: 'minmax(108px, 0.6fr)',
    }),
    money('payinPaidAmount'),
    money('payinFee', 'minmax(100px, 0.7fr)'),
    money('payinNet'),
    count('payoutCreated'),
    count('payoutSucceeded'),
    money('payoutAmount'),
    money('payoutFee', 'minmax(108px, 0.7fr)'),
    currencyColumn<Row>(),
  ];
}

/** The period's figures per currency, above the rows: the report's totals row. */
function totalsOf(answer: Answer | undefined, t: Translate): TotalItem[] {
  const items: TotalItem[] = [periodTotal(answer, t)];
  for (const c of answer?.totals ?? []) {
    const count = (id: OrderCount): TotalItem => ({
      id: `${id}-${c.currency}`,
      label: t(`reports.order.${id}`),
      value: thousands(c[id]),
    });
    const amount = (id: Amount, strong = false) =>
      amountTotal(c.currency, id, t(`reports.order.${id}`), c[id], strong);
    items.push(
      count('payinCreated'),
      count('payinPaid'),
      {
        id: `rate-${c.currency}`,
        label: t('reports.order.payinSuccessRate'),
        value: percent(c.payinSuccessRate),
      },
      amount('payinPaidAmount', true),
      amount('payinFee'),
      amount('payinNet', true),
      count('payoutCreated'),
      count('payoutSucceeded'),
      amount('payoutAmount', true),
      amount('payoutFee'),
    );
  }
  return items;
}

/** The totals and the daily charts, from the page's answer (the period's, whatever the page). */
function Summary({ answer }: { answer: Answer | undefined }) {
  const t = useT();
  const countText = (f: Figures | undefined, id: OrderCount) => thousands(f?.[id] ?? 0);
  return (
    <ReportSummary
      answer={answer}
      items={totalsOf(answer, t)}
      charts={[
        {
          id: 'amount',
          money: true,
          title: t('reports.order.amountChart'),
          series: [
            moneySeries<Day>(
              t('reports.order.payinPaidAmount'),
              'var(--report-a)',
              (d) => d?.payinPaidAmount,
            ),
            moneySeries<Day>(t('reports.order.payoutAmount'), 'var(--report-b)', (d) => d?.payoutAmount),
          ],
        },
        {
          id: 'count',
          title: t('reports.order.countChart'),
          series: [
            {
              name: t('reports.order.payinCreated'),
              color: 'var(--report-c)',
              value: (d) => d?.payinCreated ?? 0,
              display: (d) => countText(d, 'payinCreated'),
            },
            {
              name: t('reports.order.payinPaid'),
              color: 'var(--report-d)',
              value: (d) => d?.payinPaid ?? 0,
              display: (d) => `${countText(d, 'payinPaid')} · ${percent(d?.payinSuccessRate ?? null)}`,
            },
          ],
        },
      ]}
    />
  );
}

/**
 * Order statistics: per business day (of creation) and merchant, or per day, merchant and channel, the
 * pay-ins created and paid, success rate, gross, fees and net, and the payouts created, succeeded, their
 * amount and fees; the period's totals per currency and daily charts above the rows. A row opens the
 * pay-ins behind it (o, p). Merchant users see their own merchant, without channels.
 */
export default function OrderStatScreen() {
  const t = useT();
  const grants = useStore($grants);
  const platform = grants?.kind === 'platform';
  const range = useReportPeriod();
  const [merchantId, setMerchantId] = useMerchantParam();
  const [params, setParams] = useSearchParams();
  const byChannel = platform && params.get('byChannel') === '1';
  const { channelId, filters } = useChannelFilter(platform, t('reports.channelName'));
  const setByChannel = (on: boolean) =>
    setParams(
      (p) => {
        const out = new URLSearchParams(p);
        if (on) out.set('byChannel', '1');
        else out.delete('byChannel');
        out.delete('cursor');
        return out;
      },
      { replace: true },
    );

  const columns = useMemo(() => columnsFor(platform, byChannel), [platform, byChannel]);
  const filterInput = range.period
    ? {
        ...range.period,
        ...(platform ? { merchantId, channelId } : {}),
        ...(byChannel ? { byChannel: 'true' as const } : {}),
      }
    : null;
  return (
    <ReportScreen
      id={`orderStats-${platform ? 'platform' : 'merchant'}-${byChannel ? 'channel' : 'merchant'}`}
      endpoint={endpoints.statOrder.list}
      context="orderStatRow"
      command="statOrder.orderStats"
      range={range}
      hint="reports.order.hint"
      exporter={endpoints.statOrder.listExport}
      exportInput={filterInput}
      exportName="order-statistics"
      columns={columns}
      filters={filters}
      input={filterInput}
      rowKey={(r) => `${r.day}|${r.merchantId}|${r.channelId ?? ''}|${r.currency}`}
      detailTitle={(r) => [r.merchantCode, r.day, r.channelName].filter(Boolean).join(' · ')}
      toolbarStart={
        <>
          {platform && <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />}
          {platform && (
            <fieldset className="segmented report-switch" aria-label={t('reports.order.group')}>
              <button type="button" aria-pressed={!byChannel} onClick={() => setByChannel(false)}>
                {t('reports.order.byMerchant')}
              </button>
              <button type="button" aria-pressed={byChannel} onClick={() => setByChannel(true)}>
                {t('reports.order.byChannel')}
              </button>
            </fieldset>
          )}
        </>
      }
      summary={(answer) => <Summary answer={answer as Answer | undefined} />}
    />
  );
}
