import { useMemo } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints, type Output } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { ExportButtons } from '../../ui/ExportButton.tsx';
import type { TotalItem } from '../../ui/TotalsBar.tsx';
import { Page } from '../Page.tsx';
import {
  amountTotal,
  countColumn,
  currencyColumn,
  dayColumn,
  moneyColumn,
  moneySeries,
  noFilters,
  periodTotal,
  ReportPeriodChooser,
  ReportSummary,
  useChannelFilter,
  useReportPeriod,
} from './ReportPeriod.tsx';
import { duration, percent, rateTone } from './report.ts';
import './stat.css';

type Row = Contexts['channelStatRow'];
type Answer = Output<typeof endpoints.statOrder.channel>;
type Figures = Answer['totals'][number];
type Day = Answer['series'][number];
type Translate = ReturnType<typeof useT>;

type Count = 'payinCreated' | 'payinPaid' | 'payoutCreated' | 'payoutSucceeded';
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

function columnsFor(t: Translate): Column<Row>[] {
  const count = (id: Count) => countColumn<Row, Count>(id, `reports.channel.${id}`);
  const money = (id: Amount, width?: string) =>
    moneyColumn<Row, Amount>(id, `reports.channel.${id}`, width, id === 'margin');
  const rate = (id: Rate): Column<Row> => ({
    id,
    header: `reports.channel.${id}`,
    value: (r) => r[id],
    cell: (r) => <RateCell rate={r[id]} />,
    width: 'minmax(124px, 0.6fr)',
    sortable: true,
  });
  return [
    dayColumn<Row>(),
    {
      id: 'channelName',
      header: 'reports.channel.name',
      value: (r) => r.channelName,
      cell: (r) => <span title={r.channelCode}>{r.channelName}</span>,
      width: 'minmax(170px, 1fr)',
      sortable: true,
    },
    count('payinCreated'),
    count('payinPaid'),
    rate('payinSuccessRate'),
    money('payinAmount'),
    {
      id: 'medianPaySeconds',
      header: 'reports.channel.medianPaySeconds',
      value: (r) => r.medianPaySeconds,
      cell: (r) => <span className="num">{duration(r.medianPaySeconds, t)}</span>,
      width: 'minmax(150px, 0.7fr)',
      sortable: true,
    },
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
    const ofCount = (paid: Count, created: Count, rate: Rate): TotalItem => ({
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
  const counted = (d: Figures | undefined, paid: Count, created: Count) =>
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
  const title = t('commands.statOrder.channelStats.title');
  return (
    <Page
      title={title}
      actions={
        <ExportButtons
          endpoint={endpoints.statOrder.channelExport}
          input={filterInput}
          filename="channel-statistics"
        />
      }
    >
      <p className="muted">{t('reports.channel.hint')}</p>
      <DataTable
        id="channelStats"
        label={title}
        endpoint={endpoints.statOrder.channel}
        context="channelStatRow"
        columns={columns}
        filters={filters}
        toInput={noFilters}
        input={filterInput}
        blockedText={range.error ? t(range.error) : undefined}
        paging="cursor"
        rowKey={(r) => `${r.day}|${r.channelId}|${r.currency}`}
        detailTitle={(r) => `${r.channelName} · ${r.day}`}
        toolbarStart={<ReportPeriodChooser range={range} />}
        countOf={(answer) => (answer as Answer).total}
        summary={(answer) => <Summary answer={answer as Answer | undefined} />}
      />
    </Page>
  );
}
