import { useStore } from '@nanostores/react';
import { useEffect, useMemo } from 'react';
import { useSearchParams } from 'wouter';
import { allows, endpoints } from '../../../contract/index.ts';
import { thousands } from '../../lib/format.ts';
import { $grants } from '../../lib/session.ts';
import { type Translate, useT } from '../../lib/useT.ts';
import { useChoices } from '../../ui/choices.ts';
import type { Column, Filter } from '../../ui/DataTable.tsx';
import { PeriodFields } from '../../ui/TimeRange.tsx';
import { type TotalItem, TotalsBar } from '../../ui/TotalsBar.tsx';
import { columnsOf } from '../columns.tsx';
import { Money } from '../wallet/money.tsx';
import { type DayChart, DayCharts } from './DayCharts.tsx';
import {
  $businessTimeZone,
  businessToday,
  type DayPeriod,
  type ReportChoice,
  type ReportPreset,
  readReportChoice,
  reportPresets,
  resolveReportPeriod,
  writeReportChoice,
} from './report.ts';
import '../../ui/lists.css';

/** Keeps the business time zone a report answered. */
export function learnTimeZone(answer: { businessTimeZone?: string } | undefined) {
  const zone = answer?.businessTimeZone;
  if (zone && zone !== $businessTimeZone.get()) $businessTimeZone.set(zone);
}

export interface ReportPeriod {
  choice: ReportChoice;
  /** The business days asked for, or null while the choice is not valid. */
  period: DayPeriod | null;
  /** Message key of what is wrong with the choice. */
  error: string | null;
  timeZone: string;
  set(choice: ReportChoice): void;
}

/** A report's period, kept in the URL (`range=30d`, or `from`/`to` business days); the last 7 days by default. */
export function useReportPeriod(): ReportPeriod {
  const [params, setParams] = useSearchParams();
  const timeZone = useStore($businessTimeZone);
  const choice = readReportChoice(params);
  const today = businessToday(timeZone);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the choice's fields, not its object, change the period
  const resolved = useMemo(
    () => resolveReportPeriod(choice, today),
    [choice.preset, choice.from, choice.to, today],
  );
  return {
    choice,
    period: resolved.period,
    error: resolved.error,
    timeZone,
    set: (next) => setParams((p) => writeReportChoice(p, next), { replace: true }),
  };
}

/** The period chooser of a report: presets, or two business days; the reason it is refused under it. */
export function ReportPeriodChooser({ range }: { range: ReportPeriod }) {
  const t = useT();
  const { choice } = range;
  const today = businessToday(range.timeZone);
  const choose = (value: string) => {
    if (value !== 'custom') range.set({ preset: value as ReportPreset, from: '', to: '' });
    // Custom starts from the days on screen, so only the end that changes needs touching.
    else range.set({ preset: 'custom', from: range.period?.from ?? today, to: range.period?.to ?? today });
  };
  return (
    <PeriodFields
      legend={t('reports.period')}
      legendTitle={t('reports.periodHint', { zone: range.timeZone })}
      label={t('reports.period')}
      presets={reportPresets}
      preset={choice.preset}
      onPreset={choose}
      from={{ label: t('reports.from'), value: choice.from }}
      to={{ label: t('reports.to'), value: choice.to }}
      max={today}
      onFrom={(from) => range.set({ ...choice, from })}
      onTo={(to) => range.set({ ...choice, to })}
      error={range.error}
    />
  );
}

/**
 * The channel filter of a platform report: drawn by the table and kept in the URL (`channelId`), offered
 * when the user may read the channel list; a merchant user's reports have none.
 */
export function useChannelFilter(
  platform: boolean,
  label: string,
): { channelId?: number; filters: Filter[] } {
  const grants = useStore($grants);
  const [params] = useSearchParams();
  const offered = platform && allows(grants, [endpoints.channel.list]);
  const channels = useChoices(endpoints.channel.list, {}, { enabled: offered, staleTime: 60_000 });
  const chosen = params.get('channelId');
  return {
    channelId: platform && chosen ? Number(chosen) : undefined,
    filters: offered
      ? [
          {
            id: 'channelId',
            label,
            kind: 'select',
            options: (channels.data?.list ?? []).map((c) => ({
              value: String(c.id),
              label: `${c.code} · ${c.name}`,
            })),
          },
        ]
      : [],
  };
}

/** The channel filter is drawn by the table and kept in the URL, but read into `input` with the rest. */
export const noFilters = () => ({});

/** A report's first column: the business day of the row. */
export function dayColumn<R extends { day: string }>(): Column<R> {
  return columnsOf<R>('reports').text('day', '100px');
}

/** A report's currency column, off by default (the amounts already name it). */
export function currencyColumn<R extends { currency: string }>(): Column<R> {
  return columnsOf<R>('reports').text('currency', '76px', { hiddenByDefault: true, sortable: false });
}

/** A report column of a count, right-aligned with thousands separators. */
export function countColumn<R extends Record<K, number>, K extends string & keyof R>(
  id: K,
  header: string,
): Column<R> {
  return columnsOf<R>('reports').count(id, 'minmax(92px, 0.6fr)', {
    header,
    cell: (r) => <span className="num">{thousands(r[id])}</span>,
  });
}

/** A report column of an amount (minor units as a decimal string); `signed` paints gains and losses. */
export function moneyColumn<R extends Record<K, string>, K extends string & keyof R>(
  id: K,
  header: string,
  width = 'minmax(120px, 1fr)',
  signed = false,
): Column<R> {
  return columnsOf<R>('reports').money(id, width, {
    header,
    cell: (r) => <Money value={r[id]} signed={signed} />,
  });
}

type PeriodAnswer = { from: string; to: string; businessTimeZone: string };

/** The totals' first item: the business days answered, the business time zone on hover. */
export function periodTotal(answer: PeriodAnswer | undefined, t: Translate): TotalItem {
  return {
    id: 'period',
    label: t('reports.period'),
    value: answer ? `${answer.from} – ${answer.to}` : '—',
    title: answer?.businessTimeZone,
  };
}

/** A currency's total amount, with its currency; `strong` for the figures a person reads first. */
export function amountTotal(
  currency: string,
  id: string,
  label: string,
  amount: string,
  strong = false,
): TotalItem {
  return {
    id: `${id}-${currency}`,
    label,
    value: `${thousands(amount)} ${currency}`,
    ...(strong ? { tone: 'strong' as const } : {}),
  };
}

/** A chart series of an amount per day (an empty day is nought). */
export function moneySeries<D>(
  name: string,
  color: string,
  amount: (day: D | undefined) => string | undefined,
): DayChart<D>['series'][number] {
  return {
    name,
    color,
    value: (d) => Number(amount(d) ?? 0),
    display: (d) => thousands(amount(d) ?? '0.00'),
  };
}

/** The totals and the daily charts, from the page's answer (the period's, whatever the page). */
export function ReportSummary<D extends { day: string; currency: string }>({
  answer,
  items,
  charts,
}: {
  answer: (PeriodAnswer & { series: readonly D[] }) | undefined;
  items: TotalItem[];
  charts: DayChart<D>[];
}) {
  const t = useT();
  useEffect(() => learnTimeZone(answer), [answer]);
  return (
    <>
      <TotalsBar label={t('reports.totals')} busy={answer === undefined} items={items} />
      {answer && (
        <DayCharts
          label={t('reports.charts')}
          period={{ from: answer.from, to: answer.to }}
          series={answer.series}
          charts={charts}
        />
      )}
    </>
  );
}
