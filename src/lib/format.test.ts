import { describe, expect, it } from 'vitest';
import { abbreviate, formatTime, formatTotal, relativeTime, thousands, toDate } from './format.ts';
import { $settings } from './settings.ts';

/** Runs `check` with the console in Chinese, then back in English. */
function inChinese(check: () => void) {
  $settings.set({ ...$settings.get(), language: 'zh_CN' });
  try {
    check();
  } finally {
    $settings.set({ ...$settings.get(), language: 'en' });
  }
}

const tr = (key: string, params?: Record<string, unknown>) => (params ? `${key}:${params.n}` : key);

describe('format', () => {
  it('treats 10-digit timestamps as seconds and longer ones as milliseconds', () => {
    expect(toDate(1_700_000_000).getTime()).toBe(1_700_000_000_000);
    expect(toDate('1700000000').getTime()).toBe(1_700_000_000_000);
    expect(toDate(1_700_000_000_123).getTime()).toBe(1_700_000_000_123);
  });

  it('formats a time as YYYY-MM-DD HH:mm:ss in the local zone', () => {
    const d = new Date(2024, 0, 5, 7, 8, 9);
    expect(formatTime(d)).toBe('2024-01-05 07:08:09');
    expect(formatTime(d, false)).toBe('2024-01-05 07:08');
    expect(formatTime(null)).toBe('');
    expect(formatTime('not a date')).toBe('');
  });

  it('shows relative time: just now, minutes, hours, one day, then a date', () => {
    const now = new Date(2024, 5, 10, 12, 0, 0).getTime();
    expect(relativeTime(now - 29_000, tr, now)).toBe('format.justNow');
    expect(relativeTime(now - 90_000, tr, now)).toBe('format.minutesAgo:2');
    expect(relativeTime(now - 2 * 3600_000, tr, now)).toBe('format.hoursAgo:2');
    expect(relativeTime(now - 30 * 3600_000, tr, now)).toBe('format.oneDayAgo');
    expect(relativeTime(now - 3 * 86_400_000, tr, now)).toBe('2024-06-07 12:00');
  });

  it('abbreviates as India reads in English (k, L, Cr) and in 万 and 亿 in Chinese', () => {
    expect(abbreviate(999)).toBe('999');
    expect(abbreviate(1000)).toBe('1k');
    expect(abbreviate(1250)).toBe('1.3k');
    expect(abbreviate(99_999)).toBe('100k');
    expect(abbreviate(800_000)).toBe('8L');
    expect(abbreviate(2_644_104)).toBe('26.4L');
    expect(abbreviate(52_000_000)).toBe('5.2Cr');
    expect(abbreviate(-150_000)).toBe('-1.5L');
    inChinese(() => {
      expect(abbreviate(9_999)).toBe('9999');
      expect(abbreviate(2_644_104)).toBe('264.4万');
      expect(abbreviate(520_000_000)).toBe('5.2亿');
    });
  });

  it('groups digits as India writes them in English, in threes in Chinese, without touching decimals', () => {
    expect(thousands(1234567)).toBe('12,34,567');
    expect(thousands('2644104.96')).toBe('26,44,104.96');
    expect(thousands('100000.00')).toBe('1,00,000.00');
    expect(thousands('99999.99')).toBe('99,999.99');
    expect(thousands('1234.50')).toBe('1,234.50');
    expect(thousands('-1000000.123456')).toBe('-10,00,000.123456');
    inChinese(() => {
      expect(thousands('2644104.96')).toBe('2,644,104.96');
      expect(thousands(1234567)).toBe('1,234,567');
    });
    expect(thousands(12)).toBe('12');
    expect(thousands('n/a')).toBe('n/a');
    expect(formatTotal(10000, true)).toBe('10,000+');
  });
});
