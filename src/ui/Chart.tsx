/**
 * Small hand-drawn SVG charts: a day-by-day column chart with several series and a list of meters.
 * A few kilobytes instead of a charting library, text that stays crisp at any size, and a table under
 * each chart for screen readers. Load this module lazily: it is only needed where a chart is shown.
 */
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'wouter';
import { abbreviate } from '../lib/format.ts';
import './chart.css';

export interface Series {
  /** Shown in the legend and the tooltip. */
  name: string;
  /** A CSS colour (a variable is fine). */
  color: string;
  /** One number per label; used for drawing only. */
  values: number[];
  /** The exact text of each value (money strings, counts with separators). */
  display: string[];
}

interface ColumnChartProps {
  /** Accessible name of the chart. */
  title: string;
  /** The x axis: one label per column group (dates, for example). */
  labels: string[];
  /** Short form of a label under the axis (for example `11-21` for a date). */
  shortLabel?: (label: string) => string;
  series: Series[];
  height?: number;
  /** Header of the label column in the table for screen readers. */
  labelHeader: string;
}

const pad = { top: 10, right: 8, bottom: 22, left: 44 };

/** A round step for about `count` ticks up to `max`: 1, 2 or 5 times a power of ten. */
export function niceTicks(max: number, count = 4): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(Math.round(v * 1e6) / 1e6);
  return ticks;
}

function useWidth<T extends HTMLElement>(): [React.RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry?.contentRect.width ?? 0)));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/**
 * Grouped columns per label with a legend, y ticks abbreviated (k, M), a tooltip for the hovered or
 * keyboard-chosen column (← →), and the same figures as a visually hidden table.
 */
