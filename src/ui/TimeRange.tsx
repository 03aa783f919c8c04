import { type ReactNode, useId, useMemo } from 'react';
import { useSearchParams } from 'wouter';
import { useT } from '../lib/useT.ts';
import {
  localDate,
  lookbackDays,
  type RangeChoice,
  type RangePreset,
  rangePresets,
  readRange,
  resolveRange,
  startOfDay,
  writeRange,
} from './timeRange.ts';
import './lists.css';

export interface TimeRange {
  choice: RangeChoice;
  /** The chosen period as ISO instants (what list endpoints take), or null while it is not valid. */
  period: { from: string; to: string } | null;
  /** Message key of what is wrong with the choice. */
  error: string | null;
  set(choice: RangeChoice): void;
}

/**
 * The period of a list, kept in the URL (`range=7d`, or `from=2026-11-01&to=2026-11-07` in local
 * dates); without one the `fallback` preset applies, so a period is always chosen.
 */
export function useTimeRange(fallback: RangePreset = 'today'): TimeRange {
  const [params, setParams] = useSearchParams();
  const choice = readRange(params, fallback);
  const today = localDate(new Date());
  // biome-ignore lint/correctness/useExhaustiveDependencies: `today` re-resolves presets when the day turns
  const resolved = useMemo(() => resolveRange(choice), [choice.preset, choice.from, choice.to, today]);
  const period = useMemo(
    () =>
      resolved.period
        ? { from: resolved.period.from.toISOString(), to: resolved.period.to.toISOString() }
        : null,
    [resolved],
  );
  return {
    choice,
    period,
    error: resolved.error,
    set: (next) =>
      setParams(
        (p) => {
          const out = writeRange(p, next);
          // A new period starts the list again from its first page.
          out.delete('cursor');
          out.delete('page');
          return out;
        },
        { replace: true },
      ),
  };
}

/** The period chooser of a list toolbar: presets, or two dates; the reason it is refused under it. */
export function TimeRangeChooser({ range }: { range: TimeRange }) {
  const t = useT();
  const { choice } = range;
  const now = new Date();
  const min = localDate(startOfDay(now, lookbackDays - 1));
  const max = localDate(now);

  const choose = (value: string) => {
    if (value !== 'custom') {
      range.set({ preset: value as RangePreset, from: '', to: '' });
      return;
    }
    // Custom starts from the period on screen, so only the end that changes needs touching.
    const current = resolveRange(choice).period;
    range.set({
      preset: 'custom',
      from: current ? localDate(current.from) : max,
      to: current ? localDate(current.to) : max,
    });
  };

  return (
    <PeriodFields
      legend={t('lists.period.label')}
      label={t('lists.period.label')}
      presets={rangePresets}
      preset={choice.preset}
      onPreset={choose}
      from={{ label: t('lists.period.from'), value: /^\d{4}-\d{2}-\d{2}/.exec(choice.from)?.[0] ?? '' }}
      to={{ label: t('lists.period.to'), value: /^\d{4}-\d{2}-\d{2}/.exec(choice.to)?.[0] ?? '' }}
      min={min}
      max={max}
      onFrom={(from) => range.set({ ...choice, from })}
      onTo={(to) => range.set({ ...choice, to })}
      error={range.error}
    />
  );
}

/**
 * The fields of a period chooser, shared by lists (local dates) and reports (business days): a preset
 * select with "custom" last, two date inputs when custom, and the reason the period is refused under it.
 */
export function PeriodFields({
  legend,
  legendTitle,
  label,
  presets,
  preset,
  onPreset,
  from,
  to,
  min,
  max,
  onFrom,
  onTo,
  error,
}: {
  legend: ReactNode;
  legendTitle?: string;
  label: string;
  presets: readonly string[];
  preset: string;
  onPreset(value: string): void;
  from: { label: string; value: string };
  to: { label: string; value: string };
  min?: string;
  max: string;
  onFrom(day: string): void;
  onTo(day: string): void;
  /** Message key of what is wrong with the period. */
  error: string | null;
}) {
  const t = useT();
  const id = useId();
  return (
    <fieldset className="time-range" aria-describedby={error ? `${id}-error` : undefined}>
      <legend className="filter-label" title={legendTitle}>
        {legend}
      </legend>
      <div className="time-range-controls">
        <select aria-label={label} value={preset} onChange={(e) => onPreset(e.target.value)}>
          {presets.map((p) => (
            <option key={p} value={p}>
              {t(`lists.period.presets.${p}`)}
            </option>
          ))}
          <option value="custom">{t('lists.period.presets.custom')}</option>
        </select>
        {preset === 'custom' && (
          <>
            <DayInput day={from} min={min} max={max} invalid={!!error} onDay={onFrom} />
            <span aria-hidden="true" className="time-range-dash">
              –
            </span>
            <DayInput day={to} min={min} max={max} invalid={!!error} onDay={onTo} />
          </>
        )}
      </div>
      {error && (
        <p id={`${id}-error`} className="field-error time-range-error" role="alert">
          {t(error)}
        </p>
      )}
    </fieldset>
  );
}

/** One end of a custom period: a date within the allowed days, marked invalid with the period. */
function DayInput({
  day,
  min,
  max,
  invalid,
  onDay,
}: {
  day: { label: string; value: string };
  min?: string | undefined;
  max: string;
  invalid: boolean;
  onDay(day: string): void;
}) {
  return (
    <input
      type="date"
      aria-label={day.label}
      value={day.value}
      min={min}
      max={max}
      aria-invalid={invalid ? true : undefined}
      onChange={(e) => onDay(e.target.value)}
    />
  );
}
