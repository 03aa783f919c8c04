/**
 * Formatting per the spec's section 9: time, relative time, abbreviations and digit grouping. Numbers
 * are grouped as the console's language reads them: English as India writes it (lakh and crore:
 * 26,44,104.96), Chinese in threes (2,644,104.96), and abbreviated alike (26.4L, 2.6Cr; 264.4万, 2.6亿).
 */
import { $settings } from './settings.ts';

type Translate = (key: string, params?: Record<string, unknown>) => string;

/** A time value as the API or a user gives it; 10-digit numbers are Unix seconds. */
export type TimeValue = string | number | Date;

export function toDate(value: TimeValue): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number')
    return new Date(String(Math.trunc(Math.abs(value))).length === 10 ? value * 1000 : value);
  if (/^\d+$/.test(value)) return toDate(Number(value));
  return new Date(value);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:mm:ss` in the operator's time zone. */
export function formatTime(value: TimeValue | null | undefined, withSeconds = true): string {
  if (value === null || value === undefined || value === '') return '';
  const d = toDate(value);
  if (Number.isNaN(d.getTime())) return '';
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}${withSeconds ? `:${pad(d.getSeconds())}` : ''}`;
  return `${date} ${time}`;
}

/** The time of day alone, `HH:MM` (for what ends within minutes, the money session). */
export function formatClock(value: TimeValue): string {
  return formatTime(value, false).slice(-5);
}

/** Under 30 s "just now", then minutes, hours, "1 day", then the date and time. */
export function relativeTime(value: TimeValue, translate: Translate, now: number = Date.now()): string {
  const d = toDate(value);
  const seconds = (now - d.getTime()) / 1000;
  if (seconds < 30) return translate('format.justNow');
  if (seconds < 3600) return translate('format.minutesAgo', { n: Math.ceil(seconds / 60) });
  if (seconds < 86_400) return translate('format.hoursAgo', { n: Math.ceil(seconds / 3600) });
  if (seconds < 2 * 86_400) return translate('format.oneDayAgo');
  return formatTime(d, false);
}

/** The units an axis or a short figure is read in, largest first, per language. */
const unitsOf = {
  en: [
    { value: 1e7, symbol: 'Cr' },
    { value: 1e5, symbol: 'L' },
    { value: 1e3, symbol: 'k' },
  ],
  zh_CN: [
    { value: 1e8, symbol: '亿' },
    { value: 1e4, symbol: '万' },
  ],
} as const;

const language = () => $settings.get().language;

/** 1234 → "1.2k", 2_644_104 → "26.4L", 52_000_000 → "5.2Cr" (Chinese: "264.4万", "5.2亿"); small ones as they are. */
export function abbreviate(n: number, digits = 1): string {
  const sign = n < 0 ? '-' : '';
  const abs = Math.abs(n);
  for (const unit of unitsOf[language()]) {
    if (abs >= unit.value) {
      const text = (abs / unit.value).toFixed(digits).replace(/\.0+$|(\.\d*[1-9])0+$/, '$1');
      return `${sign}${text}${unit.symbol}`;
    }
  }
  return String(n);
}

/** The whole part grouped: the last three digits, then twos (India) or threes. */
function group(int: string): string {
  if (language() === 'zh_CN' || int.length <= 3) return int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${int.slice(0, -3).replace(/\B(?=(\d{2})+(?!\d))/g, ',')},${int.slice(-3)}`;
}

/**
 * 2644104.96 → "26,44,104.96" in English, "2,644,104.96" in Chinese; decimal strings keep their decimals
 * ("1234.50" → "1,234.50").
 */
export function thousands(value: number | string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const text = typeof value === 'number' ? String(value) : value.trim();
  if (!/^-?\d+(\.\d+)?$/.test(text)) return text;
  return text.replace(/^(-?)(\d+)/, (_, sign: string, int: string) => sign + group(int));
}

/** A capped total reads "10,000+". */
export function formatTotal(total: number, capped?: boolean): string {
  return `${thousands(total)}${capped ? '+' : ''}`;
}
