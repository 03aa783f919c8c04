import { useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints, type Output } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { type Translate, useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import type { Column } from '../../ui/DataTable.tsx';
import type { TotalItem } from '../../ui/TotalsBar.tsx';
import { columnsOf } from '../columns.tsx';
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
import { duration, type OrderCount, percent, rateTone } from './report.ts';
import './stat.css';

type Row = Contexts['channelStatRow'];
type Answer = Output<typeof endpoints.statOrder.channel>;
type Figures = Answer['totals'][number];
type Day = Answer['series'][number];

type Amount = 'payinAmount' | 'payoutAmount' | 'channelCost' | 'feeIncome' | 'margin';
type Rate = 'payinSuccessRate' | 'payoutSuccessRate';

/** A success rate painted as the dashboard paints it: what a person scans the column for. */
function RateCell({ rate }: { rate: number | null }) {
  return rate === null ? (
    <span className="muted">—</span>
  ) : (
    <Badge tone={rateTone(rate)}>{percent(rate)}</Badge>
  );
}

const c = columnsOf<Row>('reports.channel');

function columnsFor(t: Translate): Column<Row>[] {
  const count = (id: OrderCount) => countColumn<Row, OrderCount>(id, `reports.channel.${id}`);
  const money = (id: Amount, width?: string) =>
    moneyColumn<Row, Amount>(id, `reports.channel.${id}`, width, id === 'margin');
  const rate = (id: Rate) =>
    c.of(id, (r) => r[id], { cell: (r) => <RateCell rate={r[id]} />, width: 'minmax(124px, 0.6fr)' });
  return [
    dayColumn<Row>(),
    c.text('channelName', 'minmax(170px, 1fr)', {
      header: 'reports.channel.name',
      cell: (r) => <span title={r.channelCode}>{r.channelName}</span>,
    }),
    count('payinCreated'),
    count('payinPaid'),
    rate('payinSuccessRate'),
    money('payinAmount'),
    c.of('medianPaySeconds', (r) => r.medianPaySeconds, {
      cell: (r) => <span className="num">{duration(r.medianPaySeconds, t)}</span>,
      width: 'minmax(150px, 0.7fr)',
    }),
    count('payoutCreated'),
    count('payoutSucceeded'),
    rate('payoutSuccessRate'),
    money('payoutAmount'),
    money('channelCost', 'minmax(112px, 0.8fr)'),
    money('feeIncome', 'minmax(112px, 0.8fr)'),
    money('margin', 'minmax(112px, 0.8fr)'),
    currencyColumn<Row>(),
  ];
}

function totalsOf(answer: Answer | undefined, t: Translate): TotalItem[] {
  const items: TotalItem[] = [periodTotal(answer, t)];
  for (const c of answer?.totals ?? []) {
    const amount = (id: Amount, strong = false) =>
      amountTotal(c.currency, id, t(`reports.channel.${id}`), c[id], strong);
    const ofCount = (paid: OrderCount, created: OrderCount, rate: Rate): TotalItem => ({
      id: `${rate}-${c.currency}`,
      label: t(`reports.channel.${rate}`),
      value: `${percent(c[rate])} · ${t('reports.ofCount', { n: thousands(c[paid]), of: thousands(c[created]) })}`,
    });
    items.push(
      ofCount('payinPaid', 'payinCreated', 'payinSuccessRate'),
      amount('payinAmount', true),
      {
        id: `median-${c.currency}`,
        label: t('reports.channel.medianPaySeconds'),
        value: duration(c.medianPaySeconds, t),
      },
      ofCount('payoutSucceeded', 'payoutCreated', 'payoutSuccessRate'),
      amount('payoutAmount', true),
      amount('channelCost'),
      amount('feeIncome'),
      amount('margin', true),
    );
  }
  return items;
}

const ratePoints = (rate: number | null | undefined) =>
  rate === null || rate === undefined ? 0 : rate * 100;

function Summary({ answer }: { answer: Answer | undefined }) {
  const t = useT();
  const counted = (d: Figures | undefined, paid: OrderCount, created: OrderCount) =>
    t('reports.ofCount', { n: thousands(d?.[paid] ?? 0), of: thousands(d?.[created] ?? 0) });
  return (
    <ReportSummary
      answer={answer}
      items={totalsOf(answer, t)}
      charts={[
        {
          id: 'rate',
          title: t('reports.channel.rateChart'),
          series: [
            {
              name: t('reports.channel.payinSuccessRate'),
              color: 'var(--report-d)',
              value: (d) => ratePoints(d?.payinSuccessRate),
              display: (d) =>
                `${percent(d?.payinSuccessRate ?? null)} · ${counted(d, 'payinPaid', 'payinCreated')}`,
            },
            {
              name: t('reports.channel.payoutSuccessRate'),
              color: 'var(--report-b)',
              value: (d) => ratePoints(d?.payoutSuccessRate),
              display: (d) =>
                `${percent(d?.payoutSuccessRate ?? null)} · ${counted(d, 'payoutSucceeded', 'payoutCreated')}`,
            },
          ],
        },
        {
          id: 'volume',
          money: true,
          title: t('reports.channel.volumeChart'),
          series: [
            moneySeries<Day>(t('reports.channel.payinAmount'), 'var(--report-a)', (d) => d?.payinAmount),
            moneySeries<Day>(t('reports.channel.payoutAmount'), 'var(--report-c)', (d) => d?.payoutAmount),
          ],
        },
      ]}
    />
  );
}

/**
 * Channel statistics (platform): per channel and business day of creation, the pay-ins' volume, success
 * rate and median time to pay, the payouts' volume and success, the channel's cost, the platform's fee
 * income and the margin; the period's totals and daily charts (success rate, volume) above the rows.
 */
export default function ChannelStatScreen() {
  const t = useT();
  const range = useReportPeriod();
  const { channelId, filters } = useChannelFilter(true, t('reports.channel.name'));
  const columns = useMemo(() => columnsFor(t), [t]);
  const filterInput = range.period ? { ...range.period, channelId } : null;
  return (
    <ReportScreen
      id="channelStats"
      endpoint={endpoints.statOrder.channel}
      context="channelStatRow"
      command="statOrder.channelStats"
      range={range}
      hint="reports.channel.hint"
      exporter={endpoints.statOrder.channelExport}
      exportInput={filterInput}
      exportName="channel-statistics"
      columns={columns}
      filters={filters}
      input={filterInput}
      rowKey={(r) => `${r.day}|${r.channelId}|${r.currency}`}
      detailTitle={(r) => `${r.channelName} · ${r.day}`}
      summary={(answer) => <Summary answer={answer as Answer | undefined} />}
    />
  );
}
