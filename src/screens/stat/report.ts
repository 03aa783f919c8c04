/**
 * The reports' period and figures (OPERATIONS.md section 3): business days in the business time zone,
 * not the browser's, so a preset asks the same days the server counts; the order list (which takes
 * local instants) is opened on the exact instants of a business day.
 */
import { balanceViewDays } from '../../../contract/endpoints/stat.ts';
import { addDays, daysBetween } from '../../../contract/endpoints/tn.ts';

export { addDays };

export const reportPresets = ['today', '7d', '30d', '60d'] as const;
export type ReportPreset = (typeof reportPresets)[number];

/** What the URL holds: a preset (`range=30d`) or business days (`from=2026-11-01&to=2026-11-07`). */
export interface ReportChoice {
  preset: ReportPreset | 'custom';
  from: string;
  to: string;
}

export interface DayPeriod {
  from: string;
  to: string;
}

/**
 * The business time zone (src/lib/timeZone.ts), as the session and the last report answered it: presets
 * count back from "today" there, and a row's day opens the order list on that zone's instants.
 */
export { $businessTimeZone } from '../../lib/timeZone.ts';

/** Every business day from `from` to `to`, oldest first (a chart's columns, empty days included). */
export function daysOf(period: DayPeriod): string[] {
  const out: string[] = [];
  for (let d = period.from; d <= period.to && out.length <= balanceViewDays; d = addDays(d, 1)) out.push(d);
  return out;
}

const presetLength: Record<ReportPreset, number> = { today: 1, '7d': 7, '30d': 30, '60d': 60 };

/** The calendar date of an instant in a time zone (`2026-11-24`). */
export function businessToday(timeZone: string, now: Date = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (v: string) =>
  dayPattern.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && addDays(v, 0) === v;

/** Reads the choice from URL parameters; none at all is the last 7 days (the server's default too). */
export function readReportChoice(params: URLSearchParams): ReportChoice {
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  if (from || to) return { preset: 'custom', from, to };
  const preset = reportPresets.find((p) => p === params.get('range')) ?? '7d';
  return { preset, from: '', to: '' };
}

/** Writes a choice into URL parameters (a preset or days, never both); paging starts again. */
export function writeReportChoice(params: URLSearchParams, choice: ReportChoice): URLSearchParams {
  const out = new URLSearchParams(params);
  for (const key of ['range', 'from', 'to', 'cursor']) out.delete(key);
  if (choice.preset === 'custom') {
    if (choice.from) out.set('from', choice.from);
    if (choice.to) out.set('to', choice.to);
  } else if (choice.preset !== '7d') out.set('range', choice.preset);
  return out;
}

/**
 * The business days of a choice, or the message key saying why there are none: both ends, real days,
 * in order, at most `balanceViewDays` (the contract's limit, so the server never refuses what is sent).
 */
export function resolveReportPeriod(
  choice: ReportChoice,
  today: string,
): { period: DayPeriod; error: null } | { period: null; error: string } {
  if (choice.preset !== 'custom')
    return { period: { from: addDays(today, 1 - presetLength[choice.preset]), to: today }, error: null };
  if (!choice.from || !choice.to) return { period: null, error: 'lists.period.required' };
  if (!isDay(choice.from) || !isDay(choice.to)) return { period: null, error: 'validation.day' };
  if (choice.from > choice.to) return { period: null, error: 'validation.periodOrder' };
  if (daysBetween(choice.from, choice.to) >= balanceViewDays)
    return { period: null, error: 'validation.dayPeriod' };
  return { period: { from: choice.from, to: choice.to }, error: null };
}

/** Minutes east of UTC of a time zone at an instant (`Asia/Kolkata` → 330). */
function offsetMinutes(timeZone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(at));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return Math.round((wall - Math.floor(at / 1000) * 1000) / 60_000);
}

/** The instant a business day begins in its time zone (twice round: a day may start across a DST change). */
export function dayStart(day: string, timeZone: string): Date {
  const wall = Date.parse(`${day}T00:00:00Z`);
  let at = wall - offsetMinutes(timeZone, wall) * 60_000;
  at = wall - offsetMinutes(timeZone, at) * 60_000;
  return new Date(at);
}

const pad = (n: number) => String(n).padStart(2, '0');
/** An instant as the order list's custom period reads it: local date and minute. */
function localMinute(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * The pay-ins behind an order statistics row: that merchant (and channel), created on that business day,
 * paid only when `paid`. The list's custom period takes local minutes, its end the whole last minute, so
 * the business day's instants are handed over exactly (its last minute ends 1 ms before the next day).
 */
export function payinsOfDay(
  row: { day: string; merchantId?: number | undefined; channelId?: number | null | undefined },
  timeZone: string,
  paid: boolean,
): string {
  const start = dayStart(row.day, timeZone);
  const end = new Date(dayStart(addDays(row.day, 1), timeZone).getTime() - 60_000);
  const q = new URLSearchParams({ from: localMinute(start), to: localMinute(end) });
  if (row.merchantId !== undefined) q.set('merchantId', String(row.merchantId));
  if (row.channelId !== undefined && row.channelId !== null) q.set('channelId', String(row.channelId));
  if (paid) q.set('status', 'paid');
  return `/order?${q.toString()}`;
}

/** A success rate (0–1) as a percentage with one decimal ("97.5 %"); nothing ended yet → an em dash. */
export function percent(rate: number | null): string {
  return rate === null ? '—' : `${(rate * 100).toFixed(1)} %`;
}

type Translate = (key: string, params?: Record<string, unknown>) => string;

/** Seconds as the two largest units ("2 min 30 s", "1 h 5 min"); none → an em dash. */
export function duration(seconds: number | null, t: Translate): string {
  if (seconds === null) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return t('reports.duration.s', { s });
  if (s < 3600) {
    const rest = s % 60;
    return t(rest ? 'reports.duration.minS' : 'reports.duration.min', { min: Math.floor(s / 60), s: rest });
  }
  const min = Math.floor((s % 3600) / 60);
  return t(min ? 'reports.duration.hMin' : 'reports.duration.h', { h: Math.floor(s / 3600), min });
}

/** A success rate's tone: 90 % and above healthy, from 70 % a warning, below that bad (as the dashboard). */
export function rateTone(rate: number | null): 'ok' | 'warn' | 'bad' {
  if (rate === null || rate >= 0.9) return 'ok';
  return rate >= 0.7 ? 'warn' : 'bad';
}

/**
 * The order counts the order and the channel statistics both give (orderStatRow and channelStatRow in
 * contract/endpoints/stat.ts): pay-ins created and paid, payouts created and succeeded.
 */
export type OrderCount = 'payinCreated' | 'payinPaid' | 'payoutCreated' | 'payoutSucceeded';