export function ColumnChart({
  title,
  labels,
  shortLabel,
  series,
  height = 220,
  labelHeader,
}: ColumnChartProps) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const [active, setActive] = useState<number | null>(null);
  const tableId = useId();
  const max = Math.max(0, ...series.flatMap((s) => s.values));
  const ticks = niceTicks(max);
  const top = ticks.at(-1) ?? 1;
  const innerW = Math.max(0, width - pad.left - pad.right);
  const innerH = height - pad.top - pad.bottom;
  const slot = labels.length ? innerW / labels.length : 0;
  const gap = Math.min(6, slot * 0.25);
  const barW = series.length ? Math.max(1, (slot - gap) / series.length) : 0;
  const y = (v: number) => pad.top + innerH - (v / top) * innerH;
  // Every label when they fit, else about one per 48 px.
  const every = Math.max(1, Math.ceil(labels.length / Math.max(1, Math.floor(innerW / 48))));

  const onKey = (e: KeyboardEvent) => {
    if (!labels.length) return;
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      const delta = e.key === 'ArrowRight' ? 1 : -1;
      setActive((a) =>
        Math.max(0, Math.min(labels.length - 1, (a ?? (delta > 0 ? -1 : labels.length)) + delta)),
      );
    } else if (e.key === 'Escape') setActive(null);
  };

  const tipLeft = active === null ? 0 : pad.left + slot * active + slot / 2;

  return (
    <figure className="chart">
      <ul className="chart-legend">
        {series.map((s) => (
          <li key={s.name}>
            <span className="chart-swatch" style={{ background: s.color }} />
            {s.name}
          </li>
        ))}
      </ul>
      <div
        ref={ref}
        className="chart-plot"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the arrow keys walk the columns and show their figures
        tabIndex={0}
        role="img"
        aria-label={title}
        aria-describedby={tableId}
        onKeyDown={onKey}
        onBlur={() => setActive(null)}
        onMouseLeave={() => setActive(null)}
      >
        {width > 0 && (
          <svg width={width} height={height} aria-hidden="true">
            {ticks.map((tick) => (
              <g key={tick}>
                <line className="chart-grid" x1={pad.left} x2={width - pad.right} y1={y(tick)} y2={y(tick)} />
                <text className="chart-tick" x={pad.left - 6} y={y(tick)} dy="0.32em" textAnchor="end">
                  {abbreviate(tick)}
                </text>
              </g>
            ))}
            {labels.map((label, i) => {
              const x0 = pad.left + slot * i + gap / 2;
              return (
                // biome-ignore lint/a11y/noStaticElementInteractions: hover only mirrors what the arrow keys and the table give
                <g key={label} onMouseEnter={() => setActive(i)}>
                  <rect
                    className={`chart-band${active === i ? ' active' : ''}`}
                    x={pad.left + slot * i}
                    y={pad.top}
                    width={slot}
                    height={innerH}
                  />
                  {series.map((s, k) => {
                    const v = s.values[i] ?? 0;
                    const h = Math.max(v > 0 ? 1 : 0, pad.top + innerH - y(v));
                    return (
                      <rect
                        key={s.name}
                        x={x0 + barW * k}
                        y={pad.top + innerH - h}
                        width={Math.max(1, barW - (series.length > 1 ? 1 : 0))}
                        height={h}
                        rx={Math.min(2, barW / 3)}
                        fill={s.color}
                      />
                    );
                  })}
                  {i % every === 0 && (
                    <text
                      className="chart-tick"
                      x={pad.left + slot * i + slot / 2}
                      y={height - 6}
                      textAnchor="middle"
                    >
                      {shortLabel ? shortLabel(label) : label}
                    </text>
                  )}
                </g>
              );
            })}
            <line
              className="chart-axis"
              x1={pad.left}
              x2={width - pad.right}
              y1={pad.top + innerH}
              y2={pad.top + innerH}
            />
          </svg>
        )}
        {active !== null && labels[active] !== undefined && (
          <div
            className={`chart-tip${tipLeft > width / 2 ? ' left' : ''}`}
            style={{ left: tipLeft }}
            aria-hidden="true"
          >
            <strong>{labels[active]}</strong>
            {series.map((s) => (
              <span key={s.name}>
                <span className="chart-swatch" style={{ background: s.color }} />
                {s.name}: {s.display[active]}
              </span>
            ))}
          </div>
        )}
      </div>
      {/* A table grows to its content whatever its width: the 1 px box around it clips it. */}
      <div className="sr-only">
        <table id={tableId}>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th>{labelHeader}</th>
              {series.map((s) => (
                <th key={s.name}>{s.name}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, i) => (
              <tr key={label}>
                <th>{label}</th>
                {series.map((s) => (
                  <td key={s.name}>{s.display[i]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

export interface Meter {
  key: string;
  label: string;
  /** Where the label leads (the list behind the figure), if anywhere. */
  href?: string;
  /** 0 to 1, or null when there is nothing to measure yet. */
  ratio: number | null;
  /** The figure printed at the end of the bar ("97.5 %"). */
  value: string;
  /** A second line under the label (counts, for example). */
  note?: string;
  tone?: 'ok' | 'warn' | 'bad';
}

/** Horizontal meters, one per row (success rates per channel, for example), as an accessible list. */
export function MeterList({ title, meters, empty }: { title: string; meters: Meter[]; empty: string }) {
  if (!meters.length) return <p className="muted">{empty}</p>;
  return (
    <ul className="meters" aria-label={title}>
      {meters.map((m) => (
        <li key={m.key} className="meter">
          <span className="meter-label">
            {m.href ? <Link href={m.href}>{m.label}</Link> : m.label}
            {m.note && <span className="meter-note">{m.note}</span>}
          </span>
          {/* biome-ignore lint/a11y/useSemanticElements: a native <meter> cannot take the tone colours in every browser */}
          <span
            className="meter-track"
            role="meter"
            aria-label={m.label}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={m.ratio === null ? undefined : Math.round(m.ratio * 1000) / 10}
            aria-valuetext={m.value}
          >
            <span
              className={`meter-fill ${m.tone ?? 'ok'}`}
              style={{ width: `${Math.max(0, Math.min(1, m.ratio ?? 0)) * 100}%` }}
            />
          </span>
          <span className="meter-value">{m.value}</span>
        </li>
      ))}
    </ul>
  );
}
