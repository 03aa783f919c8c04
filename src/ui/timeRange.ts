/**
 * Periods of the lists (PRODUCT.md section 2): a period must be chosen, only the last 60 days can be
 * viewed, exports cover at most one week. Presets are whole local days, so their instants stay the
 * same all day and a list's query key does not change under it.
 */

export const rangePresets = ['today', 'yesterday', '7d', '30d', '60d'] as const;
export type RangePreset = (typeof rangePresets)[number];

/** What the URL holds: a preset (`range=7d`) or a custom period (`from=2026-11-01&to=2026-11-07`). */
export interface RangeChoice {
  preset: RangePreset | 'custom';
  /** `YYYY-MM-DD` or `YYYY-MM-DDTHH:mm`, local time; only for `custom`. */
  from: string;
  to: string;
}

export interface Period {
  from: Date;
  to: Date;
}

const dayMs = 86_400_000;
/** Days a list may look back, today included. */
export const lookbackDays = 60;

const presetDays: Record<RangePreset, [startDaysAgo: number, endDaysAgo: number]> = {
  today: [0, 0],
  yesterday: [1, 1],
  '7d': [6, 0],
  '30d': [29, 0],
  '60d': [59, 0],
};

export function startOfDay(d: Date, daysAgo = 0): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() - daysAgo, 0, 0, 0, 0);
}

export function endOfDay(d: Date, daysAgo = 0): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() - daysAgo, 23, 59, 59, 999);
}

const localPattern = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/;

/** A local date (`2026-11-07`, the whole day: its start or end) or date and minute; null when unreadable. */
export function parseLocal(text: string, end: boolean): Date | null {
  const m = localPattern.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi] = m.map(Number) as number[];
  const date =
    h === undefined || Number.isNaN(h)
      ? end
        ? new Date(y!, mo! - 1, d!, 23, 59, 59, 999)
        : new Date(y!, mo! - 1, d!, 0, 0, 0, 0)
      : new Date(y!, mo! - 1, d!, h, mi!, end ? 59 : 0, end ? 999 : 0);
  // new Date rolls 2026-02-31 over into March: refuse it instead.
  return date.getDate() === d && date.getMonth() === mo! - 1 ? date : null;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** The local date of an instant, as a date input shows it. */
export function localDate(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Reads the period choice from URL parameters; no choice at all is the fallback preset. */
export function readRange(params: URLSearchParams, fallback: RangePreset): RangeChoice {
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  if (from || to) return { preset: 'custom', from, to };
  const range = params.get('range');
  const preset = rangePresets.find((p) => p === range) ?? fallback;
  return { preset, from: '', to: '' };
}

/** Writes a choice into URL parameters (custom dates or a preset, never both). */
export function writeRange(params: URLSearchParams, choice: RangeChoice): URLSearchParams {
  const out = new URLSearchParams(params);
  out.delete('range');
  out.delete('from');
  out.delete('to');
  if (choice.preset === 'custom') {
    if (choice.from) out.set('from', choice.from);
    if (choice.to) out.set('to', choice.to);
  } else out.set('range', choice.preset);
  return out;
}

/**
 * The period of a choice, or the message key saying why there is none: a period must be chosen,
 * in order, inside the last 60 days (and, with `maxDays`, no longer than that).
 */
export function resolveRange(
  choice: RangeChoice,
  options: { now?: Date; maxDays?: number } = {},
): { period: Period; error: null } | { period: null; error: string } {
  const now = options.now ?? new Date();
  let period: Period;
  if (choice.preset === 'custom') {
    if (!choice.from || !choice.to) return { period: null, error: 'lists.period.required' };
    const from = parseLocal(choice.from, false);
    const to = parseLocal(choice.to, true);
    if (!from || !to) return { period: null, error: 'lists.period.invalid' };
    period = { from, to };
  } else {
    const [start, end] = presetDays[choice.preset];
    period = { from: startOfDay(now, start), to: endOfDay(now, end) };
  }
  if (period.to < period.from) return { period: null, error: 'validation.periodOrder' };
  if (period.from < startOfDay(now, lookbackDays - 1)) return { period: null, error: 'validation.range60' };
  if (options.maxDays !== undefined && period.to.getTime() - period.from.getTime() > options.maxDays * dayMs)
    return { period: null, error: 'validation.periodWeek' };
  return { period, error: null };
}

/** True when the period reaches the present, so new rows may still arrive in it (live refresh). */
export function reachesNow(period: Period, now = new Date()): boolean {
  return period.to.getTime() >= now.getTime();
}
