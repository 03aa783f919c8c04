import { lazy, Suspense, useState } from 'react';
import { useT } from '../../lib/useT.ts';
import type { Series } from '../../ui/Chart.tsx';
import { type DayPeriod, daysOf } from './report.ts';
import './stat.css';

// Charts load with their own chunk, after the figures are on screen (PERFORMANCE.md rule 5).
const ColumnChart = lazy(() => import('../../ui/Chart.tsx').then((m) => ({ default: m.ColumnChart })));

/** One chart of a report: its title and its series, drawn from one currency's days. */
export interface DayChart<D> {
  id: string;
  title: string;
  /** Amounts: the title names the currency; counts and rates are of that currency's orders but have no unit. */
  money?: boolean;
  series: {
    name: string;
    color: string;
    value: (day: D | undefined) => number;
    display: (day: D | undefined) => string;
  }[];
}

/**
 * A report's charts over the period, per day (empty days drawn empty, so gaps show), for one currency
 * at a time (a switch when the period has several).
 */
export function DayCharts<D extends { day: string; currency: string }>({
  label,
  period,
  series,
  charts,
}: {
  label: string;
  period: DayPeriod;
  series: readonly D[];
  charts: DayChart<D>[];
}) {
  const t = useT();
  const currencies = [...new Set(series.map((d) => d.currency))].sort();
  const [chosen, setChosen] = useState<string | undefined>();
  const currency = chosen && currencies.includes(chosen) ? chosen : currencies[0];
  if (!currency) return null;
  const byDay = new Map(series.filter((d) => d.currency === currency).map((d) => [d.day, d]));
  const days = daysOf(period);
  return (
    <section className="report-charts" aria-label={label}>
      {currencies.length > 1 && (
        <fieldset className="segmented report-currency" aria-label={t('reports.currency')}>
          {currencies.map((c) => (
            <button key={c} type="button" aria-pressed={c === currency} onClick={() => setChosen(c)}>
              {c}
            </button>
          ))}
        </fieldset>
      )}
      {charts.map((chart) => {
        const title = chart.money ? `${chart.title} · ${currency}` : chart.title;
        return (
          <div key={chart.id} className="report-chart">
            <h2 className="report-chart-title">{title}</h2>
            <Suspense fallback={<div className="chart-placeholder small" />}>
              <ColumnChart
                title={title}
                labelHeader={t('reports.day')}
                labels={days}
                shortLabel={(day) => day.slice(5)}
                height={150}
                series={chart.series.map(
                  (s): Series => ({
                    name: s.name,
                    color: s.color,
                    values: days.map((d) => s.value(byDay.get(d))),
                    display: days.map((d) => s.display(byDay.get(d))),
                  }),
                )}
              />
            </Suspense>
          </div>
        );
      })}
    </section>
  );
}
